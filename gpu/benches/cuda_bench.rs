//! reprosum's side of the GPU bench (see gpu/benches/run-gpu-bench.sh, which also runs the
//! CUB and torch baselines and prints the combined table).
//!
//! Times, on device pointers with the workspace reused, the whole library call through to
//! the result (the sum's value on the host; the cumsum's output on the device, stream
//! synchronised), median of repeated calls: sum and cumsum of f32 and f64 at fold 3 for
//! N = 1e6, 1e8, 1e9 (or the sizes given as arguments), and the small-N sum and cumsum
//! latency (the cumsum's also with each kind of kernel forced); then
//! the fold sweep at the sizes of 1e8 and more: sum and cumsum at f64 folds 2..=8, 12, 16,
//! 20, 32, 52 and f32 folds 2..=8, 12, 16, 21 (methods `sum_kK`, `cumsum_kK`;
//! `REPROSUM_BENCH_SWEEP=0` leaves it out, `REPROSUM_BENCH_FOLDS=4,6,8` narrows it;
//! `REPROSUM_BENCH_LATENCY=0` leaves the small-N rows out).
//! Each result is checked against the facade (multi-threaded core) by bits.
//! Output lines: "reprosum,METHOD,TYPE,N,MEDIAN_US,GELEM_PER_S,STATUS".

use std::time::Instant;

use rayon::prelude::*;
use reprosum_gpu::cuda::{self, Device, DeviceBuffer, GpuFloat, Launch, Stream};

fn median_us(reps: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..3 {
        f();
    }
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let a = Instant::now();
            f();
            a.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t[t.len() / 2]
}

fn row(m: &str, ty: &str, n: usize, us: f64, ok: bool) {
    println!(
        "reprosum,{m},{ty},{n},{us:.2},{:.2},{}",
        n as f64 / us / 1e3,
        if ok { "ok" } else { "WRONG" }
    );
}

trait Unit: GpuFloat + Send + Sync {
    fn unit(r: u64) -> Self;
    const TY: &'static str;
}
impl Unit for f64 {
    fn unit(r: u64) -> f64 {
        (r >> 11) as f64 / (1u64 << 53) as f64
    }
    const TY: &'static str = "f64";
}
impl Unit for f32 {
    fn unit(r: u64) -> f32 {
        (r >> 40) as f32 / (1u32 << 24) as f32
    }
    const TY: &'static str = "f32";
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The cumsum's launch: the default, or `REPROSUM_BENCH_BLOCK` threads per block, and
/// `REPROSUM_BENCH_SINGLE=1` (`0`) for the single-pass (multi-pass) kernels at every size
/// (tuning; a forced single pass whose block does not fit runs the passes).
fn cumsum_launch() -> Launch {
    Launch {
        block: std::env::var("REPROSUM_BENCH_BLOCK")
            .ok()
            .and_then(|b| b.parse().ok()),
        grid: None,
        single_pass: std::env::var("REPROSUM_BENCH_SINGLE")
            .ok()
            .and_then(|v| match v.as_str() {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            }),
    }
}

/// The bench input: n values in [0, 1).
fn input<T: Unit>(n: usize) -> Vec<T> {
    (0..n)
        .into_par_iter()
        .map(|i| T::unit(mix(i as u64 ^ 0x5151)))
        .collect()
}

/// Sum and cumsum of `xs` (on the device as `buf`, output `out`) at `fold`, timed and checked
/// against the facade; rows `sum{tag}` and `cumsum{tag}`.
fn run_fold<T: Unit>(
    dev: &Device,
    xs: &[T],
    buf: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
    fold: usize,
    reps: usize,
    tag: &str,
) {
    let n = xs.len();
    let opts = reprosum::Options::with_fold(fold);
    let want = reprosum::accumulate(xs, &opts).expect("core").value();
    let mut got = T::default();
    let us = median_us(reps, || {
        // SAFETY: buf holds n values of T on this device.
        got = unsafe {
            dev.accumulate_raw::<T>(buf.device_ptr(), n, fold, Stream::DEFAULT, &Launch::default())
        }
        .expect("sum")
        .1;
    });
    row(&format!("sum{tag}"), T::TY, n, us, got.bits() == want.bits());
    out.fill_bytes(0xA5).expect("poison");
    let launch = cumsum_launch();
    let us = median_us(reps, || {
        // SAFETY: buf and out hold n values of T on this device.
        unsafe {
            dev.cumsum_raw::<T>(
                buf.device_ptr(),
                out.device_ptr(),
                n,
                fold,
                Stream::DEFAULT,
                &launch,
            )
        }
        .expect("cumsum");
    });
    let mut want_c = vec![T::default(); n];
    reprosum::cumsum_fold(xs, &mut want_c, fold).expect("core cumsum");
    let got_c = out.to_host().expect("download");
    let ok = got_c
        .par_iter()
        .zip(want_c.par_iter())
        .all(|(a, b)| a.bits() == b.bits());
    row(&format!("cumsum{tag}"), T::TY, n, us, ok);
}

fn run<T: Unit>(dev: &Device, n: usize) {
    let reps = if n >= 1_000_000_000 { 10 } else { 30 };
    let xs: Vec<T> = input(n);
    let buf = DeviceBuffer::from_host(dev, &xs).expect("upload");
    let mut out = DeviceBuffer::<T>::zeroed(dev, n).expect("alloc");
    run_fold(dev, &xs, &buf, &mut out, reprosum_core::DEFAULT_FOLD, reps, "");
}

/// The fold sweep at one size: every fold of `folds`, fewer repetitions for the run-time
/// folds (slower).
fn sweep<T: Unit>(dev: &Device, n: usize, folds: &[usize]) {
    let xs: Vec<T> = input(n);
    let buf = DeviceBuffer::from_host(dev, &xs).expect("upload");
    let mut out = DeviceBuffer::<T>::zeroed(dev, n).expect("alloc");
    for &k in folds {
        let reps = match (n >= 1_000_000_000, k <= 8) {
            (true, true) => 10,
            (true, false) => 5,
            (false, true) => 30,
            (false, false) => 10,
        };
        run_fold(dev, &xs, &buf, &mut out, k, reps, &format!("_k{k}"));
    }
}

fn latency<T: Unit>(dev: &Device) {
    let xs: Vec<T> = (0..CUMSUM_LATENCY_N[13])
        .map(|i| T::unit(mix(i as u64)))
        .collect();
    let buf = DeviceBuffer::from_host(dev, &xs).expect("upload");
    for n in [1usize, 64, 1024, 2048, 2049, 100_000] {
        let want = reprosum::sum(&xs[..n]).expect("core");
        let mut got = T::default();
        let us = median_us(200, || {
            // SAFETY: buf holds at least n values of T.
            got = unsafe {
                dev.accumulate_raw::<T>(buf.device_ptr(), n, 3, Stream::DEFAULT, &Launch::default())
            }
            .expect("sum")
            .1;
        });
        row("sum_latency", T::TY, n, us, got.bits() == want.bits());
    }
    cumsum_latency(dev, &xs, &buf);
}

/// The cumsum's latency (fold 3, device pointers, stream synchronised) at the small sizes of
/// `CUMSUM_LATENCY_N`: the default kernels (`cumsum_latency`), and at more than one tile
/// each kind forced (`cumsum_latency_single`, `cumsum_latency_multi`: the single-pass
/// kernel, the multi-pass kernels), each checked against the core by bits.
fn cumsum_latency<T: Unit>(dev: &Device, xs: &[T], buf: &DeviceBuffer<T>) {
    let mut out = DeviceBuffer::<T>::zeroed(dev, xs.len()).expect("alloc");
    let tile = cuda::CUMSUM_BLOCK as usize * T::TILE_ITEMS as usize;
    for n in CUMSUM_LATENCY_N {
        let mut want = vec![T::default(); n];
        reprosum::cumsum_fold(&xs[..n], &mut want, 3).expect("core cumsum");
        let kinds: &[(&str, Option<bool>)] = if n > tile {
            &[("", None), ("_single", Some(true)), ("_multi", Some(false))]
        } else {
            &[("", None)]
        };
        for &(tag, single_pass) in kinds {
            let launch = Launch {
                single_pass,
                ..Launch::default()
            };
            out.fill_bytes(0xA5).expect("poison");
            let us = median_us(200, || {
                // SAFETY: buf and out hold at least n values of T on this device.
                unsafe {
                    dev.cumsum_raw::<T>(buf.device_ptr(), out.device_ptr(), n, 3, Stream::DEFAULT, &launch)
                }
                .expect("cumsum");
            });
            let got = out.to_host().expect("download");
            let ok = got[..n].iter().zip(&want).all(|(a, b)| a.bits() == b.bits());
            row(&format!("cumsum_latency{tag}"), T::TY, n, us, ok);
        }
    }
}

/// The cumsum latency's sizes: the small sizes, then around 2, 3, 5, 9, ... tiles of the
/// default block and the largest one-tile inputs (f64 16384, f32 32768).
const CUMSUM_LATENCY_N: [usize; 14] = [
    1, 64, 1024, 2048, 2049, 4097, 8193, 16384, 16385, 32768, 32769, 65537, 100_000, 262_145,
];

fn main() {
    let mut sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse::<f64>().ok())
        .map(|x| x as usize)
        .collect();
    if sizes.is_empty() {
        sizes = vec![1_000_000, 100_000_000, 1_000_000_000];
    }
    let dev = match cuda::device(0) {
        Ok(d) => d,
        Err(e) => {
            println!("SKIP reprosum GPU bench: {e}");
            return;
        }
    };
    println!(
        "# device: {} (cc {:?}, {} SMs)",
        dev.name(),
        dev.compute_capability(),
        dev.sm_count()
    );
    // REPROSUM_BENCH_LATENCY=0 leaves the small-N rows out (a profiler's run of the large ones).
    if !std::env::var("REPROSUM_BENCH_LATENCY").is_ok_and(|v| v == "0") {
        latency::<f64>(&dev);
        latency::<f32>(&dev);
    }
    for &n in &sizes {
        run::<f64>(&dev, n);
        run::<f32>(&dev, n);
    }
    if std::env::var("REPROSUM_BENCH_SWEEP").is_ok_and(|v| v == "0") {
        return;
    }
    // REPROSUM_BENCH_FOLDS=4,6,8 narrows the sweep (development runs); the folds a type
    // lacks are left out.
    let only: Option<Vec<usize>> = std::env::var("REPROSUM_BENCH_FOLDS")
        .ok()
        .map(|v| v.split(',').filter_map(|f| f.trim().parse().ok()).collect());
    let keep = |k: &usize| only.as_ref().is_none_or(|o| o.contains(k));
    let f64_folds: Vec<usize> = (2..=8).chain([12, 16, 20, 32, 52]).filter(keep).collect();
    let f32_folds: Vec<usize> = (2..=8).chain([12, 16, 21]).filter(keep).collect();
    for &n in sizes.iter().filter(|&&n| n >= 100_000_000) {
        sweep::<f64>(&dev, n, &f64_folds);
        sweep::<f32>(&dev, n, &f32_folds);
    }
}
