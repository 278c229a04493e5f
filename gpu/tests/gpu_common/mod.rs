//! Checks shared by the GPU test suites (`tests/cuda.rs`, `tests/hip.rs`) and the evidence
//! program (`examples/cuda_evidence.rs`): every result compared with the core by bits.
//!
//! The file that includes this module names its back end in a sibling module `backend`:
//! `pub use reprosum_gpu::cuda::*;` (or `hip`), `BIG_BLOCK` (the largest block the launch
//! checks use) and `absent(&GpuError)` (whether an error means "no driver / runtime / device").
#![allow(dead_code)]

use super::backend::{self as gpu, absent, Device, DeviceBuffer, GpuFloat, Launch, BIG_BLOCK, NEEDS};
use reprosum_core::DynAccumulator;
use reprosum_gpu::GpuError;
use reprosum_testkit::{cases, Case};

/// Pass/fail counts with the first failures printed.
#[derive(Default)]
pub struct Tally {
    pub pass: u64,
    pub fail: u64,
}

impl Tally {
    pub fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if ok {
            self.pass += 1;
        } else {
            self.fail += 1;
            if self.fail <= 30 {
                println!("FAIL: {}", what());
            }
        }
    }
}

/// The launches of `ls` whose block the device's kernels of this type take at `fold`: the
/// sum's largest block, or with `cumsum` the cumulative sum's (their shared memory grows with
/// the fold; a larger block is an `InvalidLaunch` error).
pub fn fitting<T: GpuFloat>(dev: &Device, fold: usize, ls: &[Launch], cumsum: bool) -> Vec<Launch> {
    let max = if cumsum {
        dev.max_cumsum_block::<T>(fold)
    } else {
        dev.max_sum_block::<T>(fold)
    }
    .unwrap_or(0);
    ls.iter()
        .copied()
        .filter(|l| l.block.is_none_or(|b| b <= max))
        .collect()
}

/// Launch settings every vectors case runs with (block sizes include non-powers of two).
pub fn launches(dev: &Device) -> Vec<Launch> {
    let _ = dev;
    vec![
        Launch::default(),
        Launch {
            block: Some(32),
            grid: Some(1),
            single_pass: None,
        },
        Launch {
            block: Some(64),
            grid: Some(3),
            single_pass: None,
        },
        Launch {
            block: Some(96),
            grid: Some(5),
            single_pass: None,
        },
        Launch {
            block: Some(1),
            grid: Some(2),
            single_pass: None,
        },
        Launch {
            block: Some(BIG_BLOCK),
            grid: None,
            single_pass: None,
        },
        // The cumsum's single-pass kernel at every length of more than one tile (a small
        // block: many tiles), and the multi-pass kernels where the default is the single pass.
        Launch {
            block: Some(32),
            grid: None,
            single_pass: Some(true),
        },
        Launch {
            block: None,
            grid: None,
            single_pass: Some(false),
        },
    ]
}

/// The folds of the device tests: the tuned ones (2..=8) and the run-time-fold kernels at
/// 9, 12, 20 and the type's largest (f64 52, f32 21).
pub fn test_folds<T: reprosum_core::Float>() -> Vec<usize> {
    let mut v: Vec<usize> = (2..=8).collect();
    v.extend([9, 12, 20, T::MAX_FOLD]);
    v
}

/// Sum, accumulator bytes and cumsum of one case on the device, against the case's bits
/// (every fold of the vectors).
pub fn run_case<T: GpuFloat>(dev: &Device, c: &Case, xs: &[T], t: &mut Tally, cumsum_launches: &[Launch]) {
    let want_bytes: Option<Vec<u8>> = c.bytes().map(|b| b.collect());
    let buf = match DeviceBuffer::from_host(dev, xs) {
        Ok(b) => b,
        Err(e) => {
            t.check(false, || format!("{}: upload: {e}", c.name));
            return;
        }
    };
    for l in fitting::<T>(dev, c.fold, &launches(dev), false) {
        // Skip one-thread launches on long inputs (slow, and covered by shorter cases).
        if l.block == Some(1) && xs.len() > 100_000 {
            continue;
        }
        match dev.accumulate_with(&buf, c.fold, &l) {
            Ok((acc, v)) => {
                t.check(v.bits() == c.sum, || {
                    format!("{} {:?}: device value {:x} want {:x}", c.name, l, v.bits(), c.sum)
                });
                t.check(acc.value().bits() == c.sum, || {
                    format!("{} {:?}: accumulator value", c.name, l)
                });
                t.check(acc.count() == xs.len() as u64, || {
                    format!("{} {:?}: count", c.name, l)
                });
                if let Some(w) = &want_bytes {
                    t.check(acc.to_bytes().as_bytes() == &w[..], || {
                        format!("{} {:?}: bytes", c.name, l)
                    });
                }
            }
            Err(e) => t.check(false, || format!("{} {:?}: {e}", c.name, l)),
        }
    }
    // Host-slice path.
    match dev.sum_host(xs, c.fold) {
        Ok(v) => t.check(v.bits() == c.sum, || format!("{} host slice", c.name)),
        Err(e) => t.check(false, || format!("{} host slice: {e}", c.name)),
    }
    // Cumsum: expected from the case, or from the core.
    let want: Vec<u64> = match c.cumsum() {
        Some(it) => it.collect(),
        None => {
            let mut out = vec![T::default(); xs.len()];
            reprosum::cumsum_fold(xs, &mut out, c.fold).expect("core cumsum");
            out.iter().map(|v| v.bits()).collect()
        }
    };
    cumsum_check(dev, c.name, &buf, xs.len(), c.fold, &want, t, cumsum_launches);
}

/// Cumsum of a device buffer into a poisoned output, every element compared.
#[allow(clippy::too_many_arguments)]
pub fn cumsum_check<T: GpuFloat>(
    dev: &Device,
    name: &str,
    buf: &DeviceBuffer<T>,
    n: usize,
    fold: usize,
    want: &[u64],
    t: &mut Tally,
    cumsum_launches: &[Launch],
) {
    let mut out = match DeviceBuffer::<T>::zeroed(dev, n) {
        Ok(o) => o,
        Err(e) => return t.check(false, || format!("{name}: alloc: {e}")),
    };
    for l in &fitting::<T>(dev, fold, cumsum_launches, true) {
        if out.fill_bytes(0xA5).is_err() {
            return t.check(false, || format!("{name}: poison"));
        }
        if let Err(e) = dev.cumsum_with(buf, &mut out, fold, l) {
            t.check(false, || format!("{name} cumsum {l:?}: {e}"));
            continue;
        }
        let got = out.to_host().expect("download");
        let bad = got.iter().zip(want).position(|(g, w)| g.bits() != *w);
        t.check(bad.is_none() && got.len() == want.len(), || {
            let i = bad.unwrap_or(0);
            format!(
                "{name} cumsum {l:?} n={n} first difference at {i}: {:x} want {:x}",
                got[i].bits(),
                want[i]
            )
        });
    }
}

/// Every case of a vectors text, f64 and f32.
pub fn run_vectors(dev: &Device, text: &str, t: &mut Tally, cumsum_launches: &[Launch]) {
    for c in cases(text) {
        let c = c.expect("vectors parse");
        match c.dtype {
            reprosum_core::Dtype::F64 => {
                let xs: Vec<f64> = c.inputs_f64().collect();
                run_case(dev, &c, &xs, t, cumsum_launches);
            }
            reprosum_core::Dtype::F32 => {
                let xs: Vec<f32> = c.inputs_f32().collect();
                run_case(dev, &c, &xs, t, cumsum_launches);
            }
        }
    }
}

/// The device's accumulator merged with a CPU accumulator equals the CPU accumulator of
/// everything.
pub fn merge_check<T: GpuFloat>(dev: &Device, a: &[T], b: &[T], fold: usize, t: &mut Tally) {
    let ga = match dev.accumulate(&DeviceBuffer::from_host(dev, a).expect("upload"), fold) {
        Ok(g) => g,
        Err(e) => return t.check(false, || format!("merge: {e}")),
    };
    let mut cb = DynAccumulator::<T>::new(fold).unwrap();
    cb.add_slice(b).unwrap();
    let mut m = cb;
    m.merge(&ga).unwrap();
    let mut all = DynAccumulator::<T>::new(fold).unwrap();
    all.add_slice(a).unwrap();
    all.add_slice(b).unwrap();
    t.check(m.to_bytes().as_bytes() == all.to_bytes().as_bytes(), || {
        "merge with CPU accumulator".into()
    });
}

/// Opens device 0, or says why not (no driver, no device) and returns None.
pub fn device_or_skip(what: &str) -> Option<std::sync::Arc<Device>> {
    match gpu::device(0) {
        Ok(d) => Some(d),
        Err(e) if absent(&e) => {
            println!("SKIP {what}: {e} ({NEEDS})");
            None
        }
        Err(e) => panic!("device 0 present but unusable: {e}"),
    }
}

// ---- adding to an accumulator, and cumulative sums continued from one --------------------

pub mod keyed;
pub mod segcumsum;
pub mod segmented;
pub mod starts;

use starts::{reference, StartFloat};

/// The poison a cumsum's output is filled with before the call (0xA5 bytes).
fn poison<T: StartFloat>() -> T {
    T::from_bits_u64(0xA5A5_A5A5_A5A5_A5A5)
}

fn bits<T: StartFloat>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.bits()).collect()
}

fn first_difference<T: StartFloat>(got: &[T], want: &[T]) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("length {} want {}", got.len(), want.len()));
    }
    got.iter()
        .zip(want)
        .position(|(g, w)| g.bits() != w.bits())
        .map(|i| {
            format!(
                "first difference at {i} of {}: {:x} want {:x}",
                got.len(),
                got[i].bits(),
                want[i].bits()
            )
        })
}

/// Pieces of an input for the chained adds: empty, one value, a tile, odd sizes, long.
const PIECES: [usize; 8] = [0, 1, 2, 2048, 4097, 31, 100_003, 0];

/// `add_ptr` (device and host pointers), `Device::add_to` and `Device::add_host_to`, each
/// chained over the pieces of an input, against `add_slice` of the same pieces by bytes
/// after every piece, from every start state; every fold of [`test_folds`].
pub fn add_checks<T: GpuFloat + StartFloat>(dev: &Device, t: &mut Tally) {
    for fold in test_folds::<T>() {
        let starts = starts::starts::<T>(fold, 77 + fold as u64);
        for (si, (sname, start)) in starts.iter().enumerate() {
            // Every start at the default fold and the top one; the others take a few.
            if fold != 3 && fold != 8 && si % 3 != 0 {
                continue;
            }
            let pattern = starts::PATTERNS[(si + fold) % starts::PATTERNS.len()];
            let total: usize = PIECES.iter().sum();
            let xs = starts::input::<T>(pattern, total, 5 + si as u64);
            // Paths: add_ptr on a device pointer, add_ptr on a host pointer, add_to,
            // add_host_to.
            let mut accs = [*start; 4];
            let mut want = *start;
            let mut at = 0;
            for (pi, &len) in PIECES.iter().enumerate() {
                let piece = &xs[at..at + len];
                at += len;
                want.add_slice(piece).expect("core add_slice");
                let buf = match DeviceBuffer::from_host(dev, piece) {
                    Ok(b) => b,
                    Err(e) => return t.check(false, || format!("add: upload: {e}")),
                };
                // SAFETY: a device buffer and a host slice of `len` values; the default stream.
                let r = unsafe {
                    [
                        gpu::add_ptr(
                            &mut accs[0],
                            buf.device_ptr() as *const T,
                            len,
                            std::ptr::null_mut(),
                        ),
                        gpu::add_ptr(&mut accs[1], piece.as_ptr(), len, std::ptr::null_mut()),
                        dev.add_to(&mut accs[2], &buf),
                        dev.add_host_to(&mut accs[3], piece),
                    ]
                };
                for (path, (acc, r)) in accs.iter().zip(r).enumerate() {
                    let what = || {
                        format!(
                            "add {} k{fold} start {sname} piece {pi} (n={len}) path {path}",
                            T::NAME
                        )
                    };
                    match r {
                        Ok(()) => t.check(
                            acc.to_bytes().as_bytes() == want.to_bytes().as_bytes()
                                && acc.count() == want.count(),
                            what,
                        ),
                        Err(e) => t.check(false, || format!("{}: {e}", what())),
                    }
                }
            }
        }
    }
}

/// One cumsum continued from `start` on the device, by every path, into poisoned outputs,
/// against the core (`want`).
#[allow(clippy::too_many_arguments)]
fn from_paths<T: GpuFloat + StartFloat>(
    dev: &Device,
    name: &str,
    start: &DynAccumulator<T>,
    xs: &[T],
    want: &[T],
    all_paths: bool,
    launches: &[Launch],
    t: &mut Tally,
) {
    let n = xs.len();
    let buf = match DeviceBuffer::from_host(dev, xs) {
        Ok(b) => b,
        Err(e) => return t.check(false, || format!("{name}: upload: {e}")),
    };
    let mut out = match DeviceBuffer::<T>::zeroed(dev, n) {
        Ok(o) => o,
        Err(e) => return t.check(false, || format!("{name}: alloc: {e}")),
    };
    let mut check = |what: &str, r: Result<(), GpuError>, got: Result<Vec<T>, GpuError>| match (r, got) {
        (Ok(()), Ok(got)) => t.check(first_difference(&got, want).is_none(), || {
            format!(
                "{name} {what}: {}",
                first_difference(&got, want).unwrap_or_default()
            )
        }),
        (Err(e), _) | (_, Err(e)) => t.check(false, || format!("{name} {what}: {e}")),
    };
    for l in launches {
        let r = out
            .fill_bytes(0xA5)
            .and_then(|_| dev.cumsum_from_with(start, &buf, &mut out, l));
        check(&format!("buffer {l:?}"), r, out.to_host());
    }
    if !all_paths {
        return;
    }
    let r = out
        .fill_bytes(0xA5)
        .and_then(|_| dev.cumsum_from(start, &buf, &mut out));
    check("buffer", r, out.to_host());
    // In place on the device.
    match DeviceBuffer::from_host(dev, xs) {
        Ok(mut b) => {
            let r = dev.cumsum_from_in_place(start, &mut b);
            check("in place", r, b.to_host());
        }
        Err(e) => check("in place upload", Err(e), Ok(Vec::new())),
    }
    // Host slices.
    let mut hout = vec![poison::<T>(); n];
    let r = dev.cumsum_from_host(start, xs, &mut hout);
    check("host", r, Ok(hout));
    // The pointer entry point: device to device, host to host, in place on both.
    let r = out.fill_bytes(0xA5).and_then(|_| {
        // SAFETY: device buffers of n values each; the default stream.
        unsafe {
            gpu::cumsum_from_ptr(
                start,
                buf.device_ptr() as *const T,
                out.device_ptr() as *mut T,
                n,
                std::ptr::null_mut(),
            )
        }
    });
    check("ptr device", r, out.to_host());
    let mut hout = vec![poison::<T>(); n];
    // SAFETY: host slices of n values each.
    let r = unsafe { gpu::cumsum_from_ptr(start, xs.as_ptr(), hout.as_mut_ptr(), n, std::ptr::null_mut()) };
    check("ptr host", r, Ok(hout));
    let mut hin = xs.to_vec();
    let p = hin.as_mut_ptr();
    // SAFETY: one host slice of n values, as input and output.
    let r = unsafe { gpu::cumsum_from_ptr(start, p, p, n, std::ptr::null_mut()) };
    check("ptr host in place", r, Ok(hin));
    let r = DeviceBuffer::from_host(dev, xs).and_then(|b| {
        let p = b.device_ptr() as *mut T;
        // SAFETY: one device buffer of n values, as input and output.
        unsafe { gpu::cumsum_from_ptr(start, p, p, n, std::ptr::null_mut()) }.map(|_| b)
    });
    match r {
        Ok(b) => check("ptr device in place", Ok(()), b.to_host()),
        Err(e) => check("ptr device in place", Err(e), Ok(Vec::new())),
    }
}

/// Cumulative sums continued from every start state, against the core by bits: every fold
/// of [`test_folds`] at lengths 0, 1, 2 and around the tiles of 64, 128 and 256 threads (1024, 2048,
/// 4096, 8192 values); at folds 3 and 8 also 1e5 values by every path (buffers, in place,
/// host slices, pointers) and launch; at fold 3 a prefix group's end (256 tiles) and 1e6.
pub fn from_checks<T: GpuFloat + StartFloat>(dev: &Device, t: &mut Tally) {
    // Blocks every cumsum kernel takes at every fold (the f64 fold-8 scan kernel's
    // registers allow 288 threads on sm_90; HIP's BIG_BLOCK keeps within 64 KiB of LDS).
    let small = [
        (Some(64u32), None),
        (Some(BIG_BLOCK.min(256)), None),
        (None, Some(true)),
    ]
    .map(|(block, single_pass)| Launch {
        block,
        grid: None,
        single_pass,
    });
    let default = [Launch::default()];
    for fold in test_folds::<T>() {
        let starts = starts::starts::<T>(fold, 1000 + fold as u64);
        for (si, (sname, start)) in starts.iter().enumerate() {
            let pattern = starts::PATTERNS[(si + 2 * fold) % starts::PATTERNS.len()];
            let mut sizes = vec![0usize, 1, 2, 1023, 1024, 1025, 2047, 2048, 2049, 4097, 8191, 8193];
            if fold == 3 || fold == 8 {
                sizes.push(100_000);
            }
            if fold == 3
                && matches!(
                    *sname,
                    "small" | "huge" | "high" | "nan" | "large_count" | "carries"
                )
            {
                sizes.extend([256 * 2048 + 1, 1_000_000]);
            }
            for n in sizes {
                let xs = starts::input::<T>(pattern, n, (fold * 1000 + si) as u64 ^ n as u64);
                let want = reference(start, &xs);
                let name = format!("from {} k{fold} start {sname} {pattern} n={n}", T::NAME);
                // Every path and three launches at some lengths (two blocks, the single pass);
                // the default buffer path at all.
                let every = n == 100_000 || n == 2049;
                let launches: &[Launch] = if every { &small } else { &default };
                let launches = fitting::<T>(dev, fold, launches, true);
                from_paths(dev, &name, start, &xs, &want, every || n <= 2, &launches, t);
            }
        }
    }
}

/// An input fed in pieces, each piece's cumsum continued from the accumulator of the pieces
/// before it (advanced with `Device::add_to`), gives the whole input's cumsum (the core's).
pub fn split_checks<T: GpuFloat + StartFloat>(dev: &Device, t: &mut Tally) {
    for fold in [2, 3, 5, 8] {
        for pattern in starts::PATTERNS {
            let xs = starts::input::<T>(pattern, 100_000, fold as u64 + 17);
            let mut whole = vec![T::default(); xs.len()];
            reprosum::cumsum_fold(&xs, &mut whole, fold).expect("core cumsum");
            let mut acc = DynAccumulator::<T>::new(fold).unwrap();
            let mut got = Vec::with_capacity(xs.len());
            let mut at = 0;
            for len in [0, 1, 2047, 2048, 1, 50_000, 0, 100_000 - 54_097] {
                let piece = &xs[at..at + len];
                at += len;
                let r = DeviceBuffer::from_host(dev, piece).and_then(|b| {
                    let mut o = DeviceBuffer::<T>::zeroed(dev, len)?;
                    dev.cumsum_from(&acc, &b, &mut o)?;
                    dev.add_to(&mut acc, &b)?;
                    o.to_host()
                });
                match r {
                    Ok(o) => got.extend(o),
                    Err(e) => return t.check(false, || format!("split {} k{fold} {pattern}: {e}", T::NAME)),
                }
            }
            t.check(first_difference(&got, &whole).is_none(), || {
                format!(
                    "split {} k{fold} {pattern}: {}",
                    T::NAME,
                    first_difference(&got, &whole).unwrap_or_default()
                )
            });
            let mut all = DynAccumulator::<T>::new(fold).unwrap();
            all.add_slice(&xs).unwrap();
            t.check(acc.to_bytes().as_bytes() == all.to_bytes().as_bytes(), || {
                format!("split {} k{fold} {pattern}: the advanced accumulator", T::NAME)
            });
        }
    }
}

/// The error cases of the add and cumsum-from entry points on a device (every accumulator's
/// fold is one the GPU takes): the capacity (at and past it), lengths
/// that differ, a host input with a device output. Every error leaves the output or the
/// accumulator as it was.
pub fn from_error_checks<T: GpuFloat + StartFloat>(dev: &Device, t: &mut Tally) {
    let xs = starts::input::<T>("mixed", 5000, 3);
    let buf = DeviceBuffer::from_host(dev, &xs).expect("upload");
    let mut out = DeviceBuffer::<T>::zeroed(dev, xs.len()).expect("alloc");
    let untouched = |o: &DeviceBuffer<T>| {
        o.to_host()
            .map(|v| v.iter().all(|x| x.bits() == poison::<T>().bits()))
            .unwrap_or(false)
    };
    // The capacity: a start holding CAPACITY - n values takes n more, one more is refused.
    let mut base = DynAccumulator::<T>::new(3).unwrap();
    base.add_slice(&xs[..3]).unwrap();
    let n = xs.len() as u64;
    let full = starts::with_count_and_carries(&base, T::CAPACITY - n, &[]);
    let over = starts::with_count_and_carries(&base, T::CAPACITY - n + 1, &[]);
    out.fill_bytes(0xA5).unwrap();
    let r = dev.cumsum_from(&full, &buf, &mut out);
    let want = reference(&full, &xs);
    let got = out.to_host().unwrap_or_default();
    t.check(r.is_ok() && first_difference(&got, &want).is_none(), || {
        format!("from at capacity: {r:?}")
    });
    out.fill_bytes(0xA5).unwrap();
    let r = dev.cumsum_from(&over, &buf, &mut out);
    t.check(r == Err(GpuError::CapacityExceeded) && untouched(&out), || {
        format!("from past capacity: {r:?}")
    });
    let mut hout = vec![poison::<T>(); xs.len()];
    let r = dev.cumsum_from_host(&over, &xs, &mut hout);
    t.check(
        r == Err(GpuError::CapacityExceeded) && bits(&hout) == vec![poison::<T>().bits(); xs.len()],
        || format!("from host past capacity: {r:?}"),
    );
    let mut acc = full;
    let r = dev.add_to(&mut acc, &buf);
    let mut want_acc = full;
    want_acc.add_slice(&xs).unwrap();
    t.check(
        r.is_ok() && acc.to_bytes().as_bytes() == want_acc.to_bytes().as_bytes(),
        || format!("add at capacity: {r:?}"),
    );
    let mut acc = over;
    let r = dev.add_host_to(&mut acc, &xs);
    t.check(
        r == Err(GpuError::CapacityExceeded) && acc.to_bytes().as_bytes() == over.to_bytes().as_bytes(),
        || format!("add past capacity: {r:?}"),
    );
    // Lengths that differ.
    let mut short = DeviceBuffer::<T>::zeroed(dev, xs.len() - 1).expect("alloc");
    short.fill_bytes(0xA5).unwrap();
    let r = dev.cumsum_from(&base, &buf, &mut short);
    t.check(r == Err(GpuError::LengthMismatch) && untouched(&short), || {
        format!("from lengths: {r:?}")
    });
    let mut hshort = vec![poison::<T>(); xs.len() - 1];
    let r = dev.cumsum_from_host(&base, &xs, &mut hshort);
    t.check(
        r == Err(GpuError::LengthMismatch) && bits(&hshort) == vec![poison::<T>().bits(); xs.len() - 1],
        || format!("from host lengths: {r:?}"),
    );
    // A host input with a device output.
    out.fill_bytes(0xA5).unwrap();
    // SAFETY: a host slice and a device buffer of xs.len() values.
    let r = unsafe {
        gpu::cumsum_from_ptr(
            &base,
            xs.as_ptr(),
            out.device_ptr() as *mut T,
            xs.len(),
            std::ptr::null_mut(),
        )
    };
    t.check(
        matches!(r, Err(GpuError::InvalidPointer(_))) && untouched(&out),
        || format!("from host to device: {r:?}"),
    );
}

/// The argument errors of `add_ptr` and `cumsum_from_ptr` that come before any device work
/// (so they are the same with or without a device): the capacity,
/// null, misaligned and partly overlapping pointers. Then a valid call: Ok with the core's
/// bits on a device, else a "no device" error, with the accumulator and the output as
/// they were.
pub fn pointer_argument_checks<T: GpuFloat + StartFloat>(t: &mut Tally) {
    let xs = starts::input::<T>("mixed", 300, 9);
    let mut base = DynAccumulator::<T>::new(4).unwrap();
    base.add_slice(&xs[..20]).unwrap();
    let keep = |a: &DynAccumulator<T>| a.to_bytes().as_bytes() == base.to_bytes().as_bytes();
    let p0 = poison::<T>().bits();
    let mut out = vec![poison::<T>(); xs.len() + 1];
    let null = std::ptr::null_mut();
    // SAFETY (every call below): the pointers are null, or point into xs / out with room for
    // the count given; every call shown refuses its arguments before reading them, or reads
    // host memory that is there.
    unsafe {
        // The largest fold (the run-time-fold kernels): the core's bytes on a device.
        let wide = DynAccumulator::<T>::new(T::MAX_FOLD).unwrap();
        let mut a = wide;
        let r = gpu::add_ptr(&mut a, xs.as_ptr(), xs.len(), null);
        let mut want = wide;
        want.add_slice(&xs).unwrap();
        match r {
            Ok(()) => t.check(a.to_bytes().as_bytes() == want.to_bytes().as_bytes(), || {
                format!("add_ptr fold {}", T::MAX_FOLD)
            }),
            Err(e) => t.check(
                absent(&e) && a.to_bytes().as_bytes() == wide.to_bytes().as_bytes(),
                || format!("add_ptr fold {} without a device: {e}", T::MAX_FOLD),
            ),
        }
        let over = starts::with_count_and_carries(&base, T::CAPACITY - xs.len() as u64 + 1, &[]);
        let r = gpu::cumsum_from_ptr(&over, xs.as_ptr(), out.as_mut_ptr(), xs.len(), null);
        t.check(r == Err(GpuError::CapacityExceeded), || {
            format!("from_ptr capacity: {r:?}")
        });
        let mut a = over;
        let r = gpu::add_ptr(&mut a, xs.as_ptr(), xs.len(), null);
        t.check(
            r == Err(GpuError::CapacityExceeded) && a.to_bytes().as_bytes() == over.to_bytes().as_bytes(),
            || format!("add_ptr capacity: {r:?}"),
        );
        let mut a = base;
        let r = gpu::add_ptr(&mut a, std::ptr::null(), 5, null);
        t.check(matches!(r, Err(GpuError::InvalidPointer(_))) && keep(&a), || {
            format!("add_ptr null: {r:?}")
        });
        let mis = (xs.as_ptr() as *const u8).wrapping_add(1) as *const T;
        let r = gpu::add_ptr(&mut a, mis, 5, null);
        t.check(matches!(r, Err(GpuError::InvalidPointer(_))) && keep(&a), || {
            format!("add_ptr misaligned: {r:?}")
        });
        let r = gpu::cumsum_from_ptr(&base, std::ptr::null(), out.as_mut_ptr(), 5, null);
        t.check(matches!(r, Err(GpuError::InvalidPointer(_))), || {
            format!("from_ptr null input: {r:?}")
        });
        let r = gpu::cumsum_from_ptr(&base, xs.as_ptr(), std::ptr::null_mut(), 5, null);
        t.check(matches!(r, Err(GpuError::InvalidPointer(_))), || {
            format!("from_ptr null output: {r:?}")
        });
        let o = out.as_mut_ptr();
        let r = gpu::cumsum_from_ptr(&base, o, o.wrapping_add(1), 100, null);
        t.check(matches!(r, Err(GpuError::Overlap(_))), || {
            format!("from_ptr overlap: {r:?}")
        });
        t.check(out.iter().all(|x| x.bits() == p0), || {
            "from_ptr: an error wrote the output".into()
        });
        // A valid call.
        let mut a = base;
        let r = gpu::add_ptr(&mut a, xs.as_ptr(), xs.len(), null);
        let mut want = base;
        want.add_slice(&xs).unwrap();
        match r {
            Ok(()) => t.check(a.to_bytes().as_bytes() == want.to_bytes().as_bytes(), || {
                "add_ptr host values".into()
            }),
            Err(e) => t.check(absent(&e) && keep(&a), || {
                format!("add_ptr without a device: {e}")
            }),
        }
        let r = gpu::cumsum_from_ptr(&base, xs.as_ptr(), out.as_mut_ptr(), xs.len(), null);
        match r {
            Ok(()) => {
                let want = reference(&base, &xs);
                t.check(first_difference(&out[..xs.len()], &want).is_none(), || {
                    "from_ptr host values".into()
                });
                t.check(out[xs.len()].bits() == p0, || {
                    "from_ptr wrote past the end".into()
                });
            }
            Err(e) => t.check(absent(&e) && out.iter().all(|x| x.bits() == p0), || {
                format!("from_ptr without a device: {e}")
            }),
        }
    }
}
