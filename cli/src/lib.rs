//! The parsers and printers of the `reprosum` command, as a library: the `.npy` header
//! reader and writer ([`npy`]), the text reader ([`text`]), the number printer
//! ([`number`]) and the escaping of input in messages ([`escape`]). Each takes bytes and
//! returns a `Result`, never panics on any input, and runs in time linear in its input, so
//! a fuzzer can call it directly.

#![warn(missing_docs)]

pub mod elem;
pub mod escape;
pub mod npy;
pub mod number;
pub mod text;

pub use elem::Elem;

/// An element type, as named on the command line and in `.npy` headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Dtype {
    /// 64-bit IEEE binary64 (`float64`, `<f8`).
    F64,
    /// 32-bit IEEE binary32 (`float32`, `<f4`).
    F32,
}

impl Dtype {
    /// `"f64"` or `"f32"`.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F64 => "f64",
            Dtype::F32 => "f32",
        }
    }

    /// Bytes per value: 8 or 4.
    pub fn bytes(self) -> usize {
        match self {
            Dtype::F64 => 8,
            Dtype::F32 => 4,
        }
    }
}
