//! The error type of every GPU call.

use core::fmt;

/// A GPU programming interface, for errors and messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Api {
    /// NVIDIA's CUDA driver API.
    Cuda,
    /// AMD's HIP runtime.
    Hip,
}

impl Api {
    /// The name users know it by.
    pub fn name(self) -> &'static str {
        match self {
            Api::Cuda => "CUDA",
            Api::Hip => "HIP",
        }
    }
}

/// Why a GPU call did not produce a result. Errors found before a launch leave every
/// output untouched.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GpuError {
    /// The runtime library could not be opened: the CUDA driver (libcuda), or the HIP
    /// runtime (libamdhip64.so.7, .so.6, .so.5 or libamdhip64.so) with every function used.
    NoRuntime(Api),
    /// The runtime has no device with this ordinal (or no device at all).
    NoDevice {
        /// The runtime.
        api: Api,
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the runtime reports.
        count: usize,
    },
    /// A runtime call failed.
    Driver {
        /// The runtime function (its name says which API: `cu...`, `hip...`).
        call: &'static str,
        /// Its status code (`CUresult`, `hipError_t`).
        code: i32,
        /// The driver's name for it, if it gave one.
        name: String,
    },
    /// The device failed the arithmetic probe (subnormals, ties to even, signed zero) or
    /// the known-answer self-check; it is refused.
    ProbeFailed(String),
    /// The fold is not one of the format's (2..=52 for f64, 2..=21 for f32).
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
    /// An output overlaps an input other than where the call allows it (a cumulative sum's
    /// `out == input`).
    Overlap(&'static str),
    /// The core refused the state the device returned (never expected).
    Core(reprosum_core::Error),
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
            GpuError::NoRuntime(Api::Cuda) => f.write_str("the CUDA driver library (libcuda) could not be loaded"),
            GpuError::NoRuntime(Api::Hip) => f.write_str(
                "the HIP runtime library (libamdhip64.so.7, .so.6, .so.5 or libamdhip64.so) could not be loaded",
            ),
            GpuError::NoDevice { api, ordinal, count } => {
                write!(f, "no {} device {ordinal} (the runtime reports {count})", api.name())
            }
            GpuError::Driver { call, code, name } => write!(f, "{call} failed: {name} ({code})"),
            GpuError::ProbeFailed(why) => write!(f, "device refused: {why}"),
            GpuError::UnsupportedFold(k) => write!(
                f,
                "fold {k} is outside 2..={} (f64) or 2..={} (f32)",
                <f64 as reprosum_core::Float>::MAX_FOLD,
                <f32 as reprosum_core::Float>::MAX_FOLD
            ),
            GpuError::LengthMismatch => f.write_str("input and output lengths differ"),
            GpuError::CapacityExceeded => f.write_str("more values than one accumulator can hold"),
            GpuError::InvalidLaunch(why) => write!(f, "invalid launch: {why}"),
            GpuError::InvalidPointer(why) => write!(f, "invalid pointer: {why}"),
            GpuError::Overlap(why) => write!(f, "overlapping arrays: {why}"),
            GpuError::Core(e) => write!(f, "core error: {e:?}"),
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
