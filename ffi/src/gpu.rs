//! GPU entry points (device pointers, or host pointers that are copied).
//!
//! Declared in every build so that the header does not depend on features. The work goes
//! through the facade's device dispatch (`reprosum::sum_ptr` and its siblings); a build
//! without the back end returns `ADN_NOT_BUILT` without reading its arguments.

use crate::acc::{adn_acc_f32, adn_acc_f64, checked, Slot};
use crate::args::{array, byte_range, disjoint, non_null};
use crate::panic;
use crate::status::*;
use core::ffi::{c_uint, c_void};
use facade::{Backend, DeviceError, DeviceErrorKind};
use reprosum_core::{DynAccumulator, Float};

/// The status of a device error.
fn status_of(e: DeviceError) -> adn_status {
    match e.kind() {
        DeviceErrorKind::Core(e) => from_error(e),
        DeviceErrorKind::NotBuilt => ADN_NOT_BUILT,
        DeviceErrorKind::NoDevice => ADN_NO_DEVICE,
        DeviceErrorKind::OutOfMemory => ADN_OUT_OF_MEMORY,
        DeviceErrorKind::UnsupportedFold => ADN_INVALID_FOLD,
        DeviceErrorKind::InvalidPointer => ADN_INVALID_POINTER,
        DeviceErrorKind::Overlap => ADN_OVERLAP,
        DeviceErrorKind::Failed => ADN_DEVICE_ERROR,
        _ => ADN_INTERNAL_ERROR,
    }
}

/// Whether this library was built with the back end: its own `cuda` / `hip` feature (in a
/// workspace build the facade may have a back end that this crate did not ask for).
fn built(b: Backend) -> bool {
    let ours = (matches!(b, Backend::Cuda) && cfg!(feature = "cuda"))
        || (matches!(b, Backend::Hip) && cfg!(feature = "hip"));
    ours && b.is_built()
}

/// Runs a GPU export's body: `ADN_NOT_BUILT` at once (arguments unread) for a back end this
/// build lacks, else the body inside the panic boundary.
fn gpu_status(b: Backend, f: impl FnOnce() -> Result<(), adn_status>) -> adn_status {
    panic::status(|| if built(b) { f() } else { Err(ADN_NOT_BUILT) })
}

/// A sum on the device: the host checks first, then the back end.
///
/// # Safety
/// `x`: `n` readable values (host or device memory) or `n == 0`; `out`: a writable host `T`;
/// `stream`: null or a live stream of the device that runs the call.
unsafe fn sum<T: Float>(
    b: Backend,
    x: *const T,
    n: usize,
    fold: c_uint,
    out: *mut T,
    stream: *mut c_void,
) -> adn_status {
    gpu_status(b, || {
        non_null(out)?;
        let k = crate::sum::fold_of::<T>(fold)?;
        array(x, n)?;
        // SAFETY: the caller's contract, checked as far as the host can.
        let v = crate::ieee(|| unsafe { facade::sum_ptr(b, x, n, k, stream) }).map_err(status_of)?;
        // SAFETY: `out` is non-NULL and aligned (checked), host memory (contract).
        unsafe { out.write(v) };
        Ok(())
    })
}

/// The checks every device cumulative sum makes before the work: NULL, alignment, length,
/// overlap (`input == out` allowed).
fn cumsum_args<T: Float>(input: *const T, out: *mut T, n: usize) -> Result<(), adn_status> {
    if n > 0 && (input.is_null() || out.is_null()) {
        return Err(ADN_NULL_POINTER);
    }
    array(input, n)?;
    array(out.cast_const(), n)?;
    if !core::ptr::eq(input, out) {
        disjoint(byte_range(input, n)?, byte_range(out.cast_const(), n)?)?;
    }
    Ok(())
}

/// A cumulative sum on the device (`input == out` allowed).
///
/// # Safety
/// `input`: `n` readable values, `out`: `n` writable values, in the same memory (host, or
/// one device); `stream` as for [`sum`].
unsafe fn cumsum<T: Float>(
    b: Backend,
    input: *const T,
    out: *mut T,
    n: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    gpu_status(b, || {
        if n > 0 && (input.is_null() || out.is_null()) {
            return Err(ADN_NULL_POINTER);
        }
        let k = crate::sum::fold_of::<T>(fold)?;
        cumsum_args(input, out, n)?;
        // SAFETY: the caller's contract, checked as far as the host can.
        crate::ieee(|| unsafe { facade::cumsum_ptr(b, input, out, n, k, stream) }).map_err(status_of)
    })
}

/// Adds `n` values (host or device memory) to an accumulator struct, on the device. The
/// struct is changed only on success.
///
/// # Safety
/// `acc`: NULL or a readable and writable struct (host memory); `x` as for [`sum`].
unsafe fn acc_add<S: Slot>(
    b: Backend,
    acc: *mut S,
    x: *const S::T,
    n: usize,
    stream: *mut c_void,
) -> adn_status {
    gpu_status(b, || {
        if acc.is_null() || (n > 0 && x.is_null()) {
            return Err(ADN_NULL_POINTER);
        }
        // SAFETY: the caller passes a readable and writable struct.
        let state = unsafe { checked(acc)? };
        array(x, n)?;
        // Device memory cannot overlap the host struct; host memory is checked.
        if n > 0 {
            disjoint(byte_range(x, n)?, byte_range(acc.cast_const(), 1)?)?;
        }
        // A copy: the struct is written only once the device work succeeded.
        // SAFETY: valid and aligned (checked).
        let mut a: DynAccumulator<S::T> = unsafe { *state };
        // SAFETY: the caller's contract for `x` and `stream`, checked as far as the host can.
        crate::ieee(|| unsafe { facade::add_ptr(b, &mut a, x, n, stream) }).map_err(status_of)?;
        // SAFETY: as above; `a` is a local.
        unsafe { *state = a };
        Ok(())
    })
}

/// A device cumulative sum continued from an accumulator struct (only read).
///
/// # Safety
/// `start`: NULL or a readable struct (host memory); `input`, `out`, `stream` as for
/// [`cumsum`].
unsafe fn cumsum_from<S: Slot>(
    b: Backend,
    start: *const S,
    input: *const S::T,
    out: *mut S::T,
    n: usize,
    stream: *mut c_void,
) -> adn_status {
    gpu_status(b, || {
        // SAFETY: NULL or a readable struct (the caller); copied before any work.
        let a: DynAccumulator<S::T> = unsafe { *checked(start.cast_mut())? };
        cumsum_args(input, out, n)?;
        // SAFETY: the caller's contract, checked as far as the host can.
        crate::ieee(|| unsafe { facade::cumsum_from_ptr(b, &a, input, out, n, stream) }).map_err(status_of)
    })
}

/// A segmented sum on the device: the host checks what it can (the offsets' pointer, the
/// output, overlap of the output with the offsets), then the back end (which checks the
/// offsets' values on the host or, for device offsets, on the device before any write).
///
/// # Safety
/// `offsets`: `nseg + 1` readable `size_t` (host or device memory); `x`: as many readable
/// values as the last offset says; `out`: `nseg` writable values, in the memory of `x`;
/// `stream` as for [`sum`].
unsafe fn segmented_sum<T: Float>(
    b: Backend,
    x: *const T,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut T,
    stream: *mut c_void,
) -> adn_status {
    gpu_status(b, || {
        let k = crate::sum::fold_of::<T>(fold)?;
        non_null(offsets)?;
        let offs = byte_range(offsets, nseg.checked_add(1).ok_or(ADN_CAPACITY_EXCEEDED)?)?;
        if nseg > 0 {
            non_null(out)?;
        }
        array(out.cast_const(), nseg)?;
        if nseg > 0 {
            // Host and device addresses never overlap (one virtual address space), so this
            // holds for either memory.
            disjoint(byte_range(out.cast_const(), nseg)?, offs)?;
        }
        // SAFETY: the caller's contract, checked as far as the host can.
        crate::ieee(|| unsafe { facade::segmented_sum_ptr(b, x, offsets, nseg, k, out, stream) })
            .map_err(status_of)
    })
}

/// A segmented cumulative sum on the device: the host checks what it can (the offsets'
/// pointer and size), then the back end (which reads the number of values from the last
/// offset, checks the pointers, their overlap and the offsets' values, on the host or, for
/// device offsets, on the device, before any write).
///
/// # Safety
/// `offsets`: `nseg + 1` readable `size_t` (host or device memory); `input`: as many readable
/// values as the last offset says, `out` as many writable ones, in the memory of `input`;
/// `stream` as for [`sum`].
unsafe fn segmented_cumsum<T: Float>(
    b: Backend,
    input: *const T,
    out: *mut T,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    gpu_status(b, || {
        let k = crate::sum::fold_of::<T>(fold)?;
        non_null(offsets)?;
        byte_range(offsets, nseg.checked_add(1).ok_or(ADN_CAPACITY_EXCEEDED)?)?;
        // SAFETY: the caller's contract, checked as far as the host can.
        crate::ieee(|| unsafe { facade::segmented_cumsum_ptr(b, input, out, offsets, nseg, k, stream) })
            .map_err(status_of)
    })
}

/// A keyed sum on the device: the host checks what it can (the pointers, the output's
/// overlap with the values and the keys), then the back end (which checks host keys on the
/// host and device keys on the device, before any write).
///
/// # Safety
/// `x`: `n` readable values; `keys`: `n` readable keys (host or device memory); `out`:
/// `nkeys` writable values, in the memory of `x`; `stream` as for [`sum`].
#[allow(clippy::too_many_arguments)]
unsafe fn sum_by_key<T: Float>(
    b: Backend,
    x: *const T,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut T,
    stream: *mut c_void,
) -> adn_status {
    gpu_status(b, || {
        let k = crate::sum::fold_of::<T>(fold)?;
        if n > 0 {
            non_null(x)?;
            non_null(keys)?;
        }
        if nkeys > 0 {
            non_null(out)?;
        }
        array(x, n)?;
        array(out.cast_const(), nkeys)?;
        let keys_range = byte_range(keys, n)?;
        if nkeys > 0 && n > 0 {
            // Host and device addresses never overlap (one virtual address space).
            let out_range = byte_range(out.cast_const(), nkeys)?;
            disjoint(out_range, byte_range(x, n)?)?;
            disjoint(out_range, keys_range)?;
        }
        // SAFETY: the caller's contract, checked as far as the host can.
        crate::ieee(|| unsafe { facade::sum_by_key_ptr(b, x, keys, n, nkeys, k, out, stream) })
            .map_err(status_of)
    })
}

/// Row sums on the device: the host checks the shape, the pointers and their overlap, then
/// the back end.
///
/// # Safety
/// `x`: `(rows - 1) * row_stride + cols` readable values (none for no rows); `out`: `rows`
/// writable values in the memory of `x`; `stream` as for [`sum`].
#[allow(clippy::too_many_arguments)]
unsafe fn sum_rows<T: Float>(
    b: Backend,
    x: *const T,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut T,
    stream: *mut c_void,
) -> adn_status {
    gpu_status(b, || {
        let k = crate::sum::fold_of::<T>(fold)?;
        if cols > row_stride {
            return Err(ADN_INVALID_STRIDE);
        }
        let n = match rows {
            0 => 0,
            _ => (rows - 1)
                .checked_mul(row_stride)
                .and_then(|s| s.checked_add(cols))
                .ok_or(ADN_CAPACITY_EXCEEDED)?,
        };
        if rows > 0 {
            non_null(out)?;
        }
        if n > 0 {
            non_null(x)?;
        }
        array(out.cast_const(), rows)?;
        array(x, n)?;
        if rows > 0 && n > 0 {
            disjoint(byte_range(out.cast_const(), rows)?, byte_range(x, n)?)?;
        }
        // SAFETY: the caller's contract, checked as far as the host can.
        crate::ieee(|| unsafe { facade::sum_rows_ptr(b, x, rows, cols, row_stride, k, out, stream) })
            .map_err(status_of)
    })
}

/// The reproducible sum of `n` doubles on the current CUDA device, at fold 3. `x` is a
/// device pointer or a host pointer (copied); `*out` is host memory, written only on
/// success. `ADN_NOT_BUILT` in a build without CUDA support.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_f64(x: *const f64, n: usize, out: *mut f64) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f64>(Backend::Cuda, x, n, 3, out, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` floats on the current CUDA device, at fold 3. `x` is a
/// device pointer or a host pointer (copied); `*out` is host memory, written only on
/// success. `ADN_NOT_BUILT` in a build without CUDA support.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_f32(x: *const f32, n: usize, out: *mut f32) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f32>(Backend::Cuda, x, n, 3, out, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` doubles on the current CUDA device, at fold `fold`. As
/// `adn_cuda_sum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_f64_fold(
    x: *const f64,
    n: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f64>(Backend::Cuda, x, n, fold, out, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` floats on the current CUDA device, at fold `fold`. As
/// `adn_cuda_sum_f32`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_f32_fold(
    x: *const f32,
    n: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f32>(Backend::Cuda, x, n, fold, out, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` doubles on the current CUDA device, at fold 3
/// (`input == out` allowed, other overlap is an error). The output lives where the input
/// lives (host or device memory).
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f64(input: *const f64, out: *mut f64, n: usize) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f64>(Backend::Cuda, input, out, n, 3, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` floats on the current CUDA device, at fold 3
/// (`input == out` allowed, other overlap is an error). The output lives where the input
/// lives (host or device memory).
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f32(input: *const f32, out: *mut f32, n: usize) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f32>(Backend::Cuda, input, out, n, 3, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` doubles on the current CUDA device, at fold
/// `fold`. As `adn_cuda_cumsum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f64_fold(
    input: *const f64,
    out: *mut f64,
    n: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f64>(Backend::Cuda, input, out, n, fold, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` floats on the current CUDA device, at fold
/// `fold`. As `adn_cuda_cumsum_f32`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f32_fold(
    input: *const f32,
    out: *mut f32,
    n: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f32>(Backend::Cuda, input, out, n, fold, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` doubles on the CUDA device that owns `stream` (or the
/// current one), at fold `fold`, ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `*out` is written. As `adn_cuda_sum_f64` otherwise.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
/// `stream` is NULL or a live stream of the device that runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_f64_stream(
    x: *const f64,
    n: usize,
    fold: c_uint,
    out: *mut f64,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f64>(Backend::Cuda, x, n, fold, out, stream) }
}

/// The reproducible sum of `n` floats on the CUDA device that owns `stream` (or the
/// current one), at fold `fold`, ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `*out` is written. As `adn_cuda_sum_f32` otherwise.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
/// `stream` is NULL or a live stream of the device that runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_f32_stream(
    x: *const f32,
    n: usize,
    fold: c_uint,
    out: *mut f32,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f32>(Backend::Cuda, x, n, fold, out, stream) }
}

/// The reproducible cumulative sum of `n` doubles on CUDA, ordered on `stream` (a
/// `cudaStream_t`; NULL is the default stream); returns once `out` is written. As
/// `adn_cuda_cumsum_f64_fold` otherwise.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
/// `stream` is NULL or a live stream of the device that runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f64_stream(
    input: *const f64,
    out: *mut f64,
    n: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f64>(Backend::Cuda, input, out, n, fold, stream) }
}

/// The reproducible cumulative sum of `n` floats on CUDA, ordered on `stream` (a
/// `cudaStream_t`; NULL is the default stream); returns once `out` is written. As
/// `adn_cuda_cumsum_f32_fold` otherwise.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
/// `stream` is NULL or a live stream of the device that runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f32_stream(
    input: *const f32,
    out: *mut f32,
    n: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f32>(Backend::Cuda, input, out, n, fold, stream) }
}

/// Adds `n` doubles to `*acc` on the CUDA device: `x` is a device pointer (used in place
/// on the device that holds it) or a host pointer (copied to the current device); the fold
/// is the accumulator's (any fold). Afterwards `*acc` has exactly the state
/// `adn_acc_f64_add_array` gives on the same values; on any error it is unchanged.
/// `*acc` itself is host memory.
///
/// # Safety
/// `acc` points to a readable and writable `adn_acc_f64` in host memory; `x` to `n` readable
/// doubles in host or device memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_acc_f64_add_array(
    acc: *mut adn_acc_f64,
    x: *const f64,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { acc_add(Backend::Cuda, acc, x, n, core::ptr::null_mut()) }
}

/// `adn_cuda_acc_f64_add_array` ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `*acc` is written.
///
/// # Safety
/// As `adn_cuda_acc_f64_add_array`; `stream` is NULL or a live stream of the device that
/// runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_acc_f64_add_array_stream(
    acc: *mut adn_acc_f64,
    x: *const f64,
    n: usize,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { acc_add(Backend::Cuda, acc, x, n, stream) }
}

/// Adds `n` floats to `*acc` on the CUDA device: `x` is a device pointer (used in place
/// on the device that holds it) or a host pointer (copied to the current device); the fold
/// is the accumulator's (any fold). Afterwards `*acc` has exactly the state
/// `adn_acc_f32_add_array` gives on the same values; on any error it is unchanged.
/// `*acc` itself is host memory.
///
/// # Safety
/// `acc` points to a readable and writable `adn_acc_f32` in host memory; `x` to `n` readable
/// floats in host or device memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_acc_f32_add_array(
    acc: *mut adn_acc_f32,
    x: *const f32,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { acc_add(Backend::Cuda, acc, x, n, core::ptr::null_mut()) }
}

/// `adn_cuda_acc_f32_add_array` ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `*acc` is written.
///
/// # Safety
/// As `adn_cuda_acc_f32_add_array`; `stream` is NULL or a live stream of the device that
/// runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_acc_f32_add_array_stream(
    acc: *mut adn_acc_f32,
    x: *const f32,
    n: usize,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { acc_add(Backend::Cuda, acc, x, n, stream) }
}

/// The reproducible cumulative sum of `n` doubles continued from `*start`, on the CUDA
/// device: `out[i]` gets the bits of the value of `*start` merged with `input[0..=i]`, at
/// `*start`'s fold (any fold), as `adn_cumsum_f64_from` gives. Memory rules as
/// `adn_cuda_cumsum_f64`; `*start` is host memory, only read.
///
/// # Safety
/// `start` points to a readable `adn_acc_f64` in host memory; `input` and `out` as for
/// `adn_cuda_cumsum_f64` (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f64_from(
    start: *const adn_acc_f64,
    input: *const f64,
    out: *mut f64,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum_from(Backend::Cuda, start, input, out, n, core::ptr::null_mut()) }
}

/// `adn_cuda_cumsum_f64_from` ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_cuda_cumsum_f64_from`; `stream` is NULL or a live stream of the device that
/// runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f64_from_stream(
    start: *const adn_acc_f64,
    input: *const f64,
    out: *mut f64,
    n: usize,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum_from(Backend::Cuda, start, input, out, n, stream) }
}

/// The reproducible cumulative sum of `n` floats continued from `*start`, on the CUDA
/// device: `out[i]` gets the bits of the value of `*start` merged with `input[0..=i]`, at
/// `*start`'s fold (any fold), as `adn_cumsum_f32_from` gives. Memory rules as
/// `adn_cuda_cumsum_f32`; `*start` is host memory, only read.
///
/// # Safety
/// `start` points to a readable `adn_acc_f32` in host memory; `input` and `out` as for
/// `adn_cuda_cumsum_f32` (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f32_from(
    start: *const adn_acc_f32,
    input: *const f32,
    out: *mut f32,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum_from(Backend::Cuda, start, input, out, n, core::ptr::null_mut()) }
}

/// `adn_cuda_cumsum_f32_from` ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_cuda_cumsum_f32_from`; `stream` is NULL or a live stream of the device that
/// runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f32_from_stream(
    start: *const adn_acc_f32,
    input: *const f32,
    out: *mut f32,
    n: usize,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum_from(Backend::Cuda, start, input, out, n, stream) }
}

/// The reproducible sum of `n` doubles on the current HIP (AMD) device, at fold 3. `x` is a
/// device pointer or a host pointer (copied); `*out` is host memory, written only on
/// success. `ADN_NOT_BUILT` in a build without HIP support.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_f64(x: *const f64, n: usize, out: *mut f64) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f64>(Backend::Hip, x, n, 3, out, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` floats on the current HIP (AMD) device, at fold 3. `x` is a
/// device pointer or a host pointer (copied); `*out` is host memory, written only on
/// success. `ADN_NOT_BUILT` in a build without HIP support.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_f32(x: *const f32, n: usize, out: *mut f32) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f32>(Backend::Hip, x, n, 3, out, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` doubles on the current HIP (AMD) device, at fold `fold`. As
/// `adn_hip_sum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_f64_fold(
    x: *const f64,
    n: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f64>(Backend::Hip, x, n, fold, out, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` floats on the current HIP (AMD) device, at fold `fold`. As
/// `adn_hip_sum_f32`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_f32_fold(
    x: *const f32,
    n: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f32>(Backend::Hip, x, n, fold, out, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` doubles on the current HIP (AMD) device, at fold 3
/// (`input == out` allowed, other overlap is an error). The output lives where the input
/// lives (host or device memory).
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f64(input: *const f64, out: *mut f64, n: usize) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f64>(Backend::Hip, input, out, n, 3, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` floats on the current HIP (AMD) device, at fold 3
/// (`input == out` allowed, other overlap is an error). The output lives where the input
/// lives (host or device memory).
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f32(input: *const f32, out: *mut f32, n: usize) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f32>(Backend::Hip, input, out, n, 3, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` doubles on the current HIP (AMD) device, at fold
/// `fold`. As `adn_hip_cumsum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f64_fold(
    input: *const f64,
    out: *mut f64,
    n: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f64>(Backend::Hip, input, out, n, fold, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` floats on the current HIP (AMD) device, at fold
/// `fold`. As `adn_hip_cumsum_f32`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f32_fold(
    input: *const f32,
    out: *mut f32,
    n: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f32>(Backend::Hip, input, out, n, fold, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` doubles on the HIP (AMD) device that owns `stream` (or the
/// current one), at fold `fold`, ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `*out` is written. As `adn_hip_sum_f64` otherwise.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
/// `stream` is NULL or a live stream of the device that runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_f64_stream(
    x: *const f64,
    n: usize,
    fold: c_uint,
    out: *mut f64,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f64>(Backend::Hip, x, n, fold, out, stream) }
}

/// The reproducible sum of `n` floats on the HIP (AMD) device that owns `stream` (or the
/// current one), at fold `fold`, ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `*out` is written. As `adn_hip_sum_f32` otherwise.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
/// `stream` is NULL or a live stream of the device that runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_f32_stream(
    x: *const f32,
    n: usize,
    fold: c_uint,
    out: *mut f32,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum::<f32>(Backend::Hip, x, n, fold, out, stream) }
}

/// The reproducible cumulative sum of `n` doubles on HIP, ordered on `stream` (a
/// `hipStream_t`; NULL is the default stream); returns once `out` is written. As
/// `adn_hip_cumsum_f64_fold` otherwise.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
/// `stream` is NULL or a live stream of the device that runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f64_stream(
    input: *const f64,
    out: *mut f64,
    n: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f64>(Backend::Hip, input, out, n, fold, stream) }
}

/// The reproducible cumulative sum of `n` floats on HIP, ordered on `stream` (a
/// `hipStream_t`; NULL is the default stream); returns once `out` is written. As
/// `adn_hip_cumsum_f32_fold` otherwise.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
/// `stream` is NULL or a live stream of the device that runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f32_stream(
    input: *const f32,
    out: *mut f32,
    n: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum::<f32>(Backend::Hip, input, out, n, fold, stream) }
}

/// Adds `n` doubles to `*acc` on the HIP (AMD) device: `x` is a device pointer (used in place
/// on the device that holds it) or a host pointer (copied to the current device); the fold
/// is the accumulator's (any fold). Afterwards `*acc` has exactly the state
/// `adn_acc_f64_add_array` gives on the same values; on any error it is unchanged.
/// `*acc` itself is host memory.
///
/// # Safety
/// `acc` points to a readable and writable `adn_acc_f64` in host memory; `x` to `n` readable
/// doubles in host or device memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_acc_f64_add_array(
    acc: *mut adn_acc_f64,
    x: *const f64,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { acc_add(Backend::Hip, acc, x, n, core::ptr::null_mut()) }
}

/// `adn_hip_acc_f64_add_array` ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `*acc` is written.
///
/// # Safety
/// As `adn_hip_acc_f64_add_array`; `stream` is NULL or a live stream of the device that
/// runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_acc_f64_add_array_stream(
    acc: *mut adn_acc_f64,
    x: *const f64,
    n: usize,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { acc_add(Backend::Hip, acc, x, n, stream) }
}

/// Adds `n` floats to `*acc` on the HIP (AMD) device: `x` is a device pointer (used in place
/// on the device that holds it) or a host pointer (copied to the current device); the fold
/// is the accumulator's (any fold). Afterwards `*acc` has exactly the state
/// `adn_acc_f32_add_array` gives on the same values; on any error it is unchanged.
/// `*acc` itself is host memory.
///
/// # Safety
/// `acc` points to a readable and writable `adn_acc_f32` in host memory; `x` to `n` readable
/// floats in host or device memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_acc_f32_add_array(
    acc: *mut adn_acc_f32,
    x: *const f32,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { acc_add(Backend::Hip, acc, x, n, core::ptr::null_mut()) }
}

/// `adn_hip_acc_f32_add_array` ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `*acc` is written.
///
/// # Safety
/// As `adn_hip_acc_f32_add_array`; `stream` is NULL or a live stream of the device that
/// runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_acc_f32_add_array_stream(
    acc: *mut adn_acc_f32,
    x: *const f32,
    n: usize,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { acc_add(Backend::Hip, acc, x, n, stream) }
}

/// The reproducible cumulative sum of `n` doubles continued from `*start`, on the HIP (AMD)
/// device: `out[i]` gets the bits of the value of `*start` merged with `input[0..=i]`, at
/// `*start`'s fold (any fold), as `adn_cumsum_f64_from` gives. Memory rules as
/// `adn_hip_cumsum_f64`; `*start` is host memory, only read.
///
/// # Safety
/// `start` points to a readable `adn_acc_f64` in host memory; `input` and `out` as for
/// `adn_hip_cumsum_f64` (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f64_from(
    start: *const adn_acc_f64,
    input: *const f64,
    out: *mut f64,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum_from(Backend::Hip, start, input, out, n, core::ptr::null_mut()) }
}

/// `adn_hip_cumsum_f64_from` ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_hip_cumsum_f64_from`; `stream` is NULL or a live stream of the device that
/// runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f64_from_stream(
    start: *const adn_acc_f64,
    input: *const f64,
    out: *mut f64,
    n: usize,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum_from(Backend::Hip, start, input, out, n, stream) }
}

/// The reproducible cumulative sum of `n` floats continued from `*start`, on the HIP (AMD)
/// device: `out[i]` gets the bits of the value of `*start` merged with `input[0..=i]`, at
/// `*start`'s fold (any fold), as `adn_cumsum_f32_from` gives. Memory rules as
/// `adn_hip_cumsum_f32`; `*start` is host memory, only read.
///
/// # Safety
/// `start` points to a readable `adn_acc_f32` in host memory; `input` and `out` as for
/// `adn_hip_cumsum_f32` (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f32_from(
    start: *const adn_acc_f32,
    input: *const f32,
    out: *mut f32,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum_from(Backend::Hip, start, input, out, n, core::ptr::null_mut()) }
}

/// `adn_hip_cumsum_f32_from` ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_hip_cumsum_f32_from`; `stream` is NULL or a live stream of the device that
/// runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f32_from_stream(
    start: *const adn_acc_f32,
    input: *const f32,
    out: *mut f32,
    n: usize,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cumsum_from(Backend::Hip, start, input, out, n, stream) }
}

/// The reproducible sum of each segment of `x` on CUDA: `out[i]` gets the bits of
/// `adn_segmented_sum_f64` (the segment's sum alone). `x` and `out` are both device memory of
/// one device (used in place) or both host memory (copied through the current device);
/// `offsets` (`nseg + 1` entries, the last the number of values) is host memory or on the
/// device of `x`. Host offsets are checked on the host; device offsets on the device, before
/// anything is written. `ADN_NOT_BUILT` in a build without this back end.
///
/// # Safety
/// As `adn_segmented_sum_f64`, the pointers in host or device memory (not read in a build
/// without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_segmented_sum_f64(
    x: *const f64,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_sum::<f64>(Backend::Cuda, x, offsets, nseg, fold, out, core::ptr::null_mut()) }
}

/// As `adn_cuda_segmented_sum_f64`, ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_cuda_segmented_sum_f64`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_segmented_sum_f64_stream(
    x: *const f64,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut f64,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_sum::<f64>(Backend::Cuda, x, offsets, nseg, fold, out, stream) }
}

/// The reproducible sum of each row of a row-major matrix of doubles on CUDA: `out[r]` gets
/// the bits of `adn_sum_rows_f64` (that row's sum alone). `x` and `out` are both device memory
/// of one device or both host memory (copied). `ADN_NOT_BUILT` in a build without this back
/// end.
///
/// # Safety
/// As `adn_sum_rows_f64`, the pointers in host or device memory (not read in a build without
/// this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_rows_f64(
    x: *const f64,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe {
        sum_rows::<f64>(
            Backend::Cuda,
            x,
            rows,
            cols,
            row_stride,
            fold,
            out,
            core::ptr::null_mut(),
        )
    }
}

/// As `adn_cuda_sum_rows_f64`, ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_cuda_sum_rows_f64`; `stream` is NULL or a live stream of the device that runs the
/// call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_rows_f64_stream(
    x: *const f64,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut f64,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_rows::<f64>(Backend::Cuda, x, rows, cols, row_stride, fold, out, stream) }
}

/// The reproducible sum of each segment of `x` on CUDA: `out[i]` gets the bits of
/// `adn_segmented_sum_f32` (the segment's sum alone). `x` and `out` are both device memory of
/// one device (used in place) or both host memory (copied through the current device);
/// `offsets` (`nseg + 1` entries, the last the number of values) is host memory or on the
/// device of `x`. Host offsets are checked on the host; device offsets on the device, before
/// anything is written. `ADN_NOT_BUILT` in a build without this back end.
///
/// # Safety
/// As `adn_segmented_sum_f32`, the pointers in host or device memory (not read in a build
/// without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_segmented_sum_f32(
    x: *const f32,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_sum::<f32>(Backend::Cuda, x, offsets, nseg, fold, out, core::ptr::null_mut()) }
}

/// As `adn_cuda_segmented_sum_f32`, ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_cuda_segmented_sum_f32`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_segmented_sum_f32_stream(
    x: *const f32,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut f32,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_sum::<f32>(Backend::Cuda, x, offsets, nseg, fold, out, stream) }
}

/// The reproducible sum of each row of a row-major matrix of floats on CUDA: `out[r]` gets
/// the bits of `adn_sum_rows_f32` (that row's sum alone). `x` and `out` are both device memory
/// of one device or both host memory (copied). `ADN_NOT_BUILT` in a build without this back
/// end.
///
/// # Safety
/// As `adn_sum_rows_f32`, the pointers in host or device memory (not read in a build without
/// this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_rows_f32(
    x: *const f32,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe {
        sum_rows::<f32>(
            Backend::Cuda,
            x,
            rows,
            cols,
            row_stride,
            fold,
            out,
            core::ptr::null_mut(),
        )
    }
}

/// As `adn_cuda_sum_rows_f32`, ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_cuda_sum_rows_f32`; `stream` is NULL or a live stream of the device that runs the
/// call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_rows_f32_stream(
    x: *const f32,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut f32,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_rows::<f32>(Backend::Cuda, x, rows, cols, row_stride, fold, out, stream) }
}

/// The reproducible sum of each segment of `x` on HIP (AMD): `out[i]` gets the bits of
/// `adn_segmented_sum_f64` (the segment's sum alone). `x` and `out` are both device memory of
/// one device (used in place) or both host memory (copied through the current device);
/// `offsets` (`nseg + 1` entries, the last the number of values) is host memory or on the
/// device of `x`. Host offsets are checked on the host; device offsets on the device, before
/// anything is written. `ADN_NOT_BUILT` in a build without this back end.
///
/// # Safety
/// As `adn_segmented_sum_f64`, the pointers in host or device memory (not read in a build
/// without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_segmented_sum_f64(
    x: *const f64,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_sum::<f64>(Backend::Hip, x, offsets, nseg, fold, out, core::ptr::null_mut()) }
}

/// As `adn_hip_segmented_sum_f64`, ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_hip_segmented_sum_f64`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_segmented_sum_f64_stream(
    x: *const f64,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut f64,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_sum::<f64>(Backend::Hip, x, offsets, nseg, fold, out, stream) }
}

/// The reproducible sum of each row of a row-major matrix of doubles on HIP (AMD): `out[r]` gets
/// the bits of `adn_sum_rows_f64` (that row's sum alone). `x` and `out` are both device memory
/// of one device or both host memory (copied). `ADN_NOT_BUILT` in a build without this back
/// end.
///
/// # Safety
/// As `adn_sum_rows_f64`, the pointers in host or device memory (not read in a build without
/// this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_rows_f64(
    x: *const f64,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe {
        sum_rows::<f64>(
            Backend::Hip,
            x,
            rows,
            cols,
            row_stride,
            fold,
            out,
            core::ptr::null_mut(),
        )
    }
}

/// As `adn_hip_sum_rows_f64`, ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_hip_sum_rows_f64`; `stream` is NULL or a live stream of the device that runs the
/// call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_rows_f64_stream(
    x: *const f64,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut f64,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_rows::<f64>(Backend::Hip, x, rows, cols, row_stride, fold, out, stream) }
}

/// The reproducible sum of each segment of `x` on HIP (AMD): `out[i]` gets the bits of
/// `adn_segmented_sum_f32` (the segment's sum alone). `x` and `out` are both device memory of
/// one device (used in place) or both host memory (copied through the current device);
/// `offsets` (`nseg + 1` entries, the last the number of values) is host memory or on the
/// device of `x`. Host offsets are checked on the host; device offsets on the device, before
/// anything is written. `ADN_NOT_BUILT` in a build without this back end.
///
/// # Safety
/// As `adn_segmented_sum_f32`, the pointers in host or device memory (not read in a build
/// without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_segmented_sum_f32(
    x: *const f32,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_sum::<f32>(Backend::Hip, x, offsets, nseg, fold, out, core::ptr::null_mut()) }
}

/// As `adn_hip_segmented_sum_f32`, ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_hip_segmented_sum_f32`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_segmented_sum_f32_stream(
    x: *const f32,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    out: *mut f32,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_sum::<f32>(Backend::Hip, x, offsets, nseg, fold, out, stream) }
}

/// The reproducible sum of each row of a row-major matrix of floats on HIP (AMD): `out[r]` gets
/// the bits of `adn_sum_rows_f32` (that row's sum alone). `x` and `out` are both device memory
/// of one device or both host memory (copied). `ADN_NOT_BUILT` in a build without this back
/// end.
///
/// # Safety
/// As `adn_sum_rows_f32`, the pointers in host or device memory (not read in a build without
/// this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_rows_f32(
    x: *const f32,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe {
        sum_rows::<f32>(
            Backend::Hip,
            x,
            rows,
            cols,
            row_stride,
            fold,
            out,
            core::ptr::null_mut(),
        )
    }
}

/// As `adn_hip_sum_rows_f32`, ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_hip_sum_rows_f32`; `stream` is NULL or a live stream of the device that runs the
/// call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_rows_f32_stream(
    x: *const f32,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: c_uint,
    out: *mut f32,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_rows::<f32>(Backend::Hip, x, rows, cols, row_stride, fold, out, stream) }
}

/// The reproducible sum of the doubles of each key on CUDA: `out[k]` gets the bits of
/// `adn_sum_by_key_f64` (the sum of every `x[i]` with `keys[i] == k` alone, +0 for a key no
/// value has). `x` and `out` are both device memory of one device (used in place; `keys` host
/// memory or on that device) or all three host memory (copied through the current device).
/// A key out of range is `ADN_KEY_OUT_OF_RANGE`, found (for device keys, on the device)
/// before anything is written. `ADN_NOT_BUILT` in a build without this back end.
///
/// # Safety
/// As `adn_sum_by_key_f64`, the pointers in host or device memory (not read in a build
/// without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_by_key_f64(
    x: *const f64,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_by_key::<f64>(Backend::Cuda, x, keys, n, nkeys, fold, out, core::ptr::null_mut()) }
}

/// As `adn_cuda_sum_by_key_f64`, ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_cuda_sum_by_key_f64`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn adn_cuda_sum_by_key_f64_stream(
    x: *const f64,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut f64,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_by_key::<f64>(Backend::Cuda, x, keys, n, nkeys, fold, out, stream) }
}

/// The reproducible sum of the floats of each key on CUDA: `out[k]` gets the bits of
/// `adn_sum_by_key_f32` (the sum of every `x[i]` with `keys[i] == k` alone, +0 for a key no
/// value has). `x` and `out` are both device memory of one device (used in place; `keys` host
/// memory or on that device) or all three host memory (copied through the current device).
/// A key out of range is `ADN_KEY_OUT_OF_RANGE`, found (for device keys, on the device)
/// before anything is written. `ADN_NOT_BUILT` in a build without this back end.
///
/// # Safety
/// As `adn_sum_by_key_f32`, the pointers in host or device memory (not read in a build
/// without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_by_key_f32(
    x: *const f32,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_by_key::<f32>(Backend::Cuda, x, keys, n, nkeys, fold, out, core::ptr::null_mut()) }
}

/// As `adn_cuda_sum_by_key_f32`, ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_cuda_sum_by_key_f32`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn adn_cuda_sum_by_key_f32_stream(
    x: *const f32,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut f32,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_by_key::<f32>(Backend::Cuda, x, keys, n, nkeys, fold, out, stream) }
}

/// The reproducible sum of the doubles of each key on HIP: `out[k]` gets the bits of
/// `adn_sum_by_key_f64` (the sum of every `x[i]` with `keys[i] == k` alone, +0 for a key no
/// value has). `x` and `out` are both device memory of one device (used in place; `keys` host
/// memory or on that device) or all three host memory (copied through the current device).
/// A key out of range is `ADN_KEY_OUT_OF_RANGE`, found (for device keys, on the device)
/// before anything is written. `ADN_NOT_BUILT` in a build without this back end.
///
/// # Safety
/// As `adn_sum_by_key_f64`, the pointers in host or device memory (not read in a build
/// without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_by_key_f64(
    x: *const f64,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut f64,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_by_key::<f64>(Backend::Hip, x, keys, n, nkeys, fold, out, core::ptr::null_mut()) }
}

/// As `adn_hip_sum_by_key_f64`, ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_hip_sum_by_key_f64`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn adn_hip_sum_by_key_f64_stream(
    x: *const f64,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut f64,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_by_key::<f64>(Backend::Hip, x, keys, n, nkeys, fold, out, stream) }
}

/// The reproducible sum of the floats of each key on HIP: `out[k]` gets the bits of
/// `adn_sum_by_key_f32` (the sum of every `x[i]` with `keys[i] == k` alone, +0 for a key no
/// value has). `x` and `out` are both device memory of one device (used in place; `keys` host
/// memory or on that device) or all three host memory (copied through the current device).
/// A key out of range is `ADN_KEY_OUT_OF_RANGE`, found (for device keys, on the device)
/// before anything is written. `ADN_NOT_BUILT` in a build without this back end.
///
/// # Safety
/// As `adn_sum_by_key_f32`, the pointers in host or device memory (not read in a build
/// without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_by_key_f32(
    x: *const f32,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut f32,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_by_key::<f32>(Backend::Hip, x, keys, n, nkeys, fold, out, core::ptr::null_mut()) }
}

/// As `adn_hip_sum_by_key_f32`, ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_hip_sum_by_key_f32`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn adn_hip_sum_by_key_f32_stream(
    x: *const f32,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: c_uint,
    out: *mut f32,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { sum_by_key::<f32>(Backend::Hip, x, keys, n, nkeys, fold, out, stream) }
}

/// The reproducible cumulative sum of each segment of `input` on CUDA, starting afresh at every
/// segment: `out[j]` gets the bits of `adn_segmented_cumsum_f64` (the sum of the segment's
/// values up to `j` alone). `input` and `out` are both device memory of one device (used in
/// place) or both host memory (copied through the current device); `out == input` is
/// allowed, any other overlap is `ADN_OVERLAP`. `offsets` (`nseg + 1` entries, the last the
/// number of values) is host memory or on the device of `input`: host offsets are checked
/// on the host, device offsets on the device, before anything is written.
/// `ADN_NOT_BUILT` in a build without this back end.
///
/// # Safety
/// As `adn_segmented_cumsum_f64`, the pointers in host or device memory (not read in a build
/// without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_segmented_cumsum_f64(
    input: *const f64,
    out: *mut f64,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe {
        segmented_cumsum::<f64>(
            Backend::Cuda,
            input,
            out,
            offsets,
            nseg,
            fold,
            core::ptr::null_mut(),
        )
    }
}

/// As `adn_cuda_segmented_cumsum_f64`, ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_cuda_segmented_cumsum_f64`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_segmented_cumsum_f64_stream(
    input: *const f64,
    out: *mut f64,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_cumsum::<f64>(Backend::Cuda, input, out, offsets, nseg, fold, stream) }
}

/// The reproducible cumulative sum of each segment of floats on CUDA. As
/// `adn_cuda_segmented_cumsum_f64`.
///
/// # Safety
/// As `adn_cuda_segmented_cumsum_f64`, with floats.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_segmented_cumsum_f32(
    input: *const f32,
    out: *mut f32,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe {
        segmented_cumsum::<f32>(
            Backend::Cuda,
            input,
            out,
            offsets,
            nseg,
            fold,
            core::ptr::null_mut(),
        )
    }
}

/// As `adn_cuda_segmented_cumsum_f32`, ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_cuda_segmented_cumsum_f32`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_segmented_cumsum_f32_stream(
    input: *const f32,
    out: *mut f32,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_cumsum::<f32>(Backend::Cuda, input, out, offsets, nseg, fold, stream) }
}

/// The reproducible cumulative sum of each segment of `input` on HIP, starting afresh at every
/// segment: `out[j]` gets the bits of `adn_segmented_cumsum_f64` (the sum of the segment's
/// values up to `j` alone). `input` and `out` are both device memory of one device (used in
/// place) or both host memory (copied through the current device); `out == input` is
/// allowed, any other overlap is `ADN_OVERLAP`. `offsets` (`nseg + 1` entries, the last the
/// number of values) is host memory or on the device of `input`: host offsets are checked
/// on the host, device offsets on the device, before anything is written.
/// `ADN_NOT_BUILT` in a build without this back end.
///
/// # Safety
/// As `adn_segmented_cumsum_f64`, the pointers in host or device memory (not read in a build
/// without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_segmented_cumsum_f64(
    input: *const f64,
    out: *mut f64,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe {
        segmented_cumsum::<f64>(
            Backend::Hip,
            input,
            out,
            offsets,
            nseg,
            fold,
            core::ptr::null_mut(),
        )
    }
}

/// As `adn_hip_segmented_cumsum_f64`, ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_hip_segmented_cumsum_f64`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_segmented_cumsum_f64_stream(
    input: *const f64,
    out: *mut f64,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_cumsum::<f64>(Backend::Hip, input, out, offsets, nseg, fold, stream) }
}

/// The reproducible cumulative sum of each segment of floats on HIP. As
/// `adn_hip_segmented_cumsum_f64`.
///
/// # Safety
/// As `adn_hip_segmented_cumsum_f64`, with floats.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_segmented_cumsum_f32(
    input: *const f32,
    out: *mut f32,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe {
        segmented_cumsum::<f32>(
            Backend::Hip,
            input,
            out,
            offsets,
            nseg,
            fold,
            core::ptr::null_mut(),
        )
    }
}

/// As `adn_hip_segmented_cumsum_f32`, ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `out` is written.
///
/// # Safety
/// As `adn_hip_segmented_cumsum_f32`; `stream` is NULL or a live stream of the device that runs
/// the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_segmented_cumsum_f32_stream(
    input: *const f32,
    out: *mut f32,
    offsets: *const usize,
    nseg: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { segmented_cumsum::<f32>(Backend::Hip, input, out, offsets, nseg, fold, stream) }
}
