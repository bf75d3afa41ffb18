//! Scene parsing: the issue's contract example, defaults, every shape, lattice expansion and its
//! reproducibility, and the bundled scenes (including the funnel geometry).

use glam::{DQuat, DVec3};
use std::path::Path;
use tumble::body::Motion;
use tumble::material::Material;
use tumble::scene::{parse, BodySpec, InertiaSpec, MassSpec, Scene, UNUSED_DENSITY};
use tumble::shape::Shape;

fn parse_ok(text: &str) -> Scene {
    match parse(text, Path::new("test.toml")) {
        Ok(s) => s,
        Err(e) => panic!("{}", e.message),
    }
}

fn body<'a>(scene: &'a Scene, name: &str) -> &'a BodySpec {
    scene
        .bodies
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no body {name}"))
}

/// Rotation angle of a unit quaternion, in [0, π].
fn angle(q: DQuat) -> f64 {
    2.0 * q.w.abs().min(1.0).acos()
}

const CONTRACT: &str = r#"
[world]
gravity = [0.0, 0.0, -9.81]    # m/s², z up
duration = 6.0                  # s of simulated time
frame_period = 0.02             # s: the swept-volume horizon t_f and the output frame interval
collision_epsilon = 0.001       # m: ε_c

[materials.default]             # for bodies that name no material
restitution = 0.48
friction = 0.1

[[bodies]]
name = "floor"
motion = "fixed"                # "dynamic" (default) | "fixed" | "kinematic"
shape = { type = "box", half_extents = [30.0, 30.0, 0.5] }
position = [0.0, 0.0, -0.5]

[[bodies]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
mass = 1.0                       # or density = ...
position = [0.0, 0.0, 1.0]
orientation = [1.0, 0.0, 0.0, 0.0]   # unit quaternion [w, x, y, z]
velocity = [1.5, 0.1, 0.0]
angular_velocity = [0.0, 0.0, 0.0]
material = "default"
"#;

#[test]
fn contract_example() {
    let s = parse_ok(CONTRACT);
    assert_eq!(s.source, Path::new("test.toml"));
    assert_eq!(s.world.config.gravity, DVec3::new(0.0, 0.0, -9.81));
    assert_eq!(s.world.duration, 6.0);
    assert_eq!(s.world.config.frame_period, 0.02);
    assert_eq!(s.world.config.collision_epsilon, 0.001);
    assert_eq!(s.materials.len(), 1);
    assert_eq!(
        s.materials["default"],
        Material {
            restitution: 0.48,
            friction: 0.1
        }
    );
    assert_eq!(s.bodies.len(), 2);

    let floor = &s.bodies[0];
    assert_eq!(floor.name, "floor");
    assert_eq!(floor.motion, Motion::Fixed);
    assert_eq!(
        floor.shape,
        Shape::Box {
            half_extents: DVec3::new(30.0, 30.0, 0.5)
        }
    );
    assert_eq!(floor.mass, MassSpec::Density(UNUSED_DENSITY));
    assert_eq!(floor.position, DVec3::new(0.0, 0.0, -0.5));
    assert_eq!(floor.orientation, DQuat::IDENTITY);
    assert_eq!(floor.origin, "test.toml:12");

    let ball = &s.bodies[1];
    assert_eq!(ball.name, "ball");
    assert_eq!(ball.motion, Motion::Dynamic);
    assert_eq!(ball.shape, Shape::Sphere { radius: 0.1 });
    assert_eq!(ball.mass, MassSpec::Mass(1.0));
    assert_eq!(ball.inertia, None);
    assert_eq!(ball.position, DVec3::new(0.0, 0.0, 1.0));
    assert_eq!(ball.orientation, DQuat::IDENTITY);
    assert_eq!(ball.velocity, DVec3::new(1.5, 0.1, 0.0));
    assert_eq!(ball.angular_velocity, DVec3::ZERO);
    assert_eq!(ball.material, "default");
    assert_eq!(ball.origin, "test.toml:18");
    assert_eq!(s.motion_counts(), (1, 1, 0));
}

#[test]
fn defaults() {
    let s = parse_ok("[[bodies]]\nshape = { type = \"sphere\", radius = 1 }\ndensity = 2\n");
    assert_eq!(s.world.config.gravity, DVec3::new(0.0, 0.0, -9.81));
    assert_eq!(s.world.duration, 5.0);
    assert_eq!(s.world.config.frame_period, 0.02);
    assert_eq!(s.world.config.collision_epsilon, 0.001);
    assert_eq!(
        (s.world.config.contact_sweeps, s.world.config.shock_sweeps),
        (8, 4)
    );
    let t = parse_ok("[world]\ncontact_sweeps = 64\nshock_sweeps = 0\n");
    assert_eq!(
        (t.world.config.contact_sweeps, t.world.config.shock_sweeps),
        (64, 0)
    );
    assert_eq!(
        (s.world.config.contact_step, s.world.config.contact_step_max),
        (0.0025, None)
    );
    let t = parse_ok("[world]\ncontact_step = 0.001\ncontact_step_max = 0.001\n");
    assert_eq!(
        (t.world.config.contact_step, t.world.config.contact_step_max),
        (0.001, Some(0.001))
    );
    assert_eq!(
        s.materials["default"],
        Material {
            restitution: 0.5,
            friction: 0.5
        }
    );
    let b = &s.bodies[0];
    assert_eq!(b.name, "body_0");
    assert_eq!(b.motion, Motion::Dynamic);
    assert_eq!(b.mass, MassSpec::Density(2.0));
    assert_eq!(b.position, DVec3::ZERO);
    assert_eq!(b.orientation, DQuat::IDENTITY);
    assert_eq!(b.velocity, DVec3::ZERO);
    assert_eq!(b.angular_velocity, DVec3::ZERO);
    assert_eq!(b.material, "default");

    // An empty file is a valid, empty scene.
    let empty = parse_ok("");
    assert!(empty.bodies.is_empty());
    assert_eq!(empty.materials.len(), 1);

    // A partial material takes 0.5 for the missing key.
    let s = parse_ok("[materials.ice]\nfriction = 0.02\n");
    assert_eq!(
        s.materials["ice"],
        Material {
            restitution: 0.5,
            friction: 0.02
        }
    );
}

#[test]
fn every_shape_and_optional_keys() {
    let s = parse_ok(
        r#"
[materials.steel]
restitution = 0.6
friction = 0.4

[[material_pairs]]
a = "steel"
b = "default"
friction = 0.2

[[bodies]]
name = "ground"
motion = "fixed"
shape = { type = "plane", normal = [0, 0, 2], offset = 0.5 }

[[bodies]]
name = "pill"
shape = { type = "capsule", radius = 0.1, half_length = 0.3 }
mass = 2
inertia = [0.1, 0.1, 0.01]
material = "steel"
position = [0, 0, 1]

[[bodies]]
name = "can"
motion = "kinematic"
shape = { type = "cylinder", radius = 0.2, half_height = 0.4 }
velocity = [1, 0, 0]
angular_velocity = [0, 0, 3]
position = [2, 0, 1]
# within 1e-6 of unit: normalised
orientation = [0.7071068, 0.0, 0.0, 0.7071068]

[[bodies]]
name = "tetra"
shape = { type = "convex", vertices = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]] }
density = 500
position = [4, 0, 1]

[[bodies]]
name = "dumbbell"
shape = { type = "compound", parts = [
  { shape = { type = "sphere", radius = 0.2 }, position = [-0.5, 0, 0] },
  { shape = { type = "box", half_extents = [0.5, 0.05, 0.05] } },
  { shape = { type = "sphere", radius = 0.2 }, position = [0.5, 0, 0], orientation = [0, 1, 0, 0] },
] }
mass = 3
position = [6, 0, 1]
"#,
    );
    assert_eq!(
        body(&s, "ground").shape,
        Shape::Plane {
            normal: DVec3::new(0.0, 0.0, 2.0),
            offset: 0.5
        }
    );
    let pill = body(&s, "pill");
    assert_eq!(
        pill.shape,
        Shape::Capsule {
            radius: 0.1,
            half_length: 0.3
        }
    );
    assert_eq!(pill.mass, MassSpec::Mass(2.0));
    assert_eq!(
        pill.inertia,
        Some(InertiaSpec::Principal(DVec3::new(0.1, 0.1, 0.01)))
    );
    assert_eq!(pill.material, "steel");
    let can = body(&s, "can");
    assert_eq!(can.motion, Motion::Kinematic);
    assert_eq!(can.velocity, DVec3::new(1.0, 0.0, 0.0));
    assert_eq!(can.angular_velocity, DVec3::new(0.0, 0.0, 3.0));
    assert!((can.orientation.length() - 1.0).abs() < 1e-15);
    assert!((can.orientation.z - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-15);
    match &body(&s, "tetra").shape {
        Shape::Convex { vertices } => assert_eq!(vertices[3], DVec3::new(0.0, 0.0, 1.0)),
        other => panic!("{other:?}"),
    }
    match &body(&s, "dumbbell").shape {
        Shape::Compound { parts } => {
            assert_eq!(parts.len(), 3);
            assert_eq!(parts[0].position, DVec3::new(-0.5, 0.0, 0.0));
            assert_eq!(parts[1].orientation, DQuat::IDENTITY);
            assert_eq!(parts[2].orientation, DQuat::from_xyzw(1.0, 0.0, 0.0, 0.0));
            assert_eq!(parts[1].shape.type_name(), "box");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.motion_counts(), (3, 1, 1));

    // The pair override and the rule, through the material table.
    let table = s.material_table().unwrap();
    let over = table.pair_by_name("default", "steel").unwrap();
    assert_eq!(
        over,
        Material {
            restitution: 0.6,
            friction: 0.2
        }
    );
    let own = table.pair_by_name("steel", "steel").unwrap();
    assert_eq!(
        own,
        Material {
            restitution: 0.6,
            friction: 0.4
        }
    );
}

const LATTICE: &str = r#"
[[lattices]]
name = "cube"
shape = { type = "box", half_extents = [0.5, 0.5, 0.5] }
mass = 1.0
count = [3, 2, 4]
spacing = [1.6, 2.0, 1.5]
center = [10.0, -4.0, 100.0]
lowest = 18.0
max_rotation = 0.2
seed = 7
velocity = [0, 0, -1]
material = "default"
"#;

#[test]
fn lattice_expansion() {
    let s = parse_ok(LATTICE);
    assert_eq!(s.bodies.len(), 24);
    // Row-major, x fastest, then y, then z.
    for (i, b) in s.bodies.iter().enumerate() {
        assert_eq!(b.name, format!("cube_{i}"));
        let (ix, iy, iz) = (i % 3, (i / 3) % 2, i / 6);
        let expected = DVec3::new(
            10.0 + (ix as f64 - 1.0) * 1.6,
            -4.0 + (iy as f64 - 0.5) * 2.0,
            18.0 + iz as f64 * 1.5,
        );
        assert!(
            (b.position - expected).length() < 1e-12,
            "{}: {} vs {expected}",
            b.name,
            b.position
        );
        assert_eq!(b.velocity, DVec3::new(0.0, 0.0, -1.0));
        assert_eq!(b.mass, MassSpec::Mass(1.0));
        assert_eq!(b.motion, Motion::Dynamic);
        assert!((b.orientation.length() - 1.0).abs() < 1e-14);
        assert!(
            angle(b.orientation) <= 0.2 + 1e-12,
            "{}",
            angle(b.orientation)
        );
        assert_eq!(b.origin, "test.toml:2");
    }
    // The rotations are random, not all zero and not all equal.
    let angles: Vec<f64> = s.bodies.iter().map(|b| angle(b.orientation)).collect();
    assert!(angles.iter().any(|&a| a > 0.05));
    assert!(angles.iter().any(|&a| (a - angles[0]).abs() > 1e-3));

    // Without `lowest`, the lattice is centred on center's z too.
    let centred = parse_ok(&LATTICE.replace("lowest = 18.0\n", ""));
    assert!((centred.bodies[0].position.z - (100.0 - 1.5 * 1.5)).abs() < 1e-12);
    assert!((centred.bodies[23].position.z - (100.0 + 1.5 * 1.5)).abs() < 1e-12);
}

#[test]
fn lattice_rotations_are_reproducible() {
    let a = parse_ok(LATTICE);
    let b = parse_ok(LATTICE);
    assert_eq!(a.bodies, b.bodies);
    let c = parse_ok(&LATTICE.replace("seed = 7", "seed = 8"));
    assert_ne!(a.bodies[0].orientation, c.bodies[0].orientation);
    // The positions do not depend on the seed.
    assert_eq!(a.bodies[5].position, c.bodies[5].position);
    // No rotation without max_rotation, and a base orientation is kept.
    let flat = parse_ok(&LATTICE.replace("max_rotation = 0.2\n", ""));
    assert!(flat.bodies.iter().all(|b| b.orientation == DQuat::IDENTITY));
    let turned = parse_ok(&LATTICE.replace(
        "max_rotation = 0.2\n",
        "orientation = [0.0, 0.0, 0.0, 1.0]\n",
    ));
    assert!(turned
        .bodies
        .iter()
        .all(|b| (b.orientation.z.abs() - 1.0).abs() < 1e-15));
}

/// The bundled scenes' files (`scenes/`, the experiment gallery `scenes/experiments/`, and
/// `scenes/joints/` and `scenes/machinery/`), sorted.
fn bundled() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut files: Vec<_> = [
        root.clone(),
        root.join("experiments"),
        root.join("joints"),
        root.join("machinery"),
    ]
    .iter()
    .flat_map(|dir| std::fs::read_dir(dir).unwrap())
    .map(|e| e.unwrap().path())
    .filter(|p| p.extension().is_some_and(|e| e == "toml"))
    .collect();
    files.sort();
    files
}

#[test]
fn every_bundled_scene_parses() {
    let files = bundled();
    let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let names: Vec<String> = files
        .iter()
        .map(|p| {
            p.strip_prefix(&scenes)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    for required in [
        "ramp.toml",
        "experiments/dominos.toml",
        "experiments/block-on-block.toml",
        "experiments/marbles.toml",
        "experiments/coins.toml",
        "experiments/platter.toml",
        "experiments/bowling.toml",
        "experiments/chain-of-balls.toml",
        "small-funnel.toml",
        "funnel.toml",
        "funnel-250.toml",
        "funnel-4000.toml",
        "funnel-10k.toml",
        "funnel-100k.toml",
        "mesh-parts.toml",
        "joints/newtons-cradle-strings.toml",
        "joints/chain.toml",
        "machinery/feeder.toml",
        "machinery/dish.toml",
    ] {
        assert!(names.iter().any(|n| n == required), "missing {required}");
    }
    for path in files {
        let s = tumble::scene::load(&path).unwrap_or_else(|e| panic!("{}", e.message));
        assert!(!s.bodies.is_empty(), "{}", path.display());
        s.material_table().unwrap();
    }
}

/// The funnel walls' inner faces and the cube lattice of a bundled funnel scene: outlet half-width
/// `w0` at z = `z0`, slope `s`, mouth at `z1`.
fn check_funnel(file: &str, cubes: usize, w0: f64, s: f64, z0: f64, z1: f64, lowest: f64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(file);
    let scene = tumble::scene::load(&path).unwrap();
    assert_eq!(scene.materials["default"].restitution, 0.48, "{file}");
    assert_eq!(scene.materials["default"].friction, 0.1, "{file}");
    let ground = body(&scene, "ground");
    match ground.shape {
        Shape::Box { half_extents } => {
            assert_eq!(
                ground.position.z + half_extents.z,
                0.0,
                "{file}: ground top at z = 0"
            );
            // Beyond the funnel's mouth on every side.
            let mouth = w0 + s * (z1 - z0);
            assert!(half_extents.x.min(half_extents.y) > mouth, "{file}: ground");
        }
        _ => panic!("{file}: ground is not a box"),
    }
    // Each wall's inner face: the box face whose outward normal points most towards the axis.
    for name in ["wall_px", "wall_nx", "wall_py", "wall_ny"] {
        let w = body(&scene, name);
        assert_eq!(w.motion, Motion::Fixed);
        let Shape::Box { half_extents: h } = w.shape else {
            panic!("{name} is not a box")
        };
        let axis = match name {
            "wall_px" | "wall_nx" => 0,
            _ => 1,
        };
        let r = w.orientation;
        let local_z = r * DVec3::Z;
        // The inner face is the +z or -z face, whichever faces the funnel's axis.
        let sign = if local_z[axis] * w.position[axis] < 0.0 {
            1.0
        } else {
            -1.0
        };
        let mut zs = Vec::new();
        for (a, b) in [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)] {
            let corner = w.position + r * DVec3::new(a * h.x, b * h.y, sign * h.z);
            // On the plane |x| = w0 + s (z - z0) (or |y| …).
            let expected = w0 + s * (corner.z - z0);
            assert!(
                (corner[axis].abs() - expected).abs() < 1e-9,
                "{file} {name}: corner {corner} is not on the wall plane"
            );
            zs.push(corner.z);
        }
        zs.sort_by(f64::total_cmp);
        assert!(
            (zs[0] - z0).abs() < 1e-9 && (zs[3] - z1).abs() < 1e-9,
            "{file} {name}: {zs:?}"
        );
        // The wall is wide enough to reach the corners at the mouth.
        let half_width = if axis == 0 { h.y } else { h.x };
        assert!(half_width >= w0 + s * (z1 - z0), "{file} {name}");
    }
    // The cubes: count, and clear of the walls (above the mouth, inside its footprint).
    let cubes_in: Vec<&BodySpec> = scene
        .bodies
        .iter()
        .filter(|b| b.name.starts_with("cube_"))
        .collect();
    assert_eq!(cubes_in.len(), cubes, "{file}");
    let mouth = w0 + s * (z1 - z0);
    let mut min_z = f64::INFINITY;
    for c in &cubes_in {
        let Shape::Box { half_extents: h } = c.shape else {
            panic!("{file}: cube is not a box")
        };
        let reach = h.length();
        assert!(c.position.x.abs() + reach < mouth && c.position.y.abs() + reach < mouth);
        assert!(c.position.z - reach > z1, "{file}: {} too low", c.name);
        assert!(angle(c.orientation) <= 0.2 + 1e-12);
        min_z = min_z.min(c.position.z);
    }
    assert!(
        (min_z - lowest).abs() < 1e-12,
        "{file}: lowest centres at {min_z}"
    );
}

#[test]
fn funnel_scenes_geometry() {
    check_funnel("funnel.toml", 1000, 2.0, 1.0, 8.0, 16.0, 18.0);
    check_funnel("funnel-250.toml", 250, 2.0, 1.0, 8.0, 16.0, 18.0);
    check_funnel("funnel-4000.toml", 4000, 4.0, 2.0, 8.0, 16.0, 26.0);
    check_funnel("funnel-10k.toml", 10_000, 4.0, 2.0, 8.0, 16.0, 26.0);
    check_funnel("funnel-100k.toml", 100_000, 8.0, 4.0, 8.0, 16.0, 18.0);
    check_funnel("small-funnel.toml", 50, 1.0, 1.0, 4.0, 8.0, 9.0);
}

#[test]
fn funnel_matches_the_issue() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/funnel.toml");
    let s = tumble::scene::load(&path).unwrap();
    assert_eq!(s.world.duration, 6.0);
    assert_eq!(s.world.config.frame_period, 0.02);
    assert_eq!(s.world.config.collision_epsilon, 0.001);
    assert_eq!(s.world.config.gravity, DVec3::new(0.0, 0.0, -9.81));
    assert_eq!(s.motion_counts(), (1000, 5, 0));
    let c = body(&s, "cube_0");
    assert_eq!(
        c.shape,
        Shape::Box {
            half_extents: DVec3::splat(0.5)
        }
    );
    assert_eq!(c.mass, MassSpec::Mass(1.0));
    assert_eq!(c.velocity, DVec3::ZERO);
    assert!((c.position - DVec3::new(-7.2, -7.2, 18.0)).length() < 1e-12);
    let last = body(&s, "cube_999");
    assert!((last.position - DVec3::new(7.2, 7.2, 18.0 + 9.0 * 1.6)).length() < 1e-12);
}
