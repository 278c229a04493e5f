//! Whole-slice sums and cumulative sums.
//!
//! Naming: `sum` is the default fold (3); `sum_k::<T, K>` takes the fold as a const
//! parameter; `sum_fold` takes it at run time. The same for the cumulative sums.

use crate::simd::Platform;
use crate::{binned, scan, Accumulator, DynAccumulator, Error, Float};

/// The reproducible sum of `xs` at the default fold (3).
///
/// # Errors
/// [`Error::CapacityExceeded`] if `xs` is longer than [`Float::CAPACITY`].
pub fn sum<T: Float>(xs: &[T]) -> Result<T, Error> {
    sum_k::<T, 3>(xs)
}

/// The reproducible sum of `xs` at fold `K`.
///
/// # Errors
/// [`Error::CapacityExceeded`] if `xs` is longer than [`Float::CAPACITY`].
pub fn sum_k<T: Float, const K: usize>(xs: &[T]) -> Result<T, Error> {
    if let Some(v) = binned::short_sum(Platform::current(), K, xs) {
        return Ok(v);
    }
    let mut a = Accumulator::<T, K>::new();
    a.add_slice(xs)?;
    Ok(a.value())
}

/// The reproducible sum of `xs` at a fold chosen at run time.
///
/// # Errors
/// [`Error::InvalidFold`], [`Error::CapacityExceeded`].
pub fn sum_fold<T: Float>(xs: &[T], fold: usize) -> Result<T, Error> {
    if let Some(v) = binned::short_sum(Platform::current(), fold, xs) {
        return Ok(v);
    }
    let mut a = DynAccumulator::new(fold)?;
    a.add_slice(xs)?;
    Ok(a.value())
}

/// The reproducible cumulative sum at the default fold: `out[i]` has exactly the bits of
/// `sum(&xs[..=i])`.
///
/// # Errors
/// [`Error::LengthMismatch`] or [`Error::CapacityExceeded`], both before anything is
/// written.
pub fn cumsum<T: Float>(xs: &[T], out: &mut [T]) -> Result<(), Error> {
    cumsum_k::<T, 3>(xs, out)
}

fn check<T: Float>(n: usize, m: usize) -> Result<(), Error> {
    if n != m {
        return Err(Error::LengthMismatch);
    }
    if n as u64 > T::CAPACITY {
        return Err(Error::CapacityExceeded);
    }
    Ok(())
}

/// The running values of `xs` added to a state, into `out` (checks first).
pub(crate) fn running_into<T: Float>(
    pf: Platform,
    p: &mut [T],
    c: &mut [T],
    m: &mut binned::Meta,
    xs: &[T],
    out: &mut [T],
) -> Result<(), Error> {
    check::<T>(xs.len(), out.len())?;
    if xs.len() as u64 > T::CAPACITY - m.count.min(T::CAPACITY) {
        return Err(Error::CapacityExceeded);
    }
    scan::running(pf, p, c, m, xs, out);
    Ok(())
}

/// The running values of `xs` added to a state, over `xs` (checks first).
pub(crate) fn running_in_place<T: Float>(
    pf: Platform,
    p: &mut [T],
    c: &mut [T],
    m: &mut binned::Meta,
    xs: &mut [T],
) -> Result<(), Error> {
    if xs.len() as u64 > T::CAPACITY - m.count.min(T::CAPACITY) {
        return Err(Error::CapacityExceeded);
    }
    // One chunk at a time through a copy of its inputs.
    let mut buf = [T::ZERO; scan::CHUNK];
    for part in xs.chunks_mut(scan::CHUNK) {
        let inp = &mut buf[..part.len()];
        inp.copy_from_slice(part);
        scan::running(pf, p, c, m, inp, part);
    }
    Ok(())
}

/// The reproducible cumulative sum at fold `K`.
///
/// # Errors
/// [`Error::LengthMismatch`] or [`Error::CapacityExceeded`], before anything is written.
pub fn cumsum_k<T: Float, const K: usize>(xs: &[T], out: &mut [T]) -> Result<(), Error> {
    Accumulator::<T, K>::new().add_running(xs, out)
}

/// The reproducible cumulative sum at a fold chosen at run time.
///
/// # Errors
/// [`Error::InvalidFold`], [`Error::LengthMismatch`] or [`Error::CapacityExceeded`],
/// before anything is written.
pub fn cumsum_fold<T: Float>(xs: &[T], out: &mut [T], fold: usize) -> Result<(), Error> {
    DynAccumulator::new(fold)?.add_running(xs, out)
}

/// The reproducible cumulative sum at the default fold, overwriting the input.
///
/// # Errors
/// [`Error::CapacityExceeded`], before anything is written.
pub fn cumsum_in_place<T: Float>(xs: &mut [T]) -> Result<(), Error> {
    cumsum_in_place_k::<T, 3>(xs)
}

/// The reproducible cumulative sum at fold `K`, overwriting the input.
///
/// # Errors
/// [`Error::CapacityExceeded`], before anything is written.
pub fn cumsum_in_place_k<T: Float, const K: usize>(xs: &mut [T]) -> Result<(), Error> {
    Accumulator::<T, K>::new().add_running_in_place(xs)
}

/// The reproducible cumulative sum at a run-time fold, overwriting the input.
///
/// # Errors
/// [`Error::InvalidFold`] or [`Error::CapacityExceeded`], before anything is written.
pub fn cumsum_in_place_fold<T: Float>(xs: &mut [T], fold: usize) -> Result<(), Error> {
    DynAccumulator::new(fold)?.add_running_in_place(xs)
}
