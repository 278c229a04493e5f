//! The two floating-point types the binned format is defined for, and their parameters.
//!
//! Everything type-specific lives here: the bin width, the bin grid, the index rule, the
//! byte layout of one element and the conversion of a finished state back to a float.
//! The algorithms in [`crate::binned`] are written once over [`Float`], whose format
//! parameters and helpers are the crate-private supertrait [`Format`].

use core::fmt::Debug;
use core::ops::{Add, Mul, Sub};

/// The element type of a reproducible sum: `f32` or `f64`.
///
/// Sealed: no other type can implement it (its supertrait, the binned format's parameters
/// and helpers, is private to this crate, so other crates can neither implement nor call
/// it). What is public is what a caller of the generic API needs: the type's tag, its
/// limits, its size and bit pattern, and two constants.
///
/// ```compile_fail
/// // The format's internals are not API:
/// fn bin_width<T: reprosum_core::Float>() -> u32 { T::BIN_WIDTH }
/// ```
///
/// ```compile_fail
/// # #[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)] struct Half(u16);
/// # impl core::ops::Add for Half { type Output = Half; fn add(self, _: Half) -> Half { self } }
/// # impl core::ops::Sub for Half { type Output = Half; fn sub(self, _: Half) -> Half { self } }
/// # impl core::ops::Mul for Half { type Output = Half; fn mul(self, _: Half) -> Half { self } }
/// // Sealed:
/// impl reprosum_core::Float for Half {
///     const DTYPE: reprosum_core::Dtype = reprosum_core::Dtype::F32;
///     const MAX_FOLD: usize = 2;
///     const CAPACITY: u64 = 1;
///     const ZERO: Self = Half(0);
///     const NAN: Self = Half(0x7e00);
/// }
/// ```
// A crate-private supertrait is what keeps its items private: behind a public trait in a
// private module (the usual sealed pattern) they could still be called as `T::ITEM` from
// any generic function bounded by `Float`.
#[allow(private_bounds)]
pub trait Float:
    Format
    + Copy
    + Debug
    + Default
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Send
    + Sync
    + 'static
{
    /// Which type this is ([`Dtype::F64`] / [`Dtype::F32`]), as the byte encoding and the
    /// C ABI name it.
    const DTYPE: Dtype;
    /// The largest fold (52 / 21); the smallest is 2. `Accumulator<T, K>` with a `K` outside
    /// `2..=MAX_FOLD` does not compile, and `DynAccumulator::new` refuses it.
    const MAX_FOLD: usize;
    /// Values one accumulator may hold and keep the guarantee:
    /// 9,223,372,036,854,773,760 (f64) / 4,294,966,784 (f32). More is
    /// [`Error::CapacityExceeded`](crate::Error::CapacityExceeded).
    const CAPACITY: u64;
    /// Bytes of one value (8 / 4): the size of an element in the byte encoding and in
    /// memory.
    const BYTES: usize = <Self as Format>::SIZE;
    /// +0.0: the value of an empty sum (and of any sum that cancels exactly).
    const ZERO: Self;
    /// The canonical quiet NaN that every NaN result has, whatever the input payloads
    /// (bits 0x7FF8000000000000 / 0x7FC00000).
    const NAN: Self;
    /// The sign bit of [`bits`](Self::bits) (`1 << 63` / `1 << 31`).
    const SIGN_BIT: u64 = 1 << (8 * <Self as Format>::SIZE - 1);

    /// The bit pattern, widened to 64 bits (the form results are compared in).
    #[inline(always)]
    fn bits(self) -> u64 {
        self.raw_bits()
    }

    /// The value with this bit pattern (the low `8 * BYTES` bits are used).
    #[inline(always)]
    fn from_bits_u64(bits: u64) -> Self {
        Self::from_raw_bits(bits)
    }
}

/// The binned format's parameters and helpers for one type: crate-private, the supertrait
/// of [`Float`] (so every `T: Float` has them, and nothing outside this crate sees them).
///
/// The constants are those of ReproBLAS (`DBWIDTH`, `SBWIDTH`, `binned.h`); the format's
/// specification, `docs/FORMAT.md` (section 1), says what each is.
pub(crate) trait Format: Copy {
    /// Bytes of one value (8 / 4).
    const SIZE: usize;
    /// Bin width W in bits (40 for f64, 13 for f32).
    const BIN_WIDTH: u32;
    /// Stored significand bits (52 / 23).
    const MANT_BITS: u32;
    /// Largest bin index (51 / 20).
    const MAX_INDEX: usize;
    /// Deposits one slot may take between renormalisations (2048 / 512).
    const ENDURANCE: u32;
    /// +Inf.
    const INFINITY: Self;
    /// -Inf.
    const NEG_INFINITY: Self;

    /// The bit pattern, widened to 64 bits ([`Float::bits`]).
    fn raw_bits(self) -> u64;
    /// The value with this bit pattern ([`Float::from_bits_u64`]).
    fn from_raw_bits(bits: u64) -> Self;
    /// A small integer, exactly (used for carries).
    fn from_i32(v: i32) -> Self;
    /// Whether the value is neither NaN nor infinite.
    fn finite(self) -> bool;
    /// The value as f64 (exact).
    fn to_f64(self) -> f64;
    /// An f64 rounded to this type (round to nearest even; exact for every use here but
    /// the final rounding of an f32 conversion).
    fn from_f64_round(v: f64) -> Self;
    /// The largest `bits & !SIGN_BIT` of a slice (0 if empty): the largest magnitude, with
    /// NaN and Inf above every finite value.
    fn max_abs_bits(xs: &[Self]) -> u64;
    /// (For the block deposit.) One step of a running [`Format::max_abs_bits`] over `L`
    /// lanes, kept beside a deposit: each `keys[i]` (a key held in a value's bit pattern;
    /// all-zero bits to start) becomes the larger of itself and `xs[i]`'s key. Native-width
    /// integer maxima, so that it vectorises at the width of the values.
    fn max_abs_keys<const L: usize>(keys: &mut [Self; L], xs: &[Self; L]);
    /// The largest key of the lanes of [`Format::max_abs_keys`]: `max_abs_bits` of every
    /// value they took.
    fn max_abs_keys_reduce<const L: usize>(keys: &[Self; L]) -> u64;
    /// Converts a renormalised state to a float (ReproBLAS's `binned_ddmconv` /
    /// `binned_ssmconv` order). `p` and `c` have the same, non-zero length; `p[0]` is a
    /// finite, non-zero reference-range value.
    fn convert(p: &[Self], c: &[Self]) -> Self;

    /// Bits of the exponent field.
    const EXP_MASK: u64 = ((1u64 << (Self::SIZE * 8 - 1 - Self::MANT_BITS as usize)) - 1) << Self::MANT_BITS;
    /// Bit pattern of +Inf (the exponent field all ones, significand zero).
    const INF_BITS: u64 = Self::EXP_MASK;
    /// Largest biased exponent field of a finite value (2046 / 254).
    const MAX_EXP_FIELD: u64 = (Self::EXP_MASK >> Self::MANT_BITS) - 1;
    /// The exponent field bin 0 would have without compression (2060 / 266): bin i's
    /// reference value has the field `TOP_FIELD - W * i` for i >= 1.
    const TOP_FIELD: u64 = Self::MAX_EXP_FIELD + Self::MANT_BITS as u64 + 2 - Self::BIN_WIDTH as u64;
    /// Top-bin compression 2^-(p-W+1): 2^-14 (f64) / 2^-12 (f32).
    const COMPRESSION_EXP: i32 = -(Self::MANT_BITS as i32 + 1 - Self::BIN_WIDTH as i32 + 1);

    /// The biased exponent field of the reference value of bin `i` (indices past
    /// `MAX_INDEX` repeat the bottom bin, as ReproBLAS's table does).
    #[inline(always)]
    fn bin_exp_field(i: usize) -> u64 {
        if i == 0 {
            Self::MAX_EXP_FIELD
        } else {
            let i = if i > Self::MAX_INDEX { Self::MAX_INDEX } else { i } as u64;
            // f64: 2060 - 40 i, f32: 266 - 13 i.
            Self::TOP_FIELD - Self::BIN_WIDTH as u64 * i
        }
    }

    /// The reference value B_i of bin `i` (1.5 * 2^k; clamped at the bottom).
    #[inline(always)]
    fn bin(i: usize) -> Self {
        Self::from_raw_bits((Self::bin_exp_field(i) << Self::MANT_BITS) | (1u64 << (Self::MANT_BITS - 1)))
    }

    /// B_i / 6 = ufp(B_i) / 4, the carry unit of bin `i`, as an exact f64 (built from its
    /// exponent: no division, which soft-float targets would pay for).
    #[inline(always)]
    fn bin_quarter(i: usize) -> f64 {
        let bias = (Self::MAX_EXP_FIELD as i64 + 1) / 2;
        let e = Self::bin_exp_field(i) as i64 - bias - 2;
        f64::from_bits(((e + 1023) as u64) << 52)
    }

    /// The bin index of a value: which bin its leading bit falls in.
    ///
    /// Zero gives `MAX_INDEX`; NaN and Inf give 0 (they are never deposited here).
    /// For a finite nonzero x with frexp exponent k it is `min((Emax - k) / W, MAX_INDEX)`.
    #[inline(always)]
    fn index(self) -> usize {
        let mag = self.raw_bits() & ((1u64 << (Self::SIZE * 8 - 1)) - 1);
        if mag == 0 {
            return Self::MAX_INDEX;
        }
        let field = mag >> Self::MANT_BITS;
        // Emax - k, with k the frexp exponent: for normals k = field - bias + 1, so
        // Emax - k = MAX_EXP_FIELD - field.
        let depth = if field != 0 {
            Self::MAX_EXP_FIELD - field
        } else {
            // Subnormal with an L-bit significand: k = L - (bias - 1 + MANT_BITS), one less
            // for every leading zero of the significand field.
            let width = 64 - mag.leading_zeros() as u64; // 1..=MANT_BITS
            Self::MAX_EXP_FIELD - 1 + (Self::MANT_BITS as u64 + 1 - width)
        };
        // Fields fit in 32 bits: a 32-bit division (no 64-bit division routine on 32-bit targets).
        let i = (depth as u32 / Self::BIN_WIDTH) as usize;
        if i > Self::MAX_INDEX {
            Self::MAX_INDEX
        } else {
            i
        }
    }

    /// The top bin of a window whose first primary is `p0` (finite, non-zero, in a bin's
    /// binade): f64 `(2060 - e) / 40`, f32 `(266 - e) / 13`.
    #[inline(always)]
    fn window_index(p0: Self) -> usize {
        let field = (p0.raw_bits() & Self::EXP_MASK) >> Self::MANT_BITS;
        (Self::TOP_FIELD.saturating_sub(field) as u32 / Self::BIN_WIDTH) as usize
    }

    /// `2^e` for `e` in the normal range of the type.
    #[inline(always)]
    fn pow2(e: i32) -> Self {
        let bias = (Self::MAX_EXP_FIELD as i32 + 1) / 2;
        Self::from_raw_bits(((e + bias) as u64) << Self::MANT_BITS)
    }

    /// The value with the lowest significand bit set: the "sticky bit" that makes each
    /// slot round ties away from zero whatever the slot already holds.
    #[inline(always)]
    fn or_low_bit(self) -> Self {
        Self::from_raw_bits(self.raw_bits() | 1)
    }

    /// Whether the value is exactly +0.0 or -0.0.
    #[inline(always)]
    fn is_zero(self) -> bool {
        self.raw_bits() & ((1u64 << (Self::SIZE * 8 - 1)) - 1) == 0
    }
}

/// The element type named in an encoding or a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
}

impl Dtype {
    /// The code stored in the byte encoding.
    pub const fn code(self) -> u8 {
        match self {
            Dtype::F32 => 1,
            Dtype::F64 => 2,
        }
    }

    /// The largest fold for this type (21 / 52).
    pub const fn max_fold(self) -> usize {
        match self {
            Dtype::F32 => f32::MAX_FOLD,
            Dtype::F64 => f64::MAX_FOLD,
        }
    }

    /// Bytes of one element (4 / 8).
    pub const fn size(self) -> usize {
        match self {
            Dtype::F32 => 4,
            Dtype::F64 => 8,
        }
    }
}

impl core::fmt::Display for Dtype {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Dtype::F32 => "f32",
            Dtype::F64 => "f64",
        })
    }
}

impl Float for f64 {
    const DTYPE: Dtype = Dtype::F64;
    const MAX_FOLD: usize = 52;
    const CAPACITY: u64 = 2048 * ((1u64 << 52) - 1);
    const ZERO: Self = 0.0;
    const NAN: Self = f64::from_bits(0x7ff8_0000_0000_0000);
}

impl Format for f64 {
    const SIZE: usize = 8;
    const BIN_WIDTH: u32 = 40;
    const MANT_BITS: u32 = 52;
    const MAX_INDEX: usize = 51;
    const ENDURANCE: u32 = 2048;
    const INFINITY: Self = f64::INFINITY;
    const NEG_INFINITY: Self = f64::NEG_INFINITY;

    #[inline(always)]
    fn raw_bits(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_raw_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }
    #[inline(always)]
    fn from_i32(v: i32) -> Self {
        v as f64
    }
    #[inline(always)]
    fn finite(self) -> bool {
        self.is_finite()
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f64_round(v: f64) -> Self {
        v
    }

    #[inline(always)]
    fn max_abs_bits(xs: &[f64]) -> u64 {
        max_abs_lanes::<f64, i64>(xs, |x| (x.to_bits() & !(1 << 63)) as i64) as u64
    }

    #[inline(always)]
    fn max_abs_keys<const L: usize>(keys: &mut [f64; L], xs: &[f64; L]) {
        for (k, x) in keys.iter_mut().zip(xs.iter()) {
            let key = (x.to_bits() & !(1 << 63)) as i64;
            *k = f64::from_bits((k.to_bits() as i64).max(key) as u64);
        }
    }

    #[inline(always)]
    fn max_abs_keys_reduce<const L: usize>(keys: &[f64; L]) -> u64 {
        keys.iter().fold(0, |m: i64, k| m.max(k.to_bits() as i64)) as u64
    }

    fn convert(p: &[f64], c: &[f64]) -> f64 {
        convert_f64(p, c)
    }
}

impl Float for f32 {
    const DTYPE: Dtype = Dtype::F32;
    const MAX_FOLD: usize = 21;
    const CAPACITY: u64 = 512 * ((1u64 << 23) - 1);
    const ZERO: Self = 0.0;
    const NAN: Self = f32::from_bits(0x7fc0_0000);
}

impl Format for f32 {
    const SIZE: usize = 4;
    const BIN_WIDTH: u32 = 13;
    const MANT_BITS: u32 = 23;
    const MAX_INDEX: usize = 20;
    const ENDURANCE: u32 = 512;
    const INFINITY: Self = f32::INFINITY;
    const NEG_INFINITY: Self = f32::NEG_INFINITY;

    #[inline(always)]
    fn raw_bits(self) -> u64 {
        self.to_bits() as u64
    }
    #[inline(always)]
    fn from_raw_bits(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
    #[inline(always)]
    fn from_i32(v: i32) -> Self {
        v as f32
    }
    #[inline(always)]
    fn finite(self) -> bool {
        self.is_finite()
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn from_f64_round(v: f64) -> Self {
        v as f32
    }

    #[inline(always)]
    fn max_abs_bits(xs: &[f32]) -> u64 {
        max_abs_lanes::<f32, i32>(xs, |x| (x.to_bits() & !(1 << 31)) as i32) as u64
    }

    #[inline(always)]
    fn max_abs_keys<const L: usize>(keys: &mut [f32; L], xs: &[f32; L]) {
        for (k, x) in keys.iter_mut().zip(xs.iter()) {
            let key = (x.to_bits() & !(1 << 31)) as i32;
            *k = f32::from_bits((k.to_bits() as i32).max(key) as u32);
        }
    }

    #[inline(always)]
    fn max_abs_keys_reduce<const L: usize>(keys: &[f32; L]) -> u64 {
        keys.iter().fold(0, |m: i32, k| m.max(k.to_bits() as i32)) as u64
    }

    fn convert(p: &[f32], c: &[f32]) -> f32 {
        convert_f32(p, c)
    }
}

/// The largest key of a slice. The keys are magnitudes with the sign bit cleared, so
/// they are non-negative as signed integers; an integer maximum is associative, so the
/// compiler vectorises this plain reduction with several running maxima.
#[inline(always)]
fn max_abs_lanes<T: Copy, I: Copy + Ord + Default>(xs: &[T], key: impl Fn(T) -> I) -> I {
    xs.iter().fold(I::default(), |m, &x| m.max(key(x)))
}

/// f64 conversion: a fixed-order sequence of rounded f64 adds of exact terms.
///
/// Order: C_0, then (C_j, P_{j-1}) for j = 1..K-1, then P_{K-1}, where C_j = c_j * B_j/6
/// and P_j = p_j - B_j. When the window's top bin is 3 or higher (b <= 3), the first part
/// is done on terms scaled by 2^-66 so that partial sums above `f64::MAX` do not overflow;
/// the scale is applied to the *factors* (B_j/6 and the expansion), never to a finished
/// term, which could itself be past `f64::MAX` (`sum({max})` must be `max`, not Inf).
fn convert_f64(p: &[f64], c: &[f64]) -> f64 {
    let k = p.len().min(c.len());
    if k < 2 {
        return 0.0;
    }
    // Slot j's primary and carry. Every j used below is below k, the length of both, so
    // `get` never fails; it only keeps a bounds check (a panic path) out of the code
    // where the optimiser cannot see that, and costs nothing where it can.
    let pj = |j: usize| p.get(j).copied().unwrap_or(0.0);
    let cj = |j: usize| c.get(j).copied().unwrap_or(0.0);
    let x = f64::window_index(pj(0));
    let b = |j: usize| f64::bin(x + j);
    let q = |j: usize| f64::bin_quarter(x + j);
    let expansion = f64::pow2(-f64::COMPRESSION_EXP);
    let mut y = 0.0f64;
    let mut i;
    if x <= 3 {
        let down = f64::pow2(-66);
        let up = f64::pow2(66);
        let scaled = k.min(3 - x);
        if x == 0 {
            y += cj(0) * (q(0) * down * expansion);
            y += cj(1) * (q(1) * down);
            y += (pj(0) - b(0)) * down * expansion;
            i = 2;
        } else {
            y += cj(0) * (q(0) * down);
            i = 1;
        }
        while i < scaled {
            y += cj(i) * (q(i) * down);
            y += (pj(i - 1) - b(i - 1)) * down;
            i += 1;
        }
        if i == k {
            y += (pj(k - 1) - b(k - 1)) * down;
            return y * up;
        }
        y *= up;
        if y.is_infinite() {
            return y;
        }
    } else {
        y += cj(0) * q(0);
        i = 1;
    }
    while i < k {
        y += cj(i) * q(i);
        y += pj(i - 1) - b(i - 1);
        i += 1;
    }
    y + (pj(k - 1) - b(k - 1))
}

/// f32 conversion: the same order as f64, computed in f64 from widened exact terms, with
/// no scaling stage, then rounded once to f32. The double rounding is part of the
/// definition (ReproBLAS's `binned_ssmconv`); converting in f32 gives other bits.
fn convert_f32(p: &[f32], c: &[f32]) -> f32 {
    let k = p.len().min(c.len());
    if k < 2 {
        return 0.0;
    }
    // As in `convert_f64`: no index can fail, so no bounds check.
    let pj = |j: usize| p.get(j).copied().unwrap_or(0.0);
    let cj = |j: usize| c.get(j).copied().unwrap_or(0.0);
    let x = f32::window_index(pj(0));
    let b = |j: usize| f32::bin(x + j);
    let q = |j: usize| f32::bin_quarter(x + j);
    let expansion = f64::pow2(-f32::COMPRESSION_EXP);
    let mut y = 0.0f64;
    let mut i;
    if x == 0 {
        y += cj(0) as f64 * q(0) * expansion;
        y += cj(1) as f64 * q(1);
        y += (pj(0) - b(0)) as f64 * expansion;
        i = 2;
    } else {
        y += cj(0) as f64 * q(0);
        i = 1;
    }
    while i < k {
        y += cj(i) as f64 * q(i);
        y += (pj(i - 1) - b(i - 1)) as f64;
        i += 1;
    }
    y += (pj(k - 1) - b(k - 1)) as f64;
    y as f32
}
