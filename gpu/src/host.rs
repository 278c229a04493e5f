//! Host-side helpers both back ends use: fallible host allocations, the kernels' layout of a
//! start state, and adding a device accumulator to a caller's one. No GPU is needed here,
//! so these are unit-tested on any machine.

use reprosum_core::{encoding, DynAccumulator, Float};

use crate::GpuError;

/// Bytes of the largest state the kernels store (f64 at its largest fold, 52: 2 * 52 + 1
/// slots of 8 bytes; f32's largest, 2 * 21 + 1 slots of 4 bytes, is smaller).
pub(crate) const MAX_STATE_BYTES: usize = (2 * <f64 as Float>::MAX_FOLD + 1) * 8;
const _: () = assert!((2 * <f32 as Float>::MAX_FOLD + 1) * 4 <= MAX_STATE_BYTES);

fn no_memory<T>(n: usize) -> GpuError {
    GpuError::HostOutOfMemory {
        bytes: n.saturating_mul(core::mem::size_of::<T>()),
    }
}

/// `n` copies of `v` in a new host vector; [`GpuError::HostOutOfMemory`] (not an abort) when
/// it cannot be allocated.
pub(crate) fn host_vec<T: Clone>(n: usize, v: T) -> Result<Vec<T>, GpuError> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| no_memory::<T>(n))?;
    out.resize(n, v);
    Ok(out)
}

/// [`GpuError::CapacityExceeded`] unless an accumulator holding `count` values can take `n`
/// more (the core's rule: the counts together at most `T::CAPACITY`).
pub(crate) fn check_room<T: Float>(count: u64, n: usize) -> Result<(), GpuError> {
    if n as u64 > T::CAPACITY - count.min(T::CAPACITY) {
        return Err(GpuError::CapacityExceeded);
    }
    Ok(())
}

/// Writes `acc`'s state in the kernels' stored layout (K primaries, K carries, then a slot
/// whose bits are the flags: bit 0 NaN, bit 1 +Inf, bit 2 -Inf; little-endian) to the front
/// of `out` and returns its length in bytes, `(2K + 1) * T::BYTES`. The primaries and
/// carries are the core's encoding's, so they are renormalised, as every state the kernels
/// store and merge is. Every fold fits (`MAX_STATE_BYTES`).
pub(crate) fn kernel_state<T: Float>(acc: &DynAccumulator<T>, out: &mut [u8; MAX_STATE_BYTES]) -> usize {
    let enc = acc.to_bytes();
    let b = enc.as_bytes();
    let body = 2 * acc.fold() * T::BYTES;
    let len = body + T::BYTES;
    debug_assert!(len <= MAX_STATE_BYTES, "fold {} is not a GPU fold", acc.fold());
    out[..body].copy_from_slice(&b[encoding::HEADER_LEN..encoding::HEADER_LEN + body]);
    out[body..len].fill(0);
    // The encoding's flags byte (offset 7) has the kernels' flag bits.
    out[body] = b[7];
    len
}

/// Adds to `acc` the accumulator a device computed for more values at `acc`'s fold (the
/// exact merge: the bytes `acc.add_slice` of the same values gives). `acc` is unchanged on
/// error.
pub(crate) fn add_part<T: Float>(
    acc: &mut DynAccumulator<T>,
    part: &DynAccumulator<T>,
) -> Result<(), GpuError> {
    let mut merged = *acc;
    merged.merge(part)?;
    *acc = merged;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le(b: &[u8]) -> u64 {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(w)
    }

    /// Rebuilds a version-1 encoding from the kernel layout (what the hosts' state decoding
    /// does with a state the kernels wrote) and checks it decodes to the same bytes.
    fn round_trip<T: Float>(acc: &DynAccumulator<T>) {
        let mut st = [0xA5u8; MAX_STATE_BYTES];
        let len = kernel_state(acc, &mut st);
        let k = acc.fold();
        assert_eq!(len, (2 * k + 1) * T::BYTES);
        let flags = le(&st[2 * k * T::BYTES..len]);
        assert!(flags < 8, "flags slot {flags:#x}");
        let mut v1 = Vec::new();
        v1.extend_from_slice(&encoding::MAGIC);
        v1.push(encoding::VERSION_1);
        v1.push(T::DTYPE.code());
        v1.push(k as u8);
        v1.push(flags as u8);
        v1.extend_from_slice(&acc.count().to_le_bytes());
        v1.extend_from_slice(&st[..2 * k * T::BYTES]);
        let back = DynAccumulator::<T>::from_bytes(&v1).expect("kernel layout decodes");
        assert_eq!(back.to_bytes().as_bytes(), acc.to_bytes().as_bytes());
        assert_eq!(back.value().bits(), acc.value().bits());
    }

    fn states<T: Float>(fold: usize, xs: &[T], specials: [T; 3]) -> Vec<DynAccumulator<T>> {
        let mut out = vec![DynAccumulator::<T>::new(fold).unwrap()];
        let mut a = DynAccumulator::<T>::new(fold).unwrap();
        a.add_slice(xs).unwrap();
        out.push(a);
        for special in specials {
            let mut s = a;
            s.add(special).unwrap();
            out.push(s);
            let mut e = DynAccumulator::<T>::new(fold).unwrap();
            e.add(special).unwrap();
            out.push(e);
        }
        out
    }

    #[test]
    fn kernel_layout_round_trips_every_kind_of_state() {
        let xs64: Vec<f64> = (0..3000)
            .map(|i| ((i as f64) * 0.77).sin() * 2f64.powi(i % 90 - 45))
            .chain([f64::MAX, -f64::MAX / 3.0, f64::from_bits(1), 1e308])
            .collect();
        let xs32: Vec<f32> = xs64.iter().map(|&x| x as f32).filter(|x| x.is_finite()).collect();
        // Every fold of each type (the largest state fits the host's buffer).
        for fold in 2..=<f64 as Float>::MAX_FOLD {
            for a in states(fold, &xs64, [f64::NAN, f64::INFINITY, f64::NEG_INFINITY]) {
                round_trip(&a);
            }
        }
        for fold in 2..=<f32 as Float>::MAX_FOLD {
            for a in states(fold, &xs32, [f32::NAN, f32::INFINITY, f32::NEG_INFINITY]) {
                round_trip(&a);
            }
        }
    }

    #[test]
    fn kernel_layout_is_primaries_carries_flags() {
        let mut a = DynAccumulator::<f64>::new(3).unwrap();
        a.add_slice(&[1.0, 2.0, f64::INFINITY, f64::NAN]).unwrap();
        let mut st = [0u8; MAX_STATE_BYTES];
        assert_eq!(kernel_state(&a, &mut st), 7 * 8);
        let b = a.to_bytes();
        let b = b.as_bytes();
        assert_eq!(&st[..48], &b[16..64]);
        assert_eq!(le(&st[48..56]), 1 | 2);
        // The primaries of a window are positive normal numbers, the carries integers.
        assert!(f64::from_bits(le(&st[..8])) > 1.0);
        let mut e = [0xFFu8; MAX_STATE_BYTES];
        let empty = DynAccumulator::<f32>::new(8).unwrap();
        assert_eq!(kernel_state(&empty, &mut e), 17 * 4);
        assert!(e[..68].iter().all(|&x| x == 0));
    }

    #[test]
    fn adding_a_part_is_adding_its_values() {
        let xs: Vec<f64> = (0..5000).map(|i| ((i as f64) * 0.31).cos() * 1e12).collect();
        for fold in 2..=8 {
            let mut acc = DynAccumulator::<f64>::new(fold).unwrap();
            let mut want = acc;
            for piece in xs
                .chunks(777)
                .chain([&[1e300, f64::NEG_INFINITY][..], &[][..], &[1e-300][..]])
            {
                let mut part = DynAccumulator::<f64>::new(fold).unwrap();
                part.add_slice(piece).unwrap();
                add_part(&mut acc, &part).unwrap();
                want.add_slice(piece).unwrap();
                assert_eq!(
                    acc.to_bytes().as_bytes(),
                    want.to_bytes().as_bytes(),
                    "fold {fold}"
                );
            }
        }
        // A fold mismatch (never made by the hosts) leaves acc unchanged.
        let mut acc = DynAccumulator::<f32>::new(3).unwrap();
        acc.add(1.5).unwrap();
        let before = acc.to_bytes();
        let mut other = DynAccumulator::<f32>::new(4).unwrap();
        other.add(2.0).unwrap();
        assert!(add_part(&mut acc, &other).is_err());
        assert_eq!(acc.to_bytes().as_bytes(), before.as_bytes());
    }

    #[test]
    fn room_follows_the_capacity() {
        assert_eq!(check_room::<f32>(0, f32::CAPACITY as usize), Ok(()));
        assert_eq!(
            check_room::<f32>(1, f32::CAPACITY as usize),
            Err(GpuError::CapacityExceeded)
        );
        assert_eq!(check_room::<f32>(f32::CAPACITY, 0), Ok(()));
        assert_eq!(
            check_room::<f32>(f32::CAPACITY, 1),
            Err(GpuError::CapacityExceeded)
        );
        assert_eq!(check_room::<f64>(f64::CAPACITY - 5, 5), Ok(()));
        assert_eq!(
            check_room::<f64>(f64::CAPACITY - 5, 6),
            Err(GpuError::CapacityExceeded)
        );
        assert_eq!(check_room::<f64>(u64::MAX, 0), Ok(()));
    }

    #[test]
    fn impossible_host_allocations_are_errors() {
        let r = host_vec(usize::MAX / 4, 0.0f64);
        assert_eq!(
            r.err(),
            Some(GpuError::HostOutOfMemory {
                bytes: (usize::MAX / 4).saturating_mul(8)
            })
        );
        // Not an overflow: a size the allocator refuses (larger than any address space).
        let r = host_vec(isize::MAX as usize / 8, 0u64);
        assert!(matches!(r, Err(GpuError::HostOutOfMemory { .. })), "{r:?}");
        assert_eq!(host_vec(3, 1.5f32).unwrap(), vec![1.5f32; 3]);
        let e = GpuError::HostOutOfMemory { bytes: 80 };
        assert!(e.to_string().contains("80 bytes"), "{e}");
    }
}
