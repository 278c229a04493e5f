//! The reprosum cross-target suite (see [`suite`]): one `no_std` module, run by a thin
//! `main` on every target: bare metal under `qemu-system-*` with semihosting, Linux under
//! qemu-user.

#![no_std]
#![warn(missing_docs)]

pub mod suite;
