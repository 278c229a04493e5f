//! Minimal bare-metal support for the reprosum test programs under qemu: start-up code,
//! a semihosting console, the command line and an exit status.
//!
//! Two machines are supported, chosen by the target:
//!
//! - Cortex-M4 (`thumbv7em-none-eabi`, `thumbv7em-none-eabihf`) on `qemu-system-arm -machine
//!   mps2-an386`, and Cortex-M0 (`thumbv6m-none-eabi`) on `qemu-system-arm -machine microbit`
//!   (256 KiB of flash, 16 KiB of RAM): a vector table at address 0, a reset handler that
//!   enables the FPU (on the hard-float target only), copies `.data`, zeroes `.bss` and
//!   calls the program; every fault ends the run with status 102.
//! - RISC-V 32 (`riscv32imac-unknown-none-elf`, `riscv32imc-unknown-none-elf`) on
//!   `qemu-system-riscv32 -machine virt -bios none`: `_start` at the base of DRAM sets the
//!   stack and the trap vector, zeroes `.bss` and calls the program; every trap ends the
//!   run with status 102.
//!
//! [`paint_stack`] and [`stack_use`] measure the stack a program used.
//!
//! Output and exit go through semihosting (`-semihosting-config enable=on`): the exit uses
//! `SYS_EXIT_EXTENDED`, so qemu's own exit status is the program's.
//!
//! A program names its entry point with [`entry!`]; its return value is the exit status.
//! On any other target this crate is empty.

#![no_std]
#![warn(missing_docs)]

#[cfg(any(target_arch = "arm", target_arch = "riscv32"))]
mod imp;

#[cfg(any(target_arch = "arm", target_arch = "riscv32"))]
pub use imp::*;
