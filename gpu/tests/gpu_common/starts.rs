//! Start states and inputs for cumulative sums continued from an accumulator, and their
//! expected bits from reprosum-core. Shared by the device tests (`tests/cuda.rs`,
//! `tests/hip.rs`, through `gpu_common`) and the emulator's case generator
//! (`examples/emu_from_cases.rs`); needs no GPU.
#![allow(dead_code)]

use reprosum_core::{encoding, DynAccumulator, Float};

/// `f64` or `f32`, with what the generators need.
pub trait StartFloat: Float + Default + Send + Sync {
    /// `f64` / `f32`.
    const NAME: &'static str;
    /// A large finite magnitude whose bins are at the top of the format (the conversion's
    /// scaled stage on f64; window 0 on f32).
    const HUGE: f64;
    /// The largest carry magnitude the crafted "large count" states hold: well inside the
    /// reach of their count (FORMAT.md section 11) and exact in the type.
    const BIG_CARRY: f64;
    /// The value rounded to this type.
    fn of(v: f64) -> Self;
}

impl StartFloat for f64 {
    const NAME: &'static str = "f64";
    const HUGE: f64 = 1e306;
    const BIG_CARRY: f64 = 1099511627776.0; // 2^40
    fn of(v: f64) -> Self {
        v
    }
}

impl StartFloat for f32 {
    const NAME: &'static str = "f32";
    const HUGE: f64 = 1e37;
    const BIG_CARRY: f64 = 4194304.0; // 2^22
    fn of(v: f64) -> Self {
        v as f32
    }
}

/// SplitMix64 (seeded: a failure names its seed).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / 9007199254740992.0
    }
    /// Uniform in [-1, 1).
    pub fn signed(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }
}

fn acc_of<T: StartFloat>(fold: usize, xs: &[T]) -> DynAccumulator<T> {
    let mut a = DynAccumulator::<T>::new(fold).expect("fold");
    a.add_slice(xs).expect("add");
    a
}

/// `acc` re-encoded with another count and carries `carry[j]` (the rest as is), through
/// the core's decoder (which checks that the state is one the format accepts).
pub fn with_count_and_carries<T: StartFloat>(
    acc: &DynAccumulator<T>,
    count: u64,
    carry: &[f64],
) -> DynAccumulator<T> {
    let k = acc.fold();
    let mut b = acc.to_bytes().as_bytes().to_vec();
    b[8..16].copy_from_slice(&count.to_le_bytes());
    for (j, &c) in carry.iter().enumerate().take(k) {
        let at = encoding::HEADER_LEN + (k + j) * T::BYTES;
        let bits = T::of(c).bits().to_le_bytes();
        b[at..at + T::BYTES].copy_from_slice(&bits[..T::BYTES]);
    }
    let end = b.len() - encoding::CRC_LEN;
    let crc = encoding::crc32c(&b[..end]).to_le_bytes();
    b[end..].copy_from_slice(&crc);
    DynAccumulator::from_bytes(&b).expect("crafted state decodes")
}

/// Named start states at a fold: empty; a few unit values; many values near the top of
/// their window (carries); huge magnitudes (a window above the inputs', at the top of the
/// format); magnitudes a bin or two above the inputs'; tiny ones (the inputs raise the
/// window); NaN, +Inf, both infinities (with and without finite values); and a count near
/// the capacity with large carries of both signs.
pub fn starts<T: StartFloat>(fold: usize, seed: u64) -> Vec<(&'static str, DynAccumulator<T>)> {
    let mut r = Rng(seed);
    let mut v = |f: &mut dyn FnMut(&mut Rng) -> f64, n: usize| -> Vec<T> {
        (0..n).map(|_| T::of(f(&mut r))).collect()
    };
    let small = v(&mut |r| r.signed(), 7);
    let near_top = v(&mut |r| 0.99 + 0.01 * r.unit(), 20_000);
    let huge = v(&mut |r| r.signed() * T::HUGE, 5);
    let high = v(
        &mut |r| r.signed() * 2f64.powi(if T::BYTES == 8 { 45 } else { 15 }),
        9,
    );
    let tiny = v(
        &mut |r| r.signed() * 2f64.powi(if T::BYTES == 8 { -70 } else { -30 }),
        11,
    );
    let mut out = vec![
        ("empty", DynAccumulator::<T>::new(fold).expect("fold")),
        ("small", acc_of(fold, &small)),
        ("carries", acc_of(fold, &near_top)),
        ("huge", acc_of(fold, &huge)),
        ("high", acc_of(fold, &high)),
        ("tiny", acc_of(fold, &tiny)),
    ];
    let mut nan = acc_of(fold, &small);
    nan.add(T::NAN).unwrap();
    out.push(("nan", nan));
    let mut pinf = DynAccumulator::<T>::new(fold).unwrap();
    pinf.add(T::of(f64::INFINITY)).unwrap();
    out.push(("pinf_only", pinf));
    let mut both = acc_of(fold, &high);
    both.add(T::of(f64::INFINITY)).unwrap();
    both.add(T::of(f64::NEG_INFINITY)).unwrap();
    out.push(("both_inf", both));
    let carry: Vec<f64> = (0..fold)
        .map(|j| {
            if j % 2 == 0 {
                T::BIG_CARRY
            } else {
                -T::BIG_CARRY / 2.0
            }
        })
        .collect();
    let count = T::CAPACITY - (1 << 22);
    out.push((
        "large_count",
        with_count_and_carries(&acc_of(fold, &small), count, &carry),
    ));
    out
}

/// Input patterns of the cumulative sums.
pub const PATTERNS: [&str; 6] = ["uniform", "mixed", "near_top", "growing", "specials", "wide"];

/// `n` values of a pattern: uniform in [0, 1); mixed signs and magnitudes 2^-12..2^12;
/// values near the top of their window (carries move); growing magnitudes (the window rises
/// in later tiles); a NaN and -Inf now and then; a wide exponent range with cancellation.
pub fn input<T: StartFloat>(pattern: &str, n: usize, seed: u64) -> Vec<T> {
    let mut r = Rng(seed ^ 0x5DEE_CE66_D1CE_F00D);
    (0..n)
        .map(|i| {
            let v = match pattern {
                "uniform" => r.unit(),
                "mixed" => r.signed() * 2f64.powi((r.next() % 24) as i32 - 12),
                "near_top" => 0.99 + 0.01 * r.unit(),
                "growing" => (r.unit() + 0.5) * 2f64.powi((i / 700) as i32 % 60),
                "specials" => match i % 1999 {
                    100 => f64::NAN,
                    1500 => f64::NEG_INFINITY,
                    _ => r.signed(),
                },
                _ => r.signed() * 2f64.powi((r.next() % 160) as i32 - 80),
            };
            T::of(v)
        })
        .collect()
}

/// The core's cumulative sum continued from `start`, one value at a time
/// (`DynAccumulator::add_running`): `out[i]` is the value of `start` with `xs[..=i]` added.
pub fn reference<T: StartFloat>(start: &DynAccumulator<T>, xs: &[T]) -> Vec<T> {
    let mut out = vec![T::default(); xs.len()];
    let mut a = *start;
    a.add_running(xs, &mut out).expect("core add_running");
    out
}

/// [`reference`], checked against the facade's chunked algorithm
/// (`reprosum::cumsum_from`: chunk states merged, then replayed) and, at a few elements,
/// against the definition (`start` merged with the accumulator of `xs[..=i]`, then
/// `value()`). Panics if the core disagrees with itself.
pub fn expected<T: StartFloat>(start: &DynAccumulator<T>, xs: &[T]) -> Vec<T> {
    let out = reference(start, xs);
    let mut a = *start;
    a.add_slice(xs).expect("core add_slice");
    let mut chunked = vec![T::default(); xs.len()];
    let opts = reprosum::Options {
        fold: start.fold(),
        chunk_len: 1000,
    };
    let total = reprosum::cumsum_from(start, xs, &mut chunked, &opts).expect("core cumsum_from");
    assert!(
        out.iter().zip(&chunked).all(|(a, b)| a.bits() == b.bits()),
        "core: add_running and cumsum_from differ"
    );
    assert_eq!(total.to_bytes().as_bytes(), a.to_bytes().as_bytes());
    let n = xs.len();
    for i in [0, n / 3, n / 2, n.saturating_sub(1)] {
        if i < n {
            let mut m = *start;
            m.merge(&acc_of(start.fold(), &xs[..=i])).expect("merge");
            assert_eq!(
                m.value().bits(),
                out[i].bits(),
                "core: merge then value differs at {i}"
            );
        }
    }
    out
}
