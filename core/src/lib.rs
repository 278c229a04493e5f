//! # reprosum-core
//!
//! Reproducible floating-point summation for `no_std` targets: a sum or cumulative sum of
//! `f32` or `f64` values whose bits depend only on the multiset of values (and the type
//! and fold), not on their order, the chunking, the reduction tree, the thread count or the
//! device. Values are deposited into a K-fold binned accumulator (Ahrens, Demmel and
//! Nguyen), with the bits of ReproBLAS's binned sum for every finite input, and
//! SyclReproSum's order-free rule for NaN and Inf.
//!
//! This crate allocates nothing, has no dependencies and never panics; errors are
//! [`Error`] values. (No panic path is left in the optimised code: the repository's
//! `cross/nopanic` links a program that calls every function here with a panic handler
//! that references an undefined symbol.)
//!
//! ```
//! use reprosum_core::{sum, cumsum, Accumulator};
//!
//! // Order does not matter: the same bits for any permutation.
//! let x = [1e16f64, 1.0, -1e16, 0.5];
//! let y = [0.5f64, -1e16, 1.0, 1e16];
//! assert_eq!(sum(&x).unwrap().to_bits(), sum(&y).unwrap().to_bits());
//! assert_eq!(sum(&x).unwrap(), 1.5);
//!
//! // Split the work any way and merge: the same bits.
//! let mut a = Accumulator::<f64>::new();
//! a.add_slice(&x[..2]).unwrap();
//! let mut b = Accumulator::<f64>::new();
//! b.add_slice(&x[2..]).unwrap();
//! a.merge(&b).unwrap();
//! assert_eq!(a.value().to_bits(), sum(&x).unwrap().to_bits());
//!
//! // Every prefix of a cumulative sum is the sum of that prefix.
//! let mut out = [0.0; 4];
//! cumsum(&x, &mut out).unwrap();
//! assert_eq!(out[3].to_bits(), sum(&x).unwrap().to_bits());
//! ```
//!
//! # What it costs
//!
//! Accuracy is absolute, not relative: the error is about `n * 2^(-W (K-1)) * max|x|`
//! with W = 40 (f64) or 13 (f32). At the default fold K = 3, `{max, -max, max, -max, 1,
//! 2, 3}` in f64 sums to +0.0, and `{1e20, -1e20, 3.5, -2, 0.25}` in f32 sums to +0.0 (K =
//! 6 gives 2.0). Everything finer than 2^-1055 (f64) / 2^-144 (f32) is rounded away.
//! A zero result is always +0.0.
//!
//! # Floating-point environment
//!
//! The arithmetic needs round-to-nearest-even and no flush-to-zero or
//! denormals-are-zero. This crate does not touch the control register per call: callers
//! that may run with another mode (a fast-math library can set FTZ/DAZ on x86-64 or FZ on
//! aarch64) wrap their whole-slice calls in [`fpenv::with_ieee_fp`], as the `reprosum`
//! facade and the C library do.

#![no_std]
#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod accumulator;
mod binned;
pub mod encoding;
mod float;
pub mod fpenv;
mod scan;
pub mod simd;
mod sum;

pub use accumulator::{Accumulator, DynAccumulator};
pub use encoding::Encoded;
pub use float::{Dtype, Float};
pub use sum::{
    cumsum, cumsum_fold, cumsum_in_place, cumsum_in_place_fold, cumsum_in_place_k, cumsum_k, sum, sum_fold,
    sum_k,
};

/// The default fold (3), as in ReproBLAS and SyclReproSum.
pub const DEFAULT_FOLD: usize = 3;

/// Values an f64 accumulator may hold and keep the guarantee: 9,223,372,036,854,773,760.
pub const CAPACITY_F64: u64 = <f64 as Float>::CAPACITY;
/// Values an f32 accumulator may hold and keep the guarantee: 4,294,966,784.
pub const CAPACITY_F32: u64 = <f32 as Float>::CAPACITY;

/// What went wrong. Every fallible function returns one of these; nothing panics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// More values than the accumulator's capacity ([`Float::CAPACITY`]).
    CapacityExceeded,
    /// Input and output slices of different lengths.
    LengthMismatch,
    /// A fold outside `2..=52` (f64) or `2..=21` (f32).
    InvalidFold,
    /// Merging accumulators of different folds.
    FoldMismatch,
    /// Bytes that are not a valid accumulator encoding.
    Encoding(EncodingError),
    /// Memory or a thread could not be obtained. The core itself never allocates; the
    /// multi-threaded facade (`reprosum`), the C library and the GPU hosts return this
    /// instead of aborting when the system refuses them.
    OutOfMemory,
    /// Segment offsets that are not a valid layout: fewer than one entry, a first entry
    /// other than 0, a decrease, or a last entry other than the input's length.
    InvalidOffsets,
    /// A row longer than the row stride (`cols > row_stride`).
    InvalidStride,
    /// A key of a keyed sum that is negative or not below the number of keys.
    KeyOutOfRange,
}

/// Why bytes were refused as an accumulator encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodingError {
    /// Too short, or not the length its fold needs.
    Length,
    /// Does not start with the magic bytes.
    Magic,
    /// An unknown format version.
    Version,
    /// Encodes the other float type.
    Dtype,
    /// A fold outside the type's range, or not the fold asked for.
    Fold,
    /// Unknown special-value flag bits.
    Flags,
    /// A count past the capacity, or inconsistent with the flags.
    Count,
    /// Primaries or carries no renormalised state of that count can have.
    State,
    /// The checksum of a version-2 encoding does not match: the bytes were changed.
    Checksum,
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::CapacityExceeded => f.write_str("more values than the accumulator's capacity"),
            Error::LengthMismatch => f.write_str("input and output lengths differ"),
            Error::InvalidFold => f.write_str("fold outside 2..=52 (f64) or 2..=21 (f32)"),
            Error::FoldMismatch => f.write_str("accumulators of different folds"),
            Error::Encoding(e) => write!(f, "invalid accumulator encoding: {e}"),
            Error::OutOfMemory => f.write_str("out of memory (an allocation or a thread was refused)"),
            Error::InvalidOffsets => {
                f.write_str("segment offsets not non-decreasing from 0 to the input's length")
            }
            Error::InvalidStride => f.write_str("a row longer than the row stride"),
            Error::KeyOutOfRange => f.write_str("a key negative or not below the number of keys"),
        }
    }
}

impl core::fmt::Display for EncodingError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            EncodingError::Length => "wrong length",
            EncodingError::Magic => "bad magic",
            EncodingError::Version => "unknown version",
            EncodingError::Dtype => "wrong float type",
            EncodingError::Fold => "wrong or invalid fold",
            EncodingError::Flags => "unknown flag bits",
            EncodingError::Count => "bad count",
            EncodingError::State => "corrupt state",
            EncodingError::Checksum => "checksum mismatch (the bytes were changed or truncated)",
        })
    }
}

impl core::error::Error for Error {}
impl core::error::Error for EncodingError {}

/// The crate README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
