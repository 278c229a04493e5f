//! Entry points of the cross-target suite: a bare-metal one (semihosting console, the
//! command line from `-semihosting-config arg=...`, exit status through
//! `SYS_EXIT_EXTENDED`) and a std one for the Linux targets under qemu-user.
//!
//! `force-fail` (bare metal: `-semihosting-config ...,arg=reprosum-cross,arg=force-fail`;
//! Linux: `--force-fail`) corrupts one expected bit, to check that a failure makes the run
//! exit non-zero.

#![cfg_attr(target_os = "none", no_std, no_main)]

use reprosum_cross::suite::{self, Options};

#[cfg(target_os = "none")]
reprosum_baremetal::entry!(bare_main);

#[cfg(target_os = "none")]
fn bare_main() -> u32 {
    reprosum_baremetal::paint_stack();
    let force_fail = force_fail();
    let mut console = reprosum_baremetal::Console::new();
    let opts = Options {
        force_fail,
        clock: Some(reprosum_baremetal::clock_ms),
        stack: Some(reprosum_baremetal::stack_use),
    };
    let failed = suite::run(&mut console, opts);
    console.flush();
    u32::from(failed != 0)
}

/// Whether the semihosting command line asks for the force-fail self-check. (Not inlined:
/// its buffer is off the stack for the run.)
#[cfg(target_os = "none")]
#[inline(never)]
fn force_fail() -> bool {
    let mut line = [0u8; 256];
    reprosum_baremetal::cmdline(&mut line).is_some_and(|c| {
        c.split_ascii_whitespace()
            .any(|a| a == "force-fail" || a == "--force-fail")
    })
}

/// Milliseconds since the first call.
#[cfg(not(target_os = "none"))]
fn clock_ms() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_millis() as u64
}

#[cfg(not(target_os = "none"))]
fn main() {
    use std::io::Write as _;

    /// Standard output as a `fmt::Write`.
    struct Stdout(std::io::Stdout);
    impl std::fmt::Write for Stdout {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write_all(s.as_bytes()).map_err(|_| std::fmt::Error)
        }
    }

    let force_fail = std::env::args()
        .skip(1)
        .any(|a| a == "--force-fail" || a == "force-fail");
    let mut out = Stdout(std::io::stdout());
    let opts = Options {
        force_fail,
        clock: Some(clock_ms),
        stack: None,
    };
    let failed = suite::run(&mut out, opts);
    let _ = out.0.flush();
    std::process::exit(i32::from(failed != 0));
}
