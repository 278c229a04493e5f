//! The panic boundary every export runs inside (as rustls-ffi's `panic.rs`).
//!
//! The core does not panic; a panic here would be a bug. Unwinding into C is undefined
//! behaviour, so each export catches it and returns a fixed value instead
//! (`ADN_INTERNAL_ERROR` for the status-returning functions). This needs the library to be
//! built with `panic = "unwind"` (the default); with `panic = "abort"` a bug aborts.

use crate::status::{adn_status, ADN_INTERNAL_ERROR, ADN_OK};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`, returning `on_panic` if it panics.
pub fn boundary<R>(on_panic: R, f: impl FnOnce() -> R) -> R {
    // AssertUnwindSafe: after a panic nothing of `f`'s state is used again; the caller only
    // sees the status, and outputs are documented as unspecified after an internal error.
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(on_panic)
}

/// Runs a status-returning body: `Ok` becomes `ADN_OK`, `Err(s)` becomes `s`, a panic
/// becomes `ADN_INTERNAL_ERROR`.
pub fn status(f: impl FnOnce() -> Result<(), adn_status>) -> adn_status {
    boundary(ADN_INTERNAL_ERROR, || match f() {
        Ok(()) => ADN_OK,
        Err(s) => s,
    })
}
