//! The AVX-512 and AVX2 kernels of the cumulative sum (see the parent module's notes), and
//! the driver that runs them while the state allows it.

use super::chunks::{chunk, raise_threshold};
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
    let qbits: [__m512i; K] = core::array::from_fn(|j| _mm512_set1_epi32((s.q[j] as f32).to_bits() as i32));
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

/// The whole slice: on a fast kernel while the state allows it ([`fast_ok`]); the
/// element that stops it, and every chunk it cannot take, through [`chunk`].
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

/// Whether the fast kernels can take the state: not empty, no NaN or Inf seen, a window that a
/// large enough value would raise (not the bottom bins) and whose conversion is plain.
#[inline(always)]
fn fast_ok<T: Float, const K: usize>(p: &[T; K], m: &Meta) -> bool {
    m.flags == 0 && raise_threshold(p[0]) != 0 && Conversion::<K>::new::<T>(T::window_index(p[0])).plain()
}
