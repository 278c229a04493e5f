//! Throughput of the segmented, batched and keyed sums on 1 and 2 threads, beside plain
//! (non-reproducible) loops measured in the same run: a 16-lane sum per segment or row, a
//! plain prefix sum per segment, and a plain keyed loop (`out[key] += x`, one private `out`
//! per thread, added at the end). The keyed sums also in the accumulator form (`add_by_key`,
//! into one accumulator per key).
//!
//! Figures are values per second (criterion's "thrpt" line). `cargo bench --bench
//! segmented` runs everything; N is 1e7 values or `REPROSUM_BENCH_GROUPS_N`; the keyed sums'
//! key counts are 1e3, 1e4, 1e5 and 1e6, or those of `REPROSUM_BENCH_KEYS`. Every method's
//! answer is checked before it is timed (the reprosum forms: the same bits on 1 and 2
//! threads and as the whole-slice sum of a group; the plain loops: close to them).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rayon::prelude::*;

fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let m = (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            m * 2f64.powi(((s >> 3) % 24) as i32 - 12)
        })
        .collect()
}

/// Offsets of segments whose lengths average `avg` (uniform in 0..2 avg).
fn offsets(n: usize, avg: usize) -> Vec<usize> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut offs = vec![0];
    let mut at = 0;
    while at < n {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        at = (at + (s % (2 * avg as u64 + 1)) as usize).min(n);
        offs.push(at);
    }
    offs
}

/// `n` keys below `nkeys`: uniform, or skewed (`nkeys * u^6`: about half the values fall in
/// the lowest 3% of the keys).
fn keys(n: usize, nkeys: usize, skewed: bool) -> Vec<i64> {
    let mut s = 0xD1B5_4A32_D192_ED03u64;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let u = (s >> 11) as f64 / (1u64 << 53) as f64;
            let u = if skewed { u.powi(6) } else { u };
            ((u * nkeys as f64) as usize).min(nkeys - 1) as i64
        })
        .collect()
}

fn lanes16(x: &[f64]) -> f64 {
    let mut a = [0.0; 16];
    let mut it = x.chunks_exact(16);
    for c in &mut it {
        for i in 0..16 {
            a[i] += c[i];
        }
    }
    it.remainder().iter().sum::<f64>() + a.iter().sum::<f64>()
}

/// The plain per-segment sums over `pool`: consecutive segments in chunks of about n / 8
/// values per task.
fn plain_segments(pool: &rayon::ThreadPool, x: &[f64], offs: &[usize], out: &mut [f64]) {
    let per = (offs.len() / 8).max(1);
    pool.install(|| {
        out.par_chunks_mut(per).enumerate().for_each(|(c, o)| {
            for (j, o) in o.iter_mut().enumerate() {
                let i = c * per + j;
                *o = lanes16(&x[offs[i]..offs[i + 1]]);
            }
        })
    });
}

fn plain_segment_prefix(pool: &rayon::ThreadPool, x: &[f64], offs: &[usize], out: &mut [f64]) {
    let per = (offs.len() / 8).max(1);
    // Each task owns the output of its segments: split `out` at segment boundaries.
    let mut parts = Vec::new();
    let mut rest = out;
    let mut i = 0;
    while i + 1 < offs.len() {
        let j = (i + per).min(offs.len() - 1);
        let (a, b) = rest.split_at_mut(offs[j] - offs[i]);
        parts.push((i, j, a));
        rest = b;
        i = j;
    }
    pool.install(|| {
        parts.into_par_iter().for_each(|(i, j, o)| {
            let base = offs[i];
            for k in i..j {
                let mut s = 0.0;
                for t in offs[k]..offs[k + 1] {
                    s += x[t];
                    o[t - base] = s;
                }
            }
        })
    });
}

fn plain_keyed(pool: &rayon::ThreadPool, x: &[f64], keys: &[i64], out: &mut [f64]) {
    let threads = pool.current_num_threads();
    let parts: Vec<Vec<f64>> = pool.install(|| {
        x.par_chunks(x.len().div_ceil(threads).max(1))
            .zip(keys.par_chunks(x.len().div_ceil(threads).max(1)))
            .map(|(x, k)| {
                let mut o = vec![0.0; out.len()];
                for (&v, &k) in x.iter().zip(k) {
                    o[k as usize] += v;
                }
                o
            })
            .collect()
    });
    out.fill(0.0);
    for p in parts {
        for (o, v) in out.iter_mut().zip(p) {
            *o += v;
        }
    }
}

fn close(a: &[f64], b: &[f64]) {
    let scale: f64 = a.iter().map(|v| v.abs()).fold(1.0, f64::max);
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-9 * scale, "plain {y} vs reprosum {x}");
    }
}

fn pools() -> Vec<(usize, rayon::ThreadPool)> {
    [1usize, 2]
        .into_iter()
        .map(|t| (t, rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap()))
        .collect()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn bench_groups(c: &mut Criterion) {
    let n = std::env::var("REPROSUM_BENCH_GROUPS_N")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .map_or(10_000_000, |v| v as usize);
    let x = values(n, 7);
    let pools = pools();
    let mut g = c.benchmark_group("segmented_f64");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    for avg in [32usize, 10_000] {
        let offs = offsets(n, avg);
        let nseg = offs.len() - 1;
        let mut want = vec![0.0; nseg];
        reprosum::segmented_sum(&x, &offs, &mut want).unwrap();
        for i in (0..nseg).step_by(nseg / 50 + 1) {
            assert_eq!(
                want[i].to_bits(),
                reprosum::sum(&x[offs[i]..offs[i + 1]]).unwrap().to_bits()
            );
        }
        let mut want_c = vec![0.0; n];
        reprosum::segmented_cumsum(&x, &offs, &mut want_c).unwrap();
        let mut out = vec![0.0; nseg];
        let mut out_c = vec![0.0; n];
        for (t, pool) in &pools {
            let id = |m: &str| BenchmarkId::new(format!("{m}_avg{avg}"), t);
            pool.install(|| reprosum::segmented_sum(&x, &offs, &mut out).unwrap());
            assert_eq!(bits(&out), bits(&want));
            g.bench_function(id("reprosum_sum"), |b| {
                b.iter(|| pool.install(|| reprosum::segmented_sum(black_box(&x), &offs, &mut out).unwrap()))
            });
            plain_segments(pool, &x, &offs, &mut out);
            close(&want, &out);
            g.bench_function(id("plain_sum"), |b| {
                b.iter(|| plain_segments(pool, black_box(&x), &offs, &mut out))
            });
            pool.install(|| reprosum::segmented_cumsum(&x, &offs, &mut out_c).unwrap());
            assert_eq!(bits(&out_c), bits(&want_c));
            g.bench_function(id("reprosum_cumsum"), |b| {
                b.iter(|| {
                    pool.install(|| reprosum::segmented_cumsum(black_box(&x), &offs, &mut out_c).unwrap())
                })
            });
            plain_segment_prefix(pool, &x, &offs, &mut out_c);
            close(&want_c, &out_c);
            g.bench_function(id("plain_cumsum"), |b| {
                b.iter(|| plain_segment_prefix(pool, black_box(&x), &offs, &mut out_c))
            });
        }
    }
    // Rows: the batch-invariant form, against the plain per-row sum (rows as segments).
    for cols in [64usize, 10_000] {
        let rows = n / cols;
        let offs: Vec<usize> = (0..=rows).map(|r| r * cols).collect();
        let mut want = vec![0.0; rows];
        reprosum::sum_rows(&x, rows, cols, cols, &mut want).unwrap();
        let mut out = vec![0.0; rows];
        for (t, pool) in &pools {
            let id = |m: &str| BenchmarkId::new(format!("{m}_cols{cols}"), t);
            pool.install(|| reprosum::sum_rows(&x, rows, cols, cols, &mut out).unwrap());
            assert_eq!(bits(&out), bits(&want));
            g.bench_function(id("reprosum_rows"), |b| {
                b.iter(|| {
                    pool.install(|| reprosum::sum_rows(black_box(&x), rows, cols, cols, &mut out).unwrap())
                })
            });
            plain_segments(pool, &x, &offs, &mut out);
            close(&want, &out);
            g.bench_function(id("plain_rows"), |b| {
                b.iter(|| plain_segments(pool, black_box(&x), &offs, &mut out))
            });
        }
    }
    // Keys: 1e3 (per-key buffers), 1e4 to 1e6 (buckets of keys), or the counts in
    // `REPROSUM_BENCH_KEYS` (comma-separated, e.g. 1e7).
    let key_counts: Vec<usize> = std::env::var("REPROSUM_BENCH_KEYS").map_or_else(
        |_| vec![1_000, 10_000, 100_000, 1_000_000],
        |s| {
            s.split(',')
                .filter_map(|v| v.trim().parse::<f64>().ok())
                .map(|v| v as usize)
                .collect()
        },
    );
    for nkeys in key_counts {
        for skewed in [false, true] {
            let k = keys(n, nkeys, skewed);
            let mut want = vec![0.0; nkeys];
            reprosum::sum_by_key(&x, &k, &mut want).unwrap();
            let mut out = vec![0.0; nkeys];
            let tag = if skewed { "skewed" } else { "uniform" };
            for (t, pool) in &pools {
                let id = |m: &str| BenchmarkId::new(format!("{m}_{nkeys}keys_{tag}"), t);
                pool.install(|| reprosum::sum_by_key(&x, &k, &mut out).unwrap());
                assert_eq!(bits(&out), bits(&want));
                g.bench_function(id("reprosum_by_key"), |b| {
                    b.iter(|| pool.install(|| reprosum::sum_by_key(black_box(&x), &k, &mut out).unwrap()))
                });
                // The accumulator form from empty accumulators (its answer checked once; the
                // timed calls keep adding to the same accumulators).
                let mut accs = vec![reprosum::DynAccumulator::<f64>::new(3).unwrap(); nkeys];
                pool.install(|| reprosum::add_by_key(&x, &k, &mut accs).unwrap());
                assert_eq!(
                    accs.iter().map(|a| a.value().to_bits()).collect::<Vec<_>>(),
                    bits(&want)
                );
                g.bench_function(id("reprosum_add_by_key"), |b| {
                    b.iter(|| pool.install(|| reprosum::add_by_key(black_box(&x), &k, &mut accs).unwrap()))
                });
                plain_keyed(pool, &x, &k, &mut out);
                close(&want, &out);
                g.bench_function(id("plain_by_key"), |b| {
                    b.iter(|| plain_keyed(pool, black_box(&x), &k, &mut out))
                });
            }
        }
    }
    g.finish();
}

criterion_group!(group, bench_groups);
criterion_main!(group);
