//! The canonical, versioned byte encoding of an accumulator: `docs/FORMAT.md`, section 11,
//! is its specification (layout, versions, and exactly which bytes a decoder accepts).
//!
//! Version 2 (written) is the header, the renormalised primaries and carries, and a CRC-32C
//! of everything before it; version 1 (still read) is the same without the checksum. All
//! integers and floats are little-endian on every target, and the state is written
//! renormalised, so equal multisets give equal bytes.

use crate::binned::{self, Meta, FLAG_ALL, FOLD_CAP};
use crate::float::Float;
use crate::{EncodingError, Error};

/// The magic bytes at the start of every encoding.
pub const MAGIC: [u8; 4] = *b"ADNB";
/// The format version written (2: with a CRC-32C of the rest).
pub const VERSION: u8 = 2;
/// The first format version (no checksum); still read.
pub const VERSION_1: u8 = 1;
/// Bytes before the primaries.
pub const HEADER_LEN: usize = 16;
/// Bytes of the checksum that ends a version-2 encoding.
pub const CRC_LEN: usize = 4;
/// The longest encoding of any accumulator (f64, K = 52): 852 bytes.
pub const MAX_ENCODED_LEN: usize = encoded_len(8, FOLD_CAP);

/// Bytes of the (version 2) encoding of a fold-`fold` accumulator with `size`-byte elements.
pub const fn encoded_len(size: usize, fold: usize) -> usize {
    body_end(size, fold) + CRC_LEN
}

/// Where the primaries and carries end: the length of a version-1 encoding.
const fn body_end(size: usize, fold: usize) -> usize {
    HEADER_LEN + 2 * fold * size
}

/// The CRC-32C (Castagnoli) table, reflected polynomial 0x82F63B78.
const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0x82F6_3B78
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// CRC-32C of `bytes` (initial value and final XOR 0xFFFFFFFF; `b"123456789"` gives
/// 0xE3069283), the checksum of a version-2 encoding.
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc = CRC_TABLE[((crc ^ b as u32) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
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
    let end = body_end(T::BYTES, k);
    let (front, tail) = e.buf.split_at_mut(end.min(MAX_ENCODED_LEN));
    for (chunk, &x) in front[HEADER_LEN..]
        .chunks_exact_mut(T::BYTES)
        .zip(q[..k].iter().chain(d[..k].iter()))
    {
        put(chunk, x);
    }
    let crc = crc32c(front).to_le_bytes();
    for (o, b) in tail.iter_mut().zip(crc) {
        *o = b;
    }
    e
}

/// Reads the fold of an encoding after checking its header, its length and (version 2)
/// its checksum. Returns the fold and the bytes of header, primaries and carries.
pub(crate) fn peek_fold<T: Float>(bytes: &[u8]) -> Result<(usize, &[u8]), Error> {
    let err = |e| Err(Error::Encoding(e));
    let Some((head, _)) = bytes.split_first_chunk::<HEADER_LEN>() else {
        return err(EncodingError::Length);
    };
    let [m0, m1, m2, m3, version, dtype, fold, ..] = *head;
    if [m0, m1, m2, m3] != MAGIC {
        return err(EncodingError::Magic);
    }
    if version != VERSION && version != VERSION_1 {
        return err(EncodingError::Version);
    }
    if dtype != T::DTYPE.code() {
        return err(EncodingError::Dtype);
    }
    let fold = fold as usize;
    if !(2..=T::MAX_FOLD).contains(&fold) {
        return err(EncodingError::Fold);
    }
    let end = body_end(T::BYTES, fold);
    let want = if version == VERSION_1 { end } else { end + CRC_LEN };
    if bytes.len() != want {
        return err(EncodingError::Length);
    }
    let Some((body, crc)) = bytes.split_at_checked(end) else {
        return err(EncodingError::Length);
    };
    if version == VERSION {
        let mut stored = [0u8; CRC_LEN];
        for (o, b) in stored.iter_mut().zip(crc) {
            *o = *b;
        }
        if u32::from_le_bytes(stored) != crc32c(body) {
            return err(EncodingError::Checksum);
        }
    }
    Ok((fold, body))
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

/// Decodes into `p` and `c` (of the encoded fold's length), checking every field: the
/// accepted states are those of `docs/FORMAT.md` section 11, a superset of the reachable
/// ones that adding, merging and re-encoding preserve.
pub(crate) fn decode<T: Float>(
    bytes: &[u8],
    want_fold: Option<usize>,
    p: &mut [T],
    c: &mut [T],
) -> Result<Meta, Error> {
    let (fold, body) = peek_fold::<T>(bytes)?;
    let bad = |e| Err(Error::Encoding(e));
    if want_fold.is_some_and(|k| k != fold) || p.len() != fold || c.len() != fold {
        return bad(EncodingError::Fold);
    }
    let Some((head, slots)) = body.split_first_chunk::<HEADER_LEN>() else {
        return bad(EncodingError::Length);
    };
    let flags = head[7];
    if flags & !FLAG_ALL != 0 {
        return bad(EncodingError::Flags);
    }
    let mut cnt = [0u8; 8];
    cnt.copy_from_slice(&head[8..16]);
    let count = u64::from_le_bytes(cnt);
    if count > T::CAPACITY {
        return bad(EncodingError::Count);
    }
    for (x, chunk) in p.iter_mut().chain(c.iter_mut()).zip(slots.chunks_exact(T::BYTES)) {
        *x = get(chunk);
    }
    let Some(&p0) = p.first() else {
        return bad(EncodingError::State);
    };
    let windowed = p0.bits() != 0;
    // Every flag, and a window, each needed at least one value; values that set no flag
    // and opened no window cannot exist.
    let needed = flags.count_ones() as u64 + windowed as u64;
    if count < needed || (needed == 0 && count != 0) {
        return bad(EncodingError::Count);
    }
    if !windowed {
        // Empty finite part: every primary and carry is +0.0.
        if p.iter().chain(c.iter()).any(|x| x.bits() != 0) {
            return bad(EncodingError::State);
        }
    } else {
        let top = T::window_index(p0);
        if top > T::MAX_INDEX {
            return bad(EncodingError::State);
        }
        // Each deposit moves a slot by at most 2^(W-1) grid steps, so `count` values
        // keep |S_j| <= count * 2^(W-1); S_j = c_j * 2^(p-3) + P_j.
        let reach = (count as i128) << (T::BIN_WIDTH - 1);
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
            let rem = (bits & ((1u64 << shift) - 1)) as i128;
            match integral(cj) {
                Some(v) if ((v as i128) << shift).saturating_add(rem).abs() <= reach => {}
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
