//! The fast cumulative sum: the running value after every element, with exactly the bits
//! of adding the elements one at a time and converting after each.
//!
//! While the window does not move, the state after element i is the start state plus,
//! in every slot, the exact sum of the pieces the elements so far gave that slot. So a
//! run of elements is done in three passes over a small chunk:
//!
//! 1. each element's pieces, slot by slot (the deposit, against the slot's reference
//!    value: a piece does not depend on what the slot holds), independent per element;
//! 2. the exact prefix sums of the pieces, per slot (integers times the slot's grid, far
//!    below 2^53 of it, so f64 adds are exact);
//! 3. per element, the renormalised slot (remainder in [0, Q) and carry, from a floor
//!    division by the power of two Q) and the fixed-order conversion, independent per
//!    element again.
//!
//! Passes 1 and 3 vectorise across elements. An element that would raise the window (or a
//! NaN or Inf) is added on its own by the one-at-a-time path, which moves the window; a
//! new run starts after it.

// The passes index [slot][element] arrays by both numbers on purpose.
#![allow(clippy::needless_range_loop)]

use crate::binned::{self, Meta};
use crate::float::Float;

/// Elements per chunk: the scratch arrays take about `2 * K * CHUNK * 8` bytes of stack
/// (smaller on 32-bit targets, where stacks are small).
pub(crate) const CHUNK: usize = if cfg!(target_pointer_width = "64") {
    128
} else {
    32
};

/// Adds `xs[i]` to the state and writes the running value to `out[i]`, for every i.
/// The caller has checked the capacity and that `out.len() == xs.len()`.
pub(crate) fn running<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
    match p.len() {
        2 => running_k::<T, 2>(p, c, m, xs, out),
        3 => running_k::<T, 3>(p, c, m, xs, out),
        4 => running_k::<T, 4>(p, c, m, xs, out),
        _ => one_by_one(p, c, m, xs, out),
    }
}

/// The per-element definition: add, then convert.
pub(crate) fn one_by_one<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
    for (o, &x) in out.iter_mut().zip(xs) {
        // The capacity was checked for the whole slice.
        let _ = binned::add_one(p, c, m, x);
        *o = binned::value(p, c, m);
    }
}

fn running_k<T: Float, const K: usize>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
    let (Ok(pw), Ok(cw)) = (<&mut [T; K]>::try_from(&mut *p), <&mut [T; K]>::try_from(&mut *c)) else {
        return one_by_one(p, c, m, xs, out);
    };
    for (xc, oc) in xs.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        match crate::simd::path() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a path is stored only by `select` (checked), `path` (detected) or
            // `set_path` (whose caller vouches for the CPU).
            crate::simd::Path::Avx512 => unsafe { x86::avx512::<T, K>(pw, cw, m, xc, oc) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, for AVX2.
            crate::simd::Path::Avx2 => unsafe { x86::avx2::<T, K>(pw, cw, m, xc, oc) },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: as above, for NEON.
            crate::simd::Path::Neon => unsafe { arm::neon::<T, K>(pw, cw, m, xc, oc) },
            crate::simd::Path::Scalar => one_by_one(&mut pw[..], &mut cw[..], m, xc, oc),
            _ => chunk::<T, K>(pw, cw, m, xc, oc),
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;

    /// # Safety
    /// The CPU must support AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn avx512<T: Float, const K: usize>(
        p: &mut [T; K],
        c: &mut [T; K],
        m: &mut Meta,
        xs: &[T],
        out: &mut [T],
    ) {
        chunk::<T, K>(p, c, m, xs, out)
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn avx2<T: Float, const K: usize>(
        p: &mut [T; K],
        c: &mut [T; K],
        m: &mut Meta,
        xs: &[T],
        out: &mut [T],
    ) {
        chunk::<T, K>(p, c, m, xs, out)
    }
}

#[cfg(target_arch = "aarch64")]
mod arm {
    use super::*;

    /// # Safety
    /// The CPU must support NEON.
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn neon<T: Float, const K: usize>(
        p: &mut [T; K],
        c: &mut [T; K],
        m: &mut Meta,
        xs: &[T],
        out: &mut [T],
    ) {
        chunk::<T, K>(p, c, m, xs, out)
    }
}

/// The smallest magnitude (as `bits & !SIGN_BIT`) that would raise a window whose top bin
/// is `top`, or 0 when any value might (an empty state, or the bottom bins where the index
/// of subnormals is not a function of the exponent field alone). NaN and Inf are always at
/// or above it.
#[inline(always)]
fn raise_threshold<T: Float>(p0: T) -> u64 {
    if p0.is_zero() {
        return 0;
    }
    let top = T::window_index(p0) as u64;
    // index(x) < top  <=>  field(x) >= MAX_EXP_FIELD + 1 - W * top  (normal x).
    let field = (T::MAX_EXP_FIELD + 1).saturating_sub(T::BIN_WIDTH as u64 * top);
    if field <= 1 {
        0
    } else {
        field << T::MANT_BITS
    }
}

/// One chunk (at most `CHUNK` elements).
#[inline(always)]
fn chunk<T: Float, const K: usize>(p: &mut [T; K], c: &mut [T; K], m: &mut Meta, xs: &[T], out: &mut [T]) {
    let n = xs.len().min(out.len());
    let mut i = 0;
    while i < n {
        let threshold = raise_threshold(p[0]);
        // Usually nothing in the chunk raises the window: one vectorised maximum says so.
        let run = if T::max_abs_bits(&xs[i..n]) < threshold {
            n - i
        } else {
            xs[i..n]
                .iter()
                .position(|x| x.bits() & !T::SIGN_BIT >= threshold)
                .unwrap_or(n - i)
        };
        if run > 0 {
            if m.pending > 0 {
                binned::renorm(&mut p[..], &mut c[..]);
                m.pending = 0;
            }
            segment::<T, K>(p, c, m, &xs[i..i + run], &mut out[i..i + run]);
            i += run;
        }
        if i < n {
            // An element that may raise the window, or a special value: on its own.
            let _ = binned::add_one(&mut p[..], &mut c[..], m, xs[i]);
            out[i] = binned::value(&p[..], &c[..], m);
            i += 1;
        }
    }
}

/// A run of finite elements that do not raise the window of a renormalised, non-empty
/// state (at most `CHUNK` of them).
#[inline(always)]
fn segment<T: Float, const K: usize>(p: &mut [T; K], c: &mut [T; K], m: &mut Meta, xs: &[T], out: &mut [T]) {
    let n = xs.len().min(out.len()).min(CHUNK);
    let w = T::window_index(p[0]);
    let top = w == 0;
    let b: [T; K] = core::array::from_fn(|j| T::bin(w + j));
    let compress = T::pow2(T::COMPRESSION_EXP);
    let half_expand = T::pow2(-T::COMPRESSION_EXP - 1);

    // Pass 1: every element's piece for every slot, widened to f64.
    let mut piece = [[0.0f64; CHUNK]; K];
    if top {
        pieces::<T, K, true>(&b, &xs[..n], &mut piece, compress, half_expand);
    } else {
        pieces::<T, K, false>(&b, &xs[..n], &mut piece, compress, half_expand);
    }

    // Pass 2: exact running sums, starting from each slot's remainder: an in-register
    // scan of each group of 8 (three shift-and-add steps), plus the running total. Every
    // sum is exact, so the grouping does not matter.
    let mut total: [f64; K] = core::array::from_fn(|j| (p[j] - b[j]).to_f64());
    for g in 0..n.div_ceil(8) {
        // The slots' chains are independent: interleave them.
        for (pj, tj) in piece.iter_mut().zip(total.iter_mut()) {
            let Some(Ok(grp)) = pj.get_mut(g * 8..g * 8 + 8).map(<&mut [f64; 8]>::try_from) else {
                continue;
            };
            let mut v = *grp;
            v = add8(v, shift8::<1>(v));
            v = add8(v, shift8::<2>(v));
            v = add8(v, shift8::<4>(v));
            for e in v.iter_mut() {
                *e += *tj;
            }
            *tj = v[7];
            *grp = v;
        }
    }

    // Pass 3: renormalise every element's slots (remainder in [0, Q), carry), then convert.
    // Loops over elements with the slot fixed, so that they vectorise.
    let conv = Conversion::<K>::new::<T>(w);
    let mut car = [[0.0f64; CHUNK]; K];
    for j in 0..K {
        let (q, inv_q, c0) = (conv.q[j], conv.inv_q[j], c[j].to_f64());
        for (t, cr) in piece[j][..n].iter_mut().zip(car[j][..n].iter_mut()) {
            let (rem, r) = split(*t, q, inv_q);
            *t = rem;
            *cr = c0 + r;
        }
    }
    if m.flags != 0 {
        // A NaN or Inf came earlier: every running value is the special one.
        let v = binned::value(&[T::ZERO; K], &[T::ZERO; K], m);
        out[..n].iter_mut().for_each(|o| *o = v);
    } else {
        let plain = conv.plain();
        for (i, o) in out[..n].iter_mut().enumerate() {
            let rem: [f64; K] = core::array::from_fn(|j| piece[j][i]);
            let cr: [f64; K] = core::array::from_fn(|j| car[j][i]);
            *o = T::from_f64_round(if plain {
                conv.apply_plain(&rem, &cr)
            } else {
                conv.apply(&rem, &cr)
            });
        }
    }

    // The state after the last element, renormalised.
    if n > 0 {
        for j in 0..K {
            p[j] = b[j] + T::from_f64_round(piece[j][n - 1]);
            c[j] = T::from_f64_round(car[j][n - 1]);
        }
    }
    m.count += n as u64;
}

/// Pass 1 of [`segment`]: the piece of every element for every slot (`TOP`: the window
/// starts at bin 0 and slot 0 holds compressed values, as in `binned::deposit`).
#[inline(always)]
fn pieces<T: Float, const K: usize, const TOP: bool>(
    b: &[T; K],
    xs: &[T],
    piece: &mut [[f64; CHUNK]; K],
    compress: T,
    half_expand: T,
) {
    for (i, &x0) in xs.iter().enumerate().take(CHUNK) {
        let mut x = x0;
        for j in 0..K {
            let incoming = if TOP && j == 0 { x * compress } else { x };
            let q = b[j] + incoming.or_low_bit();
            let d = b[j] - q; // minus the piece, exactly
            piece[j][i] = -d.to_f64();
            if j + 1 < K {
                if TOP && j == 0 {
                    let e = d * half_expand;
                    x = x + e;
                    x = x + e;
                } else {
                    x = x + d;
                }
            }
        }
    }
}

/// `v` moved up by `D` lanes, zeros shifted in.
#[inline(always)]
fn shift8<const D: usize>(v: [f64; 8]) -> [f64; 8] {
    core::array::from_fn(|i| if i >= D { v[i - D] } else { 0.0 })
}

/// Lane-wise sum.
#[inline(always)]
fn add8(a: [f64; 8], b: [f64; 8]) -> [f64; 8] {
    core::array::from_fn(|i| a[i] + b[i])
}

/// Splits an exact slot total `t` (stored units) into the remainder in `[0, q)` and the
/// number of whole `q`s below it (`q` a power of two, `inv_q` its inverse, |t / q| < 2^51).
#[inline(always)]
fn split(t: f64, q: f64, inv_q: f64) -> (f64, f64) {
    const ROUND: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52: adding and subtracting rounds to an integer
    let u = t * inv_q; // exact: q is a power of two
    let r = (u + ROUND) - ROUND;
    let r = if r > u { r - 1.0 } else { r }; // floor
    (t - r * q, r)
}

/// The conversion of a window as a fixed sequence of 2K products added in f64:
/// C_0, then (C_j, P_{j-1}) for j = 1..K-1, then P_{K-1} (see `float::convert_f64`).
struct Conversion<const K: usize> {
    /// The carry unit Q of each slot (in the slot's stored units) and its inverse.
    q: [f64; K],
    inv_q: [f64; K],
    /// Coefficients of the carry and remainder terms of each slot.
    fc: [f64; K],
    fp: [f64; K],
    /// Before adding term t, Y is multiplied by `mul[t]`: 2^66 at the one place where the
    /// scaled part (terms added scaled by 2^-66) ends, 1 elsewhere (exact either way).
    mul: [f64; 8],
    /// Y is multiplied by this after the last term: 2^66 when every term was scaled.
    last_mul: f64,
}

impl<const K: usize> Conversion<K> {
    #[inline(always)]
    fn new<T: Float>(w: usize) -> Self {
        // ufp(B)/4 = B/6 exactly, in stored units.
        let quarter = |j: usize| T::bin_quarter(w + j);
        let expansion = f64::pow2(-T::COMPRESSION_EXP);
        let scaled = if T::BYTES == 8 && w <= 3 {
            let s = K.min(3 - w);
            let end = if w == 0 { s.max(2) } else { s.max(1) };
            if end >= K {
                2 * K
            } else {
                1 + 2 * (end - 1)
            }
        } else {
            0
        };
        let down = f64::pow2(-66);
        // The position of each slot's terms in the order: C_j at 2j - 1 (C_0 at 0), P_j at 2j + 2.
        let c_pos = |j: usize| if j == 0 { 0 } else { 2 * j - 1 };
        let p_pos = |j: usize| 2 * j + 2;
        let fc = core::array::from_fn(|j| {
            let mut f = quarter(j);
            if c_pos(j) < scaled {
                f *= down;
            }
            if w == 0 && j == 0 {
                f *= expansion;
            }
            f
        });
        let fp = core::array::from_fn(|j| {
            let mut f = 1.0;
            if p_pos(j).min(2 * K - 1) < scaled {
                f *= down;
            }
            if w == 0 && j == 0 {
                f *= expansion;
            }
            f
        });
        let q = core::array::from_fn(quarter);
        let inv_q = core::array::from_fn(|j| 1.0 / quarter(j));
        let up = f64::pow2(66);
        let mut mul = [1.0; 8];
        if scaled > 0 && scaled < 2 * K {
            if let Some(m) = mul.get_mut(scaled) {
                *m = up;
            }
        }
        let last_mul = if scaled == 2 * K { up } else { 1.0 };
        Conversion {
            q,
            inv_q,
            fc,
            fp,
            mul,
            last_mul,
        }
    }

    /// Whether no term is scaled and every remainder coefficient is 1 (every window but
    /// the top few bins of f64 and the top bin of f32).
    #[inline(always)]
    fn plain(&self) -> bool {
        self.mul.iter().all(|&m| m == 1.0) && self.last_mul == 1.0 && self.fp.iter().all(|&f| f == 1.0)
    }

    /// [`apply`](Self::apply) when [`plain`](Self::plain): the same adds, no scaling.
    #[inline(always)]
    fn apply_plain(&self, rem: &[f64; K], car: &[f64; K]) -> f64 {
        let mut y = 0.0 + car[0] * self.fc[0];
        for j in 1..K {
            y += car[j] * self.fc[j];
            y += rem[j - 1];
        }
        y + rem[K - 1]
    }

    #[inline(always)]
    fn apply(&self, rem: &[f64; K], car: &[f64; K]) -> f64 {
        // Terms in order: C_0, then (C_j, P_{j-1}), then P_{K-1}.
        let mut y = 0.0 + car[0] * self.fc[0];
        for j in 1..K {
            y = y * self.mul[2 * j - 1] + car[j] * self.fc[j];
            y = y * self.mul[2 * j] + rem[j - 1] * self.fp[j - 1];
        }
        y = y * self.mul[2 * K - 1] + rem[K - 1] * self.fp[K - 1];
        y * self.last_mul
    }
}
