//! The keyed sum reports a refused allocation as `Error::OutOfMemory`, with `out` untouched,
//! wherever it comes: every allocation of a call on the calling thread is refused in turn
//! (a global allocator of this test binary refuses the k-th allocation of the thread that
//! asks it to). The facade's pool has one thread: everything runs on the calling thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use reprosum::Error;

struct Refusing;

thread_local! {
    /// On this thread: how many allocations to grant before refusing every one (`None`:
    /// refuse none).
    static GRANT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Whether this allocation is refused (counting it when granted).
fn refuse() -> bool {
    GRANT
        .try_with(|g| match g.get() {
            Some(0) => true,
            Some(k) => {
                g.set(Some(k - 1));
                false
            }
            None => false,
        })
        .unwrap_or(false)
}

// SAFETY: every call is passed to `System`, which upholds `GlobalAlloc`'s contract, or
// answered with a null pointer, which the contract allows for a refused allocation.
unsafe impl GlobalAlloc for Refusing {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if refuse() {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's promises about `layout` are passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if refuse() {
            return std::ptr::null_mut();
        }
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if refuse() {
            return std::ptr::null_mut();
        }
        // SAFETY: `ptr` came from `System` (every allocation here does), as the caller
        // promises it came from this allocator with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for `realloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Refusing = Refusing;

fn values(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i * 7919) % 1000) as f64 * 0.37 - 185.0)
        .collect()
}

/// Every allocation of a keyed sum refused in turn: `OutOfMemory` and `out` untouched, until
/// enough are granted and the sums come out right. Over 1e4 and more keys: the sums by
/// buckets of keys; over 1e3 keys, the per-key buffers.
#[test]
fn every_refused_allocation_is_out_of_memory() {
    // Everything on the calling thread, whatever the size.
    reprosum::set_num_threads(1).unwrap();
    let poison = f64::from_bits(0x7FF4_DEAD_BEEF_0001);
    // The last: a bucket too large to sort in the cache (nine values in ten to 300 of the
    // 5000 keys), summed through per-key buffers.
    for (n, nkeys, low) in [
        (100_000usize, 1_000usize, 1_000),
        (100_000, 10_000, 10_000),
        (100_000, 100_000, 100_000),
        (300_000, 5000, 300),
    ] {
        let xs = values(n);
        let keys: Vec<i64> = (0..n)
            .map(|i| ((i * 104_729) % if i % 10 == 0 { nkeys } else { low }) as i64)
            .collect();
        let mut want = vec![0.0; nkeys];
        reprosum::sum_by_key(&xs, &keys, &mut want).unwrap();
        let mut out = vec![poison; nkeys];
        let mut refused = 0;
        for grant in 0.. {
            assert!(grant < 100_000, "{nkeys} keys: no end to the allocations");
            GRANT.with(|g| g.set(Some(grant)));
            let got = reprosum::sum_by_key(&xs, &keys, &mut out);
            GRANT.with(|g| g.set(None));
            match got {
                Err(Error::OutOfMemory) => {
                    assert!(out.iter().all(|x| x.to_bits() == poison.to_bits()));
                    refused += 1;
                }
                Ok(()) => break,
                Err(e) => panic!("{nkeys} keys, {grant} granted: {e:?}"),
            }
        }
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&out), bits(&want), "{nkeys} keys");
        assert!(refused >= 3, "{nkeys} keys: only {refused} allocations");
    }
}

/// The same for the accumulator form by buckets of keys (1e4 and 1e5 keys): `OutOfMemory`
/// with every accumulator as it was, until the adds come out right.
#[test]
fn every_refused_allocation_of_add_by_key_changes_nothing() {
    use reprosum::DynAccumulator;
    reprosum::set_num_threads(1).unwrap();
    let enc = |accs: &[DynAccumulator<f64>]| {
        accs.iter()
            .map(|a| a.to_bytes().as_bytes().to_vec())
            .collect::<Vec<_>>()
    };
    for (n, nkeys) in [(100_000usize, 10_000usize), (100_000, 100_000)] {
        let xs = values(n);
        let keys: Vec<i64> = (0..n).map(|i| ((i * 104_729) % nkeys) as i64).collect();
        let mut start = DynAccumulator::<f64>::new(3).unwrap();
        start.add(0.25).unwrap();
        let mut want = vec![start; nkeys];
        reprosum::add_by_key(&xs, &keys, &mut want).unwrap();
        let mut accs = vec![start; nkeys];
        let before = enc(&accs);
        let mut refused = 0;
        for grant in 0.. {
            assert!(grant < 100_000, "{nkeys} keys: no end to the allocations");
            GRANT.with(|g| g.set(Some(grant)));
            let got = reprosum::add_by_key(&xs, &keys, &mut accs);
            GRANT.with(|g| g.set(None));
            match got {
                Err(Error::OutOfMemory) => {
                    assert!(enc(&accs) == before, "{nkeys} keys, {grant} granted: changed");
                    refused += 1;
                }
                Ok(()) => break,
                Err(e) => panic!("{nkeys} keys, {grant} granted: {e:?}"),
            }
        }
        assert!(enc(&accs) == enc(&want), "{nkeys} keys");
        assert!(refused >= 3, "{nkeys} keys: only {refused} allocations");
    }
}
