//! Status codes and their messages.

use core::ffi::c_char;
use reprosum_core::Error;

/// A status code: `ADN_OK` (0) on success, one of the fixed non-zero `ADN_*` codes on
/// failure. A plain `int32_t`, so any value a caller passes back is defined.
pub type adn_status = i32;

/// Success.
pub const ADN_OK: adn_status = 0;
/// A required pointer was NULL (an array pointer may be NULL only when its length is 0).
pub const ADN_NULL_POINTER: adn_status = 1;
/// More values than the capacity (`ADN_CAPACITY_F64` / `ADN_CAPACITY_F32`), counting what an
/// accumulator already holds, or a length no array at that address can have. Checked
/// before anything is read or written.
pub const ADN_CAPACITY_EXCEEDED: adn_status = 2;
/// A fold outside 2 to 52 (double) or 2 to 21 (float).
pub const ADN_INVALID_FOLD: adn_status = 3;
/// A cumulative sum's input and output overlap without being equal, or an array overlaps
/// the accumulator it is added to.
pub const ADN_OVERLAP: adn_status = 4;
/// Bytes that are not a valid accumulator encoding of this type.
pub const ADN_BAD_ENCODING: adn_status = 5;
/// This library was built without support for the device asked for (a GPU entry point of
/// a build without that GPU back end).
pub const ADN_NOT_BUILT: adn_status = 6;
/// No usable device (no driver, no GPU, or the runtime library could not be loaded).
pub const ADN_NO_DEVICE: adn_status = 7;
/// A device or runtime call failed.
pub const ADN_DEVICE_ERROR: adn_status = 8;
/// Memory could not be allocated (host or device).
pub const ADN_OUT_OF_MEMORY: adn_status = 9;
/// A bug in the library (a caught panic). After it, an output array's contents are
/// unspecified; please report it.
pub const ADN_INTERNAL_ERROR: adn_status = 10;
/// Merging accumulators of different folds.
pub const ADN_FOLD_MISMATCH: adn_status = 11;
/// The output buffer is shorter than the encoding.
pub const ADN_BUFFER_TOO_SMALL: adn_status = 12;
/// The accumulator struct was not set up by `_init` or `_from_bytes` (or was overwritten).
pub const ADN_NOT_INITIALIZED: adn_status = 13;
/// A pointer is not aligned for its type.
pub const ADN_MISALIGNED: adn_status = 14;
/// A GPU entry point got memory it cannot use: input and output in different memories
/// (host and device, or two devices).
pub const ADN_INVALID_POINTER: adn_status = 15;
/// An MPI call failed (`include/reprosum_mpi.h`, which maps an MPI error code to this; the
/// library itself makes no MPI calls).
pub const ADN_MPI_ERROR: adn_status = 16;
/// A keyed sum's key that is negative or not below the number of keys
/// (`adn_sum_by_key_*`). Found before anything is written.
pub const ADN_KEY_OUT_OF_RANGE: adn_status = 17;
/// Segment offsets that are not a layout: a first entry other than 0, or an entry smaller
/// than the one before (`adn_segmented_*`).
pub const ADN_INVALID_OFFSETS: adn_status = 18;
/// A matrix row longer than the row stride: `cols > row_stride` (`adn_sum_rows_*`).
pub const ADN_INVALID_STRIDE: adn_status = 19;

/// The message of a status code. The text is static (never freed by the caller); an
/// unknown code gets a text too, so the result is never NULL.
#[no_mangle]
pub extern "C" fn adn_status_string(status: adn_status) -> *const c_char {
    crate::panic::boundary(c"internal error (panic in adn_status_string)".as_ptr(), || {
        message(status).as_ptr()
    })
}

/// The message of a status code, as a C string.
pub(crate) fn message(status: adn_status) -> &'static core::ffi::CStr {
    match status {
        ADN_OK => c"success",
        ADN_NULL_POINTER => c"a required pointer is NULL",
        ADN_CAPACITY_EXCEEDED => c"more values than the accumulator's capacity",
        ADN_INVALID_FOLD => c"fold outside 2 to 52 (double) or 2 to 21 (float)",
        ADN_OVERLAP => c"input and output ranges overlap (only in == out is allowed)",
        ADN_BAD_ENCODING => c"invalid accumulator encoding",
        ADN_NOT_BUILT => c"library built without support for this device",
        ADN_NO_DEVICE => c"no usable device",
        ADN_DEVICE_ERROR => c"device or runtime error",
        ADN_OUT_OF_MEMORY => c"out of memory",
        ADN_INTERNAL_ERROR => c"internal error (a bug in reprosum)",
        ADN_FOLD_MISMATCH => c"accumulators of different folds",
        ADN_BUFFER_TOO_SMALL => c"output buffer too small",
        ADN_NOT_INITIALIZED => c"accumulator not initialized",
        ADN_MISALIGNED => c"pointer not aligned for its type",
        ADN_INVALID_POINTER => c"memory the device cannot use (input and output in different memories)",
        ADN_MPI_ERROR => c"an MPI call failed",
        ADN_KEY_OUT_OF_RANGE => c"a key is negative or not below the number of keys",
        ADN_INVALID_OFFSETS => c"segment offsets do not start at 0 or decrease",
        ADN_INVALID_STRIDE => c"a row is longer than the row stride",
        _ => c"unknown status code",
    }
}

/// The status of a core error.
pub(crate) fn from_error(e: Error) -> adn_status {
    match e {
        Error::CapacityExceeded => ADN_CAPACITY_EXCEEDED,
        Error::InvalidFold => ADN_INVALID_FOLD,
        Error::FoldMismatch => ADN_FOLD_MISMATCH,
        Error::Encoding(_) => ADN_BAD_ENCODING,
        Error::OutOfMemory => ADN_OUT_OF_MEMORY,
        Error::KeyOutOfRange => ADN_KEY_OUT_OF_RANGE,
        Error::InvalidOffsets => ADN_INVALID_OFFSETS,
        Error::InvalidStride => ADN_INVALID_STRIDE,
        // LengthMismatch cannot happen (the C ABI passes one length); a new core error is a
        // bug here until mapped.
        _ => ADN_INTERNAL_ERROR,
    }
}
