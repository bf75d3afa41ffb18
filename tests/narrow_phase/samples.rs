//! Random pairs against brute force and dense surface samples, the flat cube's four corners,
//! and parts above a box face.

use crate::{at, collider, query, random_rotation};
use glam::{DQuat, DVec3};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tumble::narrow_phase::Pose;
use tumble::shape::{CompoundPart, Shape};

/// A random convex polyhedron: a hull of random points (or a box), with its hull triangles for
/// sampling and its face planes for the on-surface test.
struct Poly {
    shape: Shape,
    points: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
}

impl Poly {
    fn random(rng: &mut impl Rng) -> Poly {
        let shape = if rng.random_bool(0.4) {
            Shape::Box {
                half_extents: DVec3::new(
                    rng.random_range(0.1..1.0),
                    rng.random_range(0.1..1.0),
                    rng.random_range(0.1..1.0),
                ),
            }
        } else {
            let n = rng.random_range(5..14);
            Shape::Convex {
                vertices: (0..n)
                    .map(|_| {
                        DVec3::new(
                            rng.random_range(-1.0..1.0),
                            rng.random_range(-1.0..1.0),
                            rng.random_range(-1.0..1.0),
                        )
                    })
                    .collect(),
            }
        };
        let corners = match &shape {
            Shape::Box { half_extents: h } => (0..8)
                .map(|i| {
                    *h * DVec3::new(
                        if i & 1 == 0 { -1.0 } else { 1.0 },
                        if i & 2 == 0 { -1.0 } else { 1.0 },
                        if i & 4 == 0 { -1.0 } else { 1.0 },
                    )
                })
                .collect(),
            Shape::Convex { vertices } => vertices.clone(),
            _ => unreachable!(),
        };
        let (points, triangles) = parry3d_f64::transformation::convex_hull(&corners);
        Poly {
            shape,
            points,
            triangles,
        }
    }

    /// Largest signed distance to the face planes: 0 on the surface, < 0 inside.
    fn surface_residual(&self, pose: &Pose, p: DVec3) -> f64 {
        let local = pose.inverse_transform_point(p);
        let centre = self.points.iter().sum::<DVec3>() / self.points.len() as f64;
        self.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| self.points[i as usize]);
                let mut n = (b - a).cross(c - a).normalize();
                if n.dot(a - centre) < 0.0 {
                    n = -n;
                }
                n.dot(local - a)
            })
            .fold(f64::NEG_INFINITY, f64::max)
    }

    fn samples(&self, pose: &Pose, per_triangle: usize, rng: &mut impl Rng) -> Vec<DVec3> {
        let mut out: Vec<DVec3> = self
            .points
            .iter()
            .map(|p| pose.transform_point(*p))
            .collect();
        for t in &self.triangles {
            let [a, b, c] = t.map(|i| self.points[i as usize]);
            for _ in 0..per_triangle {
                let (mut u, mut v) = (rng.random_range(0.0..1.0), rng.random_range(0.0..1.0));
                if u + v > 1.0 {
                    (u, v) = (1.0 - u, 1.0 - v);
                }
                out.push(pose.transform_point(a + (b - a) * u + (c - a) * v));
            }
        }
        out
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Rotated convex polyhedra (boxes and hulls) against brute force over surface samples: no
    /// sampled pair is closer than the returned distance; the returned points lie on the surfaces;
    /// swapping the bodies flips the normal and keeps the separation.
    #[test]
    fn convex_pairs_against_brute_force(seed in any::<u64>(), gap in -0.3f64..1.5) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (pa_poly, pb_poly) = (Poly::random(&mut rng), Poly::random(&mut rng));
        let a = collider(pa_poly.shape.clone());
        let b = collider(pb_poly.shape.clone());
        let dir = random_rotation(&mut rng) * DVec3::X;
        let pa = Pose::new(dir * (gap + 1.0), random_rotation(&mut rng));
        let pb = Pose::new(DVec3::ZERO, random_rotation(&mut rng));
        let (sep, out) = query(&a, &pa, &b, &pb, 0.05);
        prop_assert_eq!(out[0].separation, sep);
        prop_assert!((out[0].normal.length() - 1.0).abs() < 1e-9);

        let on_a = out[0].point_on_a();
        let on_b = out[0].point_on_b();
        prop_assert!(pa_poly.surface_residual(&pa, on_a).abs() < 1e-6, "a residual {}", pa_poly.surface_residual(&pa, on_a));
        prop_assert!(pb_poly.surface_residual(&pb, on_b).abs() < 1e-6, "b residual {}", pb_poly.surface_residual(&pb, on_b));
        if sep > 1e-9 {
            let sa = pa_poly.samples(&pa, 30, &mut rng);
            let sb = pb_poly.samples(&pb, 30, &mut rng);
            let mut brute = f64::INFINITY;
            for p in &sa {
                for q in &sb {
                    brute = brute.min(p.distance(*q));
                }
            }
            prop_assert!(brute >= sep - 1e-9, "brute {} < returned {}", brute, sep);
            prop_assert!((on_a.distance(on_b) - sep).abs() < 1e-7);
        }
        for p in &out[1..] {
            prop_assert!(p.separation <= 0.05 && p.separation >= sep - 1e-9);
        }
        prop_assert!(out.len() <= 4);

        let (sep2, out2) = query(&b, &pb, &a, &pa, 0.05);
        prop_assert!((sep2 - sep).abs() < 1e-7, "swapped {} vs {}", sep2, sep);
        prop_assert!((out2[0].normal + out[0].normal).length() < 1e-5, "{} vs {}", out2[0].normal, out[0].normal);
    }
}

/// Points on the boundary of a (non-plane) shape in its own frame, spaced about `step` apart.
fn surface_samples(shape: &Shape, step: f64) -> Vec<DVec3> {
    use std::f64::consts::{PI, TAU};
    let mut out = Vec::new();
    let sphere_cap = |c: DVec3, r: f64, z_sign: f64, out: &mut Vec<DVec3>| {
        let n = ((PI * r / step).ceil() as usize).max(4);
        for i in 0..=n {
            let phi = i as f64 / n as f64 * PI - PI / 2.0;
            if z_sign * phi < 0.0 {
                continue;
            }
            let m = ((TAU * r * phi.cos() / step).ceil() as usize).max(1);
            for j in 0..m {
                let th = j as f64 / m as f64 * TAU;
                out.push(c + DVec3::new(phi.cos() * th.cos(), phi.cos() * th.sin(), phi.sin()) * r);
            }
        }
    };
    let grid = |a: DVec3, u: DVec3, v: DVec3, out: &mut Vec<DVec3>| {
        let (nu, nv) = (
            (u.length() / step).ceil() as usize,
            (v.length() / step).ceil() as usize,
        );
        for i in 0..=nu {
            for j in 0..=nv {
                out.push(a + u * (i as f64 / nu as f64) + v * (j as f64 / nv as f64));
            }
        }
    };
    match shape {
        Shape::Sphere { radius } => {
            sphere_cap(DVec3::ZERO, *radius, 1.0, &mut out);
            sphere_cap(DVec3::ZERO, *radius, -1.0, &mut out);
        }
        Shape::Capsule {
            radius,
            half_length,
        } => {
            sphere_cap(DVec3::Z * *half_length, *radius, 1.0, &mut out);
            sphere_cap(-DVec3::Z * *half_length, *radius, -1.0, &mut out);
            let m = (TAU * radius / step).ceil() as usize;
            let k = (2.0 * half_length / step).ceil() as usize;
            for j in 0..m {
                let th = j as f64 / m as f64 * TAU;
                for i in 0..=k {
                    let z = -half_length + 2.0 * half_length * i as f64 / k as f64;
                    out.push(DVec3::new(radius * th.cos(), radius * th.sin(), z));
                }
            }
        }
        Shape::Cylinder {
            radius,
            half_height,
        } => {
            let m = (TAU * radius / step).ceil() as usize;
            let k = (2.0 * half_height / step).ceil() as usize;
            let rings = (radius / step).ceil() as usize;
            for j in 0..m {
                let th = j as f64 / m as f64 * TAU;
                for i in 0..=k {
                    let z = -half_height + 2.0 * half_height * i as f64 / k as f64;
                    out.push(DVec3::new(radius * th.cos(), radius * th.sin(), z));
                }
                for i in 0..=rings {
                    let rr = radius * i as f64 / rings as f64;
                    for z in [-half_height, *half_height] {
                        out.push(DVec3::new(rr * th.cos(), rr * th.sin(), z));
                    }
                }
            }
        }
        Shape::Box { half_extents: h } => {
            for axis in 0..3 {
                let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                for s in [-1.0, 1.0] {
                    let mut a = -*h;
                    a[axis] = s * h[axis];
                    let mut du = DVec3::ZERO;
                    du[u] = 2.0 * h[u];
                    let mut dv = DVec3::ZERO;
                    dv[v] = 2.0 * h[v];
                    grid(a, du, dv, &mut out);
                }
            }
        }
        Shape::Convex { vertices } => {
            let (points, triangles) = parry3d_f64::transformation::convex_hull(vertices);
            for t in triangles {
                let [a, b, c] = t.map(|i| points[i as usize]);
                let n = (((b - a).length().max((c - a).length())) / step).ceil() as usize;
                for i in 0..=n {
                    for j in 0..=(n - i) {
                        out.push(
                            a + (b - a) * (i as f64 / n as f64) + (c - a) * (j as f64 / n as f64),
                        );
                    }
                }
            }
        }
        Shape::Compound { parts } => {
            for p in parts {
                for s in surface_samples(&p.shape, step) {
                    out.push(p.position + p.orientation * s);
                }
            }
        }
        Shape::Plane { .. } | Shape::Mesh { .. } => unreachable!(),
    }
    out
}

fn random_shape(rng: &mut impl Rng) -> Shape {
    let kind = rng.random_range(0..6);
    let mut dim = || rng.random_range(0.15..0.8);
    match kind {
        0 => Shape::Sphere { radius: dim() },
        1 => Shape::Capsule {
            radius: dim() * 0.5,
            half_length: dim(),
        },
        2 => Shape::Cylinder {
            radius: dim(),
            half_height: dim(),
        },
        3 => Shape::Box {
            half_extents: DVec3::new(dim(), dim(), dim()),
        },
        4 => Shape::Convex {
            vertices: (0..8)
                .map(|_| DVec3::new(dim(), dim(), dim()) - 0.45)
                .collect(),
        },
        _ => Shape::Compound {
            parts: vec![
                CompoundPart {
                    shape: Shape::Box {
                        half_extents: DVec3::new(dim(), 0.1, 0.1),
                    },
                    position: DVec3::new(0.2, 0.0, 0.0),
                    orientation: DQuat::from_rotation_y(0.3),
                },
                CompoundPart {
                    shape: Shape::Cylinder {
                        radius: 0.2,
                        half_height: 0.3,
                    },
                    position: DVec3::new(-0.3, 0.1, 0.0),
                    orientation: DQuat::from_rotation_x(1.0),
                },
            ],
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every kind of shape (capsules and cylinders along z included) against dense surface samples:
    /// the returned distance is never larger than any sampled pair's (to 1e-9) and within the
    /// sampling resolution of the closest sampled pair.
    #[test]
    fn mixed_pairs_against_dense_samples(seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (sa, sb) = (random_shape(&mut rng), random_shape(&mut rng));
        let (a, b) = (collider(sa.clone()), collider(sb.clone()));
        let dir = random_rotation(&mut rng) * DVec3::X;
        let pa = Pose::new(dir * rng.random_range(0.8..2.5), random_rotation(&mut rng));
        let pb = Pose::new(DVec3::ZERO, random_rotation(&mut rng));
        let (sep, out) = query(&a, &pa, &b, &pb, 0.02);
        let step = 0.02;
        let xa: Vec<DVec3> = surface_samples(&sa, step).into_iter().map(|p| pa.transform_point(p)).collect();
        let xb: Vec<DVec3> = surface_samples(&sb, step).into_iter().map(|p| pb.transform_point(p)).collect();
        let mut brute = f64::INFINITY;
        for p in &xa {
            for q in &xb {
                brute = brute.min(p.distance_squared(*q));
            }
        }
        let brute = brute.sqrt();
        if sep > 1e-9 {
            prop_assert!(brute >= sep - 1e-9, "{:?} vs {:?}: brute {} < returned {}", sa, sb, brute, sep);
            prop_assert!(brute <= sep + 2.0 * step, "{:?} vs {:?}: brute {} ≫ returned {}", sa, sb, brute, sep);
        } else {
            prop_assert!(brute <= 2.0 * step, "{:?} vs {:?}: overlap {} but brute {}", sa, sb, sep, brute);
        }
        let (sep2, out2) = query(&b, &pb, &a, &pa, 0.02);
        prop_assert!((sep2 - sep).abs() < 1e-7, "swapped {} vs {}", sep2, sep);
        // GJK on curved shapes (cylinder rims, capsule ends) stops when the distance has
        // converged to ~1e-8 relative; the normal then is only good to about its square root.
        prop_assert!((out2[0].normal + out[0].normal).length() < 1e-3 || sep < 0.0);
    }
}

/// A cube lying flat (tilts below 1e-5 rad, any yaw, anywhere) on a large box or on a cube
/// touches at its four corners, every time: the manifold must not lose a corner when GJK's
/// witness is itself a corner and another corner ties with it (it did in 1.3 % of these poses,
/// and a resting stack's contact set flickered between 3 and 4 points from step to step).
#[test]
fn a_flat_cube_always_touches_at_four_corners() {
    let floor = collider(Shape::Box {
        half_extents: DVec3::new(10.0, 10.0, 0.5),
    });
    let cube = collider(Shape::Box {
        half_extents: DVec3::splat(0.1),
    });
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for k in 0..4000 {
        let tilt = if k % 4 == 0 { 0.0 } else { 1e-5 };
        let mut turn = |r: f64| {
            if r > 0.0 {
                rng.random_range(-r..r)
            } else {
                0.0
            }
        };
        let q = DQuat::from_rotation_x(turn(tilt))
            * DQuat::from_rotation_y(turn(tilt))
            * DQuat::from_rotation_z(turn(0.3));
        let shift = DVec3::new(turn(0.01), turn(0.01), 0.0);
        let (lower, lower_pose, z) = if k % 2 == 0 {
            (&floor, at(0.0, 0.0, -0.5), 0.1005)
        } else {
            (&cube, at(0.0, 0.0, 0.0), 0.2005)
        };
        let upper = Pose::new(shift + DVec3::new(0.0, 0.0, z), q);
        let (sep, out) = query(lower, &lower_pose, &cube, &upper, 2e-3);
        assert!((sep - 5e-4).abs() < 1e-5, "{sep}");
        assert_eq!(out.len(), 4, "pose {k}: {out:?}");
        // On the floor: the four corners of the cube's bottom face (on a cube, the patch is
        // the two squares' overlap, reduced to four of its corners).
        for (i, p) in out.iter().enumerate() {
            let local = upper.orientation.inverse() * (p.position - upper.position);
            assert!(
                k % 2 == 1
                    || (local.x.abs() - 0.1).abs() < 1e-4 && (local.y.abs() - 0.1).abs() < 1e-4,
                "pose {k}: point {i} at {local} is no corner"
            );
            for q in &out[..i] {
                assert!(
                    p.position.distance(q.position) > 0.05,
                    "pose {k}: a point twice"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A convex part just above a box's face (the closed-form case: the part against the face's
    /// plane, used where every contact point lies over the face) and over its edges (the general
    /// query): the distance is the dense samples' to their resolution and never more than
    /// theirs, the normal is the face's where the part is over the face's middle, the manifold's
    /// points are within the margin, and the swapped query agrees.
    #[test]
    fn parts_above_a_box_face_against_dense_samples(seed in any::<u64>(), gap in 0.0f64..0.05, reach in 0.0f64..1.6) {
        let slab = Shape::Box { half_extents: DVec3::new(1.0, 0.8, 0.3) };
        part_above_a_face(seed, gap, reach, slab, |p, m| p.x.abs() < 1.0 - m && p.y.abs() < 0.8 - m)?;
    }

    /// The same above a cylinder's flat face (a coin on a coin) and over its rim.
    #[test]
    fn parts_above_a_cylinder_face_against_dense_samples(seed in any::<u64>(), gap in 0.0f64..0.05, reach in 0.0f64..1.6) {
        let slab = Shape::Cylinder { radius: 1.0, half_height: 0.3 };
        part_above_a_face(seed, gap, reach, slab, |p, m| p.x.hypot(p.y) < 1.0 - m)?;
    }
}

/// A random convex part `gap` above the top face of `slab` (a box or a cylinder, its top at
/// z = 0.3 in its frame), `reach` out from the face's centre along x; `inside(p, m)` tells
/// points `p` of the slab's frame over the face and at least `m` from its edges.
fn part_above_a_face(
    seed: u64,
    gap: f64,
    reach: f64,
    slab: Shape,
    inside: impl Fn(DVec3, f64) -> bool,
) -> Result<(), TestCaseError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut part = random_shape(&mut rng);
    while matches!(part, Shape::Box { .. } | Shape::Sphere { .. }) {
        part = random_shape(&mut rng);
    }
    let (a, b) = (collider(part.clone()), collider(slab.clone()));
    let q_box = DQuat::from_rotation_z(rng.random_range(0.0..6.3))
        * DQuat::from_rotation_x(rng.random_range(-0.3..0.3));
    let pb = Pose::new(DVec3::new(0.1, -0.2, 0.0), q_box);
    let up = q_box * DVec3::Z;
    let q_part = random_rotation(&mut rng);
    // Put the part's lowest point `gap` above the top face, `reach` (in units of the face's
    // half-width along x) out from the face's centre.
    let probe = Pose::new(DVec3::ZERO, q_part);
    let lowest = -a.support(&probe, -up);
    let top = up.dot(pb.position) + 0.3;
    let lateral = q_box * DVec3::new(reach * 1.0, 0.0, 0.0);
    let pa = Pose::new(lateral + up * (top - lowest + gap), q_part);
    let margin = 0.02;
    let (sep, out) = query(&a, &pa, &b, &pb, margin);
    let step = 0.02;
    let xa: Vec<DVec3> = surface_samples(&part, step)
        .into_iter()
        .map(|p| pa.transform_point(p))
        .collect();
    let xb: Vec<DVec3> = surface_samples(&slab, step)
        .into_iter()
        .map(|p| pb.transform_point(p))
        .collect();
    let mut brute = f64::INFINITY;
    for p in &xa {
        for q in &xb {
            brute = brute.min(p.distance_squared(*q));
        }
    }
    let brute = brute.sqrt();
    prop_assert!(
        brute >= sep - 1e-9,
        "{:?}: brute {} < returned {}",
        part,
        brute,
        sep
    );
    prop_assert!(
        brute <= sep + 2.0 * step,
        "{:?}: brute {} ≫ returned {}",
        part,
        brute,
        sep
    );
    // The part's lowest point (its lowest sample) over the face, clear of its edges: the
    // distance is the gap and the normal the face's. (The part's origin `reach` out says
    // nothing for a long or compound part, whose lowest point can hang past an edge.)
    let lowest_sample = xa
        .iter()
        .copied()
        .min_by(|p, q| up.dot(*p).total_cmp(&up.dot(*q)))
        .unwrap();
    let local = q_box.inverse() * (lowest_sample - pb.position);
    let over_face = inside(local, 4.0 * step);
    if reach < 0.3 && over_face {
        // Over the middle of the face: the distance is the gap and the normal the face's.
        prop_assert!(
            (sep - gap).abs() < 1e-9,
            "{:?}: {} against the gap {}",
            part,
            sep,
            gap
        );
        prop_assert!(
            (out[0].normal - up).length() < 1e-9,
            "{:?}: normal {}",
            part,
            out[0].normal
        );
    }
    for p in &out {
        prop_assert!(p.separation <= margin.max(sep) + 1e-12);
    }
    let (sep2, out2) = query(&b, &pb, &a, &pa, margin);
    prop_assert!((sep2 - sep).abs() < 1e-7, "swapped {} vs {}", sep2, sep);
    prop_assert!((out2[0].normal + out[0].normal).length() < 1e-3);
    Ok(())
}
