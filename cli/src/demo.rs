//! `reprosum demo`: a naive sum's bits move with the order and the thread count; reprosum's do not.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::CliError;
use reprosum_cli::elem::{hex_bits, show};
use reprosum_cli::Elem;

/// The fold the demo uses (the library's default).
const FOLD: usize = reprosum::DEFAULT_FOLD;
/// Thread counts of the naive parallel sum (1 is the "as generated" row).
const THREADS: [usize; 4] = [2, 3, 4, 8];

/// SplitMix64: a small, fixed, portable generator, so every run sees the same data.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [1, 2).
    fn unit(&mut self) -> f64 {
        1.0 + (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            xs.swap(i, self.below(i + 1));
        }
    }
}

/// Decimal exponent ranges of the generated values.
struct Spread {
    /// Nine in ten values are `[1, 2) * 10^e`, `e` in this range, of random sign.
    small: (i32, i32),
    /// One in ten values are `[1, 2) * 10^e`, `e` in this range, in `+b, -b` pairs.
    big: (i32, i32),
}

/// For f64: big pairs up to 2e16, small values down to 1e-3.
const SPREAD_F64: Spread = Spread {
    small: (-3, 4),
    big: (10, 16),
};
/// For f32 (a narrower range, within what K=3 resolves for f32).
const SPREAD_F32: Spread = Spread {
    small: (-2, 2),
    big: (4, 6),
};

/// `n` values of mixed signs and magnitudes (see [`Spread`]); the big ones cancel exactly
/// in pairs, so a naive sum loses part of what the small ones add up to. Shuffled, all
/// from a fixed seed.
fn generate(n: usize, spread: &Spread) -> Vec<f64> {
    let mut rng = SplitMix(0x005E_ED0F_5EED);
    let exp =
        |rng: &mut SplitMix, (lo, hi): (i32, i32)| 10f64.powi(lo + rng.below((hi - lo + 1) as usize) as i32);
    let mut xs = Vec::with_capacity(n);
    while xs.len() + 2 <= n && xs.len() < n / 10 {
        let big = rng.unit() * exp(&mut rng, spread.big);
        xs.push(big);
        xs.push(-big);
    }
    while xs.len() < n {
        let sign = if rng.next() & 1 == 0 { 1.0 } else { -1.0 };
        xs.push(sign * rng.unit() * exp(&mut rng, spread.small));
    }
    rng.shuffle(&mut xs);
    xs
}

/// The plain left-to-right sum.
fn naive<T: Elem>(xs: &[T]) -> T {
    xs.iter().fold(T::ZERO, |a, &x| a + x)
}

/// A naive parallel sum: `threads` contiguous chunks summed on their own threads, then the
/// partial sums added in chunk order.
fn naive_parallel<T: Elem>(xs: &[T], threads: usize) -> T {
    let chunk = xs.len().div_ceil(threads).max(1);
    let partials: Vec<T> = std::thread::scope(|s| {
        let handles: Vec<_> = xs.chunks(chunk).map(|c| s.spawn(move || naive(c))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or(T::NAN)).collect()
    });
    naive(&partials)
}

/// reprosum's sum on a pool of `threads` threads, split into `threads` chunks.
fn repro_parallel<T: Elem>(xs: &[T], threads: usize) -> Result<T, CliError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::data(format!("cannot start {threads} threads: {e}")))?;
    let opts = reprosum::Options {
        fold: FOLD,
        chunk_len: xs.len().div_ceil(threads).max(1),
    };
    pool.install(|| reprosum::sum_with(xs, &opts))
        .map_err(CliError::from)
}

/// One row of the table: its label, the naive sum and reprosum's.
struct Row<T> {
    label: String,
    naive: T,
    repro: T,
}

/// The rows for `xs`: several orders on one thread, then the original order on 2..8 threads.
fn rows<T: Elem>(xs: &[T]) -> Result<Vec<Row<T>>, CliError> {
    let mut orders: Vec<(String, Vec<T>)> = vec![("as generated, 1 thread".into(), xs.to_vec())];
    let mut v = xs.to_vec();
    v.reverse();
    orders.push(("reversed".into(), v));
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    orders.push(("sorted ascending".into(), v.clone()));
    v.sort_by(|a, b| {
        let (a, b) = (a.bits() & !T::SIGN_BIT, b.bits() & !T::SIGN_BIT);
        a.cmp(&b)
    });
    orders.push(("sorted by |x|".into(), v));
    for seed in 1..=2u64 {
        let mut v = xs.to_vec();
        SplitMix(seed).shuffle(&mut v);
        orders.push((format!("shuffled (seed {seed})"), v));
    }
    let mut out = Vec::new();
    for (label, v) in orders {
        out.push(Row {
            label,
            naive: naive(&v),
            repro: reprosum::sum_fold(&v, FOLD)?,
        });
    }
    for t in THREADS {
        out.push(Row {
            label: format!("{t} threads"),
            naive: naive_parallel(xs, t),
            repro: repro_parallel(xs, t)?,
        });
    }
    Ok(out)
}

fn distinct<T: Elem>(xs: impl Iterator<Item = T>) -> usize {
    xs.map(|x| x.bits()).collect::<HashSet<_>>().len()
}

/// "1 distinct result" / "N distinct results" for the bit patterns of `xs`.
fn results<T: Elem>(xs: impl Iterator<Item = T>) -> String {
    match distinct(xs) {
        1 => "1 distinct result".to_string(),
        n => format!("{n} distinct results"),
    }
}

/// Runs the demo on `n` generated values and returns its report.
pub fn run(n: usize) -> Result<String, CliError> {
    let xs = generate(n, &SPREAD_F64);
    let r64 = rows(&xs)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "reprosum demo: {n} f64 values (fixed seed; mixed signs; magnitudes 1e-3..2e4,\n\
         plus +/- pairs of 1e10..2e16 that cancel). Every row sums the same values.\n"
    );
    let cells: Vec<[String; 5]> = r64
        .iter()
        .map(|r| {
            [
                r.label.clone(),
                show(r.naive),
                hex_bits(r.naive),
                show(r.repro),
                hex_bits(r.repro),
            ]
        })
        .collect();
    let repro_head = format!("reprosum (K={FOLD})");
    let head = ["order / threads", "naive sum", "bits", &repro_head, "bits"];
    let mut w = head.map(str::len);
    for c in &cells {
        for (wi, s) in w.iter_mut().zip(c) {
            *wi = (*wi).max(s.len());
        }
    }
    let line = |out: &mut String, c: [&str; 5]| {
        let _ = writeln!(
            out,
            "{:<w0$}  {:>w1$}  {:<w2$}  {:>w3$}  {}",
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3]
        );
    };
    line(&mut out, head);
    for c in &cells {
        line(&mut out, [&c[0], &c[1], &c[2], &c[3], &c[4]]);
    }
    let _ = writeln!(
        out,
        "\nf64: naive: {} in {} rows; reprosum: {}.",
        results(r64.iter().map(|r| r.naive)),
        r64.len(),
        results(r64.iter().map(|r| r.repro)),
    );

    let x32: Vec<f32> = generate(n, &SPREAD_F32).iter().map(|&x| x as f32).collect();
    let r32 = rows(&x32)?;
    let one = if distinct(r32.iter().map(|r| r.repro)) == 1 {
        format!(" ({} {})", show(r32[0].repro), hex_bits(r32[0].repro))
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "f32 (same rows; {n} values of 1e-2..2e2 and +/- pairs of 1e4..2e6):\n     \
         naive: {} in {} rows; reprosum: {}{one}.",
        results(r32.iter().map(|r| r.naive)),
        r32.len(),
        results(r32.iter().map(|r| r.repro)),
    );
    Ok(out)
}
