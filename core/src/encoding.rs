//! The canonical, versioned byte encoding of an accumulator.
//!
//! Layout (version 1), all integers and floats little-endian on every target:
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `b"ADNB"` |
//! | 4 | format version, 1 |
//! | 5 | type: 1 = f32, 2 = f64 |
//! | 6 | fold K |
//! | 7 | special values seen: bit 0 NaN, bit 1 +Inf, bit 2 -Inf; other bits zero |
//! | 8..16 | count of values added (u64) |
//! | 16.. | K primaries, then K carries, each the IEEE bits of the type |
//!
//! The state is written renormalised, so equal multisets give equal bytes. An empty finite
//! part is written as all-zero primaries and carries.

use crate::binned::{self, Meta, FLAG_ALL, FOLD_CAP};
use crate::float::Float;
use crate::{EncodingError, Error};

/// The magic bytes at the start of every encoding.
pub const MAGIC: [u8; 4] = *b"ADNB";
/// The format version written and accepted.
pub const VERSION: u8 = 1;
/// Bytes before the primaries.
pub const HEADER_LEN: usize = 16;
/// The longest encoding of any accumulator (f64, K = 52): 848 bytes.
pub const MAX_ENCODED_LEN: usize = encoded_len(8, FOLD_CAP);

/// Bytes of the encoding of a fold-`fold` accumulator with `size`-byte elements.
pub const fn encoded_len(size: usize, fold: usize) -> usize {
    HEADER_LEN + 2 * fold * size
}

/// An encoded accumulator: a fixed buffer and its used length (no allocation).
#[derive(Clone, Copy)]
pub struct Encoded {
    buf: [u8; MAX_ENCODED_LEN],
    len: usize,
}

impl Encoded {
    /// The encoding.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len.min(MAX_ENCODED_LEN)]
    }
}

impl core::ops::Deref for Encoded {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl core::fmt::Debug for Encoded {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

fn put<T: Float>(out: &mut [u8], x: T) {
    let le = x.bits().to_le_bytes();
    for (o, b) in out.iter_mut().zip(le.iter()).take(T::BYTES) {
        *o = *b;
    }
}

fn get<T: Float>(inp: &[u8]) -> T {
    let mut le = [0u8; 8];
    for (o, b) in le.iter_mut().zip(inp.iter()).take(T::BYTES) {
        *o = *b;
    }
    T::from_bits_u64(u64::from_le_bytes(le))
}

pub(crate) fn encode<T: Float>(p: &[T], c: &[T], m: &Meta) -> Encoded {
    let k = p.len().min(c.len()).min(FOLD_CAP);
    let mut q = [T::ZERO; FOLD_CAP];
    let mut d = [T::ZERO; FOLD_CAP];
    q[..k].copy_from_slice(&p[..k]);
    d[..k].copy_from_slice(&c[..k]);
    binned::renorm(&mut q[..k], &mut d[..k]);
    let mut e = Encoded {
        buf: [0; MAX_ENCODED_LEN],
        len: encoded_len(T::BYTES, k),
    };
    e.buf[0..4].copy_from_slice(&MAGIC);
    e.buf[4] = VERSION;
    e.buf[5] = T::DTYPE.code();
    e.buf[6] = k as u8;
    e.buf[7] = m.flags;
    e.buf[8..16].copy_from_slice(&m.count.to_le_bytes());
    let body = &mut e.buf[HEADER_LEN..];
    for (chunk, &x) in body
        .chunks_exact_mut(T::BYTES)
        .zip(q[..k].iter().chain(d[..k].iter()))
    {
        put(chunk, x);
    }
    e
}

/// Reads the fold of an encoding after checking its header.
pub(crate) fn peek_fold<T: Float>(bytes: &[u8]) -> Result<usize, Error> {
    let err = |e| Err(Error::Encoding(e));
    if bytes.len() < HEADER_LEN {
        return err(EncodingError::Length);
    }
    if bytes[0..4] != MAGIC {
        return err(EncodingError::Magic);
    }
    if bytes[4] != VERSION {
        return err(EncodingError::Version);
    }
    if bytes[5] != T::DTYPE.code() {
        return err(EncodingError::Dtype);
    }
    let fold = bytes[6] as usize;
    if !(2..=T::MAX_FOLD).contains(&fold) {
        return err(EncodingError::Fold);
    }
    if bytes.len() != encoded_len(T::BYTES, fold) {
        return err(EncodingError::Length);
    }
    Ok(fold)
}

/// The integer value of a float, if it is one (and not -0.0), within +-2^62.
fn integral<T: Float>(x: T) -> Option<i64> {
    let bits = x.bits();
    let neg = bits & T::SIGN_BIT != 0;
    let mag = bits & !T::SIGN_BIT;
    if mag == 0 {
        return if neg { None } else { Some(0) };
    }
    let field = (mag >> T::MANT_BITS) as i64;
    let bias = (T::MAX_EXP_FIELD as i64 + 1) / 2;
    let e = field - bias; // value = 1.f * 2^e
    if field == 0 || !(0..=62).contains(&e) {
        return None;
    }
    let sig = (mag & ((1u64 << T::MANT_BITS) - 1)) | (1u64 << T::MANT_BITS);
    let frac_bits = T::MANT_BITS as i64 - e;
    let v = if frac_bits > 0 {
        if sig & ((1u64 << frac_bits) - 1) != 0 {
            return None;
        }
        sig >> frac_bits
    } else {
        sig << (-frac_bits)
    } as i64;
    Some(if neg { -v } else { v })
}

/// Decodes into `p` and `c` (of the encoded fold's length), checking every field.
pub(crate) fn decode<T: Float>(
    bytes: &[u8],
    want_fold: Option<usize>,
    p: &mut [T],
    c: &mut [T],
) -> Result<Meta, Error> {
    let fold = peek_fold::<T>(bytes)?;
    let bad = |e| Err(Error::Encoding(e));
    if want_fold.is_some_and(|k| k != fold) || p.len() != fold || c.len() != fold {
        return bad(EncodingError::Fold);
    }
    let flags = bytes[7];
    if flags & !FLAG_ALL != 0 {
        return bad(EncodingError::Flags);
    }
    let mut cnt = [0u8; 8];
    cnt.copy_from_slice(&bytes[8..16]);
    let count = u64::from_le_bytes(cnt);
    if count > T::CAPACITY || (flags != 0 && count == 0) {
        return bad(EncodingError::Count);
    }
    let body = &bytes[HEADER_LEN..];
    for (x, chunk) in p.iter_mut().chain(c.iter_mut()).zip(body.chunks_exact(T::BYTES)) {
        *x = get(chunk);
    }
    let Some(&p0) = p.first() else {
        return bad(EncodingError::State);
    };
    if p0.bits() == 0 {
        // Empty finite part: everything zero, and only special values may be counted.
        if p.iter().chain(c.iter()).any(|x| x.bits() != 0) || (flags == 0 && count != 0) {
            return bad(EncodingError::State);
        }
    } else {
        if count == 0 {
            return bad(EncodingError::State);
        }
        let top = T::window_index(p0);
        if top > T::MAX_INDEX {
            return bad(EncodingError::State);
        }
        let limit = (count / T::ENDURANCE as u64) as i64 + 1;
        let shift = T::MANT_BITS - 2;
        for (j, (&pj, &cj)) in p.iter().zip(c.iter()).enumerate() {
            // Renormalised primaries: positive, in their bin's binade, with the two bits
            // below the leading one equal to "10".
            let bits = pj.bits();
            if bits & T::SIGN_BIT != 0
                || bits >> T::MANT_BITS != T::bin_exp_field(top + j)
                || (bits >> shift) & 3 != 2
            {
                return bad(EncodingError::State);
            }
            match integral(cj) {
                Some(v) if v.abs() <= limit => {}
                _ => return bad(EncodingError::State),
            }
        }
    }
    Ok(Meta {
        count,
        flags,
        pending: 0,
    })
}
