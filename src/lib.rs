//! # reprosum
//!
//! Bit-reproducible floating-point sums and cumulative sums, multi-threaded.
//!
//! Every function here gives the same bits whatever the order of the values, the number
//! of threads, the chunking or the machine, and the bits of ReproBLAS's binned sum for
//! finite inputs. The work is split over rayon's thread pool; each chunk is summed into a
//! binned accumulator ([`Accumulator`], from [`reprosum_core`]) and the accumulators are
//! merged exactly.
//!
//! ```
//! // A naive sum depends on the order; this one does not.
//! let x: Vec<f64> = (0..100_000).map(|i| ((i * 7919) % 1000) as f64 * 1e-3 - 0.4).collect();
//! let mut y = x.clone();
//! y.reverse();
//! let a = reprosum::sum(&x).unwrap();
//! let b = reprosum::sum(&y).unwrap();
//! assert_eq!(a.to_bits(), b.to_bits());
//!
//! let mut prefix = vec![0.0; x.len()];
//! reprosum::cumsum(&x, &mut prefix).unwrap();
//! assert_eq!(prefix[x.len() - 1].to_bits(), a.to_bits());
//! ```
//!
//! The whole-slice functions set the floating-point environment each worker thread needs
//! (round to nearest, no flush-to-zero; see [`fpenv`]) and restore the caller's after.

#![warn(missing_docs)]

mod device;

use rayon::prelude::*;

pub use device::{cumsum_on, sum_on, Device, DeviceError};

pub use reprosum_core;
pub use reprosum_core::{
    encoding, fpenv, Accumulator, Dtype, DynAccumulator, Encoded, EncodingError, Error, Float, CAPACITY_F32,
    CAPACITY_F64, DEFAULT_FOLD,
};

pub use reprosum_core::simd::Path;

pub use reprosum_core::simd::{detect as best_path, select as select_path, supported as path_supported};

/// The deposit path in use (the fastest this CPU supports unless one was selected).
pub fn current_path() -> Path {
    reprosum_core::simd::path()
}

/// How a whole-slice call splits its work. The result never depends on these settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The fold K (default 3).
    pub fold: usize,
    /// Elements per parallel task; 0 picks a size from the input length and thread count.
    pub chunk_len: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            fold: DEFAULT_FOLD,
            chunk_len: 0,
        }
    }
}

impl Options {
    /// Default options with the given fold.
    pub fn with_fold(fold: usize) -> Self {
        Options {
            fold,
            ..Self::default()
        }
    }

    fn chunk_for(&self, n: usize) -> usize {
        if self.chunk_len > 0 {
            return self.chunk_len;
        }
        // Enough tasks to balance the pool, each large enough to amortise its merge.
        let tasks = rayon::current_num_threads().max(1) * 4;
        n.div_ceil(tasks).max(1 << 14)
    }
}

/// Below this many values a sum runs on the calling thread (tens of microseconds of work,
/// about what waking the pool costs).
const INLINE_SUM: usize = 1 << 17;
/// Below this many values a cumulative sum runs on the calling thread.
const INLINE_CUMSUM: usize = 1 << 14;

/// Whether `n` values are summed (or cumulatively summed) on the calling thread: fewer than
/// `below`, less work than handing it to the pool costs, or a pool of one thread, where
/// chunks would only add merges (for a cumulative sum, a second read of the data for the
/// chunk totals) and a hop to the pool's thread.
fn inline(n: usize, below: usize) -> bool {
    n < below || rayon::current_num_threads() <= 1
}

/// Checks fold and length before any work, and returns an empty accumulator.
fn prepare<T: Float>(n: usize, opts: &Options) -> Result<DynAccumulator<T>, Error> {
    let empty = DynAccumulator::new(opts.fold)?;
    if n as u64 > T::CAPACITY {
        return Err(Error::CapacityExceeded);
    }
    Ok(empty)
}

/// The accumulator of a whole slice, summed in parallel chunks and merged.
///
/// # Errors
/// [`Error::InvalidFold`], [`Error::CapacityExceeded`].
pub fn accumulate<T: Float>(xs: &[T], opts: &Options) -> Result<DynAccumulator<T>, Error> {
    let empty = prepare::<T>(xs.len(), opts)?;
    if opts.chunk_len == 0 && inline(xs.len(), INLINE_SUM) {
        return fpenv::with_ieee_fp(|| {
            let mut a = empty;
            a.add_slice(xs)?;
            Ok(a)
        });
    }
    let chunk = opts.chunk_for(xs.len());
    xs.par_chunks(chunk)
        .map(|part| {
            fpenv::with_ieee_fp(|| {
                let mut a = empty;
                a.add_slice(part)?;
                Ok(a)
            })
        })
        .try_reduce(
            || empty,
            |mut a, b| {
                fpenv::with_ieee_fp(|| a.merge(&b))?;
                Ok(a)
            },
        )
}

/// The reproducible sum of `xs` (fold 3), computed on all of rayon's threads.
///
/// # Errors
/// [`Error::CapacityExceeded`] if `xs` holds more than [`Float::CAPACITY`] values.
pub fn sum<T: Float>(xs: &[T]) -> Result<T, Error> {
    sum_with(xs, &Options::default())
}

/// The reproducible sum of `xs` at a run-time fold.
///
/// # Errors
/// [`Error::InvalidFold`], [`Error::CapacityExceeded`].
pub fn sum_fold<T: Float>(xs: &[T], fold: usize) -> Result<T, Error> {
    sum_with(xs, &Options::with_fold(fold))
}

/// The reproducible sum of `xs` with explicit options.
///
/// # Errors
/// [`Error::InvalidFold`], [`Error::CapacityExceeded`].
pub fn sum_with<T: Float>(xs: &[T], opts: &Options) -> Result<T, Error> {
    let acc = accumulate(xs, opts)?;
    Ok(fpenv::with_ieee_fp(|| acc.value()))
}

/// The reproducible cumulative sum (fold 3): `out[i]` has the bits of `sum(&xs[..=i])`.
///
/// # Errors
/// [`Error::LengthMismatch`], [`Error::CapacityExceeded`]; nothing is written then.
pub fn cumsum<T: Float>(xs: &[T], out: &mut [T]) -> Result<(), Error> {
    cumsum_with(xs, out, &Options::default())
}

/// The reproducible cumulative sum at a run-time fold.
///
/// # Errors
/// [`Error::InvalidFold`], [`Error::LengthMismatch`], [`Error::CapacityExceeded`];
/// nothing is written then.
pub fn cumsum_fold<T: Float>(xs: &[T], out: &mut [T], fold: usize) -> Result<(), Error> {
    cumsum_with(xs, out, &Options::with_fold(fold))
}

/// The exclusive prefix accumulators of the chunks of `xs`: entry i holds every value
/// before chunk i.
fn chunk_prefixes<T: Float>(
    xs: &[T],
    chunk: usize,
    empty: DynAccumulator<T>,
) -> Result<Vec<DynAccumulator<T>>, Error> {
    let totals: Vec<DynAccumulator<T>> = xs
        .par_chunks(chunk)
        .map(|part| {
            fpenv::with_ieee_fp(|| {
                let mut a = empty;
                a.add_slice(part)?;
                Ok(a)
            })
        })
        .collect::<Result<_, Error>>()?;
    fpenv::with_ieee_fp(|| {
        let mut running = empty;
        let mut prefixes = Vec::with_capacity(totals.len());
        for t in &totals {
            prefixes.push(running);
            running.merge(t)?;
        }
        Ok(prefixes)
    })
}

/// The reproducible cumulative sum with explicit options.
///
/// Three passes: chunk totals in parallel, an exact scan of the totals, then each chunk
/// replayed from its prefix in parallel. The bits are those of the one-at-a-time
/// definition, whatever the chunking.
///
/// # Errors
/// [`Error::InvalidFold`], [`Error::LengthMismatch`], [`Error::CapacityExceeded`];
/// nothing is written then.
pub fn cumsum_with<T: Float>(xs: &[T], out: &mut [T], opts: &Options) -> Result<(), Error> {
    if xs.len() != out.len() {
        return Err(Error::LengthMismatch);
    }
    let empty = prepare::<T>(xs.len(), opts)?;
    if opts.chunk_len == 0 && inline(xs.len(), INLINE_CUMSUM) {
        return replay(xs, out, empty);
    }
    let chunk = opts.chunk_for(xs.len());
    let prefixes = chunk_prefixes(xs, chunk, empty)?;
    out.par_chunks_mut(chunk)
        .zip(xs.par_chunks(chunk))
        .zip(prefixes.par_iter())
        .try_for_each(|((o, x), start)| replay(x, o, *start))
}

/// Writes the running values of `start` plus each element of `xs` to `out`.
fn replay<T: Float>(xs: &[T], out: &mut [T], mut acc: DynAccumulator<T>) -> Result<(), Error> {
    fpenv::with_ieee_fp(|| acc.add_running(xs, out))
}

/// The reproducible cumulative sum (fold 3), overwriting the input.
///
/// # Errors
/// [`Error::CapacityExceeded`]; nothing is written then.
pub fn cumsum_in_place<T: Float>(xs: &mut [T]) -> Result<(), Error> {
    cumsum_in_place_with(xs, &Options::default())
}

/// The reproducible cumulative sum with explicit options, overwriting the input.
///
/// # Errors
/// [`Error::InvalidFold`], [`Error::CapacityExceeded`]; nothing is written then.
pub fn cumsum_in_place_with<T: Float>(xs: &mut [T], opts: &Options) -> Result<(), Error> {
    let empty = prepare::<T>(xs.len(), opts)?;
    if opts.chunk_len == 0 && inline(xs.len(), INLINE_CUMSUM) {
        let mut acc = empty;
        return fpenv::with_ieee_fp(|| acc.add_running_in_place(xs));
    }
    let chunk = opts.chunk_for(xs.len());
    let prefixes = chunk_prefixes(xs, chunk, empty)?;
    xs.par_chunks_mut(chunk)
        .zip(prefixes.par_iter())
        .try_for_each(|(part, start)| {
            let mut acc = *start;
            fpenv::with_ieee_fp(|| acc.add_running_in_place(part))
        })
}

/// The README's Rust example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
