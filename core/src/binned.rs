//! The binned-state algorithms, written once over slices of primaries and carries.
//!
//! A K-fold state is K primaries `p` and K carries `c` (both slices of length K) plus
//! [`Meta`]: the value count, the special-value flags and the deposits since the last
//! renormalisation. Both accumulator forms (const-generic and run-time fold) keep their
//! arrays and call these functions, so they cannot drift apart.
//!
//! Every function here is exact where the format says it is exact: the only rounding in
//! the whole format is the per-slot rounding of a deposit (ties away from zero, through the
//! forced low bit) and the fixed-order conversion.

use crate::float::Float;
use crate::simd::Platform;
use crate::Error;

/// Largest fold of either type; the size of scratch arrays.
pub(crate) const FOLD_CAP: usize = 52;

/// A NaN was added.
pub(crate) const FLAG_NAN: u8 = 1;
/// A +Inf was added.
pub(crate) const FLAG_POS_INF: u8 = 2;
/// A -Inf was added.
pub(crate) const FLAG_NEG_INF: u8 = 4;
/// All flag bits.
pub(crate) const FLAG_ALL: u8 = FLAG_NAN | FLAG_POS_INF | FLAG_NEG_INF;

/// Everything of a state but its arrays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Meta {
    /// Values added (finite or not).
    pub count: u64,
    /// `FLAG_*` bits of the special values seen.
    pub flags: u8,
    /// Deposits into the primaries since the last renormalisation.
    pub pending: u32,
}

/// The flag a non-finite value sets.
#[inline(always)]
pub(crate) fn special_flag<T: Float>(x: T) -> u8 {
    let bits = x.bits();
    if bits & !T::SIGN_BIT > T::INF_BITS {
        FLAG_NAN
    } else if bits & T::SIGN_BIT == 0 {
        FLAG_POS_INF
    } else {
        FLAG_NEG_INF
    }
}

/// Raises the window so that it starts at bin `ix` or higher (ReproBLAS's update).
///
/// An empty state (p_0 = 0) takes the window starting at `ix`. Otherwise, if `ix` is above
/// the current top bin by `s`, every slot moves down by `s` (slots past the bottom are
/// dropped) and the top `min(s, K)` slots start fresh. The window never moves down.
#[inline]
pub(crate) fn update<T: Float>(p: &mut [T], c: &mut [T], ix: usize) {
    let k = p.len().min(c.len());
    let (p, c) = (&mut p[..k], &mut c[..k]);
    let Some(&p0) = p.first() else { return };
    let fresh = if p0.is_zero() {
        k
    } else {
        let top = T::window_index(p0);
        if ix >= top {
            return;
        }
        let s = top - ix;
        if s < k {
            // Every slot moves down by s: `copy_within(..k - s, s)` without its range
            // checks, which stay in the code where it is not inlined (an index loop kept
            // its bounds checks too), so that no panic path is left.
            let n = k - s;
            let (pp, cp) = (p.as_mut_ptr(), c.as_mut_ptr());
            // SAFETY: s < k and p.len() == c.len() == k, so the n = k - s elements from
            // index 0 and the n from index s lie within each slice; `ptr::copy` is a
            // memmove (the two ranges may overlap); both pointers come from one `&mut`.
            unsafe {
                core::ptr::copy(pp, pp.add(s), n);
                core::ptr::copy(cp, cp.add(s), n);
            }
        }
        s.min(k)
    };
    for (j, (pj, cj)) in p.iter_mut().zip(c.iter_mut()).take(fresh).enumerate() {
        *pj = T::bin(ix + j);
        *cj = T::ZERO;
    }
}

/// Deposits a finite `x` into the primaries `p` (ReproBLAS's deposit).
///
/// Slot by slot from the top, the slot takes `x` rounded to the nearest multiple of its
/// grid, ties away from zero, and passes the rest down; the last slot's rest is dropped.
/// The rounding comes from adding `x` with its lowest significand bit forced to 1 to a
/// primary that stays in one binade: a value with that bit set can never lie exactly
/// halfway between two multiples of the slot's grid, so the result is the same whatever
/// the primary held before. `top` says whether the window starts at bin 0, where slot 0
/// holds compressed values (times 2^-14 / 2^-12) so that it cannot overflow.
#[inline(always)]
pub(crate) fn deposit<T: Float>(p: &mut [T], mut x: T, top: bool) {
    let Some((last, rest)) = p.split_last_mut() else {
        return;
    };
    let mut rest = rest.iter_mut();
    if top {
        if let Some(p0) = rest.next() {
            (*p0, x) = deposit_top_slot(*p0, x);
        }
    }
    for pj in rest {
        (*pj, x) = deposit_slot(*pj, x);
    }
    *last = *last + x.or_low_bit();
}

/// One slot of [`deposit`] (not the last): the slot's new primary and the rest passed down.
#[inline(always)]
fn deposit_slot<T: Float>(m: T, x: T) -> (T, T) {
    let q = m + x.or_low_bit();
    (q, x + (m - q))
}

/// Slot 0 of a top window in [`deposit`], which holds compressed values: the slot's new
/// primary and the rest passed down.
#[inline(always)]
fn deposit_top_slot<T: Float>(m: T, mut x: T) -> (T, T) {
    let q = m + (x * T::pow2(T::COMPRESSION_EXP)).or_low_bit();
    // (m - q) * 2^14 could overflow for a value near the top of the range; the expansion
    // is applied as 2^13 added twice, as ReproBLAS does.
    let d = (m - q) * T::pow2(-T::COMPRESSION_EXP - 1);
    x = x + d;
    x = x + d;
    (q, x)
}

/// Renormalises every slot (carry propagation; ReproBLAS's renorm).
///
/// The two significand bits below the leading bit give the quarter q of the binade a
/// primary is in; q - 2 goes to the carry and the bits are set to "10", moving the primary
/// into [1.5, 1.75) * ufp without changing the slot's value. Does nothing to an empty state.
#[inline]
pub(crate) fn renorm<T: Float>(p: &mut [T], c: &mut [T]) {
    match p.first() {
        Some(p0) if !p0.is_zero() => {}
        _ => return,
    }
    for (pj, cj) in p.iter_mut().zip(c.iter_mut()) {
        renorm_slot(pj, cj);
    }
}

/// Adds one value to a state: special values set a flag; finite values raise the window
/// and are deposited. Refuses to pass the capacity.
#[inline]
pub(crate) fn add_one<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, x: T) -> Result<(), Error> {
    if m.count >= T::CAPACITY {
        return Err(Error::CapacityExceeded);
    }
    m.count += 1;
    if !x.finite() {
        m.flags |= special_flag(x);
        return Ok(());
    }
    update(p, c, x.index());
    if m.pending >= T::ENDURANCE {
        renorm(p, c);
        m.pending = 0;
    }
    let top = p.first().is_some_and(|&p0| T::window_index(p0) == 0);
    deposit(p, x, top);
    m.pending += 1;
    Ok(())
}

/// Independent copies of the window the block deposit keeps (for instruction-level
/// parallelism); they are merged exactly at the end of each block.
const LANES: usize = 4;

/// Adds a slice to a state, in blocks of up to `SUPERBLOCK_ENDURANCES` endurances.
///
/// While the window fits the values, a block goes in one pass: its values are deposited
/// into several copies of the window beside a running maximum of their magnitudes, and
/// the copies are merged exactly if the maximum shows that the window fits them all
/// ([`crate::simd::deposit_block_if_fits`]). Otherwise (an empty state, a value above the
/// window, a NaN or an Inf) the block takes two passes: its largest magnitude raises the
/// window once, then the values are deposited (or, with special values among them, added
/// one at a time). The state reached is the one of adding the values one at a time (the
/// deposit of a value does not depend on what a slot holds, nor on when the window rose).
pub(crate) fn add_slice<T: Float>(
    pf: Platform,
    p: &mut [T],
    c: &mut [T],
    m: &mut Meta,
    xs: &[T],
) -> Result<(), Error> {
    let k = p.len().min(c.len());
    let (p, c) = (&mut p[..k], &mut c[..k]);
    if xs.len() as u64 > T::CAPACITY - m.count.min(T::CAPACITY) {
        return Err(Error::CapacityExceeded);
    }
    let superblock = SUPERBLOCK_ENDURANCES * T::ENDURANCE as usize;
    // A slice larger than a core's L2 cache: the deposit also prefetches into L2.
    let far = core::mem::size_of_val(xs) > crate::simd::FAR_BYTES;
    // Whether the next block is tried in one pass: the window is set, and the last block
    // fitted it (or raised it).
    let mut fitted = p.first().is_some_and(|p0| !p0.is_zero());
    let mut rest = xs;
    while !rest.is_empty() {
        // A block that takes two passes because the window is not set (or special values
        // were just seen) is one endurance long, so that the one-pass blocks start soon.
        let len = if fitted { superblock } else { T::ENDURANCE as usize };
        let Some((block, tail)) = rest.split_at_checked(len.min(rest.len())) else {
            break;
        };
        rest = tail;
        if fitted {
            // The state is non-empty; renormalised first, as a block deposit needs.
            if m.pending > 0 {
                renorm(p, c);
                m.pending = 0;
            }
            let top = p.first().is_some_and(|&p0| T::window_index(p0) == 0);
            if crate::simd::deposit_block_if_fits(pf, p, c, top, far, block) {
                m.count += block.len() as u64;
                continue;
            }
        }
        // The largest magnitude, as bits: NaN and Inf sort above every finite value.
        let max_bits = crate::simd::max_abs_bits(pf, block);
        if max_bits >= T::INF_BITS {
            // A rare block with special values: one at a time.
            for &x in block {
                add_one(p, c, m, x)?;
            }
            fitted = false;
            continue;
        }
        m.count += block.len() as u64;
        update(p, c, T::from_bits_u64(max_bits).index());
        if m.pending > 0 {
            renorm(p, c);
            m.pending = 0;
        }
        let top = p.first().is_some_and(|&p0| T::window_index(p0) == 0);
        crate::simd::deposit_block(pf, p, c, top, far, block);
        // The window was raised for this block (if at all): the next is likely to fit.
        fitted = true;
    }
    Ok(())
}

/// Slices up to this many values take [`short_sum`]'s deposit one value at a time; longer
/// ones (up to one endurance) its block deposit (measured on the development machine, f64
/// at fold 3: 9 to 15 values took 46-61 ns one at a time and 63-67 ns through the block
/// deposit, whose group of 8 copies was then padded; 16 values 47 ns through it).
const SHORT_SCALAR: usize = 15;

/// The value of an empty state of fold `fold` after `add_slice(xs)`, computed without an
/// accumulator, or `None` (the caller takes the general path) for a fold out of range (or
/// above 8 on 32-bit targets), a slice longer than one endurance, or a non-finite value.
///
/// The same operations as that path (its first block: the largest magnitude raises the
/// window once, the values are deposited, the state is renormalised and converted), on a
/// window of `fold` slots on the stack rather than an accumulator's arrays of every fold:
/// a short group (one of the many short segments of a segmented sum) costs a fraction of
/// an accumulator's setup and conversion. Up to [`SHORT_SCALAR`] values are deposited one
/// at a time into the state itself (the state reached is that of the block deposit: see
/// [`add_slice`]).
pub(crate) fn short_sum<T: Float>(pf: Platform, fold: usize, xs: &[T]) -> Option<T> {
    if xs.len() > T::ENDURANCE as usize || !(2..=T::MAX_FOLD).contains(&fold) {
        return None;
    }
    match fold {
        2 => short_sum_k::<T, 2>(pf, 2, xs),
        3 => short_sum_k::<T, 3>(pf, 3, xs),
        4 => short_sum_k::<T, 4>(pf, 4, xs),
        5 => short_sum_k::<T, 5>(pf, 5, xs),
        6 => short_sum_k::<T, 6>(pf, 6, xs),
        7 => short_sum_k::<T, 7>(pf, 7, xs),
        8 => short_sum_k::<T, 8>(pf, 8, xs),
        // Not on 32-bit targets: a window of every fold on the stack beside the block
        // deposit's copies took the Cortex-M0 within 600 bytes of its 16 KiB.
        _ if cfg!(target_pointer_width = "64") => short_sum_k::<T, FOLD_CAP>(pf, fold, xs),
        _ => None,
    }
}

/// [`short_sum`] with a window of `k <= CAP` slots. Not inlined: the instances' windows
/// would all take stack at once (a Cortex-M0 has 16 KiB of RAM).
#[inline(never)]
fn short_sum_k<T: Float, const CAP: usize>(pf: Platform, k: usize, xs: &[T]) -> Option<T> {
    let mut p = [T::ZERO; CAP];
    let mut c = [T::ZERO; CAP];
    let (Some(p), Some(c)) = (p.get_mut(..k), c.get_mut(..k)) else {
        return None;
    };
    if xs.is_empty() {
        return Some(T::ZERO);
    }
    let max_bits = if xs.len() <= SHORT_SCALAR {
        T::max_abs_bits(xs)
    } else {
        crate::simd::max_abs_bits(pf, xs)
    };
    if max_bits >= T::INF_BITS {
        return None;
    }
    update(p, c, T::from_bits_u64(max_bits).index());
    let top = p.first().is_some_and(|&p0| T::window_index(p0) == 0);
    // Whole groups (of as many values as the block deposit keeps copies, so that it pads
    // none: a padded group cost about 17 ns) through the block deposit, the rest one at a
    // time.
    let (groups, rest) = if xs.len() <= SHORT_SCALAR {
        (&xs[..0], xs)
    } else {
        let g = crate::simd::copies(pf, xs.len()).max(1);
        xs.split_at_checked(xs.len() - xs.len() % g).unwrap_or((xs, &[]))
    };
    if !groups.is_empty() {
        crate::simd::deposit_block(pf, p, c, top, false, groups);
    }
    if let Ok(w) = <&mut [T; CAP]>::try_from(&mut *p) {
        let mut win = *w;
        for &x in rest {
            deposit_fixed(&mut win, x, top);
        }
        *w = win;
    } else {
        for &x in rest {
            deposit(p, x, top);
        }
    }
    renorm(p, c);
    Some(T::convert(p, c))
}

/// [`deposit`] into a window of a length known at compile time (folds 2 to 8): the same
/// operations in the same order, written over indices so that the slot loop unrolls and the
/// window stays in registers (through a slice, each slot was stored and loaded again for
/// every value: 3.7 ns a value against 2.3, f64 at fold 3 on the development machine).
#[inline(always)]
fn deposit_fixed<T: Float, const CAP: usize>(w: &mut [T; CAP], mut x: T, top: bool) {
    for (j, wj) in w.iter_mut().enumerate() {
        if j + 1 == CAP {
            *wj = *wj + x.or_low_bit();
        } else if top && j == 0 {
            (*wj, x) = deposit_top_slot(*wj, x);
        } else {
            (*wj, x) = deposit_slot(*wj, x);
        }
    }
}

/// A block of `add_slice` holds this many endurances of values: the window is raised once
/// per block, and each of the (at most this many) copies of the window in a block deposit
/// takes at most one endurance of values.
pub(crate) const SUPERBLOCK_ENDURANCES: usize = 16;

/// Renormalises one slot (see [`renorm`]).
#[inline(always)]
pub(crate) fn renorm_slot<T: Float>(p: &mut T, c: &mut T) {
    let shift = T::MANT_BITS - 2;
    let bits = p.bits();
    let q = ((bits >> shift) & 3) as i32;
    *c = *c + T::from_i32(q - 2);
    *p = T::from_bits_u64((bits & !(3u64 << shift)) | (2u64 << shift));
}

/// Deposits a block of finite values (at most `SUPERBLOCK_ENDURANCES` endurances; the state
/// renormalised) one value at a time through `LANES` copies of the window, one endurance at
/// a time, and leaves the state renormalised. The path for folds the vector kernels do not
/// specialise, and [`crate::simd::Path::Scalar`].
pub(crate) fn deposit_block_scalar<T: Float>(p: &mut [T], c: &mut [T], top: bool, block: &[T]) {
    for part in block.chunks(T::ENDURANCE as usize) {
        deposit_endurance(p, top, part);
        renorm(p, c);
    }
}

/// Deposits at most one endurance of values into `p` through `LANES` copies.
fn deposit_endurance<T: Float>(p: &mut [T], top: bool, block: &[T]) {
    let k = p.len().min(FOLD_CAP);
    let p = &mut p[..k];
    let mut start = [T::ZERO; FOLD_CAP];
    start[..k].copy_from_slice(p);
    let mut lanes = [start; LANES];
    let mut groups = block.chunks_exact(LANES);
    for g in &mut groups {
        for (lane, &x) in lanes.iter_mut().zip(g) {
            deposit(&mut lane[..k], x, top);
        }
    }
    for &x in groups.remainder() {
        deposit(&mut lanes[0][..k], x, top);
    }
    // Each lane holds start + (its exact deposits); every difference and sum is exact.
    for (j, pj) in p.iter_mut().enumerate() {
        let mut v = lanes[0][j];
        for lane in &lanes[1..] {
            v = v + (lane[j] - start[j]);
        }
        *pj = v;
    }
}

/// Merges the state `(p2, c2, m2)` into `(p, c, m)`. Both are renormalised first, the
/// lower window is aligned to the higher one, remainders and carries add exactly, and the
/// result is renormalised. Refuses to pass the capacity (nothing is changed then).
pub(crate) fn merge<T: Float>(
    p: &mut [T],
    c: &mut [T],
    m: &mut Meta,
    p2: &[T],
    c2: &[T],
    m2: &Meta,
) -> Result<(), Error> {
    let k = p.len().min(c.len()).min(p2.len()).min(c2.len()).min(FOLD_CAP);
    if m.count > T::CAPACITY || m2.count > T::CAPACITY - m.count {
        return Err(Error::CapacityExceeded);
    }
    let (p, c) = (&mut p[..k], &mut c[..k]);
    let mut q = [T::ZERO; FOLD_CAP];
    let mut d = [T::ZERO; FOLD_CAP];
    q[..k].copy_from_slice(&p2[..k]);
    d[..k].copy_from_slice(&c2[..k]);
    let (q, d) = (&mut q[..k], &mut d[..k]);
    m.count += m2.count;
    m.flags |= m2.flags;
    renorm(p, c);
    renorm(q, d);
    m.pending = 0;
    let (Some(&a0), Some(&b0)) = (p.first(), q.first()) else {
        return Ok(());
    };
    if b0.is_zero() {
        return Ok(());
    }
    if a0.is_zero() {
        p.copy_from_slice(q);
        c.copy_from_slice(d);
        return Ok(());
    }
    let xa = T::window_index(a0);
    let xb = T::window_index(b0);
    // Slot j of the higher window takes slot j - s of the lower one (s the difference of
    // their top bins), for j >= s; the lower window's slots past the bottom are dropped.
    // Zipped iterators, so that no index can be out of bounds: `skip(s)` starts at slot s
    // of the higher window, and slot i = j - s of the lower one is beside it.
    if xb < xa {
        // The other operand's window is higher: it becomes the base (in q, d), then the
        // state.
        let s = xa - xb;
        for (i, ((qj, dj), (&pi, &ci))) in q
            .iter_mut()
            .zip(d.iter_mut())
            .skip(s)
            .zip(p.iter().zip(c.iter()))
            .enumerate()
        {
            *qj = *qj + (pi - T::bin(xa + i));
            *dj = *dj + ci;
        }
        p.copy_from_slice(q);
        c.copy_from_slice(d);
    } else {
        let s = xb - xa;
        for (i, ((pj, cj), (&qi, &di))) in p
            .iter_mut()
            .zip(c.iter_mut())
            .skip(s)
            .zip(q.iter().zip(d.iter()))
            .enumerate()
        {
            *pj = *pj + (qi - T::bin(xb + i));
            *cj = *cj + di;
        }
    }
    renorm(p, c);
    Ok(())
}

/// The float a state stands for: the NaN / Inf rule first, then the conversion of a
/// renormalised copy.
///
/// Any NaN, or +Inf with -Inf, gives the canonical NaN; one sign of Inf gives that Inf;
/// otherwise the finite state is converted (overflowing to +-Inf, never NaN).
pub(crate) fn value<T: Float>(p: &[T], c: &[T], m: &Meta) -> T {
    if m.flags & FLAG_NAN != 0 || m.flags & (FLAG_POS_INF | FLAG_NEG_INF) == FLAG_POS_INF | FLAG_NEG_INF {
        return T::NAN;
    }
    if m.flags & FLAG_POS_INF != 0 {
        return T::INFINITY;
    }
    if m.flags & FLAG_NEG_INF != 0 {
        return T::NEG_INFINITY;
    }
    let k = p.len().min(c.len()).min(FOLD_CAP);
    match p.first() {
        Some(p0) if !p0.is_zero() => {}
        _ => return T::ZERO,
    }
    if k <= 8 {
        converted::<T, 8>(&p[..k], &c[..k])
    } else {
        converted::<T, FOLD_CAP>(&p[..k], &c[..k])
    }
}

/// The conversion of a renormalised copy of `(p, c)` (at most `N` slots). Arrays of 8 slots
/// for folds up to 8 rather than the largest fold's 52: zeroing those was about 10 ns of a
/// fold-3 accumulator's `new`, `add_slice` of 32 values and `value` (85 against 75 ns, f64,
/// docs/PERFORMANCE.md). Not inlined, so that the two sizes' arrays never share a frame.
#[inline(never)]
fn converted<T: Float, const N: usize>(p: &[T], c: &[T]) -> T {
    let mut q = [T::ZERO; N];
    let mut d = [T::ZERO; N];
    let k = p.len().min(c.len()).min(N);
    q[..k].copy_from_slice(&p[..k]);
    d[..k].copy_from_slice(&c[..k]);
    renorm(&mut q[..k], &mut d[..k]);
    T::convert(&q[..k], &d[..k])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DynAccumulator;

    /// xorshift64 values: `kind` 0 mixed signs over 24 binades, 1 the top window, 2 the
    /// bottom bins (subnormals among them), 3 zeros of both signs, 4 values equal but for
    /// their signs, 5 one Inf among them, 6 a NaN.
    fn values<T: Float>(kind: u64, n: usize, seed: u64) -> [T; 2100] {
        let mut s = seed | 1;
        let mut out = [T::ZERO; 2100];
        for (i, o) in out.iter_mut().enumerate().take(n) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let m = (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            let big = if T::BYTES == 8 { f64::MAX } else { f32::MAX as f64 };
            let tiny = if T::BYTES == 8 { 1e-300 } else { 1e-38 };
            let v = match kind {
                1 => m * big,
                2 => m * tiny * 2f64.powi(-((s % 40) as i32)),
                3 => 0.0 * m,
                4 => 0.75f64.copysign(m),
                5 if i == n / 2 => f64::INFINITY,
                6 if i == n / 3 => f64::NAN,
                _ => m * 2f64.powi((s % 24) as i32 - 12),
            };
            *o = T::from_f64_round(v);
        }
        out
    }

    /// `short_sum` against an accumulator given the same slice, by bits; `None` only for
    /// slices with special values or longer than an endurance.
    fn check<T: Float>(pf: Platform, fold: usize, xs: &[T]) {
        let mut a = DynAccumulator::<T>::new(fold).unwrap();
        a.add_slice_on(pf, xs).unwrap();
        let want = a.value();
        match short_sum(pf, fold, xs) {
            Some(v) => assert_eq!(
                v.bits(),
                want.bits(),
                "{} fold {fold}, {} values on {}",
                T::BYTES,
                xs.len(),
                pf.path().name()
            ),
            None => assert!(
                xs.len() > T::ENDURANCE as usize || xs.iter().any(|x| !x.finite()),
                "refused {} values",
                xs.len()
            ),
        }
    }

    fn short_sums_are_the_accumulators<T: Float>() {
        let e = T::ENDURANCE as usize;
        let lens = (0..=40).chain([63, 64, 65, 255, 256, 257, e, e + 1]);
        for pf in Platform::all().into_iter().flatten() {
            for fold in 2..=T::MAX_FOLD {
                for (i, n) in lens.clone().enumerate() {
                    for kind in 0..7 {
                        let xs = values::<T>(kind, n, (i as u64) << 8 | kind);
                        check(pf, fold, &xs[..n]);
                    }
                }
            }
        }
        // Past an endurance, and folds out of range: left to the general path.
        let xs = [T::ZERO; 2100];
        let pf = Platform::current();
        assert!(short_sum(pf, 3, &xs[..e]).is_some());
        assert!(short_sum(pf, 3, &xs[..e + 1]).is_none());
        assert!(short_sum(pf, 1, &xs[..3]).is_none());
        assert!(short_sum(pf, T::MAX_FOLD + 1, &xs[..3]).is_none());
    }

    #[test]
    fn short_sums_are_the_accumulators_f64() {
        short_sums_are_the_accumulators::<f64>();
    }

    #[test]
    fn short_sums_are_the_accumulators_f32() {
        short_sums_are_the_accumulators::<f32>();
    }
}
