//! The C ABI of reprosum: `libreprosum.a` / `libreprosum.so`, declared in
//! `include/reprosum.h` (generated from this crate by cbindgen, see `ffi/cbindgen.toml`).
//!
//! Conventions (the README states them for C users):
//! - every function returns an [`adn_status`]: [`ADN_OK`] (0) or a fixed non-zero code;
//! - inputs come before outputs, and outputs are written only on success;
//! - a sum's scalar `out` is never NULL; an array pointer may be NULL only when its length
//!   is 0; a cumulative sum's `in` and `out` are equal or do not overlap;
//! - every export runs inside a panic boundary ([`panic::boundary`]): no panic crosses
//!   into C, a panic (a bug) becomes [`ADN_INTERNAL_ERROR`];
//! - the functions that do floating-point work set the standard floating-point mode for
//!   the call (round-to-nearest, no FTZ/DAZ) and restore the caller's mode after.
//!
//! The work runs through the facade (`reprosum`): the CPU entry points on its thread pool
//! (`threads`), the GPU entry points on its device dispatch. The functions are reentrant;
//! accumulators are plain caller-owned memory.

#![warn(missing_docs)]
#![forbid(unsafe_op_in_unsafe_fn)]
// The C names (adn_status, adn_acc_f64) are the ABI.
#![allow(non_camel_case_types)]

// Declared in the order the header lists their items.
// The header lists items in the order cbindgen parses these modules; each is its own group
// so that rustfmt keeps the order: status codes, version, sums, batched sums, threads,
// accumulators, GPU entry points.
pub mod status;

pub mod version;

pub mod sum;

pub mod batch;

pub mod threads;

pub mod acc;

pub mod gpu;

mod args;
pub mod panic;

pub use acc::{adn_acc_f32, adn_acc_f64};
pub use status::*;

/// The smallest fold of either type.
pub const ADN_MIN_FOLD: u32 = 2;
/// The default fold (3), as in ReproBLAS and SyclReproSum.
pub const ADN_DEFAULT_FOLD: u32 = 3;
/// The largest fold of a `double` sum.
pub const ADN_MAX_FOLD_F64: u32 = 52;
/// The largest fold of a `float` sum.
pub const ADN_MAX_FOLD_F32: u32 = 21;
/// The largest fold of a GPU sum (`adn_cuda_*`, `adn_hip_*`): every fold of the format runs
/// on the GPU, so this is `ADN_MAX_FOLD_F64` (a float's largest is `ADN_MAX_FOLD_F32`, as on
/// the CPU); a larger fold there is `ADN_INVALID_FOLD`.
pub const ADN_MAX_FOLD_GPU: u32 = 52;
/// The most `double` values one sum or accumulator may hold and keep the guarantee:
/// 9,223,372,036,854,773,760 (SyclReproSum's `max_reproducible_count<double>`).
pub const ADN_CAPACITY_F64: u64 = 9_223_372_036_854_773_760u64;
/// The most `float` values one sum or accumulator may hold and keep the guarantee:
/// 4,294,966,784 (SyclReproSum's `max_reproducible_count<float>`).
pub const ADN_CAPACITY_F32: u64 = 4_294_966_784u64;
/// The longest byte encoding of an accumulator (`double`, fold 52): 852 bytes. An encoding
/// is `20 + 2 * fold * sizeof(T)` bytes (version 2, `docs/FORMAT.md`; version-1 encodings,
/// 4 bytes shorter, are still read).
pub const ADN_ACC_ENCODED_MAX: usize = 852;

// The header's constants are literals (cbindgen cannot evaluate paths); these keep them
// equal to the core's.
const _: () = {
    assert!(ADN_DEFAULT_FOLD as usize == reprosum_core::DEFAULT_FOLD);
    assert!(ADN_MAX_FOLD_F64 as usize == <f64 as reprosum_core::Float>::MAX_FOLD);
    assert!(ADN_MAX_FOLD_F32 as usize == <f32 as reprosum_core::Float>::MAX_FOLD);
    assert!(ADN_CAPACITY_F64 == reprosum_core::CAPACITY_F64);
    assert!(ADN_CAPACITY_F32 == reprosum_core::CAPACITY_F32);
    assert!(ADN_ACC_ENCODED_MAX == reprosum_core::encoding::MAX_ENCODED_LEN);
};
#[cfg(any(feature = "cuda", feature = "hip"))]
const _: () = assert!(ADN_MAX_FOLD_GPU as usize == *reprosum_gpu::GPU_FOLDS.end());

/// Runs `f` in the standard floating-point mode (see `reprosum_core::fpenv`).
///
/// Under miri the control register cannot be touched (inline assembly), so `f` runs as is;
/// the mode's effect is tested natively.
#[inline]
pub(crate) fn ieee<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(not(miri))]
    {
        reprosum_core::fpenv::with_ieee_fp(f)
    }
    #[cfg(miri)]
    {
        f()
    }
}

#[cfg(test)]
mod tests;
