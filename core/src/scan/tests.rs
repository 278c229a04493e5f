//! The fast cumulative sum against the element-by-element definition, on every path.

use super::*;

/// The longest input (small under Miri, which is slow: the scratch arrays are of this size).
const N: usize = if cfg!(miri) { 64 } else { 3000 };

/// xorshift64: a fixed, reproducible stream.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in [-0.5, 0.5).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

/// Inputs of one kind (as f64, rounded to the type later).
fn inputs(kind: usize, seed: u64, xs: &mut [f64]) {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
    let n = xs.len();
    for (i, x) in xs.iter_mut().enumerate() {
        let u = r.unit();
        *x = match kind {
            // Mixed signs and magnitudes (as the benchmarks).
            0 => u * 2f64.powi((r.next() % 24) as i32 - 12),
            // One sign, near the top of the window's range: carries of slot 0 move.
            1 => 1.0 + u.abs() * 0.99,
            2 => -(1.0 + u.abs() * 0.99),
            // Runs of one sign: running remainders cross 0 and Q both ways.
            3 => {
                if (i / 97) % 2 == 0 {
                    1.5 + u
                } else {
                    -1.5 - u
                }
            }
            // Magnitudes rising along the input: the window moves mid-chunk.
            4 => u * 2f64.powf(i as f64 * 40.0 / n as f64 - 20.0),
            // NaN and Inf here and there.
            5 => match r.next() % 200 {
                0 => f64::NAN,
                1 => f64::INFINITY,
                2 => f64::NEG_INFINITY,
                _ => u,
            },
            // Top bins (scaled conversions), also near the overflow threshold.
            6 => u * f64::MAX * if i % 3 == 0 { 1.0 } else { 1e-10 },
            7 => u * 2f64.powi(1000 - (r.next() % 140) as i32),
            // Subnormals and the bottom bins.
            8 => u * f64::from_bits(r.next() % (1u64 << 52)) * if i % 2 == 0 { 1.0 } else { 1e300 },
            9 => u * 1e-300,
            // Zeros among small values; exact cancellations.
            10 => {
                if r.next().is_multiple_of(3) {
                    0.0
                } else {
                    u * 1e-3
                }
            }
            11 => {
                if i % 2 == 0 {
                    2f64.powi((i % 50) as i32)
                } else {
                    -(2f64.powi(((i - 1) % 50) as i32))
                }
            }
            // Any finite bit pattern.
            _ => {
                let v = f64::from_bits(r.next());
                if v.is_finite() {
                    v
                } else {
                    u
                }
            }
        };
    }
}

/// `running` from a state reached by `pre` against `one_by_one`, by bits.
fn same<T: Float>(pf: Platform, k: usize, pre: &[T], xs: &[T], what: &str) {
    let mut p = [T::ZERO; 52];
    let mut c = [T::ZERO; 52];
    let mut m = Meta::default();
    let mut buf = [T::ZERO; N];
    one_by_one(&mut p[..k], &mut c[..k], &mut m, pre, &mut buf[..pre.len()]);
    let (mut p2, mut c2, mut m2) = (p, c, m);
    let mut a = [T::ZERO; N];
    let mut b = [T::ZERO; N];
    running(pf, &mut p[..k], &mut c[..k], &mut m, xs, &mut a[..xs.len()]);
    one_by_one(&mut p2[..k], &mut c2[..k], &mut m2, xs, &mut b[..xs.len()]);
    for i in 0..xs.len() {
        assert_eq!(
            a[i].bits(),
            b[i].bits(),
            "{what}: element {i} of {} ({:?}), fold {k}, path {:?}",
            xs.len(),
            xs[i],
            pf.path()
        );
    }
    assert_eq!((m.count, m.flags), (m2.count, m2.flags), "{what}");
    let (v1, v2) = (
        binned::value(&p[..k], &c[..k], &m),
        binned::value(&p2[..k], &c2[..k], &m2),
    );
    assert_eq!(
        v1.bits(),
        v2.bits(),
        "{what}: final state, {} elements, fold {k}, path {:?}",
        xs.len(),
        pf.path()
    );
}

fn all_kinds<T: Float>(pf: Platform) {
    let mut raw = [0.0f64; N];
    let mut xs = [T::ZERO; N];
    let mut pre = [T::ZERO; 8];
    // Miri runs only the portable path, slowly: fewer and shorter inputs. The big folds
    // (9 and up, one instance with the fold read at run time): some of every range, up to
    // the largest of the type (52 for f64, 21 for f32).
    let max = if T::BYTES == 8 { 52 } else { 21 };
    let (seeds, lens, folds): (u64, &[usize], &[usize]) = if cfg!(miri) {
        (1, &[0, 1, 9, 17, 40], &[2, 3, 8, 11])
    } else {
        (
            3,
            &[0, 1, 7, 8, 9, 15, 16, 17, 100, 1001, N],
            &[2, 3, 4, 5, 6, 8, 9, 11, 16, 21, 32, 52],
        )
    };
    for kind in 0..13 {
        for seed in 0..seeds {
            inputs(kind, seed, &mut raw);
            for (x, &r) in xs.iter_mut().zip(raw.iter()) {
                *x = T::from_f64_round(r);
            }
            for (x, &r) in pre.iter_mut().zip(raw.iter().rev()) {
                *x = T::from_f64_round(r);
            }
            for &k in folds.iter().filter(|&&k| k <= max) {
                for &len in lens {
                    same::<T>(pf, k, &[], &xs[..len], "fresh");
                    same::<T>(pf, k, &pre[..(seed as usize * 3 + 2)], &xs[..len], "started");
                }
            }
        }
    }
}

/// Every compiled path this CPU runs (passed as a value), both types, folds 2 to 8 and
/// big folds up to the largest, every kind of input: the bits of the element-by-element
/// definition.
#[test]
fn scan_matches_one_by_one() {
    for pf in Platform::all().into_iter().flatten() {
        all_kinds::<f64>(pf);
        all_kinds::<f32>(pf);
    }
}

/// Every big fold (9 to 52 for f64, 9 to 21 for f32) on every path, on inputs of every
/// kind a little longer than a chunk (shorter under Miri): the bits of the
/// element-by-element definition.
#[test]
fn scan_matches_one_by_one_every_big_fold() {
    let len = if cfg!(miri) { 20 } else { 300 };
    let (kinds, step) = if cfg!(miri) {
        (&[0usize, 4, 5][..], 7)
    } else {
        (&[0usize, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12][..], 1)
    };
    let mut raw = [0.0f64; N];
    for pf in Platform::all().into_iter().flatten() {
        if cfg!(miri) && pf.path() != crate::simd::Path::Portable {
            continue;
        }
        for &kind in kinds {
            inputs(kind, 7, &mut raw[..len]);
            let x64: [f64; N] = core::array::from_fn(|i| raw[i]);
            let x32: [f32; N] = core::array::from_fn(|i| raw[i] as f32);
            for k in (9..=52).step_by(step) {
                same::<f64>(pf, k, &x64[len - 3..len], &x64[..len], "big fold f64");
            }
            for k in (9..=21).step_by(step) {
                same::<f32>(pf, k, &x32[len - 3..len], &x32[..len], "big fold f32");
            }
        }
    }
}
