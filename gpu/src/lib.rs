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
//! Folds 2..=8 are supported on the GPU; any other fold is [`GpuError::UnsupportedFold`]
//! (never a silent fallback).

#![warn(missing_docs)]
#![forbid(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod error;
pub use error::{Api, GpuError};

/// The folds the GPU kernels are built for.
pub const GPU_FOLDS: core::ops::RangeInclusive<usize> = 2..=8;

/// Checks a fold against [`GPU_FOLDS`].
///
/// # Errors
/// [`GpuError::UnsupportedFold`] for a fold outside `2..=8`.
pub fn check_fold(fold: usize) -> Result<(), GpuError> {
    if GPU_FOLDS.contains(&fold) {
        Ok(())
    } else {
        Err(GpuError::UnsupportedFold(fold))
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
    /// counter).
    pub(crate) const CONTROL_BYTES: usize = 32;

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
