//! Mass properties against closed forms, Mirtich's polyhedral integrals against known solids, and
//! the principal-axes decomposition.

use glam::{DMat3, DQuat, DVec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::PI;
use tumble::mass_properties::{mass_properties, principal_axes, volume, MassProperties};
use tumble::shape::{CompoundPart, Shape, ShapeError};

fn assert_close(got: f64, want: f64, rel: f64, what: &str) {
    let tol = rel * want.abs().max(1e-300);
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} (diff {:e})",
        got - want
    );
}

fn assert_mat_close(got: DMat3, want: DMat3, tol: f64, what: &str) {
    let scale = want
        .to_cols_array()
        .iter()
        .map(|x| x.abs())
        .fold(0.0, f64::max);
    for (g, w) in got.to_cols_array().iter().zip(want.to_cols_array()) {
        assert!(
            (g - w).abs() <= tol * scale.max(1e-300),
            "{what}: got {got}, want {want}"
        );
    }
}

fn assert_vec_close(got: DVec3, want: DVec3, tol: f64, what: &str) {
    assert!(
        (got - want).length() <= tol,
        "{what}: got {got}, want {want}"
    );
}

fn random_rotation(rng: &mut impl Rng) -> DQuat {
    DQuat::from_xyzw(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    )
    .normalize()
}

fn box_corners(h: DVec3) -> Vec<DVec3> {
    (0..8)
        .map(|i| {
            DVec3::new(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            )
        })
        .collect()
}

#[test]
fn sphere_closed_form() {
    let (r, rho) = (0.7, 2500.0);
    let mp = mass_properties(&Shape::Sphere { radius: r }, rho).unwrap();
    let m = rho * 4.0 / 3.0 * PI * r.powi(3);
    assert_close(mp.mass, m, 1e-14, "sphere mass");
    assert_eq!(mp.center_of_mass, DVec3::ZERO);
    assert_mat_close(
        mp.inertia,
        DMat3::from_diagonal(DVec3::splat(0.4 * m * r * r)),
        1e-14,
        "sphere I",
    );
}

#[test]
fn box_closed_form() {
    let h = DVec3::new(0.5, 1.0, 1.5);
    let rho = 3.0;
    let mp = mass_properties(&Shape::Box { half_extents: h }, rho).unwrap();
    let (a, b, c) = (1.0, 2.0, 3.0); // full sides
    let m = rho * a * b * c;
    assert_close(mp.mass, m, 1e-14, "box mass");
    assert_close(mp.mass, 18.0, 1e-14, "box mass value");
    let want = DVec3::new(b * b + c * c, c * c + a * a, a * a + b * b) * (m / 12.0);
    assert_mat_close(mp.inertia, DMat3::from_diagonal(want), 1e-14, "box I");
    assert_close(mp.inertia.x_axis.x, 19.5, 1e-14, "box Ixx value");
}

#[test]
fn cylinder_closed_form() {
    let (r, h, rho) = (0.4, 0.9, 7.0);
    let mp = mass_properties(
        &Shape::Cylinder {
            radius: r,
            half_height: h,
        },
        rho,
    )
    .unwrap();
    let height = 2.0 * h;
    let m = rho * PI * r * r * height;
    assert_close(mp.mass, m, 1e-14, "cylinder mass");
    let across = m * (3.0 * r * r + height * height) / 12.0;
    assert_mat_close(
        mp.inertia,
        DMat3::from_diagonal(DVec3::new(across, across, m * r * r / 2.0)),
        1e-14,
        "cylinder I",
    );
}

/// The capsule against its closed form written independently: cylinder plus a ball whose halves
/// are each shifted (Parallel-axis theorem about the hemisphere's own centre at 3r/8).
#[test]
fn capsule_closed_form() {
    let (r, l, rho) = (0.3, 0.8, 1.5);
    let mp = mass_properties(
        &Shape::Capsule {
            radius: r,
            half_length: l,
        },
        rho,
    )
    .unwrap();
    let m_cyl = rho * PI * r * r * 2.0 * l;
    let m_hemi = rho * 2.0 / 3.0 * PI * r.powi(3);
    assert_close(mp.mass, m_cyl + 2.0 * m_hemi, 1e-14, "capsule mass");
    let i_hemi_own = 83.0 / 320.0 * m_hemi * r * r;
    let shift = l + 3.0 * r / 8.0;
    let across =
        m_cyl * (3.0 * r * r + 4.0 * l * l) / 12.0 + 2.0 * (i_hemi_own + m_hemi * shift * shift);
    let axial = m_cyl * r * r / 2.0 + 2.0 * 0.4 * m_hemi * r * r;
    assert_mat_close(
        mp.inertia,
        DMat3::from_diagonal(DVec3::new(across, across, axial)),
        1e-13,
        "capsule I",
    );
    // A capsule without a core is a ball.
    let ball = mass_properties(
        &Shape::Capsule {
            radius: r,
            half_length: 0.0,
        },
        rho,
    )
    .unwrap();
    let sphere = mass_properties(&Shape::Sphere { radius: r }, rho).unwrap();
    assert_close(ball.mass, sphere.mass, 1e-14, "zero-length capsule mass");
    assert_mat_close(ball.inertia, sphere.inertia, 1e-14, "zero-length capsule I");
}

#[test]
fn convex_box_corners_with_interior_points_is_the_box() {
    let h = DVec3::new(0.5, 1.0, 1.5);
    let offset = DVec3::new(3.0, -2.0, 7.0);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut vertices: Vec<DVec3> = box_corners(h).into_iter().map(|c| c + offset).collect();
    for _ in 0..20 {
        let p = DVec3::new(
            rng.random_range(-0.9..0.9) * h.x,
            rng.random_range(-0.9..0.9) * h.y,
            rng.random_range(-0.9..0.9) * h.z,
        );
        vertices.push(p + offset);
    }
    vertices.swap(0, 13);
    let convex = mass_properties(&Shape::Convex { vertices }, 2.0).unwrap();
    let exact = mass_properties(&Shape::Box { half_extents: h }, 2.0).unwrap();
    assert_close(convex.mass, exact.mass, 1e-13, "hull mass");
    assert_close(convex.mass, 12.0, 1e-13, "hull mass value");
    assert_vec_close(convex.center_of_mass, offset, 1e-13, "hull centre");
    assert_mat_close(convex.inertia, exact.inertia, 1e-13, "hull I");
}

/// A tetrahedron against the closed form of its covariance: about the origin,
/// `C = ρV/20 (Σ vᵢvᵢᵀ + (Σ vᵢ)(Σ vᵢ)ᵀ)` and `I = tr(C) 1 − C` (Tonon 2004).
#[test]
fn convex_tetrahedron_closed_form() {
    let v = [
        DVec3::new(0.1, 0.2, -0.3),
        DVec3::new(2.0, 0.4, 0.1),
        DVec3::new(0.3, 1.7, 0.2),
        DVec3::new(0.5, 0.6, 1.9),
    ];
    let rho = 4.0;
    let mp = mass_properties(
        &Shape::Convex {
            vertices: v.to_vec(),
        },
        rho,
    )
    .unwrap();
    let vol = (v[1] - v[0]).dot((v[2] - v[0]).cross(v[3] - v[0])).abs() / 6.0;
    let m = rho * vol;
    assert_close(mp.mass, m, 1e-13, "tet mass");
    let centroid = v.iter().sum::<DVec3>() / 4.0;
    assert_vec_close(mp.center_of_mass, centroid, 1e-13, "tet centroid");
    let outer = |a: DVec3, b: DVec3| DMat3::from_cols(a * b.x, a * b.y, a * b.z);
    let sum = v.iter().sum::<DVec3>();
    let c_origin =
        (v.iter().fold(DMat3::ZERO, |acc, p| acc + outer(*p, *p)) + outer(sum, sum)) * (m / 20.0);
    // Shift the covariance to the centroid, then I = tr(C) 1 − C.
    let c = c_origin - outer(centroid, centroid) * m;
    let trace = c.x_axis.x + c.y_axis.y + c.z_axis.z;
    let want = DMat3::from_diagonal(DVec3::splat(trace)) - c;
    assert_mat_close(mp.inertia, want, 1e-12, "tet I");
    assert_close(
        volume(&Shape::Convex {
            vertices: v.to_vec(),
        })
        .unwrap(),
        vol,
        1e-13,
        "tet V",
    );
}

#[test]
fn rotated_cube_hull_gives_rotated_tensor() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let h = DVec3::new(0.5, 0.5, 0.5);
    let h_box = DVec3::new(0.3, 0.5, 0.9);
    for shape_h in [h, h_box] {
        for _ in 0..10 {
            let q = random_rotation(&mut rng);
            let t = DVec3::new(rng.random_range(-5.0..5.0), 1.0, -2.0);
            let vertices = box_corners(shape_h)
                .into_iter()
                .map(|c| q * c + t)
                .collect();
            let mp = mass_properties(&Shape::Convex { vertices }, 1.0).unwrap();
            let exact = mass_properties(
                &Shape::Box {
                    half_extents: shape_h,
                },
                1.0,
            )
            .unwrap();
            let r = DMat3::from_quat(q);
            assert_close(mp.mass, exact.mass, 1e-12, "rotated hull mass");
            assert_vec_close(mp.center_of_mass, t, 1e-12, "rotated hull centre");
            assert_mat_close(
                mp.inertia,
                r * exact.inertia * r.transpose(),
                1e-12,
                "R I Rᵀ",
            );
        }
    }
}

#[test]
fn compound_of_two_boxes_is_one_long_box() {
    let h = DVec3::new(0.5, 0.25, 0.1);
    let part = |x: f64| CompoundPart {
        shape: Shape::Box { half_extents: h },
        position: DVec3::new(x, 0.0, 0.0),
        orientation: DQuat::IDENTITY,
    };
    let compound = Shape::Compound {
        parts: vec![part(-0.5), part(0.5)],
    };
    let mp = mass_properties(&compound, 3.0).unwrap();
    let long = mass_properties(
        &Shape::Box {
            half_extents: DVec3::new(1.0, 0.25, 0.1),
        },
        3.0,
    )
    .unwrap();
    assert_close(mp.mass, long.mass, 1e-14, "compound mass");
    assert_vec_close(mp.center_of_mass, DVec3::ZERO, 1e-15, "compound centre");
    assert_mat_close(mp.inertia, long.inertia, 1e-13, "compound I");
}

/// Parts are rotated into the compound frame: a box turned a quarter turn about z is a box with x
/// and y swapped; an off-centre compound has its centre at the mass-weighted mean.
#[test]
fn compound_rotated_and_offset_parts() {
    let quarter = DQuat::from_rotation_z(PI / 2.0);
    let compound = Shape::Compound {
        parts: vec![
            CompoundPart {
                shape: Shape::Box {
                    half_extents: DVec3::new(0.5, 0.25, 0.1),
                },
                position: DVec3::new(0.0, 0.0, 1.0),
                orientation: quarter,
            },
            CompoundPart {
                shape: Shape::Sphere { radius: 0.2 },
                position: DVec3::new(2.0, 0.0, 0.0),
                orientation: DQuat::IDENTITY,
            },
        ],
    };
    let mp = mass_properties(&compound, 1.0).unwrap();
    let b = mass_properties(
        &Shape::Box {
            half_extents: DVec3::new(0.25, 0.5, 0.1),
        },
        1.0,
    )
    .unwrap();
    let s = mass_properties(&Shape::Sphere { radius: 0.2 }, 1.0).unwrap();
    let m = b.mass + s.mass;
    let com = (DVec3::new(0.0, 0.0, 1.0) * b.mass + DVec3::new(2.0, 0.0, 0.0) * s.mass) / m;
    assert_close(mp.mass, m, 1e-14, "mass");
    assert_vec_close(mp.center_of_mass, com, 1e-14, "centre");
    let shift = |mass: f64, d: DVec3| {
        (DMat3::from_diagonal(DVec3::splat(d.length_squared()))
            - DMat3::from_cols(d * d.x, d * d.y, d * d.z))
            * mass
    };
    let want = b.inertia
        + shift(b.mass, DVec3::new(0.0, 0.0, 1.0) - com)
        + s.inertia
        + shift(s.mass, DVec3::new(2.0, 0.0, 0.0) - com);
    assert_mat_close(mp.inertia, want, 1e-13, "I");
}

#[test]
fn volumes() {
    assert_close(
        volume(&Shape::Sphere { radius: 2.0 }).unwrap(),
        32.0 / 3.0 * PI,
        1e-15,
        "sphere",
    );
    assert_close(
        volume(&Shape::Capsule {
            radius: 1.0,
            half_length: 1.0,
        })
        .unwrap(),
        2.0 * PI + 4.0 / 3.0 * PI,
        1e-15,
        "capsule",
    );
    assert_close(
        volume(&Shape::Cylinder {
            radius: 1.0,
            half_height: 0.5,
        })
        .unwrap(),
        PI,
        1e-15,
        "cylinder",
    );
}

fn random_spd(rng: &mut impl Rng) -> DMat3 {
    let q = random_rotation(rng);
    let m = DVec3::new(
        rng.random_range(0.1..10.0),
        rng.random_range(0.1..10.0),
        rng.random_range(0.1..10.0),
    );
    let r = DMat3::from_quat(q);
    r * DMat3::from_diagonal(m) * r.transpose()
}

fn check_principal(i: DMat3) -> (DVec3, DMat3) {
    let (moments, q) = principal_axes(i);
    let r = DMat3::from_quat(q);
    assert!((r.determinant() - 1.0).abs() < 1e-12, "proper rotation");
    assert!(
        moments.x <= moments.y && moments.y <= moments.z,
        "ascending {moments}"
    );
    let back = r * DMat3::from_diagonal(moments) * r.transpose();
    for (g, w) in back.to_cols_array().iter().zip(i.to_cols_array()) {
        assert!((g - w).abs() <= 1e-10, "reconstruction {back} vs {i}");
    }
    (moments, r)
}

#[test]
fn principal_axes_reconstruct_random_spd() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    for _ in 0..1000 {
        check_principal(random_spd(&mut rng));
    }
}

#[test]
fn principal_axes_special_cases() {
    // Diagonal, unsorted: the moments come back sorted with the axes permuted.
    let (m, r) = check_principal(DMat3::from_diagonal(DVec3::new(3.0, 1.0, 2.0)));
    assert_eq!(m, DVec3::new(1.0, 2.0, 3.0));
    assert!((r.x_axis.dot(DVec3::Y)).abs() > 1.0 - 1e-15);
    // Repeated moments (a sphere, a cylinder), rotated.
    let q = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0);
    let rot = DMat3::from_quat(q);
    check_principal(DMat3::IDENTITY * 5.0);
    let (m, _) =
        check_principal(rot * DMat3::from_diagonal(DVec3::new(2.0, 2.0, 7.0)) * rot.transpose());
    assert!((m - DVec3::new(2.0, 2.0, 7.0)).abs().max_element() < 1e-13);
    // A real tensor: the principal moments of a rotated box hull are the box's.
    let h = DVec3::new(0.2, 0.6, 1.0);
    let vertices = box_corners(h).into_iter().map(|c| q * c).collect();
    let MassProperties { inertia, .. } = mass_properties(&Shape::Convex { vertices }, 1.0).unwrap();
    let (m, r) = check_principal(inertia);
    let exact = mass_properties(&Shape::Box { half_extents: h }, 1.0)
        .unwrap()
        .inertia;
    let want = DVec3::new(exact.z_axis.z, exact.y_axis.y, exact.x_axis.x);
    assert!(
        (m - want).abs().max_element() < 1e-12 * want.z,
        "{m} vs {want}"
    );
    // The smallest moment is about the box's long axis (its local z).
    assert!(r.x_axis.dot(q * DVec3::Z).abs() > 1.0 - 1e-12);
}

#[test]
fn errors() {
    let bad = |s: Shape| mass_properties(&s, 1.0).unwrap_err();
    assert!(matches!(
        bad(Shape::Sphere { radius: 0.0 }),
        ShapeError::BadDimension { what: "radius", .. }
    ));
    assert!(matches!(
        bad(Shape::Sphere { radius: f64::NAN }),
        ShapeError::BadDimension { .. }
    ));
    assert!(matches!(
        bad(Shape::Box {
            half_extents: DVec3::new(1.0, -1.0, 1.0)
        }),
        ShapeError::BadDimension {
            what: "half_extents.y",
            ..
        }
    ));
    assert!(matches!(
        bad(Shape::Capsule {
            radius: 1.0,
            half_length: -0.1
        }),
        ShapeError::BadDimension {
            what: "half_length",
            ..
        }
    ));
    assert!(matches!(
        bad(Shape::Cylinder {
            radius: 1.0,
            half_height: f64::INFINITY
        }),
        ShapeError::BadDimension {
            what: "half_height",
            ..
        }
    ));
    assert!(matches!(
        bad(Shape::Plane {
            normal: DVec3::Z,
            offset: 0.0
        }),
        ShapeError::NotAllowed(_)
    ));
    assert!(matches!(
        volume(&Shape::Plane {
            normal: DVec3::Z,
            offset: 0.0
        }),
        Err(ShapeError::NotAllowed(_))
    ));
    // Convex: too few, coplanar, collinear, coincident, non-finite.
    let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    assert!(matches!(
        bad(Shape::Convex { vertices: tri }),
        ShapeError::Degenerate(_)
    ));
    let square = vec![
        DVec3::ZERO,
        DVec3::X,
        DVec3::Y,
        DVec3::ONE.with_z(0.0),
        DVec3::new(0.5, 0.2, 0.0),
    ];
    assert!(matches!(
        bad(Shape::Convex { vertices: square }),
        ShapeError::Degenerate(_)
    ));
    let line: Vec<DVec3> = (0..6).map(|i| DVec3::splat(i as f64)).collect();
    assert!(matches!(
        bad(Shape::Convex { vertices: line }),
        ShapeError::Degenerate(_)
    ));
    assert!(matches!(
        bad(Shape::Convex {
            vertices: vec![DVec3::ONE; 5]
        }),
        ShapeError::Degenerate(_)
    ));
    let nan = vec![
        DVec3::ZERO,
        DVec3::X,
        DVec3::Y,
        DVec3::new(0.0, 0.0, f64::NAN),
    ];
    assert!(matches!(
        bad(Shape::Convex { vertices: nan }),
        ShapeError::Degenerate(_)
    ));
    // Compound: empty, plane part, nested compound, bad part.
    assert!(matches!(
        bad(Shape::Compound { parts: vec![] }),
        ShapeError::Degenerate(_)
    ));
    let part = |shape: Shape| CompoundPart {
        shape,
        position: DVec3::ZERO,
        orientation: DQuat::IDENTITY,
    };
    let plane = Shape::Plane {
        normal: DVec3::Z,
        offset: 0.0,
    };
    assert!(matches!(
        bad(Shape::Compound {
            parts: vec![part(plane.clone())]
        }),
        ShapeError::NotAllowed(_)
    ));
    let inner = Shape::Compound {
        parts: vec![part(Shape::Sphere { radius: 1.0 })],
    };
    assert!(matches!(
        bad(Shape::Compound {
            parts: vec![part(inner)]
        }),
        ShapeError::NotAllowed(_)
    ));
    assert!(matches!(
        bad(Shape::Compound {
            parts: vec![part(Shape::Sphere { radius: -1.0 })]
        }),
        ShapeError::BadDimension { .. }
    ));
    // Density.
    assert!(matches!(
        mass_properties(&Shape::Sphere { radius: 1.0 }, 0.0),
        Err(ShapeError::BadDimension {
            what: "density",
            ..
        })
    ));
    // validate() agrees, and accepts planes with a finite non-zero normal.
    assert!(plane.validate().is_ok());
    assert!(Shape::Plane {
        normal: DVec3::ZERO,
        offset: 0.0
    }
    .validate()
    .is_err());
    assert!(Shape::Plane {
        normal: DVec3::Z,
        offset: f64::NAN
    }
    .validate()
    .is_err());
    assert!(Shape::Sphere { radius: 0.0 }.validate().is_err());
    assert!(Shape::Convex {
        vertices: box_corners(DVec3::ONE)
    }
    .validate()
    .is_ok());
}
