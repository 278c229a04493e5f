//! GPU entry points (device pointers, or host pointers that are copied).
//!
//! Declared in every build so that the header does not depend on features. The CUDA and
//! HIP back ends fill these bodies in behind the `cuda` and `hip` Cargo features; until
//! then (and in any build without that feature) each returns `ADN_NOT_BUILT` without
//! reading its arguments.

use crate::status::adn_status;
use core::ffi::{c_uint, c_void};

/// The work behind the entry points of one back end (`cuda` or `hip` of reprosum-gpu, which
/// have the same functions), with the checks and status codes of the host entry points.
macro_rules! backend {
    ($name:ident, $feature:literal, $module:ident) => {
        #[cfg(feature = $feature)]
        mod $name {
            use crate::args::{array, byte_range, disjoint, non_null};
            use crate::status::*;
            use core::ffi::{c_uint, c_void};
            use reprosum_gpu::{$module as gpu, GpuError};

            fn status_of(e: GpuError) -> adn_status {
                match e {
                    GpuError::NoDriver
                    | GpuError::NoDevice { .. }
                    | GpuError::NoHipRuntime
                    | GpuError::NoHipDevice { .. } => ADN_NO_DEVICE,
                    // 2 is the out-of-memory code of both CUresult and hipError_t.
                    GpuError::Driver { code: 2, .. } | GpuError::HostOutOfMemory { .. } => ADN_OUT_OF_MEMORY,
                    GpuError::Driver { .. } | GpuError::ProbeFailed(_) => ADN_DEVICE_ERROR,
                    GpuError::UnsupportedFold(_) => ADN_INVALID_FOLD,
                    GpuError::CapacityExceeded => ADN_CAPACITY_EXCEEDED,
                    GpuError::InvalidPointer(_) => ADN_INVALID_POINTER,
                    GpuError::Core(e) => from_error(e),
                    _ => ADN_INTERNAL_ERROR,
                }
            }

            /// A sum on the device: the host checks first, then the back end.
            ///
            /// # Safety
            /// `x`: `n` readable values (host or device memory) or `n == 0`; `out`: a writable
            /// host `T`; `stream`: null or a live stream of the device that runs the call.
            pub(super) unsafe fn sum<T: gpu::GpuFloat>(
                x: *const T,
                n: usize,
                fold: c_uint,
                out: *mut T,
                stream: *mut c_void,
            ) -> adn_status {
                crate::panic::status(|| {
                    non_null(out)?;
                    let k = crate::sum::fold_of::<T>(fold)?;
                    array(x, n)?;
                    // SAFETY: the caller's contract, checked as far as the host can.
                    let v = crate::ieee(|| unsafe { gpu::sum_ptr(x, n, k, stream) }).map_err(status_of)?;
                    // SAFETY: `out` is non-NULL and aligned (checked), host memory (contract).
                    unsafe { out.write(v) };
                    Ok(())
                })
            }

            /// A cumulative sum on the device (`input == out` allowed).
            ///
            /// # Safety
            /// `input`: `n` readable values, `out`: `n` writable values, in the same memory
            /// (host, or one device); `stream` as for [`sum`].
            pub(super) unsafe fn cumsum<T: gpu::GpuFloat>(
                input: *const T,
                out: *mut T,
                n: usize,
                fold: c_uint,
                stream: *mut c_void,
            ) -> adn_status {
                crate::panic::status(|| {
                    if n > 0 && (input.is_null() || out.is_null()) {
                        return Err(ADN_NULL_POINTER);
                    }
                    let k = crate::sum::fold_of::<T>(fold)?;
                    array(input, n)?;
                    array(out.cast_const(), n)?;
                    if !core::ptr::eq(input, out) {
                        disjoint(byte_range(input, n)?, byte_range(out.cast_const(), n)?)?;
                    }
                    // SAFETY: the caller's contract, checked as far as the host can.
                    crate::ieee(|| unsafe { gpu::cumsum_ptr(input, out, n, k, stream) }).map_err(status_of)
                })
            }
        }

        #[cfg(not(feature = $feature))]
        backend!(off $name);
    };
    (off $name:ident) => {
        mod $name {
            use crate::status::{adn_status, ADN_INTERNAL_ERROR, ADN_NOT_BUILT};
            use core::ffi::{c_uint, c_void};

            /// A build without this back end: `ADN_NOT_BUILT`, arguments unread.
            pub(super) unsafe fn sum<T>(_: *const T, _: usize, _: c_uint, _: *mut T, _: *mut c_void) -> adn_status {
                crate::panic::boundary(ADN_INTERNAL_ERROR, || ADN_NOT_BUILT)
            }

            /// A build without this back end: `ADN_NOT_BUILT`, arguments unread.
            pub(super) unsafe fn cumsum<T>(_: *const T, _: *mut T, _: usize, _: c_uint, _: *mut c_void) -> adn_status {
                crate::panic::boundary(ADN_INTERNAL_ERROR, || ADN_NOT_BUILT)
            }
        }
    };
}

backend!(cuda_impl, "cuda", cuda);
backend!(hip_impl, "hip", hip);

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
    unsafe { cuda_impl::sum::<f64>(x, n, 3, out, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` floats on the current CUDA device, at fold 3. As
/// `adn_cuda_sum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_f32(x: *const f32, n: usize, out: *mut f32) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cuda_impl::sum::<f32>(x, n, 3, out, core::ptr::null_mut()) }
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
    unsafe { cuda_impl::sum::<f64>(x, n, fold, out, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` floats on the current CUDA device, at fold `fold`. As
/// `adn_cuda_sum_f64`.
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
    unsafe { cuda_impl::sum::<f32>(x, n, fold, out, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` doubles on the current CUDA device, at fold 3
/// (`input == out` allowed, other overlap is an error). `ADN_NOT_BUILT` in a build without
/// CUDA support.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f64(input: *const f64, out: *mut f64, n: usize) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cuda_impl::cumsum::<f64>(input, out, n, 3, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` floats on the current CUDA device, at fold 3. As
/// `adn_cuda_cumsum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f32(input: *const f32, out: *mut f32, n: usize) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cuda_impl::cumsum::<f32>(input, out, n, 3, core::ptr::null_mut()) }
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
    unsafe { cuda_impl::cumsum::<f64>(input, out, n, fold, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` floats on the current CUDA device, at fold
/// `fold`. As `adn_cuda_cumsum_f64`.
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
    unsafe { cuda_impl::cumsum::<f32>(input, out, n, fold, core::ptr::null_mut()) }
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
    unsafe { hip_impl::sum::<f64>(x, n, 3, out, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` floats on the current HIP device, at fold 3. As
/// `adn_hip_sum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_f32(x: *const f32, n: usize, out: *mut f32) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { hip_impl::sum::<f32>(x, n, 3, out, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` doubles on the current HIP device, at fold `fold`. As
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
    unsafe { hip_impl::sum::<f64>(x, n, fold, out, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` floats on the current HIP device, at fold `fold`. As
/// `adn_hip_sum_f64`.
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
    unsafe { hip_impl::sum::<f32>(x, n, fold, out, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` doubles on the current HIP device, at fold 3
/// (`input == out` allowed, other overlap is an error). `ADN_NOT_BUILT` in a build without
/// HIP support.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f64(input: *const f64, out: *mut f64, n: usize) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { hip_impl::cumsum::<f64>(input, out, n, 3, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` floats on the current HIP device, at fold 3. As
/// `adn_hip_cumsum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f32(input: *const f32, out: *mut f32, n: usize) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { hip_impl::cumsum::<f32>(input, out, n, 3, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` doubles on the current HIP device, at fold
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
    unsafe { hip_impl::cumsum::<f64>(input, out, n, fold, core::ptr::null_mut()) }
}

/// The reproducible cumulative sum of `n` floats on the current HIP device, at fold
/// `fold`. As `adn_hip_cumsum_f64`.
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
    unsafe { hip_impl::cumsum::<f32>(input, out, n, fold, core::ptr::null_mut()) }
}

/// The reproducible sum of `n` doubles on the CUDA device that owns `stream` (or the
/// current one), at fold `fold`, ordered on `stream` (a `cudaStream_t`; NULL is the default
/// stream); returns once `*out` is written. As `adn_cuda_sum_f64` otherwise.
///
/// # Safety
/// As `adn_cuda_sum_f64`; `stream` is NULL or a live stream of the device that runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_f64_stream(
    x: *const f64,
    n: usize,
    fold: c_uint,
    out: *mut f64,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cuda_impl::sum::<f64>(x, n, fold, out, stream) }
}

/// The float twin of `adn_cuda_sum_f64_stream`.
///
/// # Safety
/// As `adn_cuda_sum_f64_stream`.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_f32_stream(
    x: *const f32,
    n: usize,
    fold: c_uint,
    out: *mut f32,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cuda_impl::sum::<f32>(x, n, fold, out, stream) }
}

/// The reproducible cumulative sum of `n` doubles on CUDA, ordered on `stream` (a
/// `cudaStream_t`; NULL is the default stream); returns once `out` is written. As
/// `adn_cuda_cumsum_f64_fold` otherwise.
///
/// # Safety
/// As `adn_cuda_cumsum_f64`; `stream` is NULL or a live stream of the device that runs the
/// call.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f64_stream(
    input: *const f64,
    out: *mut f64,
    n: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cuda_impl::cumsum::<f64>(input, out, n, fold, stream) }
}

/// The float twin of `adn_cuda_cumsum_f64_stream`.
///
/// # Safety
/// As `adn_cuda_cumsum_f64_stream`.
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f32_stream(
    input: *const f32,
    out: *mut f32,
    n: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { cuda_impl::cumsum::<f32>(input, out, n, fold, stream) }
}

/// The reproducible sum of `n` doubles on the HIP device that owns `stream` (or the
/// current one), at fold `fold`, ordered on `stream` (a `hipStream_t`; NULL is the default
/// stream); returns once `*out` is written. As `adn_hip_sum_f64` otherwise.
///
/// # Safety
/// As `adn_hip_sum_f64`; `stream` is NULL or a live stream of the device that runs the call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_f64_stream(
    x: *const f64,
    n: usize,
    fold: c_uint,
    out: *mut f64,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { hip_impl::sum::<f64>(x, n, fold, out, stream) }
}

/// The float twin of `adn_hip_sum_f64_stream`.
///
/// # Safety
/// As `adn_hip_sum_f64_stream`.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_f32_stream(
    x: *const f32,
    n: usize,
    fold: c_uint,
    out: *mut f32,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { hip_impl::sum::<f32>(x, n, fold, out, stream) }
}

/// The reproducible cumulative sum of `n` doubles on HIP, ordered on `stream` (a
/// `hipStream_t`; NULL is the default stream); returns once `out` is written. As
/// `adn_hip_cumsum_f64_fold` otherwise.
///
/// # Safety
/// As `adn_hip_cumsum_f64`; `stream` is NULL or a live stream of the device that runs the
/// call.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f64_stream(
    input: *const f64,
    out: *mut f64,
    n: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { hip_impl::cumsum::<f64>(input, out, n, fold, stream) }
}

/// The float twin of `adn_hip_cumsum_f64_stream`.
///
/// # Safety
/// As `adn_hip_cumsum_f64_stream`.
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f32_stream(
    input: *const f32,
    out: *mut f32,
    n: usize,
    fold: c_uint,
    stream: *mut c_void,
) -> adn_status {
    // SAFETY: the caller keeps the contract stated above.
    unsafe { hip_impl::cumsum::<f32>(input, out, n, fold, stream) }
}
