//! The CUDA back end's tests. Host-side tests run everywhere; the device tests print a
//! skip reason and pass when there is no driver or no GPU (CI), and on a GPU compare
//! every result with the core by bits.
#![cfg(feature = "cuda")]

/// The back end the shared checks run on.
mod backend {
    pub use reprosum_gpu::cuda::*;
    use reprosum_gpu::GpuError;
    /// The largest block of the launch checks.
    pub const BIG_BLOCK: u32 = 512;
    /// Why the device tests skip.
    pub const NEEDS: &str = "GPU tests need an NVIDIA driver and device";
    /// Whether an error means there is no driver, runtime or device.
    pub fn absent(e: &GpuError) -> bool {
        matches!(e, GpuError::NoRuntime(_) | GpuError::NoDevice { .. })
    }
}

#[path = "gpu_common/mod.rs"]
mod gpu_common;

use gpu_common::*;
use reprosum_gpu::cuda::{self, Launch};
use reprosum_gpu::GpuError;

#[test]
fn probe_expectations_are_the_ieee_results() {
    let (_, _, w64, w32) = cuda::probe_cases();
    assert_eq!(
        w64,
        vec![
            2,
            1,
            0x3FF0_0000_0000_0000,
            0x3FF0_0000_0000_0002,
            0x8000_0000_0000_0000,
            0,
            0,
            0xBFF8_0000_0000_0000,
            0x0008_0000_0000_0000,
            2,
            0x8000_0000_0000_0000,
            1
        ]
    );
    assert_eq!(
        w32,
        vec![
            2,
            1,
            0x3F80_0000,
            0x3F80_0002,
            0x8000_0000,
            0,
            0,
            0xBFC0_0000,
            0x0040_0000,
            2,
            0x8000_0000,
            1,
            0x3F80_0000,
            0x3F80_0002,
            1,
            0x8000_0000
        ]
    );
}

#[test]
fn fatbin_is_embedded() {
    let f = cuda::fatbin();
    assert!(f.len() > 1000);
    // The fatbin header magic 0xBA55ED50, little-endian.
    assert_eq!(&f[..4], &[0x50, 0xED, 0x55, 0xBA]);
}

#[test]
fn no_driver_or_device_is_an_error_value() {
    // Must return (Ok on a GPU machine, an error elsewhere), never panic.
    match cuda::device(0) {
        Ok(d) => println!("device 0: {} (cc {:?})", d.name(), d.compute_capability()),
        Err(e) => println!("SKIP device work: {e}"),
    }
    let xs = [1.0f64, 2.0, 3.0];
    // SAFETY: xs is a live host slice of 3 values; the default stream.
    let r = unsafe { cuda::sum_ptr(xs.as_ptr(), xs.len(), 3, std::ptr::null_mut()) };
    match r {
        Ok(v) => assert_eq!(v.to_bits(), 6.0f64.to_bits()),
        Err(e) => {
            assert!(
                matches!(e, GpuError::NoRuntime(_) | GpuError::NoDevice { .. }),
                "{e}"
            );
            println!("SKIP sum_ptr on a device: {e}");
        }
    }
    // Empty inputs, the context guard and the queries reach the driver too: without one
    // they are error values (or nothing), never a panic.
    let mut acc = reprosum_core::DynAccumulator::<f64>::new(3).unwrap();
    let start = acc;
    let mut out = [0.0f64; 1];
    // SAFETY: zero values; the pointers are never read.
    let empty = unsafe {
        [
            cuda::sum_ptr(xs.as_ptr(), 0, 3, std::ptr::null_mut()).map(|_| ()),
            cuda::accumulate_ptr(xs.as_ptr(), 0, 3, std::ptr::null_mut()).map(|_| ()),
            cuda::add_ptr(&mut acc, xs.as_ptr(), 0, std::ptr::null_mut()),
            cuda::cumsum_ptr(xs.as_ptr(), out.as_mut_ptr(), 0, 3, std::ptr::null_mut()),
            cuda::cumsum_from_ptr(&start, xs.as_ptr(), out.as_mut_ptr(), 0, std::ptr::null_mut()),
        ]
    };
    for r in empty {
        if let Err(e) = r {
            assert!(
                matches!(e, GpuError::NoRuntime(_) | GpuError::NoDevice { .. }),
                "{e}"
            );
        }
    }
    drop(cuda::RestoreContext::save());
    let _ = cuda::current_ordinal();
    let _ = cuda::device_count();
    let _ = cuda::memory_of(xs.as_ptr().cast());
    // Partly overlapping input and output are refused before any device work.
    let mut buf = [1.0f64; 8];
    let p = buf.as_mut_ptr();
    // SAFETY: both ranges lie inside buf; the call refuses them before reading.
    let r = unsafe { cuda::cumsum_ptr(p, p.wrapping_add(1), 4, 3, std::ptr::null_mut()) };
    assert!(matches!(r, Err(GpuError::Overlap(_))), "{r:?}");
    // Fold errors come before any device work.
    // SAFETY: as above.
    let r = unsafe { cuda::sum_ptr(xs.as_ptr(), xs.len(), 53, std::ptr::null_mut()) };
    assert_eq!(r, Err(GpuError::UnsupportedFold(53)));
}

#[test]
fn known_answers_on_the_device() {
    let Some(dev) = device_or_skip("known answers on the device") else {
        return;
    };
    let mut t = Tally::default();
    run_vectors(
        &dev,
        reprosum_testkit::KNOWN_ANSWERS,
        &mut t,
        &[Launch::default()],
    );
    println!("known answers: {} checks passed, {} failed", t.pass, t.fail);
    assert_eq!(t.fail, 0);
}

#[test]
fn core_vectors_on_the_device() {
    let Some(dev) = device_or_skip("core vectors on the device") else {
        return;
    };
    let mut t = Tally::default();
    run_vectors(
        &dev,
        reprosum_testkit::CORE_VECTORS,
        &mut t,
        &[
            Launch::default(),
            Launch {
                block: Some(64),
                grid: None,
                single_pass: None,
            },
        ],
    );
    println!("core vectors: {} checks passed, {} failed", t.pass, t.fail);
    assert_eq!(t.fail, 0);
}

#[test]
fn device_accumulator_merges_with_cpu_accumulators() {
    let Some(dev) = device_or_skip("merge with CPU accumulators") else {
        return;
    };
    let a: Vec<f64> = (0..10_000).map(|i| (i as f64).sin() * 1e10).collect();
    let b: Vec<f64> = (0..777).map(|i| (i as f64).cos() * 1e-5).collect();
    let mut t = Tally::default();
    for fold in test_folds::<f64>() {
        merge_check(&dev, &a, &b, fold, &mut t);
    }
    for fold in test_folds::<f32>() {
        let fa: Vec<f32> = a.iter().map(|&x| x as f32).collect();
        let fb: Vec<f32> = b.iter().map(|&x| x as f32).collect();
        merge_check(&dev, &fa, &fb, fold, &mut t);
    }
    assert_eq!(t.fail, 0);
}

#[test]
fn pointer_entry_points_on_the_device() {
    let Some(dev) = device_or_skip("pointer entry points on the device") else {
        return;
    };
    let xs: Vec<f64> = (0..100_003).map(|i| ((i as f64) * 0.37).sin() * 1e6).collect();
    let want = reprosum::sum(&xs).unwrap();
    let mut want_c = vec![0.0f64; xs.len()];
    reprosum::cumsum(&xs, &mut want_c).unwrap();
    let buf = cuda::DeviceBuffer::from_host(&dev, &xs).unwrap();
    assert_eq!(
        cuda::memory_of(buf.device_ptr() as *const _).unwrap(),
        cuda::Memory::Device(0)
    );
    assert_eq!(
        cuda::memory_of(xs.as_ptr() as *const _).unwrap(),
        cuda::Memory::Host
    );
    // SAFETY: a device buffer of xs.len() values; a host slice; the default stream.
    let (d, h) = unsafe {
        (
            cuda::sum_ptr(buf.device_ptr() as *const f64, xs.len(), 3, std::ptr::null_mut()).unwrap(),
            cuda::sum_ptr(xs.as_ptr(), xs.len(), 3, std::ptr::null_mut()).unwrap(),
        )
    };
    assert_eq!(d.to_bits(), want.to_bits());
    assert_eq!(h.to_bits(), want.to_bits());
    // Device to device (poisoned output), host to host, and in place on the device.
    let mut out = cuda::DeviceBuffer::<f64>::zeroed(&dev, xs.len()).unwrap();
    out.fill_bytes(0xA5).unwrap();
    let mut hout = vec![f64::from_bits(0xA5A5_A5A5_A5A5_A5A5); xs.len()];
    let mut inplace = cuda::DeviceBuffer::from_host(&dev, &xs).unwrap();
    // SAFETY: buffers of xs.len() values each.
    unsafe {
        cuda::cumsum_ptr(
            buf.device_ptr() as *const f64,
            out.device_ptr() as *mut f64,
            xs.len(),
            3,
            std::ptr::null_mut(),
        )
        .unwrap();
        cuda::cumsum_ptr(xs.as_ptr(), hout.as_mut_ptr(), xs.len(), 3, std::ptr::null_mut()).unwrap();
        let p = inplace.device_ptr() as *mut f64;
        cuda::cumsum_ptr(p, p, xs.len(), 3, std::ptr::null_mut()).unwrap();
    }
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&out.to_host().unwrap()), bits(&want_c));
    assert_eq!(bits(&hout), bits(&want_c));
    assert_eq!(bits(&inplace.to_host().unwrap()), bits(&want_c));
    let _ = &mut inplace;
    // Host input with device output: refused, output untouched.
    // SAFETY: as above.
    let r = unsafe {
        cuda::cumsum_ptr(
            xs.as_ptr(),
            out.device_ptr() as *mut f64,
            xs.len(),
            3,
            std::ptr::null_mut(),
        )
    };
    assert!(matches!(r, Err(GpuError::InvalidPointer(_))), "{r:?}");
}

#[test]
fn add_and_cumsum_from_pointer_arguments() {
    let mut t = Tally::default();
    pointer_argument_checks::<f64>(&mut t);
    pointer_argument_checks::<f32>(&mut t);
    println!(
        "add_ptr / cumsum_from_ptr arguments: {} checks passed, {} failed",
        t.pass, t.fail
    );
    assert_eq!(t.fail, 0);
}

#[test]
fn add_to_an_accumulator_on_the_device() {
    let Some(dev) = device_or_skip("adding to an accumulator on the device") else {
        return;
    };
    let mut t = Tally::default();
    add_checks::<f64>(&dev, &mut t);
    add_checks::<f32>(&dev, &mut t);
    println!(
        "add to an accumulator: {} checks passed, {} failed",
        t.pass, t.fail
    );
    assert_eq!(t.fail, 0);
}

#[test]
fn cumsum_from_an_accumulator_on_the_device() {
    let Some(dev) = device_or_skip("cumsum from an accumulator on the device") else {
        return;
    };
    let mut t = Tally::default();
    from_checks::<f64>(&dev, &mut t);
    from_checks::<f32>(&dev, &mut t);
    println!(
        "cumsum from an accumulator: {} checks passed, {} failed",
        t.pass, t.fail
    );
    assert_eq!(t.fail, 0);
}

#[test]
fn cumsum_from_in_pieces_is_the_whole_cumsum_on_the_device() {
    let Some(dev) = device_or_skip("cumsum in pieces on the device") else {
        return;
    };
    let mut t = Tally::default();
    split_checks::<f64>(&dev, &mut t);
    split_checks::<f32>(&dev, &mut t);
    println!("cumsum in pieces: {} checks passed, {} failed", t.pass, t.fail);
    assert_eq!(t.fail, 0);
}

#[test]
fn add_and_cumsum_from_errors_on_the_device() {
    let Some(dev) = device_or_skip("add and cumsum-from errors on the device") else {
        return;
    };
    let mut t = Tally::default();
    from_error_checks::<f64>(&dev, &mut t);
    from_error_checks::<f32>(&dev, &mut t);
    println!(
        "add and cumsum-from errors: {} checks passed, {} failed",
        t.pass, t.fail
    );
    assert_eq!(t.fail, 0);
}

/// `RestoreContext` (held by the facade's and the C library's entry points) makes the
/// caller's context current again: here none, although the call bound the primary context.
#[test]
fn the_callers_context_is_restored() {
    let Some(dev) = device_or_skip("the caller's context is restored") else {
        return;
    };
    use cudarc::driver::result::ctx;
    let xs = [1.0f64, 2.0, 4.0];
    // SAFETY: unbinding the calling thread's context is always allowed.
    unsafe { ctx::set_current(std::ptr::null_mut()) }.unwrap();
    // SAFETY: a host slice of 3 values; the default stream.
    let s = unsafe { cuda::sum_ptr(xs.as_ptr(), xs.len(), 3, std::ptr::null_mut()) }.unwrap();
    assert_eq!(s, 7.0);
    assert!(
        ctx::get_current().unwrap().is_none(),
        "a pointer call leaves the caller's (no) context current"
    );
    let b = cuda::DeviceBuffer::from_host(&dev, &xs).unwrap();
    assert_eq!(dev.sum(&b).unwrap(), 7.0);
    let mut out = cuda::DeviceBuffer::<f64>::zeroed(&dev, xs.len()).unwrap();
    dev.cumsum(&b, &mut out, 3).unwrap();
    assert_eq!(out.to_host().unwrap(), vec![1.0, 3.0, 7.0]);
    drop((b, out));
    assert!(
        ctx::get_current().unwrap().is_none(),
        "buffers and device methods leave the caller's (no) context current"
    );
    // A saved context is current again after calls made while it is saved.
    {
        let _restore = cuda::RestoreContext::save();
        // SAFETY: as above.
        let s = unsafe { cuda::sum_ptr(xs.as_ptr(), xs.len(), 3, std::ptr::null_mut()) }.unwrap();
        assert_eq!(s, 7.0);
    }
    assert!(ctx::get_current().unwrap().is_none());
}

#[test]
fn segmented_sums_on_the_device() {
    let Some(dev) = device_or_skip("segmented sums on the device") else {
        return;
    };
    let mut t = Tally::default();
    gpu_common::segmented::segmented_checks::<f64>(&dev, &[2, 3, 8, 13], &mut t);
    gpu_common::segmented::segmented_checks::<f32>(&dev, &[3, 6, 21], &mut t);
    gpu_common::segmented::long_checks::<f64>(&dev, &mut t);
    gpu_common::segmented::long_checks::<f32>(&dev, &mut t);
    println!("segmented sums: {} checks passed, {} failed", t.pass, t.fail);
    assert_eq!(t.fail, 0);
}

#[test]
fn segmented_cumsums_on_the_device() {
    let Some(dev) = device_or_skip("segmented cumsums on the device") else {
        return;
    };
    let mut t = Tally::default();
    gpu_common::segcumsum::segmented_cumsum_checks::<f64>(&dev, &[2, 3, 8, 13, 52], false, &mut t);
    gpu_common::segcumsum::segmented_cumsum_checks::<f32>(&dev, &[3, 6, 21], false, &mut t);
    println!("segmented cumsums: {} checks passed, {} failed", t.pass, t.fail);
    assert_eq!(t.fail, 0);
}

/// The same on small layouts at fewer folds: what the sanitizers run.
#[test]
fn segmented_cumsums_small() {
    let Some(dev) = device_or_skip("segmented cumsums (small) on the device") else {
        return;
    };
    let mut t = Tally::default();
    gpu_common::segcumsum::segmented_cumsum_checks::<f64>(&dev, &[3, 13], true, &mut t);
    gpu_common::segcumsum::segmented_cumsum_checks::<f32>(&dev, &[21], true, &mut t);
    println!(
        "segmented cumsums (small): {} checks passed, {} failed",
        t.pass, t.fail
    );
    assert_eq!(t.fail, 0);
}

#[test]
fn keyed_sums_on_the_device() {
    let Some(dev) = device_or_skip("keyed sums on the device") else {
        return;
    };
    let mut t = Tally::default();
    gpu_common::keyed::keyed_checks::<f64>(&dev, &[3, 8, 13], &mut t);
    gpu_common::keyed::keyed_checks::<f32>(&dev, &[3, 21], &mut t);
    println!("keyed sums: {} checks passed, {} failed", t.pass, t.fail);
    assert_eq!(t.fail, 0);
}
