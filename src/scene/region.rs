//! A region of space: a box given by its centre, half extents and orientation, as sources,
//! sinks and region probes name it (`region = { center, half_extents, orientation }`; read by
//! `flow`).

use glam::{DQuat, DVec3};

/// A box in world coordinates: `center`, `half_extents` along its own axes, turned by
/// `orientation` (a unit quaternion, as a body's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Region {
    /// Centre (m, world).
    pub center: DVec3,
    /// Half extents along the box's own axes (m, each > 0).
    pub half_extents: DVec3,
    /// Orientation of the box's axes (unit quaternion).
    pub orientation: DQuat,
}

impl Region {
    /// Whether world point `p` lies inside the box (its faces included).
    pub fn contains(&self, p: DVec3) -> bool {
        let local = self.orientation.inverse() * (p - self.center);
        local.abs().cmple(self.half_extents).all()
    }

    /// The world point of local coordinates `u` ∈ [−1, 1]³ (fractions of the half extents).
    pub fn point_at(&self, u: DVec3) -> DVec3 {
        self.center + self.orientation * (u * self.half_extents)
    }

    /// The box's volume (m³).
    pub fn volume(&self) -> f64 {
        8.0 * self.half_extents.x * self.half_extents.y * self.half_extents.z
    }

    /// The world-axis-aligned box around it: its lowest and highest corners.
    pub fn bounds(&self) -> (DVec3, DVec3) {
        let m = glam::DMat3::from_quat(self.orientation);
        let reach = m.x_axis.abs() * self.half_extents.x
            + m.y_axis.abs() * self.half_extents.y
            + m.z_axis.abs() * self.half_extents.z;
        (self.center - reach, self.center + reach)
    }
}

#[cfg(test)]
mod tests {
    use super::Region;
    use glam::{DQuat, DVec3};

    /// A turned box contains its own points at local fractions within ±1 and not beyond, and its
    /// world bounds hold every corner.
    #[test]
    fn turned_region_contains_its_points_and_bounds_its_corners() {
        let r = Region {
            center: DVec3::new(1.0, -2.0, 3.0),
            half_extents: DVec3::new(0.5, 1.0, 2.0),
            orientation: DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7),
        };
        let (lo, hi) = r.bounds();
        for &x in &[-1.0, 1.0] {
            for &y in &[-1.0, 1.0] {
                for &z in &[-1.0, 1.0] {
                    let corner = r.point_at(DVec3::new(x, y, z));
                    assert!(corner.cmpge(lo - 1e-12).all() && corner.cmple(hi + 1e-12).all());
                    assert!(r.contains(r.point_at(DVec3::new(x, y, z) * 0.999)));
                    assert!(!r.contains(r.point_at(DVec3::new(x, y, z) * 1.001)));
                }
            }
        }
        assert!((r.volume() - 8.0).abs() < 1e-12);
    }
}
