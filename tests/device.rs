//! The device dispatch: the CPU gives the core's bits; a GPU this build or machine lacks is
//! an error value, with nothing written.

use reprosum::{cumsum_on, sum_on, Device, DeviceError};

#[test]
fn cpu_device_is_the_parallel_sum() {
    let x: Vec<f64> = (0..10_000).map(|i| (i as f64 * 0.37).sin() * 1e6).collect();
    for k in [2, 3, 8] {
        assert_eq!(
            sum_on(Device::Cpu, &x, k).unwrap().to_bits(),
            reprosum::sum_fold(&x, k).unwrap().to_bits()
        );
        let mut a = vec![0.0; x.len()];
        let mut b = vec![0.0; x.len()];
        cumsum_on(Device::Cpu, &x, &mut a, k).unwrap();
        reprosum::cumsum_fold(&x, &mut b, k).unwrap();
        assert!(a.iter().zip(&b).all(|(p, q)| p.to_bits() == q.to_bits()));
    }
}

#[test]
fn device_names_parse() {
    assert_eq!("cpu".parse::<Device>(), Ok(Device::Cpu));
    assert_eq!("cuda".parse::<Device>(), Ok(Device::Cuda(0)));
    assert_eq!("cuda:3".parse::<Device>(), Ok(Device::Cuda(3)));
    assert_eq!("hip:1".parse::<Device>(), Ok(Device::Hip(1)));
    for bad in ["gpu", "cpu:1", "cuda:x", "cuda:", ""] {
        assert!(bad.parse::<Device>().is_err(), "{bad:?}");
    }
    assert_eq!(Device::Cuda(2).to_string(), "cuda:2");
}

#[test]
fn a_missing_gpu_is_an_error_and_writes_nothing() {
    let x = [1.0f32, 2.0, 3.0];
    let mut out = [f32::from_bits(0xDEAD_BEEF); 3];
    for d in [Device::Cuda(0), Device::Hip(0)] {
        match sum_on(d, &x, 3) {
            Ok(v) => {
                // A machine with a working GPU: the bits must be the core's.
                println!("{d}: a device is present; checking bits instead");
                assert_eq!(v.to_bits(), reprosum::sum(&x).unwrap().to_bits());
                continue;
            }
            Err(e) => {
                println!("{d}: {e}");
                #[cfg(not(any(feature = "cuda", feature = "hip")))]
                assert!(matches!(e, DeviceError::NotBuilt(_)), "{e:?}");
                #[cfg(any(feature = "cuda", feature = "hip"))]
                assert!(
                    matches!(e, DeviceError::NotBuilt(_) | DeviceError::Gpu(_)),
                    "{e:?}"
                );
            }
        }
        assert!(cumsum_on(d, &x, &mut out, 3).is_err());
        assert!(out.iter().all(|v| v.to_bits() == 0xDEAD_BEEF));
    }
    // Bad folds are refused before any device is touched.
    assert!(matches!(
        sum_on(Device::Cuda(0), &x, 1),
        Err(DeviceError::Core(reprosum::Error::InvalidFold))
    ));
}

/// `cumsum_from_on` on the CPU continues a cumulative sum block by block with the bits of
/// the whole; on a GPU this build or machine lacks it is an error with nothing written; the
/// pointer functions of a missing back end are errors of the kind `NotBuilt` or `NoDevice`.
#[test]
fn cumsum_from_on_and_the_pointer_functions() {
    use reprosum::{Backend, DeviceErrorKind, DynAccumulator};
    let x: Vec<f64> = (0..50_000).map(|i| (i as f64 * 0.61).cos() * 1e9).collect();
    let mut whole = vec![0.0; x.len()];
    reprosum::cumsum_fold(&x, &mut whole, 5).unwrap();
    let mut got = vec![0.0; x.len()];
    let mut acc = DynAccumulator::<f64>::new(5).unwrap();
    for (xs, out) in x.chunks(17_000).zip(got.chunks_mut(17_000)) {
        acc = reprosum::cumsum_from_on(Device::Cpu, &acc, xs, out).unwrap();
    }
    assert!(got.iter().zip(&whole).all(|(a, b)| a.to_bits() == b.to_bits()));
    assert_eq!(acc.count(), x.len() as u64);
    assert_eq!(acc.value().to_bits(), whole[x.len() - 1].to_bits());
    let mut out = [f64::from_bits(0x7FF4_DEAD_BEEF_0001); 3];
    assert!(matches!(
        reprosum::cumsum_from_on(Device::Cpu, &acc, &x[..2], &mut out),
        Err(DeviceError::Core(reprosum::Error::LengthMismatch))
    ));
    for (d, b) in [(Device::Cuda(0), Backend::Cuda), (Device::Hip(0), Backend::Hip)] {
        let empty = DynAccumulator::<f64>::new(3).unwrap();
        match reprosum::cumsum_from_on(d, &empty, &x[..3], &mut out) {
            Ok(_) => println!("{d}: a device is present; the GPU tests check the bits"),
            Err(e) => {
                println!("{d}: {e}");
                assert!(out.iter().all(|v| v.to_bits() == 0x7FF4_DEAD_BEEF_0001));
                assert!(
                    matches!(e.kind(), DeviceErrorKind::NotBuilt | DeviceErrorKind::NoDevice),
                    "{e:?}"
                );
                // SAFETY: a host slice of 3 values; no stream.
                let s = unsafe { reprosum::sum_ptr(b, x.as_ptr(), 3, 3, std::ptr::null_mut()) };
                assert_eq!(s.unwrap_err().kind(), e.kind());
                let mut a = empty;
                // SAFETY: as above.
                let r = unsafe { reprosum::add_ptr(b, &mut a, x.as_ptr(), 3, std::ptr::null_mut()) };
                assert_eq!(r.unwrap_err().kind(), e.kind());
                assert_eq!(a.count(), 0, "unchanged on error");
            }
        }
    }
}
