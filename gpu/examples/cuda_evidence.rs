//! The CUDA back end's evidence program (run on a GPU machine; see docs/EQUIVALENCE.md (CUDA)).
//!
//! `cuda_evidence MODE...` with modes:
//! * `vectors`: every known answer and every case of the core's vectors file (sum, bytes,
//!   cumsum into poisoned outputs), several block and grid sizes, host and device paths.
//! * `random [MAX_N]`: random inputs in several exponent ranges, sizes 1e3..MAX_N (default
//!   1e8), folds 2, 3, 8, several launches, shuffled copies, cumsums into poisoned outputs;
//!   all against the facade (multi-threaded core) by bits.
//! * `folds [MAX_N]`: the run-time-fold kernels: random inputs in every exponent range at
//!   f64 folds 12, 20, 32, 52 and f32 folds 12, 21, sizes 1e3..MAX_N (default 1e7), several
//!   launches, shuffled copies, cumsums (up to 1e6 in every range, to MAX_N in two), against
//!   the facade by bits; and every fold of each type (9..=52, 9..=21) once at 100003 values.
//! * `large`: 2.5e9 values (past 2^31) of f32 and f64, sum and cumsum, against the facade.
//! * `mid`: a mid-size run for compute-sanitizer (memcheck, racecheck), folds 3, 8 and 21.
//!
//! Prints one line per group and `EVIDENCE PASS`/`EVIDENCE FAIL` last; exit status 1 on any
//! failure, 2 when there is no device.

/// The back end the shared checks run on.
mod backend {
    pub use reprosum_gpu::cuda::*;
    use reprosum_gpu::GpuError;
    /// The largest block of the launch checks.
    pub const BIG_BLOCK: u32 = 512;
    /// Why the device checks skip.
    pub const NEEDS: &str = "GPU checks need an NVIDIA driver and device";
    /// Whether an error means there is no driver or device.
    pub fn absent(e: &GpuError) -> bool {
        matches!(e, GpuError::NoRuntime(_) | GpuError::NoDevice { .. })
    }
}

#[path = "../tests/gpu_common/mod.rs"]
mod gpu_common;

use std::time::Instant;

use gpu_common::*;
use rayon::prelude::*;
use reprosum::Options;
use reprosum_core::Float;
use reprosum_gpu::cuda::{Device, DeviceBuffer, GpuFloat, Launch, Stream};

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Exponent ranges of the random inputs.
const DISTS: [&str; 7] = [
    "unit",
    "signed_wide",
    "all_finite",
    "cancel",
    "tiny",
    "huge",
    "specials",
];

trait Gen: GpuFloat + Send + Sync {
    fn gen(dist: &str, r: u64, i: u64) -> Self;
}

impl Gen for f64 {
    fn gen(dist: &str, r: u64, i: u64) -> f64 {
        let sign = if r >> 63 == 1 { -1.0 } else { 1.0 };
        let m = (r >> 11) as f64 / (1u64 << 53) as f64;
        match dist {
            "unit" => m,
            "signed_wide" => sign * (1.0 + m) * 2f64.powi(((r & 0x7f) as i32) - 64),
            "all_finite" => {
                let b = r & !(0x7FFu64 << 52) | ((r % 2047) << 52);
                f64::from_bits(b)
            }
            "cancel" => {
                let base = ((splitmix(i / 2) >> 11) as f64 / (1u64 << 53) as f64) * 1e12;
                (if i & 1 == 0 { base } else { -base }) + sign * m * 1e-3
            }
            "tiny" => f64::from_bits((r >> 1) & 0x001F_FFFF_FFFF_FFFF) * sign,
            "huge" => sign * (1.0 + m) * 2f64.powi(1000 + (r & 15) as i32),
            _ => {
                if r % 100_003 == 7 {
                    [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][(r >> 40) as usize % 3]
                } else {
                    sign * m * 1e6
                }
            }
        }
    }
}

impl Gen for f32 {
    fn gen(dist: &str, r: u64, i: u64) -> f32 {
        let sign = if r >> 63 == 1 { -1.0 } else { 1.0 };
        let m = (r >> 40) as f32 / (1u32 << 24) as f32;
        match dist {
            "unit" => m,
            "signed_wide" => sign * (1.0 + m) * 2f32.powi(((r & 0x3f) as i32) - 32),
            "all_finite" => {
                let b = (r as u32) & !(0xFFu32 << 23) | (((r >> 32) % 255) as u32) << 23;
                f32::from_bits(b)
            }
            "cancel" => {
                let base = ((splitmix(i / 2) >> 40) as f32 / (1u32 << 24) as f32) * 1e6;
                (if i & 1 == 0 { base } else { -base }) + sign * m * 1e-3
            }
            "tiny" => f32::from_bits(((r >> 1) as u32) & 0x00FF_FFFF) * sign,
            "huge" => sign * (1.0 + m) * 2f32.powi(110 + (r & 15) as i32),
            _ => {
                if r % 100_003 == 7 {
                    [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][(r >> 40) as usize % 3]
                } else {
                    sign * m * 1e3
                }
            }
        }
    }
}

fn generate<T: Gen>(dist: &str, n: usize, seed: u64) -> Vec<T> {
    let mut v = vec![T::default(); n];
    v.par_chunks_mut(1 << 20).enumerate().for_each(|(c, chunk)| {
        let base = (c as u64) << 20;
        for (j, x) in chunk.iter_mut().enumerate() {
            let i = base + j as u64;
            *x = T::gen(dist, splitmix(seed ^ splitmix(i)), i);
        }
    });
    v
}

fn shuffled<T: Copy>(xs: &[T], seed: u64) -> Vec<T> {
    let mut v = xs.to_vec();
    let mut s = seed;
    for i in (1..v.len()).rev() {
        s = splitmix(s);
        v.swap(i, (s % (i as u64 + 1)) as usize);
    }
    v
}

fn cpu_acc<T: Float>(xs: &[T], fold: usize) -> reprosum_core::DynAccumulator<T> {
    reprosum::accumulate(xs, &Options::with_fold(fold)).expect("core")
}

fn sum_check<T: GpuFloat>(
    dev: &Device,
    name: &str,
    xs: &[T],
    fold: usize,
    launches: &[Launch],
    t: &mut Tally,
) {
    let want = cpu_acc(xs, fold);
    let wb = want.to_bytes();
    let buf = DeviceBuffer::from_host(dev, xs).expect("upload");
    for l in launches {
        match dev.accumulate_with(&buf, fold, l) {
            Ok((acc, v)) => t.check(
                v.bits() == want.value().bits() && acc.to_bytes().as_bytes() == wb.as_bytes(),
                || {
                    format!(
                        "{name} n={} fold {fold} {l:?}: {:x} want {:x}",
                        xs.len(),
                        v.bits(),
                        want.value().bits()
                    )
                },
            ),
            Err(e) => t.check(false, || format!("{name} {l:?}: {e}")),
        }
    }
}

fn cumsum_vs_core<T: GpuFloat>(
    dev: &Device,
    name: &str,
    xs: &[T],
    fold: usize,
    launches: &[Launch],
    t: &mut Tally,
) {
    let mut want = vec![T::default(); xs.len()];
    reprosum::cumsum_fold(xs, &mut want, fold).expect("core cumsum");
    let want: Vec<u64> = want.par_iter().map(|v| v.bits()).collect();
    let buf = DeviceBuffer::from_host(dev, xs).expect("upload");
    cumsum_check(dev, name, &buf, xs.len(), fold, &want, t, launches);
    let n = xs.len();
    if n < 2 {
        return;
    }
    // In place.
    let mut inplace = DeviceBuffer::from_host(dev, xs).expect("upload");
    let ok = dev.cumsum_in_place(&mut inplace, fold).is_ok()
        && inplace
            .to_host()
            .expect("download")
            .par_iter()
            .zip(want.par_iter())
            .all(|(g, w)| g.bits() == *w);
    t.check(ok, || {
        format!("{name} cumsum in place n={n}: differs from the core")
    });
    // Input and output one element past a 16-byte boundary (the kernels' unvectorised
    // paths), against the core's cumsum of the same values.
    let mut want1 = vec![T::default(); n - 1];
    reprosum::cumsum_fold(&xs[1..], &mut want1, fold).expect("core cumsum");
    let mut out = DeviceBuffer::<T>::zeroed(dev, n).expect("alloc");
    out.fill_bytes(0xA5).expect("poison");
    let b = T::BYTES as u64;
    // SAFETY: both buffers hold n values of T; the call reads and writes the last n - 1.
    let r = unsafe {
        dev.cumsum_raw::<T>(
            buf.device_ptr() + b,
            out.device_ptr() + b,
            n - 1,
            fold,
            Stream::DEFAULT,
            &Launch::default(),
        )
    };
    let got = out.to_host().expect("download");
    let ok = r.is_ok()
        && got[0].bits() == T::from_bits_u64(0xA5A5_A5A5_A5A5_A5A5).bits()
        && got[1..]
            .par_iter()
            .zip(want1.par_iter())
            .all(|(g, w)| g.bits() == w.bits());
    t.check(ok, || {
        format!("{name} cumsum misaligned n={n}: differs from the core (or wrote outside)")
    });
}

/// The sum checks' launches: the default, 128 threads x 7 blocks, 96 threads, 1024 threads
/// (those a fold's kernel takes: `fitting`).
const SUM_LAUNCHES: [Launch; 4] = [
    Launch {
        block: None,
        grid: None,
        single_pass: None,
    },
    Launch {
        block: Some(128),
        grid: Some(7),
        single_pass: None,
    },
    Launch {
        block: Some(96),
        grid: None,
        single_pass: None,
    },
    Launch {
        block: Some(1024),
        grid: None,
        single_pass: None,
    },
];

/// One line for a group of checks: what, the checks passed and failed since `before`, the time.
fn group_line(what: &str, t: &Tally, before: (u64, u64), t0: Instant) {
    println!(
        "{what}: {} passed, {} failed ({:.1} s)",
        t.pass - before.0,
        t.fail - before.1,
        t0.elapsed().as_secs_f64()
    );
}

/// The sizes of `all` up to `max_n`.
fn sizes_up_to(all: &[usize], max_n: usize) -> Vec<usize> {
    all.iter().copied().filter(|&n| n <= max_n).collect()
}

fn random_t<T: Gen>(dev: &Device, max_n: usize, t: &mut Tally) {
    let sizes = sizes_up_to(
        &[1_000, 10_007, 100_003, 1_000_000, 10_000_019, 100_000_000],
        max_n,
    );
    let launches = SUM_LAUNCHES;
    for (di, dist) in DISTS.iter().enumerate() {
        for &n in &sizes {
            let t0 = Instant::now();
            let (pass0, fail0) = (t.pass, t.fail);
            let xs: Vec<T> = generate(dist, n, 1000 + di as u64 * 7919 + n as u64);
            let folds: &[usize] = if n <= 1_000_000 { &[2, 3, 8] } else { &[3] };
            for &k in folds {
                sum_check(dev, dist, &xs, k, &fitting::<T>(dev, k, &launches, false), t);
            }
            if n <= 10_000_019 {
                let sh = shuffled(&xs, n as u64);
                sum_check(dev, &format!("{dist} shuffled"), &sh, 3, &[Launch::default()], t);
            }
            if n <= 10_000_019 || di < 2 {
                let cl = [
                    Launch::default(),
                    Launch {
                        block: Some(64),
                        grid: None,
                        single_pass: None,
                    },
                ];
                cumsum_vs_core(dev, dist, &xs, 3, if n <= 1_000_000 { &cl } else { &cl[..1] }, t);
                if n <= 100_003 {
                    cumsum_vs_core(
                        dev,
                        dist,
                        &xs,
                        8,
                        &[Launch {
                            block: Some(96),
                            grid: None,
                            single_pass: None,
                        }],
                        t,
                    );
                }
            }
            group_line(
                &format!("random {} {dist:>11} n={n:>11}", std::any::type_name::<T>()),
                t,
                (pass0, fail0),
                t0,
            );
        }
    }
}

/// The run-time-fold kernels (folds above 8) against the facade: `folds` at every exponent
/// range and size up to `max_n`, then every fold above 8 at one size.
fn folds_t<T: Gen>(dev: &Device, folds: &[usize], max_n: usize, t: &mut Tally) {
    let sizes = sizes_up_to(&[1_000, 100_003, 1_000_000, 10_000_019], max_n);
    let launches = &SUM_LAUNCHES[..3];
    let cl = [
        Launch::default(),
        Launch {
            block: Some(32),
            grid: None,
            single_pass: None,
        },
    ];
    for &k in folds {
        for (di, dist) in DISTS.iter().enumerate() {
            for &n in &sizes {
                let t0 = Instant::now();
                let (pass0, fail0) = (t.pass, t.fail);
                let xs: Vec<T> = generate(dist, n, 5000 + k as u64 * 131 + di as u64 * 7919 + n as u64);
                sum_check(dev, dist, &xs, k, &fitting::<T>(dev, k, launches, false), t);
                let sh = shuffled(&xs, n as u64 ^ k as u64);
                sum_check(dev, &format!("{dist} shuffled"), &sh, k, &[Launch::default()], t);
                if n <= 1_000_000 || di < 2 {
                    cumsum_vs_core(dev, dist, &xs, k, if n <= 100_003 { &cl } else { &cl[..1] }, t);
                }
                group_line(
                    &format!("folds {} k{k:>2} {dist:>11} n={n:>9}", std::any::type_name::<T>()),
                    t,
                    (pass0, fail0),
                    t0,
                );
            }
        }
    }
    let (pass0, fail0) = (t.pass, t.fail);
    let t0 = Instant::now();
    for k in 9..=T::MAX_FOLD {
        let xs: Vec<T> = generate(DISTS[k % DISTS.len()], 100_003, 77 + k as u64);
        sum_check(dev, "every fold", &xs, k, &[Launch::default()], t);
        cumsum_vs_core(dev, "every fold", &xs, k, &[Launch::default()], t);
    }
    group_line(
        &format!(
            "folds {} 9..={} n=100003",
            std::any::type_name::<T>(),
            T::MAX_FOLD
        ),
        t,
        (pass0, fail0),
        t0,
    );
}

fn large_t<T: Gen>(dev: &Device, n: usize, t: &mut Tally) {
    let t0 = Instant::now();
    let xs: Vec<T> = generate("signed_wide", n, 77);
    let (pass0, fail0) = (t.pass, t.fail);
    sum_check(dev, "large signed_wide", &xs, 3, &[Launch::default()], t);
    let t1 = t0.elapsed().as_secs_f64();
    cumsum_vs_core(dev, "large signed_wide", &xs, 3, &[Launch::default()], t);
    println!(
        "large {} n={n}: {} passed, {} failed (sum done at {t1:.1} s, total {:.1} s)",
        std::any::type_name::<T>(),
        t.pass - pass0,
        t.fail - fail0,
        t0.elapsed().as_secs_f64()
    );
}

fn mid(dev: &Device, t: &mut Tally) {
    for &n in &[100_003usize, 5_000] {
        let xs: Vec<f64> = generate("signed_wide", n, 5);
        let fs: Vec<f32> = generate("all_finite", n, 6);
        for k in [3, 8, 21] {
            if k == 21 && n > 5_000 {
                continue; // the run-time-fold kernels: a short input
            }
            let ls = [
                Launch::default(),
                Launch {
                    block: Some(96),
                    grid: Some(13),
                    single_pass: None,
                },
            ];
            sum_check(dev, "mid f64", &xs, k, &ls, t);
            sum_check(dev, "mid f32", &fs, k, &ls, t);
            let cl = [
                Launch::default(),
                Launch {
                    block: Some(64),
                    grid: None,
                    single_pass: None,
                },
            ];
            cumsum_vs_core(dev, "mid f64", &xs, k, &cl, t);
            cumsum_vs_core(dev, "mid f32", &fs, k, &cl, t);
        }
    }
    println!("mid: {} passed, {} failed", t.pass, t.fail);
}

/// A mode's optional size argument after `args[*i]` (then `*i` moves past it), else `default`.
fn size_arg(args: &[String], i: &mut usize, default: usize) -> usize {
    match args.get(*i + 1).and_then(|s| s.parse::<f64>().ok()) {
        Some(x) => {
            *i += 1;
            x as usize
        }
        None => default,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dev) = device_or_skip("evidence") else {
        std::process::exit(2)
    };
    println!(
        "device 0: {} (compute capability {:?}, {} SMs)",
        dev.name(),
        dev.compute_capability(),
        dev.sm_count()
    );
    let mut t = Tally::default();
    let mut i = 0;
    while i < args.len() {
        let t0 = Instant::now();
        match args[i].as_str() {
            "vectors" => {
                let cl = [
                    Launch::default(),
                    Launch {
                        block: Some(32),
                        grid: None,
                        single_pass: None,
                    },
                    Launch {
                        block: Some(96),
                        grid: None,
                        single_pass: None,
                    },
                    Launch {
                        block: Some(1),
                        grid: None,
                        single_pass: None,
                    },
                ];
                let mut v = Tally::default();
                run_vectors(&dev, reprosum_testkit::KNOWN_ANSWERS, &mut v, &cl);
                println!("known answers: {} passed, {} failed", v.pass, v.fail);
                let mut w = Tally::default();
                run_vectors(&dev, reprosum_testkit::CORE_VECTORS, &mut w, &cl);
                println!("core vectors: {} passed, {} failed", w.pass, w.fail);
                for fold in test_folds::<f64>() {
                    let a: Vec<f64> = generate("all_finite", 5000, fold as u64);
                    let b: Vec<f64> = generate("tiny", 333, fold as u64);
                    merge_check(&dev, &a, &b, fold, &mut w);
                }
                for fold in test_folds::<f32>() {
                    let fa: Vec<f32> = generate("huge", 5000, fold as u64);
                    let fb: Vec<f32> = generate("unit", 333, fold as u64);
                    merge_check(&dev, &fa, &fb, fold, &mut w);
                }
                t.pass += v.pass + w.pass;
                t.fail += v.fail + w.fail;
            }
            "random" => {
                let max_n = size_arg(&args, &mut i, 100_000_000);
                random_t::<f64>(&dev, max_n, &mut t);
                random_t::<f32>(&dev, max_n, &mut t);
            }
            "folds" => {
                let max_n = size_arg(&args, &mut i, 10_000_019);
                folds_t::<f64>(&dev, &[12, 20, 32, 52], max_n, &mut t);
                folds_t::<f32>(&dev, &[12, 21], max_n, &mut t);
            }
            "large" => {
                large_t::<f32>(&dev, 2_500_000_000, &mut t);
                large_t::<f64>(&dev, 2_500_000_000, &mut t);
            }
            "large32" => large_t::<f32>(&dev, 2_500_000_000, &mut t),
            "large64" => large_t::<f64>(&dev, 2_500_000_000, &mut t),
            "mid" => mid(&dev, &mut t),
            other => {
                println!("unknown mode {other}");
                std::process::exit(64);
            }
        }
        println!("mode {} done in {:.1} s", args[i], t0.elapsed().as_secs_f64());
        i += 1;
    }
    println!(
        "EVIDENCE {}: {} checks passed, {} failed",
        if t.fail == 0 { "PASS" } else { "FAIL" },
        t.pass,
        t.fail
    );
    std::process::exit(if t.fail == 0 { 0 } else { 1 });
}
