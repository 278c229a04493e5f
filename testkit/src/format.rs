//! The format parameters that tests and generators build inputs with, restated here from
//! their definitions (IEEE 754 binary64 / binary32, and ReproBLAS's bin width and
//! endurance) rather than taken from the core, whose own copies are private to it.

use reprosum_core::Float;

/// `f64` or `f32`, with the parameters a test needs to draw values of every class.
pub trait TestFloat: Float {
    /// Stored significand bits (52 / 23).
    const MANT_BITS: u32;
    /// Largest biased exponent field of a finite value (2046 / 254).
    const MAX_EXP_FIELD: u64;
    /// Bit pattern of +Inf.
    const INF_BITS: u64;
    /// Bin width W in bits (40 / 13).
    const BIN_WIDTH: u32;
    /// Largest bin index (51 / 20).
    const MAX_INDEX: usize;
    /// Deposits a slot takes between renormalisations (2048 / 512).
    const ENDURANCE: u32;

    /// An f64 rounded to this type (to nearest even).
    fn from_f64_round(v: f64) -> Self;
}

impl TestFloat for f64 {
    const MANT_BITS: u32 = 52;
    const MAX_EXP_FIELD: u64 = 2046;
    const INF_BITS: u64 = 0x7FF0_0000_0000_0000;
    const BIN_WIDTH: u32 = 40;
    const MAX_INDEX: usize = 51;
    const ENDURANCE: u32 = 2048;

    fn from_f64_round(v: f64) -> Self {
        v
    }
}

impl TestFloat for f32 {
    const MANT_BITS: u32 = 23;
    const MAX_EXP_FIELD: u64 = 254;
    const INF_BITS: u64 = 0x7F80_0000;
    const BIN_WIDTH: u32 = 13;
    const MAX_INDEX: usize = 20;
    const ENDURANCE: u32 = 512;

    fn from_f64_round(v: f64) -> Self {
        v as f32
    }
}

#[cfg(test)]
mod tests {
    use super::TestFloat;

    /// The restated parameters agree with the types themselves.
    #[test]
    fn parameters_match_the_types() {
        assert_eq!(f64::MANT_BITS, f64::MANTISSA_DIGITS - 1);
        assert_eq!(f32::MANT_BITS, f32::MANTISSA_DIGITS - 1);
        assert_eq!(<f64 as TestFloat>::INF_BITS, f64::INFINITY.to_bits());
        assert_eq!(<f32 as TestFloat>::INF_BITS, u64::from(f32::INFINITY.to_bits()));
        assert_eq!(f64::MAX_EXP_FIELD, f64::MAX.to_bits() >> 52);
        assert_eq!(f32::MAX_EXP_FIELD, u64::from(f32::MAX.to_bits() >> 23));
    }
}
