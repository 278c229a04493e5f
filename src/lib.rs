//! # reprosum
//!
//! Bit-reproducible floating-point sums and cumulative sums, multi-threaded.
//!
//! Every function here gives the same bits whatever the order of the values, the number
//! of threads, the chunking or the machine, and the bits of ReproBLAS's binned sum for
//! finite inputs. The work is split over a rayon thread pool (the caller's, when called from
//! inside one, else the crate's own: [`set_num_threads`]); each chunk is summed into a
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
mod pool;
mod segmented;

use pool::Threads;

pub use device::accumulate_on;
pub use device::{add_ptr, cumsum_from_ptr, cumsum_ptr, sum_ptr, Backend, DeviceErrorKind};
pub use device::{cumsum_from_on, cumsum_on, sum_on, Device, DeviceError};
pub use device::{
    segmented_cumsum_on, segmented_cumsum_ptr, segmented_sum_on, segmented_sum_ptr, sum_by_key_on,
    sum_by_key_ptr, sum_rows_on, sum_rows_ptr,
};
pub use pool::{num_threads, set_num_threads};
pub use segmented::{
    add_by_key, add_by_key_with, add_segments, add_segments_with, segmented_cumsum,
    segmented_cumsum_in_place, segmented_cumsum_in_place_with, segmented_cumsum_with, segmented_sum,
    segmented_sum_with, sum_by_key, sum_by_key_with, sum_rows, sum_rows_with, AccumulatorSlot,
};

pub use reprosum_core;
pub use reprosum_core::{
    encoding, fpenv, Accumulator, Dtype, DynAccumulator, Encoded, EncodingError, Error, Float, CAPACITY_F32,
    CAPACITY_F64, DEFAULT_FOLD,
};

pub use reprosum_core::simd::{Path, Platform};

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

    fn chunk_for(&self, n: usize, threads: usize) -> usize {
        if self.chunk_len > 0 {
            return self.chunk_len;
        }
        // Enough tasks to balance the pool, each large enough to amortise its merge.
        let tasks = threads.max(1) * 4;
        n.div_ceil(tasks).max(1 << 14)
    }
}

/// Below this many values a sum runs on the calling thread (tens of microseconds of work,
/// about what waking the pool costs).
const INLINE_SUM: usize = 1 << 17;
/// Below this many values a cumulative sum runs on the calling thread.
const INLINE_CUMSUM: usize = 1 << 14;

/// Whether `n` values are too few to hand to a pool (fewer than `below`: less work than
/// waking the pool costs), unless the caller asked for chunks.
fn small(n: usize, below: usize, opts: &Options) -> bool {
    opts.chunk_len == 0 && n < below
}

/// Whether `n` values are summed (or cumulatively summed) in one piece where `threads`
/// says: on the calling thread, when small, or on a pool of one thread, where chunks would
/// only add merges (for a cumulative sum, a second read of the data for the chunk totals).
/// A caller's `chunk_len` is honoured inside a rayon pool of any size.
fn whole(n: usize, below: usize, opts: &Options, threads: &Threads) -> bool {
    match threads {
        Threads::Calling => true,
        Threads::Pool(_) | Threads::Facade(_) => opts.chunk_len == 0 && (n < below || threads.count() <= 1),
    }
}

/// Checks fold and length before any work, and returns an empty accumulator.
fn prepare<T: Float>(n: usize, opts: &Options) -> Result<DynAccumulator<T>, Error> {
    let empty = DynAccumulator::new(opts.fold)?;
    if n as u64 > T::CAPACITY {
        return Err(Error::CapacityExceeded);
    }
    Ok(empty)
}

/// Checks that `n` more values fit in `acc` (its count and `n` together at most
/// [`Float::CAPACITY`]).
///
/// # Errors
/// [`Error::CapacityExceeded`].
pub fn check_room<T: Float>(acc: &DynAccumulator<T>, n: usize) -> Result<(), Error> {
    if n as u64 > T::CAPACITY - acc.count().min(T::CAPACITY) {
        Err(Error::CapacityExceeded)
    } else {
        Ok(())
    }
}

/// The accumulator of a whole slice, summed in parallel chunks and merged.
///
/// # Errors
/// [`Error::InvalidFold`], [`Error::CapacityExceeded`].
pub fn accumulate<T: Float>(xs: &[T], opts: &Options) -> Result<DynAccumulator<T>, Error> {
    let empty = prepare::<T>(xs.len(), opts)?;
    let n = xs.len();
    pool::run(small(n, INLINE_SUM, opts), |threads| {
        if whole(n, INLINE_SUM, opts, &threads) {
            return fpenv::with_ieee_fp(|| {
                let mut a = empty;
                a.add_slice(xs)?;
                Ok(a)
            });
        }
        let parts = totals(&threads, xs, opts.chunk_for(n, threads.count()), empty)?;
        fpenv::with_ieee_fp(|| {
            let mut a = empty;
            for p in &parts {
                a.merge(p)?;
            }
            Ok(a)
        })
    })
}

/// The reproducible sum of `xs` (fold 3), computed on the pool's threads ([`set_num_threads`]).
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
    if small(xs.len(), INLINE_SUM, opts) {
        // On the calling thread, as `accumulate` would sum it, without the pool's dispatch
        // and (for a slice of up to one endurance) without an accumulator: the same bits.
        return fpenv::with_ieee_fp(|| reprosum_core::sum_fold(xs, opts.fold));
    }
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

/// The accumulators of the chunks of `xs`, each summed on one of `threads`.
fn totals<T: Float>(
    threads: &Threads,
    xs: &[T],
    chunk: usize,
    empty: DynAccumulator<T>,
) -> Result<Vec<DynAccumulator<T>>, Error> {
    threads.map(xs.chunks(chunk), |part| {
        fpenv::with_ieee_fp(|| {
            let mut a = empty;
            a.add_slice(part)?;
            Ok(a)
        })
    })
}

/// The exclusive prefix accumulators of the chunks of `xs`, starting from `start`: entry i
/// holds `start` and every value before chunk i. Also returns `start` with all of `xs`.
fn chunk_prefixes<T: Float>(
    threads: &Threads,
    xs: &[T],
    chunk: usize,
    empty: DynAccumulator<T>,
    start: DynAccumulator<T>,
) -> Result<(Vec<DynAccumulator<T>>, DynAccumulator<T>), Error> {
    let totals = totals(threads, xs, chunk, empty)?;
    // Allocated fallibly: an allocation the system refuses is an error, not an abort.
    let mut prefixes: Vec<DynAccumulator<T>> = Vec::new();
    prefixes
        .try_reserve_exact(totals.len())
        .map_err(|_| Error::OutOfMemory)?;
    fpenv::with_ieee_fp(|| {
        let mut running = start;
        for t in &totals {
            prefixes.push(running);
            running.merge(t)?;
        }
        Ok((prefixes, running))
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
    cumsum_from(&empty, xs, out, opts).map(|_| ())
}

/// The reproducible cumulative sum of `xs` continued from `start`: `out[i]` has the bits
/// of the value of `start` merged with `xs[..=i]`, and the returned accumulator is `start`
/// merged with all of `xs`.
///
/// This is how a long input is summed in pieces: feeding the pieces of a slice in order,
/// each from the accumulator the last call returned (the first from an empty one), writes
/// the bits [`cumsum_with`] writes for the whole slice, whatever the split.
///
/// The fold is `start`'s (`opts.fold` is not used; `opts.chunk_len` is). The work is
/// threaded as in [`cumsum_with`].
///
/// ```
/// use reprosum::{cumsum_from, DynAccumulator, Options};
/// let xs = [1e16, 1.0, -1e16, 2.5, 3.0];
/// let mut whole = [0.0; 5];
/// reprosum::cumsum_fold(&xs, &mut whole, 4).unwrap();
///
/// let mut out = [0.0; 5];
/// let opts = Options::default();
/// let acc = DynAccumulator::new(4).unwrap();
/// let acc = cumsum_from(&acc, &xs[..2], &mut out[..2], &opts).unwrap();
/// let acc = cumsum_from(&acc, &xs[2..], &mut out[2..], &opts).unwrap();
/// assert_eq!(out.map(f64::to_bits), whole.map(f64::to_bits));
/// assert_eq!(acc.value().to_bits(), whole[4].to_bits());
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`] if `out` is not as long as `xs`; [`Error::CapacityExceeded`]
/// if `start`'s count and `xs.len()` together pass [`Float::CAPACITY`]. Nothing is written
/// then.
pub fn cumsum_from<T: Float>(
    start: &DynAccumulator<T>,
    xs: &[T],
    out: &mut [T],
    opts: &Options,
) -> Result<DynAccumulator<T>, Error> {
    if xs.len() != out.len() {
        return Err(Error::LengthMismatch);
    }
    let empty = DynAccumulator::new(start.fold())?;
    check_room(start, xs.len())?;
    let n = xs.len();
    pool::run(small(n, INLINE_CUMSUM, opts), |threads| {
        if whole(n, INLINE_CUMSUM, opts, &threads) {
            let mut acc = *start;
            fpenv::with_ieee_fp(|| acc.add_running(xs, out))?;
            return Ok(acc);
        }
        let chunk = opts.chunk_for(n, threads.count());
        let (prefixes, total) = chunk_prefixes(&threads, xs, chunk, empty, *start)?;
        let parts = out.chunks_mut(chunk).zip(xs.chunks(chunk)).zip(&prefixes);
        threads.map(parts, |((o, x), from)| {
            let mut acc = *from;
            fpenv::with_ieee_fp(|| acc.add_running(x, o))
        })?;
        Ok(total)
    })
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
    cumsum_in_place_from(&empty, xs, opts).map(|_| ())
}

/// The reproducible cumulative sum of `xs` continued from `start`, overwriting the input:
/// as [`cumsum_from`] with the output in place of the input.
///
/// # Errors
/// [`Error::CapacityExceeded`] if `start`'s count and `xs.len()` together pass
/// [`Float::CAPACITY`]; nothing is written then.
pub fn cumsum_in_place_from<T: Float>(
    start: &DynAccumulator<T>,
    xs: &mut [T],
    opts: &Options,
) -> Result<DynAccumulator<T>, Error> {
    let empty = DynAccumulator::new(start.fold())?;
    check_room(start, xs.len())?;
    let n = xs.len();
    pool::run(small(n, INLINE_CUMSUM, opts), |threads| {
        if whole(n, INLINE_CUMSUM, opts, &threads) {
            let mut acc = *start;
            fpenv::with_ieee_fp(|| acc.add_running_in_place(xs))?;
            return Ok(acc);
        }
        let chunk = opts.chunk_for(n, threads.count());
        let (prefixes, total) = chunk_prefixes(&threads, xs, chunk, empty, *start)?;
        threads.map(xs.chunks_mut(chunk).zip(&prefixes), |(part, from)| {
            let mut acc = *from;
            fpenv::with_ieee_fp(|| acc.add_running_in_place(part))
        })?;
        Ok(total)
    })
}

/// The README's Rust example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

#[cfg(test)]
mod cumsum_from_tests {
    use super::*;

    /// Deterministic values of mixed signs and magnitudes, with cancellation.
    fn values<T: reprosum_testkit::TestFloat>(n: usize, seed: u64) -> Vec<T> {
        let mut s = seed;
        (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let m = 1.0 + (s >> 12) as f64 / (1u64 << 52) as f64;
                let e = ((s >> 2) % 60) as i32 - 30;
                let x = if s & 1 == 0 { m } else { -m } * 2f64.powi(e);
                T::from_f64_round(if i % 11 == 5 { 1e12 * x.signum() } else { x })
            })
            .collect()
    }

    fn bits<T: Float>(xs: &[T]) -> Vec<u64> {
        xs.iter().map(|x| x.bits()).collect()
    }

    /// Splitting the input at `cuts` and continuing each piece from the last accumulator
    /// writes the bits of `cumsum_with` on the whole, and ends at the whole's sum.
    fn check_splits<T: reprosum_testkit::TestFloat>(n: usize, fold: usize, cuts: &[usize], chunk_len: usize) {
        let xs: Vec<T> = values(n, 0x9E37_79B9 + n as u64 + fold as u64);
        let mut want = vec![T::ZERO; n];
        cumsum_with(&xs, &mut want, &Options::with_fold(fold)).unwrap();
        let opts = Options { fold: 99, chunk_len };
        let mut got = vec![T::ZERO; n];
        let mut acc = DynAccumulator::<T>::new(fold).unwrap();
        let mut at = 0;
        for &cut in cuts.iter().chain(std::iter::once(&n)) {
            let cut = cut.min(n);
            acc = cumsum_from(&acc, &xs[at..cut], &mut got[at..cut], &opts).unwrap();
            at = cut;
        }
        assert_eq!(
            bits(&got),
            bits(&want),
            "n {n} fold {fold} cuts {cuts:?} chunk {chunk_len}"
        );
        assert_eq!(acc.count(), n as u64);
        let total = sum_with(&xs, &Options::with_fold(fold)).unwrap();
        assert_eq!(acc.value().bits(), total.bits());
    }

    #[test]
    fn pieces_give_the_bits_of_the_whole() {
        for fold in [2usize, 3, 5, 8] {
            for (n, cuts) in [
                (0usize, vec![]),
                (1, vec![0, 1]),
                (10, vec![3, 3, 7]),
                (1000, vec![1, 500, 999]),
                (50_000, vec![17, 20_000, 20_001]),
                (300_000, vec![100_000, 250_000]),
            ] {
                for chunk_len in [0usize, 1000] {
                    check_splits::<f64>(n, fold, &cuts, chunk_len);
                    check_splits::<f32>(n, fold, &cuts, chunk_len);
                }
            }
        }
        check_splits::<f64>(5000, 52, &[2500], 0);
        check_splits::<f32>(5000, 21, &[2500], 64);
    }

    #[test]
    fn errors_write_nothing() {
        let xs = [1.0f64, 2.0, 3.0];
        let start = DynAccumulator::<f64>::new(3).unwrap();
        let mut out = [7.0f64; 2];
        assert_eq!(
            cumsum_from(&start, &xs, &mut out, &Options::default()).unwrap_err(),
            Error::LengthMismatch
        );
        assert_eq!(out, [7.0; 2]);
        // The capacity counts what the start already holds.
        // An accumulator holding all but `room` values, from merged powers of two.
        let room = 10usize;
        let target = f32::CAPACITY - room as u64;
        let mut power = DynAccumulator::<f32>::new(3).unwrap();
        power.add(1.0).unwrap();
        let mut full = DynAccumulator::<f32>::new(3).unwrap();
        for bit in 0..64 {
            if target >> bit & 1 == 1 {
                full.merge(&power).unwrap();
            }
            if target >> (bit + 1) == 0 {
                break;
            }
            let copy = power;
            power.merge(&copy).unwrap();
        }
        assert_eq!(full.count(), target);
        let xs = vec![1.0f32; room + 1];
        let mut out = vec![5.0f32; room + 1];
        assert_eq!(
            cumsum_from(&full, &xs, &mut out, &Options::default()).unwrap_err(),
            Error::CapacityExceeded
        );
        assert!(out.iter().all(|&x| x == 5.0));
        let acc = cumsum_from(&full, &xs[..room], &mut out[..room], &Options::default()).unwrap();
        assert_eq!(acc.count(), f32::CAPACITY);
    }
}
