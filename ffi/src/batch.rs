//! Many sums at once: segments given by offsets, the rows of a matrix, the values of each
//! key; and the segmented cumulative sum. Each group's result has the bits of `adn_sum_*_fold`
//! (or `adn_cumsum_*_fold`) of that group's values alone.

use crate::args::{self, byte_range, disjoint, non_null};
use crate::panic;
use crate::status::{adn_status, from_error, ADN_INVALID_STRIDE};
use crate::sum::fold_of;
use core::ffi::c_uint;
use facade::Options;
use reprosum_core::Float;

/// The address range of an array of `n` values of any type at `p`: NULL only when `n == 0`,
/// aligned, within the address space.
fn range<E>(p: *const E, n: usize) -> Result<(usize, usize), adn_status> {
    if n == 0 {
        return Ok((0, 0));
    }
    non_null(p)?;
    byte_range(p, n)
}

/// The slice of `n` values at `p` after [`range`] accepted them.
///
/// # Safety
/// As [`args::slice`].
unsafe fn index_slice<'a, E>(p: *const E, n: usize) -> &'a [E] {
    if n == 0 {
        return &[];
    }
    // SAFETY: `range` checked non-NULL, alignment and size; the caller guarantees the memory.
    unsafe { core::slice::from_raw_parts(p, n) }
}

/// The `nseg + 1` offsets at `offsets` (never NULL), checked and read.
///
/// # Safety
/// `offsets` is NULL or points to `nseg + 1` readable values that nothing writes during the
/// call.
unsafe fn offsets_of<'a>(
    offsets: *const usize,
    nseg: usize,
) -> Result<(&'a [usize], (usize, usize)), adn_status> {
    non_null(offsets)?;
    let count = nseg.checked_add(1).ok_or(crate::ADN_CAPACITY_EXCEEDED)?;
    let r = byte_range(offsets, count)?;
    // SAFETY: checked above; the caller guarantees the memory.
    Ok((unsafe { index_slice(offsets, count) }, r))
}

/// The checks and the work of the segmented-sum exports.
///
/// # Safety
/// As the exports.
unsafe fn segmented_sum_impl<T: Float>(
    x: *const T,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut T,
) -> adn_status {
    panic::status(|| {
        // SAFETY: the caller guarantees `nseg + 1` readable offsets.
        let (offs, offs_range) = unsafe { offsets_of(offsets, nseg)? };
        let out_range = range(out.cast_const(), nseg)?;
        let k = fold_of::<T>(fold)?;
        // The last offset is the number of values (checked against the others by the facade).
        let n = offs[nseg];
        let x_range = range(x, n)?;
        disjoint(out_range, x_range)?;
        disjoint(out_range, offs_range)?;
        // SAFETY: checked by `range`; the caller guarantees the memory; `out` overlaps
        // neither input (checked).
        let (xs, ys) = unsafe { (index_slice(x, n), args::slice_mut(out, nseg)) };
        facade::segmented_sum_with(xs, offs, ys, &Options::with_fold(k)).map_err(from_error)
    })
}

/// The checks and the work of the row-sum exports.
///
/// # Safety
/// As the exports.
unsafe fn sum_rows_impl<T: Float>(
    x: *const T,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut T,
) -> adn_status {
    panic::status(|| {
        let out_range = range(out.cast_const(), rows)?;
        let k = fold_of::<T>(fold)?;
        if cols > row_stride {
            return Err(ADN_INVALID_STRIDE);
        }
        let n = match rows {
            0 => 0,
            _ => (rows - 1)
                .checked_mul(row_stride)
                .and_then(|s| s.checked_add(cols))
                .ok_or(crate::ADN_CAPACITY_EXCEEDED)?,
        };
        let x_range = range(x, n)?;
        disjoint(out_range, x_range)?;
        // SAFETY: checked by `range`; the caller guarantees the memory; no overlap (checked).
        let (xs, ys) = unsafe { (index_slice(x, n), args::slice_mut(out, rows)) };
        facade::sum_rows_with(xs, rows, cols, row_stride, ys, &Options::with_fold(k)).map_err(from_error)
    })
}

/// The checks and the work of the keyed-sum exports.
///
/// # Safety
/// As the exports.
unsafe fn sum_by_key_impl<T: Float>(
    x: *const T,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut T,
) -> adn_status {
    panic::status(|| {
        let x_range = range(x, n)?;
        let keys_range = range(keys, n)?;
        let out_range = range(out.cast_const(), nkeys)?;
        let k = fold_of::<T>(fold)?;
        disjoint(out_range, x_range)?;
        disjoint(out_range, keys_range)?;
        // SAFETY: checked by `range`; the caller guarantees the memory; no overlap (checked).
        let (xs, ks, ys) = unsafe {
            (
                index_slice(x, n),
                index_slice(keys, n),
                args::slice_mut(out, nkeys),
            )
        };
        facade::sum_by_key_with(xs, ks, ys, &Options::with_fold(k)).map_err(from_error)
    })
}

/// The checks and the work of the segmented cumulative-sum exports.
///
/// # Safety
/// As the exports.
unsafe fn segmented_cumsum_impl<T: Float>(
    input: *const T,
    out: *mut T,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
) -> adn_status {
    panic::status(|| {
        // SAFETY: the caller guarantees `nseg + 1` readable offsets.
        let (offs, offs_range) = unsafe { offsets_of(offsets, nseg)? };
        let k = fold_of::<T>(fold)?;
        let n = offs[nseg];
        let in_range = range(input, n)?;
        let out_range = range(out.cast_const(), n)?;
        disjoint(out_range, offs_range)?;
        let opts = Options::with_fold(k);
        if core::ptr::eq(input, out) || n == 0 {
            // SAFETY: checked by `range`; the caller guarantees `n` readable and writable
            // values at `out`, which the offsets do not overlap (checked).
            let xs = unsafe { args::slice_mut(out, n) };
            return facade::segmented_cumsum_in_place_with(xs, offs, &opts).map_err(from_error);
        }
        disjoint(in_range, out_range)?;
        // SAFETY: checked by `range`; the ranges do not overlap (checked).
        let (xs, ys) = unsafe { (index_slice(input, n), args::slice_mut(out, n)) };
        facade::segmented_cumsum_with(xs, offs, ys, &opts).map_err(from_error)
    })
}

/// The reproducible sum of each segment of `x`: `out[i]` gets the bits of
/// `adn_sum_f64_fold(x + offsets[i], offsets[i + 1] - offsets[i], fold, ...)`; an empty
/// segment gives +0.0.
///
/// `offsets` holds `nseg + 1` entries (CSR style, never NULL): the first is 0, none is
/// smaller than the one before, and the last is the number of values of `x` (there is no
/// separate length). `ADN_INVALID_OFFSETS` otherwise. `x` may be NULL only when the last
/// offset is 0, `out` only when `nseg` is 0; `out` overlapping `x` or `offsets` is
/// `ADN_OVERLAP`. Nothing is written on error.
///
/// # Safety
/// `offsets` points to `nseg + 1` readable values, `x` to `offsets[nseg]` readable doubles,
/// `out` to `nseg` writable doubles.
#[no_mangle]
pub unsafe extern "C" fn adn_segmented_sum_f64(
    x: *const f64,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { segmented_sum_impl(x, offsets, nseg, fold, out) }
}

/// The reproducible sum of each segment of `x` (floats). As `adn_segmented_sum_f64`.
///
/// # Safety
/// As `adn_segmented_sum_f64`, with floats.
#[no_mangle]
pub unsafe extern "C" fn adn_segmented_sum_f32(
    x: *const f32,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { segmented_sum_impl(x, offsets, nseg, fold, out) }
}

/// The reproducible sum of each row of a row-major matrix: row `r` is the `cols` doubles
/// from `x + r * row_stride`, and `out[r]` gets the bits of the sum of that row alone
/// (batch-invariant). `x` holds `(rows - 1) * row_stride + cols` doubles (none when `rows`
/// is 0); the padding between rows is never read.
///
/// `cols > row_stride` is `ADN_INVALID_STRIDE`; a size past the address space
/// `ADN_CAPACITY_EXCEEDED`. `x` may be NULL only when it holds no value, `out` only when
/// `rows` is 0; `out` overlapping `x` is `ADN_OVERLAP`. Nothing is written on error.
///
/// # Safety
/// `x` points to the matrix's readable doubles, `out` to `rows` writable doubles.
#[no_mangle]
pub unsafe extern "C" fn adn_sum_rows_f64(
    x: *const f64,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { sum_rows_impl(x, rows, cols, row_stride, fold, out) }
}

/// The reproducible sum of each row of a row-major matrix of floats. As
/// `adn_sum_rows_f64`.
///
/// # Safety
/// As `adn_sum_rows_f64`, with floats.
#[no_mangle]
pub unsafe extern "C" fn adn_sum_rows_f32(
    x: *const f32,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { sum_rows_impl(x, rows, cols, row_stride, fold, out) }
}

/// The reproducible sum of the values of each key (scatter-add, index_add, weighted
/// bincount): `out[k]` gets the bits of the sum of every `x[i]` with `keys[i] == k`, for
/// `k < nkeys`; a key without values gives +0.0. Any order of the (key, value) pairs gives
/// the same bits.
///
/// A key that is negative or not below `nkeys` is `ADN_KEY_OUT_OF_RANGE`, found before
/// anything is written. `x` and `keys` may be NULL only when `n` is 0, `out` only when
/// `nkeys` is 0; `out` overlapping `x` or `keys` is `ADN_OVERLAP`. The values are gathered
/// by key in memory the call allocates (`nkeys + 1` counts and a copy of `x`):
/// `ADN_OUT_OF_MEMORY` if the system refuses it. Nothing is written on error.
///
/// # Safety
/// `x` points to `n` readable doubles, `keys` to `n` readable keys, `out` to `nkeys`
/// writable doubles.
#[no_mangle]
pub unsafe extern "C" fn adn_sum_by_key_f64(
    x: *const f64,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { sum_by_key_impl(x, keys, n, nkeys, fold, out) }
}

/// The reproducible sum of the float values of each key. As `adn_sum_by_key_f64`.
///
/// # Safety
/// As `adn_sum_by_key_f64`, with floats.
#[no_mangle]
pub unsafe extern "C" fn adn_sum_by_key_f32(
    x: *const f32,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { sum_by_key_impl(x, keys, n, nkeys, fold, out) }
}

/// The reproducible cumulative sum of each segment, starting afresh at every segment: for
/// `j` in segment `i`, `out[j]` gets the bits of the sum of `input[offsets[i]]` to
/// `input[j]`.
///
/// `offsets` as for `adn_segmented_sum_f64` (its last entry is the number of values).
/// `input == out` computes in place; any other overlap of `input` and `out`, or `out`
/// overlapping `offsets`, is `ADN_OVERLAP`. Nothing is written on error.
///
/// # Safety
/// `offsets` points to `nseg + 1` readable values, `input` to `offsets[nseg]` readable and
/// `out` to as many writable doubles.
#[no_mangle]
pub unsafe extern "C" fn adn_segmented_cumsum_f64(
    input: *const f64,
    out: *mut f64,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { segmented_cumsum_impl(input, out, offsets, nseg, fold) }
}

/// The reproducible cumulative sum of each segment of floats. As
/// `adn_segmented_cumsum_f64`.
///
/// # Safety
/// As `adn_segmented_cumsum_f64`, with floats.
#[no_mangle]
pub unsafe extern "C" fn adn_segmented_cumsum_f32(
    input: *const f32,
    out: *mut f32,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { segmented_cumsum_impl(input, out, offsets, nseg, fold) }
}

/// The `n` accumulator structs at `accs`, each checked (`ADN_NOT_INITIALIZED` for any one a
/// `_init` or `_from_bytes` did not set up), with their address range.
///
/// # Safety
/// `accs` is NULL or points to `n` readable and writable structs that nothing else accesses
/// during the call.
unsafe fn accs_of<'a, S: crate::acc::Slot>(
    accs: *mut S,
    n: usize,
) -> Result<(&'a mut [S], (usize, usize)), adn_status> {
    let r = range(accs.cast_const(), n)?;
    for i in 0..n {
        // SAFETY: inside the range checked above, readable (the caller).
        unsafe { crate::acc::checked(accs.add(i))? };
    }
    if n == 0 {
        return Ok((&mut [], r));
    }
    // SAFETY: non-NULL, aligned, sized (checked); exclusive for the call (the caller).
    Ok((unsafe { core::slice::from_raw_parts_mut(accs, n) }, r))
}

/// The checks and the work of the `_add_segments` exports.
///
/// # Safety
/// As the exports.
unsafe fn add_segments_impl<S>(accs: *mut S, x: *const S::T, offsets: *const usize, nseg: usize) -> adn_status
where
    S: crate::acc::Slot + facade::AccumulatorSlot<<S as crate::acc::Slot>::T>,
{
    panic::status(|| {
        // SAFETY: the caller guarantees `nseg + 1` readable offsets.
        let (offs, offs_range) = unsafe { offsets_of(offsets, nseg)? };
        let n = offs[nseg];
        let x_range = range(x, n)?;
        // SAFETY: the caller guarantees `nseg` structs at `accs`.
        let (slots, accs_range) = unsafe { accs_of(accs, nseg)? };
        disjoint(accs_range, x_range)?;
        disjoint(accs_range, offs_range)?;
        // SAFETY: checked by `range`; the caller guarantees the memory; the accumulators
        // overlap neither input (checked).
        let xs = unsafe { index_slice(x, n) };
        facade::add_segments(xs, offs, slots).map_err(from_error)
    })
}

/// The checks and the work of the `_add_by_key` exports.
///
/// # Safety
/// As the exports.
unsafe fn add_by_key_impl<S>(
    accs: *mut S,
    nkeys: usize,
    x: *const S::T,
    keys: *const i64,
    n: usize,
) -> adn_status
where
    S: crate::acc::Slot + facade::AccumulatorSlot<<S as crate::acc::Slot>::T>,
{
    panic::status(|| {
        let x_range = range(x, n)?;
        let keys_range = range(keys, n)?;
        // SAFETY: the caller guarantees `nkeys` structs at `accs`.
        let (slots, accs_range) = unsafe { accs_of(accs, nkeys)? };
        disjoint(accs_range, x_range)?;
        disjoint(accs_range, keys_range)?;
        // SAFETY: checked by `range`; the caller guarantees the memory; the accumulators
        // overlap neither input (checked).
        let (xs, ks) = unsafe { (index_slice(x, n), index_slice(keys, n)) };
        facade::add_by_key(xs, ks, slots).map_err(from_error)
    })
}

/// Adds each segment's doubles to its own accumulator: `accs[i]` gains `x[offsets[i]]` to
/// `x[offsets[i + 1] - 1]`, at its own fold. Shards of a segmented array, added call after
/// call (offsets relative to each shard), or on MPI ranks whose accumulator arrays are then
/// merged (`MPI_Allreduce` of `nseg` accumulators with `adn_mpi_op_acc_f64`), leave each
/// accumulator with the state of its whole segment: `adn_acc_f64_value` has the bits of
/// `adn_segmented_sum_f64` of the whole array.
///
/// `offsets` as for `adn_segmented_sum_f64`; every `accs[i]` set up by `adn_acc_f64_init`
/// or `adn_acc_f64_from_bytes` (else `ADN_NOT_INITIALIZED`); a segment that would take its
/// accumulator past the capacity is `ADN_CAPACITY_EXCEEDED`; `accs` overlapping `x` or
/// `offsets` is `ADN_OVERLAP`. `accs` may be NULL only when `nseg` is 0, `x` only when the
/// last offset is 0. No accumulator changes on error.
///
/// # Safety
/// `accs` points to `nseg` accumulators, `offsets` to `nseg + 1` readable values, `x` to
/// `offsets[nseg]` readable doubles.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f64_add_segments(
    accs: *mut crate::adn_acc_f64,
    x: *const f64,
    offsets: *const usize,
    nseg: usize,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { add_segments_impl(accs, x, offsets, nseg) }
}

/// Adds each segment's floats to its own accumulator. As `adn_acc_f64_add_segments`.
///
/// # Safety
/// As `adn_acc_f64_add_segments`, with floats.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f32_add_segments(
    accs: *mut crate::adn_acc_f32,
    x: *const f32,
    offsets: *const usize,
    nseg: usize,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { add_segments_impl(accs, x, offsets, nseg) }
}

/// Adds each double to its key's accumulator: `accs[keys[i]]` gains `x[i]`, at its own
/// fold. Shards of (key, value) pairs in any split and order, added call after call or on
/// MPI ranks whose `nkeys` accumulators are then merged, leave each key's accumulator with
/// the state of all its values: `adn_acc_f64_value` has the bits of `adn_sum_by_key_f64` of
/// all the pairs.
///
/// A key that is negative or not below `nkeys` is `ADN_KEY_OUT_OF_RANGE`; every `accs[k]`
/// set up (else `ADN_NOT_INITIALIZED`); a key whose values would take its accumulator past
/// the capacity is `ADN_CAPACITY_EXCEEDED`; `accs` overlapping `x` or `keys` is
/// `ADN_OVERLAP`; memory for the gathering as for `adn_sum_by_key_f64`. No accumulator
/// changes on error.
///
/// # Safety
/// `accs` points to `nkeys` accumulators, `x` to `n` readable doubles, `keys` to `n`
/// readable keys.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f64_add_by_key(
    accs: *mut crate::adn_acc_f64,
    nkeys: usize,
    x: *const f64,
    keys: *const i64,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { add_by_key_impl(accs, nkeys, x, keys, n) }
}

/// Adds each float to its key's accumulator. As `adn_acc_f64_add_by_key`.
///
/// # Safety
/// As `adn_acc_f64_add_by_key`, with floats.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f32_add_by_key(
    accs: *mut crate::adn_acc_f32,
    nkeys: usize,
    x: *const f32,
    keys: *const i64,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is the impl's.
    unsafe { add_by_key_impl(accs, nkeys, x, keys, n) }
}
