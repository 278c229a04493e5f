//! Fast deposit of a block of finite values into a fixed window: many independent copies
//! of the window (vector lanes times unrolled registers), merged exactly at the end.
//!
//! One kernel (`lanes`) is written over fixed-size arrays so that it vectorises; it is
//! compiled once per instruction set (`#[target_feature]` functions for AVX2 and AVX-512
//! on x86-64) and once for the target's baseline (the portable path). On aarch64 the NEON
//! path runs the same steps written with NEON intrinsics (`arm::vlanes`, f64 and f32
//! lanes over one small vector trait), with the same copies and the same merge.
//! Every path computes exactly the same state: each slot's piece of a value does not
//! depend on what the slot already holds, every add into a primary is exact within one
//! endurance, and the copies are merged by exact differences.
//!
//! Every kernel takes the path as a value, a [`Platform`] (a [`Path`] checked against the
//! CPU), so one program can run every path at once (`Accumulator::add_slice_on`). The
//! methods without one use the process-wide default, only a cache: on first use, the
//! fastest path the CPU supports ([`detect`]: `cpuid` on x86-64, no `std` needed; on
//! other targets what the compile-time target features say, with no probing at all);
//! [`select`] changes it. Every path gives the same bits.
//!
//! Folds 2 to 8 have an instance of the kernel each (the window's copies in registers);
//! every other fold (9 to 52) shares one instance with the fold read at run time and the
//! copies in a stack array, in the L1 cache.

use core::sync::atomic::{AtomicU8, Ordering};

use crate::binned::FOLD_CAP;
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
    /// aarch64 NEON (128-bit vectors): the deposit written with `core::arch::aarch64`
    /// intrinsics. The cumulative sum has no NEON kernel of its own: on this path it runs
    /// the portable chunked passes, compiled with NEON enabled.
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

/// A path this CPU was checked to run: the value every kernel takes (as BLAKE3's
/// `Platform`). Made only by [`Platform::new`] (which checks the CPU) and the constructors
/// built on it, so a kernel never runs instructions the CPU lacks. Passing one to
/// `Accumulator::add_slice_on` (and the other `_on` methods) runs that path without
/// touching the process-wide default, so one program (one test binary) can run every
/// path at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Platform(Path);

impl Platform {
    /// The path, if this target was built with it and this CPU runs it.
    pub fn new(p: Path) -> Option<Platform> {
        (p.compiled() && supported(p)).then_some(Platform(p))
    }

    /// The portable path (every target, every CPU).
    pub const fn portable() -> Platform {
        Platform(Path::Portable)
    }

    /// The fastest path this CPU runs ([`detect`]).
    pub fn detected() -> Platform {
        Platform(detect())
    }

    /// The process-wide default: the path [`select`]ed, or else the detected one (cached
    /// on first use). What `add_slice` and the other methods without a platform use.
    #[inline]
    pub fn current() -> Platform {
        Platform(path())
    }

    /// Every path this CPU runs, in the order of [`Path::ALL`] (`None` for the others).
    pub fn all() -> [Option<Platform>; Path::ALL.len()] {
        Path::ALL.map(Platform::new)
    }

    /// The path.
    pub const fn path(self) -> Path {
        self.0
    }
}

/// The process-wide default path: `u8::MAX` until detected or selected. Only a cache of
/// [`detect`] (or what [`select`] stored): every kernel takes its [`Platform`] as a value.
static PATH: AtomicU8 = AtomicU8::new(u8::MAX);

/// What `cpuid` said: bit 0 AVX2 usable, bit 1 AVX-512F usable, bit 7 set once known.
#[cfg(target_arch = "x86_64")]
static CPU: AtomicU8 = AtomicU8::new(0);

/// Whether this CPU (and its operating system, which must save the vector registers)
/// can run a path. Run-time detection without `std`: `cpuid` and `xgetbv` on x86-64 (once,
/// then cached); on other targets, what the compile-time features say.
pub fn supported(p: Path) -> bool {
    match p {
        Path::Portable | Path::Scalar => true,
        #[cfg(target_arch = "x86_64")]
        Path::Avx2 => x86_cached() & 1 != 0,
        #[cfg(target_arch = "x86_64")]
        Path::Avx512 => x86_cached() & 2 != 0,
        #[cfg(target_arch = "aarch64")]
        Path::Neon => cfg!(target_feature = "neon"),
        #[allow(unreachable_patterns)]
        _ => false,
    }
}

/// [`x86_cpu`] as bits (see [`CPU`]), asked once. A race only asks twice.
#[cfg(target_arch = "x86_64")]
#[inline]
fn x86_cached() -> u8 {
    let known = CPU.load(Ordering::Relaxed);
    if known & 0x80 != 0 {
        return known;
    }
    let (avx2, avx512) = x86_cpu();
    let bits = 0x80 | u8::from(avx2) | (u8::from(avx512) << 1);
    CPU.store(bits, Ordering::Relaxed);
    bits
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
pub(crate) fn max_abs_bits<T: Float>(pf: Platform, block: &[T]) -> u64 {
    match pf.0 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Platform` of this path is made only after checking that the CPU
        // supports it (`Platform::new`, `Platform::detected`).
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

/// A multiple of the copies of the window [`deposit_block`] keeps for a block of `n` values
/// on `pf`: a block of a multiple of this pads no group with zeros. The same choices as
/// [`on_path`] and the ISA functions make (16 is a multiple of the copies of every other
/// path).
pub(crate) fn copies(pf: Platform, n: usize) -> usize {
    match pf.0 {
        #[cfg(target_arch = "x86_64")]
        Path::Avx512 if n < SHORT_BLOCK => 8,
        #[cfg(target_arch = "x86_64")]
        Path::Avx512 => 32,
        Path::Scalar => 1,
        _ => 16,
    }
}

/// Deposits `block` (finite values, at most `SUPERBLOCK_ENDURANCES` endurances) into the
/// renormalised state `(p, c)` whose window fits every value; leaves it renormalised.
#[inline]
pub(crate) fn deposit_block<T: Float>(
    pf: Platform,
    p: &mut [T],
    c: &mut [T],
    top: bool,
    far: bool,
    block: &[T],
) {
    if !with_fold::<T, false>(pf, p, c, top, far, block) {
        crate::binned::deposit_block_scalar(p, c, top, block);
    }
}

/// Deposits `block` (any values, at most `SUPERBLOCK_ENDURANCES` endurances) into the
/// renormalised, non-empty state `(p, c)` in one pass, if its window fits every value:
/// the deposit runs on copies of the window beside a running [`max_abs_bits`], and the
/// copies are kept only if the maximum shows that every value was finite and that the
/// window would not have risen (then they are exactly what [`deposit_block`] gives).
/// Returns whether the block was deposited; if not, the state is unchanged (so is it on
/// [`Path::Scalar`], which always returns `false`).
#[inline]
pub(crate) fn deposit_block_if_fits<T: Float>(
    pf: Platform,
    p: &mut [T],
    c: &mut [T],
    top: bool,
    far: bool,
    block: &[T],
) -> bool {
    with_fold::<T, true>(pf, p, c, top, far, block)
}

/// The kernel for the state's fold: folds 2 to 8 (the most used) each have their own
/// instance, with the window in registers; every other fold runs the instance for a
/// run-time fold, with the window in a stack array (in the L1 cache). Returns whether the
/// block was deposited (`false` on [`Path::Scalar`] and, with `SPEC`, when the window does
/// not fit).
#[inline]
fn with_fold<T: Float, const SPEC: bool>(
    pf: Platform,
    p: &mut [T],
    c: &mut [T],
    top: bool,
    far: bool,
    block: &[T],
) -> bool {
    match p.len() {
        2 => on_path::<T, 2, SPEC>(pf, p, c, top, far, block),
        3 => on_path::<T, 3, SPEC>(pf, p, c, top, far, block),
        4 => on_path::<T, 4, SPEC>(pf, p, c, top, far, block),
        5 => on_path::<T, 5, SPEC>(pf, p, c, top, far, block),
        6 => on_path::<T, 6, SPEC>(pf, p, c, top, far, block),
        7 => on_path::<T, 7, SPEC>(pf, p, c, top, far, block),
        8 => on_path::<T, 8, SPEC>(pf, p, c, top, far, block),
        _ => on_path::<T, FOLD_CAP, SPEC>(pf, p, c, top, far, block),
    }
}

// Not inlined: with every fold's instance inlined into `with_fold`, a call took the stack
// of all of their copies at once (on the Cortex-M0, with 16 KiB of RAM, within 300 bytes of
// its end). One call per block, so it costs nothing measurable.
#[inline(never)]
fn on_path<T: Float, const CAP: usize, const SPEC: bool>(
    pf: Platform,
    p: &mut [T],
    c: &mut [T],
    top: bool,
    far: bool,
    block: &[T],
) -> bool {
    match pf.0 {
        Path::Scalar => false,
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Platform` of this path is made only after checking that the CPU
        // supports it (`Platform::new`, `Platform::detected`).
        Path::Avx512 => unsafe { x86::avx512::<T, CAP, SPEC>(p, c, top, far, block) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX2.
        Path::Avx2 => unsafe { x86::avx2::<T, CAP, SPEC>(p, c, top, far, block) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above, for NEON.
        Path::Neon => unsafe { arm::neon::<T, CAP, SPEC>(p, c, top, far, block) },
        // 16 copies; on 32-bit targets (small stacks: 16 KiB of RAM on a Cortex-M0) 4 above
        // fold 4, so that the window's copies take at most `4 * 52` values of stack, as the
        // scalar path's do.
        _ if cfg!(target_pointer_width = "64") || CAP <= 4 => {
            lanes::<T, CAP, 16, SPEC, 0>(p, c, top, far, block)
        }
        _ => lanes::<T, CAP, 4, SPEC, 0>(p, c, top, far, block),
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;

    /// # Safety
    /// The CPU must support AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn avx512<T: Float, const CAP: usize, const SPEC: bool>(
        p: &mut [T],
        c: &mut [T],
        top: bool,
        far: bool,
        block: &[T],
    ) -> bool {
        // 32 copies: four 512-bit registers per slot for f64, two for f32 (measured
        // faster than four for f32; for f64 at folds 5 to 8 also faster than 16, although
        // the window no longer fits the 32 registers). Thirty of the 32 registers for the
        // copies and a group (see `lanes`); none with 8 copies (not measured there).
        if !SPEC && block.len() < SHORT_BLOCK {
            return lanes::<T, CAP, 8, SPEC, 0>(p, c, top, far, block);
        }
        lanes::<T, CAP, 32, SPEC, { 30 * 64 }>(p, c, top, far, block)
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn avx2<T: Float, const CAP: usize, const SPEC: bool>(
        p: &mut [T],
        c: &mut [T],
        top: bool,
        far: bool,
        block: &[T],
    ) -> bool {
        // 16 copies: four 256-bit registers per slot for f64, two for f32. No array of
        // their own for the copies (see `lanes`): with it f32 folds 5 and 6 ran 6% faster,
        // but fold 3 at half the speed, for a reason not found.
        lanes::<T, CAP, 16, SPEC, 0>(p, c, top, far, block)
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
    use core::arch::aarch64::*;

    /// # Safety
    /// The CPU must support NEON.
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn neon<T: Float, const CAP: usize, const SPEC: bool>(
        p: &mut [T],
        c: &mut [T],
        top: bool,
        far: bool,
        block: &[T],
    ) -> bool {
        // The caller checked the CPU: the token may be made. 16 copies, as the portable
        // path: eight 128-bit registers per slot for f64, four for f32.
        let isa = Neon(());
        if T::BYTES == 8 {
            vlanes::<T, CAP, 8, SPEC, _>(F64x2(isa), p, c, top, far, block)
        } else {
            vlanes::<T, CAP, 4, SPEC, _>(F32x4(isa), p, c, top, far, block)
        }
    }

    /// # Safety
    /// The CPU must support NEON.
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn max_neon<T: Float>(block: &[T]) -> u64 {
        T::max_abs_bits(block)
    }

    /// NEON is usable: made only by [`neon`], whose caller checked the CPU.
    #[derive(Clone, Copy)]
    struct Neon(());

    /// Two f64 lanes.
    #[derive(Clone, Copy)]
    struct F64x2(Neon);

    /// Four f32 lanes.
    #[derive(Clone, Copy)]
    struct F32x4(Neon);

    /// A NEON vector of `N` deposit values and the operations of the deposit on it.
    trait Vector: Copy {
        /// The vector of values.
        type V: Copy;
        /// The vector of magnitudes' bits (the running maximum).
        type U: Copy;
        /// Lanes per vector.
        const N: usize;
        /// Bytes of an element (which `Float` the loads and stores take).
        const BYTES: usize;
        /// Every lane the value with these bits.
        fn splat_bits(self, bits: u64) -> Self::V;
        fn add(self, a: Self::V, b: Self::V) -> Self::V;
        fn sub(self, a: Self::V, b: Self::V) -> Self::V;
        fn mul(self, a: Self::V, b: Self::V) -> Self::V;
        /// The lowest significand bit set in every lane.
        fn or_low_bit(self, a: Self::V) -> Self::V;
        /// Whether every lane is zero (either sign).
        fn is_zero(self, a: Self::V) -> bool;
        /// `N` elements of `xs` from `at` (zeros if they are not all there, or if `T`
        /// is not this element type).
        fn load<T: Float>(self, xs: &[T], at: usize) -> Self::V;
        /// Writes the lanes to `N` elements of `out` from `at` (nothing if they are not
        /// all there, or if `T` is not this element type).
        fn store<T: Float>(self, out: &mut [T], at: usize, v: Self::V);
        /// Zero magnitude bits.
        fn keys_zero(self) -> Self::U;
        /// The lane-wise maximum of `keys` and the bits of the magnitudes of `x`.
        fn keys_max(self, keys: Self::U, x: Self::V) -> Self::U;
        /// The largest lane.
        fn keys_reduce(self, keys: Self::U) -> u64;
    }

    // Every method below runs NEON intrinsics: the token exists only where the CPU has
    // NEON (made by `neon`).

    impl Vector for F64x2 {
        type V = float64x2_t;
        type U = uint64x2_t;
        const N: usize = 2;
        const BYTES: usize = 8;
        #[inline(always)]
        fn splat_bits(self, bits: u64) -> float64x2_t {
            // SAFETY: NEON (the token).
            unsafe { vdupq_n_f64(f64::from_bits(bits)) }
        }
        #[inline(always)]
        fn add(self, a: float64x2_t, b: float64x2_t) -> float64x2_t {
            // SAFETY: NEON (the token).
            unsafe { vaddq_f64(a, b) }
        }
        #[inline(always)]
        fn sub(self, a: float64x2_t, b: float64x2_t) -> float64x2_t {
            // SAFETY: NEON (the token).
            unsafe { vsubq_f64(a, b) }
        }
        #[inline(always)]
        fn mul(self, a: float64x2_t, b: float64x2_t) -> float64x2_t {
            // SAFETY: NEON (the token).
            unsafe { vmulq_f64(a, b) }
        }
        #[inline(always)]
        fn or_low_bit(self, a: float64x2_t) -> float64x2_t {
            // SAFETY: NEON (the token).
            unsafe { vreinterpretq_f64_u64(vorrq_u64(vreinterpretq_u64_f64(a), vdupq_n_u64(1))) }
        }
        #[inline(always)]
        fn is_zero(self, a: float64x2_t) -> bool {
            // SAFETY: NEON (the token).
            unsafe { vminvq_u32(vreinterpretq_u32_u64(vceqzq_f64(a))) != 0 }
        }
        #[inline(always)]
        fn load<T: Float>(self, xs: &[T], at: usize) -> float64x2_t {
            match xs.get(at..at + 2) {
                // SAFETY: NEON (the token); the two elements are in `xs`, and T is f64 (the
                // only `Float` of 8 bytes).
                Some(x) if T::BYTES == 8 => unsafe { vld1q_f64(x.as_ptr().cast::<f64>()) },
                _ => self.splat_bits(0),
            }
        }
        #[inline(always)]
        fn store<T: Float>(self, out: &mut [T], at: usize, v: float64x2_t) {
            if let Some(o) = out.get_mut(at..at + 2) {
                if T::BYTES == 8 {
                    // SAFETY: as for `load`, in `out`.
                    unsafe { vst1q_f64(o.as_mut_ptr().cast::<f64>(), v) }
                }
            }
        }
        #[inline(always)]
        fn keys_zero(self) -> uint64x2_t {
            // SAFETY: NEON (the token).
            unsafe { vdupq_n_u64(0) }
        }
        #[inline(always)]
        fn keys_max(self, keys: uint64x2_t, x: float64x2_t) -> uint64x2_t {
            // No 64-bit integer maximum in NEON: compare and select.
            // SAFETY: NEON (the token).
            unsafe {
                let mag = vandq_u64(vreinterpretq_u64_f64(x), vdupq_n_u64(!(1u64 << 63)));
                vbslq_u64(vcgtq_u64(mag, keys), mag, keys)
            }
        }
        #[inline(always)]
        fn keys_reduce(self, keys: uint64x2_t) -> u64 {
            // SAFETY: NEON (the token).
            unsafe { vgetq_lane_u64::<0>(keys).max(vgetq_lane_u64::<1>(keys)) }
        }
    }

    impl Vector for F32x4 {
        type V = float32x4_t;
        type U = uint32x4_t;
        const N: usize = 4;
        const BYTES: usize = 4;
        #[inline(always)]
        fn splat_bits(self, bits: u64) -> float32x4_t {
            // SAFETY: NEON (the token).
            unsafe { vdupq_n_f32(f32::from_bits(bits as u32)) }
        }
        #[inline(always)]
        fn add(self, a: float32x4_t, b: float32x4_t) -> float32x4_t {
            // SAFETY: NEON (the token).
            unsafe { vaddq_f32(a, b) }
        }
        #[inline(always)]
        fn sub(self, a: float32x4_t, b: float32x4_t) -> float32x4_t {
            // SAFETY: NEON (the token).
            unsafe { vsubq_f32(a, b) }
        }
        #[inline(always)]
        fn mul(self, a: float32x4_t, b: float32x4_t) -> float32x4_t {
            // SAFETY: NEON (the token).
            unsafe { vmulq_f32(a, b) }
        }
        #[inline(always)]
        fn or_low_bit(self, a: float32x4_t) -> float32x4_t {
            // SAFETY: NEON (the token).
            unsafe { vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a), vdupq_n_u32(1))) }
        }
        #[inline(always)]
        fn is_zero(self, a: float32x4_t) -> bool {
            // SAFETY: NEON (the token).
            unsafe { vminvq_u32(vceqzq_f32(a)) != 0 }
        }
        #[inline(always)]
        fn load<T: Float>(self, xs: &[T], at: usize) -> float32x4_t {
            match xs.get(at..at + 4) {
                // SAFETY: NEON (the token); the four elements are in `xs`, and T is f32
                // (the only `Float` of 4 bytes).
                Some(x) if T::BYTES == 4 => unsafe { vld1q_f32(x.as_ptr().cast::<f32>()) },
                _ => self.splat_bits(0),
            }
        }
        #[inline(always)]
        fn store<T: Float>(self, out: &mut [T], at: usize, v: float32x4_t) {
            if let Some(o) = out.get_mut(at..at + 4) {
                if T::BYTES == 4 {
                    // SAFETY: as for `load`, in `out`.
                    unsafe { vst1q_f32(o.as_mut_ptr().cast::<f32>(), v) }
                }
            }
        }
        #[inline(always)]
        fn keys_zero(self) -> uint32x4_t {
            // SAFETY: NEON (the token).
            unsafe { vdupq_n_u32(0) }
        }
        #[inline(always)]
        fn keys_max(self, keys: uint32x4_t, x: float32x4_t) -> uint32x4_t {
            // SAFETY: NEON (the token).
            unsafe {
                vmaxq_u32(
                    keys,
                    vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(!(1u32 << 31))),
                )
            }
        }
        #[inline(always)]
        fn keys_reduce(self, keys: uint32x4_t) -> u64 {
            // SAFETY: NEON (the token).
            unsafe { u64::from(vmaxvq_u32(keys)) }
        }
    }

    /// Copies per deposit: `R` vectors per slot of `v.N` lanes each.
    const COPIES: usize = 16;

    /// [`step`] on vectors: the same operations, lane by lane, on `R` vectors of values.
    #[inline(always)]
    fn vstep<T: Float, V: Vector, const R: usize>(
        v: V,
        acc: &mut [[V::V; R]],
        mut x: [V::V; R],
        top: bool,
        checks: &Checks,
    ) -> usize {
        let acc_len = acc.len();
        let Some((last, body)) = acc.split_last_mut() else {
            return acc_len;
        };
        let mut rows = body.iter_mut();
        if top {
            // Slot 0 of a top window holds compressed values (see `binned::deposit`).
            let cm = v.splat_bits(T::pow2(T::COMPRESSION_EXP).bits());
            let e = v.splat_bits(T::pow2(-T::COMPRESSION_EXP - 1).bits());
            if let Some(row) = rows.next() {
                for i in 0..R {
                    let m = row[i];
                    let q = v.add(m, v.or_low_bit(v.mul(x[i], cm)));
                    row[i] = q;
                    let d = v.mul(v.sub(m, q), e);
                    x[i] = v.add(x[i], d);
                    x[i] = v.add(x[i], d);
                }
            }
        }
        // As in `step`: the slots left are skipped once every remainder is zero.
        let mut done = acc_len - 1 - rows.len();
        for row in rows {
            for i in 0..R {
                let m = row[i];
                let q = v.add(m, v.or_low_bit(x[i]));
                row[i] = q;
                x[i] = v.add(x[i], v.sub(m, q));
            }
            done += 1;
            if worth_checking(done, acc_len) && checks.at(done) && x.iter().all(|&xi| v.is_zero(xi)) {
                return done;
            }
        }
        for i in 0..R {
            last[i] = v.add(last[i], v.or_low_bit(x[i]));
        }
        acc_len
    }

    /// [`lanes`] with the copies in NEON registers (`R` vectors of `v.N` lanes per slot,
    /// 16 copies): the same deposit into each copy, the same check with `SPEC`, and the
    /// same exact merge ([`merge_copies`]), so the same state. Returns `false`, changing
    /// nothing, for a state of another fold or a `T` that is not `V`'s element type.
    #[inline(always)]
    fn vlanes<T: Float, const CAP: usize, const R: usize, const SPEC: bool, V: Vector>(
        v: V,
        p: &mut [T],
        c: &mut [T],
        top: bool,
        far: bool,
        block: &[T],
    ) -> bool {
        let k = if CAP < FOLD_CAP { CAP } else { p.len() };
        let (Some(p), Some(c)) = (p.get_mut(..k), c.get_mut(..k)) else {
            return false;
        };
        if k < 2 || k > CAP || p.len() != k || T::BYTES != V::BYTES || R * V::N != COPIES {
            return false;
        }
        let mut start = [T::ZERO; CAP];
        start[..k].copy_from_slice(p);
        let start = &start[..k];
        let zero = v.splat_bits(0);
        let mut acc_store = [[zero; R]; CAP];
        let acc = &mut acc_store[..k];
        for (a, &s) in acc.iter_mut().zip(start.iter()) {
            *a = [v.splat_bits(s.bits()); R];
        }
        let mut keys = [v.keys_zero(); R];
        let mut checks = Checks::new(far);
        let mut groups = block.chunks_exact(COPIES);
        for g in &mut groups {
            let mut x = [zero; R];
            for (i, xi) in x.iter_mut().enumerate() {
                *xi = v.load(g, i * V::N);
                if SPEC {
                    keys[i] = v.keys_max(keys[i], *xi);
                }
            }
            prefetch_ahead(g, far);
            let went = vstep::<T, V, R>(v, acc, x, top, &checks);
            if Checks::adapts::<T, CAP>() {
                checks.record(k, went);
            }
        }
        // The tail: padded with zeros, which deposit nothing (see `lanes`).
        let rest = groups.remainder();
        if !rest.is_empty() {
            let mut pad = [T::ZERO; COPIES];
            pad[..rest.len()].copy_from_slice(rest);
            let mut x = [zero; R];
            for (i, xi) in x.iter_mut().enumerate() {
                *xi = v.load(&pad, i * V::N);
                if SPEC {
                    keys[i] = v.keys_max(keys[i], *xi);
                }
            }
            vstep::<T, V, R>(v, acc, x, top, &checks);
        }
        if SPEC {
            // As in `lanes`: every value finite, and the largest's bin not above the
            // window's top bin.
            let max = keys.iter().fold(0, |m, &k| m.max(v.keys_reduce(k)));
            if max >= T::INF_BITS || T::from_bits_u64(max).index() < T::window_index(start[0]) {
                return false;
            }
        }
        // The copies as arrays of values, for the merge.
        let mut copies = [[T::ZERO; COPIES]; CAP];
        for (cp, a) in copies.iter_mut().zip(acc.iter()) {
            for (i, &ai) in a.iter().enumerate() {
                v.store(cp, i * V::N, ai);
            }
        }
        merge_copies(p, c, &copies[..k], start);
        true
    }
}

/// One deposit step of `L` independent values into `L` copies of a window of `acc.len()`
/// slots (at least 2). Returns how many slots the values went through: `acc.len()`, or
/// fewer where a check that `checks` allows found every remainder zero.
#[inline(always)]
fn step<T: Float, const L: usize>(acc: &mut [[T; L]], mut x: [T; L], top: bool, checks: &Checks) -> usize {
    let acc_len = acc.len();
    let Some((last, body)) = acc.split_last_mut() else {
        return acc_len;
    };
    let mut rows = body.iter_mut();
    if top {
        // Slot 0 of a top window holds compressed values (see `binned::deposit`).
        let c = T::pow2(T::COMPRESSION_EXP);
        let e = T::pow2(-T::COMPRESSION_EXP - 1);
        if let Some(row) = rows.next() {
            for i in 0..L {
                let m = row[i];
                let q = m + (x[i] * c).or_low_bit();
                row[i] = q;
                let d = (m - q) * e;
                x[i] = x[i] + d;
                x[i] = x[i] + d;
            }
        }
    }
    // Slots `done..` are left; `done` counts the slots already taken (the top one included).
    let mut done = acc_len - 1 - rows.len();
    for row in rows {
        slot(row, &mut x);
        done += 1;
        if worth_checking(done, acc_len) && checks.at(done) && all_zero(&x) {
            return done;
        }
    }
    last_slot(last, &x);
    acc_len
}

/// [`step`] for a window of exactly `K` slots that is not the top one, held in an array of
/// its own (see [`lanes`]), from slot `FROM` on: `x` holds the remainders of the slots
/// before it, which took their parts already ([`defer`]).
#[inline(always)]
fn step_fixed<T: Float, const L: usize, const K: usize, const FROM: usize>(
    acc: &mut [[T; L]; K],
    mut x: [T; L],
    checks: &Checks,
) -> usize {
    let mut done = FROM;
    while done + 1 < K {
        slot(&mut acc[done], &mut x);
        done += 1;
        if worth_checking(done, K) && checks.at(done) && all_zero(&x) {
            return done;
        }
    }
    if let Some(last) = acc.last_mut() {
        last_slot(last, &x);
    }
    K
}

/// One slot (not the last of the window) of a deposit step: each copy's slot takes its
/// value rounded to the slot's grid, and `x` keeps the remainders.
#[inline(always)]
fn slot<T: Float, const L: usize>(row: &mut [T; L], x: &mut [T; L]) {
    for i in 0..L {
        let m = row[i];
        let q = m + x[i].or_low_bit();
        row[i] = q;
        x[i] = x[i] + (m - q);
    }
}

/// The last slot of a deposit step: each copy's slot takes its remainder rounded to the
/// slot's grid, and what is below it is dropped.
#[inline(always)]
fn last_slot<T: Float, const L: usize>(row: &mut [T; L], x: &[T; L]) {
    for i in 0..L {
        row[i] = row[i] + x[i].or_low_bit();
    }
}

/// One group of a block through [`step_fixed`], counted in the checks' sample.
#[inline(always)]
fn one<T: Float, const CAP: usize, const L: usize, const SPEC: bool>(
    window: &mut [[T; L]; CAP],
    keys: &mut [T; L],
    checks: &mut Checks,
    g: &[T],
) {
    let Ok(x) = <[T; L]>::try_from(g) else { return };
    if SPEC {
        T::max_abs_keys(keys, &x);
    }
    if CAP <= PREFETCH_FOLDS {
        prefetch_ahead(g, checks.far);
    }
    let went = step_fixed::<T, L, CAP, 0>(window, x, checks);
    if Checks::adapts::<T, CAP>() {
        checks.record(CAP, went);
    }
}

/// Remainders set aside by [`defer`] before the slots after its first check take them.
const DEFERRED: usize = 32;

/// The groups left in a block through the window's first `D` slots with no check, so no
/// branch that depends on the data: a group whose remainders are then all zero is done
/// (the check after `D` slots would have stopped it there); the others are set aside (each
/// stored, and the count of those kept advanced by one or by none) and go through the slots
/// from `D` on, [`DEFERRED`] at a time ([`step_fixed`] from `D`). The same bits as a
/// [`step_fixed`] per group in turn: each slot adds values rounded to its own fixed grid,
/// exactly, so the order in which a slot takes them changes nothing.
///
/// Why: a check whose outcome varies from group to group is a branch the processor
/// mispredicts, and for data from beyond the L2 cache each miss cost about a memory access
/// (docs/PERFORMANCE.md). Does nothing where `D` is not a check [`worth_checking`] allows.
#[inline(always)]
fn defer<T: Float, const CAP: usize, const L: usize, const SPEC: bool, const D: usize>(
    window: &mut [[T; L]; CAP],
    groups: &mut core::slice::ChunksExact<'_, T>,
    keys: &mut [T; L],
    checks: &Checks,
) {
    if !worth_checking(D, CAP) {
        return;
    }
    let mut set_aside = [[T::ZERO; L]; DEFERRED];
    let mut n = 0;
    for g in groups {
        let Ok(mut x) = <[T; L]>::try_from(g) else {
            continue;
        };
        if SPEC {
            T::max_abs_keys(keys, &x);
        }
        // Prefetched here, unlike the checked groups above fold 4 (`PREFETCH_FOLDS`): with
        // no branch to mispredict the loop runs ahead of the hardware's prefetch (2-5% at
        // 1e7 f32 values, folds 6 to 8).
        prefetch_ahead(g, true);
        let mut j = 0;
        while j < D {
            slot(&mut window[j], &mut x);
            j += 1;
        }
        if let Some(s) = set_aside.get_mut(n) {
            *s = x;
        }
        n += usize::from(!all_zero(&x));
        if n == DEFERRED {
            for &r in &set_aside {
                step_fixed::<T, L, CAP, D>(window, r, checks);
            }
            n = 0;
        }
    }
    for &r in set_aside.iter().take(n) {
        step_fixed::<T, L, CAP, D>(window, r, checks);
    }
}

/// Whether, after `done` slots of a window of `k`, checking the remainders for zeros
/// ([`all_zero`]) may pay: from the second slot on, while at least one more slot than the
/// last is left (skipping only the last slot's add saves less than the check costs).
#[inline(always)]
const fn worth_checking(done: usize, k: usize) -> bool {
    done >= 2 && done + 2 <= k
}

/// Whether every remainder is zero (either sign). A zero deposits nothing into any slot
/// (zero with the low bit set is the smallest subnormal, far below every slot's grid, so
/// `m + x.or_low_bit()` is `m` and the remainder stays zero), so the slots left may be
/// skipped with the same bits. Ordinary data need few slots: a value's significand spans
/// two or three bins below the window's top, whatever the fold, so at folds above 3 the
/// deposit usually ends early.
///
/// The compiler turns this fold into one vector test per register (`vptestmd` on
/// AVX-512) only in some surroundings: in a variant of [`defer`] that stored remainders
/// at fixed places it became a mask extraction and an `and` per value, and the deposit
/// ran at half speed (docs/PERFORMANCE.md, 2026-12-05 15:27). After changing a loop that
/// calls it, look at the disassembly.
#[inline(always)]
fn all_zero<T: Float, const L: usize>(x: &[T; L]) -> bool {
    x.iter().fold(true, |z, &v| z & (v == T::ZERO))
}

/// Where a block's deposit checks for remainders that are all zero ([`all_zero`]): a choice
/// of speed only, never of bits (a check that finds them zero skips slots that would receive
/// nothing). The first [`Checks::SAMPLE`] groups of a block check after every slot where
/// [`worth_checking`] allows; the rest check only where that sample says it pays (in the
/// instances where [`Checks::adapts`]; the others keep every check). A check that fails
/// costs about half a slot's work (one compare per vector beside the slot's add, subtract,
/// add and or), so on data whose values need every slot (f32 values spread over many
/// binades, whose 13-bit bins take a value in up to 5 slots) checking after every slot cost
/// as much as it saved. A check that stops some groups and not others is a branch the CPU
/// mispredicts, which costs more than the check's arithmetic, most where the data come from
/// beyond the L2 cache (`far`): [`Checks::choose`] counts that too.
struct Checks {
    /// Bit `d` set: check after `d` slots.
    mask: u64,
    /// The block's slice does not fit the L2 cache (see [`prefetch_ahead`]).
    far: bool,
    /// Groups sampled so far.
    sampled: u8,
    /// `ended[d]`: sampled groups whose remainders were first all zero after `d` slots.
    ended: [u8; 64],
}

impl Checks {
    /// Groups sampled at the start of each block (a full block holds 256 groups or more).
    const SAMPLE: u8 = 16;

    /// A mispredicted check, in half-slots, for data in the L2 cache or nearer and for data
    /// from beyond it (measured on the 2-core AVX-512 machine, an AMD EPYC, docs/PERFORMANCE.md:
    /// f32 values in [0, 1) at fold 6, where about half the groups stop after two slots, ran
    /// 1.47x faster at 1e7 values with this charge; 24 for data from beyond L2 measured
    /// within 2% of 12 everywhere, so the values are a fit, not a model).
    const MISS: u32 = 2;
    const MISS_FAR: u32 = 12;

    /// Whether the instance for `CAP` slots samples and chooses (else it checks wherever
    /// [`worth_checking`] allows). Measured on an AVX-512 Xeon (docs/PERFORMANCE.md): at
    /// folds 2 to 4 sampling cost more than it could save (fold 4 has one check, after two
    /// slots, which saves two when it stops a group: up to 12% slower on f64 values in
    /// [0, 1)); for f32 at the folds above 8 (the copies in the L1 cache, the fold read at
    /// run time) the chosen checks ran 2-7% slower than every check, for reasons not found.
    #[inline(always)]
    const fn adapts<T: Float, const CAP: usize>() -> bool {
        CAP >= 5 && (CAP < FOLD_CAP || T::BYTES == 8)
    }

    #[inline(always)]
    fn new(far: bool) -> Checks {
        Checks {
            mask: u64::MAX,
            far,
            sampled: 0,
            ended: [0; 64],
        }
    }

    /// Whether to check after `done` slots.
    #[inline(always)]
    fn at(&self, done: usize) -> bool {
        done < 64 && self.mask >> done & 1 != 0
    }

    /// Counts a sampled group that went through `went` slots of `k` (fewer than `k`: a
    /// check found its remainders zero), and chooses the checks once the sample is full.
    #[inline(always)]
    fn record(&mut self, k: usize, went: usize) {
        if self.sampled < Self::SAMPLE {
            if went < k {
                if let Some(e) = self.ended.get_mut(went) {
                    *e += 1;
                }
            }
            self.sampled += 1;
            if self.sampled == Self::SAMPLE {
                self.choose(k);
            }
        }
    }

    /// Sampled groups whose remainders were not all zero after `d` slots.
    #[inline(always)]
    fn went_past(&self, d: u32) -> u32 {
        let ended: u32 = self
            .ended
            .iter()
            .take(d as usize + 1)
            .map(|&e| u32::from(e))
            .sum();
        u32::from(self.sampled).saturating_sub(ended)
    }

    /// Keeps the check after `d` slots where the groups it would stop save more than the
    /// checks cost: `e` groups stopping there save the `k - d` slots left (the last one's add
    /// counted), each group still going pays half a slot for the check, and a check whose
    /// outcome varies from group to group pays a mispredicted branch for each group of the
    /// smaller side ([`Checks::MISS`] half-slots). Groups whose check is dropped stop at the
    /// next check kept (their remainders stay zero).
    #[inline(never)]
    fn choose(&mut self, k: usize) {
        let miss = if self.far { Self::MISS_FAR } else { Self::MISS };
        let mut mask = 0u64;
        let mut going = u32::from(self.sampled);
        let mut stopped = 0u32;
        for d in 2..k.min(64) {
            if !worth_checking(d, k) {
                continue;
            }
            stopped += u32::from(self.ended.get(d).copied().unwrap_or(0));
            let mixed = stopped.min(going.saturating_sub(stopped));
            if 2 * stopped * (k - d) as u32 > going + miss * mixed {
                mask |= 1 << d;
                going -= stopped.min(going);
                stopped = 0;
            }
        }
        self.mask = mask;
    }
}

/// How far ahead of the group being deposited [`prefetch_ahead`] asks for data: 8 KiB
/// (measured on an AVX-512 Xeon: 4 to 16 KiB into L1 all beat hardware prefetching alone
/// and prefetching a whole block ahead into L2, for data in L3 or memory).
#[cfg(target_arch = "x86_64")]
const PREFETCH_BYTES: usize = 8 << 10;

/// The fold instances of [`lanes`] up to this one prefetch ([`prefetch_ahead`]); above it
/// (folds 5 to 8, and every fold above 8) the deposit takes long enough per value that the
/// hardware's own prefetch keeps up, and the prefetch instructions only cost: measured on
/// an AVX-512 Xeon at 1e7 values, f64 folds 5, 6 and 8 ran 6-8% faster without them (fold
/// 16 3%), f32 0-3%, in cache within 1% (docs/PERFORMANCE.md); fold 3 loses 8% without them.
const PREFETCH_FOLDS: usize = 4;

/// A block deposit of fewer values than this, on a window just set (no `SPEC`: a short
/// slice added to an empty state, such as one short group of a segmented sum), keeps 8
/// copies of the window rather than 32 on AVX-512: the copies' setup and merge are most of
/// such a block's time.
#[cfg(target_arch = "x86_64")]
const SHORT_BLOCK: usize = 256;

/// How far ahead [`prefetch_ahead`] also asks for data into the L2 cache when the slice
/// being added is larger than [`FAR_BYTES`]: 32 KiB (measured on this project's Zen 4
/// machine, f64 fold 3 at 1e7 values: 5 to 15% faster than the L1 prefetch alone, and 32
/// KiB ahead steadier than 64; in cache the extra instructions cost f32 up to 8%, hence the
/// size test).
#[cfg(target_arch = "x86_64")]
const PREFETCH_FAR_BYTES: usize = 32 << 10;

/// A slice of more bytes than this is added with the L2 prefetch of [`prefetch_ahead`]
/// (`far`): it does not stay in a core's L2 cache (1 MiB on Zen 4, 2 MiB on recent Xeons).
pub(crate) const FAR_BYTES: usize = 1 << 20;

/// Asks for the cache lines [`PREFETCH_BYTES`] ahead of `g` to be brought into the L1
/// cache and, with `far`, those [`PREFETCH_FAR_BYTES`] ahead into the L2 cache, so that a
/// block deposit (one pass over the data that keeps the maximum beside the deposit, see
/// [`lanes`]) does not wait for memory. A hint: it never faults and changes no result.
#[inline(always)]
fn prefetch_ahead<T>(g: &[T], far: bool) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
        let bytes = core::mem::size_of_val(g);
        let ahead = g.as_ptr().cast::<i8>().wrapping_add(PREFETCH_BYTES);
        let further = g.as_ptr().cast::<i8>().wrapping_add(PREFETCH_FAR_BYTES);
        let mut off = 0;
        while off < bytes {
            // SAFETY: prefetch is a hint that never faults, whatever the address; the pointers
            // are only computed (wrapping), never dereferenced.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(off)) };
            if far {
                // SAFETY: as above.
                unsafe { _mm_prefetch::<_MM_HINT_T1>(further.wrapping_add(off)) };
            }
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (g, far);
}

/// The block deposit over `L` copies of the window. Each copy takes at most
/// `block.len() / L` values (at most one endurance), so every add into it is exact; the
/// copies are then merged into the state exactly ([`merge_copies`]).
///
/// The window has `CAP` slots when `CAP < FOLD_CAP` (an instance per fold: the slot loops
/// unroll and the copies stay in registers), else `p.len()` (one instance for every fold:
/// the copies live in a stack array, in the L1 cache, and each group of `L` values goes
/// through the slots in a loop). Returns `false`, changing nothing, for a state of another
/// fold.
///
/// With `SPEC`, the block may hold any values: a running maximum of the magnitudes is kept
/// beside the deposit, and the copies are merged (and `true` returned) only if every value
/// was finite and the window fits the largest; otherwise the state is left as it was.
///
/// `REGS` is the bytes of vector registers the path leaves for the copies and one group (0
/// for none). Where a fold's own instance from fold 4 on fits them and the window is not
/// the top one, the copies go into an array of their own for the block ([`step_fixed`]),
/// which the compiler keeps in registers: behind a slice of the array the merge reads, it
/// kept them in memory at the folds whose deposit may stop early, with a load and a store
/// per slot and group (fold 3 never stops early, and its copies were in registers already).
/// Measured on the Zen 4 machine (docs/PERFORMANCE.md): folds 4 to 8 of f32 and fold 4 of
/// f64 4-7% faster in cache on AVX-512 with the array of their own; where the copies did not fit
/// (f64 fold 8 on AVX-512: 32 registers) it ran 20% slower, hence the budget. Only AVX-512
/// has one (see `x86::avx2`). There, for f32 at folds 5 to 8 and a slice larger than the L2
/// cache, the groups after the checks' sample may go through [`defer`] instead.
#[inline(always)]
fn lanes<T: Float, const CAP: usize, const L: usize, const SPEC: bool, const REGS: usize>(
    p: &mut [T],
    c: &mut [T],
    top: bool,
    far: bool,
    block: &[T],
) -> bool {
    let k = if CAP < FOLD_CAP { CAP } else { p.len() };
    let (Some(p), Some(c)) = (p.get_mut(..k), c.get_mut(..k)) else {
        return false;
    };
    if k < 2 || k > CAP || p.len() != k {
        return false;
    }
    let mut start = [T::ZERO; CAP];
    start[..k].copy_from_slice(p);
    let start = &start[..k];
    #[cfg(target_pointer_width = "64")]
    let mut acc_store = Align64([[T::ZERO; L]; CAP]);
    #[cfg(target_pointer_width = "64")]
    let acc = &mut acc_store.0[..k];
    // (Wrapped in a plain struct, the array took more stack on the Cortex-M0: past the end
    // of its 16 KiB of RAM.)
    #[cfg(not(target_pointer_width = "64"))]
    let mut acc_store = [[T::ZERO; L]; CAP];
    #[cfg(not(target_pointer_width = "64"))]
    let acc = &mut acc_store[..k];
    for (a, &s) in acc.iter_mut().zip(start.iter()) {
        *a = [s; L];
    }
    let mut keys = [T::ZERO; L];
    let mut checks = Checks::new(far);
    let mut groups = block.chunks_exact(L);
    if top {
        for g in &mut groups {
            let Ok(x) = <[T; L]>::try_from(g) else { continue };
            if SPEC {
                T::max_abs_keys(&mut keys, &x);
            }
            if CAP <= PREFETCH_FOLDS {
                prefetch_ahead(g, far);
            }
            let went = step::<T, L>(acc, x, true, &checks);
            if Checks::adapts::<T, CAP>() {
                checks.record(k, went);
            }
        }
    } else if CAP >= 4 && CAP < FOLD_CAP && k == CAP && (CAP + 1) * L * T::BYTES <= REGS {
        // The window and a group fit the registers: the copies go into an array of their
        // own, which the compiler keeps in registers (see the doc above).
        #[cfg(target_pointer_width = "64")]
        let mut local = Align64([[T::ZERO; L]; CAP]);
        #[cfg(target_pointer_width = "64")]
        let window = &mut local.0;
        #[cfg(not(target_pointer_width = "64"))]
        let mut window = [[T::ZERO; L]; CAP];
        #[cfg(not(target_pointer_width = "64"))]
        let window = &mut window;
        for (a, &s) in window.iter_mut().zip(start.iter()) {
            *a = [s; L];
        }
        if T::BYTES == 4 && far && Checks::adapts::<T, CAP>() {
            for g in (&mut groups).take(usize::from(Checks::SAMPLE)) {
                one::<T, CAP, L, SPEC>(window, &mut keys, &mut checks, g);
            }
            // Deferred only where the sample saw some groups go on after the first check
            // kept (else the check is a well-predicted branch, which costs less than
            // setting remainders aside: 10% on f32 values in [0, 1) at folds 6 to 8) and
            // at most a quarter of them (each set aside is stored and read again).
            let d = checks.mask.trailing_zeros();
            let past = checks.went_past(d);
            let defer_after = if past >= 1 && past * 4 <= u32::from(Checks::SAMPLE) {
                d
            } else {
                0
            };
            match defer_after {
                2 => defer::<T, CAP, L, SPEC, 2>(window, &mut groups, &mut keys, &checks),
                3 => defer::<T, CAP, L, SPEC, 3>(window, &mut groups, &mut keys, &checks),
                4 => defer::<T, CAP, L, SPEC, 4>(window, &mut groups, &mut keys, &checks),
                5 => defer::<T, CAP, L, SPEC, 5>(window, &mut groups, &mut keys, &checks),
                6 => defer::<T, CAP, L, SPEC, 6>(window, &mut groups, &mut keys, &checks),
                _ => {}
            }
        }
        for g in &mut groups {
            one::<T, CAP, L, SPEC>(window, &mut keys, &mut checks, g);
        }
        for (a, w) in acc.iter_mut().zip(window.iter()) {
            *a = *w;
        }
    } else {
        for g in &mut groups {
            let Ok(x) = <[T; L]>::try_from(g) else { continue };
            if SPEC {
                T::max_abs_keys(&mut keys, &x);
            }
            if CAP <= PREFETCH_FOLDS {
                prefetch_ahead(g, far);
            }
            let went = step::<T, L>(acc, x, false, &checks);
            if Checks::adapts::<T, CAP>() {
                checks.record(k, went);
            }
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
        step::<T, L>(acc, x, top, &checks);
    }
    if SPEC {
        // Every value finite, and the largest's bin not above the window's top bin (so
        // `binned::update` would leave the window as it is).
        let max = T::max_abs_keys_reduce(&keys);
        if max >= T::INF_BITS || T::from_bits_u64(max).index() < T::window_index(start[0]) {
            return false;
        }
    }
    merge_copies(p, c, acc, start);
    true
}

/// A value on a 64-byte boundary (64-bit targets): the copies of the window, so that a
/// vector register spilled to them (at folds whose copies do not all fit the registers)
/// never straddles two cache lines. Without it the same binary's K = 8 deposit ran at 0.9
/// to 1.9 G values/s from run to run (f64, AVX-512), the stack falling differently each
/// time; with it 1.2 to 1.9 on this shared machine, so the alignment is one cause of the
/// spread, not all of it. Not on 32-bit targets, whose stacks are small.
#[cfg(target_pointer_width = "64")]
#[repr(C, align(64))]
struct Align64<A>(A);

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
fn merge_copies<T: Float, const L: usize>(p: &mut [T], c: &mut [T], acc: &[[T; L]], start: &[T]) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DynAccumulator;

    /// xorshift64 values of mixed signs and magnitudes; `kind` 1 puts a large value late
    /// in the slice (the one-pass block is thrown away and redone), 2 reaches the top
    /// window, 3 the bottom bins, 4 and 5 end most deposits early (see [`all_zero`]).
    fn values(kind: u64, n: usize, seed: u64) -> [f64; 5000] {
        let mut s = seed | 1;
        let mut out = [0.0; 5000];
        for (i, o) in out.iter_mut().enumerate().take(n) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let m = (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            *o = match kind {
                1 if i == n - 3 => 1e12,
                1 => m * 2f64.powi((s % 40) as i32 - 20),
                2 => m * f64::MAX,
                3 => m * 1e-300,
                // Values in two binades, so most groups' remainders are zero after the
                // second slot, but every 97th is 2^-70 smaller and needs two slots more.
                4 if i % 97 == 13 => m * 2f64.powi(-70),
                4 => m + m.signum() * 0.5,
                // The bottom bins with the same pattern (subnormals every 97th).
                5 if i % 97 == 13 => m * 2f64.powi(-1066),
                5 => (m + m.signum() * 0.5) * 2f64.powi(-1000),
                _ => m * 2f64.powi((s % 24) as i32 - 12),
            };
        }
        out
    }

    /// The state bytes of a slice added on `pf` against adding it one value at a time.
    fn check<T: Float>(pf: Platform, k: usize, xs: &[T]) {
        let mut fast = DynAccumulator::<T>::new(k).unwrap();
        let mut slow = DynAccumulator::<T>::new(k).unwrap();
        // Two slices: the second starts on a set window (tried in one pass).
        let h = xs.len() / 3;
        fast.add_slice_on(pf, &xs[..h]).unwrap();
        fast.add_slice_on(pf, &xs[h..]).unwrap();
        for &x in xs {
            slow.add(x).unwrap();
        }
        assert_eq!(
            fast.to_bytes().as_bytes(),
            slow.to_bytes().as_bytes(),
            "path {:?}, fold {k}, {} values",
            pf.path(),
            xs.len()
        );
    }

    /// The checks a sample chooses: kept where the groups they stop save more than the
    /// checks cost, dropped (their groups moving on to the next check kept) elsewhere.
    #[test]
    fn checks_kept_only_where_they_pay() {
        let chosen = |k: usize, ended: &[(usize, u8)]| {
            let mut ch = Checks::new(false);
            assert_eq!(ch.mask, u64::MAX, "the sample checks everywhere");
            let mut n = 0;
            for &(d, e) in ended {
                for _ in 0..e {
                    ch.record(k, d);
                    n += 1;
                }
            }
            for _ in n..Checks::SAMPLE {
                ch.record(k, k);
            }
            ch.mask
        };
        // Every group done after two slots of eight: check there only.
        assert_eq!(chosen(8, &[(2, 16)]), 1 << 2);
        // No group ever done early (f32 values over many binades at fold 6): no checks.
        assert_eq!(chosen(6, &[]), 0);
        // Every group done after four slots of eight: the checks at 2 and 3 never stop one.
        assert_eq!(chosen(8, &[(4, 16)]), 1 << 4);
        // Two of sixteen done after two slots of six: too few to pay at 2, 3 or 4.
        assert_eq!(chosen(6, &[(2, 2)]), 0);
        // Half after two slots of twelve, the rest after five: both checks pay.
        assert_eq!(chosen(12, &[(2, 8), (5, 8)]), (1 << 2) | (1 << 5));
        // Three of sixteen after two slots of twelve (2 * 3 * 10 > 16), then all the rest
        // at the fifth.
        assert_eq!(chosen(12, &[(2, 3), (5, 13)]), (1 << 2) | (1 << 5));
        // Half of sixteen done after two slots of six: the check pays for data in the L2
        // cache, not for data from beyond it, where it mispredicts for half the groups.
        assert_eq!(chosen(6, &[(2, 8)]), 1 << 2);
        let mut far = Checks::new(true);
        for d in [2, 6] {
            for _ in 0..8 {
                far.record(6, d);
            }
        }
        assert_eq!(far.mask, 0);
        // What `defer` reads: groups still going after a check.
        let mut ch = Checks::new(true);
        for (d, e) in [(2u32, 3u8), (4, 11)] {
            for _ in 0..e {
                ch.record(6, d as usize);
            }
        }
        for _ in 14..Checks::SAMPLE {
            ch.record(6, 6);
        }
        assert_eq!((ch.went_past(2), ch.went_past(3), ch.went_past(4)), (13, 13, 2));
        // Fold 3 has no check worth making; later records change nothing.
        let mut ch = Checks::new(false);
        for _ in 0..2 * Checks::SAMPLE {
            ch.record(3, 3);
        }
        assert_eq!(ch.mask, 0);
        assert!(!ch.at(2));
    }

    /// Every path this CPU runs (passed as a value: no process-wide state), every fold of
    /// both types, against the one-at-a-time deposit.
    #[test]
    fn every_path_every_fold_matches_one_at_a_time() {
        // Miri runs the portable path only, slowly: small inputs and a few folds.
        let (lens, folds64, folds32): (&[usize], &[usize], &[usize]) = if cfg!(miri) {
            (&[37], &[2, 3, 5, 12], &[2, 10])
        } else {
            (&[5, 100, 4999], &[0], &[0])
        };
        let all64: [usize; 51] = core::array::from_fn(|i| i + 2);
        let all32: [usize; 20] = core::array::from_fn(|i| i + 2);
        let folds64 = if folds64 == [0] { &all64[..] } else { folds64 };
        let folds32 = if folds32 == [0] { &all32[..] } else { folds32 };
        let mut ran = 0;
        for pf in Platform::all().into_iter().flatten() {
            for kind in 0..6 {
                for &n in lens {
                    let raw = values(kind, n, 0x9E37_79B9 ^ kind ^ n as u64);
                    let mut r32 = [0f32; 5000];
                    for (a, &b) in r32.iter_mut().zip(raw.iter()) {
                        *a = b as f32;
                    }
                    for &k in folds64 {
                        check::<f64>(pf, k, &raw[..n]);
                    }
                    for &k in folds32 {
                        check::<f32>(pf, k, &r32[..n]);
                    }
                }
            }
            ran += 1;
        }
        assert!(ran >= 2, "the portable and scalar paths run everywhere");
    }
}
