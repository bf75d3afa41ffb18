//! Swept axis-aligned boxes over a frame (Mirtich & Canny 1994, §3.2, figure 2).
//!
//! The box bounds everything a body can occupy during `[t, t + t_f]` while it stays ballistic:
//! the centre of mass at both ends of the interval and at the parabola's apex on each axis where
//! it falls inside the interval, grown by the body's bounding radius (which covers any rotation).

use glam::DVec3;

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Aabb {
    /// Lower corner.
    pub min: DVec3,
    /// Upper corner.
    pub max: DVec3,
}

impl Aabb {
    /// The empty box (contains nothing, overlaps nothing).
    pub const EMPTY: Aabb = Aabb {
        min: DVec3::splat(f64::INFINITY),
        max: DVec3::splat(f64::NEG_INFINITY),
    };

    /// True if the two closed boxes share a point.
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }

    /// True if `other` lies inside this box (closed boxes).
    #[inline]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.cmple(other.min).all() && other.max.cmple(self.max).all()
    }

    /// The box grown by `r` on every side.
    pub fn grown(&self, r: f64) -> Aabb {
        Aabb {
            min: self.min - DVec3::splat(r),
            max: self.max + DVec3::splat(r),
        }
    }

    /// Largest side length.
    pub fn max_extent(&self) -> f64 {
        (self.max - self.min).max_element()
    }
}

/// The box swept by a body whose centre moves as `x(s) = x + v s + ½ g s²` for `s ∈ [0, dt]`,
/// with every point of the body within `radius` of its centre.
pub fn swept_aabb(position: DVec3, velocity: DVec3, gravity: DVec3, dt: f64, radius: f64) -> Aabb {
    let end = position + velocity * dt + 0.5 * gravity * dt * dt;
    let mut min = position.min(end);
    let mut max = position.max(end);
    for k in 0..3 {
        // Apex on axis k: v_k + g_k s = 0.
        if gravity[k] != 0.0 {
            let s = -velocity[k] / gravity[k];
            if s > 0.0 && s < dt {
                let x = position[k] + velocity[k] * s + 0.5 * gravity[k] * s * s;
                min[k] = min[k].min(x);
                max[k] = max[k].max(x);
            }
        }
    }
    // A relative pad against rounding keeps the box conservative.
    let pad = radius + 1e-12 * (1.0 + position.abs().max_element() + radius);
    Aabb { min, max }.grown(pad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apex_is_included() {
        let b = swept_aabb(
            DVec3::ZERO,
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::new(0.0, 0.0, -10.0),
            0.2,
            0.1,
        );
        assert!((b.max.z - (0.05 + 0.1)).abs() < 1e-9);
        assert!((b.min.z - (-0.1)).abs() < 1e-9);
    }
}
