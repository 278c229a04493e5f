//! The NEON entry of the cumulative sum: the chunked passes, compiled for NEON.

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

/// The chunked passes for a fold read at run time, compiled for NEON.
///
/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn neon_dyn<T: Float>(p: &mut [T], c: &mut [T], m: &mut Meta, xs: &[T], out: &mut [T]) {
    chunks_dyn::<T>(p, c, m, xs, out)
}
