//! The one rule for handing f64 values to the f32 stages: round outwards, so that a lower bound
//! stays below and an upper bound above the f64 value it stands for (a relative 1e-6 and an
//! absolute 1e-6 beyond it: far more than the f32 cast's half ulp, 6e-8 relative).

/// `x` as an f32 no greater than it (`f32::MIN` for −∞ or NaN).
pub fn f32_below(x: f64) -> f32 {
    if x.is_finite() {
        (x - x.abs() * 1e-6 - 1e-6) as f32
    } else {
        f32::MIN
    }
}

/// `x` as an f32 no less than it (`f32::MAX` when not finite).
pub fn f32_above(x: f64) -> f32 {
    if x.is_finite() {
        (x + x.abs() * 1e-6 + 1e-6) as f32
    } else {
        f32::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::{f32_above, f32_below};

    #[test]
    fn rounding_is_outwards() {
        for x in [
            0.0,
            1e-9,
            -1e-9,
            0.1,
            -0.1,
            1.0 / 3.0,
            -2.0 / 3.0,
            12345.678,
            -1e7,
            3e30,
        ] {
            assert!(f64::from(f32_below(x)) <= x, "{x}");
            assert!(f64::from(f32_above(x)) >= x, "{x}");
        }
        assert_eq!(f32_below(f64::NEG_INFINITY), f32::MIN);
        assert_eq!(f32_above(f64::INFINITY), f32::MAX);
        assert_eq!(f32_above(f64::NAN), f32::MAX);
    }
}
