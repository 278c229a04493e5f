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
//! at a time (two side by side while nothing stops them: the same operations per
//! element): one kernel (`x86::fast`), written over a small trait of lane operations and
//! instantiated for f64 and f32 lanes on each instruction set. It mostly skips the
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
//! conversion is done in f64. The other paths (portable, and NEON, which has no scan
//! kernel of its own: the chunked passes compiled with NEON enabled) run the three passes
//! over chunks.
//!
//! Folds 2 to 8 (2 to 4 on 32-bit targets, whose stacks are small) take these kernels, an
//! instance per fold. On 64-bit targets every bigger fold (9 to 52 for f64, 9 to 21 for
//! f32) shares one instance of the chunked passes with the fold read at run time
//! (`chunks_dyn`, compiled for the portable path and inside the AVX-512, AVX2 and NEON
//! entries): it runs the three passes slot by slot, each slot adding its two terms of the
//! conversion to every element's running conversion in the conversion's order, so its
//! scratch arrays are four chunks (about 4 KiB) whatever the fold. On 32-bit targets the
//! folds above 4 go one element at a time ([`one_by_one`]).

// The passes index [slot][element] arrays by both numbers on purpose.
#![allow(clippy::needless_range_loop)]

#[cfg(target_arch = "aarch64")]
mod arm;
mod chunks;
mod convert;
#[cfg(test)]
mod tests;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::binned::{self, Meta, FOLD_CAP};
use crate::float::Float;
use crate::simd::Platform;
use chunks::{chunks, chunks_dyn};
use convert::{split, Conversion, DynConversion};

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
        // Every bigger fold (9 to 52) on 64-bit targets: one instance, the fold read at
        // run time; on 32-bit targets one element at a time.
        k if WIDE && k <= FOLD_CAP && c.len() == k => running_dyn(pf, p, c, m, xs, out),
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

// Not inlined, as `running_k`.
#[inline(never)]
fn running_dyn<T: Float>(pf: Platform, p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
    match pf.path() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Platform` of this path is made only after checking that the CPU
        // supports it (`Platform::new`, `Platform::detected`).
        crate::simd::Path::Avx512 => unsafe { x86::avx512_dyn::<T>(p, c, m, xs, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX2.
        crate::simd::Path::Avx2 => unsafe { x86::avx2_dyn::<T>(p, c, m, xs, out) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above, for NEON.
        crate::simd::Path::Neon => unsafe { arm::neon_dyn::<T>(p, c, m, xs, out) },
        crate::simd::Path::Scalar => one_by_one(p, c, m, xs, out),
        _ => chunks_dyn::<T>(p, c, m, xs, out),
    }
}
