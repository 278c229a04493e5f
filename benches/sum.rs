//! Single-thread throughput of the reproducible sum and cumulative sum, beside baselines
//! measured in the same run: a strict left-to-right sum, a 16-lane plain sum, Kahan
//! summation, and a plain prefix sum.
//!
//! Figures are elements per second (criterion's "thrpt" line). Inputs come from a fixed
//! seed. `cargo bench --bench sum` runs everything; `cargo bench --bench sum -- 'sum_f64/'`
//! a part. The run pins rayon's global pool to one thread so that every figure is one core,
//! except the `threads_*` groups, which use their own pools of 1 and 2 threads (with the
//! 16-lane plain sum over the same pools as their baseline).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rayon::prelude::*;
use reprosum_testkit::TestFloat;

/// Values of mixed sign and magnitude (fixed seed): magnitudes 2^-13..2^11 (24 binades),
/// or with `REPROSUM_BENCH_DATA=unit` uniform in [0, 1) (fewer of the window's slots per
/// value, so the deposit ends early more often at folds above 3).
fn data<T: TestFloat>(n: usize) -> Vec<T> {
    let unit = std::env::var("REPROSUM_BENCH_DATA").is_ok_and(|d| d == "unit");
    let mut s = 0x1234_5678_9ABC_DEF0u64;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let m = (s >> 11) as f64 / (1u64 << 53) as f64;
            if unit {
                return T::from_f64_round(m);
            }
            let e = ((s >> 3) % 24) as i32 - 12;
            T::from_f64_round((m - 0.5) * 2f64.powi(e))
        })
        .collect()
}

trait Plain: TestFloat + std::ops::AddAssign + std::ops::Add<Output = Self> + Send + Sync {}
impl Plain for f64 {}
impl Plain for f32 {}

fn naive<T: Plain>(x: &[T]) -> T {
    let mut s = T::ZERO;
    for &v in x {
        s += v;
    }
    s
}

fn lanes16<T: Plain>(x: &[T]) -> T {
    let mut a = [T::ZERO; 16];
    let mut it = x.chunks_exact(16);
    for c in &mut it {
        for i in 0..16 {
            a[i] += c[i];
        }
    }
    let mut s = naive(it.remainder());
    for v in a {
        s += v;
    }
    s
}

fn kahan<T: Plain>(x: &[T]) -> T {
    let (mut s, mut c) = (T::ZERO, T::ZERO);
    for &v in x {
        let y = v - c;
        let t = s + y;
        c = (t - s) - y;
        s = t;
    }
    s
}

fn prefix<T: Plain>(x: &[T], out: &mut [T]) {
    let mut s = T::ZERO;
    for (o, &v) in out.iter_mut().zip(x) {
        s += v;
        *o = s;
    }
}

fn sizes() -> Vec<usize> {
    std::env::var("REPROSUM_BENCH_SIZES")
        .ok()
        .map(|s| {
            s.split(',')
                .filter_map(|v| v.trim().parse::<f64>().ok())
                .map(|v| v as usize)
                .collect()
        })
        .unwrap_or_else(|| vec![1_000, 100_000, 10_000_000])
}

/// The folds of the sum and cumsum groups: `REPROSUM_BENCH_FOLDS` (comma-separated), else
/// 2, 3, 4, 6, 8 and 16.
fn folds() -> Vec<usize> {
    std::env::var("REPROSUM_BENCH_FOLDS")
        .ok()
        .map(|s| s.split(',').filter_map(|v| v.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![2, 3, 4, 6, 8, 16])
}

fn bench_sum<T: Plain>(c: &mut Criterion, name: &str) {
    let mut g = c.benchmark_group(format!("sum_{name}"));
    for n in sizes() {
        let x = data::<T>(n);
        g.throughput(Throughput::Elements(n as u64));
        if n >= 1_000_000 {
            g.sample_size(10);
        }
        g.bench_with_input(BenchmarkId::new("naive", n), &x, |b, x| {
            b.iter(|| naive(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("lanes16", n), &x, |b, x| {
            b.iter(|| lanes16(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("kahan", n), &x, |b, x| {
            b.iter(|| kahan(black_box(x)))
        });
        for k in folds() {
            g.bench_with_input(BenchmarkId::new(format!("reprosum_k{k}"), n), &x, |b, x| {
                b.iter(|| reprosum::sum_fold(black_box(x), k).unwrap())
            });
        }
    }
    g.finish();
}

fn bench_cumsum<T: Plain>(c: &mut Criterion, name: &str) {
    let mut g = c.benchmark_group(format!("cumsum_{name}"));
    for n in sizes() {
        let x = data::<T>(n);
        let mut out = vec![T::ZERO; n];
        g.throughput(Throughput::Elements(n as u64));
        if n >= 1_000_000 {
            g.sample_size(10);
        }
        g.bench_function(BenchmarkId::new("prefix", n), |b| {
            b.iter(|| prefix(black_box(&x), &mut out))
        });
        for k in folds() {
            let opt = reprosum::Options {
                fold: k,
                ..Default::default()
            };
            g.bench_function(BenchmarkId::new(format!("reprosum_k{k}"), n), |b| {
                b.iter(|| reprosum::cumsum_with(black_box(&x), &mut out, &opt).unwrap())
            });
        }
    }
    g.finish();
}

/// The facade's sum on 1 and 2 threads, beside the plain 16-lane sum over the same pools, at
/// N = 1e7 (in this machine's L3) or `REPROSUM_BENCH_THREADS_N`; the same bits checked.
fn bench_threads<T: Plain>(c: &mut Criterion, name: &str) {
    let mut g = c.benchmark_group(format!("threads_{name}"));
    let n = std::env::var("REPROSUM_BENCH_THREADS_N")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .map_or(10_000_000, |v| v as usize);
    let x = data::<T>(n);
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    let mut bits = Vec::new();
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        bits.push(pool.install(|| reprosum::sum(&x).unwrap()).bits());
        g.bench_function(BenchmarkId::new("reprosum_k3", threads), |b| {
            b.iter(|| pool.install(|| reprosum::sum(black_box(&x)).unwrap()))
        });
        // The facade's own pool, as the C library and any caller outside rayon use it.
        reprosum::set_num_threads(threads).unwrap();
        bits.push(reprosum::sum(&x).unwrap().bits());
        g.bench_function(BenchmarkId::new("reprosum_k3_facade_pool", threads), |b| {
            b.iter(|| reprosum::sum(black_box(&x)).unwrap())
        });
        reprosum::set_num_threads(1).unwrap();
        // The baseline: the 16-lane plain sum over the same pool (chunks of 1/4 of the data
        // per thread, partial sums added), what these cores' caches give a plain sum.
        g.bench_function(BenchmarkId::new("lanes16", threads), |b| {
            b.iter(|| {
                pool.install(|| {
                    black_box(&x)
                        .par_chunks(n.div_ceil(4 * threads))
                        .map(lanes16)
                        .reduce(|| T::ZERO, |a, b| a + b)
                })
            })
        });
    }
    assert!(
        bits.windows(2).all(|w| w[0] == w[1]),
        "thread counts gave different bits"
    );
    g.finish();
}

fn benches(c: &mut Criterion) {
    // One core: every figure here is single-threaded.
    // One thread for every group but `threads_*`: calls from this (main) thread run on the
    // facade's pool, set to the calling thread only.
    reprosum::set_num_threads(1).expect("one thread");
    let _ = rayon::ThreadPoolBuilder::new().num_threads(1).build_global();
    println!("deposit path: {}", reprosum::current_path().name());
    bench_sum::<f64>(c, "f64");
    bench_sum::<f32>(c, "f32");
    bench_cumsum::<f64>(c, "f64");
    bench_cumsum::<f32>(c, "f32");
    bench_threads::<f64>(c, "f64");
    bench_threads::<f32>(c, "f32");
}

criterion_group!(group, benches);
criterion_main!(group);
