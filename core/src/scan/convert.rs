//! The fixed-order conversion of a window, and the split of a slot total into remainder
//! and carries.

use super::MAX_FAST_FOLD;
use crate::float::{Float, Format};

/// Splits an exact slot total `t` (stored units) into the remainder in `[0, q)` and the
/// number of whole `q`s below it (`q` a power of two, `inv_q` its inverse, |t / q| < 2^51).
#[inline(always)]
pub(super) fn split(t: f64, q: f64, inv_q: f64) -> (f64, f64) {
    const ROUND: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52: adding and subtracting rounds to an integer
    let u = t * inv_q; // exact: q is a power of two
    let r = (u + ROUND) - ROUND;
    let r = if r > u { r - 1.0 } else { r }; // floor
    (t - r * q, r)
}

/// The conversion of a window as a fixed sequence of 2K products added in f64:
/// C_0, then (C_j, P_{j-1}) for j = 1..K-1, then P_{K-1} (see `float::convert_f64`).
pub(super) struct Conversion<const K: usize> {
    /// The carry unit Q of each slot (in the slot's stored units) and its inverse.
    pub(super) q: [f64; K],
    pub(super) inv_q: [f64; K],
    /// Coefficients of the carry and remainder terms of each slot.
    pub(super) fc: [f64; K],
    pub(super) fp: [f64; K],
    /// Before adding term t, Y is multiplied by `mul[t]`: 2^66 at the one place where the
    /// scaled part (terms added scaled by 2^-66) ends, 1 elsewhere (exact either way).
    pub(super) mul: [f64; 2 * MAX_FAST_FOLD],
    /// Y is multiplied by this after the last term: 2^66 when every term was scaled.
    pub(super) last_mul: f64,
}

/// How many of the 2k terms of the conversion of window `w` are added scaled by 2^-66
/// (the top few bins of f64, whose terms could overflow): the first `scaled` ones.
#[inline(always)]
fn scaled_terms<T: Float>(w: usize, k: usize) -> usize {
    if T::BYTES == 8 && w <= 3 {
        let s = k.min(3 - w);
        let end = if w == 0 { s.max(2) } else { s.max(1) };
        if end >= k {
            2 * k
        } else {
            1 + 2 * (end - 1)
        }
    } else {
        0
    }
}

/// Slot `j`'s carry coefficient and remainder coefficient in the conversion of window `w`
/// of fold `k` (`scaled` from [`scaled_terms`]).
#[inline(always)]
fn coefficients<T: Float>(w: usize, k: usize, j: usize, scaled: usize) -> (f64, f64) {
    let expansion = f64::pow2(-T::COMPRESSION_EXP);
    let down = f64::pow2(-66);
    // The position of each slot's terms in the order: C_j at 2j - 1 (C_0 at 0), P_j at 2j + 2.
    let c_pos = if j == 0 { 0 } else { 2 * j - 1 };
    let p_pos = 2 * j + 2;
    let mut fc = T::bin_quarter(w + j);
    if c_pos < scaled {
        fc *= down;
    }
    let mut fp = 1.0;
    if p_pos.min(2 * k - 1) < scaled {
        fp *= down;
    }
    if w == 0 && j == 0 {
        fc *= expansion;
        fp *= expansion;
    }
    (fc, fp)
}

impl<const K: usize> Conversion<K> {
    #[inline(always)]
    pub(super) fn new<T: Float>(w: usize) -> Self {
        // ufp(B)/4 = B/6 exactly, in stored units.
        let quarter = |j: usize| T::bin_quarter(w + j);
        let scaled = scaled_terms::<T>(w, K);
        let fc = core::array::from_fn(|j| coefficients::<T>(w, K, j, scaled).0);
        let fp = core::array::from_fn(|j| coefficients::<T>(w, K, j, scaled).1);
        let q = core::array::from_fn(quarter);
        let inv_q = core::array::from_fn(|j| 1.0 / quarter(j));
        let up = f64::pow2(66);
        let mut mul = [1.0; 2 * MAX_FAST_FOLD];
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
    pub(super) fn plain(&self) -> bool {
        self.mul.iter().all(|&m| m == 1.0) && self.last_mul == 1.0 && self.fp.iter().all(|&f| f == 1.0)
    }

    /// [`apply`](Self::apply) when [`plain`](Self::plain): the same adds, no scaling.
    #[inline(always)]
    pub(super) fn apply_plain(&self, rem: &[f64; K], car: &[f64; K]) -> f64 {
        let mut y = 0.0 + car[0] * self.fc[0];
        for j in 1..K {
            y += car[j] * self.fc[j];
            y += rem[j - 1];
        }
        y + rem[K - 1]
    }

    #[inline(always)]
    pub(super) fn apply(&self, rem: &[f64; K], car: &[f64; K]) -> f64 {
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

/// The conversion of a window of a fold known only at run time (the big folds), slot by
/// slot: the same terms, coefficients and scalings as [`Conversion`], computed when asked
/// (no arrays, so no bound on the fold).
pub(super) struct DynConversion {
    w: usize,
    k: usize,
    scaled: usize,
}

impl DynConversion {
    #[inline(always)]
    pub(super) fn new<T: Float>(w: usize, k: usize) -> Self {
        DynConversion {
            w,
            k,
            scaled: scaled_terms::<T>(w, k),
        }
    }

    /// Slot `j`'s carry unit Q, its inverse, and its carry and remainder coefficients.
    #[inline(always)]
    pub(super) fn slot<T: Float>(&self, j: usize) -> (f64, f64, f64, f64) {
        let q = T::bin_quarter(self.w + j);
        let (fc, fp) = coefficients::<T>(self.w, self.k, j, self.scaled);
        (q, 1.0 / q, fc, fp)
    }

    /// What Y is multiplied by before adding term `t` (`Conversion::mul`).
    #[inline(always)]
    pub(super) fn mul(&self, t: usize) -> f64 {
        if self.scaled > 0 && self.scaled < 2 * self.k && t == self.scaled {
            f64::pow2(66)
        } else {
            1.0
        }
    }

    /// What Y is multiplied by after the last term (`Conversion::last_mul`).
    #[inline(always)]
    pub(super) fn last_mul(&self) -> f64 {
        if self.scaled == 2 * self.k {
            f64::pow2(66)
        } else {
            1.0
        }
    }
}
