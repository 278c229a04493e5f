//! The number of threads the sums use.

use crate::panic;
use crate::status::{adn_status, from_error};
use core::ffi::c_uint;

/// Sets the number of threads `adn_sum_*`, `adn_cumsum_*` and `adn_acc_*_add_array` use:
/// `n` threads, 1 for the calling thread only, or 0 for the default (the environment
/// variable `ADN_NUM_THREADS` if it is a positive number, else the number of cores the
/// process may run on: its CPU affinity). The threads start here; `ADN_OUT_OF_MEMORY`, with
/// the previous setting kept, if the system refuses them. The bits of every result are the
/// same for every thread count.
#[no_mangle]
pub extern "C" fn adn_set_num_threads(n: c_uint) -> adn_status {
    panic::status(|| facade::set_num_threads(n as usize).map_err(from_error))
}

/// The number of threads a call uses (at least 1): the last `adn_set_num_threads` value
/// above 0, else the default.
#[no_mangle]
pub extern "C" fn adn_get_num_threads() -> c_uint {
    panic::boundary(1, || {
        c_uint::try_from(facade::num_threads()).unwrap_or(c_uint::MAX)
    })
}
