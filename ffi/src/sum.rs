//! Whole-array sums and cumulative sums.

use crate::args::{self, array, byte_range, disjoint, non_null};
use crate::panic;
use crate::status::{adn_status, from_error, ADN_INVALID_FOLD, ADN_NULL_POINTER};
use core::ffi::c_uint;
use facade::Options;
use reprosum_core::{DynAccumulator, Float};

/// The fold as a `usize`, if valid for `T`.
pub(crate) fn fold_of<T: Float>(fold: c_uint) -> Result<usize, adn_status> {
    let k = fold as usize;
    if (2..=T::MAX_FOLD).contains(&k) {
        Ok(k)
    } else {
        Err(ADN_INVALID_FOLD)
    }
}

/// The checks and the work of every sum export: on the facade's threads.
///
/// # Safety
/// As the exports: `x` points to `n` readable values (or `n == 0`), `out` to a writable `T`.
unsafe fn sum_impl<T: Float>(x: *const T, n: usize, fold: c_uint, out: *mut T) -> adn_status {
    panic::status(|| {
        non_null(out)?;
        let k = fold_of::<T>(fold)?;
        array(x, n)?;
        // SAFETY: checked by `array`; the caller guarantees `n` readable values at `x`.
        let xs = unsafe { args::slice(x, n) };
        let v = facade::sum_with(xs, &Options::with_fold(k)).map_err(from_error)?;
        // SAFETY: `out` is non-NULL and aligned (checked) and writable (the caller). `xs` is
        // not used after this write, so a caller's `out` inside `x` is harmless.
        unsafe { out.write(v) };
        Ok(())
    })
}

/// The checks and the work of every cumulative-sum export (`start`: the accumulator the
/// sums continue from, else an empty one of `fold`), on the facade's threads.
///
/// # Safety
/// As the exports: `input` points to `n` readable values and `out` to `n` writable values
/// (or `n == 0`).
pub(crate) unsafe fn cumsum_impl<T: Float>(
    start: Result<DynAccumulator<T>, c_uint>,
    input: *const T,
    out: *mut T,
    n: usize,
) -> adn_status {
    panic::status(|| {
        if n > 0 && (input.is_null() || out.is_null()) {
            return Err(ADN_NULL_POINTER);
        }
        let start = match start {
            Ok(acc) => acc,
            Err(fold) => DynAccumulator::new(fold_of::<T>(fold)?).map_err(from_error)?,
        };
        array(input, n)?;
        array(out.cast_const(), n)?;
        facade::check_room(&start, n).map_err(from_error)?;
        if n == 0 {
            return Ok(());
        }
        let opts = Options::default();
        if core::ptr::eq(input, out) {
            // SAFETY: checked by `array`; the caller guarantees `n` readable and writable
            // values at `out`, and nothing else uses them during the call.
            let xs = unsafe { args::slice_mut(out, n) };
            return facade::cumsum_in_place_from(&start, xs, &opts)
                .map(|_| ())
                .map_err(from_error);
        }
        disjoint(byte_range(input, n)?, byte_range(out.cast_const(), n)?)?;
        // SAFETY: checked by `array`; the ranges do not overlap (checked), so the shared and
        // the exclusive slice do not alias; the caller guarantees the memory.
        let (xs, ys) = unsafe { (args::slice(input, n), args::slice_mut(out, n)) };
        facade::cumsum_from(&start, xs, ys, &opts)
            .map(|_| ())
            .map_err(from_error)
    })
}

/// The reproducible sum of `n` doubles at the default fold (3), into `*out`.
///
/// `x` may be NULL only when `n == 0` (the sum is then +0.0). `*out` is written only on
/// success.
///
/// # Safety
/// `x` points to `n` readable doubles (or `n == 0`); `out` to a writable double.
#[no_mangle]
pub unsafe extern "C" fn adn_sum_f64(x: *const f64, n: usize, out: *mut f64) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `sum_impl`'s.
    unsafe { sum_impl(x, n, 3, out) }
}

/// The reproducible sum of `n` floats at the default fold (3), into `*out`.
///
/// `x` may be NULL only when `n == 0`. `*out` is written only on success.
///
/// # Safety
/// `x` points to `n` readable floats (or `n == 0`); `out` to a writable float.
#[no_mangle]
pub unsafe extern "C" fn adn_sum_f32(x: *const f32, n: usize, out: *mut f32) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `sum_impl`'s.
    unsafe { sum_impl(x, n, 3, out) }
}

/// The reproducible sum of `n` doubles at fold `fold` (2 to 52), into `*out`.
///
/// # Safety
/// As `adn_sum_f64`.
#[no_mangle]
pub unsafe extern "C" fn adn_sum_f64_fold(
    x: *const f64,
    n: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `sum_impl`'s.
    unsafe { sum_impl(x, n, fold, out) }
}

/// The reproducible sum of `n` floats at fold `fold` (2 to 21), into `*out`.
///
/// # Safety
/// As `adn_sum_f32`.
#[no_mangle]
pub unsafe extern "C" fn adn_sum_f32_fold(
    x: *const f32,
    n: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `sum_impl`'s.
    unsafe { sum_impl(x, n, fold, out) }
}

/// The reproducible cumulative sum of `n` doubles at the default fold (3): `out[i]` gets
/// the bits of the sum of `input[0]` to `input[i]`.
///
/// `input == out` computes in place; any other overlap is `ADN_OVERLAP`. Both may be NULL only
/// when `n == 0`. Every check happens before anything is written.
///
/// # Safety
/// `input` points to `n` readable doubles and `out` to `n` writable doubles (or `n == 0`).
#[no_mangle]
pub unsafe extern "C" fn adn_cumsum_f64(input: *const f64, out: *mut f64, n: usize) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `cumsum_impl`'s.
    unsafe { cumsum_impl(Err(3), input, out, n) }
}

/// The reproducible cumulative sum of `n` floats at the default fold (3). As
/// `adn_cumsum_f64`.
///
/// # Safety
/// `input` points to `n` readable floats and `out` to `n` writable floats (or `n == 0`).
#[no_mangle]
pub unsafe extern "C" fn adn_cumsum_f32(input: *const f32, out: *mut f32, n: usize) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `cumsum_impl`'s.
    unsafe { cumsum_impl(Err(3), input, out, n) }
}

/// The reproducible cumulative sum of `n` doubles at fold `fold` (2 to 52). As
/// `adn_cumsum_f64`.
///
/// # Safety
/// As `adn_cumsum_f64`.
#[no_mangle]
pub unsafe extern "C" fn adn_cumsum_f64_fold(
    input: *const f64,
    out: *mut f64,
    n: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `cumsum_impl`'s.
    unsafe { cumsum_impl(Err(fold), input, out, n) }
}

/// The reproducible cumulative sum of `n` floats at fold `fold` (2 to 21). As
/// `adn_cumsum_f64`.
///
/// # Safety
/// As `adn_cumsum_f32`.
#[no_mangle]
pub unsafe extern "C" fn adn_cumsum_f32_fold(
    input: *const f32,
    out: *mut f32,
    n: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `cumsum_impl`'s.
    unsafe { cumsum_impl(Err(fold), input, out, n) }
}
