//! The floating-point environment the format needs: round-to-nearest-even, subnormals
//! kept (no flush-to-zero, no denormals-are-zero), no traps.
//!
//! A caller, or a fast-math library it loaded, may have changed the control register
//! (MXCSR on x86-64, FPCR on aarch64). [`IeeeGuard`] saves it, sets the standard mode and
//! restores the saved value when dropped; [`with_ieee_fp`] runs a closure under one. Use
//! them around whole-slice work, not per element: reading and writing the register costs
//! tens of cycles. On other targets they do nothing (the soft-float and Cortex-M FPU
//! defaults are already the standard mode; firmware that sets FZ must clear it itself).

/// Saves the floating-point control register, sets round-to-nearest with subnormals kept
/// and exceptions masked, and restores the saved register when dropped.
///
/// The register belongs to a thread, so a guard cannot be sent to another thread (its drop
/// would write one thread's saved mode into another's register):
///
/// ```compile_fail
/// let g = reprosum_core::fpenv::IeeeGuard::new();
/// std::thread::spawn(move || drop(g));
/// ```
#[must_use = "the standard mode holds only while the guard lives"]
pub struct IeeeGuard {
    #[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
    saved: u64,
    /// Neither `Send` nor `Sync`: the guard restores the register of the thread that made it.
    _thread: core::marker::PhantomData<*const ()>,
}

impl IeeeGuard {
    /// Saves the control register and sets the standard mode.
    #[inline]
    pub fn new() -> Self {
        let saved = read();
        write(standard(saved));
        IeeeGuard {
            saved,
            _thread: core::marker::PhantomData,
        }
    }
}

impl Default for IeeeGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for IeeeGuard {
    #[inline]
    fn drop(&mut self) {
        write(self.saved);
    }
}

/// Runs `f` with the standard floating-point mode and restores the caller's mode after
/// (also if `f` unwinds).
#[inline]
pub fn with_ieee_fp<R>(f: impl FnOnce() -> R) -> R {
    let _guard = IeeeGuard::new();
    f()
}

// The register itself is private: a safe public `write` could set bits that Rust treats as
// undefined behaviour the moment they take effect (another rounding mode, unmasked
// exceptions, reserved bits). Only the guard writes it, and only with the standard mode or
// a value it read.

/// The control register's current value (0 on targets without one handled here, and under
/// miri, which cannot run the instructions: the mode's effect is tested natively).
#[inline]
fn read() -> u64 {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let mut csr: u32 = 0;
        // SAFETY: stmxcsr stores the 32-bit MXCSR to the given, valid, writable address.
        unsafe {
            core::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags));
        }
        csr as u64
    }
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    {
        let fpcr: u64;
        // SAFETY: reading FPCR has no side effects and is allowed at EL0.
        unsafe {
            core::arch::asm!("mrs {}, fpcr", out(reg) fpcr, options(nomem, nostack, preserves_flags));
        }
        fpcr
    }
    #[cfg(any(miri, not(any(target_arch = "x86_64", target_arch = "aarch64"))))]
    {
        0
    }
}

/// Writes the control register (no effect on targets without one handled here). Only
/// [`IeeeGuard`] calls it, with a value from [`read`] or [`standard`].
#[inline]
fn write(value: u64) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let csr = value as u32;
        // SAFETY: ldmxcsr loads MXCSR from a valid address; `value` comes from `read` or
        // `standard`, which only hold defined MXCSR bits, so no #GP can occur.
        unsafe {
            core::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags, readonly));
        }
    }
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    {
        // SAFETY: writing FPCR only changes the floating-point mode of this thread.
        unsafe {
            core::arch::asm!("msr fpcr, {}", in(reg) value, options(nomem, nostack, preserves_flags));
        }
    }
    #[cfg(any(miri, not(any(target_arch = "x86_64", target_arch = "aarch64"))))]
    {
        let _ = value;
    }
}

/// The standard mode derived from a saved register value.
///
/// x86-64: MXCSR = 0x1F80 (all exceptions masked, round to nearest, FTZ and DAZ off).
/// aarch64: FPCR with FZ, RMode, FZ16, AH, FIZ and the trap enables cleared.
#[inline]
fn standard(saved: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let _ = saved;
        0x1F80
    }
    #[cfg(target_arch = "aarch64")]
    {
        const FZ: u64 = 1 << 24;
        const RMODE: u64 = 3 << 22;
        const FZ16: u64 = 1 << 19;
        const TRAPS: u64 = (0x1F << 8) | (1 << 15);
        const AH_FIZ: u64 = 3;
        saved & !(FZ | RMODE | FZ16 | TRAPS | AH_FIZ)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        saved
    }
}
