//! Reproducible sums and cumulative sums on GPUs, bit-identical to `reprosum-core`.
//!
//! With the feature `cuda`, `cuda` runs the kernels of `gpu/kernels/reprosum.cu` (one
//! source for CUDA and HIP behind `gpu/kernels/portable.h`) on NVIDIA GPUs. The kernels
//! are shipped as a committed fatbin (SASS for sm_75, sm_80, sm_86, sm_89, sm_90 and PTX
//! for compute_75, built by `gpu/scripts/build-fatbin.sh`), and the CUDA driver is
//! opened at run time: the crate builds with no CUDA installed, and a machine without a
//! driver or a GPU gets an error value, never a panic.
//!
//! With the feature `hip`, `hip` runs the same kernel source on AMD GPUs from a committed
//! code-object bundle (gfx906, gfx908, gfx90a, gfx1030; built by
//! `gpu/scripts/build-hip.sh`), through the HIP runtime opened at run time with libloading.
//! The HIP path has not run on AMD hardware: it is compiled, audited and its kernel text
//! emulated at wave widths 32 and 64 (`docs/EQUIVALENCE.md`, HIP).
//!
//! Every result has the bits of the core's at the same fold: a sum equals
//! `reprosum_core::sum_fold`, a cumulative sum's element `i` equals the sum of the first
//! `i + 1` values, and the accumulator a device sum returns has the core's byte encoding
//! and merges with CPU accumulators. Values can also be added on the device to an existing
//! accumulator (`add_ptr`, `Device::add_to`: the bytes `add_slice` gives), and a cumulative
//! sum can continue from one (`cumsum_from_ptr`, `Device::cumsum_from`: element `i` is the
//! value of the start with the first `i + 1` values added, as `reprosum::cumsum_from`).
//!
//! Every fold of the format runs on the GPU: f64 2..=52 and f32 2..=21, as on the CPU
//! ([`check_fold`]); folds 2..=8 ([`TUNED_FOLDS`]) on kernels built for each fold, the larger
//! ones on kernels that take the fold at run time (slower: their slots are in local memory).
//! Any other fold is [`GpuError::UnsupportedFold`] (never a silent fallback).

#![warn(missing_docs)]
#![forbid(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod error;
pub use error::{Api, GpuError};

/// The folds the GPU takes: f64's, 2..=52 (f32's end at 21: [`check_fold`]), the format's
/// folds (`reprosum_core::Float::MAX_FOLD`).
pub const GPU_FOLDS: core::ops::RangeInclusive<usize> = 2..=<f64 as reprosum_core::Float>::MAX_FOLD;

/// The folds with kernels built for each fold (tuned: the slots in registers); the larger
/// folds run on the kernels that take the fold at run time (`_kn` in the kernel source).
pub const TUNED_FOLDS: core::ops::RangeInclusive<usize> = 2..=8;

/// Checks a fold for values of type `T` (`f64`: 2..=52, `f32`: 2..=21, as the core).
///
/// # Errors
/// [`GpuError::UnsupportedFold`] for a fold outside `2..=T::MAX_FOLD`.
pub fn check_fold<T: reprosum_core::Float>(fold: usize) -> Result<(), GpuError> {
    if (2..=T::MAX_FOLD).contains(&fold) {
        Ok(())
    } else {
        Err(GpuError::UnsupportedFold(fold))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fold_of_the_format_and_no_other() {
        for k in [0, 1, 53, 64] {
            assert_eq!(check_fold::<f64>(k), Err(GpuError::UnsupportedFold(k)));
        }
        for k in [0, 1, 22, 52] {
            assert_eq!(check_fold::<f32>(k), Err(GpuError::UnsupportedFold(k)));
        }
        assert!((2..=52).all(|k| check_fold::<f64>(k).is_ok()));
        assert!((2..=21).all(|k| check_fold::<f32>(k).is_ok()));
        assert_eq!(*GPU_FOLDS.end(), 52);
        assert!(TUNED_FOLDS.clone().all(|k| GPU_FOLDS.contains(&k)));
    }
}

/// Layout constants of the kernels that both hosts use.
#[cfg(any(feature = "cuda", feature = "hip"))]
mod layout {
    /// Tiles per group of the cumsum's prefix tree (`RS_GROUP` in the kernel source).
    pub(crate) const GROUP: u64 = 256;

    /// Raking threads of the kernels' block scan (`RS_RAKE` in the kernel source).
    pub(crate) const RAKE: usize = 32;

    /// Bytes of the workspace's counter buffer: the sum's counter (16 bytes), then the
    /// cumsum's control words (`ctl`: the two tile lists' counts and the prefix kernel's
    /// counter; then, from its fourth word, the single-pass kernel's tile counter and its two
    /// list counts).
    pub(crate) const CONTROL_BYTES: usize = 48;

    #[cfg(test)]
    mod tests {
        #[test]
        fn group_is_the_kernels_group() {
            let want = format!("#define RS_GROUP {}\n", super::GROUP);
            assert!(
                crate::source::KERNELS.contains(&want),
                "the kernels' RS_GROUP is not {}",
                super::GROUP
            );
        }
    }
}

#[cfg(any(feature = "cuda", feature = "hip"))]
mod host;

#[cfg(any(feature = "cuda", feature = "hip"))]
pub mod runtime;

#[cfg(any(feature = "cuda", feature = "hip"))]
pub mod device;

#[cfg(feature = "cuda")]
pub mod cuda;

#[cfg(feature = "hip")]
pub mod hip;

/// Files of the kernel source, for the check that the committed fatbin matches it.
pub mod source {
    /// `gpu/kernels/reprosum.cu`.
    pub const KERNELS: &str = include_str!("../kernels/reprosum.cu");
    /// `gpu/kernels/portable.h`.
    pub const PORTABLE_H: &str = include_str!("../kernels/portable.h");
}
