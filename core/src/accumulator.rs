//! The two accumulator forms: [`Accumulator`] (fold as a const parameter) and
//! [`DynAccumulator`] (fold chosen at run time, for the C ABI, the CLI and the GPU).
//! Both keep the same state, give the same bits and write the same byte encoding.

use crate::binned::{self, Meta, FOLD_CAP};
use crate::encoding;
use crate::float::Float;
use crate::simd::Platform;
use crate::{Encoded, Error};

/// A K-fold binned accumulator: a reproducible running sum of `f32` or `f64` values.
///
/// The value it holds depends only on the multiset of values added, never on their order
/// or on how they were split between accumulators that were then merged. For finite
/// inputs the value has the bits of ReproBLAS's binned sum at the same fold.
///
/// `K` is the fold (default 3), in `2..=52` for `f64` and `2..=21` for `f32`; any other
/// `K` is a compile-time error. A larger fold is more accurate and slower: the error is
/// about `n * 2^(-W (K - 1)) * max|x|` (W = 40 for f64, 13 for f32).
///
/// ```
/// use reprosum_core::Accumulator;
/// let mut a = Accumulator::<f64>::new();
/// a.add_slice(&[1e16, 1.0, -1e16]).unwrap();
/// let mut b = Accumulator::<f64>::new();
/// b.add(2.0).unwrap();
/// a.merge(&b).unwrap();
/// assert_eq!(a.value().to_bits(), 3.0f64.to_bits());
/// ```
///
/// A fold outside the type's range does not compile:
///
/// ```compile_fail
/// let a = reprosum_core::Accumulator::<f32, 22>::new();
/// ```
///
/// ```compile_fail
/// let a = reprosum_core::Accumulator::<f64, 1>::new();
/// ```
///
/// ```compile_fail
/// let a = reprosum_core::Accumulator::<f64, 53>::default();
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Accumulator<T: Float, const K: usize = 3> {
    p: [T; K],
    c: [T; K],
    meta: Meta,
}

impl<T: Float, const K: usize> Accumulator<T, K> {
    /// Evaluated when the type is used: a fold outside the type's range does not compile.
    const VALID_FOLD: () = assert!(
        K >= 2 && K <= T::MAX_FOLD,
        "fold K must be in 2..=52 (f64) or 2..=21 (f32)"
    );

    /// The fold.
    pub const FOLD: usize = K;

    /// Bytes of this accumulator's encoding (`20 + 2 * K * size_of::<T>()`).
    pub const ENCODED_LEN: usize = encoding::encoded_len(T::BYTES, K);

    /// An empty accumulator (its value is +0.0).
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID_FOLD;
        Self {
            p: [T::ZERO; K],
            c: [T::ZERO; K],
            meta: Meta {
                count: 0,
                flags: 0,
                pending: 0,
            },
        }
    }

    /// Adds one value.
    ///
    /// # Errors
    /// [`Error::CapacityExceeded`] if the accumulator already holds [`Float::CAPACITY`]
    /// values; it is then unchanged.
    #[inline]
    pub fn add(&mut self, x: T) -> Result<(), Error> {
        binned::add_one(&mut self.p, &mut self.c, &mut self.meta, x)
    }

    /// Adds every value of a slice.
    ///
    /// # Errors
    /// [`Error::CapacityExceeded`] if the values would take the count past
    /// [`Float::CAPACITY`]; checked before any value is added.
    pub fn add_slice(&mut self, xs: &[T]) -> Result<(), Error> {
        self.add_slice_on(Platform::current(), xs)
    }

    /// [`add_slice`](Self::add_slice) on the given path rather than the process-wide
    /// default (every path gives the same bits).
    ///
    /// # Errors
    /// As [`add_slice`](Self::add_slice).
    pub fn add_slice_on(&mut self, pf: Platform, xs: &[T]) -> Result<(), Error> {
        binned::add_slice(pf, &mut self.p, &mut self.c, &mut self.meta, xs)
    }

    /// Adds every value of `xs` and writes the running value after each to `out`: `out[i]`
    /// is what [`value`](Self::value) would return after adding `xs[..=i]`.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] or [`Error::CapacityExceeded`], before anything is added
    /// or written.
    pub fn add_running(&mut self, xs: &[T], out: &mut [T]) -> Result<(), Error> {
        self.add_running_on(Platform::current(), xs, out)
    }

    /// [`add_running`](Self::add_running) on the given path.
    ///
    /// # Errors
    /// As [`add_running`](Self::add_running).
    pub fn add_running_on(&mut self, pf: Platform, xs: &[T], out: &mut [T]) -> Result<(), Error> {
        crate::sum::running_into(pf, &mut self.p, &mut self.c, &mut self.meta, xs, out)
    }

    /// [`add_running`](Self::add_running) with the running values written over the input.
    ///
    /// # Errors
    /// [`Error::CapacityExceeded`], before anything is added or written.
    pub fn add_running_in_place(&mut self, xs: &mut [T]) -> Result<(), Error> {
        crate::sum::running_in_place(Platform::current(), &mut self.p, &mut self.c, &mut self.meta, xs)
    }

    /// Adds the values of another accumulator (exactly: any merge tree gives the state of
    /// adding every value to one accumulator).
    ///
    /// # Errors
    /// [`Error::CapacityExceeded`] if the two counts together pass [`Float::CAPACITY`];
    /// `self` is then unchanged.
    pub fn merge(&mut self, other: &Self) -> Result<(), Error> {
        binned::merge(
            &mut self.p,
            &mut self.c,
            &mut self.meta,
            &other.p,
            &other.c,
            &other.meta,
        )
    }

    /// The sum of the values added so far, as a float.
    ///
    /// +0.0 when empty or when the values cancel exactly (never -0.0); the canonical NaN
    /// if a NaN, or both infinities, were added; an infinity if only that infinity was;
    /// +-Inf if the finite sum overflows.
    pub fn value(&self) -> T {
        binned::value(&self.p, &self.c, &self.meta)
    }

    /// How many values were added (finite or not).
    pub const fn count(&self) -> u64 {
        self.meta.count
    }

    /// The canonical byte encoding: renormalised state, count, little-endian on every
    /// target. Accumulators of equal multisets give equal bytes.
    pub fn to_bytes(&self) -> Encoded {
        encoding::encode(&self.p, &self.c, &self.meta)
    }

    /// Rebuilds an accumulator from [`to_bytes`](Self::to_bytes) output.
    ///
    /// # Errors
    /// [`Error::Encoding`] for a wrong length, magic, version, type or fold, unknown flag
    /// bits, a count past the capacity, or a state the format cannot reach.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let mut a = Self::new();
        let meta = encoding::decode::<T>(bytes, Some(K), &mut a.p, &mut a.c)?;
        a.meta = meta;
        Ok(a)
    }
}

impl<T: Float, const K: usize> Default for Accumulator<T, K> {
    fn default() -> Self {
        Self::new()
    }
}

/// A binned accumulator whose fold is chosen at run time: the same state, bits and
/// encoding as [`Accumulator`] with that fold. Used by the C ABI, the CLI and the GPU.
///
/// ```
/// use reprosum_core::{Accumulator, DynAccumulator};
/// let mut d = DynAccumulator::<f32>::new(4).unwrap();
/// d.add_slice(&[1e20, -1e20, 3.5, -2.0, 0.25]).unwrap();
/// let mut a = Accumulator::<f32, 4>::new();
/// a.add_slice(&[1e20, -1e20, 3.5, -2.0, 0.25]).unwrap();
/// assert_eq!(d.value().to_bits(), a.value().to_bits());
/// assert_eq!(d.to_bytes().as_bytes(), a.to_bytes().as_bytes());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DynAccumulator<T: Float> {
    fold: usize,
    p: [T; FOLD_CAP],
    c: [T; FOLD_CAP],
    meta: Meta,
}

impl<T: Float> DynAccumulator<T> {
    /// An empty accumulator of the given fold.
    ///
    /// # Errors
    /// [`Error::InvalidFold`] unless `2 <= fold <= T::MAX_FOLD`.
    pub fn new(fold: usize) -> Result<Self, Error> {
        if !(2..=T::MAX_FOLD).contains(&fold) {
            return Err(Error::InvalidFold);
        }
        Ok(Self {
            fold,
            p: [T::ZERO; FOLD_CAP],
            c: [T::ZERO; FOLD_CAP],
            meta: Meta::default(),
        })
    }

    /// The fold.
    pub const fn fold(&self) -> usize {
        self.fold
    }

    fn parts(&mut self) -> (&mut [T], &mut [T], &mut Meta) {
        let k = self.fold.min(FOLD_CAP);
        (&mut self.p[..k], &mut self.c[..k], &mut self.meta)
    }

    /// Adds one value. See [`Accumulator::add`].
    ///
    /// # Errors
    /// [`Error::CapacityExceeded`], leaving the accumulator unchanged.
    #[inline]
    pub fn add(&mut self, x: T) -> Result<(), Error> {
        let (p, c, m) = self.parts();
        binned::add_one(p, c, m, x)
    }

    /// Adds every value of a slice. See [`Accumulator::add_slice`].
    ///
    /// # Errors
    /// [`Error::CapacityExceeded`], checked before any value is added.
    pub fn add_slice(&mut self, xs: &[T]) -> Result<(), Error> {
        self.add_slice_on(Platform::current(), xs)
    }

    /// See [`Accumulator::add_slice_on`].
    ///
    /// # Errors
    /// [`Error::CapacityExceeded`], checked before any value is added.
    pub fn add_slice_on(&mut self, pf: Platform, xs: &[T]) -> Result<(), Error> {
        let (p, c, m) = self.parts();
        binned::add_slice(pf, p, c, m, xs)
    }

    /// See [`Accumulator::add_running`].
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] or [`Error::CapacityExceeded`], before anything is added
    /// or written.
    pub fn add_running(&mut self, xs: &[T], out: &mut [T]) -> Result<(), Error> {
        self.add_running_on(Platform::current(), xs, out)
    }

    /// See [`Accumulator::add_running_on`].
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] or [`Error::CapacityExceeded`], before anything is added
    /// or written.
    pub fn add_running_on(&mut self, pf: Platform, xs: &[T], out: &mut [T]) -> Result<(), Error> {
        let (p, c, m) = self.parts();
        crate::sum::running_into(pf, p, c, m, xs, out)
    }

    /// See [`Accumulator::add_running_in_place`].
    ///
    /// # Errors
    /// [`Error::CapacityExceeded`], before anything is added or written.
    pub fn add_running_in_place(&mut self, xs: &mut [T]) -> Result<(), Error> {
        let (p, c, m) = self.parts();
        crate::sum::running_in_place(Platform::current(), p, c, m, xs)
    }

    /// Adds the values of another accumulator of the same fold.
    ///
    /// # Errors
    /// [`Error::FoldMismatch`] if the folds differ; [`Error::CapacityExceeded`] if the
    /// counts together pass the capacity. `self` is unchanged on error.
    pub fn merge(&mut self, other: &Self) -> Result<(), Error> {
        if other.fold != self.fold {
            return Err(Error::FoldMismatch);
        }
        let k = other.fold.min(FOLD_CAP);
        let (op, oc, om) = (&other.p[..k], &other.c[..k], &other.meta);
        let (p, c, m) = self.parts();
        binned::merge(p, c, m, op, oc, om)
    }

    /// The sum of the values added so far. See [`Accumulator::value`].
    pub fn value(&self) -> T {
        let k = self.fold.min(FOLD_CAP);
        binned::value(&self.p[..k], &self.c[..k], &self.meta)
    }

    /// How many values were added.
    pub const fn count(&self) -> u64 {
        self.meta.count
    }

    /// The canonical byte encoding (identical to [`Accumulator::to_bytes`] at this fold).
    pub fn to_bytes(&self) -> Encoded {
        let k = self.fold.min(FOLD_CAP);
        encoding::encode(&self.p[..k], &self.c[..k], &self.meta)
    }

    /// Rebuilds an accumulator of any valid fold from its encoding.
    ///
    /// # Errors
    /// [`Error::Encoding`] as for [`Accumulator::from_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (fold, _) = encoding::peek_fold::<T>(bytes)?;
        let mut a = Self::new(fold).map_err(|_| Error::Encoding(crate::EncodingError::Fold))?;
        let (p, c, _) = a.parts();
        let meta = encoding::decode::<T>(bytes, None, p, c)?;
        a.meta = meta;
        Ok(a)
    }
}

impl<T: Float, const K: usize> From<Accumulator<T, K>> for DynAccumulator<T> {
    fn from(a: Accumulator<T, K>) -> Self {
        let mut d = Self {
            fold: K,
            p: [T::ZERO; FOLD_CAP],
            c: [T::ZERO; FOLD_CAP],
            meta: a.meta,
        };
        d.p[..K].copy_from_slice(&a.p);
        d.c[..K].copy_from_slice(&a.c);
        d
    }
}

impl<T: Float, const K: usize> TryFrom<DynAccumulator<T>> for Accumulator<T, K> {
    type Error = Error;

    /// # Errors
    /// [`Error::FoldMismatch`] unless the run-time fold is `K`.
    fn try_from(d: DynAccumulator<T>) -> Result<Self, Error> {
        if d.fold != K {
            return Err(Error::FoldMismatch);
        }
        let mut a = Self::new();
        a.p.copy_from_slice(&d.p[..K]);
        a.c.copy_from_slice(&d.c[..K]);
        a.meta = d.meta;
        Ok(a)
    }
}
