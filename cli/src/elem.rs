//! The two element types the command handles (f64 and f32), behind one trait.

use std::fmt::Display;
use std::str::FromStr;

use reprosum::Float;

/// An element type: a [`Float`] that npyz can read and write, with its names and its
/// little-endian byte form.
pub trait Elem: Float + Display + FromStr + npyz::Deserialize + npyz::Serialize {
    /// `"f64"` or `"f32"`.
    const NAME: &'static str;
    /// The largest fold (52 / 21); the smallest is 2.
    const MAX_FOLD: usize = <Self as Float>::MAX_FOLD;

    /// The value of the first `BYTES` bytes of `b`, little-endian.
    fn from_le(b: &[u8]) -> Self;
    /// Appends the little-endian bytes of `self` to `out`.
    fn push_le(self, out: &mut Vec<u8>);
}

impl Elem for f64 {
    const NAME: &'static str = "f64";

    fn from_le(b: &[u8]) -> Self {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        f64::from_le_bytes(a)
    }

    fn push_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl Elem for f32 {
    const NAME: &'static str = "f32";

    fn from_le(b: &[u8]) -> Self {
        let mut a = [0u8; 4];
        a.copy_from_slice(&b[..4]);
        f32::from_le_bytes(a)
    }

    fn push_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

/// The bit pattern as `0x` and 16 (f64) or 8 (f32) upper-case hex digits.
pub fn hex_bits<T: Elem>(x: T) -> String {
    format!("0x{:0width$X}", x.bits(), width = 2 * T::BYTES)
}

/// The value as Rust's `{}` prints it (shortest round trip; `NaN`, `inf`, `-inf`).
pub fn show<T: Elem>(x: T) -> String {
    format!("{x}")
}
