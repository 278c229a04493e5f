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
//!
//! The AVX-512 and AVX2 paths do the three passes in registers, one vector of elements
//! at a time (`x86::fast_f64`, `x86::fast_f32` and their AVX2 twins), and mostly skip the
//! split of pass 3: a slot's pieces are tiny beside its carry unit Q (at most Q / 2048 for
//! f64, Q / 512 for f32: the endurance), so its running remainder, in `[0, Q)` after a
//! renormalisation, seldom leaves `[0, Q)`. While no remainder of a vector leaves it, no
//! carry moves, the remainders are the running totals themselves, and the carry terms of
//! the conversion are constants: its first two adds, `(0 + C_0) + C_1`, are done once,
//! and per element it is `+ r_0`, then `+ C_j`, `+ r_{j-1}` for j = 2..K-1, then
//! `+ r_{K-1}` (the same adds in the same order, so the same bits). A vector where a
//! remainder leaves `[0, Q)` is split lane by lane as in pass 3, and the carries move.
//! For f32 the pieces and their prefix sums are exact in f32 too (integers of the slot's
//! grid below 2^24 of it, as in the primaries themselves): twice the lanes; only the
//! conversion is done in f64. The other paths (portable, NEON) run the three passes over
//! chunks.

// The passes index [slot][element] arrays by both numbers on purpose.
#![allow(clippy::needless_range_loop)]

use crate::binned::{self, Meta};
use crate::float::{Float, Format};
use crate::simd::Platform;

/// Elements per chunk: the scratch arrays take about `2 * K * CHUNK * 8` bytes of stack
/// (smaller on 32-bit targets, where stacks are small).
pub(crate) const CHUNK: usize = if cfg!(target_pointer_width = "64") {
    128
} else {
    32
};

/// Whether folds 5 to 8 take the fast paths too (64-bit targets).
const WIDE: bool = cfg!(target_pointer_width = "64");

/// The largest fold with a fast path (`Conversion::mul` has room for its `2 * K` terms).
const MAX_FAST_FOLD: usize = 8;

/// Adds `xs[i]` to the state and writes the running value to `out[i]`, for every i.
/// The caller has checked the capacity and that `out.len() == xs.len()`.
pub(crate) fn running<T: Float>(
    pf: Platform,
    p: &mut [T],
    c: &mut [T],
    m: &mut Meta,
    xs: &[T],
    out: &mut [T],
) {
    match p.len() {
        2 => running_k::<T, 2>(pf, p, c, m, xs, out),
        3 => running_k::<T, 3>(pf, p, c, m, xs, out),
        4 => running_k::<T, 4>(pf, p, c, m, xs, out),
        // Folds 5 to 8 on 64-bit targets only: their scratch arrays would crowd the small
        // stacks of 32-bit ones.
        5 if WIDE => running_k::<T, 5>(pf, p, c, m, xs, out),
        6 if WIDE => running_k::<T, 6>(pf, p, c, m, xs, out),
        7 if WIDE => running_k::<T, 7>(pf, p, c, m, xs, out),
        8 if WIDE => running_k::<T, 8>(pf, p, c, m, xs, out),
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

// Not inlined: `running` picks one fold, and with the chunk's scratch arrays of several
// folds inlined into one frame, a call took the stack of all of them (on a Cortex-M0 with
// 16 KiB of RAM, about 3 KB more). One call per slice, so it costs nothing measurable.
#[inline(never)]
fn running_k<T: Float, const K: usize>(
    pf: Platform,
    p: &mut [T],
    c: &mut [T],
    m: &mut Meta,
    xs: &[T],
    out: &mut [T],
) {
    let (Ok(pw), Ok(cw)) = (<&mut [T; K]>::try_from(&mut *p), <&mut [T; K]>::try_from(&mut *c)) else {
        return one_by_one(p, c, m, xs, out);
    };
    match pf.path() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Platform` of this path is made only after checking that the CPU
        // supports it (`Platform::new`, `Platform::detected`).
        crate::simd::Path::Avx512 => unsafe { x86::avx512::<T, K>(pw, cw, m, xs, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX2.
        crate::simd::Path::Avx2 => unsafe { x86::avx2::<T, K>(pw, cw, m, xs, out) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above, for NEON.
        crate::simd::Path::Neon => unsafe { arm::neon::<T, K>(pw, cw, m, xs, out) },
        crate::simd::Path::Scalar => one_by_one(&mut pw[..], &mut cw[..], m, xs, out),
        _ => chunks::<T, K>(pw, cw, m, xs, out),
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use core::arch::x86_64::*;

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
        if T::BYTES == 8 {
            drive::<T, K>(p, c, m, xs, out, |p, c, m, x, o| {
                // SAFETY: AVX-512F as above; T is f64 (the only `Float` of 8 bytes).
                unsafe { fast_f64::<T, K>(p, c, m, x, o) }
            })
        } else {
            drive::<T, K>(p, c, m, xs, out, |p, c, m, x, o| {
                // SAFETY: AVX-512F as above; T is f32 (the only `Float` of 4 bytes).
                unsafe { fast_f32::<T, K>(p, c, m, x, o) }
            })
        }
    }

    /// The constants of the fast path for a state: the window's reference values, the
    /// carry units, the raising threshold, the remainders and carries.
    struct Setup<const K: usize> {
        b: [f64; K],
        q: [f64; K],
        inv_q: [f64; K],
        conv: Conversion<K>,
        thr: u64,
        t: [f64; K],
        car: [f64; K],
    }

    #[inline(always)]
    fn setup<T: Float, const K: usize>(p: &[T; K], c: &[T; K]) -> Setup<K> {
        let w = T::window_index(p[0]);
        let conv = Conversion::<K>::new::<T>(w);
        Setup {
            b: core::array::from_fn(|j| T::bin(w + j).to_f64()),
            q: conv.q,
            inv_q: conv.inv_q,
            conv,
            thr: raise_threshold(p[0]),
            t: core::array::from_fn(|j| (p[j] - T::bin(w + j)).to_f64()),
            car: core::array::from_fn(|j| c[j].to_f64()),
        }
    }

    /// The carry terms of the conversion: `(0 + C_0) + C_1` and every `C_j`.
    #[inline(always)]
    fn carry_terms<const K: usize>(conv: &Conversion<K>, car: &[f64; K]) -> (f64, [f64; K]) {
        let mut head = 0.0 + car[0] * conv.fc[0];
        if K > 1 {
            head += car[1] * conv.fc[1];
        }
        (head, core::array::from_fn(|j| car[j] * conv.fc[j]))
    }

    /// Pass 3 for 8 lanes of exact slot totals `v` (f64): the split of every lane
    /// ([`split`]: floor by the power of two Q) and the conversion with the carries of
    /// every lane ([`Conversion::apply_plain`], the same operations in the same order).
    /// Returns the converted values and the last lane's remainders and carries.
    #[target_feature(enable = "avx512f")]
    fn split_convert<const K: usize>(
        s: &Setup<K>,
        v: &[__m512d; K],
        car: &[f64; K],
    ) -> (__m512d, [f64; K], [f64; K]) {
        let mut rem = [_mm512_setzero_pd(); K];
        let mut cr = [_mm512_setzero_pd(); K];
        for j in 0..K {
            // Round down (0x01), exceptions suppressed (0x08); t / Q is exact.
            let r = _mm512_roundscale_pd::<0x09>(_mm512_mul_pd(v[j], _mm512_set1_pd(s.inv_q[j])));
            rem[j] = _mm512_sub_pd(v[j], _mm512_mul_pd(r, _mm512_set1_pd(s.q[j])));
            cr[j] = _mm512_add_pd(_mm512_set1_pd(car[j]), r);
        }
        let fc = |j: usize| _mm512_set1_pd(s.conv.fc[j]);
        let mut y = _mm512_add_pd(_mm512_setzero_pd(), _mm512_mul_pd(cr[0], fc(0)));
        for j in 1..K {
            y = _mm512_add_pd(y, _mm512_mul_pd(cr[j], fc(j)));
            y = _mm512_add_pd(y, rem[j - 1]);
        }
        y = _mm512_add_pd(y, rem[K - 1]);
        let seven = _mm512_set1_epi64(7);
        let last = |u: __m512d| _mm512_cvtsd_f64(_mm512_permutexvar_pd(seven, u));
        (
            y,
            core::array::from_fn(|j| last(rem[j])),
            core::array::from_fn(|j| last(cr[j])),
        )
    }

    /// The fast kernel for f64 (see the module notes): vectors of 8 elements. Stops before
    /// a vector with an element that would raise the window (or a NaN or Inf) and returns
    /// how many elements were done; the state must be renormalised and [`fast_ok`]. Leaves
    /// it renormalised.
    ///
    /// # Safety
    /// The CPU must support AVX-512F, and `T` must be f64.
    #[target_feature(enable = "avx512f")]
    unsafe fn fast_f64<T: Float, const K: usize>(
        p: &mut [T; K],
        c: &mut [T; K],
        m: &mut Meta,
        xs: &[T],
        out: &mut [T],
    ) -> usize {
        let n = xs.len().min(out.len());
        let s = setup::<T, K>(p, c);
        let b: [__m512d; K] = core::array::from_fn(|j| _mm512_set1_pd(s.b[j]));
        let qbits: [__m512i; K] = core::array::from_fn(|j| _mm512_set1_epi64(s.q[j].to_bits() as i64));
        let thr = _mm512_set1_epi64(s.thr as i64);
        let abs = _mm512_set1_epi64(i64::MAX);
        let one = _mm512_set1_epi64(1);
        let zero = _mm512_setzero_si512();
        let last = _mm512_set1_epi64(7);
        let mut t: [__m512d; K] = core::array::from_fn(|j| _mm512_set1_pd(s.t[j]));
        let mut car = s.car;
        let (h, md) = carry_terms(&s.conv, &car);
        let mut head = _mm512_set1_pd(h);
        let mut mid: [__m512d; K] = core::array::from_fn(|j| _mm512_set1_pd(md[j]));
        let mut done = 0;
        let mut cap = n;
        while done < cap {
            let lanes = (cap - done).min(8);
            let mask: __mmask8 = if lanes == 8 { 0xFF } else { (1u8 << lanes) - 1 };
            // SAFETY: lanes `done..done + lanes` of `xs` are in bounds (masked load: the
            // other lanes are not read, and come back as zeros); T is f64.
            let x = unsafe { _mm512_maskz_loadu_pd(mask, xs.as_ptr().add(done).cast::<f64>()) };
            let fits = _mm512_cmplt_epu64_mask(_mm512_and_si512(_mm512_castpd_si512(x), abs), thr);
            let mut v = [_mm512_setzero_pd(); K];
            let mut rest = x;
            for j in 0..K {
                let lo = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(rest), one));
                let piece = _mm512_sub_pd(_mm512_add_pd(b[j], lo), b[j]);
                v[j] = piece;
                rest = _mm512_sub_pd(rest, piece);
            }
            let mut ok = fits;
            for j in 0..K {
                let mut u = v[j];
                u = _mm512_add_pd(
                    u,
                    _mm512_castsi512_pd(_mm512_alignr_epi64::<7>(_mm512_castpd_si512(u), zero)),
                );
                u = _mm512_add_pd(
                    u,
                    _mm512_castsi512_pd(_mm512_alignr_epi64::<6>(_mm512_castpd_si512(u), zero)),
                );
                u = _mm512_add_pd(
                    u,
                    _mm512_castsi512_pd(_mm512_alignr_epi64::<4>(_mm512_castpd_si512(u), zero)),
                );
                u = _mm512_add_pd(u, t[j]);
                ok &= _mm512_cmplt_epu64_mask(_mm512_castpd_si512(u), qbits[j]);
                v[j] = u;
            }
            if ok == 0xFF {
                let mut y = _mm512_add_pd(head, v[0]);
                for j in 2..K {
                    y = _mm512_add_pd(y, mid[j]);
                    y = _mm512_add_pd(y, v[j - 1]);
                }
                y = _mm512_add_pd(y, v[K - 1]);
                // SAFETY: as for the load, in `out`.
                unsafe { _mm512_mask_storeu_pd(out.as_mut_ptr().add(done).cast::<f64>(), mask, y) };
                for j in 0..K {
                    t[j] = _mm512_permutexvar_pd(last, v[j]);
                }
            } else if fits != 0xFF {
                // An element would raise the window: do the ones before it, then stop.
                let good = fits.trailing_ones() as usize;
                if good == 0 {
                    break;
                }
                cap = done + good;
                continue;
            } else {
                // A remainder left [0, Q): split every lane, then move the carries.
                let (y, rem, cr) = split_convert::<K>(&s, &v, &car);
                // SAFETY: as for the load, in `out`.
                unsafe { _mm512_mask_storeu_pd(out.as_mut_ptr().add(done).cast::<f64>(), mask, y) };
                car = cr;
                t = core::array::from_fn(|j| _mm512_set1_pd(rem[j]));
                let (h, md) = carry_terms(&s.conv, &car);
                head = _mm512_set1_pd(h);
                mid = core::array::from_fn(|j| _mm512_set1_pd(md[j]));
            }
            done += lanes;
        }
        for j in 0..K {
            p[j] = T::from_f64_round(s.b[j] + _mm512_cvtsd_f64(t[j]));
            c[j] = T::from_f64_round(car[j]);
        }
        m.count += done as u64;
        done
    }

    /// The fast kernel for f32: [`fast_f64`] with vectors of 16, pieces and their prefix
    /// sums in f32, the conversion in f64.
    ///
    /// # Safety
    /// The CPU must support AVX-512F, and `T` must be f32.
    #[target_feature(enable = "avx512f")]
    unsafe fn fast_f32<T: Float, const K: usize>(
        p: &mut [T; K],
        c: &mut [T; K],
        m: &mut Meta,
        xs: &[T],
        out: &mut [T],
    ) -> usize {
        let n = xs.len().min(out.len());
        let s = setup::<T, K>(p, c);
        let b: [__m512; K] = core::array::from_fn(|j| _mm512_set1_ps(s.b[j] as f32));
        let qbits: [__m512i; K] =
            core::array::from_fn(|j| _mm512_set1_epi32((s.q[j] as f32).to_bits() as i32));
        let thr = _mm512_set1_epi32(s.thr as i32);
        let abs = _mm512_set1_epi32(i32::MAX);
        let one = _mm512_set1_epi32(1);
        let zero = _mm512_setzero_si512();
        let last = _mm512_set1_epi32(15);
        let mut t: [__m512; K] = core::array::from_fn(|j| _mm512_set1_ps(s.t[j] as f32));
        let mut car = s.car;
        let (h, md) = carry_terms(&s.conv, &car);
        let mut head = _mm512_set1_pd(h);
        let mut mid: [__m512d; K] = core::array::from_fn(|j| _mm512_set1_pd(md[j]));
        // The low or high 8 lanes, widened to f64 (exact).
        let half = |u: __m512, h: bool| {
            if h {
                _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(u))))
            } else {
                _mm512_cvtps_pd(_mm512_castps512_ps256(u))
            }
        };
        let join = |lo: __m256, hi: __m256| {
            _mm512_castpd_ps(_mm512_insertf64x4::<1>(
                _mm512_castpd256_pd512(_mm256_castps_pd(lo)),
                _mm256_castps_pd(hi),
            ))
        };
        let mut done = 0;
        let mut cap = n;
        while done < cap {
            let lanes = (cap - done).min(16);
            let mask: __mmask16 = if lanes == 16 { 0xFFFF } else { (1u16 << lanes) - 1 };
            // SAFETY: lanes `done..done + lanes` of `xs` are in bounds (masked load: the
            // other lanes are not read, and come back as zeros); T is f32.
            let x = unsafe { _mm512_maskz_loadu_ps(mask, xs.as_ptr().add(done).cast::<f32>()) };
            let fits = _mm512_cmplt_epu32_mask(_mm512_and_si512(_mm512_castps_si512(x), abs), thr);
            let mut v = [_mm512_setzero_ps(); K];
            let mut rest = x;
            for j in 0..K {
                let lo = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(rest), one));
                let piece = _mm512_sub_ps(_mm512_add_ps(b[j], lo), b[j]);
                v[j] = piece;
                rest = _mm512_sub_ps(rest, piece);
            }
            let mut ok = fits;
            for j in 0..K {
                let mut u = v[j];
                u = _mm512_add_ps(
                    u,
                    _mm512_castsi512_ps(_mm512_alignr_epi32::<15>(_mm512_castps_si512(u), zero)),
                );
                u = _mm512_add_ps(
                    u,
                    _mm512_castsi512_ps(_mm512_alignr_epi32::<14>(_mm512_castps_si512(u), zero)),
                );
                u = _mm512_add_ps(
                    u,
                    _mm512_castsi512_ps(_mm512_alignr_epi32::<12>(_mm512_castps_si512(u), zero)),
                );
                u = _mm512_add_ps(
                    u,
                    _mm512_castsi512_ps(_mm512_alignr_epi32::<8>(_mm512_castps_si512(u), zero)),
                );
                u = _mm512_add_ps(u, t[j]);
                ok &= _mm512_cmplt_epu32_mask(_mm512_castps_si512(u), qbits[j]);
                v[j] = u;
            }
            if ok == 0xFFFF {
                let conv = |h: bool| {
                    let mut y = _mm512_add_pd(head, half(v[0], h));
                    for j in 2..K {
                        y = _mm512_add_pd(y, mid[j]);
                        y = _mm512_add_pd(y, half(v[j - 1], h));
                    }
                    y = _mm512_add_pd(y, half(v[K - 1], h));
                    _mm512_cvtpd_ps(y)
                };
                let y = join(conv(false), conv(true));
                // SAFETY: as for the load, in `out`.
                unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr().add(done).cast::<f32>(), mask, y) };
                for j in 0..K {
                    t[j] = _mm512_permutexvar_ps(last, v[j]);
                }
            } else if fits != 0xFFFF {
                // An element would raise the window: do the ones before it, then stop.
                let good = fits.trailing_ones() as usize;
                if good == 0 {
                    break;
                }
                cap = done + good;
                continue;
            } else {
                // A remainder left [0, Q): split every lane (in f64, as two halves), then
                // move the carries.
                let (lo, _, _) = split_convert::<K>(&s, &v.map(|u| half(u, false)), &car);
                let (hi, rem, cr) = split_convert::<K>(&s, &v.map(|u| half(u, true)), &car);
                let y = join(_mm512_cvtpd_ps(lo), _mm512_cvtpd_ps(hi));
                // SAFETY: as for the load, in `out`.
                unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr().add(done).cast::<f32>(), mask, y) };
                car = cr;
                t = core::array::from_fn(|j| _mm512_set1_ps(rem[j] as f32));
                let (h, md) = carry_terms(&s.conv, &car);
                head = _mm512_set1_pd(h);
                mid = core::array::from_fn(|j| _mm512_set1_pd(md[j]));
            }
            done += lanes;
        }
        for j in 0..K {
            p[j] = T::from_f64_round(s.b[j] + _mm512_cvtss_f32(t[j]) as f64);
            c[j] = T::from_f64_round(car[j]);
        }
        m.count += done as u64;
        done
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
        if T::BYTES == 8 {
            drive::<T, K>(p, c, m, xs, out, |p, c, m, x, o| {
                // SAFETY: AVX2 as above; T is f64 (the only `Float` of 8 bytes).
                unsafe { fast2_f64::<T, K>(p, c, m, x, o) }
            })
        } else {
            drive::<T, K>(p, c, m, xs, out, |p, c, m, x, o| {
                // SAFETY: AVX2 as above; T is f32 (the only `Float` of 4 bytes).
                unsafe { fast2_f32::<T, K>(p, c, m, x, o) }
            })
        }
    }

    /// [`split_convert`] for 4 lanes (AVX2).
    #[target_feature(enable = "avx2")]
    fn split_convert2<const K: usize>(
        s: &Setup<K>,
        v: &[__m256d; K],
        car: &[f64; K],
    ) -> (__m256d, [f64; K], [f64; K]) {
        let mut rem = [_mm256_setzero_pd(); K];
        let mut cr = [_mm256_setzero_pd(); K];
        for j in 0..K {
            let r = _mm256_floor_pd(_mm256_mul_pd(v[j], _mm256_set1_pd(s.inv_q[j])));
            rem[j] = _mm256_sub_pd(v[j], _mm256_mul_pd(r, _mm256_set1_pd(s.q[j])));
            cr[j] = _mm256_add_pd(_mm256_set1_pd(car[j]), r);
        }
        let fc = |j: usize| _mm256_set1_pd(s.conv.fc[j]);
        let mut y = _mm256_add_pd(_mm256_setzero_pd(), _mm256_mul_pd(cr[0], fc(0)));
        for j in 1..K {
            y = _mm256_add_pd(y, _mm256_mul_pd(cr[j], fc(j)));
            y = _mm256_add_pd(y, rem[j - 1]);
        }
        y = _mm256_add_pd(y, rem[K - 1]);
        let last = |u: __m256d| _mm256_cvtsd_f64(_mm256_permute4x64_pd::<0xFF>(u));
        (
            y,
            core::array::from_fn(|j| last(rem[j])),
            core::array::from_fn(|j| last(cr[j])),
        )
    }

    /// [`fast_f64`] with AVX2: vectors of 4; a lane is in range if `0 <= t < Q` (a
    /// remainder -0 would pass, and convert as +0 does).
    ///
    /// # Safety
    /// The CPU must support AVX2, and `T` must be f64.
    #[target_feature(enable = "avx2")]
    unsafe fn fast2_f64<T: Float, const K: usize>(
        p: &mut [T; K],
        c: &mut [T; K],
        m: &mut Meta,
        xs: &[T],
        out: &mut [T],
    ) -> usize {
        const FULL: i32 = 0xF;
        let n = xs.len().min(out.len());
        let s = setup::<T, K>(p, c);
        let b: [__m256d; K] = core::array::from_fn(|j| _mm256_set1_pd(s.b[j]));
        let q: [__m256d; K] = core::array::from_fn(|j| _mm256_set1_pd(s.q[j]));
        let hi = _mm256_set1_pd(f64::from_bits(s.thr));
        let abs = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
        let one = _mm256_castsi256_pd(_mm256_set1_epi64x(1));
        let zero = _mm256_setzero_pd();
        let index = _mm256_setr_epi64x(0, 1, 2, 3);
        let mut t: [__m256d; K] = core::array::from_fn(|j| _mm256_set1_pd(s.t[j]));
        let mut car = s.car;
        let (h, md) = carry_terms(&s.conv, &car);
        let mut head = _mm256_set1_pd(h);
        let mut mid: [__m256d; K] = core::array::from_fn(|j| _mm256_set1_pd(md[j]));
        let mut done = 0;
        let mut cap = n;
        while done < cap {
            let lanes = (cap - done).min(4);
            let mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(lanes as i64), index);
            let at = xs.as_ptr().wrapping_add(done).cast::<f64>();
            // SAFETY: lanes `done..done + lanes` of `xs` are in bounds (a masked load
            // reads no other lane, and gives zeros there); T is f64.
            let x = unsafe {
                if lanes == 4 {
                    _mm256_loadu_pd(at)
                } else {
                    _mm256_maskload_pd(at, mask)
                }
            };
            let fits = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(_mm256_and_pd(x, abs), hi));
            let mut v = [zero; K];
            let mut rest = x;
            for j in 0..K {
                let piece = _mm256_sub_pd(_mm256_add_pd(b[j], _mm256_or_pd(rest, one)), b[j]);
                v[j] = piece;
                rest = _mm256_sub_pd(rest, piece);
            }
            let mut ok = fits;
            for j in 0..K {
                let mut u = v[j];
                u = _mm256_add_pd(u, _mm256_blend_pd::<1>(_mm256_permute4x64_pd::<0x90>(u), zero));
                u = _mm256_add_pd(u, _mm256_permute2f128_pd::<0x08>(u, u));
                u = _mm256_add_pd(u, t[j]);
                let inside = _mm256_and_pd(
                    _mm256_cmp_pd::<_CMP_GE_OQ>(u, zero),
                    _mm256_cmp_pd::<_CMP_LT_OQ>(u, q[j]),
                );
                ok &= _mm256_movemask_pd(inside);
                v[j] = u;
            }
            let y = if ok == FULL {
                let mut y = _mm256_add_pd(head, v[0]);
                for j in 2..K {
                    y = _mm256_add_pd(y, mid[j]);
                    y = _mm256_add_pd(y, v[j - 1]);
                }
                y = _mm256_add_pd(y, v[K - 1]);
                for j in 0..K {
                    t[j] = _mm256_permute4x64_pd::<0xFF>(v[j]);
                }
                y
            } else if fits != FULL {
                // An element would raise the window: do the ones before it, then stop.
                let good = fits.trailing_ones() as usize;
                if good == 0 {
                    break;
                }
                cap = done + good;
                continue;
            } else {
                // A remainder left [0, Q): split every lane, then move the carries.
                let (y, rem, cr) = split_convert2::<K>(&s, &v, &car);
                car = cr;
                t = core::array::from_fn(|j| _mm256_set1_pd(rem[j]));
                let (h, md) = carry_terms(&s.conv, &car);
                head = _mm256_set1_pd(h);
                mid = core::array::from_fn(|j| _mm256_set1_pd(md[j]));
                y
            };
            let to = out.as_mut_ptr().wrapping_add(done).cast::<f64>();
            // SAFETY: as for the load, in `out`.
            unsafe {
                if lanes == 4 {
                    _mm256_storeu_pd(to, y)
                } else {
                    _mm256_maskstore_pd(to, mask, y)
                }
            };
            done += lanes;
        }
        for j in 0..K {
            p[j] = T::from_f64_round(s.b[j] + _mm256_cvtsd_f64(t[j]));
            c[j] = T::from_f64_round(car[j]);
        }
        m.count += done as u64;
        done
    }

    /// [`fast_f32`] with AVX2: vectors of 8 (see [`fast2_f64`]).
    ///
    /// # Safety
    /// The CPU must support AVX2, and `T` must be f32.
    #[target_feature(enable = "avx2")]
    unsafe fn fast2_f32<T: Float, const K: usize>(
        p: &mut [T; K],
        c: &mut [T; K],
        m: &mut Meta,
        xs: &[T],
        out: &mut [T],
    ) -> usize {
        const FULL: i32 = 0xFF;
        let n = xs.len().min(out.len());
        let s = setup::<T, K>(p, c);
        let b: [__m256; K] = core::array::from_fn(|j| _mm256_set1_ps(s.b[j] as f32));
        let q: [__m256; K] = core::array::from_fn(|j| _mm256_set1_ps(s.q[j] as f32));
        let hi = _mm256_set1_ps(f32::from_bits(s.thr as u32));
        let abs = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX));
        let one = _mm256_castsi256_ps(_mm256_set1_epi32(1));
        let zero = _mm256_setzero_ps();
        let index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let up1 = _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6);
        let up2 = _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5);
        let last = _mm256_set1_epi32(7);
        // The low or high 4 lanes, widened to f64 (exact).
        let half = |u: __m256, h: bool| {
            if h {
                _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(u))
            } else {
                _mm256_cvtps_pd(_mm256_castps256_ps128(u))
            }
        };
        let mut t: [__m256; K] = core::array::from_fn(|j| _mm256_set1_ps(s.t[j] as f32));
        let mut car = s.car;
        let (h, md) = carry_terms(&s.conv, &car);
        let mut head = _mm256_set1_pd(h);
        let mut mid: [__m256d; K] = core::array::from_fn(|j| _mm256_set1_pd(md[j]));
        let mut done = 0;
        let mut cap = n;
        while done < cap {
            let lanes = (cap - done).min(8);
            let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes as i32), index);
            let at = xs.as_ptr().wrapping_add(done).cast::<f32>();
            // SAFETY: lanes `done..done + lanes` of `xs` are in bounds (a masked load
            // reads no other lane, and gives zeros there); T is f32.
            let x = unsafe {
                if lanes == 8 {
                    _mm256_loadu_ps(at)
                } else {
                    _mm256_maskload_ps(at, mask)
                }
            };
            let fits = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(_mm256_and_ps(x, abs), hi));
            let mut v = [zero; K];
            let mut rest = x;
            for j in 0..K {
                let piece = _mm256_sub_ps(_mm256_add_ps(b[j], _mm256_or_ps(rest, one)), b[j]);
                v[j] = piece;
                rest = _mm256_sub_ps(rest, piece);
            }
            let mut ok = fits;
            for j in 0..K {
                let mut u = v[j];
                u = _mm256_add_ps(u, _mm256_blend_ps::<0b1>(_mm256_permutevar8x32_ps(u, up1), zero));
                u = _mm256_add_ps(u, _mm256_blend_ps::<0b11>(_mm256_permutevar8x32_ps(u, up2), zero));
                u = _mm256_add_ps(u, _mm256_permute2f128_ps::<0x08>(u, u));
                u = _mm256_add_ps(u, t[j]);
                let inside = _mm256_and_ps(
                    _mm256_cmp_ps::<_CMP_GE_OQ>(u, zero),
                    _mm256_cmp_ps::<_CMP_LT_OQ>(u, q[j]),
                );
                ok &= _mm256_movemask_ps(inside);
                v[j] = u;
            }
            let (lo, hi8) = if ok == FULL {
                let conv = |h: bool| {
                    let mut y = _mm256_add_pd(head, half(v[0], h));
                    for j in 2..K {
                        y = _mm256_add_pd(y, mid[j]);
                        y = _mm256_add_pd(y, half(v[j - 1], h));
                    }
                    _mm256_add_pd(y, half(v[K - 1], h))
                };
                let y = (conv(false), conv(true));
                for j in 0..K {
                    t[j] = _mm256_permutevar8x32_ps(v[j], last);
                }
                y
            } else if fits != FULL {
                // An element would raise the window: do the ones before it, then stop.
                let good = fits.trailing_ones() as usize;
                if good == 0 {
                    break;
                }
                cap = done + good;
                continue;
            } else {
                // A remainder left [0, Q): split every lane (in f64, as two halves), then
                // move the carries.
                let (lo, _, _) = split_convert2::<K>(&s, &v.map(|u| half(u, false)), &car);
                let (hi8, rem, cr) = split_convert2::<K>(&s, &v.map(|u| half(u, true)), &car);
                car = cr;
                t = core::array::from_fn(|j| _mm256_set1_ps(rem[j] as f32));
                let (h, md) = carry_terms(&s.conv, &car);
                head = _mm256_set1_pd(h);
                mid = core::array::from_fn(|j| _mm256_set1_pd(md[j]));
                (lo, hi8)
            };
            let y = _mm256_set_m128(_mm256_cvtpd_ps(hi8), _mm256_cvtpd_ps(lo));
            let to = out.as_mut_ptr().wrapping_add(done).cast::<f32>();
            // SAFETY: as for the load, in `out`.
            unsafe {
                if lanes == 8 {
                    _mm256_storeu_ps(to, y)
                } else {
                    _mm256_maskstore_ps(to, mask, y)
                }
            };
            done += lanes;
        }
        for j in 0..K {
            p[j] = T::from_f64_round(s.b[j] + _mm256_cvtss_f32(t[j]) as f64);
            c[j] = T::from_f64_round(car[j]);
        }
        m.count += done as u64;
        done
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
        chunks::<T, K>(p, c, m, xs, out)
    }
}

/// The paths without a fast kernel: chunk by chunk.
#[inline(always)]
fn chunks<T: Float, const K: usize>(p: &mut [T; K], c: &mut [T; K], m: &mut Meta, xs: &[T], out: &mut [T]) {
    for (xc, oc) in xs.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        chunk::<T, K>(p, c, m, xc, oc);
    }
}

/// The whole slice: on a fast kernel while the state allows it ([`fast_ok`]); the
/// element that stops it, and every chunk it cannot take, through [`chunk`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn drive<T: Float, const K: usize>(
    p: &mut [T; K],
    c: &mut [T; K],
    m: &mut Meta,
    xs: &[T],
    out: &mut [T],
    mut kernel: impl FnMut(&mut [T; K], &mut [T; K], &mut Meta, &[T], &mut [T]) -> usize,
) {
    let n = xs.len().min(out.len());
    let mut i = 0;
    while i < n {
        if fast_ok::<T, K>(p, m) {
            if m.pending > 0 {
                binned::renorm(&mut p[..], &mut c[..]);
                m.pending = 0;
            }
            i += kernel(p, c, m, &xs[i..n], &mut out[i..n]);
        }
        // The element that stopped the kernel (it raises the window, or is a NaN or
        // Inf), or the first of an empty state, on its own; a state the kernel cannot
        // take, a chunk at a time.
        let end = if p[0].is_zero() || fast_ok::<T, K>(p, m) {
            n.min(i + 1)
        } else {
            n.min(i + CHUNK)
        };
        if i < end {
            chunk::<T, K>(p, c, m, &xs[i..end], &mut out[i..end]);
        }
        i = end;
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
    // The rest of the chunk, as slices that shrink from the front (no index to check).
    let (mut xs, mut out) = (&xs[..n], &mut out[..n]);
    while !xs.is_empty() {
        let threshold = raise_threshold(p[0]);
        // Usually nothing in the chunk raises the window: one vectorised maximum says so.
        let run = if T::max_abs_bits(xs) < threshold {
            xs.len()
        } else {
            xs.iter()
                .position(|x| x.bits() & !T::SIGN_BIT >= threshold)
                .unwrap_or(xs.len())
        };
        // `run` is at most the length of both (never fails).
        let (Some((seg_x, rest_x)), Some((seg_o, rest_o))) = (
            xs.split_at_checked(run),
            core::mem::take(&mut out).split_at_mut_checked(run),
        ) else {
            break;
        };
        if run > 0 {
            if m.pending > 0 {
                binned::renorm(&mut p[..], &mut c[..]);
                m.pending = 0;
            }
            segment::<T, K>(p, c, m, seg_x, seg_o);
        }
        (xs, out) = (rest_x, rest_o);
        if let (Some((&x, rest_x)), Some((o, rest_o))) =
            (xs.split_first(), core::mem::take(&mut out).split_first_mut())
        {
            // An element that may raise the window, or a special value: on its own.
            let _ = binned::add_one(&mut p[..], &mut c[..], m, x);
            *o = binned::value(&p[..], &c[..], m);
            (xs, out) = (rest_x, rest_o);
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
        // The element number from a range bounded by CHUNK, so that it is seen to index
        // the scratch arrays in bounds (n <= CHUNK).
        for (i, o) in (0..CHUNK).zip(out[..n].iter_mut()) {
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

/// Whether the fast kernels can take the state: not empty, no NaN or Inf seen, a window that a
/// large enough value would raise (not the bottom bins) and whose conversion is plain.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fast_ok<T: Float, const K: usize>(p: &[T; K], m: &Meta) -> bool {
    m.flags == 0 && raise_threshold(p[0]) != 0 && Conversion::<K>::new::<T>(T::window_index(p[0])).plain()
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
    mul: [f64; 2 * MAX_FAST_FOLD],
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

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 3000;

    /// xorshift64: a fixed, reproducible stream.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// Uniform in [-0.5, 0.5).
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        }
    }

    /// Inputs of one kind (as f64, rounded to the type later).
    fn inputs(kind: usize, seed: u64, xs: &mut [f64]) {
        let mut r = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
        let n = xs.len();
        for (i, x) in xs.iter_mut().enumerate() {
            let u = r.unit();
            *x = match kind {
                // Mixed signs and magnitudes (as the benchmarks).
                0 => u * 2f64.powi((r.next() % 24) as i32 - 12),
                // One sign, near the top of the window's range: carries of slot 0 move.
                1 => 1.0 + u.abs() * 0.99,
                2 => -(1.0 + u.abs() * 0.99),
                // Runs of one sign: running remainders cross 0 and Q both ways.
                3 => {
                    if (i / 97) % 2 == 0 {
                        1.5 + u
                    } else {
                        -1.5 - u
                    }
                }
                // Magnitudes rising along the input: the window moves mid-chunk.
                4 => u * 2f64.powf(i as f64 * 40.0 / n as f64 - 20.0),
                // NaN and Inf here and there.
                5 => match r.next() % 200 {
                    0 => f64::NAN,
                    1 => f64::INFINITY,
                    2 => f64::NEG_INFINITY,
                    _ => u,
                },
                // Top bins (scaled conversions), also near the overflow threshold.
                6 => u * f64::MAX * if i % 3 == 0 { 1.0 } else { 1e-10 },
                7 => u * 2f64.powi(1000 - (r.next() % 140) as i32),
                // Subnormals and the bottom bins.
                8 => u * f64::from_bits(r.next() % (1u64 << 52)) * if i % 2 == 0 { 1.0 } else { 1e300 },
                9 => u * 1e-300,
                // Zeros among small values; exact cancellations.
                10 => {
                    if r.next().is_multiple_of(3) {
                        0.0
                    } else {
                        u * 1e-3
                    }
                }
                11 => {
                    if i % 2 == 0 {
                        2f64.powi((i % 50) as i32)
                    } else {
                        -(2f64.powi(((i - 1) % 50) as i32))
                    }
                }
                // Any finite bit pattern.
                _ => {
                    let v = f64::from_bits(r.next());
                    if v.is_finite() {
                        v
                    } else {
                        u
                    }
                }
            };
        }
    }

    /// `running` from a state reached by `pre` against `one_by_one`, by bits.
    fn same<T: Float>(pf: Platform, k: usize, pre: &[T], xs: &[T], what: &str) {
        let mut p = [T::ZERO; 12];
        let mut c = [T::ZERO; 12];
        let mut m = Meta::default();
        let mut buf = [T::ZERO; N];
        one_by_one(&mut p[..k], &mut c[..k], &mut m, pre, &mut buf[..pre.len()]);
        let (mut p2, mut c2, mut m2) = (p, c, m);
        let mut a = [T::ZERO; N];
        let mut b = [T::ZERO; N];
        running(
            Platform::current(),
            &mut p[..k],
            &mut c[..k],
            &mut m,
            xs,
            &mut a[..xs.len()],
        );
        one_by_one(&mut p2[..k], &mut c2[..k], &mut m2, xs, &mut b[..xs.len()]);
        for i in 0..xs.len() {
            assert_eq!(
                a[i].bits(),
                b[i].bits(),
                "{what}: element {i} of {} ({:?}), fold {k}, path {:?}",
                xs.len(),
                xs[i],
                pf.path()
            );
        }
        assert_eq!((m.count, m.flags), (m2.count, m2.flags), "{what}");
        let (v1, v2) = (
            binned::value(&p[..k], &c[..k], &m),
            binned::value(&p2[..k], &c2[..k], &m2),
        );
        assert_eq!(v1.bits(), v2.bits(), "{what}: final state");
    }

    fn all_kinds<T: Float>(pf: Platform) {
        let mut raw = [0.0f64; N];
        let mut xs = [T::ZERO; N];
        let mut pre = [T::ZERO; 8];
        // Miri runs only the portable path, slowly: fewer and shorter inputs.
        let (seeds, lens): (u64, &[usize]) = if cfg!(miri) {
            (1, &[0, 1, 9, 17, 40])
        } else {
            (3, &[0, 1, 7, 8, 9, 15, 16, 17, 100, 1001, N])
        };
        for kind in 0..13 {
            for seed in 0..seeds {
                inputs(kind, seed, &mut raw);
                for (x, &r) in xs.iter_mut().zip(raw.iter()) {
                    *x = T::from_f64_round(r);
                }
                for (x, &r) in pre.iter_mut().zip(raw.iter().rev()) {
                    *x = T::from_f64_round(r);
                }
                for k in [2, 3, 4, 5, 6, 8, 11] {
                    for &len in lens {
                        same::<T>(pf, k, &[], &xs[..len], "fresh");
                        same::<T>(pf, k, &pre[..(seed as usize * 3 + 2)], &xs[..len], "started");
                    }
                }
            }
        }
    }

    /// Every compiled path this CPU runs (passed as a value), both types, folds 2 to 8 and
    /// one above, every kind of input: the bits of the element-by-element definition.
    #[test]
    fn scan_matches_one_by_one() {
        for pf in Platform::all().into_iter().flatten() {
            all_kinds::<f64>(pf);
            all_kinds::<f32>(pf);
        }
    }
}
