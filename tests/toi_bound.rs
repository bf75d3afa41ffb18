//! Property test: a time-of-impact bound never lets a pair pass the target distance unseen.
//!
//! Random pairs of convex shapes on random ballistic trajectories (gravity on dynamic bodies,
//! spin about random axes, asymmetric inertia included): the true distance, sampled densely up to
//! the bound's time, never falls below the target.

use glam::{DQuat, DVec3};
use proptest::prelude::*;
use tumble::ballistic::{advance_linear, advance_rotation, is_spherical, shape_turn, spin_bound};
use tumble::narrow_phase::{box_corners, proximity, Collider, Pose};
use tumble::shape::Shape;
use tumble::toi_bound::{
    turning_axis_extents, DistanceBound, EnvelopeBound, Extent, MotionBound, VertexFlight,
};

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
        let spin = spin_bound(self.q, self.w, self.inertia);
        MotionBound {
            velocity: self.v,
            acceleration: if self.dynamic { G } else { DVec3::ZERO },
            angular_velocity: self.w,
            max_angular_speed: spin.max_speed,
            steady_spin: spin.steady,
            spin_wobble: spin.wobble,
            shape_turn: c.symmetry_axis().map_or(f64::INFINITY, |axis| {
                shape_turn(axis, self.q, self.w, self.inertia)
            }),
            constant_spin: is_spherical(self.inertia),
            rotation_radius: c.rotation_radius(),
            speed_slack: 0.0,
            acceleration_slack: 0.0,
        }
    }
}

fn vec3(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn flight(dynamic: bool) -> impl Strategy<Value = Flight> {
    (
        0usize..5,
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
                3 => (
                    Shape::Capsule {
                        radius: 0.5 * s,
                        half_length: s,
                    },
                    DVec3::new(1.0, 1.0, 0.4),
                ),
                // A coin: its axis the one of unequal moment.
                _ => (
                    Shape::Cylinder {
                        radius: s,
                        half_height: 0.1 * s,
                    },
                    DVec3::new(1.0, 1.0, 1.9),
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

/// A unit-inertia cube (ω constant) in free fall: pose at `t`.
#[derive(Clone, Debug)]
struct Cube {
    half: f64,
    x: DVec3,
    q: DQuat,
    v: DVec3,
    w: DVec3,
}

impl Cube {
    fn at(&self, t: f64) -> Pose {
        let (x, _) = advance_linear(self.x, self.v, G, t);
        let (q, _) = advance_rotation(self.q, self.w, DVec3::ONE, t);
        Pose {
            position: x,
            orientation: q,
        }
    }
    fn corners(&self) -> Vec<DVec3> {
        box_corners(DVec3::ZERO, DQuat::IDENTITY, DVec3::splat(self.half)).to_vec()
    }
    fn flight<'a>(&self, vertices: &'a [DVec3]) -> VertexFlight<'a> {
        VertexFlight {
            position: self.x,
            orientation: self.q,
            velocity: self.v,
            angular_velocity: self.w,
            vertices,
        }
    }
}

fn cube() -> impl Strategy<Value = Cube> {
    (vec3(1.0), vec3(1.2), vec3(3.0), vec3(8.0), 0.1f64..0.6).prop_map(|(e, x, v, w, half)| Cube {
        half,
        x,
        q: DQuat::from_scaled_axis(e).normalize(),
        v,
        w,
    })
}

/// The least of the envelope's quadratics at `t`.
fn envelope_at(lower: &[Extent], upper: &[Extent], t: f64) -> f64 {
    let at = |e: &Extent| e.h0 + e.h1 * t + 0.5 * e.h2 * t * t;
    lower.iter().map(at).fold(f64::INFINITY, f64::min)
        - upper.iter().map(at).fold(f64::NEG_INFINITY, f64::max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Along the axis that turns with b, the true gap between two spinning, falling cubes never
    /// drops below the extents' envelope within the horizon, and the bound's time to a target
    /// is never later than the true distance's.
    #[test]
    fn turning_axis_extents_hold_over_the_horizon(a in cube(), b in cube(), axis in vec3(1.0), horizon in 1e-3f64..0.05) {
        prop_assume!(axis.length() > 0.1);
        let n = axis.normalize();
        let (va, vb) = (a.corners(), b.corners());
        let mut lower = [Extent::default(); 8];
        let mut upper = [Extent::default(); 8];
        let (nl, nu) = turning_axis_extents(&a.flight(&va), &b.flight(&vb), n, horizon, &mut lower, &mut upper);
        prop_assert_eq!((nl, nu), (8, 8));
        for k in 0..=200 {
            let t = horizon * k as f64 / 200.0;
            let (pa, pb) = (a.at(t), b.at(t));
            // The axis turned with b, and the gap along it measured from b's centre.
            let nt = pb.orientation * (b.q.inverse() * n);
            let low = va.iter().map(|c| nt.dot(pa.position + pa.orientation * *c - pb.position)).fold(f64::INFINITY, f64::min);
            let high = vb.iter().map(|c| nt.dot(pb.orientation * *c)).fold(f64::NEG_INFINITY, f64::max);
            let bound = envelope_at(&lower, &upper, t);
            prop_assert!(low - high >= bound - 1e-9 * (1.0 + bound.abs()), "gap {} < bound {} at t = {}", low - high, bound, t);
        }
        // End to end, from the closest points' normal of two cubes apart.
        let (ca, cb) = (
            Collider::new(&Shape::Box { half_extents: DVec3::splat(a.half) }, Pose { position: DVec3::ZERO, orientation: DQuat::IDENTITY }).unwrap(),
            Collider::new(&Shape::Box { half_extents: DVec3::splat(b.half) }, Pose { position: DVec3::ZERO, orientation: DQuat::IDENTITY }).unwrap(),
        );
        let mut pts = Vec::new();
        let d0 = proximity(&ca, &a.at(0.0), &cb, &b.at(0.0), 1e-3, &mut pts);
        prop_assume!(d0 > 2e-3);
        let n = pts[0].normal;
        turning_axis_extents(&a.flight(&va), &b.flight(&vb), n, horizon, &mut lower, &mut upper);
        let target = 1e-3;
        let t_end = EnvelopeBound { lower: &lower, upper: &upper }.time_to(target).min(horizon);
        for k in 0..=200 {
            let t = t_end * k as f64 / 200.0;
            let d = proximity(&ca, &a.at(t), &cb, &b.at(t), 0.0, &mut pts);
            prop_assert!(d >= target - 1e-9, "distance {} < {} at t = {} (bound {})", d, target, t, t_end);
        }
    }
}

/// Two cubes resting face to face 0.5 mm apart and turning together at 3 rad/s: an axis fixed
/// in space sees them close within a fraction of a millisecond; the axis turning with the lower
/// one sees no closing before a 2.5 ms contact step is over.
#[test]
fn turning_axis_sees_a_pair_turning_together_at_rest() {
    let w = DVec3::new(3.0, -1.0, 0.5);
    let xb = DVec3::new(0.3, -0.2, 1.0);
    let vb = DVec3::new(0.2, 0.1, -0.4);
    let xa = xb + DVec3::new(0.0, 0.0, 1.0005);
    // a moves with b's material point at its centre: the pair is a rigid whole.
    let (a, b) = (
        Cube {
            half: 0.5,
            x: xa,
            q: DQuat::IDENTITY,
            v: vb + w.cross(xa - xb),
            w,
        },
        Cube {
            half: 0.5,
            x: xb,
            q: DQuat::IDENTITY,
            v: vb,
            w,
        },
    );
    let (va, vb_) = (a.corners(), b.corners());
    let mut lower = [Extent::default(); 8];
    let mut upper = [Extent::default(); 8];
    let h = 2.5e-3;
    turning_axis_extents(
        &a.flight(&va),
        &b.flight(&vb_),
        DVec3::Z,
        h,
        &mut lower,
        &mut upper,
    );
    let turning = EnvelopeBound {
        lower: &lower,
        upper: &upper,
    };
    assert!((turning.gap() - 5e-4).abs() < 1e-12);
    assert!(
        turning.time_to(1.25e-4) > h,
        "turning axis: {}",
        turning.time_to(1.25e-4)
    );
    let ca = Collider::new(
        &Shape::Box {
            half_extents: DVec3::splat(0.5),
        },
        Pose {
            position: DVec3::ZERO,
            orientation: DQuat::IDENTITY,
        },
    )
    .unwrap();
    let fixed = DistanceBound::separating_axis(
        5e-4,
        DVec3::Z,
        &Flight {
            shape: Shape::Box {
                half_extents: DVec3::splat(0.5),
            },
            inertia: DVec3::ONE,
            dynamic: true,
            x: a.x,
            q: a.q,
            v: a.v,
            w,
        }
        .bound(&ca),
        &Flight {
            shape: Shape::Box {
                half_extents: DVec3::splat(0.5),
            },
            inertia: DVec3::ONE,
            dynamic: true,
            x: b.x,
            q: b.q,
            v: b.v,
            w,
        }
        .bound(&ca),
    );
    assert!(
        fixed.time_to(1.25e-4) < 0.2 * h,
        "fixed axis: {}",
        fixed.time_to(1.25e-4)
    );
}
