//! GPU entry points (device pointers, or host pointers that are copied).
//!
//! Declared in every build so that the header does not depend on features. The CUDA and
//! HIP back ends fill these bodies in behind the `cuda` and `hip` Cargo features; until
//! then (and in any build without that feature) each returns `ADN_NOT_BUILT` without
//! reading its arguments.

use crate::status::{adn_status, ADN_NOT_BUILT};
use core::ffi::c_uint;

/// What a GPU entry point of a back end this build lacks returns.
fn not_built() -> adn_status {
    crate::panic::boundary(crate::status::ADN_INTERNAL_ERROR, || ADN_NOT_BUILT)
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
    let _ = (x, n, out);
    not_built()
}

/// The reproducible sum of `n` floats on the current CUDA device, at fold 3. As
/// `adn_cuda_sum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_sum_f32(x: *const f32, n: usize, out: *mut f32) -> adn_status {
    let _ = (x, n, out);
    not_built()
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
    let _ = (x, n, fold, out);
    not_built()
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
    let _ = (x, n, fold, out);
    not_built()
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
    let _ = (input, out, n);
    not_built()
}

/// The reproducible cumulative sum of `n` floats on the current CUDA device, at fold 3. As
/// `adn_cuda_cumsum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_cuda_cumsum_f32(input: *const f32, out: *mut f32, n: usize) -> adn_status {
    let _ = (input, out, n);
    not_built()
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
    let _ = (input, out, n, fold);
    not_built()
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
    let _ = (input, out, n, fold);
    not_built()
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
    let _ = (x, n, out);
    not_built()
}

/// The reproducible sum of `n` floats on the current HIP device, at fold 3. As
/// `adn_hip_sum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_sum_f32(x: *const f32, n: usize, out: *mut f32) -> adn_status {
    let _ = (x, n, out);
    not_built()
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
    let _ = (x, n, fold, out);
    not_built()
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
    let _ = (x, n, fold, out);
    not_built()
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
    let _ = (input, out, n);
    not_built()
}

/// The reproducible cumulative sum of `n` floats on the current HIP device, at fold 3. As
/// `adn_hip_cumsum_f64`.
///
/// # Safety
/// The pointers are as for the host entry point of the same name without the device
/// prefix, in device or host memory (not read in a build without this back end).
#[no_mangle]
pub unsafe extern "C" fn adn_hip_cumsum_f32(input: *const f32, out: *mut f32, n: usize) -> adn_status {
    let _ = (input, out, n);
    not_built()
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
    let _ = (input, out, n, fold);
    not_built()
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
    let _ = (input, out, n, fold);
    not_built()
}
