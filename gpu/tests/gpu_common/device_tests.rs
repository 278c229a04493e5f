// The device tests that the CUDA and HIP suites share, included by `tests/cuda.rs` and
// `tests/hip.rs` (each names its back end in its module `backend`). Each test prints why
// it skips where there is no driver, runtime or device, and on a device compares every
// result with the core by bits.

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
    let buf = backend::DeviceBuffer::from_host(&dev, &xs).unwrap();
    assert_eq!(
        backend::memory_of(buf.device_ptr() as *const _).unwrap(),
        backend::Memory::Device(0)
    );
    assert_eq!(
        backend::memory_of(xs.as_ptr() as *const _).unwrap(),
        backend::Memory::Host
    );
    // SAFETY: a device buffer of xs.len() values; a host slice; the default stream.
    let (d, h) = unsafe {
        (
            backend::sum_ptr(buf.device_ptr() as *const f64, xs.len(), 3, std::ptr::null_mut()).unwrap(),
            backend::sum_ptr(xs.as_ptr(), xs.len(), 3, std::ptr::null_mut()).unwrap(),
        )
    };
    assert_eq!(d.to_bits(), want.to_bits());
    assert_eq!(h.to_bits(), want.to_bits());
    // Device to device (poisoned output), host to host, and in place on the device.
    let mut out = backend::DeviceBuffer::<f64>::zeroed(&dev, xs.len()).unwrap();
    out.fill_bytes(0xA5).unwrap();
    let mut hout = vec![f64::from_bits(0xA5A5_A5A5_A5A5_A5A5); xs.len()];
    let inplace = backend::DeviceBuffer::from_host(&dev, &xs).unwrap();
    // SAFETY: buffers of xs.len() values each.
    unsafe {
        backend::cumsum_ptr(
            buf.device_ptr() as *const f64,
            out.device_ptr() as *mut f64,
            xs.len(),
            3,
            std::ptr::null_mut(),
        )
        .unwrap();
        backend::cumsum_ptr(xs.as_ptr(), hout.as_mut_ptr(), xs.len(), 3, std::ptr::null_mut()).unwrap();
        let p = inplace.device_ptr() as *mut f64;
        backend::cumsum_ptr(p, p, xs.len(), 3, std::ptr::null_mut()).unwrap();
    }
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&out.to_host().unwrap()), bits(&want_c));
    assert_eq!(bits(&hout), bits(&want_c));
    assert_eq!(bits(&inplace.to_host().unwrap()), bits(&want_c));
    // Host input with device output: refused, output untouched.
    // SAFETY: as above.
    let r = unsafe {
        backend::cumsum_ptr(
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
    gpu_common::segmented::dense_checks::<f64>(&dev, &mut t);
    gpu_common::segmented::dense_checks::<f32>(&dev, &mut t);
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
