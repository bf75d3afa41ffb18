//! A body's derived quantities (size, volume, mass, inertia) are refused at the key that made
//! them, naming the key as written, the body and the bound, before anything computes with them
//! (docs/scene-format.md, Sanity bounds): a radius of 1e300 once gave "mass 1 and inertia [NaN,
//! NaN, NaN] must be finite and > 0".

use std::path::Path;
use tumble::scene::parse;

/// The message for a one-body scene whose shape and mass lines are `shape` and `rest`.
fn refused(shape: &str, rest: &str) -> String {
    let text = format!("[[bodies]]\nname = \"ball\"\nshape = {shape}\n{rest}\n");
    refused_text(&text, Path::new("scenes/bad.toml"))
}

fn refused_text(text: &str, path: &Path) -> String {
    match parse(text, path) {
        Ok(_) => panic!("scene was accepted:\n{text}"),
        Err(e) => {
            println!("{}", e.message);
            e.message
        }
    }
}

/// Asserts that `message` is located at `scenes/bad.toml:line:col`, names body "ball" and
/// contains every part.
fn assert_names(message: &str, line: usize, col: usize, parts: &[&str]) {
    let loc = format!("scenes/bad.toml:{line}:{col}: bodies[0] \"ball\": ");
    assert!(message.starts_with(&loc), "expected {loc:?} in {message:?}");
    for part in parts {
        assert!(message.contains(part), "expected {part:?} in {message:?}");
    }
}

/// The size bound with the default collision_epsilon = 0.001 m.
const TOO_LARGE: &str = "more than the 21222 m (2.1e7 times [world] collision_epsilon = 0.001 m)";
const TOO_SMALL: &str = "smaller than [world] collision_epsilon = 0.001 m";

#[test]
fn a_huge_sphere_radius_is_refused_at_its_key_with_the_bound() {
    let m = refused("{ type = \"sphere\", radius = 1e300 }", "mass = 1");
    assert_names(&m, 3, 37, &["shape.radius = 1e300 makes a body", TOO_LARGE]);
    assert!(!m.contains("NaN"), "{m}");
}

#[test]
fn a_tiny_sphere_radius_is_refused_on_a_dynamic_body_only() {
    let m = refused("{ type = \"sphere\", radius = 1e-300 }", "mass = 1");
    assert_names(&m, 3, 37, &["shape.radius = 1e-300", TOO_SMALL]);
    let fixed = "[[bodies]]\nname = \"pin\"\nmotion = \"fixed\"\n\
                 shape = { type = \"sphere\", radius = 1e-300 }\n";
    assert!(parse(fixed, Path::new("scenes/ok.toml")).is_ok());
}

#[test]
fn box_half_extents_too_large_too_small_or_too_thin_are_refused_at_their_key() {
    let m = refused("{ type = \"box\", half_extents = [1e9, 1, 1] }", "mass = 1");
    assert_names(
        &m,
        3,
        40,
        &["shape.half_extents = [1e9, 1, 1] makes a body", TOO_LARGE],
    );
    let m = refused(
        "{ type = \"box\", half_extents = [1e-9, 1e-9, 1e-9] }",
        "mass = 1",
    );
    assert_names(&m, 3, 40, &["shape.half_extents", TOO_SMALL]);
    // Large enough across, but so thin that the volume is not a normal f64.
    let m = refused(
        "{ type = \"box\", half_extents = [1, 1, 1e-320] }",
        "mass = 1",
    );
    assert_names(
        &m,
        3,
        40,
        &[
            "shape.half_extents = [1, 1, 1e-320] gives the body a volume of 8e-320 m³",
            "from 2.2e-308 m³, the smallest normal f64",
        ],
    );
}

#[test]
fn capsule_and_cylinder_name_the_key_that_is_out_of_bounds() {
    let m = refused(
        "{ type = \"capsule\", radius = 0.1, half_length = 1e30 }",
        "mass = 1",
    );
    assert_names(&m, 3, 57, &["shape.half_length = 1e30", TOO_LARGE]);
    let m = refused(
        "{ type = \"capsule\", radius = 1e-9, half_length = 1e-9 }",
        "mass = 1",
    );
    assert_names(&m, 3, 38, &["shape.radius = 1e-9", TOO_SMALL]);
    let m = refused(
        "{ type = \"cylinder\", radius = 1e7, half_height = 0.5 }",
        "mass = 1",
    );
    assert_names(&m, 3, 39, &["shape.radius = 1e7", TOO_LARGE]);
    let m = refused(
        "{ type = \"cylinder\", radius = 0.5, half_height = 1e7 }",
        "mass = 1",
    );
    assert_names(&m, 3, 58, &["shape.half_height = 1e7", TOO_LARGE]);
}

#[test]
fn a_compound_names_the_part_and_key_that_reach_too_far() {
    let m = refused(
        "{ type = \"compound\", parts = [{ shape = { type = \"sphere\", radius = 0.1 } }, \
         { shape = { type = \"sphere\", radius = 0.1 }, position = [1e300, 0, 0] }] }",
        "mass = 1",
    );
    assert_names(
        &m,
        3,
        142,
        &[
            "shape.parts[1].position = [1e300, 0, 0] makes a body",
            TOO_LARGE,
        ],
    );
}

#[test]
fn a_mesh_scale_is_bounded_and_the_scaled_mesh_too() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let scene = dir.join("bad.toml");
    let text = |scale: &str| {
        format!(
            "[[bodies]]\nname = \"ball\"\nmass = 1\n\
             shape = {{ type = \"mesh\", file = \"meshes/cube.stl\", scale = {scale} }}\n"
        )
    };
    let file = scene.display().to_string();
    let m = refused_text(&text("1e300"), &scene);
    assert!(
        m.starts_with(&format!("{file}:4:60: bodies[0] \"ball\": shape.scale must be from 1e-30 to 1e30 on every axis (got 1e300)")),
        "{m}"
    );
    let m = refused_text(&text("1e20"), &scene);
    assert!(
        m.starts_with(&format!(
            "{file}:4:60: bodies[0] \"ball\": shape.scale = 1e20 makes a body"
        )) && m.contains(TOO_LARGE),
        "{m}"
    );
    let m = refused_text(&text("1e-20"), &scene);
    assert!(
        m.contains("shape.scale = 1e-20") && m.contains(TOO_SMALL),
        "{m}"
    );
}

#[test]
fn mass_and_density_are_bounded_and_a_density_bound_is_given_for_the_shape() {
    let sphere = "{ type = \"sphere\", radius = 0.1 }";
    let bound = "a mass must be from 1e-100 to 1e100 kg";
    let m = refused(sphere, "mass = 1e300");
    assert_names(&m, 4, 8, &["mass = 1e300 kg is outside the bounds", bound]);
    let m = refused(sphere, "mass = 1e-300");
    assert_names(&m, 4, 8, &["mass = 1e-300 kg", bound]);
    let m = refused(sphere, "density = 1e300");
    assert_names(
        &m,
        4,
        11,
        &[
            "density = 1e300 kg/m³ gives a mass of 4.189e297 kg (volume 0.004189 m³)",
            bound,
            "so for this shape the density from 2.387e-98 to 2.387e102 kg/m³",
        ],
    );
    let m = refused(sphere, "density = 1e-300");
    assert_names(&m, 4, 11, &["density = 1e-300 kg/m³", bound]);
}

#[test]
fn a_compound_part_density_is_refused_at_the_part() {
    let m = refused(
        "{ type = \"compound\", parts = [{ shape = { type = \"sphere\", radius = 0.1 }, \
         density = 1e300 }, { shape = { type = \"sphere\", radius = 0.1 }, position = [0.3, 0, 0], \
         density = 1 }] }",
        "",
    );
    assert_names(
        &m,
        3,
        94,
        &[
            "shape.parts[0].density = 1e300 kg/m³ gives a mass of 4.189e297 kg",
            "a mass must be from 1e-100 to 1e100 kg",
        ],
    );
}

#[test]
fn given_moments_of_inertia_are_bounded() {
    let m = refused(
        "{ type = \"sphere\", radius = 0.1 }",
        "mass = 1\ninertia = [1e-250, 1e-250, 1e-250]",
    );
    assert_names(
        &m,
        5,
        11,
        &[
            "inertia gives the body principal moments of inertia [1e-250, 1e-250, 1e-250] kg m²",
            "each must be from 1e-200 to 1e200 kg m²",
        ],
    );
}

#[test]
fn a_lattice_is_refused_at_its_own_key() {
    let text = "[[lattices]]\nname = \"grains\"\nmass = 1\ncount = [2, 2, 2]\n\
                spacing = [1, 1, 1]\nshape = { type = \"sphere\", radius = 1e-6 }\n";
    let m = refused_text(text, Path::new("scenes/bad.toml"));
    assert!(
        m.starts_with("scenes/bad.toml:6:37: lattices[0] \"grains\": shape.radius = 1e-6")
            && m.contains(TOO_SMALL),
        "{m}"
    );
}
