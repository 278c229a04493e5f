//! Writes the linker script for the target into OUT_DIR and puts OUT_DIR on the linker's
//! search path, so that `-C link-arg=-Treprosum-baremetal.x` (cross/.cargo/config.toml)
//! finds it from any crate that depends on this one.

use std::{env, fs, path::PathBuf};

fn main() {
    let target = env::var("TARGET").unwrap_or_default();
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    // Cortex-M0 (thumbv6m): the micro:bit; other Cortex-M: the MPS2 AN386 board.
    let script = if target.starts_with("thumbv6m") {
        Some(include_str!("microbit.x"))
    } else if target.starts_with("thumbv") {
        Some(include_str!("cortex-m.x"))
    } else if target.starts_with("riscv32") {
        Some(include_str!("riscv32-virt.x"))
    } else {
        None
    };
    if let Some(script) = script {
        fs::write(out.join("reprosum-baremetal.x"), script).expect("write the linker script");
        fs::write(
            out.join("reprosum-cortex-m-sections.x"),
            include_str!("cortex-m-sections.x"),
        )
        .expect("write the linker script");
        println!("cargo:rustc-link-search={}", out.display());
    }
    // The Cortex-M start-up enables the FPU only on the hard-float target, so that a
    // floating-point instruction in a soft-float build would fault instead of running.
    println!("cargo::rustc-check-cfg=cfg(reprosum_fpu)");
    if target.starts_with("thumb") && target.ends_with("eabihf") {
        println!("cargo:rustc-cfg=reprosum_fpu");
    }
    println!("cargo:rerun-if-changed=cortex-m.x");
    println!("cargo:rerun-if-changed=cortex-m-sections.x");
    println!("cargo:rerun-if-changed=microbit.x");
    println!("cargo:rerun-if-changed=riscv32-virt.x");
    println!("cargo:rerun-if-changed=build.rs");
}
