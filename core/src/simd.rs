//! Fast deposit of a block of finite values into a fixed window: many independent copies
//! of the window (vector lanes times unrolled registers), merged exactly at the end.
//!
//! One kernel (`lanes`) is written over fixed-size arrays so that it vectorises; it is
//! compiled once per instruction set (`#[target_feature]` functions for AVX2 and AVX-512
//! on x86-64, NEON on aarch64) and once for the target's baseline (the portable path).
//! Every path computes exactly the same state: each slot's piece of a value does not
//! depend on what the slot already holds, every add into a primary is exact within one
//! endurance, and the copies are merged by exact differences.
//!
//! Which path runs is a process-wide setting: on first use, the fastest path the CPU
//! supports ([`detect`]: `cpuid` on x86-64, no `std` needed; on other targets what the
//! compile-time target features say, with no probing at all); [`select`] changes it
//! (tests and benchmarks run every path this way). Every path gives the same bits.

use core::sync::atomic::{AtomicU8, Ordering};

use crate::float::Float;

/// An implementation of the block deposit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Path {
    /// Plain Rust for the target's baseline instruction set (autovectorised where it can).
    Portable,
    /// x86-64 AVX2 (256-bit vectors).
    Avx2,
    /// x86-64 AVX-512F (512-bit vectors).
    Avx512,
    /// aarch64 NEON (128-bit vectors).
    Neon,
    /// The scalar deposit with a few independent copies (no vector lanes): the path
    /// before any of the above existed, kept as a second opinion for the tests.
    Scalar,
}

impl Path {
    /// Every path, in order.
    pub const ALL: [Path; 5] = [Path::Portable, Path::Avx2, Path::Avx512, Path::Neon, Path::Scalar];

    fn code(self) -> u8 {
        match self {
            Path::Portable => 0,
            Path::Avx2 => 1,
            Path::Avx512 => 2,
            Path::Neon => 3,
            Path::Scalar => 4,
        }
    }

    fn from_code(c: u8) -> Path {
        match c {
            1 => Path::Avx2,
            2 => Path::Avx512,
            3 => Path::Neon,
            4 => Path::Scalar,
            _ => Path::Portable,
        }
    }

    /// Whether the path was built into this target (it may still need CPU support).
    pub const fn compiled(self) -> bool {
        match self {
            Path::Portable | Path::Scalar => true,
            Path::Avx2 | Path::Avx512 => cfg!(target_arch = "x86_64"),
            Path::Neon => cfg!(target_arch = "aarch64"),
        }
    }

    /// The path's name.
    pub const fn name(self) -> &'static str {
        match self {
            Path::Portable => "portable",
            Path::Avx2 => "avx2",
            Path::Avx512 => "avx512",
            Path::Neon => "neon",
            Path::Scalar => "scalar",
        }
    }
}

static PATH: AtomicU8 = AtomicU8::new(u8::MAX);

/// Whether this CPU (and its operating system, which must save the vector registers)
/// can run a path. Run-time detection without `std`: `cpuid` and `xgetbv` on x86-64; on
/// other targets, what the compile-time features say.
pub fn supported(p: Path) -> bool {
    match p {
        Path::Portable | Path::Scalar => true,
        #[cfg(target_arch = "x86_64")]
        Path::Avx2 => x86_cpu().0,
        #[cfg(target_arch = "x86_64")]
        Path::Avx512 => x86_cpu().1,
        #[cfg(target_arch = "aarch64")]
        Path::Neon => cfg!(target_feature = "neon"),
        #[allow(unreachable_patterns)]
        _ => false,
    }
}

/// (AVX2 usable, AVX-512F usable) on this x86-64 CPU and OS.
#[cfg(target_arch = "x86_64")]
fn x86_cpu() -> (bool, bool) {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    if cfg!(miri) {
        // Miri cannot execute cpuid or xgetbv (nor the vector kernels): the portable path.
        return (false, false);
    }
    // Every x86-64 CPU has cpuid; leaf 0 gives the highest leaf.
    let max_leaf = __cpuid(0).eax;
    if max_leaf < 7 {
        return (false, false);
    }
    let (l1, l7) = (__cpuid(1), __cpuid_count(7, 0));
    let osxsave = l1.ecx & (1 << 27) != 0;
    let avx = l1.ecx & (1 << 28) != 0;
    if !(osxsave && avx) {
        return (false, false);
    }
    let (lo, hi): (u32, u32);
    // SAFETY: OSXSAVE is set (checked above), so xgetbv is enabled; XCR0 is index 0.
    unsafe {
        core::arch::asm!("xgetbv", in("ecx") 0u32, out("eax") lo, out("edx") hi, options(nomem, nostack, preserves_flags));
    }
    let xcr0 = ((hi as u64) << 32) | lo as u64;
    let ymm = xcr0 & 0x6 == 0x6;
    let zmm = xcr0 & 0xE6 == 0xE6;
    let avx2 = ymm && l7.ebx & (1 << 5) != 0;
    let avx512f = zmm && l7.ebx & (1 << 16) != 0;
    (avx2, avx512f)
}

/// The fastest path this CPU supports (run-time detection, no `std` needed).
pub fn detect() -> Path {
    [Path::Avx512, Path::Avx2, Path::Neon]
        .into_iter()
        .find(|&p| supported(p))
        .unwrap_or(Path::Portable)
}

/// The path block deposits use now: the one selected, or else the fastest this CPU
/// supports (detected on first use).
#[inline]
pub fn path() -> Path {
    match PATH.load(Ordering::Relaxed) {
        u8::MAX => {
            let p = detect();
            remember(p)
        }
        c => Path::from_code(c),
    }
}

/// Stores the detected path unless a path was selected meanwhile; returns the path now in
/// force.
#[cfg(target_has_atomic = "8")]
#[inline]
fn remember(p: Path) -> Path {
    let _ = PATH.compare_exchange(u8::MAX, p.code(), Ordering::Relaxed, Ordering::Relaxed);
    Path::from_code(PATH.load(Ordering::Relaxed))
}

/// Stores the detected path. Targets without atomic compare-and-swap (Cortex-M0,
/// riscv32imc) have only atomic loads and stores: a [`select`] between the caller's load and
/// this store (from an interrupt handler) would be overwritten. It cannot change a result
/// (every path gives the same bits), and on these targets [`detect`] finds only
/// [`Path::Portable`] anyway.
#[cfg(not(target_has_atomic = "8"))]
#[inline]
fn remember(p: Path) -> Path {
    PATH.store(p.code(), Ordering::Relaxed);
    p
}

/// Selects a path for every later deposit in the process, if this CPU supports it (every
/// path gives the same bits; this is for tests and benchmarks).
///
/// # Errors
/// Returns the path back, changing nothing, if this CPU cannot run it.
pub fn select(p: Path) -> Result<(), Path> {
    if !p.compiled() || !supported(p) {
        return Err(p);
    }
    PATH.store(p.code(), Ordering::Relaxed);
    Ok(())
}

/// The largest `bits & !SIGN_BIT` of a block (see `Format::max_abs_bits`).
#[inline]
pub(crate) fn max_abs_bits<T: Float>(block: &[T]) -> u64 {
    match path() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a path is stored only by `select` (checked against the CPU) or `path`
        // (detected on this CPU).
        Path::Avx512 => unsafe { x86::max_avx512(block) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX2.
        Path::Avx2 => unsafe { x86::max_avx2(block) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above, for NEON.
        Path::Neon => unsafe { arm::max_neon(block) },
        _ => T::max_abs_bits(block),
    }
}

/// Deposits `block` (finite values, at most `SUPERBLOCK_ENDURANCES` endurances) into the
/// renormalised state `(p, c)` whose window fits every value; leaves it renormalised.
#[inline]
pub(crate) fn deposit_block<T: Float>(p: &mut [T], c: &mut [T], top: bool, block: &[T]) {
    match p.len() {
        2 => {
            with_k::<T, 2, false>(p, c, top, block);
        }
        3 => {
            with_k::<T, 3, false>(p, c, top, block);
        }
        4 => {
            with_k::<T, 4, false>(p, c, top, block);
        }
        _ => crate::binned::deposit_block_scalar(p, c, top, block),
    }
}

/// Deposits `block` (any values, at most `SUPERBLOCK_ENDURANCES` endurances) into the
/// renormalised, non-empty state `(p, c)` in one pass, if its window fits every value:
/// the deposit runs on copies of the window beside a running [`max_abs_bits`], and the
/// copies are kept only if the maximum shows that every value was finite and that the
/// window would not have risen (then they are exactly what [`deposit_block`] gives).
/// Returns whether the block was deposited; if not, the state is unchanged (so is it for
/// folds and paths without a vector kernel, which always return `false`).
#[inline]
pub(crate) fn deposit_block_if_fits<T: Float>(p: &mut [T], c: &mut [T], top: bool, block: &[T]) -> bool {
    match p.len() {
        2 => with_k::<T, 2, true>(p, c, top, block),
        3 => with_k::<T, 3, true>(p, c, top, block),
        4 => with_k::<T, 4, true>(p, c, top, block),
        _ => false,
    }
}

#[inline]
fn with_k<T: Float, const K: usize, const SPEC: bool>(
    p: &mut [T],
    c: &mut [T],
    top: bool,
    block: &[T],
) -> bool {
    let (Ok(w), Ok(cw)) = (<&mut [T; K]>::try_from(&mut *p), <&mut [T; K]>::try_from(&mut *c)) else {
        if SPEC {
            return false;
        }
        crate::binned::deposit_block_scalar(p, c, top, block);
        return true;
    };
    match path() {
        Path::Scalar => {
            if SPEC {
                return false;
            }
            crate::binned::deposit_block_scalar(&mut w[..], &mut cw[..], top, block);
            true
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a path is stored only by `select` (checked against the CPU) or `path`
        // (detected on this CPU).
        Path::Avx512 => unsafe { x86::avx512::<T, K, SPEC>(w, cw, top, block) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX2.
        Path::Avx2 => unsafe { x86::avx2::<T, K, SPEC>(w, cw, top, block) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above, for NEON.
        Path::Neon => unsafe { arm::neon::<T, K, SPEC>(w, cw, top, block) },
        _ => lanes::<T, K, 16, SPEC>(w, cw, top, block),
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;

    /// # Safety
    /// The CPU must support AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn avx512<T: Float, const K: usize, const SPEC: bool>(
        p: &mut [T; K],
        c: &mut [T; K],
        top: bool,
        block: &[T],
    ) -> bool {
        // 32 copies: four 512-bit registers per slot for f64, two for f32 (measured
        // faster than four for f32).
        lanes::<T, K, 32, SPEC>(p, c, top, block)
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn avx2<T: Float, const K: usize, const SPEC: bool>(
        p: &mut [T; K],
        c: &mut [T; K],
        top: bool,
        block: &[T],
    ) -> bool {
        // 16 copies: four 256-bit registers per slot for f64, two for f32.
        lanes::<T, K, 16, SPEC>(p, c, top, block)
    }

    /// # Safety
    /// The CPU must support AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn max_avx512<T: Float>(block: &[T]) -> u64 {
        T::max_abs_bits(block)
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn max_avx2<T: Float>(block: &[T]) -> u64 {
        T::max_abs_bits(block)
    }
}

#[cfg(target_arch = "aarch64")]
mod arm {
    use super::*;

    /// # Safety
    /// The CPU must support NEON.
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn neon<T: Float, const K: usize, const SPEC: bool>(
        p: &mut [T; K],
        c: &mut [T; K],
        top: bool,
        block: &[T],
    ) -> bool {
        lanes::<T, K, 16, SPEC>(p, c, top, block)
    }

    /// # Safety
    /// The CPU must support NEON.
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn max_neon<T: Float>(block: &[T]) -> u64 {
        T::max_abs_bits(block)
    }
}

/// One deposit step of `L` independent values into `L` copies of a `K`-slot window.
#[inline(always)]
fn step<T: Float, const K: usize, const L: usize>(acc: &mut [[T; L]; K], mut x: [T; L], top: bool) {
    let mut j = 0;
    if top {
        // Slot 0 of a top window holds compressed values (see `binned::deposit`).
        let c = T::pow2(T::COMPRESSION_EXP);
        let e = T::pow2(-T::COMPRESSION_EXP - 1);
        for i in 0..L {
            let m = acc[0][i];
            let q = m + (x[i] * c).or_low_bit();
            acc[0][i] = q;
            let d = (m - q) * e;
            x[i] = x[i] + d;
            x[i] = x[i] + d;
        }
        j = 1;
    }
    while j + 1 < K {
        for i in 0..L {
            let m = acc[j][i];
            let q = m + x[i].or_low_bit();
            acc[j][i] = q;
            x[i] = x[i] + (m - q);
        }
        j += 1;
    }
    for i in 0..L {
        acc[K - 1][i] = acc[K - 1][i] + x[i].or_low_bit();
    }
}

/// How far ahead of the group being deposited [`prefetch_ahead`] asks for data: 8 KiB
/// (measured on an AVX-512 Xeon: 4 to 16 KiB into L1 all beat hardware prefetching alone
/// and prefetching a whole block ahead into L2, for data in L3 or memory).
#[cfg(target_arch = "x86_64")]
const PREFETCH_BYTES: usize = 8 << 10;

/// Asks for the cache lines [`PREFETCH_BYTES`] ahead of `g` to be brought into the L1
/// cache, so that a block deposit (one pass over the data that keeps the maximum beside
/// the deposit, see [`lanes`]) does not wait for memory. A hint: it never faults and
/// changes no result.
#[inline(always)]
fn prefetch_ahead<T>(g: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let bytes = core::mem::size_of_val(g);
        let ahead = g.as_ptr().cast::<i8>().wrapping_add(PREFETCH_BYTES);
        let mut off = 0;
        while off < bytes {
            // SAFETY: prefetch is a hint that never faults, whatever the address; the pointer
            // is only computed (wrapping), never dereferenced.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(off)) };
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = g;
}

/// The block deposit over `L` copies of the window. Each copy takes at most
/// `block.len() / L` values (at most one endurance), so every add into it is exact; the
/// copies are then merged into the state exactly ([`merge_copies`]).
///
/// With `SPEC`, the block may hold any values: a running maximum of the magnitudes is kept
/// beside the deposit, and the copies are merged (and `true` returned) only if every value
/// was finite and the window fits the largest; otherwise the state is left as it was.
#[inline(always)]
fn lanes<T: Float, const K: usize, const L: usize, const SPEC: bool>(
    p: &mut [T; K],
    c: &mut [T; K],
    top: bool,
    block: &[T],
) -> bool {
    let start = *p;
    let mut acc = [[T::ZERO; L]; K];
    for (a, &s) in acc.iter_mut().zip(start.iter()) {
        *a = [s; L];
    }
    let mut keys = [T::ZERO; L];
    let mut groups = block.chunks_exact(L);
    if top {
        for g in &mut groups {
            let Ok(x) = <[T; L]>::try_from(g) else { continue };
            if SPEC {
                T::max_abs_keys(&mut keys, &x);
            }
            prefetch_ahead(g);
            step::<T, K, L>(&mut acc, x, true);
        }
    } else {
        for g in &mut groups {
            let Ok(x) = <[T; L]>::try_from(g) else { continue };
            if SPEC {
                T::max_abs_keys(&mut keys, &x);
            }
            prefetch_ahead(g);
            step::<T, K, L>(&mut acc, x, false);
        }
    }
    // The tail: pad with zeros, which deposit nothing (0 with the low bit set is the
    // smallest subnormal, far below any slot's grid), so they are harmless.
    let rest = groups.remainder();
    if !rest.is_empty() {
        let mut x = [T::ZERO; L];
        x[..rest.len()].copy_from_slice(rest);
        if SPEC {
            T::max_abs_keys(&mut keys, &x);
        }
        step::<T, K, L>(&mut acc, x, top);
    }
    if SPEC {
        // Every value finite, and the largest's bin not above the window's top bin (so
        // `binned::update` would leave the window as it is).
        let max = T::max_abs_keys_reduce(&keys);
        if max >= T::INF_BITS || T::from_bits_u64(max).index() < T::window_index(start[0]) {
            return false;
        }
    }
    merge_copies(p, c, &acc, &start);
    true
}

/// Adds the `L` copies of a window (each `start` plus its own deposits) into the state
/// `(p, c)`, renormalised, with integers.
///
/// A copy never leaves its primary's binade (it took at most one endurance of deposits
/// since `start`, which was renormalised), and within one binade a positive float's bit
/// pattern is an affine function of its value (one step per unit in the last place). So
/// the bit differences `copy - start` are the copies' deposits counted in units in the
/// last place, and their integer sum is exact. Writing the slot as `B + r` plus `carry`
/// quarters of its binade (`B`, the primary's binade with the significand bits `10..0`, is
/// the bin's reference value) and the total as `r + deposits` units, the renormalised form
/// is unique: the primary holds `B` plus the total modulo a quarter, the carry gains the
/// total's floor in quarters. That is the state the copies would reach added one at a time
/// with a renormalisation after each (each of those steps is exact, and it ends
/// renormalised), so the bits are the same.
#[inline(always)]
fn merge_copies<T: Float, const K: usize, const L: usize>(
    p: &mut [T; K],
    c: &mut [T; K],
    acc: &[[T; L]; K],
    start: &[T; K],
) {
    let shift = T::MANT_BITS - 2;
    for (((pj, cj), copies), &s) in p.iter_mut().zip(c.iter_mut()).zip(acc.iter()).zip(start.iter()) {
        let sb = s.bits() as i64;
        let mut total = 0i64;
        for &a in copies {
            total = total.wrapping_add((a.bits() as i64).wrapping_sub(sb));
        }
        let b = (s.bits() & T::EXP_MASK) | (2u64 << shift);
        let total = total.wrapping_add(sb.wrapping_sub(b as i64));
        *cj = *cj + T::from_i32((total >> shift) as i32);
        *pj = T::from_bits_u64(b | (total as u64 & ((1u64 << shift) - 1)));
    }
}
