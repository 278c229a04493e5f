//! The three passes over a chunk (see the parent module's notes): the path of every
//! target, and of the elements the fast kernels leave.

// The passes index [slot][element] arrays by both numbers on purpose.
#![allow(clippy::needless_range_loop)]

use super::*;

/// The paths without a fast kernel: chunk by chunk.
#[inline(always)]
pub(super) fn chunks<T: Float, const K: usize>(
    p: &mut [T; K],
    c: &mut [T; K],
    m: &mut Meta,
    xs: &[T],
    out: &mut [T],
) {
    for (xc, oc) in xs.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        chunk::<T, K>(p, c, m, xc, oc);
    }
}

/// The smallest magnitude (as `bits & !SIGN_BIT`) that would raise a window whose top bin
/// is `top`, or 0 when any value might (an empty state, or the bottom bins where the index
/// of subnormals is not a function of the exponent field alone). NaN and Inf are always at
/// or above it.
#[inline(always)]
pub(super) fn raise_threshold<T: Float>(p0: T) -> u64 {
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
pub(super) fn chunk<T: Float, const K: usize>(
    p: &mut [T; K],
    c: &mut [T; K],
    m: &mut Meta,
    xs: &[T],
    out: &mut [T],
) {
    chunk_by::<T, Fixed<K>>(&mut p[..], &mut c[..], m, xs, out);
}

/// The run kernel that [`chunk_by`] calls: a type, not a closure, so that it is inlined
/// (and compiled with the caller's target features: a closure or function item may be
/// called through a shim compiled for the baseline).
trait Segment {
    fn run<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]);
}

/// [`segment`] for the fold `K`.
struct Fixed<const K: usize>;
impl<const K: usize> Segment for Fixed<K> {
    #[inline(always)]
    fn run<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
        // The slices are the caller's arrays, of length K (never fails).
        if let (Ok(p), Ok(c)) = (<&mut [T; K]>::try_from(p), <&mut [T; K]>::try_from(c)) {
            segment::<T, K>(p, c, m, xs, out);
        }
    }
}

/// [`segment_dyn`], the fold read at run time.
struct Dyn;
impl Segment for Dyn {
    #[inline(always)]
    fn run<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
        segment_dyn::<T>(p, c, m, xs, out);
    }
}

/// One chunk of a state of any fold (the big folds, read at run time).
#[inline(always)]
pub(super) fn chunk_dyn<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
    chunk_by::<T, Dyn>(p, c, m, xs, out);
}

/// The paths without a fast kernel, for a fold read at run time: chunk by chunk.
#[inline(always)]
pub(super) fn chunks_dyn<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
    for (xc, oc) in xs.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        chunk_dyn::<T>(p, c, m, xc, oc);
    }
}

/// One chunk, its runs that keep the window through `segment`, the other elements one at
/// a time.
#[inline(always)]
fn chunk_by<T: Float, S: Segment>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
    let n = xs.len().min(out.len());
    // The rest of the chunk, as slices that shrink from the front (no index to check).
    let (mut xs, mut out) = (&xs[..n], &mut out[..n]);
    while !xs.is_empty() {
        let Some(&p0) = p.first() else { break };
        let threshold = raise_threshold(p0);
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
                binned::renorm(p, c);
                m.pending = 0;
            }
            S::run(p, c, m, seg_x, seg_o);
        }
        (xs, out) = (rest_x, rest_o);
        if let (Some((&x, rest_x)), Some((o, rest_o))) =
            (xs.split_first(), core::mem::take(&mut out).split_first_mut())
        {
            // An element that may raise the window, or a special value: on its own.
            let _ = binned::add_one(p, c, m, x);
            *o = binned::value(p, c, m);
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

/// Rows of the transposed scratch arrays of [`segment_dyn`]: element `i` of a chunk is at
/// row `i % ROWS`, column `i / ROWS` (8 columns).
const ROWS: usize = CHUNK / 8;

/// [`segment`] for a fold read at run time (any fold up to the state's length), slot by
/// slot so that the scratch arrays do not grow with the fold: for each slot in turn, the
/// pieces of every element (from what the slots above left of it, kept in `rest`), their
/// exact prefix sums, the split into remainder and carry, and the slot's two terms of the
/// conversion added to every element's running conversion `y`. The conversion's terms
/// come in the order C_0, (C_j, P_{j-1}) for j = 1..K-1, P_{K-1}: slot j adds its carry
/// term and the remainder term of slot j - 1 (kept in `prev`), so every element sees the
/// same operations in the same order as [`Conversion::apply`], and gets the same bits.
///
/// The scratch arrays hold the chunk transposed (8 columns of `ROWS` consecutive
/// elements), so that the prefix sums are sums down the columns, 8 lanes at once, plus
/// one offset per column; the elements past the segment are zeros, which give zero pieces.
#[inline(always)]
fn segment_dyn<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
    let k = p.len().min(c.len());
    let n = xs.len().min(out.len()).min(CHUNK);
    let Some(&p0) = p.first() else { return };
    if n == 0 {
        return;
    }
    let w = T::window_index(p0);
    let top = w == 0;
    let conv = DynConversion::new::<T>(w, k);
    let compress = T::pow2(T::COMPRESSION_EXP);
    let half_expand = T::pow2(-T::COMPRESSION_EXP - 1);

    // What each element has left for the slots not done yet.
    // (Flat arrays, element `i` at `at(i)`: the element-wise passes run over them in
    // order, as plain loops.)
    let at = |i: usize| (i % ROWS) * 8 + i / ROWS;
    let mut rest = [T::ZERO; CHUNK];
    for (i, &x) in (0..CHUNK).zip(xs[..n].iter()) {
        if let Some(r) = rest.get_mut(at(i)) {
            *r = x;
        }
    }
    // The current slot's pieces, then their running sums.
    let mut piece = [0.0f64; CHUNK];
    // The previous slot's remainders (the term that follows this slot's carry term).
    let mut prev = [0.0f64; CHUNK];
    // Every element's conversion so far.
    let mut y = [0.0f64; CHUNK];
    let mut fp_prev = 1.0;
    for (j, (pj, cj)) in p.iter_mut().zip(c.iter_mut()).enumerate() {
        let b = T::bin(w + j);
        // Pass 1: the slot's piece of every element.
        if top && j == 0 {
            for (r, pc) in rest.iter_mut().zip(piece.iter_mut()) {
                let q = b + (*r * compress).or_low_bit();
                let d = b - q; // minus the piece, exactly
                *pc = -d.to_f64();
                let e = d * half_expand;
                *r = *r + e;
                *r = *r + e;
            }
        } else {
            for (r, pc) in rest.iter_mut().zip(piece.iter_mut()) {
                let q = b + r.or_low_bit();
                let d = b - q;
                *pc = -d.to_f64();
                *r = *r + d;
            }
        }

        // Pass 2: exact running sums down each column, then each column's offset (the
        // slot's remainder plus the columns before it). Every sum is exact, so the
        // grouping does not matter.
        // (Both loops carry a vector from row to row, so they run 8 lanes a row, not
        // gathered across rows.)
        let mut acc = [0.0f64; 8];
        for row in piece.chunks_exact(8) {
            if let Ok(row) = <&[f64; 8]>::try_from(row) {
                acc = add8(acc, *row);
            }
        }
        let mut total = (*pj - b).to_f64();
        let mut off = [0.0f64; 8];
        for (o, &a) in off.iter_mut().zip(acc.iter()) {
            *o = total;
            total += a;
        }
        for row in piece.chunks_exact_mut(8) {
            if let Ok(row) = <&mut [f64; 8]>::try_from(row) {
                off = add8(off, *row);
                *row = off;
            }
        }

        // Pass 3: remainder and carry of every element, and the slot's conversion terms.
        let (q, inv_q, fc, fp) = conv.slot::<T>(j);
        let c0 = cj.to_f64();
        let (mc, mp) = if j == 0 {
            (1.0, 1.0)
        } else {
            (conv.mul(2 * j - 1), conv.mul(2 * j))
        };
        let coef = (q, inv_q, c0, fc, mc, mp, fp_prev);
        if j == 0 {
            terms::<0>(&piece, &mut y, &mut prev, coef);
        } else if mc == 1.0 && mp == 1.0 && fp_prev == 1.0 {
            terms::<1>(&piece, &mut y, &mut prev, coef);
        } else {
            terms::<2>(&piece, &mut y, &mut prev, coef);
        }
        fp_prev = fp;

        // The slot after the last element, renormalised (`total` is its exact total: the
        // elements past it gave zeros).
        let (rem, r) = split(total, q, inv_q);
        *pj = b + T::from_f64_round(rem);
        *cj = T::from_f64_round(c0 + r);
    }

    if m.flags != 0 {
        // A NaN or Inf came earlier: every running value is the special one.
        let zeros = [T::ZERO; FOLD_CAP];
        let z = &zeros[..k.min(FOLD_CAP)];
        let v = binned::value(z, z, m);
        out[..n].iter_mut().for_each(|o| *o = v);
    } else {
        // The last term, P_{K-1}.
        let (ml, last) = (conv.mul(2 * k - 1), conv.last_mul());
        let plain = ml == 1.0 && last == 1.0 && fp_prev == 1.0;
        for (i, o) in (0..CHUNK).zip(out[..n].iter_mut()) {
            let (Some(&yi), Some(&pv)) = (y.get(at(i)), prev.get(at(i))) else {
                continue;
            };
            let v = if plain {
                yi + pv
            } else {
                (yi * ml + pv * fp_prev) * last
            };
            *o = T::from_f64_round(v);
        }
    }
    m.count += n as u64;
}

/// Pass 3 of [`segment_dyn`] for one slot: every element's remainder (into `prev`, after
/// its previous content, the slot above's remainder, is added) and carry, and the slot's
/// terms added to `y` (`MODE` 0: the first slot, `0 + C_0`; 1: no scaling, `+ C_j`,
/// `+ P_{j-1}`; 2: with the scalings of [`Conversion::apply`]). `coef`: Q, 1 / Q, the
/// slot's carry, its carry coefficient, the two multipliers and the coefficient of the
/// slot above's remainder.
#[inline(always)]
fn terms<const MODE: u8>(
    piece: &[f64; CHUNK],
    y: &mut [f64; CHUNK],
    prev: &mut [f64; CHUNK],
    coef: (f64, f64, f64, f64, f64, f64, f64),
) {
    let (q, inv_q, c0, fc, mc, mp, fp_prev) = coef;
    for (&t, (yi, pv)) in piece.iter().zip(y.iter_mut().zip(prev.iter_mut())) {
        let (rem, cy) = split(t, q, inv_q);
        let cr = (c0 + cy) * fc;
        *yi = match MODE {
            0 => 0.0 + cr,
            1 => (*yi + cr) + *pv,
            _ => (*yi * mc + cr) * mp + *pv * fp_prev,
        };
        *pv = rem;
    }
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
