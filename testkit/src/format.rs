//! The format parameters that tests and generators build inputs with, derived from the
//! model's statement of them (`crate::model::ModelFloat`) rather than taken from the core,
//! whose own copies are private to it.

use reprosum_core::Float;

use crate::model::ModelFloat;

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

/// Derived from the one statement of the parameters in this crate, the model's
/// (`ModelFloat`, `docs/FORMAT.md` section 1).
impl<T: Float + ModelFloat> TestFloat for T {
    const MANT_BITS: u32 = T::P - 1;
    const MAX_EXP_FIELD: u64 = (1 << T::EXP_BITS) - 2;
    const INF_BITS: u64 = ((1 << T::EXP_BITS) - 1) << (T::P - 1);
    const BIN_WIDTH: u32 = T::W as u32;
    const MAX_INDEX: usize = T::M;
    const ENDURANCE: u32 = 1 << (T::P as i32 - T::W - 2);

    fn from_f64_round(v: f64) -> Self {
        T::round_from_f64(v)
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
        assert_eq!((f64::BIN_WIDTH, f64::MAX_INDEX, f64::ENDURANCE), (40, 51, 2048));
        assert_eq!((f32::BIN_WIDTH, f32::MAX_INDEX, f32::ENDURANCE), (13, 20, 512));
    }
}
