//! Firmware facts of `reprosum-core` on Cortex-M4, measured under qemu (`mps2-an386`).
//!
//! - `size-base`, `size-f32`, `size-f64`: one program without and with a call of
//!   `reprosum_core::sum::<f32>` / `::<f64>` (K = 3); the difference of their sizes is the
//!   code the sum adds (`cross/run-all.sh`, run without arguments, prints it).
//! - `facts`: the size of the accumulator types, the stack high-water of the main calls
//!   (measured by painting the stack) and instructions per element from qemu's instruction
//!   counter (SysTick under `-icount shift=0`).
//!
//! This library holds what the probes share.

#![no_std]
#![warn(missing_docs)]

/// The input of the code-size probes: kept opaque to the optimiser with `black_box`, so
/// that the call is compiled as for unknown data.
pub static PROBE_F32: [f32; 16] = [1.0; 16];
/// The f64 input of the code-size probes.
pub static PROBE_F64: [f64; 16] = [1.0; 16];
