//! The independent reference model of the binned format.
//!
//! This module is written from `docs/FORMAT.md` alone and shares no code with the fast
//! path (`reprosum-core`): not its `Float` trait, its constants, its deposit, its
//! renormalisation, its conversion or its encoder and decoder. It keeps the state of
//! FORMAT.md section 3 literally: the window's top bin and the exact slot integers S_j
//! (`i128`; |S_j| <= capacity * 2^(W-1) < 2^102), the count and the flags. Every operation
//! is exact integer arithmetic on that state:
//!
//! - [`Model::add`]: the index rule (section 2), raising the window (section 5) and the
//!   deposit with ties away from zero (section 6), done on the value's integer significand
//!   and exponent, with no floating-point arithmetic at all;
//! - [`Model::merge`] (section 8);
//! - [`Model::value`] (section 9): every term T_C(j), T_P(j) is built exactly from its
//!   integer and a power of two (as bits, by [`exact_bits`]), and only the additions the
//!   specification defines as rounded f64 additions use the machine's f64 arithmetic;
//! - [`Model::stored`], [`Model::to_bytes`], [`Model::to_bytes_v1`] (sections 3 and 11,
//!   with its own CRC-32C, [`crc32c`]) and [`Model::from_bytes`], which implements the
//!   acceptance rules of section 11 one by one.
//!
//! `no_std` and allocation-free (fixed arrays sized for the largest fold, 52), so the
//! bare-metal suite can run it too. It is slow (every slot of every value, in `i128`) and
//! panics only where the specification says a state cannot occur (a model bug).
//!
//! How it is checked: it reproduces every row of the known answers
//! (`tests/vectors/known_answers.txt`: ReproBLAS's and SyclReproSum's bits), it generates
//! `tests/vectors/core_vectors.txt`, and `tests/model.rs` compares every fast path of the
//! core and the facade with it, bit for bit and byte for byte.

use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The parameters of FORMAT.md section 1 and 2 for one float type, and access to its bits.
/// The model's own trait (sealed: f32 and f64 only).
pub trait ModelFloat: Copy + sealed::Sealed {
    /// Precision p: significand bits, with the hidden bit.
    const P: u32;
    /// Bits of the exponent field.
    const EXP_BITS: u32;
    /// Bin width W.
    const W: i32;
    /// Largest bin index M.
    const M: usize;
    /// Largest fold.
    const MAX_FOLD: usize;
    /// Emax: the frexp exponent of the largest finite value.
    const EMAX: i32;
    /// B_i = 1.5 * 2^(B_EXP - W i) for i >= 1 (1037 / 139).
    const B_EXP: i32;
    /// G_i = 2^(G_EXP - W i) for every i, bin 0 included (985 / 116).
    const G_EXP: i32;
    /// The type byte of the encoding (section 11): 1 = f32, 2 = f64.
    const TYPE_CODE: u8;
    /// The canonical quiet NaN (section 9).
    const NAN_BITS: u64;
    /// The IEEE bits, zero-extended.
    fn to_bits64(self) -> u64;
    /// From IEEE bits (the low bits of the type's width).
    fn from_bits64(bits: u64) -> Self;
    /// Rounds an f64 to this type, to nearest even, overflowing to an infinity (section 9,
    /// "rounded once to f32"; the identity for f64).
    fn round_from_f64(y: f64) -> Self;
}

impl ModelFloat for f64 {
    const P: u32 = 53;
    const EXP_BITS: u32 = 11;
    const W: i32 = 40;
    const M: usize = 51;
    const MAX_FOLD: usize = 52;
    const EMAX: i32 = 1024;
    const B_EXP: i32 = 1037;
    const G_EXP: i32 = 985;
    const TYPE_CODE: u8 = 2;
    const NAN_BITS: u64 = 0x7FF8_0000_0000_0000;
    fn to_bits64(self) -> u64 {
        self.to_bits()
    }
    fn from_bits64(bits: u64) -> Self {
        f64::from_bits(bits)
    }
    fn round_from_f64(y: f64) -> Self {
        y
    }
}

impl ModelFloat for f32 {
    const P: u32 = 24;
    const EXP_BITS: u32 = 8;
    const W: i32 = 13;
    const M: usize = 20;
    const MAX_FOLD: usize = 21;
    const EMAX: i32 = 128;
    const B_EXP: i32 = 139;
    const G_EXP: i32 = 116;
    const TYPE_CODE: u8 = 1;
    const NAN_BITS: u64 = 0x7FC0_0000;
    fn to_bits64(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits64(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
    fn round_from_f64(y: f64) -> Self {
        y as f32
    }
}

/// The largest fold of any type: the size of the model's arrays.
pub const MAX_FOLD: usize = 52;
/// The longest encoding: version 2, f64, fold 52 (section 11).
pub const MAX_BYTES: usize = 20 + 2 * MAX_FOLD * 8;

/// Bytes of one float of the type (z of section 11).
pub const fn width<T: ModelFloat>() -> usize {
    ((T::P + T::EXP_BITS) / 8) as usize
}

/// Endurance E = 2^(p-W-2) (section 1).
pub const fn endurance<T: ModelFloat>() -> u64 {
    1 << (T::P as i32 - T::W - 2)
}

/// Capacity = E * (2^(p-1) - 1) (section 1).
pub const fn capacity<T: ModelFloat>() -> u64 {
    endurance::<T>() * ((1 << (T::P - 1)) - 1)
}

/// The carry unit in grid steps is 2^CARRY_SHIFT = 2^(p-3) (sections 1 and 3).
const fn carry_shift<T: ModelFloat>() -> u32 {
    T::P - 3
}

/// log2 G_i; indices past M stand for bin M (section 2).
fn grid_exp<T: ModelFloat>(bin: usize) -> i32 {
    T::G_EXP - T::W * bin.min(T::M) as i32
}

/// log2 of the ulp of the stored primary of a slot in `bin`: G_i, except slot 0 of a window
/// whose top bin is 0, which is stored compressed, with ulp G_0 * C, C = 2^-(p-W+1)
/// (section 3).
fn primary_ulp_exp<T: ModelFloat>(bin: usize, slot: usize) -> i32 {
    let compress = if bin == 0 && slot == 0 {
        -(T::P as i32 - T::W + 1)
    } else {
        0
    };
    grid_exp::<T>(bin) + compress
}

/// The exponent field of B_i as stored (section 3): B_0 = 1.5 * 2^(Emax-1), B_i = 1.5 *
/// 2^(B_EXP - W i), B_M past M.
fn ref_field<T: ModelFloat>(bin: usize) -> u64 {
    let e = if bin == 0 {
        T::EMAX - 1
    } else {
        T::B_EXP - T::W * bin.min(T::M) as i32
    };
    (e + bias::<T>()) as u64
}

const fn bias<T: ModelFloat>() -> i32 {
    (1 << (T::EXP_BITS - 1)) - 1
}

/// A float's bits, taken apart (no floating-point operation involved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Nan,
    Inf {
        neg: bool,
    },
    /// |x| = m * 2^q exactly (m = 0 for +-0).
    Finite {
        neg: bool,
        m: u64,
        q: i32,
    },
}

fn classify(bits: u64, p: u32, ebits: u32) -> Kind {
    let mbits = p - 1;
    let emask = (1u64 << ebits) - 1;
    let neg = (bits >> (mbits + ebits)) & 1 == 1;
    let e = (bits >> mbits) & emask;
    let f = bits & ((1u64 << mbits) - 1);
    let bias = (1i32 << (ebits - 1)) - 1;
    if e == emask {
        if f != 0 {
            Kind::Nan
        } else {
            Kind::Inf { neg }
        }
    } else if e == 0 {
        // Zero and subnormals: f * 2^(1 - bias - (p-1)).
        Kind::Finite {
            neg,
            m: f,
            q: 1 - bias - mbits as i32,
        }
    } else {
        Kind::Finite {
            neg,
            m: f | (1u64 << mbits),
            q: e as i32 - bias - mbits as i32,
        }
    }
}

/// The bits of the float of precision `p` with `ebits` exponent bits whose value is exactly
/// `n * 2^e`, or `None` if no float of that format has that value (too many significant
/// bits, overflow, or below the subnormal grid). Zero gives +0.0.
pub fn exact_bits(n: i128, e: i32, p: u32, ebits: u32) -> Option<u64> {
    if n == 0 {
        return Some(0);
    }
    let sign = ((n < 0) as u64) << (p - 1 + ebits);
    let mut m = n.unsigned_abs();
    let tz = m.trailing_zeros();
    m >>= tz;
    let e = e.checked_add(tz as i32)?;
    let len = 128 - m.leading_zeros(); // significant bits
    if len > p {
        return None;
    }
    let bias = (1i32 << (ebits - 1)) - 1;
    let mbits = p - 1;
    let top = e + len as i32 - 1; // exponent of the leading bit
    if top > bias {
        return None;
    }
    if top >= 1 - bias {
        let frac = (m << (mbits - (len - 1))) as u64 & ((1u64 << mbits) - 1);
        Some(sign | (((top + bias) as u64) << mbits) | frac)
    } else {
        let lsb = 1 - bias - mbits as i32; // the subnormal grid
        if e < lsb {
            return None;
        }
        Some(sign | (m << (e - lsb) as u32) as u64)
    }
}

/// `n * 2^e` as an f64, exactly; panics if that is not an f64 (a model bug: section 9 says
/// every term it forms is one).
fn exact_f64(n: i128, e: i32) -> f64 {
    match exact_bits(n, e, 53, 11) {
        Some(b) => f64::from_bits(b),
        None => panic!("model: a term of the conversion is not an exact f64"),
    }
}

/// CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and final XOR
/// 0xFFFFFFFF), bit by bit (section 11).
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in bytes {
        crc ^= byte as u32;
        for _ in 0..8 {
            let low = crc & 1;
            crc >>= 1;
            if low == 1 {
                crc ^= 0x82F6_3B78;
            }
        }
    }
    crc ^ 0xFFFF_FFFF
}

/// Why an add or merge was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelError {
    /// The count would pass the capacity (sections 4 and 8).
    Capacity,
    /// Merging states of different folds.
    Fold,
}

/// Why bytes were refused: the rule of FORMAT.md section 11 that failed (1 to 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused(pub u8);

/// An encoding: up to [`MAX_BYTES`] bytes, no allocation.
#[derive(Clone, Copy)]
pub struct Bytes {
    buf: [u8; MAX_BYTES],
    len: usize,
}

impl Bytes {
    /// The encoded bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len]
    }
    fn push(&mut self, b: &[u8]) {
        self.buf[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
    }
}

impl core::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// The state of a K-fold accumulator (section 3), held exactly.
#[derive(Clone, Copy, Debug)]
pub struct Model<T: ModelFloat> {
    fold: usize,
    /// The window's top bin b; `None`: the empty finite part.
    top: Option<usize>,
    /// S_0..S_{K-1}: slot j is worth S_j * G_{b+j}. Zero past the fold and without a window.
    s: [i128; MAX_FOLD],
    count: u64,
    /// Bit 0 NaN, bit 1 +Inf, bit 2 -Inf.
    flags: u8,
    ty: PhantomData<T>,
}

impl<T: ModelFloat> Model<T> {
    /// An empty state of the given fold, or `None` outside 2..=the type's largest fold.
    pub fn new(fold: usize) -> Option<Self> {
        (2..=T::MAX_FOLD).contains(&fold).then_some(Self {
            fold,
            top: None,
            s: [0; MAX_FOLD],
            count: 0,
            flags: 0,
            ty: PhantomData,
        })
    }

    /// A state given by its parts (for tests that build states no sequence of adds has to
    /// reach): `top` `None` is the empty finite part, whose slots must then be 0. `None` if
    /// the fold, the top bin, the number of slots or the flags are out of range, or a slot
    /// has no exact stored form (|S_j| > 2^(p-1) * 2^(p-3)). Whether bytes of such a state
    /// are accepted is [`from_bytes`](Self::from_bytes)'s business, not checked here.
    pub fn from_parts(fold: usize, top: Option<usize>, s: &[i128], count: u64, flags: u8) -> Option<Self> {
        let mut m = Self::new(fold)?;
        let bound = 1i128 << (2 * T::P - 4);
        let ok_top = top.is_none_or(|b| b <= T::M);
        let ok_s = s.iter().all(|v| v.abs() <= bound && (top.is_some() || *v == 0));
        if !ok_top || s.len() != fold || flags & !7 != 0 || !ok_s {
            return None;
        }
        m.top = top;
        m.s[..fold].copy_from_slice(s);
        m.count = count;
        m.flags = flags;
        Some(m)
    }

    /// The fold K.
    pub fn fold(&self) -> usize {
        self.fold
    }
    /// How many values were added.
    pub fn count(&self) -> u64 {
        self.count
    }
    /// The flags: bit 0 NaN, bit 1 +Inf, bit 2 -Inf.
    pub fn flags(&self) -> u8 {
        self.flags
    }
    /// The window's top bin, `None` for the empty finite part.
    pub fn top(&self) -> Option<usize> {
        self.top
    }
    /// The exact slot integer S_j.
    pub fn slot(&self, j: usize) -> i128 {
        self.s[j]
    }

    /// Section 5: raise the window to index `ix`.
    fn raise(&mut self, ix: usize) {
        match self.top {
            None => {
                self.top = Some(ix);
                self.s = [0; MAX_FOLD];
            }
            Some(b) if b <= ix => {}
            Some(b) => {
                let shift = b - ix;
                let k = self.fold;
                let mut s = [0i128; MAX_FOLD];
                if shift < k {
                    // New slot j takes old slot j - s; old slots K-s..K-1 are dropped.
                    s[shift..k].copy_from_slice(&self.s[..k - shift]);
                }
                self.s = s;
                self.top = Some(ix);
            }
        }
    }

    /// Section 4: add one value.
    ///
    /// # Errors
    /// [`ModelError::Capacity`] if the count is already the capacity (nothing changes).
    pub fn add(&mut self, x: T) -> Result<(), ModelError> {
        if self.count >= capacity::<T>() {
            return Err(ModelError::Capacity);
        }
        self.count += 1;
        match classify(x.to_bits64(), T::P, T::EXP_BITS) {
            Kind::Nan => self.flags |= 1,
            Kind::Inf { neg: false } => self.flags |= 2,
            Kind::Inf { neg: true } => self.flags |= 4,
            Kind::Finite { neg, m, q } => {
                // Section 2: zero has index M; otherwise min(floor((Emax - k)/W), M) with k
                // the frexp exponent, 2^(k-1) <= m * 2^q < 2^k.
                let ix = if m == 0 {
                    T::M
                } else {
                    let k = q + (64 - m.leading_zeros()) as i32;
                    ((T::EMAX - k).div_euclid(T::W) as usize).min(T::M)
                };
                self.raise(ix);
                self.deposit(if neg { -(m as i128) } else { m as i128 }, q);
            }
        }
        Ok(())
    }

    /// Section 6: deposit r_0 = `r * 2^q` slot by slot from the top, each slot taking the
    /// nearest integer multiple of its grid, ties away from zero. The remainder is kept as
    /// the integer `r` times 2^q throughout, so every step is exact.
    fn deposit(&mut self, mut r: i128, q: i32) {
        let b = self.top.expect("deposit into a window");
        let half_bin = 1i128 << (T::W - 1);
        for j in 0..self.fold {
            if r == 0 {
                break;
            }
            let g = grid_exp::<T>(b + j);
            let d = if g <= q {
                // r_j / G is an integer: the slot takes all of it. |d| <= 2^(W-1), so the
                // shift is small.
                let sh = (q - g) as u32;
                assert!(sh < 64, "model: a deposit of more than 2^(W-1) grid steps");
                r << sh
            } else {
                // d = round(r / 2^sh), ties away from zero: floor((|r| + 2^(sh-1)) / 2^sh).
                let sh = (g - q) as u32;
                if sh > 100 {
                    0 // |r| < 2^54 is far below half a grid step
                } else {
                    let mag = ((r.unsigned_abs() + (1u128 << (sh - 1))) >> sh) as i128;
                    if r < 0 {
                        -mag
                    } else {
                        mag
                    }
                }
            };
            assert!(d.abs() <= half_bin, "model: |d_j| > 2^(W-1)");
            self.s[j] += d;
            r = if g <= q {
                0 // all of r_j went into this slot
            } else if d == 0 {
                r
            } else {
                r - (d << (g - q)) // here g - q <= 100
            };
        }
        // r_K is dropped.
    }

    /// Section 8: merge `other` into `self`.
    ///
    /// # Errors
    /// [`ModelError::Fold`] for different folds, [`ModelError::Capacity`] if the counts
    /// together pass the capacity; `self` is then unchanged.
    pub fn merge(&mut self, other: &Self) -> Result<(), ModelError> {
        if self.fold != other.fold {
            return Err(ModelError::Fold);
        }
        let count = self.count.checked_add(other.count).ok_or(ModelError::Capacity)?;
        if count > capacity::<T>() {
            return Err(ModelError::Capacity);
        }
        self.count = count;
        self.flags |= other.flags;
        if let Some(ob) = other.top {
            match self.top {
                None => {
                    self.top = other.top;
                    self.s = other.s;
                }
                Some(sb) => {
                    self.raise(ob.min(sb));
                    let shift = ob - self.top.unwrap_or(ob);
                    for j in shift..self.fold {
                        self.s[j] += other.s[j - shift];
                    }
                }
            }
        }
        Ok(())
    }

    /// Slot j's renormalised form (section 3): S_j = c_j * 2^(p-3) + P_j, 0 <= P_j < 2^(p-3).
    fn carry_and_rest(&self, j: usize) -> (i128, i128) {
        let unit = 1i128 << carry_shift::<T>();
        (self.s[j].div_euclid(unit), self.s[j].rem_euclid(unit))
    }

    /// Section 9: the value of the state.
    pub fn value(&self) -> T {
        // 1. and 2.: the order-free rule for NaN and the infinities.
        if self.flags & 1 != 0 || self.flags & 6 == 6 {
            return T::from_bits64(T::NAN_BITS);
        }
        if self.flags & 2 != 0 {
            return T::from_bits64(classify_inf::<T>(false));
        }
        if self.flags & 4 != 0 {
            return T::from_bits64(classify_inf::<T>(true));
        }
        // 3. The empty finite part.
        let Some(b) = self.top else {
            return T::from_bits64(0);
        };
        // 4. The conversion. term(i) is the i-th term of the order
        //    T_C(0), then for j = 1..K-1: T_C(j), T_P(j-1); then T_P(K-1),
        // as (integer, log2 of its unit), scaled by 2^-`down`.
        let k = self.fold;
        let term = |i: usize, down: i32| -> f64 {
            let (j, carry) = if i == 0 {
                (0, true)
            } else if i == 2 * k - 1 {
                (k - 1, false)
            } else if i % 2 == 1 {
                (i.div_ceil(2), true)
            } else {
                (i / 2 - 1, false)
            };
            let (c, p) = self.carry_and_rest(j);
            let g = grid_exp::<T>(b + j) - down;
            if carry {
                exact_f64(c, g + carry_shift::<T>() as i32)
            } else {
                exact_f64(p, g)
            }
        };
        let n_terms = 2 * k;
        let mut y = 0.0f64;
        let mut i = 0;
        if T::P == 53 && b <= 3 {
            // The scaling stage of f64: T_C(0) and the pairs j = 1..s-1 (and T_P(K-1) if
            // s = K) on terms scaled by 2^-66.
            let s = if b == 0 { k.min(3) } else { k.min(3 - b) };
            let scaled = if s == k { n_terms } else { 2 * s.max(1) - 1 };
            while i < scaled {
                y += term(i, 66);
                i += 1;
            }
            let up = exact_f64(1, 66);
            y *= up;
            if i == n_terms || y.is_infinite() {
                return T::round_from_f64(y);
            }
        }
        while i < n_terms {
            y += term(i, 0);
            i += 1;
        }
        // f64: y as it is; f32: computed in f64, rounded once to f32.
        T::round_from_f64(y)
    }

    /// Section 3: the stored form of slot j, as the bits of (p_j, c_j). The empty finite
    /// part is all +0.0.
    pub fn stored(&self, j: usize) -> (u64, u64) {
        let Some(b) = self.top else {
            return (0, 0);
        };
        let (c, p) = self.carry_and_rest(j);
        // p_j = B + P_j * ulp, with B = 1.5 * 2^(p-1) ulps: the integer 3 * 2^(p-2) + P_j.
        let ulp = primary_ulp_exp::<T>(b + j, j);
        let prim = exact_bits((3i128 << (T::P - 2)) + p, ulp, T::P, T::EXP_BITS);
        let carry = exact_bits(c, 0, T::P, T::EXP_BITS);
        match (prim, carry) {
            (Some(p), Some(c)) => (p, c),
            _ => panic!("model: the stored form of a slot is not exact"),
        }
    }

    /// Section 11: the canonical encoding, version 2 (with the CRC-32C).
    pub fn to_bytes(&self) -> Bytes {
        let mut out = self.to_bytes_v1();
        out.buf[4] = 2;
        let crc = crc32c(out.as_slice());
        out.push(&crc.to_le_bytes());
        out
    }

    /// Section 11: the version-1 encoding (no checksum).
    pub fn to_bytes_v1(&self) -> Bytes {
        let z = width::<T>();
        let mut out = Bytes {
            buf: [0; MAX_BYTES],
            len: 0,
        };
        out.push(b"ADNB");
        out.push(&[1, T::TYPE_CODE, self.fold as u8, self.flags]);
        out.push(&self.count.to_le_bytes());
        for half in 0..2 {
            for j in 0..self.fold {
                let (p, c) = self.stored(j);
                let v = if half == 0 { p } else { c };
                out.push(&v.to_le_bytes()[..z]);
            }
        }
        out
    }

    /// Section 11: decodes bytes under the acceptance rules, for this type and, if `fold`
    /// is given, that fold.
    ///
    /// # Errors
    /// [`Refused`] with the number of the first rule (1 to 6) that fails.
    pub fn from_bytes(bytes: &[u8], fold: Option<usize>) -> Result<Self, Refused> {
        let z = width::<T>();
        // Rule 1: length, magic, version, type, fold.
        if bytes.len() < 16 || bytes[0..4] != *b"ADNB" || !(bytes[4] == 1 || bytes[4] == 2) {
            return Err(Refused(1));
        }
        let version = bytes[4];
        let k = bytes[6] as usize;
        if bytes[5] != T::TYPE_CODE || !(2..=T::MAX_FOLD).contains(&k) || fold.is_some_and(|f| f != k) {
            return Err(Refused(1));
        }
        let body = 16 + 2 * k * z;
        if bytes.len() != body + if version == 2 { 4 } else { 0 } {
            return Err(Refused(1));
        }
        // Rule 2: the checksum.
        if version == 2 && crc32c(&bytes[..body]) != u32::from_le_bytes([0, 1, 2, 3].map(|i| bytes[body + i]))
        {
            return Err(Refused(2));
        }
        // Rule 3: only the three flag bits.
        let flags = bytes[7];
        if flags & !7 != 0 {
            return Err(Refused(3));
        }
        let count = u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7].map(|i| bytes[8 + i]));
        let float = |i: usize| {
            let at = 16 + i * z;
            let mut w = [0u8; 8];
            w[..z].copy_from_slice(&bytes[at..at + z]);
            u64::from_le_bytes(w)
        };
        let empty = (0..2 * k).all(|i| float(i) == 0);
        // Rule 4: the count.
        let needed = flags.count_ones() as u64 + u64::from(!empty);
        if count > capacity::<T>() || count < needed || (empty && flags == 0 && count != 0) {
            return Err(Refused(4));
        }
        let mut m = Self::new(k).ok_or(Refused(1))?;
        m.count = count;
        m.flags = flags;
        if empty {
            return Ok(m);
        }
        // Rule 5: the window from p_0's exponent field, every primary in its bin and
        // renormalised, every carry an integer (not -0.0).
        let mbits = T::P - 1;
        let emask = (1u64 << T::EXP_BITS) - 1;
        let field0 = ((float(0) >> mbits) & emask) as i32;
        let b = (T::B_EXP + bias::<T>() - field0).div_euclid(T::W);
        if b < 0 || b as usize > T::M {
            return Err(Refused(5));
        }
        let b = b as usize;
        let rest_mask = (1u64 << carry_shift::<T>()) - 1;
        let limit = count as i128 * (1i128 << (T::W - 1));
        for j in 0..k {
            let p = float(j);
            let sign = p >> (mbits + T::EXP_BITS);
            let field = (p >> mbits) & emask;
            let top2 = (p >> (mbits - 2)) & 3;
            if sign != 0 || field != ref_field::<T>(b + j) || top2 != 0b10 {
                return Err(Refused(5));
            }
            let rest = (p & rest_mask) as i128;
            let c = match classify(float(k + j), T::P, T::EXP_BITS) {
                Kind::Finite { neg: true, m: 0, .. } | Kind::Nan | Kind::Inf { .. } => {
                    return Err(Refused(5))
                }
                Kind::Finite { neg, m, q } => {
                    let mag = if q >= 0 {
                        // An integer; at or past 2^64 it is far beyond rule 6's bound
                        // (count * 2^(W-1) <= 2^102 < 2^64 * 2^(p-3) - 2^(p-3)).
                        if q + (64 - m.leading_zeros() as i32) > 64 {
                            return Err(Refused(6));
                        }
                        (m as i128) << q
                    } else {
                        let sh = (-q) as u32;
                        if sh >= 64 {
                            if m != 0 {
                                return Err(Refused(5));
                            }
                            0
                        } else {
                            if m & ((1u64 << sh) - 1) != 0 {
                                return Err(Refused(5));
                            }
                            (m >> sh) as i128
                        }
                    };
                    if neg {
                        -mag
                    } else {
                        mag
                    }
                }
            };
            // Rule 6, after rule 5 of this slot: |S_j| <= count * 2^(W-1).
            let s = (c << carry_shift::<T>()) + rest;
            if s.abs() > limit {
                return Err(Refused(6));
            }
            m.s[j] = s;
        }
        m.top = Some(b);
        Ok(m)
    }
}

/// The bits of an infinity of the type.
fn classify_inf<T: ModelFloat>(neg: bool) -> u64 {
    ((neg as u64) << (T::P - 1 + T::EXP_BITS)) | (((1u64 << T::EXP_BITS) - 1) << (T::P - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_check_value() {
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn exact_bits_builds_floats() {
        assert_eq!(exact_bits(1, 0, 53, 11), Some(1f64.to_bits()));
        assert_eq!(exact_bits(-3, -1, 53, 11), Some((-1.5f64).to_bits()));
        assert_eq!(exact_bits(1, -1074, 53, 11), Some(1));
        assert_eq!(exact_bits(1, -1075, 53, 11), None);
        assert_eq!(exact_bits(1, 1024, 53, 11), None);
        assert_eq!(exact_bits((1 << 53) - 1, 971, 53, 11), Some(f64::MAX.to_bits()));
        assert_eq!(exact_bits((1 << 53) + 1, 0, 53, 11), None);
        assert_eq!(exact_bits(3, 126, 24, 8), Some(0x7F40_0000));
    }

    #[test]
    fn parameters_match_section_1() {
        assert_eq!(capacity::<f64>(), 9_223_372_036_854_773_760);
        assert_eq!(capacity::<f32>(), 4_294_966_784);
        assert_eq!((endurance::<f64>(), endurance::<f32>()), (2048, 512));
        assert_eq!((grid_exp::<f64>(51), grid_exp::<f32>(20)), (-1055, -144));
        assert_eq!((grid_exp::<f64>(60), grid_exp::<f32>(30)), (-1055, -144));
        // G_i = ulp(B_i) for i >= 1; the field formulas of rule 5.
        assert_eq!(f64::G_EXP, f64::B_EXP - 52);
        assert_eq!(f32::G_EXP, f32::B_EXP - 23);
        assert_eq!(ref_field::<f64>(0), 2046);
        assert_eq!(ref_field::<f64>(2), 2060 - 80);
        assert_eq!(ref_field::<f32>(3), 266 - 39);
    }
}
