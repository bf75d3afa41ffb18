//! Per-part masses in compounds and full inertia tensors: what the parser reads, what
//! `World::new` builds from it, and the errors (each at its `file:line:col`, naming the body and
//! the part).

use glam::{DMat3, DQuat, DVec3};
use std::path::Path;
use tumble::scene::{parse, InertiaSpec, MassSpec, PartMass};
use tumble::world::World;

const FILE: &str = "scenes/parts.toml";

fn world(text: &str) -> World {
    let scene = parse(text, Path::new(FILE)).unwrap_or_else(|e| panic!("{}", e.message));
    World::new(&scene).unwrap_or_else(|e| panic!("{}", e.message))
}

fn error(text: &str) -> String {
    match parse(text, Path::new(FILE)) {
        Ok(_) => panic!("scene was accepted:\n{text}"),
        Err(e) => e.message,
    }
}

/// Asserts that `message` starts at `FILE:line:col:` and contains every `part`.
fn assert_error(message: &str, line: usize, col: usize, parts: &[&str]) {
    let loc = format!("{FILE}:{line}:{col}: ");
    assert!(message.starts_with(&loc), "expected {loc:?} in {message:?}");
    for part in parts {
        assert!(message.contains(part), "expected {part:?} in {message:?}");
    }
}

/// The body's inertia tensor about its centre of mass in the shape frame, from its principal
/// moments and axes.
fn tensor_in_shape(w: &World, i: usize) -> DMat3 {
    let b = w.body(i);
    let r = DMat3::from_quat(b.principal_axes);
    r * DMat3::from_diagonal(b.inertia) * r.transpose()
}

fn assert_mat_close(a: DMat3, b: DMat3, tol: f64) {
    let scale = b.to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for (x, y) in a.to_cols_array().iter().zip(b.to_cols_array()) {
        assert!((x - y).abs() <= tol * scale, "{a} vs {b}");
    }
}

/// A light ball of radius 0.1 with a dense ball of radius 0.02 inside it, 0.05 below its centre.
const INSERT: &str = r#"[[bodies]]
name = "top"
shape = { type = "compound", parts = [
  { shape = { type = "sphere", radius = 0.1 }, density = 100.0 },
  { shape = { type = "sphere", radius = 0.02 }, position = [0.0, 0.0, -0.05], mass = 0.25 },
] }
"#;

#[test]
fn a_dense_insert_adds_its_mass_and_moves_the_centre_of_mass() {
    let scene = parse(INSERT, Path::new(FILE)).unwrap();
    assert_eq!(
        scene.bodies[0].mass,
        MassSpec::Parts(vec![PartMass::Density(100.0), PartMass::Mass(0.25)])
    );
    let w = world(INSERT);
    let b = w.body(0);
    let shell = 100.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.1f64.powi(3);
    let mass = shell + 0.25;
    assert!((1.0 / b.inv_mass - mass).abs() < 1e-12 * mass);
    // The centre of mass: the mass-weighted mean of the two centres.
    let z = -0.05 * 0.25 / mass;
    assert!((b.com_in_shape - DVec3::new(0.0, 0.0, z)).length() < 1e-15);
    // Each ball about its own centre, shifted to the common centre (parallel axes).
    let about = |m: f64, r: f64, dz: f64| {
        let own = 0.4 * m * r * r;
        DVec3::new(own + m * dz * dz, own + m * dz * dz, own)
    };
    let want = about(shell, 0.1, z) + about(0.25, 0.02, -0.05 - z);
    assert_mat_close(tensor_in_shape(&w, 0), DMat3::from_diagonal(want), 1e-12);
    println!(
        "dense insert: mass {mass:.6} kg, centre of mass z = {z:.6} m, moments {}",
        b.inertia
    );
}

#[test]
fn equal_part_densities_match_one_density_for_the_compound() {
    let parts = r#"parts = [
  { shape = { type = "box", half_extents = [0.1, 0.05, 0.02] }, position = [0.05, 0.0, 0.0]DENS },
  { shape = { type = "cylinder", radius = 0.03, half_height = 0.04 }, position = [-0.1, 0.02, 0.03], orientation = [0.9238795325112867, 0.3826834323650898, 0.0, 0.0]DENS },
]"#;
    let body = |parts: String, extra: &str| {
        format!("[[bodies]]\nname = \"c\"\n{extra}shape = {{ type = \"compound\", {parts} }}\n")
    };
    let one = world(&body(parts.replace("DENS", ""), "density = 2700.0\n"));
    let each = world(&body(parts.replace("DENS", ", density = 2700.0"), ""));
    let (a, b) = (one.body(0), each.body(0));
    assert!((a.inv_mass - b.inv_mass).abs() < 1e-12 * a.inv_mass);
    assert!((a.com_in_shape - b.com_in_shape).length() < 1e-15);
    assert_mat_close(tensor_in_shape(&each, 0), tensor_in_shape(&one, 0), 1e-12);
}

#[test]
fn a_full_tensor_gives_the_principal_axes() {
    // Principal moments 1, 2, 2.5 along axes turned by 10° about z against the shape.
    let turn = DQuat::from_rotation_z(10f64.to_radians());
    let r = DMat3::from_quat(turn);
    let t = r * DMat3::from_diagonal(DVec3::new(1e-4, 2e-4, 2.5e-4)) * r.transpose();
    let row = |i: usize| {
        let v = t.row(i);
        format!("[{:e}, {:e}, {:e}]", v.x, v.y, v.z)
    };
    let text = format!(
        "[[bodies]]\nname = \"b\"\nmass = 1\nshape = {{ type = \"box\", half_extents = [0.1, 0.05, \
         0.02] }}\ninertia = [{}, {}, {}]\n",
        row(0),
        row(1),
        row(2)
    );
    let scene = parse(&text, Path::new(FILE)).unwrap();
    assert!(matches!(
        scene.bodies[0].inertia,
        Some(InertiaSpec::Tensor(_))
    ));
    let w = world(&text);
    let b = w.body(0);
    assert!((b.inertia - DVec3::new(1e-4, 2e-4, 2.5e-4)).length() < 1e-16);
    assert_mat_close(tensor_in_shape(&w, 0), t, 1e-12);
    // The smallest moment's axis is the shape's x turned by 10° (up to sign).
    let x = b.principal_axes * DVec3::X;
    assert!((x.dot(turn * DVec3::X).abs() - 1.0).abs() < 1e-12, "{x}");
    // Principal moments keep the computed axes, which for a box are the shape's own.
    let w = world(&text.replace(
        &format!("[{}, {}, {}]", row(0), row(1), row(2)),
        "[1e-4, 2e-4, 2.5e-4]",
    ));
    let x = w.body(0).principal_axes * DVec3::X;
    assert!((x.dot(DVec3::X).abs() - 1.0).abs() < 1e-12, "{x}");
}

const BODY: &str = "[[bodies]]\nname = \"top\"\n";

#[test]
fn a_part_with_both_density_and_mass() {
    let m = error(&format!(
        "{BODY}shape = {{ type = \"compound\", parts = [\n  {{ shape = {{ type = \"sphere\", radius = 0.1 }}, density = 1.0, mass = 2.0 }},\n] }}\n"
    ));
    assert_error(
        &m,
        4,
        70,
        &["bodies[0] \"top\"", "shape.parts[0].mass", "not both"],
    );
}

#[test]
fn part_masses_must_be_finite_and_positive() {
    let m = error(&format!(
        "{BODY}shape = {{ type = \"compound\", parts = [\n  {{ shape = {{ type = \"sphere\", radius = 0.1 }}, density = -3.0 }},\n] }}\n"
    ));
    assert_error(
        &m,
        4,
        58,
        &["bodies[0] \"top\"", "shape.parts[0].density must be > 0"],
    );
    let m = error(&format!(
        "{BODY}shape = {{ type = \"compound\", parts = [\n  {{ shape = {{ type = \"sphere\", radius = 0.1 }}, mass = nan }},\n] }}\n"
    ));
    assert_error(&m, 4, 55, &["shape.parts[0].mass must be a finite number"]);
}

#[test]
fn every_part_or_none_gives_its_mass() {
    let m = error(&format!(
        "{BODY}shape = {{ type = \"compound\", parts = [\n  {{ shape = {{ type = \"sphere\", radius = 0.1 }}, mass = 1.0 }},\n  {{ shape = {{ type = \"sphere\", radius = 0.1 }}, position = [0.3, 0, 0] }},\n] }}\n"
    ));
    assert_error(
        &m,
        5,
        3,
        &[
            "bodies[0] \"top\"",
            "shape.parts[1] has neither density nor mass",
            "shape.parts[0].mass is given",
        ],
    );
}

#[test]
fn no_body_mass_when_the_parts_carry_theirs() {
    for key in ["mass", "density"] {
        let m = error(&format!(
            "{BODY}{key} = 2.0\nshape = {{ type = \"compound\", parts = [\n  {{ shape = {{ type = \"sphere\", radius = 0.1 }}, density = 1.0 }},\n] }}\n"
        ));
        assert_error(
            &m,
            3,
            key.len() + 4,
            &[
                "bodies[0] \"top\"",
                &format!("{key} must be absent"),
                "shape.parts[0].density at scenes/parts.toml:5:58",
            ],
        );
    }
    // A fixed body's part masses are checked and ignored; it needs no body mass either.
    let fixed = format!(
        "{BODY}motion = \"fixed\"\nshape = {{ type = \"compound\", parts = [\n  {{ shape = {{ type = \"sphere\", radius = 0.1 }}, density = 1.0 }},\n] }}\n"
    );
    world(&fixed);
}

#[test]
fn part_masses_in_a_lattice() {
    let text = "[[lattices]]\nname = \"t\"\ncount = [2, 1, 1]\nspacing = [1, 1, 1]\nshape = { type = \"compound\", parts = [{ shape = { type = \"sphere\", radius = 0.1 }, mass = 3.0 }] }\n";
    let w = world(text);
    assert_eq!(w.body_count(), 2);
    assert!((1.0 / w.body(1).inv_mass - 3.0).abs() < 1e-15);
    let m = error(&format!("{text}mass = 1.0\n"));
    assert_error(&m, 6, 8, &["lattices[0] \"t\"", "mass must be absent"]);
}

const BOX: &str = "[[bodies]]\nname = \"rod\"\nmass = 1\nshape = { type = \"box\", half_extents = [1, 0.1, 0.1] }\n";

#[test]
fn a_tensor_must_be_symmetric() {
    let m = error(&format!(
        "{BOX}inertia = [[1, 0.1, 0], [0.1000001, 1, 0], [0, 0, 1]]\n"
    ));
    assert_error(
        &m,
        5,
        11,
        &[
            "bodies[0] \"rod\"",
            "inertia tensor must be symmetric",
            "inertia[0][1] = 0.1 but inertia[1][0] = 0.1000001",
        ],
    );
    // Rounding of the decimals is accepted.
    parse(
        &format!("{BOX}inertia = [[1, 0.1, 0], [0.1000000000001, 1, 0], [0, 0, 1]]\n"),
        Path::new(FILE),
    )
    .unwrap();
}

#[test]
fn a_tensor_must_be_positive_definite_and_a_rigid_bodys() {
    let m = error(&format!(
        "{BOX}inertia = [[1, 2, 0], [2, 1, 0], [0, 0, 1]]\n"
    ));
    assert_error(
        &m,
        5,
        11,
        &[
            "inertia tensor must be positive definite",
            "(eigenvalues [-1, 1, 3])",
        ],
    );
    // Eigenvalues 1, 1, 3 along turned axes: positive, but no rigid body has them.
    let m = error(&format!(
        "{BOX}inertia = [[2, 1, 0], [1, 2, 0], [0, 0, 1]]\n"
    ));
    assert_error(
        &m,
        5,
        11,
        &["tensor's eigenvalues must satisfy the triangle inequality"],
    );
}

#[test]
fn a_tensor_must_be_three_rows_of_three_numbers() {
    let m = error(&format!("{BOX}inertia = [[1, 0, 0], [0, 1, 0]]\n"));
    assert_error(&m, 5, 11, &["inertia must have 3 elements (got 2)"]);
    let m = error(&format!("{BOX}inertia = [[1, 0, 0], [0, 1], [0, 0, 1]]\n"));
    assert_error(&m, 5, 23, &["inertia[1] must have 3 elements (got 2)"]);
    let m = error(&format!("{BOX}inertia = [[1, 0, 0], 1, [0, 0, 1]]\n"));
    assert_error(&m, 5, 23, &["inertia[1] must be an array"]);
}
