//! The AVX-512 and AVX2 kernel of the cumulative sum (see the parent module's notes), and
//! the driver that runs it while the state allows it.
//!
//! The kernel ([`fast`]) is written once, over a small trait of vector operations
//! ([`Lanes`] for the elements, [`Wide`] for the f64 vectors of the conversion), and
//! instantiated four times: f64 and f32 lanes, AVX-512F and AVX2, each inlined into a
//! `#[target_feature]` entry ([`avx512`], [`avx2`]). The trait is implemented by tokens
//! ([`Avx512`], [`Avx2`]) that only those entries make, after the caller has checked the
//! CPU (a [`Platform`]), so its methods are safe to call.

use super::chunks::{chunk, raise_threshold};
use super::*;
use core::arch::x86_64::*;

/// AVX-512F is usable: made only by [`avx512`], an unsafe function whose caller checked
/// the CPU (nothing else in this module makes one).
#[derive(Clone, Copy)]
struct Avx512(());

/// AVX2 is usable: made only by [`avx2`], as [`Avx512`] is by [`avx512`].
#[derive(Clone, Copy)]
struct Avx2(());

/// f64 lanes on an instruction set.
#[derive(Clone, Copy)]
struct F64s<I>(I);

/// f32 lanes on an instruction set.
#[derive(Clone, Copy)]
struct F32s<I>(I);

/// The f64 vector of an instruction set, for the conversion and the split.
trait Wide: Copy {
    /// The vector.
    type D: Copy;
    fn splat(self, x: f64) -> Self::D;
    fn add(self, a: Self::D, b: Self::D) -> Self::D;
    fn sub(self, a: Self::D, b: Self::D) -> Self::D;
    fn mul(self, a: Self::D, b: Self::D) -> Self::D;
    /// Rounded down to an integer.
    fn floor(self, a: Self::D) -> Self::D;
    /// The last lane.
    fn last(self, a: Self::D) -> f64;
}

/// A vector of `N` scan elements (f64 or f32) and the operations the kernel does on it.
/// Masks are lane bits in a `u32` (bit i for lane i).
trait Lanes: Copy {
    /// The vector of elements.
    type V: Copy;
    /// The f64 vectors of the conversion.
    type W: Wide;
    /// Lanes per vector.
    const N: usize;
    /// Every lane's bit.
    const FULL: u32;
    /// Halves the conversion splits a vector into (2 for f32: f64 vectors have half the
    /// lanes; 1 for f64).
    const HALVES: usize;
    /// Bytes of an element (which `Float` the loads and stores take).
    const BYTES: usize;
    fn wide(self) -> Self::W;
    /// Every lane `x`, rounded to the element type (exact where the kernel uses it).
    fn splat(self, x: f64) -> Self::V;
    /// Every lane the element with these bits (the low `8 * BYTES` bits).
    fn splat_bits(self, bits: u64) -> Self::V;
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// The lowest significand bit set in every lane.
    fn or_low_bit(self, a: Self::V) -> Self::V;
    /// The lanes moved up by `S` (1, 2, 4 or 8, below `N`), zeros shifted in.
    fn shift<const S: usize>(self, a: Self::V) -> Self::V;
    /// The inclusive prefix sums of the lanes of `a`, by `log2 N` shifts and adds; `z` is
    /// +0 in every lane, which AVX-512 moves in with its shifts (given as a value the
    /// optimiser cannot see is zero, so it keeps them: with a known zero it turned them
    /// into `vexpandpd`, 15% slower on this project's Zen 4 machine).
    #[inline(always)]
    fn prefix(self, a: Self::V, z: Self::V) -> Self::V {
        let _ = z;
        let mut u = a;
        u = self.add(u, self.shift::<1>(u));
        u = self.add(u, self.shift::<2>(u));
        if Self::N > 4 {
            u = self.add(u, self.shift::<4>(u));
        }
        if Self::N > 8 {
            u = self.add(u, self.shift::<8>(u));
        }
        u
    }
    /// Every lane the last lane of `a`.
    fn last(self, a: Self::V) -> Self::V;
    /// Lane 0, widened to f64 (exact).
    fn first(self, a: Self::V) -> f64;
    /// The lanes whose magnitude is below the positive, normal `thr` (false for NaN).
    fn below(self, x: Self::V, thr: Self::V) -> u32;
    /// The lanes in `[0, q)` (a -0 may or may not count: it converts as +0 does).
    fn inside(self, u: Self::V, q: Self::V) -> u32;
    /// The first `min(xs.len(), N)` elements, zeros in the other lanes (reads no other
    /// element). Zeros if `T` is not this element type.
    fn load<T: Float>(self, xs: &[T]) -> Self::V;
    /// Writes the first `min(out.len(), N)` lanes (no other element). Nothing if `T` is
    /// not this element type.
    fn store<T: Float>(self, out: &mut [T], v: Self::V);
    /// Half `h` (0 or 1) of the lanes, widened to f64 (exact); the vector itself for f64.
    fn half(self, v: Self::V, h: usize) -> <Self::W as Wide>::D;
    /// The halves rounded to the element type and joined (`hi` unused for f64).
    fn narrow(self, lo: <Self::W as Wide>::D, hi: <Self::W as Wide>::D) -> Self::V;
}

// Every method below runs intrinsics of the token's instruction set: the token exists only
// where the CPU has it (made by `avx512` / `avx2`, whose callers checked the CPU).

impl Wide for Avx512 {
    type D = __m512d;
    #[inline(always)]
    fn splat(self, x: f64) -> __m512d {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_set1_pd(x) }
    }
    #[inline(always)]
    fn add(self, a: __m512d, b: __m512d) -> __m512d {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_add_pd(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m512d, b: __m512d) -> __m512d {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_sub_pd(a, b) }
    }
    #[inline(always)]
    fn mul(self, a: __m512d, b: __m512d) -> __m512d {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_mul_pd(a, b) }
    }
    #[inline(always)]
    fn floor(self, a: __m512d) -> __m512d {
        // Round down (0x01), exceptions suppressed (0x08).
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_roundscale_pd::<0x09>(a) }
    }
    #[inline(always)]
    fn last(self, a: __m512d) -> f64 {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_cvtsd_f64(_mm512_permutexvar_pd(_mm512_set1_epi64(7), a)) }
    }
}

impl Wide for Avx2 {
    type D = __m256d;
    #[inline(always)]
    fn splat(self, x: f64) -> __m256d {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_set1_pd(x) }
    }
    #[inline(always)]
    fn add(self, a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_add_pd(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_sub_pd(a, b) }
    }
    #[inline(always)]
    fn mul(self, a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_mul_pd(a, b) }
    }
    #[inline(always)]
    fn floor(self, a: __m256d) -> __m256d {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_floor_pd(a) }
    }
    #[inline(always)]
    fn last(self, a: __m256d) -> f64 {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_cvtsd_f64(_mm256_permute4x64_pd::<0xFF>(a)) }
    }
}

impl Lanes for F64s<Avx512> {
    type V = __m512d;
    type W = Avx512;
    const N: usize = 8;
    const FULL: u32 = 0xFF;
    const HALVES: usize = 1;
    const BYTES: usize = 8;
    #[inline(always)]
    fn wide(self) -> Avx512 {
        self.0
    }
    #[inline(always)]
    fn splat(self, x: f64) -> __m512d {
        self.0.splat(x)
    }
    #[inline(always)]
    fn splat_bits(self, bits: u64) -> __m512d {
        self.0.splat(f64::from_bits(bits))
    }
    #[inline(always)]
    fn add(self, a: __m512d, b: __m512d) -> __m512d {
        self.0.add(a, b)
    }
    #[inline(always)]
    fn sub(self, a: __m512d, b: __m512d) -> __m512d {
        self.0.sub(a, b)
    }
    #[inline(always)]
    fn or_low_bit(self, a: __m512d) -> __m512d {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(a), _mm512_set1_epi64(1))) }
    }
    #[inline(always)]
    fn shift<const S: usize>(self, a: __m512d) -> __m512d {
        // SAFETY: AVX-512F (the token).
        unsafe {
            let (u, z) = (_mm512_castpd_si512(a), _mm512_setzero_si512());
            _mm512_castsi512_pd(match S {
                1 => _mm512_alignr_epi64::<7>(u, z),
                2 => _mm512_alignr_epi64::<6>(u, z),
                _ => _mm512_alignr_epi64::<4>(u, z),
            })
        }
    }
    #[inline(always)]
    fn prefix(self, a: __m512d, z: __m512d) -> __m512d {
        // SAFETY: AVX-512F (the token).
        unsafe {
            let z = _mm512_castpd_si512(z);
            let mut u = a;
            u = _mm512_add_pd(
                u,
                _mm512_castsi512_pd(_mm512_alignr_epi64::<7>(_mm512_castpd_si512(u), z)),
            );
            u = _mm512_add_pd(
                u,
                _mm512_castsi512_pd(_mm512_alignr_epi64::<6>(_mm512_castpd_si512(u), z)),
            );
            _mm512_add_pd(
                u,
                _mm512_castsi512_pd(_mm512_alignr_epi64::<4>(_mm512_castpd_si512(u), z)),
            )
        }
    }
    #[inline(always)]
    fn last(self, a: __m512d) -> __m512d {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_permutexvar_pd(_mm512_set1_epi64(7), a) }
    }
    #[inline(always)]
    fn first(self, a: __m512d) -> f64 {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_cvtsd_f64(a) }
    }
    #[inline(always)]
    fn below(self, x: __m512d, thr: __m512d) -> u32 {
        // SAFETY: AVX-512F (the token).
        unsafe {
            let abs = _mm512_and_si512(_mm512_castpd_si512(x), _mm512_set1_epi64(i64::MAX));
            u32::from(_mm512_cmplt_epu64_mask(abs, _mm512_castpd_si512(thr)))
        }
    }
    #[inline(always)]
    fn inside(self, u: __m512d, q: __m512d) -> u32 {
        // As unsigned bits: 0 <= u < q for a positive q (a -0, sign bit set, is outside).
        // SAFETY: AVX-512F (the token).
        unsafe {
            u32::from(_mm512_cmplt_epu64_mask(
                _mm512_castpd_si512(u),
                _mm512_castpd_si512(q),
            ))
        }
    }
    #[inline(always)]
    fn load<T: Float>(self, xs: &[T]) -> __m512d {
        let lanes = xs.len().min(8);
        if T::BYTES != 8 {
            return self.splat(0.0);
        }
        let mask = ((1u32 << lanes) - 1) as __mmask8;
        // SAFETY: AVX-512F (the token); the masked load reads lanes 0..lanes only, which
        // are in `xs`, and T is f64 (the only `Float` of 8 bytes).
        unsafe { _mm512_maskz_loadu_pd(mask, xs.as_ptr().cast::<f64>()) }
    }
    #[inline(always)]
    fn store<T: Float>(self, out: &mut [T], v: __m512d) {
        let lanes = out.len().min(8);
        if T::BYTES != 8 {
            return;
        }
        let mask = ((1u32 << lanes) - 1) as __mmask8;
        // SAFETY: as for `load`, in `out`.
        unsafe { _mm512_mask_storeu_pd(out.as_mut_ptr().cast::<f64>(), mask, v) }
    }
    #[inline(always)]
    fn half(self, v: __m512d, _h: usize) -> __m512d {
        v
    }
    #[inline(always)]
    fn narrow(self, lo: __m512d, _hi: __m512d) -> __m512d {
        lo
    }
}

impl Lanes for F32s<Avx512> {
    type V = __m512;
    type W = Avx512;
    const N: usize = 16;
    const FULL: u32 = 0xFFFF;
    const HALVES: usize = 2;
    const BYTES: usize = 4;
    #[inline(always)]
    fn wide(self) -> Avx512 {
        self.0
    }
    #[inline(always)]
    fn splat(self, x: f64) -> __m512 {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_set1_ps(x as f32) }
    }
    #[inline(always)]
    fn splat_bits(self, bits: u64) -> __m512 {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_set1_ps(f32::from_bits(bits as u32)) }
    }
    #[inline(always)]
    fn add(self, a: __m512, b: __m512) -> __m512 {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_add_ps(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m512, b: __m512) -> __m512 {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_sub_ps(a, b) }
    }
    #[inline(always)]
    fn or_low_bit(self, a: __m512) -> __m512 {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_set1_epi32(1))) }
    }
    #[inline(always)]
    fn shift<const S: usize>(self, a: __m512) -> __m512 {
        // SAFETY: AVX-512F (the token).
        unsafe {
            let (u, z) = (_mm512_castps_si512(a), _mm512_setzero_si512());
            _mm512_castsi512_ps(match S {
                1 => _mm512_alignr_epi32::<15>(u, z),
                2 => _mm512_alignr_epi32::<14>(u, z),
                4 => _mm512_alignr_epi32::<12>(u, z),
                _ => _mm512_alignr_epi32::<8>(u, z),
            })
        }
    }
    #[inline(always)]
    fn prefix(self, a: __m512, z: __m512) -> __m512 {
        // SAFETY: AVX-512F (the token).
        unsafe {
            let z = _mm512_castps_si512(z);
            let mut u = a;
            u = _mm512_add_ps(
                u,
                _mm512_castsi512_ps(_mm512_alignr_epi32::<15>(_mm512_castps_si512(u), z)),
            );
            u = _mm512_add_ps(
                u,
                _mm512_castsi512_ps(_mm512_alignr_epi32::<14>(_mm512_castps_si512(u), z)),
            );
            u = _mm512_add_ps(
                u,
                _mm512_castsi512_ps(_mm512_alignr_epi32::<12>(_mm512_castps_si512(u), z)),
            );
            _mm512_add_ps(
                u,
                _mm512_castsi512_ps(_mm512_alignr_epi32::<8>(_mm512_castps_si512(u), z)),
            )
        }
    }
    #[inline(always)]
    fn last(self, a: __m512) -> __m512 {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_permutexvar_ps(_mm512_set1_epi32(15), a) }
    }
    #[inline(always)]
    fn first(self, a: __m512) -> f64 {
        // SAFETY: AVX-512F (the token).
        unsafe { _mm512_cvtss_f32(a) as f64 }
    }
    #[inline(always)]
    fn below(self, x: __m512, thr: __m512) -> u32 {
        // SAFETY: AVX-512F (the token).
        unsafe {
            let abs = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(i32::MAX));
            u32::from(_mm512_cmplt_epu32_mask(abs, _mm512_castps_si512(thr)))
        }
    }
    #[inline(always)]
    fn inside(self, u: __m512, q: __m512) -> u32 {
        // As unsigned bits: 0 <= u < q for a positive q (a -0, sign bit set, is outside).
        // SAFETY: AVX-512F (the token).
        unsafe {
            u32::from(_mm512_cmplt_epu32_mask(
                _mm512_castps_si512(u),
                _mm512_castps_si512(q),
            ))
        }
    }
    #[inline(always)]
    fn load<T: Float>(self, xs: &[T]) -> __m512 {
        let lanes = xs.len().min(16);
        if T::BYTES != 4 {
            return self.splat(0.0);
        }
        let mask = ((1u32 << lanes) - 1) as __mmask16;
        // SAFETY: AVX-512F (the token); the masked load reads lanes 0..lanes only, which
        // are in `xs`, and T is f32 (the only `Float` of 4 bytes).
        unsafe { _mm512_maskz_loadu_ps(mask, xs.as_ptr().cast::<f32>()) }
    }
    #[inline(always)]
    fn store<T: Float>(self, out: &mut [T], v: __m512) {
        let lanes = out.len().min(16);
        if T::BYTES != 4 {
            return;
        }
        let mask = ((1u32 << lanes) - 1) as __mmask16;
        // SAFETY: as for `load`, in `out`.
        unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr().cast::<f32>(), mask, v) }
    }
    #[inline(always)]
    fn half(self, v: __m512, h: usize) -> __m512d {
        // SAFETY: AVX-512F (the token).
        unsafe {
            if h == 1 {
                _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(v))))
            } else {
                _mm512_cvtps_pd(_mm512_castps512_ps256(v))
            }
        }
    }
    #[inline(always)]
    fn narrow(self, lo: __m512d, hi: __m512d) -> __m512 {
        // SAFETY: AVX-512F (the token).
        unsafe {
            let (lo, hi) = (_mm512_cvtpd_ps(lo), _mm512_cvtpd_ps(hi));
            _mm512_castpd_ps(_mm512_insertf64x4::<1>(
                _mm512_castpd256_pd512(_mm256_castps_pd(lo)),
                _mm256_castps_pd(hi),
            ))
        }
    }
}

impl Lanes for F64s<Avx2> {
    type V = __m256d;
    type W = Avx2;
    const N: usize = 4;
    const FULL: u32 = 0xF;
    const HALVES: usize = 1;
    const BYTES: usize = 8;
    #[inline(always)]
    fn wide(self) -> Avx2 {
        self.0
    }
    #[inline(always)]
    fn splat(self, x: f64) -> __m256d {
        self.0.splat(x)
    }
    #[inline(always)]
    fn splat_bits(self, bits: u64) -> __m256d {
        self.0.splat(f64::from_bits(bits))
    }
    #[inline(always)]
    fn add(self, a: __m256d, b: __m256d) -> __m256d {
        self.0.add(a, b)
    }
    #[inline(always)]
    fn sub(self, a: __m256d, b: __m256d) -> __m256d {
        self.0.sub(a, b)
    }
    #[inline(always)]
    fn or_low_bit(self, a: __m256d) -> __m256d {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_or_pd(a, _mm256_castsi256_pd(_mm256_set1_epi64x(1))) }
    }
    #[inline(always)]
    fn shift<const S: usize>(self, a: __m256d) -> __m256d {
        // SAFETY: AVX2 (the token).
        unsafe {
            match S {
                1 => _mm256_blend_pd::<1>(_mm256_permute4x64_pd::<0x90>(a), _mm256_setzero_pd()),
                _ => _mm256_permute2f128_pd::<0x08>(a, a),
            }
        }
    }
    #[inline(always)]
    fn last(self, a: __m256d) -> __m256d {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_permute4x64_pd::<0xFF>(a) }
    }
    #[inline(always)]
    fn first(self, a: __m256d) -> f64 {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_cvtsd_f64(a) }
    }
    #[inline(always)]
    fn below(self, x: __m256d, thr: __m256d) -> u32 {
        // SAFETY: AVX2 (the token).
        unsafe {
            let abs = _mm256_and_pd(x, _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX)));
            _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(abs, thr)) as u32
        }
    }
    #[inline(always)]
    fn inside(self, u: __m256d, q: __m256d) -> u32 {
        // SAFETY: AVX2 (the token).
        unsafe {
            let ge = _mm256_cmp_pd::<_CMP_GE_OQ>(u, _mm256_setzero_pd());
            _mm256_movemask_pd(_mm256_and_pd(ge, _mm256_cmp_pd::<_CMP_LT_OQ>(u, q))) as u32
        }
    }
    #[inline(always)]
    fn load<T: Float>(self, xs: &[T]) -> __m256d {
        let lanes = xs.len().min(4);
        if T::BYTES != 8 {
            return self.splat(0.0);
        }
        let at = xs.as_ptr().cast::<f64>();
        // SAFETY: AVX2 (the token); T is f64 (the only `Float` of 8 bytes); a full load
        // reads 4 elements of `xs`, a masked one only lanes 0..lanes, which are in `xs`.
        unsafe {
            if lanes == 4 {
                _mm256_loadu_pd(at)
            } else {
                let mask =
                    _mm256_cmpgt_epi64(_mm256_set1_epi64x(lanes as i64), _mm256_setr_epi64x(0, 1, 2, 3));
                _mm256_maskload_pd(at, mask)
            }
        }
    }
    #[inline(always)]
    fn store<T: Float>(self, out: &mut [T], v: __m256d) {
        let lanes = out.len().min(4);
        if T::BYTES != 8 {
            return;
        }
        let to = out.as_mut_ptr().cast::<f64>();
        // SAFETY: as for `load`, in `out`.
        unsafe {
            if lanes == 4 {
                _mm256_storeu_pd(to, v)
            } else {
                let mask =
                    _mm256_cmpgt_epi64(_mm256_set1_epi64x(lanes as i64), _mm256_setr_epi64x(0, 1, 2, 3));
                _mm256_maskstore_pd(to, mask, v)
            }
        }
    }
    #[inline(always)]
    fn half(self, v: __m256d, _h: usize) -> __m256d {
        v
    }
    #[inline(always)]
    fn narrow(self, lo: __m256d, _hi: __m256d) -> __m256d {
        lo
    }
}

impl Lanes for F32s<Avx2> {
    type V = __m256;
    type W = Avx2;
    const N: usize = 8;
    const FULL: u32 = 0xFF;
    const HALVES: usize = 2;
    const BYTES: usize = 4;
    #[inline(always)]
    fn wide(self) -> Avx2 {
        self.0
    }
    #[inline(always)]
    fn splat(self, x: f64) -> __m256 {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_set1_ps(x as f32) }
    }
    #[inline(always)]
    fn splat_bits(self, bits: u64) -> __m256 {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_set1_ps(f32::from_bits(bits as u32)) }
    }
    #[inline(always)]
    fn add(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_add_ps(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_sub_ps(a, b) }
    }
    #[inline(always)]
    fn or_low_bit(self, a: __m256) -> __m256 {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_or_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(1))) }
    }
    #[inline(always)]
    fn shift<const S: usize>(self, a: __m256) -> __m256 {
        // SAFETY: AVX2 (the token).
        unsafe {
            let z = _mm256_setzero_ps();
            match S {
                1 => _mm256_blend_ps::<0b1>(
                    _mm256_permutevar8x32_ps(a, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)),
                    z,
                ),
                2 => _mm256_blend_ps::<0b11>(
                    _mm256_permutevar8x32_ps(a, _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5)),
                    z,
                ),
                _ => _mm256_permute2f128_ps::<0x08>(a, a),
            }
        }
    }
    #[inline(always)]
    fn last(self, a: __m256) -> __m256 {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_permutevar8x32_ps(a, _mm256_set1_epi32(7)) }
    }
    #[inline(always)]
    fn first(self, a: __m256) -> f64 {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_cvtss_f32(a) as f64 }
    }
    #[inline(always)]
    fn below(self, x: __m256, thr: __m256) -> u32 {
        // SAFETY: AVX2 (the token).
        unsafe {
            let abs = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX)));
            _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(abs, thr)) as u32
        }
    }
    #[inline(always)]
    fn inside(self, u: __m256, q: __m256) -> u32 {
        // SAFETY: AVX2 (the token).
        unsafe {
            let ge = _mm256_cmp_ps::<_CMP_GE_OQ>(u, _mm256_setzero_ps());
            _mm256_movemask_ps(_mm256_and_ps(ge, _mm256_cmp_ps::<_CMP_LT_OQ>(u, q))) as u32
        }
    }
    #[inline(always)]
    fn load<T: Float>(self, xs: &[T]) -> __m256 {
        let lanes = xs.len().min(8);
        if T::BYTES != 4 {
            return self.splat(0.0);
        }
        let at = xs.as_ptr().cast::<f32>();
        // SAFETY: AVX2 (the token); T is f32 (the only `Float` of 4 bytes); a full load
        // reads 8 elements of `xs`, a masked one only lanes 0..lanes, which are in `xs`.
        unsafe {
            if lanes == 8 {
                _mm256_loadu_ps(at)
            } else {
                let mask = _mm256_cmpgt_epi32(
                    _mm256_set1_epi32(lanes as i32),
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                );
                _mm256_maskload_ps(at, mask)
            }
        }
    }
    #[inline(always)]
    fn store<T: Float>(self, out: &mut [T], v: __m256) {
        let lanes = out.len().min(8);
        if T::BYTES != 4 {
            return;
        }
        let to = out.as_mut_ptr().cast::<f32>();
        // SAFETY: as for `load`, in `out`.
        unsafe {
            if lanes == 8 {
                _mm256_storeu_ps(to, v)
            } else {
                let mask = _mm256_cmpgt_epi32(
                    _mm256_set1_epi32(lanes as i32),
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                );
                _mm256_maskstore_ps(to, mask, v)
            }
        }
    }
    #[inline(always)]
    fn half(self, v: __m256, h: usize) -> __m256d {
        // SAFETY: AVX2 (the token).
        unsafe {
            if h == 1 {
                _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(v))
            } else {
                _mm256_cvtps_pd(_mm256_castps256_ps128(v))
            }
        }
    }
    #[inline(always)]
    fn narrow(self, lo: __m256d, hi: __m256d) -> __m256 {
        // SAFETY: AVX2 (the token).
        unsafe { _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)) }
    }
}

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
    // The caller checked the CPU: the token may be made.
    let isa = Avx512(());
    if T::BYTES == 8 {
        drive::<T, K, _>(F64s(isa), p, c, m, xs, out)
    } else {
        drive::<T, K, _>(F32s(isa), p, c, m, xs, out)
    }
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
    // The caller checked the CPU: the token may be made.
    let isa = Avx2(());
    if T::BYTES == 8 {
        drive::<T, K, _>(F64s(isa), p, c, m, xs, out)
    } else {
        drive::<T, K, _>(F32s(isa), p, c, m, xs, out)
    }
}

/// The chunked passes for a fold read at run time (the big folds), compiled for AVX-512.
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn avx512_dyn<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
    super::chunks_dyn::<T>(p, c, m, xs, out)
}

/// The chunked passes for a fold read at run time, compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn avx2_dyn<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
    super::chunks_dyn::<T>(p, c, m, xs, out)
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

/// The carry terms of the conversion: `(0 + C_0) + C_1` and every `C_j`, as vectors.
#[inline(always)]
fn carry_terms<W: Wide, const K: usize>(w: W, conv: &Conversion<K>, car: &[f64; K]) -> (W::D, [W::D; K]) {
    let mut head = 0.0 + car[0] * conv.fc[0];
    if K > 1 {
        head += car[1] * conv.fc[1];
    }
    let mut mid = [w.splat(0.0); K];
    for j in 0..K {
        mid[j] = w.splat(car[j] * conv.fc[j]);
    }
    (w.splat(head), mid)
}

/// Pass 3 for a vector of exact slot totals `v` (f64): the split of every lane
/// ([`split`]: floor by the power of two Q) and the conversion with the carries of
/// every lane ([`Conversion::apply_plain`], the same operations in the same order).
/// Returns the converted values and the last lane's remainders and carries.
#[inline(always)]
fn split_convert<W: Wide, const K: usize>(
    w: W,
    s: &Setup<K>,
    v: &[W::D; K],
    car: &[f64; K],
) -> (W::D, [f64; K], [f64; K]) {
    let mut rem = [w.splat(0.0); K];
    let mut cr = [w.splat(0.0); K];
    for j in 0..K {
        // t / Q is exact.
        let r = w.floor(w.mul(v[j], w.splat(s.inv_q[j])));
        rem[j] = w.sub(v[j], w.mul(r, w.splat(s.q[j])));
        cr[j] = w.add(w.splat(car[j]), r);
    }
    let mut y = w.add(w.splat(0.0), w.mul(cr[0], w.splat(s.conv.fc[0])));
    for j in 1..K {
        y = w.add(y, w.mul(cr[j], w.splat(s.conv.fc[j])));
        y = w.add(y, rem[j - 1]);
    }
    y = w.add(y, rem[K - 1]);
    let (mut rl, mut cl) = ([0.0; K], [0.0; K]);
    for j in 0..K {
        rl[j] = w.last(rem[j]);
        cl[j] = w.last(cr[j]);
    }
    (y, rl, cl)
}

/// The conversion of half `h` of a vector of remainders while no carry moves: `head`,
/// `+ r_0`, then `+ C_j`, `+ r_{j-1}` for j = 2..K-1, then `+ r_{K-1}`.
#[inline(always)]
fn convert_plain<L: Lanes, const K: usize>(
    l: L,
    head: <L::W as Wide>::D,
    mid: &[<L::W as Wide>::D; K],
    v: &[L::V; K],
    h: usize,
) -> <L::W as Wide>::D {
    let w = l.wide();
    let mut y = w.add(head, l.half(v[0], h));
    for j in 2..K {
        y = w.add(y, mid[j]);
        y = w.add(y, l.half(v[j - 1], h));
    }
    w.add(y, l.half(v[K - 1], h))
}

/// Pass 1 for a vector of elements: each one's piece in every slot (the deposit against
/// the slot's reference value `b[j]`).
#[inline(always)]
fn pieces<L: Lanes, const K: usize>(l: L, b: &[L::V; K], x: L::V) -> [L::V; K] {
    let mut v = [x; K];
    let mut rest = x;
    for j in 0..K {
        let piece = l.sub(l.add(b[j], l.or_low_bit(rest)), b[j]);
        v[j] = piece;
        rest = l.sub(rest, piece);
    }
    v
}

/// The fast kernel (see the module notes), one vector of `L::N` elements at a time; the
/// pieces and their prefix sums in the element type (exact in f32 too), the conversion
/// in f64. Stops before a vector with an element that would raise the window (or a NaN
/// or Inf) and returns how many elements were done; the state must be renormalised and
/// [`fast_ok`]. Leaves it renormalised. Does nothing if `T` is not `L`'s element type.
#[inline(always)]
fn fast<T: Float, const K: usize, L: Lanes>(
    l: L,
    p: &mut [T; K],
    c: &mut [T; K],
    m: &mut Meta,
    xs: &[T],
    out: &mut [T],
) -> usize {
    if T::BYTES != L::BYTES {
        return 0;
    }
    let w = l.wide();
    let n = xs.len().min(out.len());
    let s = setup::<T, K>(p, c);
    let zero = l.splat(0.0);
    let (mut b, mut q, mut t) = ([zero; K], [zero; K], [zero; K]);
    for j in 0..K {
        b[j] = l.splat(s.b[j]);
        q[j] = l.splat(s.q[j]);
        t[j] = l.splat(s.t[j]);
    }
    let thr = l.splat_bits(s.thr);
    let mut car = s.car;
    let (mut head, mut mid) = carry_terms(w, &s.conv, &car);
    // +0 in every lane (b is finite), computed so that the optimiser keeps the shifts of
    // `Lanes::prefix` as written.
    let z = l.sub(b[0], b[0]);
    let mut done = 0;
    let mut cap = n;
    while done < cap {
        // Two vectors at a time while no element raises the window and no remainder
        // leaves [0, Q): exactly the operations of the one-vector step below, in the same
        // order per element, but two vectors' pieces and prefix sums side by side in the
        // instruction stream, which the out-of-order core overlaps better (about 15% on
        // this project's Zen 4 machine). Anything else falls to the one-vector step.
        let end = done + 2 * L::N;
        if end <= cap {
            if let (Some(xa), Some(xb)) = (xs.get(done..done + L::N), xs.get(done + L::N..end)) {
                let (x0, x1) = (l.load(xa), l.load(xb));
                let mut ok = l.below(x0, thr) & l.below(x1, thr);
                let (v0, v1) = (pieces(l, &b, x0), pieces(l, &b, x1));
                let (mut u0, mut u1) = ([zero; K], [zero; K]);
                for j in 0..K {
                    let (p0, p1) = (l.prefix(v0[j], z), l.prefix(v1[j], z));
                    u0[j] = l.add(p0, t[j]);
                    u1[j] = l.add(p1, l.last(u0[j]));
                    ok &= l.inside(u0[j], q[j]) & l.inside(u1[j], q[j]);
                }
                if ok == L::FULL {
                    for (u, at) in [(&u0, done), (&u1, done + L::N)] {
                        let lo = convert_plain::<L, K>(l, head, &mid, u, 0);
                        let hi = if L::HALVES > 1 {
                            convert_plain::<L, K>(l, head, &mid, u, 1)
                        } else {
                            lo
                        };
                        if let Some(o) = out.get_mut(at..at + L::N) {
                            l.store(o, l.narrow(lo, hi));
                        }
                    }
                    for j in 0..K {
                        t[j] = l.last(u1[j]);
                    }
                    done = end;
                    continue;
                }
            }
        }
        let lanes = (cap - done).min(L::N);
        let (Some(xv), Some(ov)) = (xs.get(done..done + lanes), out.get_mut(done..done + lanes)) else {
            break;
        };
        let x = l.load(xv);
        let fits = l.below(x, thr);
        // Pass 1: the pieces.
        let mut v = pieces(l, &b, x);
        // Pass 2: their exact prefix sums, from the running remainders.
        let mut ok = fits;
        for j in 0..K {
            let u = l.add(l.prefix(v[j], z), t[j]);
            ok &= l.inside(u, q[j]);
            v[j] = u;
        }
        let y = if ok == L::FULL {
            // No carry moves: the remainders are the running totals.
            let lo = convert_plain::<L, K>(l, head, &mid, &v, 0);
            let hi = if L::HALVES > 1 {
                convert_plain::<L, K>(l, head, &mid, &v, 1)
            } else {
                lo
            };
            for j in 0..K {
                t[j] = l.last(v[j]);
            }
            l.narrow(lo, hi)
        } else if fits != L::FULL {
            // An element would raise the window: do the ones before it, then stop.
            let good = fits.trailing_ones() as usize;
            if good == 0 {
                break;
            }
            cap = done + good;
            continue;
        } else {
            // A remainder left [0, Q): split every lane (in f64, by halves for f32), then
            // move the carries.
            let mut vh = [w.splat(0.0); K];
            for j in 0..K {
                vh[j] = l.half(v[j], 0);
            }
            let (lo, mut rem, mut cr) = split_convert(w, &s, &vh, &car);
            let mut hi = lo;
            if L::HALVES > 1 {
                for j in 0..K {
                    vh[j] = l.half(v[j], 1);
                }
                (hi, rem, cr) = split_convert(w, &s, &vh, &car);
            }
            car = cr;
            for j in 0..K {
                t[j] = l.splat(rem[j]);
            }
            (head, mid) = carry_terms(w, &s.conv, &car);
            l.narrow(lo, hi)
        };
        l.store(ov, y);
        done += lanes;
    }
    for j in 0..K {
        p[j] = T::from_f64_round(s.b[j] + l.first(t[j]));
        c[j] = T::from_f64_round(car[j]);
    }
    m.count += done as u64;
    done
}

/// The whole slice: on the fast kernel while the state allows it ([`fast_ok`]); the
/// element that stops it, and every chunk it cannot take, through [`chunk`].
#[inline(always)]
fn drive<T: Float, const K: usize, L: Lanes>(
    l: L,
    p: &mut [T; K],
    c: &mut [T; K],
    m: &mut Meta,
    xs: &[T],
    out: &mut [T],
) {
    let n = xs.len().min(out.len());
    let mut i = 0;
    while i < n {
        if fast_ok::<T, K>(p, m) {
            if m.pending > 0 {
                binned::renorm(&mut p[..], &mut c[..]);
                m.pending = 0;
            }
            i += fast::<T, K, L>(l, p, c, m, &xs[i..n], &mut out[i..n]);
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
