//! Firmware facts on the emulated Cortex-M4 (qemu `mps2-an386`): type sizes, the stack
//! high-water of the main calls, and instructions per element.
//!
//! Run with `-icount shift=0` (one instruction = 1 ns of virtual time): SysTick, clocked
//! by the 25 MHz system clock, then counts one tick per 40 instructions. The program
//! calibrates this on a loop of known length and refuses (exit status 2) if the ratio is
//! not the one `-icount shift=0` gives.

#![no_std]
#![no_main]

use core::fmt::Write;
use core::hint::black_box;

use reprosum_baremetal::{stack_pointer, Console};
use reprosum_core::{Accumulator, DynAccumulator, Encoded};

reprosum_baremetal::entry!(main);

/// The two input lengths; instructions per element is the slope between them, so the
/// fixed cost of a call cancels. Both are multiples of the f64 endurance (2048).
const N1: usize = 2048;
const N2: usize = 10240;

/// SysTick, the Cortex-M system timer (24-bit, counting down).
mod systick {
    const CSR: usize = 0xE000_E010;
    const RVR: usize = 0xE000_E014;
    const CVR: usize = 0xE000_E018;

    /// Starts it from 0xFFFFFF on the processor clock, without interrupt.
    pub fn start() {
        // SAFETY: the SysTick registers of the Cortex-M4 system control space; 32-bit
        // aligned device registers that this program alone uses.
        unsafe {
            (RVR as *mut u32).write_volatile(0x00FF_FFFF);
            (CVR as *mut u32).write_volatile(0);
            (CSR as *mut u32).write_volatile(0b101);
        }
    }

    /// The current count.
    pub fn now() -> u32 {
        // SAFETY: as in `start`; reading CVR has no side effect.
        unsafe { (CVR as *const u32).read_volatile() }
    }
}

/// SysTick ticks that `f` takes (at most 2^24 - 1).
#[inline(never)]
fn ticks(f: &mut dyn FnMut()) -> u64 {
    let a = systick::now();
    f();
    let b = systick::now();
    u64::from(a.wrapping_sub(b) & 0x00FF_FFFF)
}

/// Instructions of the calibration loop.
const CALIBRATION_INSNS: u64 = 2_000_000;

/// Ticks of a loop of `CALIBRATION_INSNS` instructions (`subs`, `bne`, 1,000,000 times).
fn calibrate() -> u64 {
    ticks(&mut || {
        let n: u32 = black_box(1_000_000);
        // SAFETY: a register-only countdown loop; touches no memory and no stack.
        unsafe {
            core::arch::asm!(
                "2:",
                "subs {0}, {0}, #1",
                "bne 2b",
                inout(reg) n => _,
                options(nomem, nostack),
            );
        }
    })
}

/// Bytes of stack `f` touches below the caller's frame (by painting the stack).
#[inline(never)]
fn stack_use(f: &mut dyn FnMut()) -> usize {
    const PAINT: usize = 16 * 1024;
    const GUARD: usize = 64;
    const PATTERN: u32 = 0xA5C3_5A3C;
    let sp = stack_pointer() & !3;
    let low = sp - PAINT;
    for a in (low..sp - GUARD).step_by(4) {
        // SAFETY: [low, sp - GUARD) is stack memory below the current frame: the stack
        // is the top of RAM (4 MiB; .bss ends far below), no interrupt is enabled, and
        // no object lives below the stack pointer; only later frames will use it.
        unsafe { (a as *mut u32).write_volatile(PATTERN) };
    }
    f();
    let mut a = low;
    // SAFETY: reads the same painted words back (aligned, in RAM).
    while a < sp - GUARD && unsafe { (a as *const u32).read_volatile() } == PATTERN {
        a += 4;
    }
    sp - a
}

/// The values the measurements sum: the first values of the wide-range input (f64,
/// +-1e12) and the same values as f32.
struct Inputs {
    f64s: [f64; N2],
    f32s: [f32; N2],
}

fn per_element(c: &mut Console, what: &str, insns_per_tick_x1000: u64, mut run: impl FnMut(usize)) {
    let t1 = ticks(&mut || run(N1));
    let t2 = ticks(&mut || run(N2));
    let d = t2.saturating_sub(t1);
    // instructions per element = d * (insns per tick) / (N2 - N1), printed to 0.1.
    let tenths = d * insns_per_tick_x1000 / 100 / (N2 - N1) as u64;
    let _ = writeln!(c, "insns/element  {what:<40} {}.{}", tenths / 10, tenths % 10);
}

fn main() -> u32 {
    let mut c = Console::new();
    let fpu = if cfg!(target_abi = "eabihf") {
        "FPU for f32"
    } else {
        "no FPU"
    };
    let _ = writeln!(c, "reprosum firmware facts, Cortex-M4 ({fpu}), qemu mps2-an386");

    let _ = writeln!(
        c,
        "size_of        Accumulator<f32, 3>   {} bytes",
        size_of::<Accumulator<f32, 3>>()
    );
    let _ = writeln!(
        c,
        "size_of        Accumulator<f64, 3>   {} bytes",
        size_of::<Accumulator<f64, 3>>()
    );
    let _ = writeln!(
        c,
        "size_of        DynAccumulator<f32>   {} bytes",
        size_of::<DynAccumulator<f32>>()
    );
    let _ = writeln!(
        c,
        "size_of        DynAccumulator<f64>   {} bytes",
        size_of::<DynAccumulator<f64>>()
    );
    let _ = writeln!(
        c,
        "size_of        Encoded               {} bytes",
        size_of::<Encoded>()
    );

    let mut inp = Inputs {
        f64s: [0.0; N2],
        f32s: [0.0; N2],
    };
    for ((d, s), x) in inp
        .f64s
        .iter_mut()
        .zip(inp.f32s.iter_mut())
        .zip(reprosum_testkit::mt::WideRange::new())
    {
        *d = x;
        *s = x as f32;
    }
    let (xd, xs) = (&inp.f64s[..], &inp.f32s[..]);

    // Stack high-water, less that of an empty call through the same wrapper.
    let base = stack_use(&mut || {
        black_box(0u32);
    });
    let mut stack = |what: &str, f: &mut dyn FnMut()| {
        let used = stack_use(f).saturating_sub(base);
        let _ = writeln!(c, "stack          {what:<40} {used} bytes");
    };
    stack("sum::<f32> (K = 3, add_slice path)", &mut || {
        black_box(reprosum_core::sum::<f32>(black_box(xs)).ok());
    });
    stack("sum::<f64> (K = 3, add_slice path)", &mut || {
        black_box(reprosum_core::sum::<f64>(black_box(xd)).ok());
    });
    stack("Accumulator<f32, 3>::add + value", &mut || {
        let mut a = Accumulator::<f32, 3>::new();
        black_box(a.add(black_box(1.5)).ok());
        black_box(a.value());
    });
    stack("Accumulator<f64, 3>::add + value", &mut || {
        let mut a = Accumulator::<f64, 3>::new();
        black_box(a.add(black_box(1.5)).ok());
        black_box(a.value());
    });
    stack("Accumulator<f64, 3>::merge", &mut || {
        let mut a = black_box(Accumulator::<f64, 3>::new());
        let b = black_box(Accumulator::<f64, 3>::new());
        black_box(a.merge(&b).ok());
    });
    stack("Accumulator<f64, 3>::to_bytes", &mut || {
        let a = black_box(Accumulator::<f64, 3>::new());
        let e = a.to_bytes();
        black_box(e.as_bytes().len());
    });
    stack("DynAccumulator<f64> (3) add_slice + value", &mut || {
        if let Ok(mut a) = DynAccumulator::<f64>::new(3) {
            black_box(a.add_slice(black_box(xd)).ok());
            black_box(a.value());
        }
    });
    // Includes the 512-byte input array the closure holds.
    stack("cumsum_in_place::<f64> (K = 3, 64 values)", &mut || {
        let mut v = [0.0f64; 64];
        v.copy_from_slice(&xd[..64]);
        black_box(reprosum_core::cumsum_in_place(black_box(&mut v[..])).ok());
    });

    systick::start();
    let cal = calibrate();
    let _ = writeln!(
        c,
        "calibration    {CALIBRATION_INSNS} instructions = {cal} SysTick ticks (40 with -icount shift=0)"
    );
    // -icount shift=0 gives 40 instructions per tick (25 MHz); allow the loop set-up.
    if !(49_000..=51_000).contains(&cal) {
        let _ = writeln!(
            c,
            "not run with -icount shift=0: instruction counts would be meaningless"
        );
        c.flush();
        return 2;
    }
    let ipt_x1000 = CALIBRATION_INSNS * 1000 / cal;
    per_element(&mut c, "sum::<f32> (K = 3)", ipt_x1000, |n| {
        black_box(reprosum_core::sum::<f32>(black_box(&xs[..n])).ok());
    });
    per_element(&mut c, "sum::<f64> (K = 3)", ipt_x1000, |n| {
        black_box(reprosum_core::sum::<f64>(black_box(&xd[..n])).ok());
    });
    per_element(&mut c, "Accumulator<f32, 3>::add per value", ipt_x1000, |n| {
        let mut a = Accumulator::<f32, 3>::new();
        for &x in black_box(&xs[..n]) {
            black_box(a.add(x).ok());
        }
        black_box(a.value());
    });
    per_element(&mut c, "Accumulator<f64, 3>::add per value", ipt_x1000, |n| {
        let mut a = Accumulator::<f64, 3>::new();
        for &x in black_box(&xd[..n]) {
            black_box(a.add(x).ok());
        }
        black_box(a.value());
    });
    per_element(&mut c, "plain f32 loop (s += x), for scale", ipt_x1000, |n| {
        black_box(black_box(&xs[..n]).iter().fold(0.0f32, |s, &x| s + x));
    });
    per_element(&mut c, "plain f64 loop (s += x), for scale", ipt_x1000, |n| {
        black_box(black_box(&xd[..n]).iter().fold(0.0f64, |s, &x| s + x));
    });
    c.flush();
    0
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let mut c = Console::new();
    let _ = writeln!(c, "PANIC: {info}");
    c.flush();
    reprosum_baremetal::exit(101)
}
