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

// The device tests both back ends run (their names and bodies are the same for both).
include!("gpu_common/device_tests.rs");
