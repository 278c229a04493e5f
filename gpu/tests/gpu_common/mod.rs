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

/// Launch settings every vectors case runs with (block sizes include non-powers of two).
pub fn launches(dev: &Device) -> Vec<Launch> {
    let _ = dev;
    vec![
        Launch::default(),
        Launch {
            block: Some(32),
            grid: Some(1),
        },
        Launch {
            block: Some(64),
            grid: Some(3),
        },
        Launch {
            block: Some(96),
            grid: Some(5),
        },
        Launch {
            block: Some(1),
            grid: Some(2),
        },
        Launch {
            block: Some(BIG_BLOCK),
            grid: None,
        },
    ]
}

/// Sum, accumulator bytes and cumsum of one case on the device, against the case's bits.
pub fn run_case<T: GpuFloat>(dev: &Device, c: &Case, xs: &[T], t: &mut Tally, cumsum_launches: &[Launch]) {
    if c.fold > 8 {
        let r = dev.sum_host(xs, c.fold);
        t.check(matches!(r, Err(GpuError::UnsupportedFold(_))), || {
            format!("{}: fold {} not refused", c.name, c.fold)
        });
        return;
    }
    let want_bytes: Option<Vec<u8>> = c.bytes().map(|b| b.collect());
    let buf = match DeviceBuffer::from_host(dev, xs) {
        Ok(b) => b,
        Err(e) => {
            t.check(false, || format!("{}: upload: {e}", c.name));
            return;
        }
    };
    for l in launches(dev) {
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
    let mut out = match DeviceBuffer::<T>::alloc(dev, n) {
        Ok(o) => o,
        Err(e) => return t.check(false, || format!("{name}: alloc: {e}")),
    };
    for l in cumsum_launches {
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
