//! One test per class of scene error: each asserts the exact `file:line:col` of the blamed value
//! or key, the body (or section) and the key the message names.

use std::path::Path;
use tumble::scene::parse;

/// The error message for a scene text that must be refused.
fn error(text: &str) -> String {
    match parse(text, Path::new("scenes/bad.toml")) {
        Ok(_) => panic!("scene was accepted:\n{text}"),
        Err(e) => e.message,
    }
}

/// Asserts that `message` starts at `scenes/bad.toml:line:col:` and contains every `part`.
fn assert_error(message: &str, line: usize, col: usize, parts: &[&str]) {
    let loc = format!("scenes/bad.toml:{line}:{col}: ");
    assert!(
        message.starts_with(&loc),
        "expected location {loc:?} in {message:?}"
    );
    for part in parts {
        assert!(message.contains(part), "expected {part:?} in {message:?}");
    }
}

const FLOOR: &str = r#"[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "box", half_extents = [5.0, 5.0, 0.5] }
"#;

#[test]
fn an_unclosed_array_is_named_where_it_opened() {
    // The parser notices the open array at the next table's line; the message names both.
    let m = error("[world]\nduration = 1\ngravity = [0, 0,\n\n[[bodies]]\nname = \"a\"\n");
    println!("{m}");
    assert_error(
        &m,
        6,
        1,
        &[
            "invalid TOML",
            "the array `[` opened at scenes/bad.toml:3:11 is never closed: close it with `]`",
        ],
    );
    let m = error("[[bodies]]\nshape = { type = \"sphere\", radius = 0.1\nmass = 1\n");
    println!("{m}");
    assert!(
        m.contains("the inline table `{` opened at scenes/bad.toml:2:9 is never closed"),
        "{m}"
    );
    let m = error("[[bodies]]\nname = \"ball\nmass = 1\n");
    println!("{m}");
    assert!(
        m.contains(
            "the string `\"` opened at scenes/bad.toml:2:8 is never closed: close it with `\"`"
        ),
        "{m}"
    );
    // A syntax error inside closed brackets names no opener.
    let m = error("[world]\ngravity = [0, 0, x]\n");
    assert!(!m.contains("never closed"), "{m}");
}

#[test]
fn a_file_that_is_not_utf8_is_refused_at_its_first_invalid_byte() {
    let dir = std::env::temp_dir().join(format!("tumble-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("latin1.toml");
    // "café" in Latin-1 on line 3, column 12.
    std::fs::write(&path, b"[world]\nduration = 1\n# it is caf\xe9 time\n").unwrap();
    let e = tumble::scene::load(&path).unwrap_err();
    println!("{}", e.message);
    let expected = format!(
        "{}:3:12: the scene file is not UTF-8 text: byte 0xe9 (offset 32) is not valid UTF-8",
        path.display()
    );
    assert!(e.message.starts_with(&expected), "{}", e.message);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn malformed_toml() {
    let m = error("[world]\ngravity = [0.0, 0.0, -9.81\n");
    assert_error(&m, 2, 27, &["invalid TOML", "unclosed array"]);
}

#[test]
fn duplicate_toml_key() {
    let m = error("[world]\nduration = 1.0\nduration = 2.0\n");
    assert_error(&m, 3, 1, &["invalid TOML", "duplicate key"]);
}

#[test]
fn unknown_key_in_a_body() {
    let m = error(&format!(
        "{FLOOR}\n[[bodies]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = 0.1 }}\nmass = 1.0\ncolour = \"red\"\n"
    ));
    assert_error(
        &m,
        10,
        1,
        &[
            "bodies[1] \"ball\"",
            "unknown key \"colour\"",
            "expected one of",
        ],
    );
}

#[test]
fn unknown_key_in_world_and_top_level() {
    let m = error("[world]\ngravity = [0, 0, -9.81]\ntimestep = 0.01\n");
    assert_error(&m, 3, 1, &["world", "unknown key \"timestep\""]);
    let m = error("[worlds]\nduration = 1\n");
    assert_error(&m, 1, 2, &["unknown key \"worlds\""]);
}

#[test]
fn unknown_key_in_a_shape() {
    let m = error(
        "[[bodies]]\nname = \"ball\"\nmass = 1\nshape = { type = \"sphere\", radius = 0.1, height = 2 }\n",
    );
    assert_error(
        &m,
        4,
        42,
        &["bodies[0] \"ball\"", "unknown key \"shape.height\""],
    );
}

#[test]
fn unknown_shape_type() {
    let m = error("[[bodies]]\nname = \"blob\"\nmass = 1\nshape = { type = \"blob\" }\n");
    assert_error(
        &m,
        4,
        18,
        &[
            "bodies[0] \"blob\"",
            "shape.type",
            "unknown shape type \"blob\"",
        ],
    );
}

#[test]
fn negative_mass() {
    let m = error(&format!(
        "{FLOOR}\n[[bodies]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = 0.1 }}\nmass = -1\n"
    ));
    assert_error(&m, 9, 8, &["bodies[1] \"ball\": mass must be > 0 (got -1)"]);
}

#[test]
fn nan_anywhere() {
    let m = error("[[bodies]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.1 }\nmass = 1\nvelocity = [0.0, nan, 0.0]\n");
    assert_error(
        &m,
        5,
        18,
        &[
            "bodies[0] \"ball\"",
            "velocity[1] must be a finite number (got NaN)",
        ],
    );
    let m = error("[world]\ngravity = [0.0, 0.0, -inf]\n");
    assert_error(
        &m,
        2,
        22,
        &["world", "gravity[2] must be a finite number (got -inf)"],
    );
}

#[test]
fn restitution_above_one() {
    let m = error("[materials.rubber]\nrestitution = 1.5\nfriction = 0.9\n");
    assert_error(
        &m,
        2,
        15,
        &[
            "materials.rubber",
            "restitution must be in [0, 1] (got 1.5)",
        ],
    );
}

#[test]
fn negative_friction() {
    let m = error("[materials.default]\nfriction = -0.1\n");
    assert_error(
        &m,
        2,
        12,
        &["materials.default", "friction must be >= 0 (got -0.1)"],
    );
    let m = error("[[material_pairs]]\na = \"default\"\nb = \"default\"\nfriction = -2\n");
    assert_error(
        &m,
        4,
        12,
        &["material_pairs[0]", "friction must be >= 0 (got -2)"],
    );
}

#[test]
fn zero_radius() {
    let m = error(
        "[[bodies]]\nname = \"dot\"\nmass = 1\nshape = { type = \"sphere\", radius = 0.0 }\n",
    );
    assert_error(
        &m,
        4,
        37,
        &["bodies[0] \"dot\"", "shape.radius must be > 0 (got 0)"],
    );
}

#[test]
fn non_unit_quaternion() {
    let m = error("[[bodies]]\nname = \"ball\"\nmass = 1\nshape = { type = \"sphere\", radius = 0.1 }\norientation = [1.0, 0.1, 0.0, 0.0]\n");
    assert_error(
        &m,
        5,
        15,
        &[
            "bodies[0] \"ball\"",
            "orientation must be a unit quaternion",
        ],
    );
}

#[test]
fn both_mass_and_density() {
    let m = error("[[bodies]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.1 }\nmass = 1\ndensity = 1000\n");
    assert_error(
        &m,
        5,
        11,
        &[
            "bodies[0] \"ball\"",
            "density",
            "either mass or density, not both",
        ],
    );
}

#[test]
fn missing_mass_on_a_dynamic_body() {
    let m = error(&format!(
        "{FLOOR}\n[[bodies]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = 0.1 }}\n"
    ));
    assert_error(&m, 6, 1, &["bodies[1] \"ball\"", "needs mass or density"]);
}

#[test]
fn unknown_material() {
    let m = error("[[bodies]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.1 }\nmass = 1\nmaterial = \"rubber\"\n");
    assert_error(
        &m,
        5,
        12,
        &["bodies[0] \"ball\"", "unknown material \"rubber\""],
    );
    let m = error("[[material_pairs]]\na = \"default\"\nb = \"steel\"\n");
    assert_error(
        &m,
        3,
        5,
        &["material_pairs[0]", "unknown material \"steel\""],
    );
}

#[test]
fn duplicate_body_names() {
    let m = error(&format!("{FLOOR}\n{FLOOR}"));
    assert_error(
        &m,
        7,
        8,
        &[
            "bodies[1] \"floor\"",
            "duplicate body name \"floor\"",
            "scenes/bad.toml:2:8",
        ],
    );
    // A lattice colliding with an explicit body is blamed on the lattice.
    let m = error(&format!(
        "{FLOOR}\n[[bodies]]\nname = \"cube_1\"\nmass = 1\nshape = {{ type = \"sphere\", radius = 0.1 }}\nposition = [0, 0, 9]\n\n[[lattices]]\nname = \"cube\"\nmass = 1\nshape = {{ type = \"sphere\", radius = 0.1 }}\ncount = [2, 1, 1]\nspacing = [1, 1, 1]\n"
    ));
    assert_error(
        &m,
        13,
        8,
        &["lattices[0] \"cube\"", "duplicate body name \"cube_1\""],
    );
}

#[test]
fn plane_on_a_dynamic_body() {
    let m = error("[[bodies]]\nname = \"ground\"\nmass = 1\nshape = { type = \"plane\", normal = [0, 0, 1] }\n");
    assert_error(
        &m,
        4,
        9,
        &[
            "bodies[0] \"ground\"",
            "plane is only allowed on a fixed body",
        ],
    );
}

#[test]
fn degenerate_convex() {
    let m = error("[[bodies]]\nname = \"flat\"\nmass = 1\nshape = { type = \"convex\", vertices = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]] }\n");
    assert_error(
        &m,
        4,
        39,
        &["bodies[0] \"flat\"", "shape.vertices", "degenerate"],
    );
}

#[test]
fn nameless_bodies_are_named_by_index() {
    let m = error(&format!(
        "{FLOOR}\n[[bodies]]\nshape = {{ type = \"sphere\", radius = 0.1 }}\nmass = 0\n"
    ));
    assert_error(&m, 8, 8, &["bodies[1]: mass must be > 0 (got 0)"]);
}

#[test]
fn world_values_out_of_range() {
    assert_error(
        &error("[world]\nframe_period = 0\n"),
        2,
        16,
        &["world", "frame_period must be > 0"],
    );
    assert_error(
        &error("[world]\ncollision_epsilon = -0.001\n"),
        2,
        21,
        &["world", "collision_epsilon must be > 0"],
    );
    assert_error(
        &error("[world]\nduration = -1\n"),
        2,
        12,
        &["world", "duration must be >= 0"],
    );
}

#[test]
fn bad_inertia() {
    let base = "[[bodies]]\nname = \"rod\"\nmass = 1\nshape = { type = \"box\", half_extents = [1, 0.1, 0.1] }\n";
    let m = error(&format!("{base}inertia = [1, 0, 1]\n"));
    assert_error(
        &m,
        5,
        11,
        &["bodies[0] \"rod\"", "inertia", "must all be > 0"],
    );
    let m = error(&format!("{base}inertia = [1, 1, 3]\n"));
    assert_error(
        &m,
        5,
        11,
        &["bodies[0] \"rod\"", "inertia", "triangle inequality"],
    );
}

#[test]
fn wrong_types_and_lengths() {
    let m = error("[[bodies]]\nname = \"ball\"\nmass = \"heavy\"\nshape = { type = \"sphere\", radius = 0.1 }\n");
    assert_error(
        &m,
        3,
        8,
        &["bodies[0] \"ball\"", "mass must be a number (got string)"],
    );
    let m = error("[[bodies]]\nname = \"ball\"\nmass = 1\nshape = { type = \"sphere\", radius = 0.1 }\nposition = [1, 2]\n");
    assert_error(
        &m,
        5,
        12,
        &[
            "bodies[0] \"ball\"",
            "position must have 3 elements (got 2)",
        ],
    );
    let m = error("[[bodies]]\nname = \"ball\"\nmass = 1\nmotion = \"floating\"\nshape = { type = \"sphere\", radius = 0.1 }\n");
    assert_error(&m, 4, 10, &["bodies[0] \"ball\"", "motion must be"]);
}

#[test]
fn bad_lattices() {
    let base = "[[lattices]]\nname = \"cube\"\nmass = 1\nshape = { type = \"box\", half_extents = [0.5, 0.5, 0.5] }\nspacing = [2, 2, 2]\n";
    let m = error(&format!("{base}count = [2, 0, 2]\n"));
    assert_error(
        &m,
        6,
        13,
        &[
            "lattices[0] \"cube\"",
            "count[1] must be an integer >= 1 (got 0)",
        ],
    );
    let m = error(&format!("{base}count = [100000, 100000, 100000]\n"));
    println!("{m}");
    assert_error(
        &m,
        6,
        9,
        &[
            "lattices[0] \"cube\"",
            "count = [100000, 100000, 100000] generates 1000000000000000 bodies, more than the \
             10000000 a scene may have",
        ],
    );
    let m = error(&format!("{base}count = [1, 1, 1]\nmax_rotation = 4.0\n"));
    assert_error(
        &m,
        7,
        16,
        &["lattices[0] \"cube\"", "max_rotation must be in [0, pi]"],
    );
    let m = error(&format!("{base}count = [1, 1, 1]\nposition = [0, 0, 0]\n"));
    assert_error(
        &m,
        7,
        1,
        &["lattices[0] \"cube\"", "unknown key \"position\""],
    );
}

#[test]
fn a_fixed_body_cannot_move() {
    let m = error(&format!("{FLOOR}velocity = [0, 0, 1]\n"));
    assert_error(
        &m,
        5,
        12,
        &[
            "bodies[0] \"floor\"",
            "velocity must be zero on a fixed body",
        ],
    );
}

#[test]
fn compound_parts_must_be_convex() {
    let m = error("[[bodies]]\nname = \"c\"\nmotion = \"fixed\"\nshape = { type = \"compound\", parts = [{ shape = { type = \"plane\", normal = [0, 0, 1] } }] }\n");
    assert_error(
        &m,
        4,
        49,
        &["bodies[0] \"c\"", "shape.parts[0].shape", "must be convex"],
    );
}

#[test]
fn unreadable_file() {
    let e = tumble::scene::load(Path::new("scenes/does-not-exist.toml")).unwrap_err();
    assert!(
        e.message
            .starts_with("scenes/does-not-exist.toml: cannot read scene file"),
        "{}",
        e.message
    );
}

#[test]
fn contact_and_shock_sweeps_must_be_counts_in_range() {
    let m = error("[world]\ncontact_sweeps = 0\n");
    assert_error(
        &m,
        2,
        18,
        &["world", "contact_sweeps", "from 1 to 10000 (got 0)"],
    );
    let m = error("[world]\nshock_sweeps = -1\n");
    assert_error(
        &m,
        2,
        16,
        &["world", "shock_sweeps", "from 0 to 10000 (got -1)"],
    );
    let m = error("[world]\ncontact_sweeps = 2.5\n");
    assert_error(
        &m,
        2,
        18,
        &["world", "contact_sweeps", "must be an integer"],
    );
}

#[test]
fn longest_contact_step_is_not_shorter_than_the_shortest() {
    let m = error("[world]\ncontact_step = 0.004\ncontact_step_max = 0.002\n");
    assert_error(
        &m,
        3,
        20,
        &[
            "world",
            "contact_step_max",
            "at least contact_step = 0.004 s (got 0.002 s)",
        ],
    );
    let m = error("[world]\ncontact_step_max = -1.0\n");
    assert_error(&m, 2, 20, &["world", "contact_step_max"]);
}
