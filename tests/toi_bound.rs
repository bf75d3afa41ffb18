//! Property test: a time-of-impact bound never lets a pair pass the target distance unseen.
//!
//! Random pairs of convex shapes on random ballistic trajectories (gravity on dynamic bodies,
//! spin about random axes, asymmetric inertia included): the true distance, sampled densely up to
//! the bound's time, never falls below the target.

use glam::{DQuat, DVec3};
use proptest::prelude::*;
use tumble::ballistic::{advance_linear, advance_rotation, is_spherical, max_angular_speed};
use tumble::narrow_phase::{proximity, Collider, Pose};
use tumble::shape::Shape;
use tumble::toi_bound::{DistanceBound, MotionBound};

const G: DVec3 = DVec3::new(0.0, 0.0, -9.81);

#[derive(Clone, Debug)]
struct Flight {
    shape: Shape,
    inertia: DVec3,
    dynamic: bool,
    x: DVec3,
    q: DQuat,
    v: DVec3,
    w: DVec3,
}

impl Flight {
    fn at(&self, t: f64) -> Pose {
        let g = if self.dynamic { G } else { DVec3::ZERO };
        let (x, _) = advance_linear(self.x, self.v, g, t);
        let (q, _) = advance_rotation(self.q, self.w, self.inertia, t);
        Pose {
            position: x,
            orientation: q,
        }
    }
    fn bound(&self, c: &Collider) -> MotionBound {
        MotionBound {
            velocity: self.v,
            acceleration: if self.dynamic { G } else { DVec3::ZERO },
            angular_velocity: self.w,
            max_angular_speed: max_angular_speed(self.q, self.w, self.inertia),
            constant_spin: is_spherical(self.inertia),
            rotation_radius: c.rotation_radius(),
        }
    }
}

fn vec3(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn flight(dynamic: bool) -> impl Strategy<Value = Flight> {
    (
        0usize..4,
        vec3(1.0),
        vec3(3.0),
        vec3(4.0),
        vec3(8.0),
        0.05f64..0.5,
    )
        .prop_map(move |(kind, e, x, v, w, s)| {
            let (shape, inertia) = match kind {
                0 => (Shape::Sphere { radius: s }, DVec3::ONE),
                1 => (
                    Shape::Box {
                        half_extents: DVec3::splat(s),
                    },
                    DVec3::ONE,
                ),
                2 => (
                    Shape::Box {
                        half_extents: DVec3::new(s, 0.6 * s, 0.3 * s) + 0.01,
                    },
                    DVec3::new(0.45, 1.09, 1.36),
                ),
                _ => (
                    Shape::Capsule {
                        radius: 0.5 * s,
                        half_length: s,
                    },
                    DVec3::new(1.0, 1.0, 0.4),
                ),
            };
            Flight {
                shape,
                inertia,
                dynamic,
                x,
                q: DQuat::from_scaled_axis(e),
                v: if dynamic { v } else { DVec3::ZERO },
                w: if dynamic { w } else { DVec3::ZERO },
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn bound_is_never_overshot(a in flight(true), b_dyn in any::<bool>(), b in flight(true), bf in flight(false)) {
        let b = if b_dyn { b } else { bf };
        let ca = Collider::new(&a.shape, Pose { position: DVec3::ZERO, orientation: DQuat::IDENTITY }).unwrap();
        let cb = Collider::new(&b.shape, Pose { position: DVec3::ZERO, orientation: DQuat::IDENTITY }).unwrap();
        let mut pts = Vec::new();
        let d0 = proximity(&ca, &a.at(0.0), &cb, &b.at(0.0), 1e-3, &mut pts);
        prop_assume!(d0 > 2e-3);
        let n = pts[0].normal;
        let target = 1e-3;
        let bound = DistanceBound::separating_axis(d0, n, &a.bound(&ca), &b.bound(&cb));
        let t_end = bound.time_to(target).min(1.0);
        let iso = DistanceBound::isotropic(d0, &a.bound(&ca), &b.bound(&cb)).time_to(target).min(1.0);
        for k in 0..=400 {
            let t = t_end * k as f64 / 400.0;
            let d = proximity(&ca, &a.at(t), &cb, &b.at(t), 0.0, &mut pts);
            prop_assert!(d >= target - 1e-9, "distance {} < {} at t = {} (bound {})", d, target, t, t_end);
            let ti = iso * k as f64 / 400.0;
            let di = proximity(&ca, &a.at(ti), &cb, &b.at(ti), 0.0, &mut pts);
            prop_assert!(di >= target - 1e-9, "isotropic: distance {} at t = {}", di, ti);
        }
    }
}
