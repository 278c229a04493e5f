//! Properties over random inputs spanning the whole exponent range of each type:
//! permutation, split-and-merge in any tree, cumulative prefixes, the independent model,
//! the byte encoding's round trip, and decoding arbitrary bytes without panicking.
//!
//! `QUICKCHECK_TESTS` raises the number of cases (default 2000 per property).

use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use reprosum::{DynAccumulator, Error, Options};
use reprosum_testkit::model::{Model, ModelFloat};
use reprosum_testkit::TestFloat;

fn cases() -> u64 {
    std::env::var("QUICKCHECK_TESTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

/// Bits of a value drawn from one of several exponent ranges.
fn draw_bits<T: TestFloat>(g: &mut Gen) -> u64 {
    let mant = (1u64 << T::MANT_BITS) - 1;
    let maxf = T::MAX_EXP_FIELD;
    let bias = maxf.div_ceil(2);
    let sign = if bool::arbitrary(g) { T::SIGN_BIT } else { 0 };
    let r = u64::arbitrary(g);
    let field = match u8::arbitrary(g) % 16 {
        0..=3 => r % (maxf + 1),             // anywhere, subnormals included
        4..=5 => maxf - (r % 4),             // near overflow
        6..=7 => 0,                          // subnormal (or zero)
        8..=10 => bias - 1 - (r % 4),        // [1/16, 1)
        11 => 1 + (r % 3),                   // smallest normals
        12 => (r % 3) * T::BIN_WIDTH as u64, // near bin edges
        13 => {
            // special values, rarely
            return match r % 8 {
                0 => T::INF_BITS | (1 + (r >> 8) % mant), // NaN, any payload
                1 => T::INF_BITS,
                2 => T::INF_BITS | T::SIGN_BIT,
                _ => sign, // +-0
            };
        }
        _ => bias + (r % 40),
    };
    sign | (field.min(maxf) << T::MANT_BITS) | (u64::arbitrary(g) & mant)
}

/// A vector of values of every exponent range, with cancelling pairs mixed in.
#[derive(Clone, Debug)]
struct Wide<T>(Vec<T>);

impl<T: TestFloat> Arbitrary for Wide<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = usize::arbitrary(g) % (g.size() * 8 + 1);
        let mut v: Vec<T> = Vec::with_capacity(n);
        for _ in 0..n {
            if !v.is_empty() && u8::arbitrary(g) % 8 == 0 {
                // An exact negation of an earlier value: cancellation.
                let i = usize::arbitrary(g) % v.len();
                v.push(T::from_bits_u64(v[i].bits() ^ T::SIGN_BIT));
            } else {
                v.push(T::from_bits_u64(draw_bits::<T>(g)));
            }
        }
        Wide(v)
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        // Halves, then the vector without one element (first 16 positions).
        let v = self.0.clone();
        let n = v.len();
        let mut out = Vec::new();
        if n > 1 {
            out.push(Wide(v[..n / 2].to_vec()));
            out.push(Wide(v[n / 2..].to_vec()));
        }
        for i in 0..n.min(16) {
            let mut w = v.clone();
            w.remove(i);
            out.push(Wide(w));
        }
        Box::new(out.into_iter())
    }
}

/// A fold for type T.
#[derive(Clone, Copy, Debug)]
struct Fold(usize);
fn fold_for<T: TestFloat>(f: Fold) -> usize {
    // Mostly small folds, sometimes the largest.
    let k = 2 + f.0 % (T::MAX_FOLD - 1);
    if f.0.is_multiple_of(5) {
        3
    } else {
        k
    }
}
impl Arbitrary for Fold {
    fn arbitrary(g: &mut Gen) -> Self {
        Fold(usize::arbitrary(g))
    }
}

fn bits<T: TestFloat>(x: T) -> u64 {
    x.bits()
}

fn sum<T: TestFloat>(x: &[T], fold: usize) -> T {
    reprosum_core_sum(x, fold)
}

fn reprosum_core_sum<T: TestFloat>(x: &[T], fold: usize) -> T {
    reprosum::reprosum_core::sum_fold(x, fold).unwrap()
}

/// Deterministic shuffle from a seed (Fisher-Yates with SplitMix64).
fn shuffle<T>(v: &mut [T], mut seed: u64) {
    for i in (1..v.len()).rev() {
        seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let j = ((z ^ (z >> 31)) % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

fn permutation<T: TestFloat>(x: Wide<T>, f: Fold, seed: u64) -> bool {
    let k = fold_for::<T>(f);
    let a = sum(&x.0, k);
    let mut y = x.0.clone();
    shuffle(&mut y, seed);
    let b = sum(&y, k);
    y.reverse();
    let c = sum(&y, k);
    bits(a) == bits(b) && bits(a) == bits(c)
}

/// Splits at random cuts into accumulators and merges them in a random tree.
fn split_merge<T: TestFloat>(x: Wide<T>, f: Fold, cuts: Vec<usize>, seed: u64) -> bool {
    let k = fold_for::<T>(f);
    let whole = sum(&x.0, k);
    let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (x.0.len() + 1)).collect();
    cuts.push(0);
    cuts.push(x.0.len());
    cuts.sort_unstable();
    let mut parts: Vec<DynAccumulator<T>> = cuts
        .windows(2)
        .map(|w| {
            let mut a = DynAccumulator::new(k).unwrap();
            a.add_slice(&x.0[w[0]..w[1]]).unwrap();
            a
        })
        .collect();
    let mut s = seed;
    while parts.len() > 1 {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let i = (s >> 33) as usize % parts.len();
        let b = parts.swap_remove(i);
        let j = (s >> 13) as usize % parts.len();
        parts[j].merge(&b).unwrap();
    }
    let merged = parts[0];
    bits(merged.value()) == bits(whole) && merged.count() == x.0.len() as u64
}

fn cumsum_prefixes<T: TestFloat>(x: Wide<T>, f: Fold) -> bool {
    let k = fold_for::<T>(f);
    let mut out = vec![T::NAN; x.0.len()];
    reprosum::reprosum_core::cumsum_fold(&x.0, &mut out, k).unwrap();
    let mut par = vec![T::NAN; x.0.len()];
    reprosum::cumsum_with(
        &x.0,
        &mut par,
        &Options {
            fold: k,
            chunk_len: 7,
        },
    )
    .unwrap();
    (0..x.0.len()).all(|i| bits(out[i]) == bits(sum(&x.0[..=i], k)) && bits(par[i]) == bits(out[i]))
}

fn model_agrees<T: TestFloat + ModelFloat>(x: Wide<T>, f: Fold) -> bool {
    let k = fold_for::<T>(f);
    let mut a = Model::<T>::new(k).unwrap();
    x.0.iter().for_each(|&v| a.add(v).unwrap());
    let mut b = DynAccumulator::new(k).unwrap();
    b.add_slice(&x.0).unwrap();
    a.value().to_bits64() == b.value().to_bits64() && a.to_bytes().as_slice() == b.to_bytes().as_bytes()
}

fn parallel_agrees<T: TestFloat>(x: Wide<T>, f: Fold, chunk: usize) -> bool {
    let k = fold_for::<T>(f);
    let p = reprosum::sum_with(
        &x.0,
        &Options {
            fold: k,
            chunk_len: 1 + chunk % 50,
        },
    )
    .unwrap();
    bits(p) == bits(sum(&x.0, k))
}

fn round_trip<T: TestFloat>(x: Wide<T>, f: Fold) -> bool {
    let k = fold_for::<T>(f);
    let mut a = DynAccumulator::new(k).unwrap();
    a.add_slice(&x.0).unwrap();
    let enc = a.to_bytes();
    let b = DynAccumulator::<T>::from_bytes(&enc).unwrap();
    // Same value, same bytes, and it keeps working: adding more gives the same as before.
    let mut a2 = a;
    let mut b2 = b;
    a2.add_slice(&x.0).unwrap();
    b2.add_slice(&x.0).unwrap();
    bits(a.value()) == bits(b.value())
        && b.to_bytes().as_bytes() == enc.as_bytes()
        && a2.to_bytes().as_bytes() == b2.to_bytes().as_bytes()
        && b.count() == a.count()
}

fn decode_never_panics<T: TestFloat>(bytes: Vec<u8>, x: Wide<T>, f: Fold, flips: Vec<(u16, u8)>) -> bool {
    // Arbitrary bytes.
    let _ = DynAccumulator::<T>::from_bytes(&bytes);
    // A valid encoding with bytes changed: it must either be refused, or decode to a state
    // that re-encodes to exactly the same bytes and can be used.
    let k = fold_for::<T>(f);
    let mut a = DynAccumulator::new(k).unwrap();
    a.add_slice(&x.0).unwrap();
    let mut enc = a.to_bytes().to_vec();
    for (at, v) in flips {
        let i = at as usize % enc.len();
        enc[i] ^= v;
    }
    match DynAccumulator::<T>::from_bytes(&enc) {
        Err(Error::Encoding(_)) => true,
        Err(_) => false,
        Ok(mut d) => {
            let again = d.to_bytes().to_vec() == enc;
            let _ = d.value();
            let _ = d.add_slice(&x.0);
            again
        }
    }
}

macro_rules! property {
    ($name:ident, $f:expr, $ty:ty) => {
        #[test]
        fn $name() {
            QuickCheck::new()
                .tests(cases())
                .max_tests(cases() * 10)
                .quickcheck($f as $ty);
        }
    };
}

property!(
    permutation_f64,
    permutation::<f64>,
    fn(Wide<f64>, Fold, u64) -> bool
);
property!(
    permutation_f32,
    permutation::<f32>,
    fn(Wide<f32>, Fold, u64) -> bool
);
property!(
    split_merge_f64,
    split_merge::<f64>,
    fn(Wide<f64>, Fold, Vec<usize>, u64) -> bool
);
property!(
    split_merge_f32,
    split_merge::<f32>,
    fn(Wide<f32>, Fold, Vec<usize>, u64) -> bool
);
property!(
    cumsum_prefixes_f64,
    cumsum_prefixes::<f64>,
    fn(Wide<f64>, Fold) -> bool
);
property!(
    cumsum_prefixes_f32,
    cumsum_prefixes::<f32>,
    fn(Wide<f32>, Fold) -> bool
);
property!(model_agrees_f64, model_agrees::<f64>, fn(Wide<f64>, Fold) -> bool);
property!(model_agrees_f32, model_agrees::<f32>, fn(Wide<f32>, Fold) -> bool);
property!(
    parallel_agrees_f64,
    parallel_agrees::<f64>,
    fn(Wide<f64>, Fold, usize) -> bool
);
property!(
    parallel_agrees_f32,
    parallel_agrees::<f32>,
    fn(Wide<f32>, Fold, usize) -> bool
);
property!(round_trip_f64, round_trip::<f64>, fn(Wide<f64>, Fold) -> bool);
property!(round_trip_f32, round_trip::<f32>, fn(Wide<f32>, Fold) -> bool);
property!(
    decode_f64,
    decode_never_panics::<f64>,
    fn(Vec<u8>, Wide<f64>, Fold, Vec<(u16, u8)>) -> bool
);
property!(
    decode_f32,
    decode_never_panics::<f32>,
    fn(Vec<u8>, Wide<f32>, Fold, Vec<(u16, u8)>) -> bool
);

/// Long inputs (many blocks, renormalisations in between) also keep every property.
#[test]
fn long_inputs_every_range() {
    let mut g = Gen::new(100);
    for round in 0..6u64 {
        let n = 5000 + (round as usize) * 1234;
        let x: Vec<f64> = (0..n).map(|_| f64::from_bits(draw_bits::<f64>(&mut g))).collect();
        let y: Vec<f32> = (0..n)
            .map(|_| f32::from_bits(draw_bits::<f32>(&mut g) as u32))
            .collect();
        for k in [2, 3, 5] {
            assert!(permutation(Wide(x.clone()), Fold(k - 2), round));
            assert!(permutation(Wide(y.clone()), Fold(k - 2), round));
            assert!(model_agrees(Wide(x.clone()), Fold(k - 2)));
            assert!(model_agrees(Wide(y.clone()), Fold(k - 2)));
            assert!(split_merge(
                Wide(x.clone()),
                Fold(k - 2),
                vec![1, 2049, 4096, 77],
                round
            ));
        }
    }
}

/// A sanity check that the generator really spans the exponent range (so the properties
/// are not only exercised on [0, 1)).
#[test]
fn generator_spans_the_range() {
    let mut g = Gen::new(100);
    let mut seen = [false; 6];
    for _ in 0..20000 {
        let b = draw_bits::<f64>(&mut g);
        let x = f64::from_bits(b);
        let a = x.abs();
        seen[0] |= x.is_nan();
        seen[1] |= x.is_infinite();
        seen[2] |= a != 0.0 && a < f64::MIN_POSITIVE;
        seen[3] |= a > 1e300 && a.is_finite();
        seen[4] |= a > 0.0 && a < 1.0 && a > 1e-3;
        seen[5] |= x < 0.0;
    }
    assert!(seen.iter().all(|&s| s), "{seen:?}");
    let _ = TestResult::passed();
}
