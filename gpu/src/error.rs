//! The error type of every GPU call.

use core::fmt;

/// Why a GPU call did not produce a result. Errors found before a launch leave every
/// output untouched.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GpuError {
    /// The driver library (libcuda) could not be opened.
    NoDriver,
    /// The driver has no device with this ordinal (or no device at all).
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the driver reports.
        count: usize,
    },
    /// A driver call failed.
    Driver {
        /// The driver function.
        call: &'static str,
        /// The `CUresult` code.
        code: i32,
        /// The driver's name for it, if it gave one.
        name: String,
    },
    /// The device failed the arithmetic probe (subnormals, ties to even, signed zero) or
    /// the known-answer self-check; it is refused.
    ProbeFailed(String),
    /// The fold is not one the kernels are built for (2..=8).
    UnsupportedFold(usize),
    /// Input and output lengths differ.
    LengthMismatch,
    /// More values than one accumulator can hold.
    CapacityExceeded,
    /// A launch setting is out of range (block size, grid size).
    InvalidLaunch(String),
    /// A pointer is not usable here (null with a non-zero length, misaligned, on another
    /// device, or input and output in different memory spaces).
    InvalidPointer(&'static str),
    /// The core refused the state the device returned (never expected).
    Core(reprosum_core::Error),
    /// The HIP runtime library (libamdhip64.so.7, .so.6, .so.5 or libamdhip64.so) could not
    /// be loaded.
    NoHipRuntime,
    /// The HIP runtime has no device with this ordinal (or no device at all).
    NoHipDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the runtime reports.
        count: usize,
    },
    /// A host buffer sized by the input (a staging copy, a result's temporary) could not be
    /// allocated; nothing was written.
    HostOutOfMemory {
        /// The bytes asked for.
        bytes: usize,
    },
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoDriver => f.write_str("the CUDA driver library (libcuda) could not be loaded"),
            GpuError::NoDevice { ordinal, count } => {
                write!(f, "no CUDA device {ordinal} (the driver reports {count})")
            }
            GpuError::Driver { call, code, name } => write!(f, "{call} failed: {name} ({code})"),
            GpuError::ProbeFailed(why) => write!(f, "device refused: {why}"),
            GpuError::UnsupportedFold(k) => write!(f, "fold {k} is not supported on the GPU (2..=8)"),
            GpuError::LengthMismatch => f.write_str("input and output lengths differ"),
            GpuError::CapacityExceeded => f.write_str("more values than one accumulator can hold"),
            GpuError::InvalidLaunch(why) => write!(f, "invalid launch: {why}"),
            GpuError::InvalidPointer(why) => write!(f, "invalid pointer: {why}"),
            GpuError::Core(e) => write!(f, "core error: {e:?}"),
            GpuError::NoHipRuntime => f.write_str(
                "the HIP runtime library (libamdhip64.so.7, .so.6, .so.5 or libamdhip64.so) could not be loaded",
            ),
            GpuError::NoHipDevice { ordinal, count } => {
                write!(f, "no HIP device {ordinal} (the runtime reports {count})")
            }
            GpuError::HostOutOfMemory { bytes } => {
                write!(f, "out of host memory ({bytes} bytes asked for)")
            }
        }
    }
}

impl std::error::Error for GpuError {}

impl From<reprosum_core::Error> for GpuError {
    fn from(e: reprosum_core::Error) -> Self {
        match e {
            reprosum_core::Error::CapacityExceeded => GpuError::CapacityExceeded,
            reprosum_core::Error::LengthMismatch => GpuError::LengthMismatch,
            other => GpuError::Core(other),
        }
    }
}
