//! The implementation for the two bare-metal architectures.

use core::fmt;

/// Semihosting operation numbers (Arm's "Semihosting for AArch32 and AArch64", also used
/// by the RISC-V semihosting specification).
mod op {
    pub const SYS_WRITE0: usize = 0x04;
    pub const SYS_CLOCK: usize = 0x10;
    pub const SYS_GET_CMDLINE: usize = 0x15;
    pub const SYS_EXIT_EXTENDED: usize = 0x20;
    /// The reason code of a normal application exit.
    pub const ADP_STOPPED_APPLICATION_EXIT: usize = 0x2_0026;
}

/// One semihosting call: `op` with the parameter (a value or the address of a parameter
/// block). Returns the host's answer.
///
/// # Safety
/// `arg` must be what the operation expects: for the operations used here, the address of
/// a parameter block or string that is valid for the host to read (and, for
/// `SYS_GET_CMDLINE`, to write) for the duration of the call.
#[inline(never)]
unsafe fn semihost(op: usize, arg: usize) -> usize {
    let ret: usize;
    #[cfg(target_arch = "arm")]
    // SAFETY: `bkpt 0xab` is the semihosting trap; qemu handles it, reads or writes only
    // the memory the caller passed (valid per this function's contract) and returns in r0.
    unsafe {
        core::arch::asm!("bkpt #0xab", inout("r0") op => ret, in("r1") arg, options(nostack));
    }
    #[cfg(target_arch = "riscv32")]
    // SAFETY: the uncompressed slli/ebreak/srai sequence, aligned so that it does not cross
    // a page, is the RISC-V semihosting trap; qemu handles it as above, returning in a0.
    unsafe {
        core::arch::asm!(
            ".balign 16",
            ".option push",
            ".option norvc",
            "slli x0, x0, 0x1f",
            "ebreak",
            "srai x0, x0, 0x7",
            ".option pop",
            inout("a0") op => ret,
            in("a1") arg,
            options(nostack),
        );
    }
    ret
}

/// Writes a string to the host's standard output (through a 128-byte NUL-terminated
/// buffer; NUL bytes in `s` are written as `?`).
pub fn write_str(s: &str) {
    let mut buf = [0u8; 128];
    for chunk in s.as_bytes().chunks(buf.len() - 1) {
        for (b, &c) in buf.iter_mut().zip(chunk) {
            *b = if c == 0 { b'?' } else { c };
        }
        buf[chunk.len()] = 0;
        // SAFETY: `buf` is a NUL-terminated string that lives across the call.
        unsafe {
            semihost(op::SYS_WRITE0, buf.as_ptr() as usize);
        }
    }
}

/// The host's standard output as a [`fmt::Write`], buffered per line.
pub struct Console {
    buf: [u8; 256],
    len: usize,
}

impl Console {
    /// An empty console buffer.
    pub const fn new() -> Self {
        Console {
            buf: [0; 256],
            len: 0,
        }
    }

    /// Writes out what is buffered.
    pub fn flush(&mut self) {
        let n = self.len.min(self.buf.len());
        // The buffer only ever holds whole UTF-8 characters (see `write_str`).
        if let Ok(s) = core::str::from_utf8(&self.buf[..n]) {
            write_str(s);
        }
        self.len = 0;
    }
}

impl Default for Console {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Write for Console {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for ch in s.chars() {
            let mut enc = [0u8; 4];
            let e = ch.encode_utf8(&mut enc).as_bytes();
            if self.len + e.len() > self.buf.len() {
                self.flush();
            }
            let end = self.len + e.len();
            if let Some(dst) = self.buf.get_mut(self.len..end) {
                dst.copy_from_slice(e);
                self.len = end;
            }
            if ch == '\n' {
                self.flush();
            }
        }
        Ok(())
    }
}

impl Drop for Console {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The semihosting command line (qemu: the `arg=` items of `-semihosting-config`, joined
/// with spaces) in `buf`, or `None` if the host gives none or it does not fit.
pub fn cmdline(buf: &mut [u8]) -> Option<&str> {
    let mut block = [buf.as_mut_ptr() as usize, buf.len()];
    // SAFETY: the block names `buf`, valid for writes of its length; the host writes at
    // most that many bytes and the actual length back into the block.
    let r = unsafe { semihost(op::SYS_GET_CMDLINE, block.as_mut_ptr() as usize) };
    if r != 0 {
        return None;
    }
    let n = block[1].min(buf.len());
    core::str::from_utf8(&buf[..n]).ok()
}

/// Host time since the program started, in milliseconds (semihosting's `SYS_CLOCK`, in
/// centiseconds; 0 if the host does not answer). This is wall-clock time of the emulator,
/// not a cycle count.
pub fn clock_ms() -> u64 {
    // SAFETY: SYS_CLOCK takes no parameter block (the argument must be 0).
    let cs = unsafe { semihost(op::SYS_CLOCK, 0) };
    if cs == usize::MAX {
        0
    } else {
        cs as u64 * 10
    }
}

/// Ends the run; qemu exits with `status` (0 = success).
pub fn exit(status: u32) -> ! {
    let block = [op::ADP_STOPPED_APPLICATION_EXIT, status as usize];
    // SAFETY: the block is two words, readable across the call.
    unsafe {
        semihost(op::SYS_EXIT_EXTENDED, block.as_ptr() as usize);
    }
    // Not reached under qemu with semihosting; without it, stop here.
    loop {
        core::hint::spin_loop();
    }
}

/// The current stack pointer.
#[inline(always)]
pub fn stack_pointer() -> usize {
    let sp: usize;
    #[cfg(target_arch = "arm")]
    // SAFETY: reads a register; no memory access.
    unsafe {
        core::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags));
    }
    #[cfg(target_arch = "riscv32")]
    // SAFETY: reads a register; no memory access.
    unsafe {
        core::arch::asm!("mv {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags));
    }
    sp
}

extern "C" {
    /// The top of the stack region (its first address past the end), from the linker script.
    static __stack_top: u8;
    /// The bottom of the stack region (the end of bss), from the linker script.
    static __stack_limit: u8;
}

/// The word [`paint_stack`] fills the free stack with.
const PAINT: u32 = 0x5EED_C0DE;

/// The stack region: (lowest address, one past the highest).
fn stack_region() -> (usize, usize) {
    // Only the addresses of the linker-defined symbols are taken; nothing is read.
    (
        core::ptr::addr_of!(__stack_limit) as usize,
        core::ptr::addr_of!(__stack_top) as usize,
    )
}

/// Fills the free part of the stack region (from its bottom to 256 bytes below the current
/// stack pointer) with a pattern, so that [`stack_use`] can tell later how deep the stack
/// went. Call it once, early.
#[inline(never)]
pub fn paint_stack() {
    let (lo, _) = stack_region();
    let hi = stack_pointer().saturating_sub(256);
    let mut a = (lo + 3) & !3;
    while a + 4 <= hi {
        // SAFETY: the words between the end of bss and below the stack pointer are free RAM
        // that no object lives in (the stack grows down into it later), aligned.
        unsafe { core::ptr::write_volatile(a as *mut u32, PAINT) };
        a += 4;
    }
}

/// (The most stack used since [`paint_stack`], the size of the stack region), in bytes:
/// the distance from the top of the region to the lowest word no longer painted.
pub fn stack_use() -> (usize, usize) {
    let (lo, top) = stack_region();
    let mut a = (lo + 3) & !3;
    // SAFETY: reads aligned words of the free stack region, below the stack pointer (the
    // words of this frame are above it).
    while a + 4 <= top && unsafe { core::ptr::read_volatile(a as *const u32) } == PAINT {
        a += 4;
    }
    (top - a, top - lo)
}

extern "Rust" {
    /// The program's entry point, defined by [`entry!`].
    fn __reprosum_baremetal_main() -> u32;
}

/// Called by the start-up code once memory is set up: runs the program and exits with
/// its status.
#[no_mangle]
extern "C" fn reprosum_baremetal_start() -> ! {
    // SAFETY: `entry!` defines this symbol with this signature; there is exactly one.
    let status = unsafe { __reprosum_baremetal_main() };
    exit(status)
}

/// Called for every exception or trap the program does not expect: says so and exits
/// with status 102 (so a fault fails the run instead of hanging qemu).
#[no_mangle]
extern "C" fn reprosum_baremetal_fault() -> ! {
    write_str("\nFAULT: unexpected exception or trap\n");
    exit(102)
}

/// Defines the program's entry point: `entry!(main)` with `fn main() -> u32`, the exit
/// status.
#[macro_export]
macro_rules! entry {
    ($main:path) => {
        #[doc(hidden)]
        #[no_mangle]
        pub fn __reprosum_baremetal_main() -> u32 {
            let f: fn() -> u32 = $main;
            f()
        }
    };
}

#[cfg(feature = "panic-handler")]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    use core::fmt::Write as _;
    let mut c = Console::new();
    let _ = writeln!(c, "\nPANIC: {info}");
    c.flush();
    exit(101)
}

/// Sets CP10 and CP11 to full access in CPACR (the FPU is off after reset).
#[cfg(all(target_arch = "arm", reprosum_fpu))]
macro_rules! FPU_ENABLE {
    () => {
        "    ldr r0, =0xE000ED88
             ldr r1, [r0]
             orr r1, r1, #0x00F00000
             str r1, [r0]
             dsb
             isb"
    };
}

/// The soft-float target leaves the FPU off: a floating-point instruction would fault.
#[cfg(all(target_arch = "arm", not(reprosum_fpu)))]
macro_rules! FPU_ENABLE {
    () => {
        ""
    };
}

#[cfg(target_arch = "arm")]
core::arch::global_asm!(
    // The vector table: initial stack pointer, reset, then the 14 system exceptions.
    ".section .vector_table, \"a\"",
    ".p2align 2",
    ".word __stack_top",
    ".word reprosum_reset",
    ".rept 14",
    ".word reprosum_default_handler",
    ".endr",
    "",
    ".section .text.reprosum_reset, \"ax\"",
    ".p2align 2",
    ".global reprosum_reset",
    ".type reprosum_reset, %function",
    ".thumb_func",
    "reprosum_reset:",
    FPU_ENABLE!(),
    // Copy .data from its load address. (16-bit Thumb instructions only, no post-indexed
    // loads and stores, so that the same code runs on the Cortex-M0's ARMv6-M.)
    "    ldr r0, =__sdata",
    "    ldr r1, =__edata",
    "    ldr r2, =__sidata",
    "1:  cmp r0, r1",
    "    bhs 2f",
    "    ldr r3, [r2]",
    "    str r3, [r0]",
    "    adds r2, r2, #4",
    "    adds r0, r0, #4",
    "    b 1b",
    // Zero .bss.
    "2:  ldr r0, =__sbss",
    "    ldr r1, =__ebss",
    "    movs r2, #0",
    "3:  cmp r0, r1",
    "    bhs 4f",
    "    str r2, [r0]",
    "    adds r0, r0, #4",
    "    b 3b",
    "4:  bl reprosum_baremetal_start",
    "    b 4b",
    ".ltorg",
    "",
    ".global reprosum_default_handler",
    ".type reprosum_default_handler, %function",
    ".thumb_func",
    "reprosum_default_handler:",
    "    bl reprosum_baremetal_fault",
    "    b reprosum_default_handler",
);

#[cfg(target_arch = "riscv32")]
core::arch::global_asm!(
    ".section .text.reprosum_start, \"ax\"",
    ".global _start",
    "_start:",
    ".option push",
    ".option norelax",
    "    la sp, __stack_top",
    "    la t0, reprosum_trap",
    "    csrw mtvec, t0",
    "    la t0, __sbss",
    "    la t1, __ebss",
    "1:  bgeu t0, t1, 2f",
    "    sw zero, 0(t0)",
    "    addi t0, t0, 4",
    "    j 1b",
    "2:  call reprosum_baremetal_start",
    "3:  j 3b",
    "",
    ".balign 4",
    "reprosum_trap:",
    "    call reprosum_baremetal_fault",
    "    j reprosum_trap",
    ".option pop",
);
