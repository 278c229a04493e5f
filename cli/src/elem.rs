//! The two element types the command handles (f64 and f32), behind one trait.

use std::fmt::{Display, LowerExp};
use std::str::FromStr;

use reprosum::Float;

/// An element type: a [`Float`] with its name, its byte forms and its text forms.
pub trait Elem: Float + Display + LowerExp + FromStr + Send + Sync {
    /// `"f64"` or `"f32"`.
    const NAME: &'static str;
    /// The largest fold (52 / 21); the smallest is 2.
    const MAX_FOLD: usize = <Self as Float>::MAX_FOLD;

    /// The value of the first `BYTES` bytes of `b`, little-endian.
    fn from_le(b: &[u8]) -> Self;
    /// The value of the first `BYTES` bytes of `b`, big-endian.
    fn from_be(b: &[u8]) -> Self;
    /// Appends the bytes of `self` to `out`, big-endian if `big`, else little-endian.
    fn push_bytes(self, big: bool, out: &mut Vec<u8>);
}

macro_rules! elem {
    ($t:ty, $name:literal, $n:literal) => {
        impl Elem for $t {
            const NAME: &'static str = $name;

            fn from_le(b: &[u8]) -> Self {
                let mut a = [0u8; $n];
                a.copy_from_slice(&b[..$n]);
                <$t>::from_le_bytes(a)
            }

            fn from_be(b: &[u8]) -> Self {
                let mut a = [0u8; $n];
                a.copy_from_slice(&b[..$n]);
                <$t>::from_be_bytes(a)
            }

            fn push_bytes(self, big: bool, out: &mut Vec<u8>) {
                if big {
                    out.extend_from_slice(&self.to_be_bytes());
                } else {
                    out.extend_from_slice(&self.to_le_bytes());
                }
            }
        }
    };
}

elem!(f64, "f64", 8);
elem!(f32, "f32", 4);

/// The bit pattern as `0x` and 16 (f64) or 8 (f32) upper-case hex digits.
///
/// ```
/// assert_eq!(reprosum_cli::elem::hex_bits(1.0f64), "0x3FF0000000000000");
/// assert_eq!(reprosum_cli::elem::hex_bits(1.0f32), "0x3F800000");
/// ```
pub fn hex_bits<T: Elem>(x: T) -> String {
    format!("0x{:0width$X}", x.bits(), width = 2 * T::BYTES)
}

/// The value as the command prints it: [`crate::number::repr`] (Python's `repr` layout of
/// the shortest round-trip digits).
pub fn show<T: Elem>(x: T) -> String {
    crate::number::repr(x)
}
