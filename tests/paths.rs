//! The shared suite once per deposit path, forcing each path in turn (one test, so no
//! other test in this process changes the path meanwhile).

mod common;

use common::{run_suite, Backend};
use reprosum::{Options, Path, Platform};
use reprosum_testkit::model::{Model, ModelFloat};

/// The independent model's state after adding `x` one value at a time.
fn model_of<T: ModelFloat>(x: &[T], k: usize) -> Model<T> {
    let mut m = Model::new(k).unwrap();
    x.iter().for_each(|&v| m.add(v).unwrap());
    m
}

struct OnPath(Path);
impl Backend for OnPath {
    fn name(&self) -> String {
        format!("path {}", self.0.name())
    }
    fn sum_f64(&self, x: &[f64], k: usize) -> f64 {
        reprosum::reprosum_core::sum_fold(x, k).unwrap()
    }
    fn sum_f32(&self, x: &[f32], k: usize) -> f32 {
        let mut a = reprosum::DynAccumulator::new(k).unwrap();
        a.add_slice(x).unwrap();
        a.value()
    }
    fn cumsum_f64(&self, x: &[f64], k: usize) -> Vec<f64> {
        let mut out = vec![f64::NAN; x.len()];
        reprosum::cumsum_with(
            x,
            &mut out,
            &Options {
                fold: k,
                chunk_len: 100,
            },
        )
        .unwrap();
        out
    }
    fn cumsum_f32(&self, x: &[f32], k: usize) -> Vec<f32> {
        let mut out = vec![f32::NAN; x.len()];
        reprosum::cumsum_with(
            x,
            &mut out,
            &Options {
                fold: k,
                chunk_len: 100,
            },
        )
        .unwrap();
        out
    }
}

#[test]
fn every_path_gives_the_vectors_bits() {
    let mut ran = Vec::new();
    for p in Path::ALL {
        if reprosum::select_path(p).is_err() {
            println!("path {}: not supported by this CPU or target, skipped", p.name());
            continue;
        }
        assert_eq!(reprosum::current_path(), p);
        run_suite(&OnPath(p), false);
        // Long inputs of every range on this path against the independent model.
        let x: Vec<f64> = (0..70_000u64)
            .map(|i| {
                f64::from_bits(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 1)
                    * if i % 3 == 0 { -1.0 } else { 1.0 }
            })
            .filter(|v| v.is_finite())
            .collect();
        for k in [2, 3, 4, 7] {
            let fast = reprosum::reprosum_core::sum_fold(&x, k).unwrap();
            let slow = model_of(&x, k).value();
            assert_eq!(fast.to_bits(), slow.to_bits(), "path {} fold {k}", p.name());
        }
        let states = model_states_when_the_window_moves(p.name());
        println!(
            "path {}: {states} sums with a moving window have the model's state",
            p.name()
        );
        ran.push(p.name());
    }
    println!("paths run: {ran:?}");
    assert!(ran.contains(&"portable") && ran.contains(&"scalar"));
}

/// Values whose window moves inside the sum's blocks, so that the one-pass block deposit
/// (a deposit beside a running maximum, kept only if the window fits every value) is tried
/// and thrown away, and the two-pass block redone: a large value late in a block, magnitudes
/// that rise steadily, a NaN and an Inf mid-slice, the top window, subnormals.
fn moving(kind: u64, n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let m = (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            match kind {
                0 if i % 1000 == 999 => 1e10 * (m + 0.6),
                0 => m * 1e-5,
                1 => m * 2f64.powi((i / 3000) as i32 - 30),
                2 if i == n / 2 => f64::NAN,
                3 if i == n - 1 - (s % 7) as usize => f64::INFINITY,
                4 => m * f64::MAX,
                5 => m * 1e-310,
                6 => m * 2f64.powi(((i / 5000) % 60) as i32 * 20 - 600),
                _ => m,
            }
        })
        .collect()
}

/// The state of `x` added in two slices (the second starts on a non-empty state, so its
/// first block is tried in one pass) has the independent model's bytes.
fn same_state<T: reprosum::Float + ModelFloat>(x: &[T], split: usize, k: usize, what: &str) {
    let want = model_of(x, k);
    let mut got = reprosum::DynAccumulator::<T>::new(k).unwrap();
    got.add_slice(&x[..split]).unwrap();
    got.add_slice(&x[split..]).unwrap();
    assert_eq!(got.to_bytes().as_bytes(), want.to_bytes().as_slice(), "{what}");
}

/// On the current path: the state bytes of sums whose window moves inside blocks, against
/// the independent model, for f64 and f32, folds 2, 3, 4.
fn model_states_when_the_window_moves(path: &str) -> usize {
    let mut ran = 0;
    for kind in 0..7u64 {
        for (n, split) in [(40_000usize, 0usize), (70_001, 33_333), (300, 7)] {
            let x64 = moving(kind, n, 0x9E37_79B9_7F4A_7C15 ^ kind);
            let x32: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
            for k in [2usize, 3, 4] {
                same_state(
                    &x64,
                    split,
                    k,
                    &format!("f64 path {path} kind {kind} n {n} fold {k}"),
                );
                same_state(
                    &x32,
                    split,
                    k,
                    &format!("f32 path {path} kind {kind} n {n} fold {k}"),
                );
                ran += 2;
            }
        }
    }
    ran
}

/// A path passed as a value ([`Platform`]): nothing process-wide changes, so the paths
/// run side by side (on threads of one test) while the test above moves the default.
struct OnPlatform(Platform);
impl Backend for OnPlatform {
    fn name(&self) -> String {
        format!("platform {}", self.0.path().name())
    }
    fn sum_f64(&self, x: &[f64], k: usize) -> f64 {
        let mut a = reprosum::DynAccumulator::new(k).unwrap();
        a.add_slice_on(self.0, x).unwrap();
        a.value()
    }
    fn sum_f32(&self, x: &[f32], k: usize) -> f32 {
        let mut a = reprosum::DynAccumulator::new(k).unwrap();
        a.add_slice_on(self.0, x).unwrap();
        a.value()
    }
    fn cumsum_f64(&self, x: &[f64], k: usize) -> Vec<f64> {
        let mut out = vec![f64::NAN; x.len()];
        let mut a = reprosum::DynAccumulator::new(k).unwrap();
        a.add_running_on(self.0, x, &mut out).unwrap();
        out
    }
    fn cumsum_f32(&self, x: &[f32], k: usize) -> Vec<f32> {
        let mut out = vec![f32::NAN; x.len()];
        let mut a = reprosum::DynAccumulator::new(k).unwrap();
        a.add_running_on(self.0, x, &mut out).unwrap();
        out
    }
}

/// The state bytes of `x` added on `pf` in two slices against the independent model, by
/// the block deposit (`add_slice_on`) and by the cumulative sum's kernels
/// (`add_running_on`, whose last running value must be the model's value too).
fn same_state_on<T: reprosum::Float + ModelFloat>(pf: Platform, x: &[T], split: usize, k: usize) {
    let want = model_of(x, k);
    let mut got = reprosum::DynAccumulator::<T>::new(k).unwrap();
    got.add_slice_on(pf, &x[..split]).unwrap();
    got.add_slice_on(pf, &x[split..]).unwrap();
    assert_eq!(
        got.to_bytes().as_bytes(),
        want.to_bytes().as_slice(),
        "path {} fold {k}, {} values split at {split}",
        pf.path().name(),
        x.len()
    );
    let mut run = reprosum::DynAccumulator::<T>::new(k).unwrap();
    let mut out = vec![T::ZERO; x.len()];
    let (o1, o2) = out.split_at_mut(split);
    run.add_running_on(pf, &x[..split], o1).unwrap();
    run.add_running_on(pf, &x[split..], o2).unwrap();
    assert_eq!(
        run.to_bytes().as_bytes(),
        want.to_bytes().as_slice(),
        "running: path {} fold {k}, {} values split at {split}",
        pf.path().name(),
        x.len()
    );
    let last = out.last().map(|v| reprosum::Float::bits(*v));
    assert_eq!(
        last,
        x.last().map(|_| reprosum::Float::bits(want.value())),
        "running: last value, path {} fold {k}",
        pf.path().name()
    );
}

/// Every path this CPU runs, each on its own thread at the same time, every fold of both
/// types (f64 2..=52, f32 2..=21): the vectors files, and the full state bytes of sums
/// whose window moves inside blocks against the independent model.
#[test]
fn every_platform_at_once_every_fold() {
    let platforms: Vec<Platform> = Platform::all().into_iter().flatten().collect();
    for p in Path::ALL {
        if Platform::new(p).is_none() {
            println!("path {}: not supported by this CPU or target, skipped", p.name());
        }
    }
    std::thread::scope(|s| {
        for &pf in &platforms {
            s.spawn(move || {
                run_suite(&OnPlatform(pf), true);
                let mut states = 0;
                for kind in [0u64, 1, 4, 6, 7] {
                    // One block and a bit (two-pass, then one-pass); a second slice that
                    // starts on a set window.
                    let x64 = moving(kind, 5_000, 0x2545_F491_4F6C_DD1D ^ kind);
                    let x32: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
                    for k in 2..=52 {
                        same_state_on(pf, &x64, 1_234, k);
                        states += 1;
                    }
                    for k in 2..=21 {
                        same_state_on(pf, &x32, 2_345, k);
                        states += 1;
                    }
                }
                println!(
                    "{}: {states} states at every fold match the model",
                    pf.path().name()
                );
            });
        }
    });
    let names: Vec<&str> = platforms.iter().map(|p| p.path().name()).collect();
    println!("platforms run: {names:?}");
    assert!(names.contains(&"portable") && names.contains(&"scalar"));
}

/// Slices larger than the L2 cache (over `FAR_BYTES`, 1 MiB: the block deposit chooses its
/// checks with the charge for data from beyond it; on AVX-512 the copies of folds 4 to 8
/// go into an array of their own, and f32 folds 5 to 8 set aside the remainders left after
/// the first check) on every path, each on its own thread, against the independent model:
/// f32 values over 24 binades (13-bit bins: most groups end after four slots, some need
/// five) and f64 values in two binades (most groups end after two slots, every 97th value
/// needs two more).
#[test]
fn far_slices_every_platform_folds_3_to_8() {
    let n32 = (1 << 20) / 4 + 12_345;
    let n64 = (1 << 20) / 8 + 12_345;
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let x32: Vec<f32> = (0..n32)
        .map(|i| {
            let r = next();
            let m = (r >> 40) as f32 / (1u64 << 24) as f32 + 1.0;
            let e = if i % 331 == 7 { -30 } else { (r % 24) as i32 - 13 };
            let v = m * 2f32.powi(e);
            if r >> 63 == 1 {
                -v
            } else {
                v
            }
        })
        .collect();
    let x64: Vec<f64> = (0..n64)
        .map(|i| {
            let r = next();
            let m = (r >> 11) as f64 / (1u64 << 53) as f64 + 0.5;
            let v = if i % 97 == 13 { m * 2f64.powi(-70) } else { m };
            if r >> 63 == 1 {
                -v
            } else {
                v
            }
        })
        .collect();
    let platforms: Vec<Platform> = Platform::all().into_iter().flatten().collect();
    std::thread::scope(|sc| {
        for &pf in &platforms {
            let (x32, x64) = (&x32, &x64);
            sc.spawn(move || {
                for k in 3..=8 {
                    same_state_on(pf, x32, 1_000, k);
                    same_state_on(pf, x64, 1_000, k);
                }
            });
        }
    });
    assert!(
        platforms.len() >= 2,
        "the portable and scalar paths run everywhere"
    );
}
