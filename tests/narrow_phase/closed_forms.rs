//! Closed forms: single shapes against planes, balls and boxes; bounds, support functions and
//! boxes against samples; determinism.

use crate::{at, close, collider, ground, query, random_rotation, vclose};
use glam::{DQuat, DVec3};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tumble::narrow_phase::{proximity, Collider, Pose};
use tumble::shape::{CompoundPart, Shape};

#[test]
fn sphere_sphere_closed_form() {
    let a = collider(Shape::Sphere { radius: 0.5 });
    let b = collider(Shape::Sphere { radius: 0.25 });
    let (sep, out) = query(
        &a,
        &at(1.0, 2.0, 3.0),
        &b,
        &at(1.0, 2.0 + 0.3, 3.0 + 0.4),
        0.0,
    );
    assert!(close(sep, 0.5 - 0.75, 1e-15));
    assert_eq!(out.len(), 1);
    assert!(vclose(out[0].normal, DVec3::new(0.0, -0.6, -0.8), 1e-15));
    assert_eq!(out[0].separation, sep);
    // Midpoint of the deepest points: a's at centre − 0.5 n, b's at its centre + 0.25 n.
    let on_a = DVec3::new(1.0, 2.0, 3.0) - out[0].normal * 0.5;
    let on_b = DVec3::new(1.0, 2.3, 3.4) + out[0].normal * 0.25;
    assert!(vclose(out[0].position, (on_a + on_b) / 2.0, 1e-15));
    let (sep, out) = query(&a, &at(0.0, 0.0, 0.0), &b, &at(3.0, 0.0, 0.0), 0.1);
    assert!(close(sep, 2.25, 1e-15));
    assert_eq!(out.len(), 1, "the closest pair is always reported");
    assert_eq!(out[0].normal, -DVec3::X);
}

#[test]
fn sphere_plane_closed_form() {
    let s = collider(Shape::Sphere { radius: 0.5 });
    let tilted = collider(Shape::Plane {
        normal: DVec3::new(0.0, 3.0, 4.0),
        offset: 5.0, // unit normal (0, .6, .8), offset 1
    });
    let p = at(0.0, 1.0, 2.0); // n·c = 0.6 + 1.6 = 2.2
    let (sep, out) = query(&s, &p, &tilted, &Pose::IDENTITY, 0.0);
    assert!(close(sep, 2.2 - 1.0 - 0.5, 1e-14));
    assert!(vclose(out[0].normal, DVec3::new(0.0, 0.6, 0.8), 1e-15));
    // The plane as body a: the normal flips, the separation stays.
    let (sep2, out2) = query(&tilted, &Pose::IDENTITY, &s, &p, 0.0);
    assert_eq!(sep2, sep);
    assert_eq!(out2[0].normal, -out[0].normal);
    assert_eq!(out2[0].position, out[0].position);
    // A plane moved by its pose: z ≤ 0 raised by 1.
    let (sep, _) = query(&s, &at(0.0, 0.0, 1.25), &ground(), &at(5.0, 5.0, 1.0), 0.0);
    assert!(close(sep, -0.25, 1e-15));
}

#[test]
fn sphere_box_closed_form() {
    let s = collider(Shape::Sphere { radius: 0.5 });
    let b = collider(Shape::Box {
        half_extents: DVec3::new(1.0, 2.0, 3.0),
    });
    let q = DQuat::from_rotation_z(0.7);
    let pb = Pose::new(DVec3::new(1.0, -1.0, 0.5), q);
    let world = |local: DVec3| pb.transform_point(local);
    // Face, edge, corner, inside (nearest face x).
    let cases = [
        (DVec3::new(2.0, 0.5, 0.0), 1.0 - 0.5, q * DVec3::X),
        (
            DVec3::new(2.0, 3.0, 0.0),
            2f64.sqrt() - 0.5,
            q * DVec3::new(1.0, 1.0, 0.0).normalize(),
        ),
        (
            DVec3::new(2.0, 3.0, 4.0),
            3f64.sqrt() - 0.5,
            q * DVec3::ONE.normalize(),
        ),
        (DVec3::new(0.75, 0.5, 0.0), -0.25 - 0.5, q * DVec3::X),
        (DVec3::new(0.0, -1.9, 0.0), -0.1 - 0.5, q * -DVec3::Y),
    ];
    for (local, want, n) in cases {
        let ps = Pose::new(world(local), DQuat::IDENTITY);
        let (sep, out) = query(&s, &ps, &b, &pb, 0.0);
        assert!(close(sep, want, 1e-14), "{local}: {sep} vs {want}");
        assert!(
            vclose(out[0].normal, n, 1e-14),
            "{local}: normal {}",
            out[0].normal
        );
        let (sep2, out2) = query(&b, &pb, &s, &ps, 0.0);
        assert_eq!(sep2, sep);
        assert_eq!(out2[0].normal, -out[0].normal);
    }
}

#[test]
fn box_flat_on_plane_gives_four_corners() {
    let h = DVec3::new(0.5, 0.3, 0.2);
    let b = collider(Shape::Box { half_extents: h });
    let pose = Pose::new(
        DVec3::new(1.0, 2.0, 0.2 + 0.0005),
        DQuat::from_rotation_z(0.4),
    );
    let (sep, out) = query(&b, &pose, &ground(), &Pose::IDENTITY, 0.001);
    assert!(close(sep, 0.0005, 1e-15));
    assert_eq!(out.len(), 4, "{out:?}");
    for p in &out {
        assert!(close(p.separation, 0.0005, 1e-15));
        assert_eq!(p.normal, DVec3::Z);
        assert!(close(p.position.z, 0.00025, 1e-15));
        // Each is below a distinct bottom corner.
        let local = pose.inverse_transform_point(p.point_on_a());
        assert!(vclose(local.abs(), h, 1e-12), "{local}");
    }
    for i in 0..4 {
        for j in 0..i {
            assert!(out[i].position.distance(out[j].position) > 0.5);
        }
    }
    // Outside the margin: only the closest pair.
    let (sep, out) = query(&b, &pose, &ground(), &Pose::IDENTITY, 0.0001);
    assert!(close(sep, 0.0005, 1e-15));
    assert_eq!(out.len(), 1);
}

#[test]
fn box_on_edge_on_plane_gives_two_points() {
    let b = collider(Shape::Box {
        half_extents: DVec3::splat(0.5),
    });
    // Rotated 45° about x: the lowest edge runs along x at z = centre − √2/2.
    let z = 0.5 * 2f64.sqrt() - 0.0003;
    let pose = Pose::new(
        DVec3::new(0.0, 0.0, z),
        DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4),
    );
    let (sep, out) = query(&b, &pose, &ground(), &Pose::IDENTITY, 0.001);
    assert!(close(sep, -0.0003, 1e-12));
    assert_eq!(out.len(), 2);
    assert!(
        close(out[0].position.x.abs(), 0.5, 1e-12)
            && close(out[1].position.x, -out[0].position.x, 1e-12)
    );
}

#[test]
fn box_flat_on_bigger_box_gives_four_points() {
    let small = collider(Shape::Box {
        half_extents: DVec3::new(0.5, 0.4, 0.25),
    });
    let big = collider(Shape::Box {
        half_extents: DVec3::new(3.0, 3.0, 1.0),
    });
    let pb = Pose::new(DVec3::new(0.2, -0.1, -1.0), DQuat::IDENTITY);
    let pa = Pose::new(
        DVec3::new(0.5, 0.3, 0.25 + 0.0005),
        DQuat::from_rotation_z(0.3),
    );
    for margin in [0.001, 0.01] {
        let (sep, out) = query(&small, &pa, &big, &pb, margin);
        assert!(close(sep, 0.0005, 1e-9), "{sep}");
        assert_eq!(out.len(), 4, "{out:?}");
        for p in &out {
            assert!(close(p.separation, 0.0005, 1e-9), "{p:?}");
            assert!(vclose(p.normal, DVec3::Z, 1e-9));
            let local = pa.inverse_transform_point(p.point_on_a());
            assert!(
                vclose(local.abs(), DVec3::new(0.5, 0.4, 0.25), 1e-9),
                "{local}"
            );
        }
        // Swapped: same separations, normals flipped.
        let (sep2, out2) = query(&big, &pb, &small, &pa, margin);
        assert!(close(sep2, sep, 1e-9));
        assert_eq!(out2.len(), 4);
        assert!(out2.iter().all(|p| vclose(p.normal, -DVec3::Z, 1e-9)));
    }
    // Sinking in: the manifold's separations are the penetrations.
    let pa = Pose::new(DVec3::new(0.5, 0.3, 0.25 - 0.002), DQuat::IDENTITY);
    let (sep, out) = query(&small, &pa, &big, &pb, 0.001);
    assert!(close(sep, -0.002, 1e-9), "{sep}");
    assert_eq!(out.len(), 4);
    assert!(out.iter().all(|p| close(p.separation, -0.002, 1e-9)));
}

#[test]
fn capsule_along_z() {
    let (r, hl) = (0.2, 0.5);
    let c = collider(Shape::Capsule {
        radius: r,
        half_length: hl,
    });
    // Standing: touches at z = −(half_length + radius) below its centre.
    let (sep, out) = query(
        &c,
        &at(1.0, 1.0, hl + r + 0.0002),
        &ground(),
        &Pose::IDENTITY,
        0.001,
    );
    assert!(close(sep, 0.0002, 1e-15));
    assert_eq!(out.len(), 1);
    assert!(vclose(
        out[0].point_on_a(),
        DVec3::new(1.0, 1.0, 0.0002),
        1e-15
    ));
    // Lying: both core ends.
    let lying = Pose::new(
        DVec3::new(0.0, 0.0, r),
        DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2),
    );
    let (sep, out) = query(&c, &lying, &ground(), &Pose::IDENTITY, 0.001);
    assert!(close(sep, 0.0, 1e-15));
    assert_eq!(out.len(), 2);
    assert!(
        close(out[0].position.x.abs(), hl, 1e-12)
            && close(out[1].position.x, -out[0].position.x, 1e-12)
    );
    // Capsule against a sphere beside its core (parry).
    let s = collider(Shape::Sphere { radius: 0.3 });
    let (sep, out) = query(&c, &at(0.0, 0.0, 0.0), &s, &at(1.0, 0.0, 0.2), 0.0);
    assert!(close(sep, 1.0 - 0.2 - 0.3, 1e-9), "{sep}");
    assert!(vclose(out[0].normal, -DVec3::X, 1e-9));
    // Capsule against a box below its end (parry, GJK).
    let b = collider(Shape::Box {
        half_extents: DVec3::splat(1.0),
    });
    let (sep, out) = query(
        &c,
        &at(0.3, 0.2, hl + r + 0.01),
        &b,
        &at(0.0, 0.0, -1.0),
        0.0,
    );
    assert!(close(sep, 0.01, 1e-9), "{sep}");
    assert!(vclose(out[0].normal, DVec3::Z, 1e-7));
}

#[test]
fn cylinder_along_z() {
    let (r, h) = (0.3, 0.6);
    let c = collider(Shape::Cylinder {
        radius: r,
        half_height: h,
    });
    // Standing on its cap: 4 rim points.
    let (sep, out) = query(
        &c,
        &at(0.0, 0.0, h + 0.0004),
        &ground(),
        &Pose::IDENTITY,
        0.001,
    );
    assert!(close(sep, 0.0004, 1e-15));
    assert_eq!(out.len(), 4);
    for p in &out {
        assert!(close(p.separation, 0.0004, 1e-15));
        assert!(close(p.position.truncate().length(), r, 1e-12));
    }
    // Lying on its side along x: one rim point per cap.
    let lying = Pose::new(
        DVec3::new(0.0, 0.0, r),
        DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2),
    );
    let (sep, out) = query(&c, &lying, &ground(), &Pose::IDENTITY, 0.001);
    assert!(close(sep, 0.0, 1e-15));
    assert_eq!(out.len(), 2);
    assert!(close(out[0].position.x.abs(), h, 1e-12));
    // Tilted: the lowest rim point is exact.
    let tilt = 0.3;
    let q = DQuat::from_rotation_x(tilt);
    let lowest = -(h * tilt.cos() + r * tilt.sin());
    let (sep, _) = query(
        &c,
        &Pose::new(DVec3::new(0.0, 0.0, 1.0), q),
        &ground(),
        &Pose::IDENTITY,
        0.0,
    );
    assert!(close(sep, 1.0 + lowest, 1e-14));
    // Standing on a box (parry): the separation along z.
    let b = collider(Shape::Box {
        half_extents: DVec3::new(2.0, 2.0, 0.5),
    });
    let (sep, out) = query(
        &c,
        &at(0.1, 0.2, h + 0.0003),
        &b,
        &at(0.0, 0.0, -0.5),
        0.001,
    );
    assert!(close(sep, 0.0003, 1e-9), "{sep}");
    assert!(vclose(out[0].normal, DVec3::Z, 1e-9));
    assert!(out.len() >= 3, "{out:?}");
    assert!(out.iter().all(|p| close(p.separation, 0.0003, 1e-9)));
}

/// A coin resting on a coin, tilted and offset at random: no contact point is listed twice
/// (parry's manifold of two cylinders can repeat one, which a solve would hold as two rows).
#[test]
fn coin_on_coin_lists_no_point_twice() {
    let coin = collider(Shape::Cylinder {
        radius: 0.01213,
        half_height: 0.000875,
    });
    use rand::Rng;
    let mut rng = ChaCha8Rng::seed_from_u64(26);
    let mut checked = 0;
    for _ in 0..2000 {
        let tilt = DQuat::from_rotation_x(rng.random_range(-0.4..0.4))
            * DQuat::from_rotation_y(rng.random_range(-0.4..0.4))
            * DQuat::from_rotation_z(rng.random_range(-3.0..3.0));
        let offset = DVec3::new(
            rng.random_range(-0.02..0.02),
            rng.random_range(-0.02..0.02),
            0.0,
        );
        // Lift the top coin until its lowest point is 0 to 0.1 mm above the lower coin's top.
        let lower = at(0.0, 0.0, 0.0);
        let mut top = Pose::new(offset + DVec3::Z * 0.03, tilt);
        let gap = rng.random_range(0.0..1e-4);
        for _ in 0..20 {
            let (sep, _) = query(&coin, &top, &coin, &lower, 0.0);
            top.position.z -= sep - gap;
        }
        let (sep, out) = query(&coin, &top, &coin, &lower, 2e-4);
        if sep > 2e-4 {
            continue;
        }
        checked += 1;
        for (k, p) in out.iter().enumerate() {
            for q in &out[..k] {
                assert!(
                    (p.position - q.position).length() > 1e-9,
                    "a point listed twice: {out:?}"
                );
            }
        }
    }
    assert!(checked > 1000, "{checked} poses in contact");
}

#[test]
fn compound_parts() {
    // A dumbbell: two balls on a bar (a thin box) along x.
    let part = |shape: Shape, x: f64| CompoundPart {
        shape,
        position: DVec3::new(x, 0.0, 0.0),
        orientation: DQuat::IDENTITY,
    };
    let dumbbell = collider(Shape::Compound {
        parts: vec![
            part(Shape::Sphere { radius: 0.3 }, -1.0),
            part(
                Shape::Box {
                    half_extents: DVec3::new(1.0, 0.05, 0.05),
                },
                0.0,
            ),
            part(Shape::Sphere { radius: 0.3 }, 1.0),
        ],
    });
    let (sep, out) = query(
        &dumbbell,
        &at(0.0, 0.0, 0.3005),
        &ground(),
        &Pose::IDENTITY,
        0.001,
    );
    assert!(close(sep, 0.0005, 1e-15));
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(close(out[0].position.x, -1.0, 1e-15) && close(out[1].position.x, 1.0, 1e-15));
    // A ball near one end: that part's normal.
    let s = collider(Shape::Sphere { radius: 0.1 });
    let (sep, out) = query(&dumbbell, &at(0.0, 0.0, 0.0), &s, &at(1.0, 0.0, 0.6), 0.0);
    assert!(close(sep, 0.6 - 0.3 - 0.1, 1e-12), "{sep}");
    assert_eq!(out.len(), 1);
    assert!(vclose(out[0].normal, -DVec3::Z, 1e-12));
    // The bar (the middle part) is closest to a ball above the centre.
    let (sep, out) = query(&s, &at(0.0, 0.0, 0.2), &dumbbell, &at(0.0, 0.0, 0.0), 0.0);
    assert!(close(sep, 0.2 - 0.05 - 0.1, 1e-12), "{sep}");
    assert!(vclose(out[0].normal, DVec3::Z, 1e-12));
    // Two compounds: the pair of ends facing each other decides.
    let (sep, _) = query(
        &dumbbell,
        &at(0.0, 0.0, 0.0),
        &dumbbell,
        &at(2.0 + 0.6 + 0.05, 0.0, 0.0),
        0.0,
    );
    assert!(close(sep, 0.05, 1e-9), "{sep}");
}

#[test]
fn bounding_radius_exact() {
    let br = |shape: Shape, place: Pose| Collider::new(&shape, place).unwrap().bounding_radius();
    let id = Pose::IDENTITY;
    assert_eq!(br(Shape::Sphere { radius: 0.5 }, id), 0.5);
    assert!(close(
        br(Shape::Sphere { radius: 0.5 }, at(0.0, 3.0, 4.0)),
        5.5,
        1e-15
    ));
    let h = DVec3::new(1.0, 2.0, 2.0);
    assert!(close(br(Shape::Box { half_extents: h }, id), 3.0, 1e-15));
    let rot = Pose::new(DVec3::ZERO, DQuat::from_rotation_y(0.77));
    assert!(close(br(Shape::Box { half_extents: h }, rot), 3.0, 1e-14));
    assert!(close(
        br(
            Shape::Capsule {
                radius: 0.2,
                half_length: 0.5
            },
            id
        ),
        0.7,
        1e-15
    ));
    assert!(close(
        br(
            Shape::Cylinder {
                radius: 0.3,
                half_height: 0.4
            },
            id
        ),
        0.5,
        1e-15
    ));
    // An off-centre cylinder: farthest rim point (|p0⊥| + r, p0·axis) = (2 + 0.3, 0.4).
    assert!(close(
        br(
            Shape::Cylinder {
                radius: 0.3,
                half_height: 0.4
            },
            at(2.0, 0.0, 0.0)
        ),
        2.3f64.hypot(0.4),
        1e-14
    ));
    let tet = vec![
        DVec3::ZERO,
        DVec3::X,
        DVec3::Y * 2.0,
        DVec3::new(0.1, 0.1, 0.1),
        DVec3::Z * 3.0,
    ];
    assert!(close(br(Shape::Convex { vertices: tet }, id), 3.0, 1e-15));
    let compound = Shape::Compound {
        parts: vec![CompoundPart {
            shape: Shape::Sphere { radius: 1.0 },
            position: DVec3::new(0.0, 0.0, 2.0),
            orientation: DQuat::IDENTITY,
        }],
    };
    assert!(close(br(compound, id), 3.0, 1e-15));
    assert_eq!(
        br(
            Shape::Plane {
                normal: DVec3::Z,
                offset: 0.0
            },
            id
        ),
        f64::INFINITY
    );
}

/// The support function against brute force over surface samples, and its rate of change under
/// rotation (numerically differentiated) against the rotation radius.
#[test]
fn rotation_radius_bounds_the_support_rate() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let shapes = [
        (Shape::Sphere { radius: 0.5 }, at(0.0, 0.0, 0.0)),
        (Shape::Sphere { radius: 0.5 }, at(0.2, -0.1, 0.3)),
        (
            Shape::Capsule {
                radius: 0.3,
                half_length: 0.6,
            },
            at(0.0, 0.0, 0.0),
        ),
        (
            Shape::Capsule {
                radius: 0.3,
                half_length: 0.6,
            },
            at(0.1, 0.2, 0.0),
        ),
        (
            Shape::Box {
                half_extents: DVec3::new(0.2, 0.5, 0.9),
            },
            at(0.1, 0.0, 0.0),
        ),
        (
            Shape::Cylinder {
                radius: 0.4,
                half_height: 0.7,
            },
            at(0.0, 0.3, 0.0),
        ),
        (
            Shape::Convex {
                vertices: vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z, DVec3::ONE * 0.8],
            },
            at(-0.3, -0.3, -0.3),
        ),
    ];
    let ball_centred = collider(Shape::Sphere { radius: 0.5 });
    assert_eq!(ball_centred.rotation_radius(), 0.0);
    let capsule = collider(Shape::Capsule {
        radius: 0.3,
        half_length: 0.6,
    });
    assert!(close(capsule.rotation_radius(), 0.6, 1e-15));
    for (shape, place) in shapes {
        let c = Collider::new(&shape, place).unwrap();
        let rr = c.rotation_radius();
        assert!(rr <= c.bounding_radius());
        let mut worst = 0.0f64;
        for _ in 0..2000 {
            let q0 = random_rotation(&mut rng);
            let omega = random_rotation(&mut rng) * DVec3::X; // unit angular velocity
            let u = random_rotation(&mut rng) * DVec3::Z;
            let pos = DVec3::new(1.0, -2.0, 0.5);
            let h = |t: f64| {
                let q = DQuat::from_scaled_axis(omega * t) * q0;
                c.support(&Pose::new(pos, q), u)
            };
            let dt = 1e-6;
            let rate = (h(dt) - h(-dt)).abs() / (2.0 * dt);
            worst = worst.max(rate);
            assert!(
                rate <= rr * (1.0 + 1e-6) + 1e-7,
                "{shape:?}: rate {rate} > {rr}"
            );
        }
        // The bound is not absurdly loose: some direction comes close to it.
        assert!(worst >= 0.5 * rr, "{shape:?}: worst {worst} vs {rr}");
    }
}

#[test]
fn support_matches_samples() {
    let shapes = [
        Shape::Capsule {
            radius: 0.3,
            half_length: 0.6,
        },
        Shape::Cylinder {
            radius: 0.4,
            half_height: 0.7,
        },
        Shape::Box {
            half_extents: DVec3::new(0.2, 0.5, 0.9),
        },
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for shape in shapes {
        let c = collider(shape.clone());
        let pose = Pose::new(DVec3::new(0.3, 0.1, -0.2), random_rotation(&mut rng));
        // Dense samples of the shape's boundary in its frame.
        let mut samples = Vec::new();
        for i in 0..200 {
            let th = i as f64 / 200.0 * std::f64::consts::TAU;
            for j in 0..=100 {
                let s = j as f64 / 100.0 * 2.0 - 1.0;
                match &shape {
                    Shape::Capsule {
                        radius,
                        half_length,
                    } => {
                        let phi = s * std::f64::consts::FRAC_PI_2;
                        let dir = DVec3::new(phi.cos() * th.cos(), phi.cos() * th.sin(), phi.sin());
                        samples.push(DVec3::Z * half_length * s.signum() + dir * *radius);
                    }
                    Shape::Cylinder {
                        radius,
                        half_height,
                    } => {
                        samples.push(DVec3::new(
                            radius * th.cos(),
                            radius * th.sin(),
                            s * half_height,
                        ));
                    }
                    Shape::Box { half_extents } => {
                        samples.push(
                            *half_extents * DVec3::new(th.cos().signum(), th.sin().signum(), s),
                        );
                    }
                    _ => unreachable!(),
                }
            }
        }
        for _ in 0..50 {
            let u = random_rotation(&mut rng) * DVec3::X;
            let brute = samples
                .iter()
                .map(|p| u.dot(pose.transform_point(*p)))
                .fold(f64::NEG_INFINITY, f64::max);
            let h = c.support(&pose, u);
            assert!(
                h >= brute - 1e-12 && h <= brute + 2e-3,
                "{shape:?}: {h} vs {brute}"
            );
        }
    }
}

#[test]
fn aabb_is_exact() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let shapes = [
        Shape::Box {
            half_extents: DVec3::new(0.2, 0.5, 0.9),
        },
        Shape::Cylinder {
            radius: 0.4,
            half_height: 0.7,
        },
        Shape::Capsule {
            radius: 0.3,
            half_length: 0.6,
        },
        Shape::Convex {
            vertices: vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z, DVec3::ONE * 0.8],
        },
    ];
    for shape in shapes {
        let c = Collider::new(&shape, at(0.1, 0.0, -0.2)).unwrap();
        for _ in 0..20 {
            let pose = Pose::new(DVec3::new(1.0, 2.0, 3.0), random_rotation(&mut rng));
            let (lo, hi) = c.aabb(&pose);
            for (axis, lo, hi) in [
                (DVec3::X, lo.x, hi.x),
                (DVec3::Y, lo.y, hi.y),
                (DVec3::Z, lo.z, hi.z),
            ] {
                assert!(close(hi, c.support(&pose, axis), 1e-12), "{shape:?}");
                assert!(close(lo, -c.support(&pose, -axis), 1e-12), "{shape:?}");
            }
        }
    }
    let (lo, hi) = ground().aabb(&at(0.0, 0.0, 2.0));
    assert_eq!(lo, DVec3::NEG_INFINITY);
    assert_eq!(hi, DVec3::new(f64::INFINITY, f64::INFINITY, 2.0));
    let tilted = collider(Shape::Plane {
        normal: DVec3::ONE,
        offset: 0.0,
    });
    assert_eq!(
        tilted.aabb(&Pose::IDENTITY),
        (DVec3::NEG_INFINITY, DVec3::INFINITY)
    );
    assert_eq!(tilted.plane().unwrap().0, DVec3::ONE.normalize());
}

#[test]
fn deterministic_and_reusing_the_output() {
    let a = collider(Shape::Cylinder {
        radius: 0.3,
        half_height: 0.6,
    });
    let b = collider(Shape::Convex {
        vertices: vec![
            DVec3::ZERO,
            DVec3::X,
            DVec3::Y,
            DVec3::Z,
            DVec3::ONE * 0.8,
            DVec3::new(0.5, 0.5, -0.3),
        ],
    });
    let pa = Pose::new(DVec3::new(0.3, 0.3, 1.2), DQuat::from_rotation_x(0.4));
    let (s1, o1) = query(&a, &pa, &b, &Pose::IDENTITY, 0.5);
    let (s2, o2) = query(&a, &pa, &b, &Pose::IDENTITY, 0.5);
    assert_eq!(s1.to_bits(), s2.to_bits());
    assert_eq!(o1, o2);
    assert_eq!(o1[0].separation, s1);
    assert!(o1.iter().all(|p| p.separation >= s1 && p.separation <= 0.5));
    let plane = ground();
    let planes = proximity(
        &plane,
        &Pose::IDENTITY,
        &plane,
        &Pose::IDENTITY,
        1.0,
        &mut vec![],
    );
    assert_eq!(planes, f64::INFINITY);
}
