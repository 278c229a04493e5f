//! The segmented cumulative sum on a device against the core's cumsum of each segment
//! alone, by bits (`reprosum_core::cumsum_fold`): every entry point, out of place and in
//! place, host and device offsets; shuffled segments; bad input refused with the output
//! untouched.

use super::segmented::{poison, values, Rng};
use super::starts::StartFloat;
use super::{Device, DeviceBuffer, GpuFloat, Tally};
use crate::backend as gpu;
use reprosum_gpu::GpuError;

/// Segment lengths: short ones with empties, one long segment (many tiles), lengths around
/// the tile sizes, single values, all empty, and a skewed mix; `small`: a tenth of the values
/// or fewer (for the sanitizers).
fn layouts(rng: &mut Rng, small: bool) -> Vec<(&'static str, Vec<usize>)> {
    let scale = if small { 10 } else { 1 };
    let mut short = Vec::new();
    for _ in 0..2000 / scale {
        short.push(match rng.below(10) {
            0 | 1 => 0,
            2 => 1,
            _ => 1 + rng.below(64) as usize,
        });
    }
    let mut skewed = Vec::new();
    for i in 0..300 {
        skewed.push(if i % 97 == 0 {
            (40_000 + rng.below(20_000) as usize) / scale
        } else {
            rng.below(8) as usize
        });
    }
    vec![
        ("short with empties", short),
        ("one long", vec![1_000_003 / scale]),
        (
            "tile sizes",
            vec![2047, 2048, 2049, 4095, 4096, 4097, 0, 1, 8191, 8192, 8193, 0, 0],
        ),
        ("single values", vec![1; 5000 / scale]),
        ("all empty", vec![0; 17]),
        ("skewed", skewed),
        ("no segments", vec![]),
    ]
}

fn offsets_of(lens: &[usize]) -> Vec<usize> {
    let mut o = vec![0usize];
    for &l in lens {
        o.push(o.last().unwrap() + l);
    }
    o
}

/// The core's running sums of each segment alone.
fn reference<T: GpuFloat>(xs: &[T], off: &[usize], fold: usize) -> Vec<T> {
    let mut out = vec![poison::<T>(); xs.len()];
    for w in off.windows(2) {
        reprosum_core::cumsum_fold(&xs[w[0]..w[1]], &mut out[w[0]..w[1]], fold).unwrap();
    }
    out
}

/// Every segmented-cumsum entry point at every fold of `folds` against the core (`small`:
/// the small layouts).
pub fn segmented_cumsum_checks<T: GpuFloat + StartFloat>(
    dev: &Device,
    folds: &[usize],
    small: bool,
    t: &mut Tally,
) {
    let mut rng = Rng(0x5EED_0000_0000_00C5 ^ T::BYTES as u64);
    for (name, lens) in layouts(&mut rng, small) {
        let off = offsets_of(&lens);
        let nseg = lens.len();
        let n = *off.last().unwrap();
        let xs = values::<T>(&mut rng, n, true);
        let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
        let offd: Vec<u64> = off.iter().map(|&o| o as u64).collect();
        let offb = DeviceBuffer::<u64>::from_host(dev, &offd).unwrap();
        let fresh = || DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); n]).unwrap();
        for &fold in folds {
            let want = reference(&xs, &off, fold);
            let same = |got: &[T]| got.len() == n && got.iter().zip(&want).all(|(g, w)| g.bits() == w.bits());
            let what = |how: &str| format!("segmented cumsum {} {name} fold {fold} ({how})", T::NAME);
            let mut outd = fresh();
            let r = dev.segmented_cumsum(&xd, &off, &mut outd, fold);
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!("{} {r:?}", what("buffers"))
            });
            let mut ipd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
            let r = dev.segmented_cumsum_in_place(&mut ipd, &off, fold);
            t.check(r.is_ok() && same(&ipd.to_host().unwrap()), || {
                format!("{} {r:?}", what("buffer in place"))
            });
            let mut outh = vec![poison::<T>(); n];
            let r = dev.segmented_cumsum_host(&xs, &off, &mut outh, fold, gpu::Stream::DEFAULT);
            t.check(r.is_ok() && same(&outh), || format!("{} {r:?}", what("host")));
            // Pointers: device values with device offsets, in place with device offsets, with
            // host offsets; host values out of place and in place.
            let outd = fresh();
            // SAFETY: the buffers hold n values and nseg + 1 offsets on device 0.
            let r = unsafe {
                gpu::segmented_cumsum_ptr::<T>(
                    xd.device_ptr() as *const T,
                    outd.device_ptr() as *mut T,
                    offb.device_ptr() as *const usize,
                    nseg,
                    fold,
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!("{} {r:?}", what("device pointers"))
            });
            let ipd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
            // SAFETY: as above, in place.
            let r = unsafe {
                gpu::segmented_cumsum_ptr::<T>(
                    ipd.device_ptr() as *const T,
                    ipd.device_ptr() as *mut T,
                    offb.device_ptr() as *const usize,
                    nseg,
                    fold,
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&ipd.to_host().unwrap()), || {
                format!("{} {r:?}", what("device pointers in place"))
            });
            let outd = fresh();
            // SAFETY: as above, the offsets on the host.
            let r = unsafe {
                gpu::segmented_cumsum_ptr::<T>(
                    xd.device_ptr() as *const T,
                    outd.device_ptr() as *mut T,
                    off.as_ptr(),
                    nseg,
                    fold,
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!("{} {r:?}", what("host offsets"))
            });
            let mut outh = vec![poison::<T>(); n];
            // SAFETY: host slices of n values, nseg + 1 offsets and n running sums.
            let r = unsafe {
                gpu::segmented_cumsum_ptr::<T>(
                    xs.as_ptr(),
                    outh.as_mut_ptr(),
                    off.as_ptr(),
                    nseg,
                    fold,
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&outh), || {
                format!("{} {r:?}", what("host pointers"))
            });
            let mut iph = xs.clone();
            // SAFETY: as above, in place.
            let r = unsafe {
                gpu::segmented_cumsum_ptr::<T>(
                    iph.as_ptr(),
                    iph.as_mut_ptr(),
                    off.as_ptr(),
                    nseg,
                    fold,
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&iph), || {
                format!("{} {r:?}", what("host pointers in place"))
            });
        }
        // Each segment's last running sum is its sum: the multiset in another order within
        // each segment gives the same last values.
        let mut ys = xs.clone();
        for w in off.windows(2) {
            let s = &mut ys[w[0]..w[1]];
            for j in (1..s.len()).rev() {
                s.swap(j, rng.below(j as u64 + 1) as usize);
            }
        }
        let mut a = vec![poison::<T>(); n];
        let mut b = vec![poison::<T>(); n];
        let ra = dev.segmented_cumsum_host(&xs, &off, &mut a, 3, gpu::Stream::DEFAULT);
        let rb = dev.segmented_cumsum_host(&ys, &off, &mut b, 3, gpu::Stream::DEFAULT);
        t.check(
            ra.is_ok()
                && rb.is_ok()
                && off
                    .windows(2)
                    .filter(|w| w[1] > w[0])
                    .all(|w| a[w[1] - 1].bits() == b[w[1] - 1].bits()),
            || {
                format!(
                    "segmented cumsum {} {name}: shuffled segments' totals differ",
                    T::NAME
                )
            },
        );
    }
    bad_input_checks::<T>(dev, t);
}

fn bad_input_checks<T: GpuFloat + StartFloat>(dev: &Device, t: &mut Tally) {
    let xs = vec![T::of(1.0); 10];
    let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
    let untouched = |v: &[T]| v.iter().all(|x| x.bits() == poison::<T>().bits());
    let bad = GpuError::Core(reprosum_core::Error::InvalidOffsets);
    for off in [
        vec![0usize, 3, 2, 10],
        vec![1, 10],
        vec![0, 4, 9],
        vec![0, 4, 11],
        vec![],
    ] {
        let nseg = off.len().max(1) - 1;
        let mut o = DeviceBuffer::<T>::from_host(dev, &[poison::<T>(); 10]).unwrap();
        let r = dev.segmented_cumsum(&xd, &off, &mut o, 3);
        t.check(
            r.as_ref().err() == Some(&bad) && untouched(&o.to_host().unwrap()),
            || {
                format!(
                    "segmented cumsum {} bad offsets {off:?} (buffers): {r:?}",
                    T::NAME
                )
            },
        );
        // The pointer forms take the last offset as the length: [0, 4, 9] is good there, and
        // [0, 4, 11] would read past the buffer.
        if off.len() < 2 || off.last() == Some(&9) || off.last() == Some(&11) {
            continue;
        }
        let offd: Vec<u64> = off.iter().map(|&o| o as u64).collect();
        let offb = DeviceBuffer::<u64>::from_host(dev, &offd).unwrap();
        let mut outh = vec![poison::<T>(); 10];
        // SAFETY: the offsets are refused before any value is read or written.
        let (r1, r2) = unsafe {
            (
                gpu::segmented_cumsum_ptr::<T>(
                    xd.device_ptr() as *const T,
                    o.device_ptr() as *mut T,
                    offb.device_ptr() as *const usize,
                    nseg,
                    3,
                    std::ptr::null_mut(),
                ),
                gpu::segmented_cumsum_ptr::<T>(
                    xs.as_ptr(),
                    outh.as_mut_ptr(),
                    off.as_ptr(),
                    nseg,
                    3,
                    std::ptr::null_mut(),
                ),
            )
        };
        t.check(
            r1.as_ref().err() == Some(&bad) && untouched(&o.to_host().unwrap()),
            || format!("segmented cumsum {} bad device offsets {off:?}: {r1:?}", T::NAME),
        );
        t.check(r2.as_ref().err() == Some(&bad) && untouched(&outh), || {
            format!("segmented cumsum {} bad host offsets {off:?}: {r2:?}", T::NAME)
        });
    }
    let mut short = DeviceBuffer::<T>::from_host(dev, &[poison::<T>(); 3]).unwrap();
    let r = dev.segmented_cumsum(&xd, &[0, 10], &mut short, 3);
    t.check(r == Err(GpuError::LengthMismatch), || {
        format!("out shorter than x: {r:?}")
    });
    let mut o = DeviceBuffer::<T>::from_host(dev, &[poison::<T>(); 10]).unwrap();
    let r = dev.segmented_cumsum(&xd, &[0, 10], &mut o, 99);
    t.check(r == Err(GpuError::UnsupportedFold(99)), || {
        format!("fold 99: {r:?}")
    });
    // Overlap other than out == input, on the device and on the host, and the output over
    // the offsets.
    let both = DeviceBuffer::<T>::from_host(dev, &[T::of(1.0); 12]).unwrap();
    let off = [0usize, 5, 10];
    // SAFETY: 12 values in the buffer: the ranges [0, 10) and [1, 11) lie within it; the
    // overlap is refused before any launch.
    let r = unsafe {
        gpu::segmented_cumsum_ptr::<T>(
            both.device_ptr() as *const T,
            (both.device_ptr() as *mut T).add(1),
            off.as_ptr(),
            2,
            3,
            std::ptr::null_mut(),
        )
    };
    t.check(matches!(r, Err(GpuError::Overlap(_))), || {
        format!("device overlap: {r:?}")
    });
    let mut host = vec![T::of(1.0); 12];
    let before: Vec<u64> = host.iter().map(|x| x.bits()).collect();
    let p = host.as_mut_ptr();
    // SAFETY: as above, in host memory.
    let r = unsafe { gpu::segmented_cumsum_ptr::<T>(p.add(1), p, off.as_ptr(), 2, 3, std::ptr::null_mut()) };
    t.check(
        matches!(r, Err(GpuError::Overlap(_))) && host.iter().map(|x| x.bits()).eq(before.iter().copied()),
        || format!("host overlap: {r:?}"),
    );
    let mut words = [0usize, 2, 4, 0, 0, 0];
    let w = words.as_mut_ptr();
    let xs2 = [T::of(1.0); 4];
    // SAFETY: the output would cover the offsets; refused before anything is written.
    let r =
        unsafe { gpu::segmented_cumsum_ptr::<T>(xs2.as_ptr(), w.cast::<T>(), w, 2, 3, std::ptr::null_mut()) };
    t.check(
        matches!(r, Err(GpuError::Overlap(_))) && words[..3] == [0, 2, 4],
        || format!("output over the offsets: {r:?}"),
    );
    // A segment past an f32 accumulator's capacity, found on the device from device offsets.
    if T::BYTES == 4 {
        let big = <T as reprosum_core::Float>::CAPACITY + 1;
        let offb = DeviceBuffer::<u64>::from_host(dev, &[0, big]).unwrap();
        // SAFETY: the values are not read: the capacity check on the device refuses first.
        let r = unsafe {
            gpu::segmented_cumsum_ptr::<T>(
                xd.device_ptr() as *const T,
                o.device_ptr() as *mut T,
                offb.device_ptr() as *const usize,
                1,
                3,
                std::ptr::null_mut(),
            )
        };
        t.check(
            r == Err(GpuError::CapacityExceeded) && untouched(&o.to_host().unwrap()),
            || format!("f32 capacity on the device: {r:?}"),
        );
    }
}
