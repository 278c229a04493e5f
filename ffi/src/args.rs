//! Checks of the pointers and lengths C passes, before anything is read or written.

use crate::status::{adn_status, ADN_CAPACITY_EXCEEDED, ADN_MISALIGNED, ADN_NULL_POINTER, ADN_OVERLAP};
use core::mem::size_of;
use reprosum_core::Float;

/// Checks that `p` is non-NULL and aligned for `T`.
pub(crate) fn non_null<T>(p: *const T) -> Result<(), adn_status> {
    if p.is_null() {
        Err(ADN_NULL_POINTER)
    } else if !p.is_aligned() {
        Err(ADN_MISALIGNED)
    } else {
        Ok(())
    }
}

/// Checks an array of `n` values at `p`: NULL only when `n == 0`, aligned, `n` within the
/// type's capacity, and `n * size_of::<T>()` bytes that fit the address space from `p`
/// (what `slice::from_raw_parts` needs besides validity of the memory itself).
pub(crate) fn array<T: Float>(p: *const T, n: usize) -> Result<(), adn_status> {
    if n == 0 {
        return Ok(());
    }
    non_null(p)?;
    if n as u64 > T::CAPACITY {
        return Err(ADN_CAPACITY_EXCEEDED);
    }
    byte_range(p, n).map(|_| ())
}

/// The half-open address range of `n` values at `p`, if it fits (`isize::MAX` bytes at most,
/// no wrap past the end of the address space).
pub(crate) fn byte_range<T>(p: *const T, n: usize) -> Result<(usize, usize), adn_status> {
    let bytes = n
        .checked_mul(size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or(ADN_CAPACITY_EXCEEDED)?;
    let start = p as usize;
    let end = start.checked_add(bytes).ok_or(ADN_CAPACITY_EXCEEDED)?;
    Ok((start, end))
}

/// Fails with `ADN_OVERLAP` if two non-empty address ranges intersect.
pub(crate) fn disjoint(a: (usize, usize), b: (usize, usize)) -> Result<(), adn_status> {
    if a.0 < a.1 && b.0 < b.1 && a.0 < b.1 && b.0 < a.1 {
        Err(ADN_OVERLAP)
    } else {
        Ok(())
    }
}

/// The slice of `n` values at `p`, after [`array`] accepted them.
///
/// # Safety
/// [`array`] returned `Ok` for `(p, n)`, and when `n > 0`, `p` points to `n` initialised
/// values that nothing writes for `'a`.
pub(crate) unsafe fn slice<'a, T: Float>(p: *const T, n: usize) -> &'a [T] {
    if n == 0 {
        return &[];
    }
    // SAFETY: `array` checked non-NULL, alignment and size; the caller guarantees the memory.
    unsafe { core::slice::from_raw_parts(p, n) }
}

/// The mutable slice of `n` values at `p`, after [`array`] accepted them.
///
/// # Safety
/// [`array`] returned `Ok` for `(p, n)`, and when `n > 0`, `p` points to `n` initialised,
/// writable values that nothing else accesses for `'a`.
pub(crate) unsafe fn slice_mut<'a, T: Float>(p: *mut T, n: usize) -> &'a mut [T] {
    if n == 0 {
        return &mut [];
    }
    // SAFETY: `array` checked non-NULL, alignment and size; the caller guarantees the memory
    // and its exclusive use.
    unsafe { core::slice::from_raw_parts_mut(p, n) }
}
