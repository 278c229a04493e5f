//! Segmented, batched and keyed sums and the segmented cumulative sum: every group's result
//! has the bits of `sum_fold` (or `cumsum_fold`) of that group's values alone, for every
//! fold, thread count and chunking; every bad argument is an error with the output untouched.

use reprosum::{Error, Float, Options};
use reprosum_testkit::TestFloat;

/// Deterministic values of mixed signs and magnitudes, with cancellation.
fn values<T: TestFloat>(n: usize, seed: u64) -> Vec<T> {
    let mut s = seed | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let m = 1.0 + (s >> 12) as f64 / (1u64 << 52) as f64;
            let e = ((s >> 2) % 60) as i32 - 30;
            let x = if s & 1 == 0 { m } else { -m } * 2f64.powi(e);
            T::from_f64_round(if i % 11 == 5 { 1e12 * x.signum() } else { x })
        })
        .collect()
}

fn rng(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move |m| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m.max(1)
    }
}

fn bits<T: Float>(xs: &[T]) -> Vec<u64> {
    xs.iter().map(|x| x.bits()).collect()
}

fn folds<T: Float>() -> [usize; 4] {
    [2, 3, 8, T::MAX_FOLD]
}

/// Runs `f` on the calling thread and inside rayon pools of 1, 2, 3 and 8 threads, with
/// the default chunking and small chunks, and checks that every run gives `want`.
fn everywhere(want: &[u64], what: &str, f: impl Fn(usize) -> Vec<u64> + Sync) {
    for chunk_len in [0usize, 997] {
        assert_eq!(f(chunk_len), want, "{what}: calling thread, chunk {chunk_len}");
        for threads in [1usize, 2, 3, 8] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let got = pool.install(|| f(chunk_len));
            assert_eq!(got, want, "{what}: {threads} threads, chunk {chunk_len}");
        }
    }
}

/// Segment layouts: empty, single values, random small ones with empties, one huge
/// segment among small ones.
fn layouts(seed: u64) -> Vec<Vec<usize>> {
    let mut r = rng(seed);
    let mut out = vec![
        vec![0],
        vec![0, 0],
        vec![0, 0, 0, 0],
        vec![0, 1],
        (0..=50).collect(),
    ];
    let mut random = vec![0usize];
    for _ in 0..3000 {
        let len = match r(10) {
            0..=2 => 0,
            3..=7 => r(20) as usize,
            _ => r(400) as usize,
        };
        random.push(random.last().unwrap() + len);
    }
    out.push(random);
    out.push(vec![0, 3, 3, 200_003, 200_010, 200_010]);
    out
}

/// Special groups: cancelling 1e300s (f64) or 1e30s (f32), NaN, Inf of one sign, both.
fn special<T: TestFloat>() -> (Vec<T>, Vec<usize>) {
    let big = T::from_f64_round(if T::BYTES == 8 { 1e300 } else { 1e30 });
    let one = T::from_f64_round(1.0);
    let inf = T::from_f64_round(f64::INFINITY);
    let (mbig, minf) = (T::ZERO - big, T::ZERO - inf);
    let mut xs = Vec::new();
    let mut offsets = vec![0];
    let mut group = |g: Vec<T>| {
        xs.extend(g);
        offsets.push(xs.len());
    };
    let mut cancel = Vec::new();
    for i in 0..5000 {
        cancel.push(if i % 2 == 0 { big } else { mbig });
        if i % 7 == 0 {
            cancel.push(one);
        }
    }
    group(cancel);
    group(vec![one, T::from_f64_round(f64::NAN), one]);
    group(vec![inf, one, inf]);
    group(vec![inf, minf]);
    group(vec![minf]);
    group(vec![big, big, big, big]);
    (xs, offsets)
}

fn want_sums<T: Float>(xs: &[T], offsets: &[usize], fold: usize) -> Vec<u64> {
    offsets
        .windows(2)
        .map(|w| reprosum::sum_fold(&xs[w[0]..w[1]], fold).unwrap().bits())
        .collect()
}

fn want_cumsums<T: Float>(xs: &[T], offsets: &[usize], fold: usize) -> Vec<u64> {
    let mut out = vec![T::ZERO; xs.len()];
    for w in offsets.windows(2) {
        reprosum::cumsum_fold(&xs[w[0]..w[1]], &mut out[w[0]..w[1]], fold).unwrap();
    }
    bits(&out)
}

fn check_segmented<T: TestFloat>(xs: &[T], offsets: &[usize], fold: usize, what: &str) {
    let want = want_sums(xs, offsets, fold);
    everywhere(&want, &format!("segmented_sum {what} fold {fold}"), |chunk_len| {
        let mut out = vec![T::from_f64_round(7.0); offsets.len() - 1];
        reprosum::segmented_sum_with(xs, offsets, &mut out, &Options { fold, chunk_len }).unwrap();
        bits(&out)
    });
    let want = want_cumsums(xs, offsets, fold);
    everywhere(
        &want,
        &format!("segmented_cumsum {what} fold {fold}"),
        |chunk_len| {
            let opts = Options { fold, chunk_len };
            let mut out = vec![T::from_f64_round(7.0); xs.len()];
            reprosum::segmented_cumsum_with(xs, offsets, &mut out, &opts).unwrap();
            let mut inplace = xs.to_vec();
            reprosum::segmented_cumsum_in_place_with(&mut inplace, offsets, &opts).unwrap();
            assert_eq!(bits(&inplace), bits(&out), "in place");
            bits(&out)
        },
    );
}

fn segmented_for<T: TestFloat>() {
    for (l, offsets) in layouts(T::BYTES as u64).iter().enumerate() {
        let xs: Vec<T> = values(*offsets.last().unwrap(), 77 + l as u64);
        for fold in folds::<T>() {
            check_segmented(&xs, offsets, fold, &format!("layout {l}"));
        }
    }
    let (xs, offsets) = special::<T>();
    for fold in folds::<T>() {
        check_segmented(&xs, &offsets, fold, "special");
    }
    // The default-fold forms.
    let (xs, offsets) = (values::<T>(1000, 5), [0usize, 10, 500, 1000]);
    let mut out = vec![T::ZERO; 3];
    reprosum::segmented_sum(&xs, &offsets, &mut out).unwrap();
    assert_eq!(bits(&out), want_sums(&xs, &offsets, 3));
    let mut cum = vec![T::ZERO; 1000];
    reprosum::segmented_cumsum(&xs, &offsets, &mut cum).unwrap();
    assert_eq!(bits(&cum), want_cumsums(&xs, &offsets, 3));
    let mut inplace = xs.clone();
    reprosum::segmented_cumsum_in_place(&mut inplace, &offsets).unwrap();
    assert_eq!(bits(&inplace), bits(&cum));
}

#[test]
fn segmented_sums_and_cumsums_f64() {
    segmented_for::<f64>();
}

#[test]
fn segmented_sums_and_cumsums_f32() {
    segmented_for::<f32>();
}

fn rows_for<T: TestFloat>() {
    let nan = T::from_f64_round(f64::NAN);
    for (rows, cols, stride) in [
        (0usize, 0usize, 0usize),
        (0, 5, 7),
        (3, 0, 0),
        (1, 1, 1),
        (5, 3, 3),
        (700, 301, 310),
        (2, 150_000, 150_001),
        (40_000, 4, 5),
    ] {
        // The padding holds NaN: it must never be read.
        let len = if rows == 0 { 0 } else { (rows - 1) * stride + cols };
        let vals: Vec<T> = values(len, (rows * 31 + cols) as u64);
        let xs: Vec<T> = (0..len)
            .map(|i| if i % stride.max(1) < cols { vals[i] } else { nan })
            .collect();
        for fold in folds::<T>() {
            let want: Vec<u64> = (0..rows)
                .map(|r| {
                    reprosum::sum_fold(&xs[r * stride..r * stride + cols], fold)
                        .unwrap()
                        .bits()
                })
                .collect();
            everywhere(
                &want,
                &format!("sum_rows {rows}x{cols}/{stride} fold {fold}"),
                |chunk_len| {
                    let mut out = vec![T::from_f64_round(7.0); rows];
                    let opts = Options { fold, chunk_len };
                    reprosum::sum_rows_with(&xs, rows, cols, stride, &mut out, &opts).unwrap();
                    bits(&out)
                },
            );
            // Batch invariance: each row alone gives its bits.
            for r in [0, rows / 2, rows.saturating_sub(1)]
                .into_iter()
                .filter(|&r| r < rows)
            {
                let mut one = [T::ZERO];
                let row = &xs[r * stride..r * stride + cols];
                reprosum::sum_rows_with(row, 1, cols, cols, &mut one, &Options::with_fold(fold)).unwrap();
                assert_eq!(one[0].bits(), want[r]);
            }
        }
    }
    let xs: Vec<T> = values(12, 3);
    let mut out = vec![T::ZERO; 3];
    reprosum::sum_rows(&xs, 3, 4, 4, &mut out).unwrap();
    assert_eq!(bits(&out), want_sums(&xs, &[0, 4, 8, 12], 3));
}

#[test]
fn row_sums_f64() {
    rows_for::<f64>();
}

#[test]
fn row_sums_f32() {
    rows_for::<f32>();
}

fn want_by_key<T: Float>(xs: &[T], keys: &[i64], nkeys: usize, fold: usize) -> Vec<u64> {
    let mut groups: Vec<Vec<T>> = vec![Vec::new(); nkeys];
    for (&x, &k) in xs.iter().zip(keys) {
        groups[k as usize].push(x);
    }
    groups
        .iter()
        .map(|g| reprosum::sum_fold(g, fold).unwrap().bits())
        .collect()
}

/// Each case's keyed sums, of its pairs as given and shuffled (`r` the randomness), against
/// each key's values summed alone, at every fold and `everywhere`.
fn check_keyed<T: TestFloat>(cases: &[(String, Vec<T>, Vec<i64>, usize)], r: &mut impl FnMut(u64) -> u64) {
    for (name, xs, keys, nkeys) in cases {
        // A shuffled list of the same pairs.
        let mut perm: Vec<usize> = (0..xs.len()).collect();
        for i in (1..perm.len()).rev() {
            perm.swap(i, r(i as u64 + 1) as usize);
        }
        let sx: Vec<T> = perm.iter().map(|&i| xs[i]).collect();
        let sk: Vec<i64> = perm.iter().map(|&i| keys[i]).collect();
        for fold in folds::<T>() {
            let want = want_by_key(xs, keys, *nkeys, fold);
            for (xs, keys, order) in [(xs, keys, "given"), (&sx, &sk, "shuffled")] {
                everywhere(
                    &want,
                    &format!("sum_by_key {name} {order} fold {fold}"),
                    |chunk_len| {
                        let mut out = vec![T::from_f64_round(7.0); *nkeys];
                        let opts = Options { fold, chunk_len };
                        reprosum::sum_by_key_with(xs, keys, &mut out, &opts).unwrap();
                        bits(&out)
                    },
                );
            }
        }
    }
}

fn keyed_for<T: TestFloat>() {
    let mut r = rng(99 + T::BYTES as u64);
    let n = 150_000;
    let xs: Vec<T> = values(n, 1234);
    let mut cases: Vec<(String, Vec<T>, Vec<i64>, usize)> = Vec::new();
    cases.push(("empty".into(), vec![], vec![], 0));
    cases.push(("no values".into(), vec![], vec![], 5));
    cases.push(("one".into(), xs[..1].to_vec(), vec![2], 3));
    let random: Vec<i64> = (0..n).map(|_| r(1000) as i64).collect();
    cases.push(("random".into(), xs.clone(), random, 1000));
    // Few keys (summed without a sort), with an infinity of each sign and a NaN among them.
    let few: Vec<i64> = (0..n).map(|_| r(7) as i64).collect();
    let mut xs_few = xs.clone();
    xs_few[10] = T::from_f64_round(f64::INFINITY);
    xs_few[20] = T::from_f64_round(f64::NEG_INFINITY);
    xs_few[30] = T::from_f64_round(f64::NAN);
    cases.push(("few keys".into(), xs_few, few, 7));
    // Skewed: nine in ten values to key 0, the others spread over many keys, most empty.
    let skewed: Vec<i64> = (0..n)
        .map(|_| if r(10) < 9 { 0 } else { r(50_000) as i64 })
        .collect();
    cases.push(("skewed".into(), xs.clone(), skewed, 100_000));
    // Many keys, uniform: sorted by each thread's part where the pool has several threads
    // (few enough keys for a histogram per part).
    let many: Vec<i64> = (0..n).map(|_| r(10_000) as i64).collect();
    cases.push(("many keys".into(), xs.clone(), many, 10_000));
    let (special, offsets) = special::<T>();
    let mut keys = Vec::new();
    for (g, w) in offsets.windows(2).enumerate() {
        keys.extend(std::iter::repeat_n(2 * g as i64, w[1] - w[0]));
    }
    cases.push(("special".into(), special, keys, 2 * offsets.len()));
    check_keyed(&cases, &mut r);
    let mut out = vec![T::ZERO; 1000];
    let (name, xs, keys, nkeys) = &cases[3];
    assert_eq!(*nkeys, 1000);
    reprosum::sum_by_key(xs, keys, &mut out).unwrap();
    assert_eq!(bits(&out), want_by_key(xs, keys, *nkeys, 3), "{name}");
}

#[test]
fn keyed_sums_f64() {
    keyed_for::<f64>();
}

#[test]
fn keyed_sums_f32() {
    keyed_for::<f32>();
}

/// More keys than the per-key buffers take (4096) and at least 65536 values: the sums by
/// buckets of consecutive keys. Every key has the bits of its values alone, for every
/// order of the pairs, fold, thread count and chunking; among the cases: keys past a
/// power of two (a partial last bucket), most keys empty, whole buckets empty, one key with
/// most values, the first and the last key only, infinities and a NaN.
fn bucketed_for<T: TestFloat>() {
    let mut r = rng(31 + T::BYTES as u64);
    let cases = bucketed_cases::<T>(&mut r);
    check_keyed(&cases, &mut r);
}

/// The cases of [`bucketed_for`] (name, values, keys, number of keys).
fn bucketed_cases<T: TestFloat>(r: &mut impl FnMut(u64) -> u64) -> Vec<(String, Vec<T>, Vec<i64>, usize)> {
    let n = 100_000;
    let xs: Vec<T> = values(n, 4321);
    let mut cases: Vec<(String, Vec<T>, Vec<i64>, usize)> = Vec::new();
    let uniform = |r: &mut dyn FnMut(u64) -> u64, nkeys: usize| -> Vec<i64> {
        (0..n).map(|_| r(nkeys as u64) as i64).collect()
    };
    cases.push(("4097 keys".into(), xs.clone(), uniform(r, 4097), 4097));
    let mut xs_special = xs.clone();
    xs_special[10] = T::from_f64_round(f64::INFINITY);
    xs_special[20] = T::from_f64_round(f64::NEG_INFINITY);
    xs_special[30] = T::from_f64_round(f64::NAN);
    xs_special[40] = T::from_f64_round(f64::INFINITY);
    let mut special_keys = uniform(r, 10_000);
    special_keys[40] = special_keys[20];
    cases.push((
        "1e4 keys, infinities and a NaN".into(),
        xs_special,
        special_keys,
        10_000,
    ));
    cases.push(("1e5 keys".into(), xs.clone(), uniform(r, 100_000), 100_000));
    // nkeys * u^6: about half the values in the lowest 3% of the keys, most keys empty.
    let skewed: Vec<i64> = (0..n)
        .map(|_| {
            let u = r(1 << 30) as f64 / (1u64 << 30) as f64;
            (u.powi(6) * 200_000.0) as i64
        })
        .collect();
    cases.push(("2e5 keys skewed".into(), xs.clone(), skewed, 200_000));
    let heavy: Vec<i64> = (0..n)
        .map(|_| if r(10) < 9 { 0 } else { r(150_001) as i64 })
        .collect();
    cases.push(("nine in ten to key 0".into(), xs.clone(), heavy, 150_001));
    // Even keys of the upper half only: every odd key and whole buckets empty.
    let sparse: Vec<i64> = (0..n).map(|_| 75_000 + 2 * r(37_500) as i64).collect();
    cases.push(("upper even keys".into(), xs.clone(), sparse, 150_001));
    let ends: Vec<i64> = (0..n).map(|i| if i % 3 == 0 { 0 } else { 65_535 }).collect();
    cases.push(("first and last key".into(), xs.clone(), ends, 65_536));
    // A bucket too large to sort in the cache (more than 2^18 values, at least 16 per key):
    // summed through per-key buffers.
    let big = 300_000;
    let xs_big: Vec<T> = values(big, 99);
    let mostly_low: Vec<i64> = (0..big)
        .map(|_| if r(10) < 9 { r(300) as i64 } else { r(5000) as i64 })
        .collect();
    cases.push(("one large bucket".into(), xs_big, mostly_low, 5000));
    cases
}

#[test]
fn bucketed_keyed_sums_f64() {
    bucketed_for::<f64>();
}

#[test]
fn bucketed_keyed_sums_f32() {
    bucketed_for::<f32>();
}

/// Each accumulator's stored form, as words (for `everywhere`).
fn acc_words<T: Float>(accs: &[reprosum::DynAccumulator<T>]) -> Vec<u64> {
    let mut w = Vec::new();
    for a in accs {
        let b = a.to_bytes();
        w.push(b.as_bytes().len() as u64);
        w.extend(b.as_bytes().chunks(8).map(|c| {
            let mut x = [0u8; 8];
            x[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(x)
        }));
    }
    w
}

/// The accumulator form by buckets of keys (more than 4096 keys, at least 65536 values):
/// every key's accumulator, started from a state of its own (empty, a value, a large value),
/// ends with the state of that start and its values added one at a time: the pairs shuffled
/// at fold 3 on every thread count and chunking; in their order, at the largest fold, and in
/// two shards (the second too small for the buckets) on the calling thread and on two
/// threads with small chunks. Five of the sums' cases: a partial last bucket, NaN and
/// infinities, most keys and whole buckets empty, one key with most values, one large bucket.
fn bucketed_add_for<T: TestFloat>() {
    use reprosum::DynAccumulator;
    let mut r = rng(57 + T::BYTES as u64);
    let cases = bucketed_cases::<T>(&mut r);
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for (name, xs, keys, nkeys) in cases.iter().filter(|c| {
        [
            "4097 keys",
            "1e4 keys, infinities and a NaN",
            "2e5 keys skewed",
            "nine in ten to key 0",
            "one large bucket",
        ]
        .contains(&c.0.as_str())
    }) {
        let n = xs.len();
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            perm.swap(i, r(i as u64 + 1) as usize);
        }
        let sx: Vec<T> = perm.iter().map(|&i| xs[i]).collect();
        let sk: Vec<i64> = perm.iter().map(|&i| keys[i]).collect();
        for fold in [3, T::MAX_FOLD] {
            let starts: Vec<DynAccumulator<T>> = (0..*nkeys)
                .map(|k| {
                    let mut a = DynAccumulator::new(fold).unwrap();
                    if k % 3 != 0 {
                        a.add(T::from_f64_round(k as f64 * 0.75 - 1000.0)).unwrap();
                    }
                    if k % 7 == 0 {
                        a.add(T::from_f64_round(3e9)).unwrap();
                    }
                    a
                })
                .collect();
            let mut want = starts.clone();
            for (&x, &k) in xs.iter().zip(keys) {
                want[k as usize].add(x).unwrap();
            }
            let want = acc_words(&want);
            let add = |xs: &[T], keys: &[i64], chunk_len: usize| {
                let mut accs = starts.clone();
                let opts = Options { fold, chunk_len };
                reprosum::add_by_key_with(xs, keys, &mut accs, &opts).unwrap();
                acc_words(&accs)
            };
            if fold == 3 {
                everywhere(&want, &format!("add_by_key {name} shuffled"), |chunk_len| {
                    add(&sx, &sk, chunk_len)
                });
            }
            let shards = |chunk_len: usize| {
                let mut accs = starts.clone();
                let opts = Options { fold, chunk_len };
                let cut = 70_000.min(n);
                reprosum::add_by_key_with(&sx[..cut], &sk[..cut], &mut accs, &opts).unwrap();
                reprosum::add_by_key_with(&sx[cut..], &sk[cut..], &mut accs, &opts).unwrap();
                acc_words(&accs)
            };
            for (two_threads, chunk_len) in [(false, 0), (true, 997)] {
                let run = |f: &(dyn Fn(usize) -> Vec<u64> + Sync)| {
                    if two_threads {
                        two.install(|| f(chunk_len))
                    } else {
                        f(chunk_len)
                    }
                };
                let at = format!("fold {fold}, two threads {two_threads}");
                assert_eq!(run(&|c| add(xs, keys, c)), want, "add_by_key {name} given, {at}");
                assert_eq!(run(&shards), want, "add_by_key {name} in two shards, {at}");
            }
        }
    }
}

#[test]
fn bucketed_add_by_key_f64() {
    bucketed_add_for::<f64>();
}

#[test]
fn bucketed_add_by_key_f32() {
    bucketed_add_for::<f32>();
}

/// The sums by buckets of keys report every bad argument with `out` untouched: a bad key
/// found in the first, a middle or the last part of the pairs, on the calling thread and on
/// two threads.
#[test]
fn bucketed_bad_arguments_write_nothing() {
    let poison = f64::from_bits(0x7FF4_DEAD_BEEF_0001);
    let n = 100_000;
    let nkeys = 10_000;
    let xs: Vec<f64> = values(n, 5);
    let mut r = rng(6);
    let mut keys: Vec<i64> = (0..n).map(|_| r(nkeys as u64) as i64).collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let run = |keys: &[i64], xs: &[f64], fold: usize, chunk_len: usize, two: bool| {
        let mut out = vec![poison; nkeys];
        let opts = Options { fold, chunk_len };
        let e = if two {
            pool.install(|| reprosum::sum_by_key_with(xs, keys, &mut out, &opts))
        } else {
            reprosum::sum_by_key_with(xs, keys, &mut out, &opts)
        };
        assert!(out.iter().all(|x| x.to_bits() == poison.to_bits()));
        e.unwrap_err()
    };
    for two in [false, true] {
        for chunk_len in [0usize, 997] {
            for (at, k) in [
                (0usize, -1i64),
                (n / 2, nkeys as i64),
                (n - 1, nkeys as i64),
                (n - 1, i64::MIN),
                (7, i64::MAX),
            ] {
                let was = std::mem::replace(&mut keys[at], k);
                assert_eq!(run(&keys, &xs, 3, chunk_len, two), Error::KeyOutOfRange);
                keys[at] = was;
            }
            assert_eq!(run(&keys, &xs, 1, chunk_len, two), Error::InvalidFold);
            assert_eq!(run(&keys[1..], &xs, 3, chunk_len, two), Error::LengthMismatch);
        }
    }
    // The good keys give the sums.
    let mut out = vec![poison; nkeys];
    pool.install(|| reprosum::sum_by_key(&xs, &keys, &mut out))
        .unwrap();
    assert_eq!(bits(&out), want_by_key(&xs, &keys, nkeys, 3));
}

/// The facade's own pool at 1, 2, 3 and 8 threads gives the same bits (the one test of this
/// binary that changes the process-wide setting; the others do not depend on it).
#[test]
fn facade_thread_counts() {
    let xs: Vec<f64> = values(400_000, 8);
    let mut offsets = vec![0usize];
    let mut r = rng(4);
    while *offsets.last().unwrap() < xs.len() {
        let next = offsets.last().unwrap() + r(3000) as usize;
        offsets.push(next.min(xs.len()));
    }
    offsets.push(xs.len());
    let keys: Vec<i64> = (0..xs.len()).map(|_| r(777) as i64).collect();
    let want_seg = want_sums(&xs, &offsets, 3);
    let want_cum = want_cumsums(&xs, &offsets, 3);
    let want_key = want_by_key(&xs, &keys, 777, 3);
    let want_rows: Vec<u64> = xs.chunks(400).map(|c| reprosum::sum(c).unwrap().bits()).collect();
    for threads in [1usize, 2, 3, 8, 0] {
        reprosum::set_num_threads(threads).unwrap();
        let mut out = vec![0.0; offsets.len() - 1];
        reprosum::segmented_sum(&xs, &offsets, &mut out).unwrap();
        assert_eq!(bits(&out), want_seg, "{threads} threads");
        let mut cum = vec![0.0; xs.len()];
        reprosum::segmented_cumsum(&xs, &offsets, &mut cum).unwrap();
        assert_eq!(bits(&cum), want_cum, "{threads} threads");
        let mut by_key = vec![0.0; 777];
        reprosum::sum_by_key(&xs, &keys, &mut by_key).unwrap();
        assert_eq!(bits(&by_key), want_key, "{threads} threads");
        let mut rows = vec![0.0; 1000];
        reprosum::sum_rows(&xs, 1000, 400, 400, &mut rows).unwrap();
        assert_eq!(bits(&rows), want_rows, "{threads} threads");
    }
}

/// Every bad argument is its error, with every output as it was.
#[test]
fn bad_arguments_write_nothing() {
    let poison = f64::from_bits(0x7FF4_DEAD_BEEF_0001);
    let xs: Vec<f64> = values(10, 1);
    let seg = |offsets: &[usize], nout: usize, fold: usize| {
        let mut out = vec![poison; nout];
        let e = reprosum::segmented_sum_with(&xs, offsets, &mut out, &Options::with_fold(fold)).unwrap_err();
        assert!(out.iter().all(|x| x.to_bits() == poison.to_bits()));
        e
    };
    assert_eq!(seg(&[0, 5, 10], 2, 1), Error::InvalidFold);
    assert_eq!(seg(&[0, 5, 10], 2, 53), Error::InvalidFold);
    assert_eq!(seg(&[0, 5, 10], 3, 3), Error::LengthMismatch);
    assert_eq!(seg(&[], 0, 3), Error::LengthMismatch);
    assert_eq!(seg(&[0, 6, 5, 10], 3, 3), Error::InvalidOffsets);
    assert_eq!(seg(&[1, 5, 10], 2, 3), Error::InvalidOffsets);
    assert_eq!(seg(&[0, 5, 9], 2, 3), Error::InvalidOffsets);
    assert_eq!(seg(&[0, 5, 11], 2, 3), Error::InvalidOffsets);
    assert_eq!(seg(&[0], 0, 3), Error::InvalidOffsets);

    let cum = |offsets: &[usize], nout: usize, fold: usize| {
        let mut out = vec![poison; nout];
        let opts = Options::with_fold(fold);
        let e = reprosum::segmented_cumsum_with(&xs, offsets, &mut out, &opts).unwrap_err();
        assert!(out.iter().all(|x| x.to_bits() == poison.to_bits()));
        if nout == xs.len() {
            let mut inplace = xs.clone();
            let e2 = reprosum::segmented_cumsum_in_place_with(&mut inplace, offsets, &opts).unwrap_err();
            assert_eq!(e2, e);
            assert_eq!(bits(&inplace), bits(&xs));
        }
        e
    };
    assert_eq!(cum(&[0, 10], 10, 0), Error::InvalidFold);
    assert_eq!(cum(&[0, 10], 9, 3), Error::LengthMismatch);
    assert_eq!(cum(&[], 10, 3), Error::InvalidOffsets);
    assert_eq!(cum(&[0, 4, 3, 10], 10, 3), Error::InvalidOffsets);
    assert_eq!(cum(&[2, 10], 10, 3), Error::InvalidOffsets);
    assert_eq!(cum(&[0, 9], 10, 3), Error::InvalidOffsets);

    let rows = |xs: &[f64], r: usize, c: usize, s: usize, nout: usize, fold: usize| {
        let mut out = vec![poison; nout];
        let e = reprosum::sum_rows_with(xs, r, c, s, &mut out, &Options::with_fold(fold)).unwrap_err();
        assert!(out.iter().all(|x| x.to_bits() == poison.to_bits()));
        e
    };
    assert_eq!(rows(&xs, 2, 5, 5, 2, 1), Error::InvalidFold);
    assert_eq!(rows(&xs, 2, 5, 5, 3, 3), Error::LengthMismatch);
    assert_eq!(rows(&xs, 2, 6, 5, 2, 3), Error::InvalidStride);
    assert_eq!(rows(&xs, 0, 6, 5, 0, 3), Error::InvalidStride);
    assert_eq!(rows(&xs, 3, 4, 4, 3, 3), Error::LengthMismatch);
    assert_eq!(rows(&xs, 2, 5, 6, 2, 3), Error::LengthMismatch);
    assert_eq!(rows(&xs, 3, 1, usize::MAX, 3, 3), Error::LengthMismatch);

    let keyed = |keys: &[i64], nout: usize, fold: usize| {
        let mut out = vec![poison; nout];
        let opts = Options::with_fold(fold);
        let e = reprosum::sum_by_key_with(&xs[..keys.len().min(10)], keys, &mut out, &opts).unwrap_err();
        assert!(out.iter().all(|x| x.to_bits() == poison.to_bits()));
        e
    };
    let good: Vec<i64> = (0..10).map(|i| i % 3).collect();
    assert_eq!(keyed(&good, 3, 1), Error::InvalidFold);
    let mut bad = good.clone();
    bad[7] = 3;
    assert_eq!(keyed(&bad, 3, 3), Error::KeyOutOfRange);
    bad[7] = -1;
    assert_eq!(keyed(&bad, 3, 3), Error::KeyOutOfRange);
    bad[7] = i64::MIN;
    assert_eq!(keyed(&bad, 3, 3), Error::KeyOutOfRange);
    assert_eq!(keyed(&good, 0, 3), Error::KeyOutOfRange);
    let mut out = [poison; 3];
    assert_eq!(
        reprosum::sum_by_key(&xs[..9], &good, &mut out).unwrap_err(),
        Error::LengthMismatch
    );
    assert!(out.iter().all(|x| x.to_bits() == poison.to_bits()));
    // A bad key found by the threads' counting pass (a large input on a pool of 2, the last
    // part's key), and a negative one in the first part.
    let big: Vec<f64> = values(300_000, 3);
    let mut keys: Vec<i64> = (0..big.len() as i64).map(|i| i % 10).collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for (at, k) in [(299_999usize, 10i64), (7, -5)] {
        let was = std::mem::replace(&mut keys[at], k);
        let mut out = vec![poison; 10];
        let e = pool
            .install(|| reprosum::sum_by_key(&big, &keys, &mut out))
            .unwrap_err();
        assert_eq!(e, Error::KeyOutOfRange);
        assert!(out.iter().all(|x| x.to_bits() == poison.to_bits()));
        keys[at] = was;
    }
    let mut out = vec![poison; 10];
    pool.install(|| reprosum::sum_by_key(&big, &keys, &mut out))
        .unwrap();
    assert_eq!(bits(&out), want_by_key(&big, &keys, 10, 3));

    // The f32 fold range.
    let xf: Vec<f32> = values(4, 2);
    let mut of = [f32::from_bits(0x7FA0_BEEF); 2];
    let e = reprosum::segmented_sum_with(&xf, &[0, 2, 4], &mut of, &Options::with_fold(22)).unwrap_err();
    assert_eq!(e, Error::InvalidFold);
    assert!(of.iter().all(|x| x.to_bits() == 0x7FA0_BEEF));
    // The largest fold of each type works.
    reprosum::segmented_sum_with(&xf, &[0, 2, 4], &mut of, &Options::with_fold(21)).unwrap();
}

/// The accumulator forms: the shards of a segmented or keyed input, added call after call
/// (in any split, the pairs in any order), leave every group's accumulator with the state of
/// the whole group: the same encoding as one add of everything, and the value of the sums.
fn shards_for<T: TestFloat>() {
    use reprosum::DynAccumulator;
    let mut r = rng(7 + T::BYTES as u64);
    let xs: Vec<T> = values(300_000, 77);
    let enc = |a: &[DynAccumulator<T>]| {
        a.iter()
            .map(|a| a.to_bytes().as_bytes().to_vec())
            .collect::<Vec<_>>()
    };
    for offsets in layouts(5).into_iter().filter(|o| *o.last().unwrap() <= xs.len()) {
        let n = *offsets.last().unwrap();
        let xs = &xs[..n];
        for fold in [3usize, 8] {
            let empty = DynAccumulator::<T>::new(fold).unwrap();
            let mut whole = vec![empty; offsets.len() - 1];
            reprosum::add_segments(xs, &offsets, &mut whole).unwrap();
            assert_eq!(
                whole.iter().map(|a| a.value().bits()).collect::<Vec<_>>(),
                want_sums(xs, &offsets, fold)
            );
            // Shards at random cut points, each with offsets relative to it.
            let mut cuts = vec![0, n];
            for _ in 0..5 {
                cuts.push(r(n as u64 + 1) as usize);
            }
            cuts.sort_unstable();
            let mut parts = vec![empty; offsets.len() - 1];
            for w in cuts.windows(2) {
                let local: Vec<usize> = offsets.iter().map(|&o| o.clamp(w[0], w[1]) - w[0]).collect();
                let opts = Options { fold, chunk_len: 997 };
                reprosum::add_segments_with(&xs[w[0]..w[1]], &local, &mut parts, &opts).unwrap();
            }
            assert_eq!(enc(&parts), enc(&whole), "segments fold {fold}");
        }
    }
    // Keys: the pairs shuffled and split into shards.
    let nkeys = 1000;
    let keys: Vec<i64> = (0..xs.len())
        .map(|_| (r(nkeys as u64).pow(2) / nkeys as u64) as i64)
        .collect();
    let empty = DynAccumulator::<T>::new(4).unwrap();
    let mut whole = vec![empty; nkeys];
    reprosum::add_by_key(&xs, &keys, &mut whole).unwrap();
    let mut want = vec![T::ZERO; nkeys];
    reprosum::sum_by_key_with(&xs, &keys, &mut want, &Options::with_fold(4)).unwrap();
    assert_eq!(
        whole.iter().map(|a| a.value().bits()).collect::<Vec<_>>(),
        bits(&want)
    );
    let mut perm: Vec<usize> = (0..xs.len()).collect();
    for i in (1..perm.len()).rev() {
        perm.swap(i, r(i as u64 + 1) as usize);
    }
    let mut parts = vec![empty; nkeys];
    for shard in perm.chunks(70_001) {
        let sx: Vec<T> = shard.iter().map(|&i| xs[i]).collect();
        let sk: Vec<i64> = shard.iter().map(|&i| keys[i]).collect();
        reprosum::add_by_key(&sx, &sk, &mut parts).unwrap();
    }
    assert_eq!(enc(&parts), enc(&whole), "keys");
}

#[test]
fn shards_merge_to_the_whole_f64() {
    shards_for::<f64>();
}

#[test]
fn shards_merge_to_the_whole_f32() {
    shards_for::<f32>();
}

/// An f32 accumulator (fold 3) whose count is one short of the capacity, built by merging
/// doubled accumulators of 1.0.
fn near_capacity_f32() -> reprosum::DynAccumulator<f32> {
    use reprosum::DynAccumulator;
    let mut pow = DynAccumulator::<f32>::new(3).unwrap();
    pow.add(1.0).unwrap();
    let mut acc = DynAccumulator::<f32>::new(3).unwrap();
    let want = f32::CAPACITY - 1;
    for bit in 0..64 {
        if want >> bit & 1 == 1 {
            acc.merge(&pow).unwrap();
        }
        if want >> (bit + 1) == 0 {
            break;
        }
        let p = pow;
        pow.merge(&p).unwrap();
    }
    assert_eq!(acc.count(), want);
    acc
}

/// The accumulator form by buckets of keys reports every bad argument with every
/// accumulator as it was: a bad key in the first, a middle or the last part of the pairs, on
/// the calling thread and on two threads; a key whose values would take its accumulator
/// past the capacity (and one value more fits).
#[test]
fn bucketed_add_bad_arguments_change_nothing() {
    use reprosum::DynAccumulator;
    let n = 100_000;
    let nkeys = 10_000;
    let xs: Vec<f32> = values(n, 15);
    let mut r = rng(16);
    let mut keys: Vec<i64> = (0..n).map(|_| r(nkeys as u64) as i64).collect();
    let mut start = DynAccumulator::<f32>::new(3).unwrap();
    start.add(1.5).unwrap();
    let mut accs = vec![start; nkeys];
    accs[5000] = near_capacity_f32();
    let before = acc_words(&accs);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut run = |keys: &[i64], xs: &[f32], chunk_len: usize, two: bool| {
        let opts = Options { fold: 3, chunk_len };
        let e = if two {
            pool.install(|| reprosum::add_by_key_with(xs, keys, &mut accs, &opts))
        } else {
            reprosum::add_by_key_with(xs, keys, &mut accs, &opts)
        };
        assert_eq!(acc_words(&accs), before);
        e.unwrap_err()
    };
    // Key 5000 once only: the one value its accumulator has room for.
    for (i, k) in keys.iter_mut().enumerate() {
        if *k == 5000 && i != 777 {
            *k = 4999;
        }
    }
    keys[777] = 5000;
    for two in [false, true] {
        for chunk_len in [0usize, 997] {
            for (at, k) in [
                (0usize, -1i64),
                (n / 2, nkeys as i64),
                (n - 1, nkeys as i64),
                (n - 1, i64::MIN),
                (7, i64::MAX),
                (n - 5, 5000),
            ] {
                let was = std::mem::replace(&mut keys[at], k);
                let want = if k == 5000 {
                    Error::CapacityExceeded
                } else {
                    Error::KeyOutOfRange
                };
                assert_eq!(run(&keys, &xs, chunk_len, two), want, "key {k} at {at}");
                keys[at] = was;
            }
            assert_eq!(run(&keys[1..], &xs, chunk_len, two), Error::LengthMismatch);
        }
    }
    reprosum::add_by_key(&xs, &keys, &mut accs).unwrap();
    assert_eq!(accs[5000].count(), f32::CAPACITY);
}

/// Every bad argument of the accumulator forms is its error, with every accumulator as it
/// was.
#[test]
fn bad_accumulator_arguments_change_nothing() {
    use reprosum::DynAccumulator;
    let xs: Vec<f64> = values(10, 3);
    let mut start = DynAccumulator::<f64>::new(3).unwrap();
    start.add(1.5).unwrap();
    let before = start.to_bytes().as_bytes().to_vec();
    let same = |accs: &[DynAccumulator<f64>]| accs.iter().all(|a| a.to_bytes().as_bytes() == before);
    let mut accs = vec![start; 3];
    for (offsets, e) in [
        (vec![0, 5, 10], Error::LengthMismatch),
        (vec![0, 5, 4, 10], Error::InvalidOffsets),
        (vec![0, 5, 9, 9], Error::InvalidOffsets),
        (vec![1, 5, 9, 10], Error::InvalidOffsets),
    ] {
        assert_eq!(reprosum::add_segments(&xs, &offsets, &mut accs), Err(e));
        assert!(same(&accs));
    }
    for (keys, e) in [
        (vec![0i64; 9], Error::LengthMismatch),
        (vec![0, 1, 2, 3, 0, 0, 0, 0, 0, 0], Error::KeyOutOfRange),
        (vec![0, 1, 2, -1, 0, 0, 0, 0, 0, 0], Error::KeyOutOfRange),
    ] {
        assert_eq!(reprosum::add_by_key(&xs, &keys, &mut accs), Err(e));
        assert!(same(&accs));
    }
    // The capacity of one accumulator.
    let near = near_capacity_f32();
    {
        let mut accs = [DynAccumulator::<f32>::new(3).unwrap(), near];
        let enc = |accs: &[DynAccumulator<f32>]| {
            accs.iter()
                .map(|a| a.to_bytes().as_bytes().to_vec())
                .collect::<Vec<_>>()
        };
        let before = enc(&accs);
        let xf = [1.0f32, 2.0, 3.0];
        assert_eq!(
            reprosum::add_segments(&xf, &[0, 1, 3], &mut accs),
            Err(Error::CapacityExceeded)
        );
        assert_eq!(
            reprosum::add_by_key(&xf, &[0, 1, 1], &mut accs),
            Err(Error::CapacityExceeded)
        );
        assert_eq!(enc(&accs), before);
        // One value fits.
        reprosum::add_by_key(&xf, &[0, 0, 1], &mut accs).unwrap();
        assert_eq!(accs[1].count(), f32::CAPACITY);
    }
}
