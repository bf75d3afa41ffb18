//! Tests of the pose table against closed forms; errors are printed (`--nocapture`).

use super::*;
use crate::shape::CompoundPart;

/// The index of the face whose outward normal is `n` (normalised here).
fn face_towards(t: &PoseTable, n: DVec3) -> usize {
    let n = n.normalize();
    let hits: Vec<usize> = (0..t.faces.len())
        .filter(|i| t.faces[*i].normal.dot(n) > 1.0 - 1e-9)
        .collect();
    assert_eq!(hits.len(), 1, "faces with normal {n}: {hits:?}");
    hits[0]
}

/// Common invariants: probabilities sum to 1, unstable faces get 0 and settle on stable faces,
/// pose ids are 0..count.
fn check_invariants(t: &PoseTable) {
    let sum: f64 = t.quasi_static.iter().sum();
    println!("sum of quasi_static - 1 = {:e}", sum - 1.0);
    assert!((sum - 1.0).abs() < 1e-12);
    let mut ids: Vec<usize> = t.pose_of_face.iter().flatten().copied().collect();
    ids.sort();
    assert_eq!(ids, (0..t.pose_count()).collect::<Vec<_>>());
    for i in 0..t.faces.len() {
        assert_eq!(t.stable[i], t.pose_of_face[i].is_some());
        assert!(t.stable[t.settles_on[i]]);
        if !t.stable[i] {
            assert_eq!(t.quasi_static[i], 0.0);
            assert_ne!(t.rolls_onto[i], i);
        }
    }
}

#[test]
fn unit_cube_has_six_equal_stable_faces() {
    let t = pose_table(&Shape::Box {
        half_extents: DVec3::splat(0.5),
    })
    .unwrap();
    assert_eq!(t.faces.len(), 6);
    assert!(t.stable.iter().all(|s| *s));
    for (i, q) in t.quasi_static.iter().enumerate() {
        let err = q - 1.0 / 6.0;
        println!(
            "cube face {i}: quasi_static - 1/6 = {err:e}, area {}",
            t.faces[i].area
        );
        assert!(err.abs() < 1e-12);
        assert!((t.faces[i].area - 1.0).abs() < 1e-12);
        assert_eq!(t.faces[i].vertices.len(), 4);
    }
    // Equal probabilities: numbered in face order, i.e. by ascending normal.
    assert_eq!(t.face_of_pose(), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(t.faces[0].normal, DVec3::NEG_X);
    check_invariants(&t);
}

#[test]
fn brick_matches_rectangle_solid_angle() {
    let h = DVec3::new(0.3, 0.2, 0.1);
    let t = pose_table(&Shape::Box { half_extents: h }).unwrap();
    assert_eq!(t.faces.len(), 6);
    assert!(t.stable.iter().all(|s| *s));
    for axis in 0..3 {
        let (d, s, u) = (h[axis], 2.0 * h[(axis + 1) % 3], 2.0 * h[(axis + 2) % 3]);
        // A centred s × u rectangle at distance d.
        let omega = 4.0 * (s * u / ((s * s + 4.0 * d * d) * (u * u + 4.0 * d * d)).sqrt()).asin();
        for sign in [-1.0, 1.0] {
            let f = face_towards(&t, DVec3::AXES[axis] * sign);
            let err = t.quasi_static[f] - omega / (4.0 * PI);
            println!("brick axis {axis} sign {sign}: error {err:e}");
            assert!(err.abs() < 1e-12);
        }
    }
    // The largest faces (normal ±z) are the likeliest poses.
    assert_eq!(t.face_of_pose()[0], face_towards(&t, DVec3::NEG_Z));
    assert_eq!(t.face_of_pose()[1], face_towards(&t, DVec3::Z));
    check_invariants(&t);
}

#[test]
fn coin_heads_tails_and_sides() {
    let n = 16;
    let vertices: Vec<DVec3> = (0..2 * n)
        .map(|i| {
            let a = 2.0 * PI * (i % n) as f64 / n as f64;
            DVec3::new(a.cos(), a.sin(), if i < n { -0.05 } else { 0.05 })
        })
        .collect();
    let t = pose_table(&Shape::Convex { vertices }).unwrap();
    assert_eq!(t.faces.len(), n + 2);
    assert!(t.stable.iter().all(|s| *s));
    let (heads, tails) = (face_towards(&t, DVec3::Z), face_towards(&t, DVec3::NEG_Z));
    assert_eq!(t.faces[heads].vertices.len(), n);
    let err = t.quasi_static[heads] - t.quasi_static[tails];
    println!(
        "coin: heads {} tails {} (difference {err:e})",
        t.quasi_static[heads], t.quasi_static[tails]
    );
    assert!(err.abs() < 1e-12);
    let sides: Vec<f64> = (0..t.faces.len())
        .filter(|i| *i != heads && *i != tails)
        .map(|i| t.quasi_static[i])
        .collect();
    let spread = sides
        .iter()
        .fold(0.0f64, |m, q| m.max((q - sides[0]).abs()));
    println!("coin: side {} (spread {spread:e})", sides[0]);
    assert!(spread < 1e-12);
    // Closed form for a regular n-gon of circumradius R seen from height h on its axis: the fan of
    // n isosceles triangles about the centre, each by Van Oosterom & Strackee, gives
    // Ω = 2n atan(R² sin(2π/n) / (L² + 2hL + h² + R² cos(2π/n))) with L = √(R² + h²).
    let (r, h, step) = (1.0f64, 0.05f64, 2.0 * PI / n as f64);
    let l = r.hypot(h);
    let omega = 2.0
        * n as f64
        * (r * r * step.sin() / (l * l + 2.0 * h * l + h * h + r * r * step.cos())).atan();
    let err = t.quasi_static[heads] - omega / (4.0 * PI);
    println!("coin: heads error against the closed form {err:e}");
    assert!(err.abs() < 1e-12);
    let mut top = t.face_of_pose()[..2].to_vec();
    top.sort();
    assert_eq!(top, {
        let mut v = vec![heads, tails];
        v.sort();
        v
    });
    check_invariants(&t);
}

/// A prism of height 1 (along z) over the obtuse triangle (0, 0), (1, 0), (3, 0.3): the centroid
/// (4/3, 0.1) projects beyond the short side y = 0 (x ∈ [0, 1]), so that face is unstable and tips
/// over its edge at x = 1 onto the side from (1, 0) to (3, 0.3).
#[test]
fn wedge_short_side_tips_onto_its_neighbour() {
    let tri = [(0.0, 0.0), (1.0, 0.0), (3.0, 0.3)];
    let vertices: Vec<DVec3> = [-0.5, 0.5]
        .iter()
        .flat_map(|z| tri.iter().map(move |(x, y)| DVec3::new(*x, *y, *z)))
        .collect();
    let t = pose_table(&Shape::Convex { vertices }).unwrap();
    let com_err = (t.center_of_mass - DVec3::new(4.0 / 3.0, 0.1, 0.0)).length();
    println!("wedge: centre of mass error {com_err:e}");
    assert!(com_err < 1e-12);
    assert_eq!(t.faces.len(), 5);
    let short = face_towards(&t, DVec3::NEG_Y);
    let long = face_towards(&t, DVec3::new(0.3, -2.0, 0.0));
    assert_eq!(t.stable.iter().filter(|s| !**s).count(), 1);
    assert!(!t.stable[short]);
    assert_eq!(t.rolls_onto[short], long);
    assert_eq!(t.settles_on[short], long);
    // The receiving face collects the short side's solid angle.
    let omega = |f: usize| polygon_solid_angle(&t.faces[f].vertices, t.center_of_mass);
    let err = t.quasi_static[long] - (omega(long) + omega(short)) / (4.0 * PI);
    println!("wedge: receiving face quasi_static error {err:e}");
    assert!(err.abs() < 1e-15);
    check_invariants(&t);
}

/// The cube [-1, 1]³ with its (1, 1, 1) corner cut by the plane 2x + y + z = 4 - δ: the cut face
/// (normal (2, 1, 1)/√6) is small and tilted towards +x; the centre of mass (near the origin)
/// projects onto its plane near (4/3, 2/3, 2/3), beyond the edge it shares with the face x = 1,
/// which the body tips onto.
#[test]
fn cut_corner_tips_onto_the_x_face() {
    let delta = 0.3;
    let mut vertices: Vec<DVec3> = (0..8)
        .map(|i| {
            let s = |bit: i32| if i & bit == 0 { -1.0 } else { 1.0 };
            DVec3::new(s(1), s(2), s(4))
        })
        .filter(|v| *v != DVec3::ONE)
        .collect();
    vertices.extend([
        DVec3::new(1.0 - delta / 2.0, 1.0, 1.0),
        DVec3::new(1.0, 1.0 - delta, 1.0),
        DVec3::new(1.0, 1.0, 1.0 - delta),
    ]);
    let t = pose_table(&Shape::Convex { vertices }).unwrap();
    assert_eq!(t.faces.len(), 7);
    let cut = face_towards(&t, DVec3::new(2.0, 1.0, 1.0));
    let plus_x = face_towards(&t, DVec3::X);
    assert_eq!(t.faces[cut].vertices.len(), 3);
    assert_eq!(t.faces[plus_x].vertices.len(), 5);
    let area_err = t.faces[plus_x].area - (4.0 - 0.5 * delta * delta);
    println!("cut cube: +x face area error {area_err:e}");
    assert!(area_err.abs() < 1e-12);
    assert!(!t.stable[cut]);
    assert_eq!(t.rolls_onto[cut], plus_x);
    assert_eq!(t.stable.iter().filter(|s| !**s).count(), 1);
    check_invariants(&t);
}

/// An L of two boxes 1 m thick: a bar [0, 4] × [0, 0.5] and a bar [0, 0.5] × [0.5, 4] (a box along
/// x turned 90° about z, testing part orientations). The centre of mass (71/60, 71/60, 0.5) lies
/// beyond the short end faces x = 4 (y ∈ [0, 0.5]) and y = 4, which tip onto the diagonal face.
#[test]
fn l_compound_ends_tip_onto_the_diagonal() {
    let part = |h: DVec3, position: DVec3, orientation: DQuat| CompoundPart {
        shape: Shape::Box { half_extents: h },
        position,
        orientation,
    };
    let shape = Shape::Compound {
        parts: vec![
            part(
                DVec3::new(2.0, 0.25, 0.5),
                DVec3::new(2.0, 0.25, 0.5),
                DQuat::IDENTITY,
            ),
            part(
                DVec3::new(1.75, 0.25, 0.5),
                DVec3::new(0.25, 2.25, 0.5),
                DQuat::from_rotation_z(PI / 2.0),
            ),
        ],
    };
    let t = pose_table(&shape).unwrap();
    let com_err = (t.center_of_mass - DVec3::new(71.0 / 60.0, 71.0 / 60.0, 0.5)).length();
    println!("L: centre of mass error {com_err:e}");
    assert!(com_err < 1e-12);
    assert_eq!(t.faces.len(), 7);
    let diagonal = face_towards(&t, DVec3::new(1.0, 1.0, 0.0));
    for end in [DVec3::X, DVec3::Y] {
        let f = face_towards(&t, end);
        assert!(!t.stable[f]);
        assert_eq!(t.rolls_onto[f], diagonal);
    }
    assert!(t.stable[diagonal]);
    assert_eq!(t.pose_count(), 5);
    check_invariants(&t);
}

#[test]
fn classify_rotated_cube() {
    let t = pose_table(&Shape::Box {
        half_extents: DVec3::splat(0.5),
    })
    .unwrap();
    let gravity = DVec3::new(0.0, 0.0, -9.81);
    // A quarter turn about x takes the body's -y axis to world -z.
    let q = DQuat::from_rotation_x(PI / 2.0);
    let minus_y = face_towards(&t, DVec3::NEG_Y);
    assert_eq!(classify(&t, q, gravity), (t.pose_of_face[minus_y], minus_y));
    // Each face turned down, then tilted by 20° about a horizontal axis, still rests on that face.
    let tilt = DQuat::from_rotation_y(20f64.to_radians());
    for (f, face) in t.faces.iter().enumerate() {
        let q = tilt * DQuat::from_rotation_arc(face.normal, DVec3::NEG_Z);
        assert_eq!(
            classify(&t, q, gravity),
            (Some(t.pose_of_face[f].unwrap()), f)
        );
    }
    // Identity, unnormalised quaternion: the -z face.
    let minus_z = face_towards(&t, DVec3::NEG_Z);
    assert_eq!(
        classify(&t, DQuat::from_xyzw(0.0, 0.0, 0.0, 2.0), gravity).1,
        minus_z
    );
}

#[test]
fn wilson_interval_values_and_edges() {
    let (lo, hi) = wilson_interval(50, 100);
    println!(
        "wilson 50/100: ({lo}, {hi}), errors {:e} {:e}",
        lo - 0.4038,
        hi - 0.5962
    );
    assert!((lo - 0.4038).abs() < 1e-4 && (hi - 0.5962).abs() < 1e-4);
    assert!((lo + hi - 1.0).abs() < 1e-15);
    // Closed forms at the ends: k = 0 gives (0, z²/(n + z²)), k = n gives (n/(n + z²), 1).
    let z2 = Z_95 * Z_95;
    let (lo, hi) = wilson_interval(0, 10);
    println!(
        "wilson 0/10: ({lo}, {hi}), error {:e}",
        hi - z2 / (10.0 + z2)
    );
    assert_eq!(lo, 0.0);
    assert!((hi - z2 / (10.0 + z2)).abs() < 1e-15);
    let (lo, hi) = wilson_interval(10, 10);
    assert!((lo - 10.0 / (10.0 + z2)).abs() < 1e-15);
    assert_eq!(hi, 1.0);
    assert_eq!(wilson_interval(0, 0), (0.0, 1.0));
    let (lo, hi) = wilson_interval(1, 1_000_000);
    assert!(0.0 < lo && lo < 1e-6 && 1e-6 < hi && hi < 1e-5);
}

#[test]
#[should_panic(expected = "count 3 > n 2")]
fn wilson_interval_rejects_count_above_n() {
    wilson_interval(3, 2);
}

#[test]
fn curved_shapes_are_refused() {
    let cylinder = Shape::Cylinder {
        radius: 1.0,
        half_height: 1.0,
    };
    let compound = Shape::Compound {
        parts: vec![
            CompoundPart {
                shape: Shape::Box {
                    half_extents: DVec3::ONE,
                },
                position: DVec3::ZERO,
                orientation: DQuat::IDENTITY,
            },
            CompoundPart {
                shape: cylinder.clone(),
                position: DVec3::X * 3.0,
                orientation: DQuat::IDENTITY,
            },
        ],
    };
    let shapes = [
        Shape::Sphere { radius: 1.0 },
        Shape::Capsule {
            radius: 1.0,
            half_length: 1.0,
        },
        cylinder,
        Shape::Plane {
            normal: DVec3::Z,
            offset: 0.0,
        },
        compound,
    ];
    for shape in &shapes {
        let err = pose_table(shape).unwrap_err();
        println!("{}: {err}", shape.type_name());
        assert!(matches!(err, PoseError::NotPolyhedral(_)));
        assert!(err.to_string().contains("polyhedral body"));
    }
    let err = pose_table(&shapes[4]).unwrap_err().to_string();
    assert!(err.contains("compound part 1 is a cylinder"), "{err}");
    // An invalid shape is a shape error, not a hull error.
    let bad = Shape::Box {
        half_extents: DVec3::new(1.0, 0.0, 1.0),
    };
    assert!(matches!(pose_table(&bad), Err(PoseError::Shape(_))));
}

/// Two unit cubes stacked into a 1 × 1 × 2 column: the side faces of the two parts are coplanar
/// and merge into one rectangle each, whose mid-height vertices are collinear and dropped.
#[test]
fn stacked_cubes_merge_coplanar_faces() {
    let cube = |z: f64| CompoundPart {
        shape: Shape::Box {
            half_extents: DVec3::splat(0.5),
        },
        position: DVec3::new(0.0, 0.0, z),
        orientation: DQuat::IDENTITY,
    };
    let t = pose_table(&Shape::Compound {
        parts: vec![cube(0.5), cube(1.5)],
    })
    .unwrap();
    assert_eq!(t.faces.len(), 6);
    let side = face_towards(&t, DVec3::X);
    assert_eq!(t.faces[side].vertices.len(), 4);
    assert!((t.faces[side].area - 2.0).abs() < 1e-12);
    // The ends are a centred 1 × 1 square at distance 1, the sides 1 × 2 at distance 0.5.
    let rect = |s: f64, u: f64, d: f64| {
        (s * u / ((s * s + 4.0 * d * d) * (u * u + 4.0 * d * d)).sqrt()).asin() / PI
    };
    let end = face_towards(&t, DVec3::Z);
    let (e_end, e_side) = (
        t.quasi_static[end] - rect(1.0, 1.0, 1.0),
        t.quasi_static[side] - rect(1.0, 2.0, 0.5),
    );
    println!("stacked cubes: end error {e_end:e}, side error {e_side:e}");
    assert!(e_end.abs() < 1e-12 && e_side.abs() < 1e-12);
    check_invariants(&t);
}

/// Random points on a lumpy ellipsoid: a hull of many small triangular faces, some unstable; the
/// invariants hold and every tipping chain ends.
#[test]
fn random_hulls_keep_the_invariants() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for _ in 0..5 {
        let vertices: Vec<DVec3> = (0..60)
            .map(|_| {
                let v = DVec3::new(rng.random(), rng.random(), rng.random()) * 2.0 - 1.0;
                v.normalize() * DVec3::new(2.0, 1.0, 0.5) * rng.random_range(0.9..1.0)
            })
            .collect();
        let t = pose_table(&Shape::Convex { vertices }).unwrap();
        let unstable = t.stable.iter().filter(|s| !**s).count();
        println!("random hull: {} faces, {unstable} unstable", t.faces.len());
        assert!(t.pose_count() >= 1 && unstable > 0);
        check_invariants(&t);
    }
}
