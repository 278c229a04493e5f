//! The floating-point control register (MXCSR on x86-64, FPCR on aarch64), for the tests
//! that run the library under a hostile mode (flush-to-zero, denormals-are-zero, another
//! rounding direction) and check that its entry points set the standard mode and restore
//! the caller's. The core keeps its own access to the register private; this is a second,
//! independent copy for tests. On other targets there is no register: [`control`] is 0 and
//! [`set_control`] does nothing.

/// The control register's current value.
#[inline]
pub fn control() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut csr: u32 = 0;
        // SAFETY: stmxcsr stores the 32-bit MXCSR to the given, valid, writable address.
        unsafe {
            core::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags));
        }
        u64::from(csr)
    }
    #[cfg(target_arch = "aarch64")]
    {
        let fpcr: u64;
        // SAFETY: reading FPCR has no side effect and is allowed at EL0.
        unsafe {
            core::arch::asm!("mrs {}, fpcr", out(reg) fpcr, options(nomem, nostack, preserves_flags));
        }
        fpcr
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        0
    }
}

/// Writes the control register of the calling thread.
///
/// # Safety
/// - `value` sets no reserved bit (x86-64: bits 16 and up of MXCSR; a reserved bit makes
///   the write fault): a value [`control`] returned, or one with only the rounding,
///   flush-to-zero and denormals-are-zero bits changed, is fine.
/// - It unmasks no exception (an unmasked exception traps at the next inexact operation).
/// - Rust assumes the default mode: while another is in force, Rust floating-point code
///   may compute other results than the ones it was compiled for. The caller runs only the
///   code under test in that mode (code whose behaviour in it is what the test checks) and
///   writes the saved value back before anything else runs on the thread.
#[inline]
pub unsafe fn set_control(value: u64) {
    #[cfg(target_arch = "x86_64")]
    {
        let csr = value as u32;
        // SAFETY: ldmxcsr loads MXCSR from a valid address; the caller guarantees no
        // reserved bit is set, so it does not fault.
        unsafe {
            core::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags, readonly));
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        // SAFETY: writing FPCR only changes this thread's floating-point mode; the caller
        // vouches for the value.
        unsafe {
            core::arch::asm!("msr fpcr, {}", in(reg) value, options(nomem, nostack, preserves_flags));
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = value;
    }
}

/// The standard mode the library sets, from a saved register value: x86-64 MXCSR 0x1F80
/// (every exception masked, round to nearest, FTZ and DAZ off); aarch64 FPCR with FZ,
/// RMode, FZ16, AH, FIZ and the trap enables cleared.
pub const fn standard(saved: u64) -> u64 {
    if cfg!(target_arch = "x86_64") {
        0x1F80
    } else if cfg!(target_arch = "aarch64") {
        const FZ: u64 = 1 << 24;
        const RMODE: u64 = 3 << 22;
        const FZ16: u64 = 1 << 19;
        const TRAPS: u64 = (0x1F << 8) | (1 << 15);
        const AH_FIZ: u64 = 3;
        saved & !(FZ | RMODE | FZ16 | TRAPS | AH_FIZ)
    } else {
        saved
    }
}
