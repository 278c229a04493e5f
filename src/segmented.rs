//! Sums of many groups at once: segments given by offsets, the rows of a matrix, and the
//! values of each key; and the segmented cumulative sum.
//!
//! Each group's result has exactly the bits of [`sum_with`](crate::sum_with) (or
//! [`cumsum_with`](crate::cumsum_with)) of that group's values alone, at the same fold: a
//! group never sees its neighbours, whatever the batch around it, the thread count or the
//! chunking. Every argument is checked before anything is written: on error every output is
//! untouched.
//!
//! The work runs on the facade's pool as the whole-slice functions do: consecutive groups are
//! gathered into tasks of about the same size, and a group larger than a task is itself split
//! into chunks whose accumulators are merged (exactly, so the bits do not change).

use crate::pool;
use crate::{chunk_prefixes, small, totals, whole, Options, INLINE_CUMSUM, INLINE_SUM};
use core::ops::Range;
use reprosum_core::{fpenv, DynAccumulator, Error, Float};

/// What a group costs beyond its values (setting up an accumulator, rounding its value), in
/// values, for sizing the tasks.
const GROUP_COST: usize = 16;

/// Groups up to this long are summed one value at a time: `add_slice` costs more to set up
/// than such a group takes (the state, hence the bits, are the same).
const SHORT: usize = 4;

/// Adds a group's values: one at a time up to [`SHORT`] of them, else as one slice.
fn add_group<T: Float>(a: &mut DynAccumulator<T>, xs: &[T]) -> Result<(), Error> {
    if xs.len() <= SHORT {
        for &x in xs {
            a.add(x)?;
        }
        Ok(())
    } else {
        a.add_slice(xs)
    }
}

/// Consecutive groups summed by one task, or one large group split over the threads.
struct Group {
    /// The groups' indices.
    groups: Range<usize>,
    /// The values of all of them.
    len: usize,
    /// One group larger than a task.
    big: bool,
}

/// Pushes without aborting when the system refuses the memory.
fn push<V>(v: &mut Vec<V>, x: V) -> Result<(), Error> {
    v.try_reserve(1).map_err(|_| Error::OutOfMemory)?;
    v.push(x);
    Ok(())
}

/// The tasks for `n` groups of lengths `len(i)`: runs of consecutive groups of about
/// `chunk` values (counting [`GROUP_COST`] each), and every group of `chunk` values or more
/// on its own.
fn plan(n: usize, len: impl Fn(usize) -> usize, chunk: usize) -> Result<Vec<Group>, Error> {
    let mut tasks = Vec::new();
    let empty_at = |i: usize| Group {
        groups: i..i,
        len: 0,
        big: false,
    };
    let mut cur = empty_at(0);
    let mut weight = 0usize;
    for i in 0..n {
        let l = len(i);
        let w = l.saturating_add(GROUP_COST);
        if l >= chunk || (weight.saturating_add(w) > chunk && !cur.groups.is_empty()) {
            if !cur.groups.is_empty() {
                push(&mut tasks, core::mem::replace(&mut cur, empty_at(i)))?;
            }
            cur = empty_at(i);
            weight = 0;
        }
        if l >= chunk {
            let one = Group {
                groups: i..i + 1,
                len: l,
                big: true,
            };
            push(&mut tasks, one)?;
            cur = empty_at(i + 1);
            continue;
        }
        cur.groups.end = i + 1;
        cur.len += l;
        weight = weight.saturating_add(w);
    }
    if !cur.groups.is_empty() {
        push(&mut tasks, cur)?;
    }
    Ok(tasks)
}

/// Checks CSR offsets for `n` values: a first entry 0, no decrease, a last entry `n`; then
/// that every segment fits an accumulator.
///
/// # Errors
/// [`Error::InvalidOffsets`], [`Error::CapacityExceeded`].
fn check_offsets<T: Float>(offsets: &[usize], n: usize) -> Result<(), Error> {
    if offsets.first() != Some(&0) || offsets.last() != Some(&n) {
        return Err(Error::InvalidOffsets);
    }
    let mut widest = 0usize;
    for w in offsets.windows(2) {
        let len = w[1].checked_sub(w[0]).ok_or(Error::InvalidOffsets)?;
        widest = widest.max(len);
    }
    if widest as u64 > T::CAPACITY {
        return Err(Error::CapacityExceeded);
    }
    Ok(())
}

/// `out[i]` = the value of `empty` with the values of `group(i)`, for every group; `len` is
/// the number of values of all groups. The arguments are checked: nothing here fails but an
/// allocation, before anything is written.
fn sums<'a, T: Float>(
    group: impl Fn(usize) -> &'a [T] + Sync,
    len: usize,
    out: &mut [T],
    empty: DynAccumulator<T>,
    opts: &Options,
) -> Result<(), Error> {
    let fold = empty.fold();
    // A group goes straight to its value (`sum_fold`: a short one without an accumulator's
    // setup); only a group split over the threads takes `empty` and its merges.
    let one = |o: &mut T, xs: &[T]| -> Result<(), Error> {
        *o = reprosum_core::sum_fold(xs, fold)?;
        Ok(())
    };
    into_groups(group, len, out, |_| empty, |o, a| *o = a.value(), one, opts)
}

/// [`into_groups`]' way with a group that is not split over the threads: `start`, its values
/// added, `finish`.
fn through_accumulator<'s, T: Float, O>(
    start: &'s (impl Fn(&O) -> DynAccumulator<T> + Sync),
    finish: &'s (impl Fn(&mut O, DynAccumulator<T>) + Sync),
) -> impl Fn(&mut O, &[T]) -> Result<(), Error> + Sync + 's {
    move |o, xs| {
        let mut a = start(o);
        add_group(&mut a, xs)?;
        finish(o, a);
        Ok(())
    }
}

/// For every group i: `finish(&mut out[i], a)`, where `a` is `start(&out[i])` with the values
/// of `group(i)` added; `len` is the number of values of all groups. A group that one thread
/// takes whole goes through `one(&mut out[i], group(i))`, which must do the same (the same
/// bits; [`through_accumulator`] is that way). The arguments are checked (each group fits
/// its start's room): nothing here fails but an allocation, before anything is written.
fn into_groups<'a, T: Float, O: Send>(
    group: impl Fn(usize) -> &'a [T] + Sync,
    len: usize,
    out: &mut [O],
    start: impl Fn(&O) -> DynAccumulator<T> + Sync,
    finish: impl Fn(&mut O, DynAccumulator<T>) + Sync,
    one: impl Fn(&mut O, &[T]) -> Result<(), Error> + Sync,
    opts: &Options,
) -> Result<(), Error> {
    let n = out.len();
    let weight = len.saturating_add(n.saturating_mul(GROUP_COST));
    pool::run(small(weight, INLINE_SUM, opts), |threads| {
        if whole(weight, INLINE_SUM, opts, &threads) {
            return fpenv::with_ieee_fp(|| {
                for (i, o) in out.iter_mut().enumerate() {
                    one(o, group(i))?;
                }
                Ok(())
            });
        }
        let chunk = opts.chunk_for(weight, threads.count());
        let tasks = plan(n, |i| group(i).len(), chunk)?;
        let mut runs = Vec::new();
        runs.try_reserve_exact(tasks.len())
            .map_err(|_| Error::OutOfMemory)?;
        let mut big = Vec::new();
        let mut rest = out;
        for t in &tasks {
            let (o, r) = rest.split_at_mut(t.groups.len());
            rest = r;
            if t.big {
                push(&mut big, (o, t.groups.start))?;
            } else {
                runs.push((o, t.groups.clone()));
            }
        }
        // The big groups first, each over all the threads, into a temporary; then the runs,
        // written in place. Only an allocation can fail (the arguments are checked), and every
        // allocation comes before the first write: the runs' `map` allocates before it starts
        // and returns `()`s, which need no memory.
        let mut values = Vec::new();
        values
            .try_reserve_exact(big.len())
            .map_err(|_| Error::OutOfMemory)?;
        for (o, i) in &big {
            let a = start(&o[0]);
            let empty = DynAccumulator::new(a.fold())?;
            let parts = totals(&threads, group(*i), chunk, empty)?;
            values.push(fpenv::with_ieee_fp(|| {
                let mut a = a;
                for p in &parts {
                    a.merge(p)?;
                }
                Ok::<_, Error>(a)
            })?);
        }
        threads.map(runs.into_iter(), |(o, r)| {
            fpenv::with_ieee_fp(|| {
                for (o, i) in o.iter_mut().zip(r) {
                    one(o, group(i))?;
                }
                Ok(())
            })
        })?;
        for ((o, _), a) in big.into_iter().zip(values) {
            fpenv::with_ieee_fp(|| finish(&mut o[0], a));
        }
        Ok(())
    })
}

/// An input and an output of a cumulative sum: two slices, or one slice in place.
trait Io<T: Float>: Send + Sized {
    fn len(&self) -> usize;
    fn split_at(self, mid: usize) -> (Self, Self);
    fn input(&self) -> &[T];
    /// Adds the input to `acc`, writing the running values.
    fn running(self, acc: &mut DynAccumulator<T>) -> Result<(), Error>;
}

impl<T: Float> Io<T> for (&[T], &mut [T]) {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (a, b) = self.0.split_at(mid);
        let (c, d) = self.1.split_at_mut(mid);
        ((a, c), (b, d))
    }
    fn input(&self) -> &[T] {
        self.0
    }
    fn running(self, acc: &mut DynAccumulator<T>) -> Result<(), Error> {
        acc.add_running(self.0, self.1)
    }
}

impl<T: Float> Io<T> for &mut [T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_at_mut(mid)
    }
    fn input(&self) -> &[T] {
        self
    }
    fn running(self, acc: &mut DynAccumulator<T>) -> Result<(), Error> {
        acc.add_running_in_place(self)
    }
}

/// Each segment's cumulative sum from `empty`, for checked `offsets`.
fn cumsums<T: Float, D: Io<T>>(
    data: D,
    offsets: &[usize],
    empty: DynAccumulator<T>,
    opts: &Options,
) -> Result<(), Error> {
    let nseg = offsets.len() - 1;
    let len = |i: usize| offsets[i + 1] - offsets[i];
    let weight = data.len().saturating_add(nseg.saturating_mul(GROUP_COST));
    // The segments `r` of `data`, which starts at segment `r.start`.
    let run = |mut data: D, r: Range<usize>| -> Result<(), Error> {
        for i in r {
            let (seg, rest) = data.split_at(len(i));
            data = rest;
            let mut acc = empty;
            seg.running(&mut acc)?;
        }
        Ok(())
    };
    pool::run(small(weight, INLINE_CUMSUM, opts), |threads| {
        if whole(weight, INLINE_CUMSUM, opts, &threads) {
            return fpenv::with_ieee_fp(|| run(data, 0..nseg));
        }
        let chunk = opts.chunk_for(weight, threads.count());
        let tasks = plan(nseg, len, chunk)?;
        // One `map` over every piece of work: it allocates before it starts, and the pieces
        // return `()`s, which need no memory, so nothing is written unless everything runs.
        // The big segments' prefixes are computed first (they write nothing).
        let mut items = Vec::new();
        let mut rest = data;
        for t in &tasks {
            let (mut d, r) = rest.split_at(t.len);
            rest = r;
            if !t.big {
                push(&mut items, Piece::Run(d, t.groups.clone()))?;
                continue;
            }
            let (prefixes, _) = chunk_prefixes(&threads, d.input(), chunk, empty, empty)?;
            for p in prefixes {
                let at = chunk.min(d.len());
                let (c, r) = d.split_at(at);
                d = r;
                push(&mut items, Piece::Chunk(c, p))?;
            }
        }
        threads.map(items.into_iter(), |item| {
            fpenv::with_ieee_fp(|| match item {
                Piece::Run(d, r) => run(d, r),
                Piece::Chunk(c, mut acc) => c.running(&mut acc),
            })
        })?;
        Ok(())
    })
}

/// A piece of a segmented cumulative sum's work.
enum Piece<T: Float, D> {
    /// Whole segments (the range), each from an empty accumulator.
    Run(D, Range<usize>),
    /// A chunk of one big segment, from the accumulator of the segment's values before it.
    Chunk(D, DynAccumulator<T>),
}

/// The reproducible sum of each segment of `xs` (fold 3): `out[i]` has the bits of
/// `sum(&xs[offsets[i]..offsets[i + 1]])`. As [`segmented_sum_with`].
///
/// # Errors
/// As [`segmented_sum_with`].
pub fn segmented_sum<T: Float>(xs: &[T], offsets: &[usize], out: &mut [T]) -> Result<(), Error> {
    segmented_sum_with(xs, offsets, out, &Options::default())
}

/// The reproducible sum of each segment of `xs`: `out[i]` has the bits of
/// `sum_with(&xs[offsets[i]..offsets[i + 1]], opts)`; an empty segment gives +0.0.
///
/// `offsets` has `out.len() + 1` entries (CSR style): the first is 0, none is smaller than
/// the one before, and the last is `xs.len()`.
///
/// ```
/// let xs = [1e16, 1.0, -1e16, 2.0, 3.0];
/// let mut out = [0.0; 3];
/// reprosum::segmented_sum(&xs, &[0, 3, 3, 5], &mut out).unwrap();
/// assert_eq!(out, [1.0, 0.0, 5.0]);
/// ```
///
/// # Errors
/// [`Error::InvalidFold`]; [`Error::LengthMismatch`] if `offsets` has not `out.len() + 1`
/// entries; [`Error::InvalidOffsets`]; [`Error::CapacityExceeded`] for a segment of more
/// than [`Float::CAPACITY`] values; [`Error::OutOfMemory`]. Nothing is written then.
pub fn segmented_sum_with<T: Float>(
    xs: &[T],
    offsets: &[usize],
    out: &mut [T],
    opts: &Options,
) -> Result<(), Error> {
    let empty = DynAccumulator::new(opts.fold)?;
    if offsets.len() != out.len().saturating_add(1) {
        return Err(Error::LengthMismatch);
    }
    check_offsets::<T>(offsets, xs.len())?;
    sums(|i| &xs[offsets[i]..offsets[i + 1]], xs.len(), out, empty, opts)
}

/// The reproducible sum of each row of a row-major matrix (fold 3). As [`sum_rows_with`].
///
/// # Errors
/// As [`sum_rows_with`].
pub fn sum_rows<T: Float>(
    xs: &[T],
    rows: usize,
    cols: usize,
    row_stride: usize,
    out: &mut [T],
) -> Result<(), Error> {
    sum_rows_with(xs, rows, cols, row_stride, out, &Options::default())
}

/// The reproducible sum of each row of a row-major matrix: row `r` is
/// `xs[r * row_stride..r * row_stride + cols]`, and `out[r]` has the bits of the sum of that
/// row alone (batch-invariant: the same bits whatever the other rows). `xs` holds at least
/// `(rows - 1) * row_stride + cols` values (none when `rows` is 0).
///
/// ```
/// // Two rows of three values, each row padded to four.
/// let xs = [1.0, 2.0, 3.0, f64::NAN, 1e16, 1.0, -1e16, f64::NAN];
/// let mut out = [0.0; 2];
/// reprosum::sum_rows(&xs, 2, 3, 4, &mut out).unwrap();
/// assert_eq!(out, [6.0, 1.0]);
/// ```
///
/// # Errors
/// [`Error::InvalidFold`]; [`Error::LengthMismatch`] if `out` has not `rows` entries or
/// `xs` is too short; [`Error::InvalidStride`] if `cols > row_stride`;
/// [`Error::CapacityExceeded`] for rows of more than [`Float::CAPACITY`] values;
/// [`Error::OutOfMemory`]. Nothing is written then.
pub fn sum_rows_with<T: Float>(
    xs: &[T],
    rows: usize,
    cols: usize,
    row_stride: usize,
    out: &mut [T],
    opts: &Options,
) -> Result<(), Error> {
    let empty = DynAccumulator::new(opts.fold)?;
    if out.len() != rows {
        return Err(Error::LengthMismatch);
    }
    if cols > row_stride {
        return Err(Error::InvalidStride);
    }
    let need = match rows {
        0 => Some(0),
        _ => (rows - 1)
            .checked_mul(row_stride)
            .and_then(|s| s.checked_add(cols)),
    };
    if need.is_none_or(|need| need > xs.len()) {
        return Err(Error::LengthMismatch);
    }
    if cols as u64 > T::CAPACITY {
        return Err(Error::CapacityExceeded);
    }
    let row = |r: usize| &xs[r * row_stride..r * row_stride + cols];
    sums(row, rows.saturating_mul(cols), out, empty, opts)
}

/// The reproducible sum of the values of each key (fold 3). As [`sum_by_key_with`].
///
/// # Errors
/// As [`sum_by_key_with`].
pub fn sum_by_key<T: Float>(xs: &[T], keys: &[i64], out: &mut [T]) -> Result<(), Error> {
    sum_by_key_with(xs, keys, out, &Options::default())
}

/// The reproducible sum of the values of each key (a scatter-add, `index_add`, weighted
/// bincount): `out[k]` has the bits of the sum of every `xs[i]` with `keys[i] == k`, for
/// `k < out.len()`; a key no value has gives +0.0. The keys may come in any order: any
/// permutation of the (key, value) pairs gives the same bits.
///
/// How it runs depends on the number of keys, `out.len()`; each way gives the same bits:
/// - Up to 4096 keys with at least 16 values per key, without a sort: each thread's part of
///   the pairs keeps an accumulator and a small buffer per key, adds each full buffer as one
///   slice, and the parts' accumulators are merged.
/// - More keys, with at least 65536 values (and at most 2<sup>26</sup> keys): by buckets of
///   consecutive keys (64 to 65536 keys each, about 500 buckets or fewer). Each thread's part
///   of the pairs is counted by bucket, then copied by bucket, through a small stage per
///   bucket, into a `Vec` of its values and one of their keys within the bucket (about 10
///   bytes per f64 pair, 6 per f32 pair, allocated); then the threads take the buckets: each
///   bucket's values are sorted by key in a buffer that stays in the cache, and each key's
///   values summed at once (a bucket too large for the cache, with at least 16 values per
///   key: through an accumulator and a small buffer per key, as above). `out.len()` sums are
///   allocated and copied to `out` at the end.
/// - Otherwise the values are gathered by key (a counting sort: `out.len() + 1` counts and a
///   copy of `xs` are allocated; on several threads, while `out.len()` is small beside the
///   input, one count per key per thread too, and the threads count and scatter at once),
///   then each key's values are summed as a segment.
///
/// ```
/// let xs = [1.0, 10.0, 2.0, 1e16, -1e16];
/// let keys = [0, 2, 0, 1, 1];
/// let mut out = [0.0; 4];
/// reprosum::sum_by_key(&xs, &keys, &mut out).unwrap();
/// assert_eq!(out, [3.0, 0.0, 10.0, 0.0]);
/// ```
///
/// # Errors
/// [`Error::InvalidFold`]; [`Error::LengthMismatch`] if `keys` and `xs` differ in length;
/// [`Error::KeyOutOfRange`] for a key below 0 or not below `out.len()`;
/// [`Error::CapacityExceeded`] for a key of more than [`Float::CAPACITY`] values;
/// [`Error::OutOfMemory`]. Nothing is written then.
pub fn sum_by_key_with<T: Float>(xs: &[T], keys: &[i64], out: &mut [T], opts: &Options) -> Result<(), Error> {
    let empty = DynAccumulator::new(opts.fold)?;
    if keys.len() != xs.len() {
        return Err(Error::LengthMismatch);
    }
    let nkeys = out.len();
    if nkeys <= BUFFERED_KEYS && xs.len() >= 16 * nkeys {
        return buffered_by_key(xs, keys, out, empty, opts);
    }
    if bucket_shift(xs.len(), nkeys, 1).is_some() {
        return bucketed_by_key(xs, keys, out, empty, T::CAPACITY, opts);
    }
    let (gathered, offsets) = gather_by_key(xs, keys, nkeys, opts)?;
    check_offsets::<T>(&offsets, xs.len())?;
    sums(
        |k| &gathered[offsets[k]..offsets[k + 1]],
        gathered.len(),
        out,
        empty,
        opts,
    )
}

/// Keys up to this many are summed without a sort ([`buffered_by_key`]), when there are at
/// least 16 values per key.
const BUFFERED_KEYS: usize = 4096;

/// The values [`buffered_by_key`] holds back per part, all keys together (a few MB).
const BUFFERED_VALUES: usize = 1 << 18;

/// `sum_by_key_with` without a sort, for few keys: each part of the pairs (one per thread)
/// keeps an accumulator and a small buffer per key, moves each value to its key's buffer and
/// adds a full buffer as one slice (the fast deposit, its setup paid once per buffer), then
/// the buffers' rests; the parts' accumulators of each key are merged. A key's state is that
/// of its values whatever the order, the buffers or the parts (binned deposits and merges are
/// exact), so every sum has the bits of the sorted path's. Every key is checked before any
/// value is added, and `out` is written only at the end.
fn buffered_by_key<T: Float>(
    xs: &[T],
    keys: &[i64],
    out: &mut [T],
    empty: DynAccumulator<T>,
    opts: &Options,
) -> Result<(), Error> {
    let n = xs.len();
    let nkeys = out.len();
    // A negative key is a huge one as u64: one comparison finds both.
    if keys.iter().any(|&k| k as u64 >= nkeys as u64) {
        return Err(Error::KeyOutOfRange);
    }
    // One part's accumulators, one per key.
    let part = |xs: &[T], ks: &[i64]| -> Result<Vec<DynAccumulator<T>>, Error> {
        let mut b = Buffered::new(nkeys, empty)?;
        fpenv::with_ieee_fp(|| {
            // Checked above: 0 <= k < nkeys.
            b.add(xs, ks.iter().map(|&k| k as usize))?;
            b.finish()
        })
    };
    let accs = pool::run(small(n, INLINE_SUM, opts), |threads| {
        if n == 0 || whole(n, INLINE_SUM, opts, &threads) {
            return part(xs, keys);
        }
        // One part per thread (each holds an accumulator and a buffer per key).
        let len = n.div_ceil(threads.count());
        let mut parts = threads.map(xs.chunks(len).zip(keys.chunks(len)), |(xs, ks)| part(xs, ks))?;
        let mut first = parts.remove(0);
        fpenv::with_ieee_fp(|| {
            for p in &parts {
                for (a, b) in first.iter_mut().zip(p) {
                    a.merge(b)?;
                }
            }
            Ok::<_, Error>(())
        })?;
        Ok(first)
    })?;
    fpenv::with_ieee_fp(|| {
        for (o, a) in out.iter_mut().zip(&accs) {
            *o = a.value();
        }
    });
    Ok(())
}

/// [`bucketed_by_key`] takes inputs of at least this many values.
const BUCKETED_MIN: usize = 1 << 16;

/// The bucket widths [`bucketed_by_key`] takes, in keys (a key's place in its bucket is a
/// `u16`), and the most buckets. Narrower buckets make each bucket's sort faster (fewer keys'
/// slots written at once), more buckets make the split into buckets slower (more buckets'
/// stages at once, and smaller buckets' memory).
const BUCKET_KEYS: core::ops::RangeInclusive<usize> = 64..=1 << 16;
const BUCKETS: usize = 1 << 9;

/// The values a part should have in each bucket, at least: [`BUCKETS`] buckets of fewer
/// were slower to fill (measured on two threads).
const BUCKET_PART_VALUES: usize = 1 << 15;

/// The bucket width (`1 << shift` consecutive keys) for `n` pairs in `parts` parts over
/// `nkeys` keys: the narrowest of [`BUCKET_KEYS`] with at most [`BUCKETS`] buckets, and with
/// about [`BUCKET_PART_VALUES`] values or more per bucket and part; `None` where the input
/// is too small for [`bucketed_by_key`] or the keys too many.
fn bucket_shift(n: usize, nkeys: usize, parts: usize) -> Option<u32> {
    if n < BUCKETED_MIN || nkeys <= BUFFERED_KEYS {
        return None;
    }
    let buckets = (n / parts.max(1) / BUCKET_PART_VALUES).clamp(1, BUCKETS);
    let width = nkeys.div_ceil(buckets).next_power_of_two();
    let width = width.clamp(*BUCKET_KEYS.start(), *BUCKET_KEYS.end());
    (nkeys.div_ceil(width) <= 2 * BUCKETS).then(|| width.trailing_zeros())
}

/// One part of the pairs split into buckets of keys: for each bucket, its values and each
/// one's key within the bucket.
type Split<T> = Vec<(Vec<T>, Vec<u16>)>;

/// A zeroed `Vec` of `len` elements, or [`Error::OutOfMemory`].
fn zeroed<V: Copy>(len: usize, zero: V) -> Result<Vec<V>, Error> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::OutOfMemory)?;
    v.resize(len, zero);
    Ok(v)
}

/// An empty `Vec` with room for `len` elements, or [`Error::OutOfMemory`].
fn with_room<V>(len: usize) -> Result<Vec<V>, Error> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::OutOfMemory)?;
    Ok(v)
}

/// The values [`split_by_bucket`] stages per part, all buckets together (a few hundred KB,
/// in the L2 cache), and the most per bucket.
const STAGED_VALUES: usize = 1 << 16;
const STAGED_PER_BUCKET: usize = 1 << 10;

/// Splits the pairs `(xs, keys)` into the buckets of `1 << shift` consecutive keys, checking
/// every key: the keys are counted by bucket (each bucket's `Vec`s get exactly their room),
/// then each pair goes to its bucket's stage, a few hundred pairs in the cache, and a full
/// stage is appended to its bucket as one block (a copy whose stores need not read the lines
/// they fill first, which single stores to memory not in the cache would wait on).
fn split_by_bucket<T: Float>(xs: &[T], keys: &[i64], nkeys: usize, shift: u32) -> Result<Split<T>, Error> {
    let nbuckets = nkeys.div_ceil(1 << shift);
    let mut counts = zeroed(nbuckets, 0usize)?;
    for &k in keys {
        // A negative key is a huge one as u64: one comparison finds both.
        if k as u64 >= nkeys as u64 {
            return Err(Error::KeyOutOfRange);
        }
        counts[k as usize >> shift] += 1;
    }
    let mut split = with_room(nbuckets)?;
    for &c in &counts {
        split.push((with_room(c)?, with_room(c)?));
    }
    let stage = (STAGED_VALUES.min(xs.len()) / nbuckets).clamp(16, STAGED_PER_BUCKET);
    let mut staged = zeroed(nbuckets * stage, T::ZERO)?;
    let mut staged_keys = zeroed(nbuckets * stage, 0u16)?;
    // How many pairs each bucket has staged.
    let mut fill = counts;
    fill.fill(0);
    // Appends bucket b's `len` staged pairs (within the room counted: a `Vec` never grows).
    let flush = |split: &mut Split<T>, b: usize, len: usize, staged: &[T], staged_keys: &[u16]| {
        let at = b * stage..b * stage + len;
        match split.get_mut(b) {
            Some((v, l)) if v.capacity() - v.len() >= len && l.capacity() - l.len() >= len => {
                v.extend_from_slice(&staged[at.clone()]);
                l.extend_from_slice(&staged_keys[at]);
                Ok(())
            }
            _ => Err(Error::OutOfMemory),
        }
    };
    let mask = (1usize << shift) - 1;
    for (&x, &k) in xs.iter().zip(keys) {
        // Checked above: 0 <= k < nkeys.
        let k = k as usize;
        let b = k >> shift;
        let f = fill[b];
        staged[b * stage + f] = x;
        staged_keys[b * stage + f] = (k & mask) as u16;
        if f + 1 == stage {
            flush(&mut split, b, stage, &staged, &staged_keys)?;
            fill[b] = 0;
        } else {
            fill[b] = f + 1;
        }
    }
    for (b, &f) in fill.iter().enumerate() {
        flush(&mut split, b, f, &staged, &staged_keys)?;
    }
    Ok(split)
}

/// The pairs split into buckets of consecutive keys, one split per part of the pairs (one
/// part per thread, or one), for [`bucketed_by_key`] and [`bucketed_into`].
struct Buckets<T> {
    /// Each bucket is `1 << shift` consecutive keys.
    shift: u32,
    nbuckets: usize,
    parts: usize,
    splits: Vec<Split<T>>,
}

impl<T: Float> Buckets<T> {
    /// Splits the pairs `(xs, keys)` over `threads` ([`split_by_bucket`], which checks every
    /// key), in buckets of [`bucket_shift`]'s width for the parts.
    fn split(
        xs: &[T],
        keys: &[i64],
        nkeys: usize,
        opts: &Options,
        threads: &pool::Threads,
    ) -> Result<Self, Error> {
        let n = xs.len();
        let parts = if whole(n, INLINE_SUM, opts, threads) {
            1
        } else {
            threads.count()
        };
        // The width for one part at most doubles for several: always there when it is for one.
        let shift = bucket_shift(n, nkeys, parts).unwrap_or(16);
        let len = n.div_ceil(parts).max(1);
        let splits = threads.map(xs.chunks(len).zip(keys.chunks(len)), |(xs, ks)| {
            split_by_bucket(xs, ks, nkeys, shift)
        })?;
        Ok(Buckets {
            shift,
            nbuckets: nkeys.div_ceil(1 << shift),
            parts,
            splits,
        })
    }

    /// Bucket b's pieces, one per part: its values and their keys within the bucket.
    fn piece(&self, b: usize) -> impl Iterator<Item = (&[T], &[u16])> + Clone + '_ {
        self.splits
            .iter()
            .filter_map(move |s| s.get(b).map(|(v, l)| (v.as_slice(), l.as_slice())))
    }

    /// Bucket b's values.
    fn len(&self, b: usize) -> usize {
        self.piece(b).map(|(v, _)| v.len()).sum()
    }

    /// Runs of consecutive buckets of about the same number of values (`n` in all), one task
    /// each.
    fn tasks(&self, n: usize, opts: &Options) -> Result<Vec<Group>, Error> {
        plan(self.nbuckets, |b| self.len(b), opts.chunk_for(n, self.parts))
    }
}

/// The most values of a bucket [`sum_bucket`] sorts (its copy and the bucket in the L2
/// cache); a larger bucket with at least 16 values per key goes through per-key buffers.
const SORTED_VALUES: usize = 1 << 18;

/// Sums the keys of one bucket, `out.len()` of them, whose pairs are `pieces` (values and
/// keys within the bucket): a counting sort of its values by key into `sorted`, then each
/// key's values summed at `empty`'s fold; or, for a bucket of more than [`SORTED_VALUES`]
/// values and at least 16 per key, an accumulator and a buffer per key ([`Buffered`]).
/// `counts` and `sorted` are scratch kept from bucket to bucket.
///
/// # Errors
/// [`Error::CapacityExceeded`] for a key of more than `capacity` values (before any sum),
/// [`Error::OutOfMemory`].
fn sum_bucket<'a, T: Float + 'a>(
    pieces: impl Iterator<Item = (&'a [T], &'a [u16])> + Clone,
    out: &mut [T],
    empty: DynAccumulator<T>,
    capacity: u64,
    counts: &mut Vec<usize>,
    sorted: &mut Vec<T>,
) -> Result<(), Error> {
    let width = out.len();
    counts.clear();
    counts.try_reserve(width + 1).map_err(|_| Error::OutOfMemory)?;
    counts.resize(width + 1, 0);
    for (_, ks) in pieces.clone() {
        for &j in ks {
            counts[j as usize + 1] += 1;
        }
    }
    if counts.iter().any(|&c| c as u64 > capacity) {
        return Err(Error::CapacityExceeded);
    }
    for j in 0..width {
        counts[j + 1] += counts[j];
    }
    let len = counts[width];
    if len > SORTED_VALUES && len >= 16 * width {
        // Too many values to sort in the cache, and enough per key to buffer.
        let mut b = Buffered::new(width, empty)?;
        for (xs, ks) in pieces {
            b.add(xs, ks.iter().map(|&j| usize::from(j)))?;
        }
        for (o, a) in out.iter_mut().zip(b.finish()?) {
            *o = a.value();
        }
        return Ok(());
    }
    sorted.clear();
    sorted.try_reserve(len).map_err(|_| Error::OutOfMemory)?;
    sorted.resize(len, T::ZERO);
    // counts[j] is key j's next slot: it ends as key j + 1's first, and a shift restores it.
    for (xs, ks) in pieces {
        for (&x, &j) in xs.iter().zip(ks) {
            let at = &mut counts[j as usize];
            sorted[*at] = x;
            *at += 1;
        }
    }
    counts.copy_within(0..width, 1);
    counts[0] = 0;
    for (j, o) in out.iter_mut().enumerate() {
        *o = reprosum_core::sum_fold(&sorted[counts[j]..counts[j + 1]], empty.fold())?;
    }
    Ok(())
}

/// `sum_by_key_with` for more keys than [`buffered_by_key`] takes, by buckets of consecutive
/// keys ([`bucket_shift`]): each part of the pairs (one per thread) is split by bucket into a
/// copy of its values and of their keys within the bucket ([`split_by_bucket`]), then the
/// threads take runs of buckets, and each bucket's values (from every part) are sorted by
/// key in a buffer kept in the cache and each key's values summed with `sum_fold`, or, for a
/// large bucket, added through a buffer per key ([`sum_bucket`]). Each key's sum is thus that
/// of its values alone, as the sorted path's. A key of more than `capacity` values is [`Error::CapacityExceeded`]; every
/// key is checked before any sum, and `out` is written only at the end.
fn bucketed_by_key<T: Float>(
    xs: &[T],
    keys: &[i64],
    out: &mut [T],
    empty: DynAccumulator<T>,
    capacity: u64,
    opts: &Options,
) -> Result<(), Error> {
    let n = xs.len();
    let nkeys = out.len();
    let mut res = zeroed(nkeys, T::ZERO)?;
    pool::run(small(n, INLINE_SUM, opts), |threads| {
        let split = Buckets::split(xs, keys, nkeys, opts, &threads)?;
        let (shift, width) = (split.shift, 1usize << split.shift);
        let piece = |b: usize| split.piece(b);
        let tasks = split.tasks(n, opts)?;
        let mut work = Vec::new();
        work.try_reserve_exact(tasks.len())
            .map_err(|_| Error::OutOfMemory)?;
        let mut rest = res.as_mut_slice();
        for t in &tasks {
            let end = (t.groups.end << shift).min(nkeys);
            let (o, r) = rest.split_at_mut(end - (t.groups.start << shift));
            rest = r;
            work.push((o, t.groups.clone()));
        }
        threads.map(work.into_iter(), |(o, buckets)| {
            let mut counts = Vec::new();
            let mut sorted = Vec::new();
            fpenv::with_ieee_fp(|| {
                for (o, b) in o.chunks_mut(width).zip(buckets) {
                    sum_bucket(piece(b), o, empty, capacity, &mut counts, &mut sorted)?;
                }
                Ok(())
            })
        })?;
        Ok(())
    })?;
    out.copy_from_slice(&res);
    Ok(())
}

/// `add_by_key_with` by buckets of consecutive keys, for the inputs [`bucketed_by_key`] takes:
/// the pairs are split by bucket as there ([`split_by_bucket`], which checks every key);
/// each key's values are counted and its accumulator's room checked, on the calling thread;
/// then the threads take runs of buckets, sort each bucket's values by key in a buffer and
/// add each key's values to its accumulator. A key's accumulator ends with the state of its
/// values added to it, whatever their order (binned deposits are exact), as on the sorted
/// path. Every buffer is allocated before the first accumulator changes, and nothing after
/// that can fail, so on any error no accumulator has changed.
fn bucketed_into<T: Float, A: AccumulatorSlot<T>>(
    xs: &[T],
    keys: &[i64],
    accs: &mut [A],
    opts: &Options,
) -> Result<(), Error> {
    let n = xs.len();
    let nkeys = accs.len();
    pool::run(small(n, INLINE_SUM, opts), |threads| {
        let split = Buckets::split(xs, keys, nkeys, opts, &threads)?;
        let (shift, width) = (split.shift, 1usize << split.shift);
        let piece = |b: usize| split.piece(b);
        let tasks = split.tasks(n, opts)?;
        // counts[k]: key k's values (every key checked by the split). Each run of buckets
        // counts its keys' values and checks its accumulators' room on a thread of its own;
        // nothing changes before every check has passed.
        let mut counts = zeroed(nkeys, 0usize)?;
        let mut jobs = with_room(tasks.len())?;
        let (mut rest, mut counts_rest) = (accs, &mut counts[..]);
        for t in &tasks {
            let len = (t.groups.end << shift).min(nkeys) - (t.groups.start << shift);
            let (a, r) = rest.split_at_mut(len);
            let (c, cr) = counts_rest.split_at_mut(len);
            (rest, counts_rest) = (r, cr);
            jobs.push((a, c, t.groups.clone()));
        }
        let counted = threads.map(jobs.into_iter(), |(accs, counts, buckets)| {
            for (keys, b) in counts.chunks_mut(width).zip(buckets.clone()) {
                for (_, ks) in piece(b) {
                    for &j in ks {
                        keys[usize::from(j)] += 1;
                    }
                }
            }
            for (a, &c) in accs.iter().zip(counts.iter()) {
                if c > 0 {
                    crate::check_room(&a.get(), c)?;
                }
            }
            Ok((accs, counts, buckets))
        })?;
        // Each run of buckets with its accumulators, its keys' counts, a sort buffer for its
        // largest bucket and its keys' next slots.
        let mut work = with_room(counted.len())?;
        for (a, c, buckets) in counted {
            let most = buckets.clone().map(|b| split.len(b)).max().unwrap_or(0);
            work.push((a, &*c, buckets, zeroed(most, T::ZERO)?, zeroed(width, 0usize)?));
        }
        threads.map(
            work.into_iter(),
            |(accs, counts, buckets, mut sorted, mut next)| {
                fpenv::with_ieee_fp(|| {
                    for ((accs, counts), b) in accs.chunks_mut(width).zip(counts.chunks(width)).zip(buckets) {
                        let mut at = 0;
                        for (s, &c) in next.iter_mut().zip(counts) {
                            *s = at;
                            at += c;
                        }
                        for (xs, ks) in piece(b) {
                            for (&x, &j) in xs.iter().zip(ks) {
                                let s = &mut next[usize::from(j)];
                                sorted[*s] = x;
                                *s += 1;
                            }
                        }
                        let mut at = 0;
                        for (a, &c) in accs.iter_mut().zip(counts) {
                            if c > 0 {
                                let mut acc = a.get();
                                // The room is checked: this adds.
                                add_group(&mut acc, &sorted[at..at + c])?;
                                a.set(acc);
                            }
                            at += c;
                        }
                    }
                    Ok(())
                })
            },
        )?;
        Ok(())
    })
}

/// An accumulator and a small buffer per key: each value goes to its key's buffer, and a
/// full buffer is added as one slice (the fast deposit, its setup paid once per buffer).
struct Buffered<T: Float> {
    accs: Vec<DynAccumulator<T>>,
    buf: Vec<T>,
    fill: Vec<usize>,
    per_key: usize,
}

impl<T: Float> Buffered<T> {
    /// For `nkeys` keys, each accumulator `empty` at first; [`BUFFERED_VALUES`] values of
    /// buffers in all, 16 to 512 per key.
    fn new(nkeys: usize, empty: DynAccumulator<T>) -> Result<Self, Error> {
        let per_key = (BUFFERED_VALUES / nkeys.max(1)).clamp(16, 512);
        Ok(Buffered {
            accs: zeroed(nkeys, empty)?,
            buf: zeroed(nkeys * per_key, T::ZERO)?,
            fill: zeroed(nkeys, 0)?,
            per_key,
        })
    }

    /// Adds each `xs[i]` to key `keys[i]` (each key below the number of keys).
    #[inline]
    fn add(&mut self, xs: &[T], keys: impl Iterator<Item = usize>) -> Result<(), Error> {
        let per_key = self.per_key;
        for (&x, k) in xs.iter().zip(keys) {
            let f = self.fill[k];
            self.buf[k * per_key + f] = x;
            if f + 1 == per_key {
                self.accs[k].add_slice(&self.buf[k * per_key..(k + 1) * per_key])?;
                self.fill[k] = 0;
            } else {
                self.fill[k] = f + 1;
            }
        }
        Ok(())
    }

    /// The accumulators, with the buffers' rests added.
    fn finish(mut self) -> Result<Vec<DynAccumulator<T>>, Error> {
        let per_key = self.per_key;
        for (k, (a, &f)) in self.accs.iter_mut().zip(&self.fill).enumerate() {
            add_group(a, &self.buf[k * per_key..k * per_key + f])?;
        }
        Ok(self.accs)
    }
}

/// Key `k`'s slot, if `k` is a key below `nkeys`.
#[inline]
fn key_slot(k: i64, nkeys: usize) -> Option<usize> {
    usize::try_from(k).ok().filter(|&k| k < nkeys)
}

/// The values gathered by key (a counting sort), and the offsets of each key's values in
/// them (`nkeys + 1` entries). The order within a key is not kept: no sum's bits depend on
/// it.
///
/// # Errors
/// [`Error::KeyOutOfRange`], [`Error::OutOfMemory`].
fn gather_by_key<T: Float>(
    xs: &[T],
    keys: &[i64],
    nkeys: usize,
    opts: &Options,
) -> Result<(Vec<T>, Vec<usize>), Error> {
    let n = xs.len();
    let alloc = |len: usize| -> Result<Vec<usize>, Error> {
        let mut v = Vec::new();
        v.try_reserve_exact(len).map_err(|_| Error::OutOfMemory)?;
        v.resize(len, 0);
        Ok(v)
    };
    pool::run(small(n, INLINE_SUM, opts), |threads| {
        // One histogram of every key per part: worth it while they are small beside the data.
        let parts = threads.count();
        if n == 0 || whole(n, INLINE_SUM, opts, &threads) || nkeys.saturating_mul(parts) > n / 2 {
            // Checked before anything is allocated, so a bad key is reported as such.
            if keys.iter().any(|&k| key_slot(k, nkeys).is_none()) {
                return Err(Error::KeyOutOfRange);
            }
            // offsets[k + 1] counts key k; then the running total makes offsets[k] its first
            // slot.
            let mut offsets = alloc(nkeys + 1)?;
            for &k in keys {
                offsets[key_slot(k, nkeys).unwrap_or(0) + 1] += 1;
            }
            for k in 0..nkeys {
                offsets[k + 1] += offsets[k];
            }
            let mut gathered: Vec<T> = Vec::new();
            gathered.try_reserve_exact(n).map_err(|_| Error::OutOfMemory)?;
            gathered.resize(n, T::ZERO);
            // offsets[k] is key k's next slot: it ends as key k + 1's first, and a shift
            // restores it.
            for (&x, &k) in xs.iter().zip(keys) {
                let slot = &mut offsets[key_slot(k, nkeys).unwrap_or(0)];
                gathered[*slot] = x;
                *slot += 1;
            }
            offsets.copy_within(0..nkeys, 1);
            offsets[0] = 0;
            return Ok((gathered, offsets));
        }
        // Each part counts its keys (checking them), then the counts become each part's first
        // slot for each key, then the parts scatter their values at once.
        let part = n.div_ceil(parts);
        let mut starts = threads.map(keys.chunks(part), |ks| {
            let mut h = alloc(nkeys)?;
            for &k in ks {
                h[key_slot(k, nkeys).ok_or(Error::KeyOutOfRange)?] += 1;
            }
            Ok(h)
        })?;
        let mut offsets = alloc(nkeys + 1)?;
        let mut at = 0usize;
        for k in 0..nkeys {
            offsets[k] = at;
            for h in &mut starts {
                let count = h[k];
                h[k] = at;
                at += count;
            }
        }
        offsets[nkeys] = at;
        let mut gathered: Vec<T> = Vec::new();
        gathered.try_reserve_exact(n).map_err(|_| Error::OutOfMemory)?;
        gathered.resize(n, T::ZERO);
        let dest = Scatter(gathered.as_mut_ptr());
        let work = xs.chunks(part).zip(keys.chunks(part)).zip(starts);
        threads.map(work, |((xs, ks), mut next)| {
            for (&x, &k) in xs.iter().zip(ks) {
                // Checked by the counting pass.
                let slot = &mut next[key_slot(k, nkeys).unwrap_or(0)];
                // SAFETY: `*slot < n`, the length of `gathered`, which lives until after this
                // `map` has joined all its work: part c's slots for key k are `starts[c][k]`
                // and the `count[c][k] - 1` after it, laid end to end over (key, part) in
                // 0..n by the running total above, so no two parts (nor two values) write the
                // same element, and nothing reads `gathered` until the map is done.
                unsafe { dest.write(*slot, x) };
                *slot += 1;
            }
            Ok(())
        })?;
        Ok((gathered, offsets))
    })
}

/// The values being gathered by key, written by several threads at disjoint indices.
struct Scatter<T>(*mut T);

impl<T> Scatter<T> {
    /// Writes `x` at index `i`.
    ///
    /// # Safety
    /// `i` is inside the buffer, which is alive, and no other thread reads or writes index
    /// `i` meanwhile.
    unsafe fn write(&self, i: usize, x: T) {
        // SAFETY: as the caller promises.
        unsafe { self.0.add(i).write(x) }
    }
}

// SAFETY: the pointer is only written through, at indices no two threads share (see its one
// use in `gather_by_key`), while the buffer it points into is alive and not otherwise used.
unsafe impl<T: Send> Send for Scatter<T> {}
// SAFETY: as for `Send`: shared references only ever write disjoint elements.
unsafe impl<T: Send> Sync for Scatter<T> {}

/// Where the grouped adds ([`add_segments`], [`add_by_key`]) find each group's accumulator
/// and leave it: a [`DynAccumulator`] itself, or a foreign struct that holds one (the C
/// library's `adn_acc_f64` / `adn_acc_f32`).
pub trait AccumulatorSlot<T: Float>: Send {
    /// The accumulator held.
    fn get(&self) -> DynAccumulator<T>;
    /// Stores `acc` (of the same fold as the one held).
    fn set(&mut self, acc: DynAccumulator<T>);
}

impl<T: Float> AccumulatorSlot<T> for DynAccumulator<T> {
    fn get(&self) -> DynAccumulator<T> {
        *self
    }
    fn set(&mut self, acc: DynAccumulator<T>) {
        *self = acc;
    }
}

/// Checks that group `i` (of `len(i)` values) fits `accs[i]`'s room.
fn check_rooms<T: Float, A: AccumulatorSlot<T>>(
    accs: &[A],
    len: impl Fn(usize) -> usize,
) -> Result<(), Error> {
    for (i, a) in accs.iter().enumerate() {
        crate::check_room(&a.get(), len(i))?;
    }
    Ok(())
}

/// Adds each segment's values to its own accumulator (fold 3 chunking: as
/// [`add_segments_with`] with the default options).
///
/// # Errors
/// As [`add_segments_with`].
pub fn add_segments<T: Float, A: AccumulatorSlot<T>>(
    xs: &[T],
    offsets: &[usize],
    accs: &mut [A],
) -> Result<(), Error> {
    add_segments_with(xs, offsets, accs, &Options::default())
}

/// Adds segment `i`'s values, `xs[offsets[i]..offsets[i + 1]]`, to `accs[i]`, each
/// accumulator at its own fold (`opts.fold` is not used; `opts.chunk_len` is, as for
/// [`segmented_sum_with`]). The shards of a segmented input, added call after call (or on
/// ranks whose accumulators are then merged), leave each accumulator with the state of its
/// whole segment: its value has the bits of [`segmented_sum_with`] of the whole input.
///
/// ```
/// use reprosum::DynAccumulator;
/// let mut accs = [DynAccumulator::<f64>::new(3).unwrap(); 2];
/// // Two shards of the segments [1e16, 1.0, -1e16] and [2.0, 3.0].
/// reprosum::add_segments(&[1e16, 1.0, 2.0], &[0, 2, 3], &mut accs).unwrap();
/// reprosum::add_segments(&[-1e16, 3.0], &[0, 1, 2], &mut accs).unwrap();
/// assert_eq!([accs[0].value(), accs[1].value()], [1.0, 5.0]);
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`] if `offsets` has not `accs.len() + 1` entries;
/// [`Error::InvalidOffsets`]; [`Error::CapacityExceeded`] if a segment would take its
/// accumulator's count past [`Float::CAPACITY`]; [`Error::OutOfMemory`]. No accumulator
/// changes then.
pub fn add_segments_with<T: Float, A: AccumulatorSlot<T>>(
    xs: &[T],
    offsets: &[usize],
    accs: &mut [A],
    opts: &Options,
) -> Result<(), Error> {
    if offsets.len() != accs.len().saturating_add(1) {
        return Err(Error::LengthMismatch);
    }
    check_offsets::<T>(offsets, xs.len())?;
    check_rooms(accs, |i| offsets[i + 1] - offsets[i])?;
    into_groups(
        |i| &xs[offsets[i]..offsets[i + 1]],
        xs.len(),
        accs,
        A::get,
        A::set,
        through_accumulator(&A::get, &A::set),
        opts,
    )
}

/// Adds each value to its key's accumulator (default chunking: as [`add_by_key_with`]).
///
/// # Errors
/// As [`add_by_key_with`].
pub fn add_by_key<T: Float, A: AccumulatorSlot<T>>(
    xs: &[T],
    keys: &[i64],
    accs: &mut [A],
) -> Result<(), Error> {
    add_by_key_with(xs, keys, accs, &Options::default())
}

/// Adds every `xs[i]` to `accs[keys[i]]`, each accumulator at its own fold (`opts.fold` is not
/// used). Shards of (key, value) pairs, in any split and order, added call after call or on
/// ranks whose accumulator arrays are then merged, leave each key's accumulator with the
/// state of all its values: its value has the bits of [`sum_by_key_with`] of all the pairs.
///
/// ```
/// use reprosum::DynAccumulator;
/// let mut accs = [DynAccumulator::<f64>::new(3).unwrap(); 3];
/// reprosum::add_by_key(&[1e16, 1.0], &[0, 2], &mut accs).unwrap();
/// reprosum::add_by_key(&[2.0, -1e16], &[2, 0], &mut accs).unwrap();
/// assert_eq!(accs.map(|a| a.value()), [0.0, 0.0, 3.0]);
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`] if `keys` and `xs` differ in length; [`Error::KeyOutOfRange`]
/// for a key below 0 or not below `accs.len()`; [`Error::CapacityExceeded`] if a key's values
/// would take its accumulator's count past [`Float::CAPACITY`]; [`Error::OutOfMemory`]. No
/// accumulator changes then.
pub fn add_by_key_with<T: Float, A: AccumulatorSlot<T>>(
    xs: &[T],
    keys: &[i64],
    accs: &mut [A],
    opts: &Options,
) -> Result<(), Error> {
    if keys.len() != xs.len() {
        return Err(Error::LengthMismatch);
    }
    if bucket_shift(xs.len(), accs.len(), 1).is_some() {
        return bucketed_into(xs, keys, accs, opts);
    }
    let (gathered, offsets) = gather_by_key(xs, keys, accs.len(), opts)?;
    check_rooms(accs, |k| offsets[k + 1] - offsets[k])?;
    into_groups(
        |k| &gathered[offsets[k]..offsets[k + 1]],
        gathered.len(),
        accs,
        A::get,
        A::set,
        through_accumulator(&A::get, &A::set),
        opts,
    )
}

/// The reproducible cumulative sum of each segment (fold 3). As [`segmented_cumsum_with`].
///
/// # Errors
/// As [`segmented_cumsum_with`].
pub fn segmented_cumsum<T: Float>(xs: &[T], offsets: &[usize], out: &mut [T]) -> Result<(), Error> {
    segmented_cumsum_with(xs, offsets, out, &Options::default())
}

/// The reproducible cumulative sum of each segment, starting afresh at every segment: for
/// `j` in segment `i`, `out[j]` has the bits of `sum_with(&xs[offsets[i]..=j], opts)`.
/// `offsets` is as for [`segmented_sum_with`] (at least one entry: 0, never decreasing,
/// ending at `xs.len()`).
///
/// ```
/// let xs = [1.0, 2.0, 3.0, 10.0, 20.0];
/// let mut out = [0.0; 5];
/// reprosum::segmented_cumsum(&xs, &[0, 3, 5], &mut out).unwrap();
/// assert_eq!(out, [1.0, 3.0, 6.0, 10.0, 30.0]);
/// ```
///
/// # Errors
/// [`Error::InvalidFold`]; [`Error::LengthMismatch`] if `out` is not as long as `xs`;
/// [`Error::InvalidOffsets`]; [`Error::CapacityExceeded`] for a segment of more than
/// [`Float::CAPACITY`] values; [`Error::OutOfMemory`]. Nothing is written then.
pub fn segmented_cumsum_with<T: Float>(
    xs: &[T],
    offsets: &[usize],
    out: &mut [T],
    opts: &Options,
) -> Result<(), Error> {
    let empty = DynAccumulator::new(opts.fold)?;
    if xs.len() != out.len() {
        return Err(Error::LengthMismatch);
    }
    check_offsets::<T>(offsets, xs.len())?;
    cumsums((xs, out), offsets, empty, opts)
}

/// The reproducible cumulative sum of each segment (fold 3), overwriting the input. As
/// [`segmented_cumsum_with`].
///
/// # Errors
/// As [`segmented_cumsum_in_place_with`].
pub fn segmented_cumsum_in_place<T: Float>(xs: &mut [T], offsets: &[usize]) -> Result<(), Error> {
    segmented_cumsum_in_place_with(xs, offsets, &Options::default())
}

/// [`segmented_cumsum_with`] with the running sums written over the input.
///
/// # Errors
/// [`Error::InvalidFold`], [`Error::InvalidOffsets`], [`Error::CapacityExceeded`],
/// [`Error::OutOfMemory`]; nothing is written then.
pub fn segmented_cumsum_in_place_with<T: Float>(
    xs: &mut [T],
    offsets: &[usize],
    opts: &Options,
) -> Result<(), Error> {
    let empty = DynAccumulator::new(opts.fold)?;
    check_offsets::<T>(offsets, xs.len())?;
    cumsums(xs, offsets, empty, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_cover_every_group_in_order() {
        for chunk in [1usize, 5, 40, 1000] {
            let lens = [0usize, 3, 100, 0, 0, 7, 2000, 1, 1, 39, 40, 41];
            let tasks = plan(lens.len(), |i| lens[i], chunk).unwrap();
            let mut at = 0;
            for t in &tasks {
                assert_eq!(t.groups.start, at);
                assert!(!t.groups.is_empty());
                assert_eq!(t.len, lens[t.groups.clone()].iter().sum::<usize>());
                if t.big {
                    assert_eq!(t.groups.len(), 1);
                    assert!(t.len >= chunk);
                }
                at = t.groups.end;
            }
            assert_eq!(at, lens.len());
        }
        assert!(plan(0, |_| 0, 10).unwrap().is_empty());
    }

    /// The threads' counting sort (forced by small chunks on a pool of 2; small enough for
    /// miri, which checks the scatter's writes) gathers every value under its key.
    #[test]
    fn keys_are_gathered_by_the_threads() {
        let n = 200usize;
        let xs: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let keys: Vec<i64> = (0..n as i64).map(|i| (i * 7) % 5).collect();
        let opts = Options {
            fold: 3,
            chunk_len: 16,
        };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (gathered, offsets) = pool.install(|| gather_by_key(&xs, &keys, 5, &opts)).unwrap();
        assert_eq!(offsets, [0, 40, 80, 120, 160, 200]);
        for k in 0..5 {
            let mut got: Vec<f64> = gathered[offsets[k]..offsets[k + 1]].to_vec();
            got.sort_by(f64::total_cmp);
            let want: Vec<f64> = (0..n)
                .filter(|&i| keys[i] == k as i64)
                .map(|i| i as f64)
                .collect();
            assert_eq!(got, want);
        }
        let mut bad = keys.clone();
        bad[150] = 5;
        let e = pool.install(|| gather_by_key(&xs, &bad, 5, &opts)).unwrap_err();
        assert_eq!(e, Error::KeyOutOfRange);
    }

    /// The keyed sums' tests of the buckets (`tests/segmented.rs`, `bucketed_*`) take the
    /// buckets: 1e5 pairs with 4097 to 2e5 keys, and 3e5 with 5000 keys; and the widths are
    /// within their bounds.
    #[test]
    fn buckets_are_taken_where_the_tests_expect() {
        for nkeys in [4097usize, 10_000, 65_536, 100_000, 150_001, 200_000] {
            for parts in [1usize, 2, 3, 8] {
                let shift = bucket_shift(100_000, nkeys, parts).unwrap();
                assert!(BUCKET_KEYS.contains(&(1 << shift)), "{nkeys} {parts}");
                assert!(nkeys.div_ceil(1 << shift) <= 2 * BUCKETS);
            }
        }
        assert_eq!(bucket_shift(100_000, 4096, 1), None);
        assert_eq!(bucket_shift(BUCKETED_MIN - 1, 100_000, 1), None);
        assert!(bucket_shift(BUCKETED_MIN, 1 << 26, 1).is_some());
        assert_eq!(bucket_shift(BUCKETED_MIN, (1 << 26) + 1, 1), None);
        // Its large bucket (keys 0..300 with about 270,000 of 300,000 values) is buffered.
        for parts in [1usize, 2, 3, 8] {
            let width = 1 << bucket_shift(300_000, 5000, parts).unwrap();
            assert!((300..=270_000 / 16).contains(&width) && 270_000 > SORTED_VALUES);
        }
        assert_eq!(bucket_shift(10_000_000, 100_000, 1), Some(9));
        assert_eq!(bucket_shift(10_000_000, 100_000, 2), Some(10));
    }

    /// A key of more values than the capacity is `CapacityExceeded` with `out` untouched, on
    /// one and two threads (the capacity lowered: no input that large is needed to check it),
    /// and one value fewer is summed.
    #[test]
    fn buckets_check_the_capacity() {
        let n = 100_000usize;
        let nkeys = 20_000usize;
        let xs: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 - 500.0).collect();
        // Key k has k % 7 values (up to 6), the rest of the values to the keys from 7000 on
        // (6 or 7 each).
        let mut keys: Vec<i64> = Vec::new();
        for k in 0..7000i64 {
            keys.extend(std::iter::repeat_n(k, (k % 7) as usize));
        }
        let more = n - keys.len();
        keys.extend((0..more as i64).map(|i| 7000 + i % 13_000));
        keys.rotate_left(12_345);
        let opts = Options {
            fold: 3,
            chunk_len: 997,
        };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let poison = f32::from_bits(0x7FA0_BEEF);
        let empty = DynAccumulator::new(3).unwrap();
        for two in [false, true] {
            let run = |capacity: u64, out: &mut [f32]| {
                if two {
                    pool.install(|| bucketed_by_key(&xs, &keys, out, empty, capacity, &opts))
                } else {
                    bucketed_by_key(&xs, &keys, out, empty, capacity, &opts)
                }
            };
            let mut out = vec![poison; nkeys];
            assert_eq!(run(6, &mut out), Err(Error::CapacityExceeded));
            assert!(out.iter().all(|x| x.to_bits() == poison.to_bits()));
            run(7, &mut out).unwrap();
            let mut want = vec![0.0f32; nkeys];
            crate::sum_by_key(&xs, &keys, &mut want).unwrap();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&out), bits(&want));
        }
    }

    /// The layout rules, and the capacity of each segment (not of the whole input: no slice
    /// that large is needed to check it).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn offsets_are_checked() {
        assert_eq!(check_offsets::<f64>(&[0, 2, 2, 5], 5), Ok(()));
        assert_eq!(check_offsets::<f64>(&[0], 0), Ok(()));
        assert_eq!(check_offsets::<f64>(&[], 0), Err(Error::InvalidOffsets));
        assert_eq!(check_offsets::<f64>(&[1, 5], 5), Err(Error::InvalidOffsets));
        assert_eq!(check_offsets::<f64>(&[0, 3, 2, 5], 5), Err(Error::InvalidOffsets));
        assert_eq!(check_offsets::<f64>(&[0, 4], 5), Err(Error::InvalidOffsets));
        let cap = f32::CAPACITY as usize;
        assert_eq!(check_offsets::<f32>(&[0, cap, 2 * cap], 2 * cap), Ok(()));
        assert_eq!(
            check_offsets::<f32>(&[0, 1, cap + 2], cap + 2),
            Err(Error::CapacityExceeded)
        );
        // A decrease is reported before a segment past the capacity.
        assert_eq!(
            check_offsets::<f32>(&[0, cap + 1, 1, cap + 2], cap + 2),
            Err(Error::InvalidOffsets)
        );
    }
}
