//! The keyed sum (scatter-add) on a device against the core's sum of each key's values
//! alone, by bits: few keys (the shared-memory counts) and many (the key ranges),
//! uniform, skewed and sparse keys, shuffled pairs; bad keys refused with the output
//! untouched, wherever the keys live.

use super::segmented::{poison, reference, values, Rng};
use super::starts::StartFloat;
use super::{Device, DeviceBuffer, GpuFloat, Tally};
use crate::backend as gpu;
use reprosum_gpu::GpuError;

/// Key sets: (name, values, keys, distribution). 0 uniform, 1 skewed (seven in eight values
/// on key 0, the rest uniform), 2 only even keys, 3 sorted uniform.
const CASES: &[(&str, usize, usize, u32)] = &[
    ("few keys", 100_000, 7, 0),
    ("1e3 keys", 200_000, 1000, 0),
    ("4096 keys (the most counted in shared memory)", 300_000, 4096, 0),
    ("4097 keys (the key ranges)", 300_000, 4097, 0),
    ("1e5 keys", 200_000, 100_000, 0),
    ("skewed, 100 keys", 300_000, 100, 1),
    ("skewed, 5000 keys", 300_000, 5000, 1),
    ("even keys only", 50_000, 300, 2),
    ("sorted keys", 100_000, 10_000, 3),
    ("more keys than values", 1000, 50_000, 0),
    // The key-range path's two partition passes (more than 256 ranges at every fold).
    ("3e5 keys (two partition passes)", 600_000, 300_000, 0),
    // Key 0's range takes several accumulation tiles, merged.
    ("skewed, 1e5 keys (tiles merged)", 2_000_000, 100_000, 1),
    ("one value", 1, 3, 0),
    ("no values", 0, 10, 0),
    // More keys than one piece of the host's staged upload (2^19 keys): three pieces.
    (
        "1.2e6 values (host keys staged in three pieces)",
        1_200_000,
        1000,
        0,
    ),
    ("3e6 values, 1e3 keys", 3_000_000, 1000, 0),
];

fn keys_of(rng: &mut Rng, n: usize, nkeys: usize, kind: u32) -> Vec<i64> {
    let mut k: Vec<i64> = (0..n)
        .map(|_| {
            let mut k = rng.below(nkeys as u64);
            if kind == 1 && rng.below(8) != 0 {
                k = 0;
            }
            if kind == 2 {
                k &= !1;
            }
            k as i64
        })
        .collect();
    if kind == 3 {
        k.sort_unstable();
    }
    k
}

/// Every keyed entry point at every fold of `folds` against the core.
pub fn keyed_checks<T: GpuFloat + StartFloat>(dev: &Device, folds: &[usize], t: &mut Tally) {
    let mut rng = Rng(0x5EED_0000_0000_0017 ^ T::BYTES as u64);
    for &(name, n, nkeys, kind) in CASES {
        let xs = values::<T>(&mut rng, n, true);
        let keys = keys_of(&mut rng, n, nkeys, kind);
        // The values of each key, in input order.
        let mut by_key: Vec<Vec<T>> = vec![Vec::new(); nkeys];
        for (&x, &k) in xs.iter().zip(&keys) {
            by_key[k as usize].push(x);
        }
        // The pairs shuffled.
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            perm.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let xs2: Vec<T> = perm.iter().map(|&i| xs[i]).collect();
        let keys2: Vec<i64> = perm.iter().map(|&i| keys[i]).collect();
        let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
        let kd = DeviceBuffer::<i64>::from_host(dev, &keys).unwrap();
        let xd2 = DeviceBuffer::<T>::from_host(dev, &xs2).unwrap();
        let kd2 = DeviceBuffer::<i64>::from_host(dev, &keys2).unwrap();
        for &fold in folds {
            let want: Vec<T> = by_key.iter().map(|v| reference(v, fold)).collect();
            let same = |got: &[T]| {
                got.len() == want.len() && got.iter().zip(&want).all(|(g, w)| g.bits() == w.bits())
            };
            let what = |how: &str| format!("keyed sum {} {name} fold {fold} ({how})", T::NAME);
            let fresh = || DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); nkeys]).unwrap();
            let mut outd = fresh();
            let r = dev.sum_by_key(&xd, &kd, &mut outd, fold);
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!("{} {r:?}", what("buffers"))
            });
            let mut outd = fresh();
            let r = dev.sum_by_key(&xd2, &kd2, &mut outd, fold);
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!("{} {r:?}", what("shuffled pairs"))
            });
            let mut outh = vec![poison::<T>(); nkeys];
            let r = dev.sum_by_key_host(&xs2, &keys2, &mut outh, fold, gpu::Stream::DEFAULT);
            t.check(r.is_ok() && same(&outh), || format!("{} {r:?}", what("host")));
            // Pointers: device values, keys and sums; device values and sums with host keys;
            // everything on the host.
            let outd = fresh();
            // SAFETY: the buffers hold n values, n keys and nkeys sums on device 0.
            let r = unsafe {
                gpu::sum_by_key_ptr::<T>(
                    xd.device_ptr() as *const T,
                    kd.device_ptr() as *const i64,
                    n,
                    nkeys,
                    fold,
                    outd.device_ptr() as *mut T,
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!("{} {r:?}", what("device pointers"))
            });
            let outd = fresh();
            // SAFETY: as above, the keys on the host.
            let r = unsafe {
                gpu::sum_by_key_ptr::<T>(
                    xd.device_ptr() as *const T,
                    keys.as_ptr(),
                    n,
                    nkeys,
                    fold,
                    outd.device_ptr() as *mut T,
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!("{} {r:?}", what("host keys"))
            });
            let mut outh = vec![poison::<T>(); nkeys];
            // SAFETY: host slices of the lengths given.
            let r = unsafe {
                gpu::sum_by_key_ptr::<T>(
                    xs.as_ptr(),
                    keys.as_ptr(),
                    n,
                    nkeys,
                    fold,
                    outh.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&outh), || {
                format!("{} {r:?}", what("host pointers"))
            });
        }
    }
    bad_key_checks::<T>(dev, t);
}

/// Keys out of range (found on the host for host keys, on the device for device keys),
/// lengths that do not match, no keys at all: the errors, every output untouched.
fn bad_key_checks<T: GpuFloat + StartFloat>(dev: &Device, t: &mut Tally) {
    let mut rng = Rng(0xBAD0_0000_0000_0017);
    let oob = GpuError::Core(reprosum_core::Error::KeyOutOfRange);
    let untouched = |v: &[T]| v.iter().all(|x| x.bits() == poison::<T>().bits());
    // (values, keys, the bad key's position and value)
    for (n, nkeys, at, bad) in [
        (10_000usize, 100usize, 5000usize, -1i64),
        (10_000, 100, 9999, 100),
        (10_000, 100, 0, i64::MIN),
        (50_000, 10_000, 777, 10_000),
        (50_000, 10_000, 49_999, -5),
        // Host keys staged in three pieces of 2^19: the bad key in the second and the third.
        (1_200_000, 1000, 600_000, -7),
        (1_200_000, 1000, 1_100_000, 1000),
    ] {
        let xs = values::<T>(&mut rng, n, false);
        let mut keys: Vec<i64> = (0..n).map(|_| rng.below(nkeys as u64) as i64).collect();
        keys[at] = bad;
        let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
        let kd = DeviceBuffer::<i64>::from_host(dev, &keys).unwrap();
        let what = format!("keyed sum {} key {bad} at {at} of {n} ({nkeys} keys)", T::NAME);
        let mut outd = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); nkeys]).unwrap();
        let r = dev.sum_by_key(&xd, &kd, &mut outd, 3);
        t.check(
            r.as_ref().err() == Some(&oob) && untouched(&outd.to_host().unwrap()),
            || format!("{what} (buffers): {r:?}"),
        );
        // SAFETY: the buffers hold n values, n keys and nkeys sums on device 0.
        let r = unsafe {
            gpu::sum_by_key_ptr::<T>(
                xd.device_ptr() as *const T,
                kd.device_ptr() as *const i64,
                n,
                nkeys,
                3,
                outd.device_ptr() as *mut T,
                std::ptr::null_mut(),
            )
        };
        t.check(
            r.as_ref().err() == Some(&oob) && untouched(&outd.to_host().unwrap()),
            || format!("{what} (device pointers): {r:?}"),
        );
        // SAFETY: as above, the keys on the host.
        let r = unsafe {
            gpu::sum_by_key_ptr::<T>(
                xd.device_ptr() as *const T,
                keys.as_ptr(),
                n,
                nkeys,
                3,
                outd.device_ptr() as *mut T,
                std::ptr::null_mut(),
            )
        };
        t.check(
            r.as_ref().err() == Some(&oob) && untouched(&outd.to_host().unwrap()),
            || format!("{what} (host keys): {r:?}"),
        );
        let mut outh = vec![poison::<T>(); nkeys];
        let r = dev.sum_by_key_host(&xs, &keys, &mut outh, 3, gpu::Stream::DEFAULT);
        t.check(r.as_ref().err() == Some(&oob) && untouched(&outh), || {
            format!("{what} (host): {r:?}")
        });
        // The next call on the same workspace is right again.
        keys[at] = 0;
        let kd = DeviceBuffer::<i64>::from_host(dev, &keys).unwrap();
        let r = dev.sum_by_key(&xd, &kd, &mut outd, 3);
        let mut k0 = Vec::new();
        for (&x, &k) in xs.iter().zip(&keys) {
            if k == 0 {
                k0.push(x);
            }
        }
        t.check(
            r.is_ok() && outd.to_host().unwrap()[0].bits() == reference(&k0, 3).bits(),
            || format!("{what} (fixed, then again): {r:?}"),
        );
    }
    let xs = values::<T>(&mut rng, 100, false);
    let keys = vec![0i64; 99];
    let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
    let kd = DeviceBuffer::<i64>::from_host(dev, &keys).unwrap();
    let mut outd = DeviceBuffer::<T>::from_host(dev, &[poison::<T>(); 4]).unwrap();
    let r = dev.sum_by_key(&xd, &kd, &mut outd, 3);
    t.check(
        r.as_ref().err() == Some(&GpuError::LengthMismatch) && untouched(&outd.to_host().unwrap()),
        || format!("keyed sum {}: 99 keys for 100 values: {r:?}", T::NAME),
    );
    let mut outh = [poison::<T>(); 4];
    let r = dev.sum_by_key_host(&xs, &keys, &mut outh, 3, gpu::Stream::DEFAULT);
    t.check(
        r.as_ref().err() == Some(&GpuError::LengthMismatch) && untouched(&outh),
        || format!("keyed sum {}: 99 keys for 100 values (host): {r:?}", T::NAME),
    );
    let r = dev.sum_by_key(&xd, &kd, &mut outd, 99);
    t.check(
        matches!(r, Err(GpuError::UnsupportedFold(_))) && untouched(&outd.to_host().unwrap()),
        || format!("keyed sum {}: fold 99: {r:?}", T::NAME),
    );
    // No keys: with values, every key is out of range; without, nothing to do.
    let kd = DeviceBuffer::<i64>::from_host(dev, &vec![0i64; 100]).unwrap();
    let mut none = DeviceBuffer::<T>::from_host(dev, &[]).unwrap();
    let r = dev.sum_by_key(&xd, &kd, &mut none, 3);
    t.check(r.as_ref().err() == Some(&oob), || {
        format!("keyed sum {}: no keys: {r:?}", T::NAME)
    });
    let r = dev.sum_by_key_host::<T>(&[], &[], &mut [], 3, gpu::Stream::DEFAULT);
    t.check(r.is_ok(), || format!("keyed sum {}: nothing: {r:?}", T::NAME));
}
