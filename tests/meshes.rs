//! Mesh shapes (`shape = { type = "mesh", … }`): an STL cube against the box it describes, a
//! ball rolling in a fixed dish mesh against the rolling period, a decomposed L bracket
//! dropped and thrown, and every class of mesh error through `tumble check`. Each test prints
//! what it measured (`cargo test --release --test meshes -- --nocapture`).
#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::{temp_dir, text, tumble};
use glam::{DQuat, DVec3};
use std::f64::consts::PI;
use std::path::{Path, PathBuf};
use tumble::mass_properties::mass_properties;
use tumble::mesh::MeshCollision;
use tumble::scene::Scene;
use tumble::shape::Shape;
use tumble::world::World;

/// ε_c of every scene here (the default).
const EPS: f64 = 0.001;

fn meshes_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/meshes")
}

/// Scene text parsed as the file `dir/test.toml` (mesh files relative to `dir`).
fn scene_in(dir: &Path, text: &str) -> Scene {
    tumble::scene::parse(text, &dir.join("test.toml")).unwrap_or_else(|e| panic!("{}", e.message))
}

/// Runs `world` frame by frame to `t_end`, calling `each` after every frame.
fn run(world: &mut World, t_end: f64, mut each: impl FnMut(&World)) {
    while world.time() < t_end - 1e-12 {
        world.step_frame(t_end).expect("simulation failed");
        each(world);
    }
}

/// A fixed floor whose top is z = 0.
const FLOOR: &str = "[[bodies]]\nname = \"floor\"\nmotion = \"fixed\"\n\
    shape = { type = \"box\", half_extents = [1.5, 1.5, 0.05] }\nposition = [0.0, 0.0, -0.05]\n";

/// The shape-frame axis (±x, ±y, ±z as 1..3 signed) that points most nearly up.
fn face_up(q: DQuat) -> i32 {
    let mut best = (0, f64::NEG_INFINITY);
    for (k, axis) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
        let up = (q * axis).z;
        for (sign, value) in [(1, up), (-1, -up)] {
            if value > best.1 {
                best = (sign * (k as i32 + 1), value);
            }
        }
    }
    best.0
}

#[test]
fn an_stl_cube_behaves_as_the_box_it_describes() {
    let dir = meshes_dir();
    // Tilted 0.5 rad about (1, 1, 0) and spinning: it lands on an edge and tips over.
    let (s, c) = (0.25f64.sin() / 2f64.sqrt(), 0.25f64.cos());
    let scene = |shape: &str| {
        scene_in(
            &dir,
            &format!(
                "[world]\nsleep_time = 0.3\n[materials.default]\nrestitution = 0.4\nfriction = 0.5\n\
                 {FLOOR}\n[[bodies]]\nname = \"cube\"\nshape = {shape}\ndensity = 500.0\n\
                 position = [0.0, 0.0, 0.15]\norientation = [{c}, {s}, {s}, 0.0]\n\
                 angular_velocity = [1.0, -2.0, 0.5]\n"
            ),
        )
    };
    let cube = scene(r#"{ type = "box", half_extents = [0.05, 0.05, 0.05] }"#);
    let binary = scene(r#"{ type = "mesh", file = "cube.stl", scale = 0.001 }"#);
    let ascii =
        scene(r#"{ type = "mesh", file = "cube-ascii.stl", scale = [0.001, 0.001, 0.001] }"#);

    // Mass properties: the closed mesh's own volume integrals against the box's closed form.
    let props = |s: &Scene| mass_properties(&s.bodies[1].shape, 500.0).unwrap();
    let (b, m, a) = (props(&cube), props(&binary), props(&ascii));
    let inertia_error = (m.inertia - b.inertia).to_cols_array().map(f64::abs);
    let inertia_error = inertia_error.iter().fold(0.0f64, |x, y| x.max(*y)) / b.inertia.x_axis.x;
    eprintln!(
        "  mass: box {} kg, binary STL {} kg (relative {:.1e}); inertia relative error {:.1e}; \
         centre of mass {:.1e} m",
        b.mass,
        m.mass,
        (m.mass - b.mass).abs() / b.mass,
        inertia_error,
        m.center_of_mass.length()
    );
    assert!((m.mass - b.mass).abs() < 1e-12 * b.mass);
    assert!(inertia_error < 1e-12);
    assert!(m.center_of_mass.length() < 1e-15);
    assert_eq!(m, a, "the ASCII and binary cubes differ");
    let Shape::Mesh { mesh, collision } = &binary.bodies[1].shape else {
        panic!("not a mesh")
    };
    assert!(mesh.closed() && mesh.vertices.len() == 8 && mesh.triangles.len() == 12);
    assert!(matches!(collision, MeshCollision::Hull { vertices } if vertices.len() == 8));

    let rest = |scene: &Scene| {
        let mut world = World::new(scene).unwrap();
        let body = world.body(1);
        let (inv_mass, mut moments) = (body.inv_mass, body.inertia.to_array());
        moments.sort_by(f64::total_cmp);
        run(&mut world, 2.0, |_| {});
        let s = world.body_state(1);
        (
            s.position,
            s.orientation,
            inv_mass,
            moments,
            world.max_penetration(),
        )
    };
    let (pb, qb, ib, mb) = {
        let r = rest(&cube);
        (r.0, r.1, r.2, r.3)
    };
    let (pm, qm, im, mm, pen) = rest(&binary);
    eprintln!(
        "  at rest after 2 s: box centre z {:.6} m, face up {}; STL cube z {:.6} m, face up {}; \
         |Δz| {:.2e} m (ε_c {EPS}); penetration {:.1e} m",
        pb.z,
        face_up(qb),
        pm.z,
        face_up(qm),
        (pb.z - pm.z).abs(),
        pen
    );
    assert!((ib - im).abs() < 1e-12 * ib, "inverse masses {ib} {im}");
    for k in 0..3 {
        assert!(
            (mb[k] - mm[k]).abs() < 1e-12 * mb[k],
            "moments {mb:?} {mm:?}"
        );
    }
    assert!(
        (pb.z - pm.z).abs() < EPS,
        "resting heights {} {}",
        pb.z,
        pm.z
    );
    assert!(
        (pm.z - 0.05).abs() < EPS,
        "the STL cube rests at z = {}",
        pm.z
    );
    assert_eq!(face_up(qb), face_up(qm), "different faces up");
    assert!(pen < EPS);
}

/// An open spherical cap (curvature radius `radius`, lowest point at the origin, rim radius
/// `rim`) as OBJ text, triangles facing up: ring i of `rings` has 6 i vertices, consecutive
/// rings stitched by angle (as `scenes/meshes/make_meshes.py` builds dish.obj).
fn dish_obj(radius: f64, rim: f64, rings: usize) -> String {
    let theta_max = (rim / radius).asin();
    let mut out = String::from("v 0 0 0\n");
    let (mut start, mut len) = (vec![0usize], vec![1usize]);
    let mut count = 1;
    for i in 1..=rings {
        start.push(count);
        len.push(6 * i);
        for k in 0..6 * i {
            let (theta, phi) = (
                theta_max * i as f64 / rings as f64,
                2.0 * PI * k as f64 / (6 * i) as f64,
            );
            let s = radius * theta.sin();
            out += &format!(
                "v {} {} {}\n",
                s * phi.cos(),
                s * phi.sin(),
                radius - radius * theta.cos()
            );
        }
        count += 6 * i;
    }
    for i in 1..=rings {
        let (inner, n_in, outer, n_out) = (start[i - 1], len[i - 1], start[i], len[i]);
        let (mut a, mut b) = (0, 0);
        while a < n_in || b < n_out {
            let next_in = if n_in > 1 {
                (a + 1) as f64 / n_in as f64
            } else {
                2.0
            };
            let next_out = (b + 1) as f64 / n_out as f64;
            let (ia, ib) = (inner + a % n_in, outer + b % n_out);
            let third = if b < n_out && (next_out <= next_in || a >= n_in) {
                b += 1;
                outer + b % n_out
            } else {
                a += 1;
                inner + a % n_in
            };
            out += &format!("f {} {} {}\n", ia + 1, ib + 1, third + 1);
            if n_in == 1 && b >= n_out {
                break;
            }
        }
    }
    out
}

/// Times at which `x` crosses zero (linear interpolation between samples).
fn zero_crossings(samples: &[(f64, f64)]) -> Vec<f64> {
    samples
        .windows(2)
        .filter(|w| (w[0].1 < 0.0) != (w[1].1 < 0.0))
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * w[0].1 / (w[0].1 - w[1].1))
        .collect()
}

#[test]
fn a_ball_rolls_in_a_dish_mesh_with_the_rolling_period() {
    let (radius, rim, rings, r) = (0.5, 0.2, 24, 0.03);
    let dir = temp_dir("dish");
    std::fs::write(dir.join("dish.obj"), dish_obj(radius, rim, rings)).unwrap();
    let amplitude = 0.06; // m along the dish, 0.13 rad about its centre of curvature
    let rho = radius - r - 0.3 * EPS; // a little above the sphere: the facets are chords
    let alpha = amplitude / (radius - r);
    let scene = scene_in(
        &dir,
        &format!(
            "[world]\nduration = 7.0\nsleep_time = 0.0\n[materials.default]\nrestitution = 0.0\n\
             friction = 0.8\n[[bodies]]\nname = \"dish\"\nmotion = \"fixed\"\n\
             shape = {{ type = \"mesh\", file = \"dish.obj\", convex = \"none\" }}\n\
             [[bodies]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = {r} }}\n\
             density = 7800.0\nposition = [{}, 0.0, {}]\n",
            rho * alpha.sin(),
            radius - rho * alpha.cos()
        ),
    );
    let mut world = World::new(&scene).unwrap();
    let triangles = match &scene.bodies[0].shape {
        Shape::Mesh { mesh, .. } => mesh.triangles.len(),
        _ => unreachable!(),
    };
    let ball = world.body_index("ball").unwrap();
    let mut samples = vec![(0.0, world.body_state(ball).position.x)];
    let started = std::time::Instant::now();
    run(&mut world, 7.0, |w| {
        samples.push((w.time(), w.body_state(ball).position.x))
    });
    let wall = started.elapsed().as_secs_f64();
    let crossings = zero_crossings(&samples);
    assert!(crossings.len() >= 6, "only {} crossings", crossings.len());
    let half_periods: Vec<f64> = crossings.windows(2).map(|w| w[1] - w[0]).collect();
    let period = 2.0 * (crossings[crossings.len() - 1] - crossings[0]) / half_periods.len() as f64;
    // Small amplitude, rolling without slipping: (7/5) m ẍ = -m g x / (R − r).
    let expected = 2.0 * PI * (7.0 * (radius - r) / (5.0 * 9.81)).sqrt();
    // The large-amplitude correction of a pendulum, 1 + α²/16 (0.1 %), is left out of neither:
    let expected_at_amplitude = expected * (1.0 + alpha * alpha / 16.0);
    let error = period / expected_at_amplitude - 1.0;
    let last = samples
        .iter()
        .rev()
        .take(100)
        .map(|s| s.1.abs())
        .fold(0.0, f64::max);
    eprintln!(
        "  dish R {radius} m, {triangles} triangles (rim {rim} m, {rings} rings), ball r {r} m, \
         amplitude {amplitude} m: period {period:.4} s over {} half periods, small-amplitude \
         2π√(7(R−r)/5g) {expected:.4} s, {expected_at_amplitude:.4} s at this amplitude: error \
         {:+.2} %; amplitude over the last 2 s {last:.4} m; penetration {:.1e} m; wall {wall:.2} s",
        half_periods.len(),
        100.0 * error,
        world.max_penetration()
    );
    assert!(error.abs() < 0.01, "period error {:.3} %", 100.0 * error);
    assert!(world.max_penetration() < EPS);
}

#[test]
fn a_decomposed_bracket_never_tunnels_and_rests_on_its_pieces() {
    let dir = meshes_dir();
    let bracket = r#"{ type = "mesh", file = "l-bracket.obj", scale = 0.001, convex = "decompose", decompose = { max_hulls = 8 } }"#;
    let scene = scene_in(
        &dir,
        &format!(
            "[world]\nsleep_time = 0.3\n[materials.default]\nrestitution = 0.5\nfriction = 0.4\n\
             {}\n[[bodies]]\nname = \"wall\"\nmotion = \"fixed\"\n\
             shape = {{ type = \"box\", half_extents = [0.05, 1.5, 0.5] }}\n\
             position = [0.6, 0.0, 0.5]\n\
             [[bodies]]\nname = \"dropped\"\nshape = {bracket}\ndensity = 2700.0\n\
             position = [-0.3, -0.4, 0.6]\norientation = [0.8775825618903728, 0.479425538604203, 0.0, 0.0]\n\
             angular_velocity = [0.0, 3.0, 0.0]\n\
             [[bodies]]\nname = \"thrown\"\nshape = {bracket}\ndensity = 2700.0\n\
             position = [-0.3, 0.3, 0.3]\nvelocity = [8.0, 0.0, 1.0]\n\
             angular_velocity = [5.0, -7.0, 3.0]\n",
            FLOOR.replace("1.5, 1.5, 0.05", "6.0, 6.0, 0.05")
        ),
    );
    let Shape::Mesh {
        mesh,
        collision: MeshCollision::Decomposed { parts },
    } = &scene.bodies[2].shape
    else {
        panic!("not a decomposed mesh")
    };
    let pieces_volume: f64 = parts
        .iter()
        .map(|p| {
            tumble::mass_properties::volume(&Shape::Convex {
                vertices: p.clone(),
            })
            .unwrap()
        })
        .sum();
    let mesh_volume = tumble::mass_properties::volume(&scene.bodies[2].shape).unwrap();
    eprintln!(
        "  {} triangles into {} convex pieces: their volumes add to {:.3e} m³ against the \
         mesh's {:.3e} m³ (the body's mass uses the mesh's)",
        mesh.triangles.len(),
        parts.len(),
        pieces_volume,
        mesh_volume
    );
    assert!((mesh_volume - 2.0 * 0.06 * 0.01 * 0.04 + 0.01 * 0.01 * 0.04).abs() < 1e-12);
    let mut world = World::new(&scene).unwrap();
    let ids = ["dropped", "thrown"].map(|n| world.body_index(n).unwrap());
    let mut deepest = 0.0f64;
    // How near the wall (its face at x = 0.55) the thrown bracket's pieces came.
    let mut reach = f64::NEG_INFINITY;
    run(&mut world, 4.0, |w| {
        deepest = deepest.max(w.max_penetration());
        let s = w.body_state(ids[1]);
        for p in parts.iter().flatten() {
            reach = reach.max((s.position + s.orientation * *p).x);
        }
    });
    eprintln!("  the thrown bracket's pieces reached x = {reach:.4} m (the wall's face: 0.55 m)");
    assert!(reach > 0.5 && reach < 0.55 + EPS, "reach {reach}");
    for (k, &i) in ids.iter().enumerate() {
        let s = world.body_state(i);
        // Lowest point of the pieces and of the mesh itself at the final pose.
        let lowest = |points: &mut dyn Iterator<Item = &DVec3>| {
            points
                .map(|p| (s.position + s.orientation * *p).z)
                .fold(f64::INFINITY, f64::min)
        };
        let pieces = lowest(&mut parts.iter().flatten());
        let own = lowest(&mut mesh.vertices.iter());
        eprintln!(
            "  {}: at rest at ({:.3}, {:.3}, {:.4}) m, speed {:.1e} m/s, lowest piece point \
             z {:+.2e} m, lowest mesh vertex z {:+.2e} m",
            ["dropped", "thrown"][k],
            s.position.x,
            s.position.y,
            s.position.z,
            s.velocity.length() + s.angular_velocity.length() * 0.06,
            pieces,
            own
        );
        assert!(s.velocity.length() < 1e-3 && s.angular_velocity.length() < 1e-2);
        assert!(
            (-EPS..=EPS).contains(&pieces),
            "the pieces rest at z = {pieces}"
        );
        assert!(own > -EPS, "the mesh sinks into the floor: {own}");
        assert!(
            s.position.x < 0.55,
            "the thrown bracket went through the wall"
        );
    }
    eprintln!("  deepest penetration over 4 s: {deepest:.2e} m (ε_c {EPS} m)");
    assert!(deepest < EPS);
}

/// Writes `files` (name, contents) and a scene with one body whose shape is `shape` into a
/// fresh folder, runs `tumble check` on it and returns the scene's path and the error message
/// (exit code 2 asserted).
fn check_error(test: &str, files: &[(&str, &[u8])], motion: &str, shape: &str) -> (String, String) {
    let dir = temp_dir(test);
    for (name, contents) in files {
        std::fs::write(dir.join(name), contents).unwrap();
    }
    let scene = dir.join("part.toml");
    std::fs::write(
        &scene,
        format!(
            "[world]\nduration = 1.0\n\n[[bodies]]\nname = \"part\"\nmotion = \"{motion}\"\n\
             density = 1000.0\nshape = {shape}\n"
        ),
    )
    .unwrap();
    let path = scene.to_str().unwrap().to_string();
    let out = tumble(&["check", &path]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{test}: stderr {stderr}");
    (path, stderr.trim().to_string())
}

/// The outward triangles of the unit cube as OBJ faces over its 8 corners (bit i of corner k:
/// +1 on axis i), optionally without its top face.
fn cube_obj(with_top: bool) -> Vec<u8> {
    let mut s = String::new();
    for k in 0..8 {
        s += &format!("v {} {} {}\n", k & 1, (k >> 1) & 1, (k >> 2) & 1);
    }
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    for (k, q) in quads.iter().enumerate() {
        if k == 1 && !with_top {
            continue;
        }
        s += &format!(
            "f {} {} {}\nf {} {} {}\n",
            q[0] + 1,
            q[1] + 1,
            q[2] + 1,
            q[0] + 1,
            q[2] + 1,
            q[3] + 1
        );
    }
    s.into_bytes()
}

/// A scene error to provoke: name, files to write, motion, shape, the key blamed, and words
/// the message must hold.
type ErrorCase<'a> = (
    &'a str,
    Vec<(&'a str, &'a [u8])>,
    &'a str,
    &'a str,
    &'a str,
    &'a [&'a str],
);

#[test]
fn every_mesh_error_names_the_file_the_key_and_the_body() {
    let flat = b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n".as_slice();
    let cube = cube_obj(true);
    let open = cube_obj(false);
    // (name, files, motion, shape, key, words the message must hold); the error points at the
    // key's value on line 8 of the scene.
    let cases: [ErrorCase; 12] = [
        (
            "missing",
            vec![],
            "dynamic",
            r#"{ type = "mesh", file = "gone.stl" }"#,
            "shape.file",
            &["\"gone.stl\"", "no such file"],
        ),
        (
            "broken-stl",
            vec![(
                "part.STL",
                b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0\n".as_slice(),
            )],
            "dynamic",
            r#"{ type = "mesh", file = "part.STL" }"#,
            "shape.file",
            &["\"part.STL\"", "not a valid STL file"],
        ),
        (
            "extension",
            vec![("part.ply", flat)],
            "dynamic",
            r#"{ type = "mesh", file = "part.ply" }"#,
            "shape.file",
            &["\"part.ply\"", "unknown mesh format \".ply\""],
        ),
        (
            "garbage-stl",
            vec![("part.stl", b"not a mesh at all".as_slice())],
            "dynamic",
            r#"{ type = "mesh", file = "part.stl" }"#,
            "shape.file",
            &["\"part.stl\"", "not an STL file"],
        ),
        (
            "garbage-obj",
            vec![("part.obj", b"v 0 0 zero\nf 1 2 3\n".as_slice())],
            "dynamic",
            r#"{ type = "mesh", file = "part.obj" }"#,
            "shape.file",
            &["\"part.obj\"", "not a valid OBJ file"],
        ),
        (
            "empty",
            vec![("part.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\n".as_slice())],
            "dynamic",
            r#"{ type = "mesh", file = "part.obj" }"#,
            "shape.file",
            &["\"part.obj\"", "has no triangles"],
        ),
        (
            "flat",
            vec![("part.obj", flat)],
            "dynamic",
            r#"{ type = "mesh", file = "part.obj" }"#,
            "shape.file",
            &["\"part.obj\"", "degenerate", "one plane"],
        ),
        (
            "open",
            vec![("part.obj", &open)],
            "dynamic",
            r#"{ type = "mesh", file = "part.obj", convex = "decompose" }"#,
            "shape.convex",
            &[
                "\"part.obj\"",
                "closed mesh",
                "the mesh is open (4 border edges",
            ],
        ),
        (
            "scale",
            vec![("part.obj", &cube)],
            "dynamic",
            r#"{ type = "mesh", file = "part.obj", scale = [1.0, 0.0, 1.0] }"#,
            "shape.scale",
            &["must be > 0", "[1, 0, 1]"],
        ),
        (
            "convex",
            vec![("part.obj", &cube)],
            "dynamic",
            r#"{ type = "mesh", file = "part.obj", convex = "concave" }"#,
            "shape.convex",
            &["\"part.obj\"", "got \"concave\""],
        ),
        (
            "dynamic",
            vec![("part.obj", &cube)],
            "dynamic",
            r#"{ type = "mesh", file = "part.obj", convex = "none" }"#,
            "shape.convex",
            &["\"part.obj\"", "fixed and kinematic", "dynamic"],
        ),
        (
            "decompose-key",
            vec![("part.obj", &cube)],
            "fixed",
            r#"{ type = "mesh", file = "part.obj", decompose = { resolution = 32 } }"#,
            "shape.decompose",
            &["\"part.obj\"", "only with convex = \"decompose\""],
        ),
    ];
    for (name, files, motion, shape, key, words) in cases {
        let (path, message) = check_error(name, &files, motion, shape);
        eprintln!("  {name}: {message}");
        let written = format!("{} = ", &key["shape.".len()..]);
        let col = "shape = ".len() + shape.find(&written).unwrap() + written.len() + 1;
        let head = format!("error: {path}:8:{col}: bodies[0] \"part\": {key} ");
        assert!(
            message.starts_with(&head),
            "{name}: expected {head:?} in {message:?}"
        );
        for w in words {
            assert!(message.contains(w), "{name}: expected {w:?} in {message:?}");
        }
    }
    // An unreadable file: a folder named like a mesh.
    let dir = temp_dir("unreadable-folder");
    std::fs::create_dir_all(dir.join("folder.stl")).unwrap();
    let (path, message) = check_error(
        "unreadable",
        &[],
        "dynamic",
        &format!(
            "{{ type = \"mesh\", file = \"{}\" }}",
            dir.join("folder.stl").display()
        ),
    );
    eprintln!("  unreadable: {message}");
    assert!(message.starts_with(&format!(
        "error: {path}:8:33: bodies[0] \"part\": shape.file "
    )));
    assert!(
        message.contains("folder.stl") && message.contains("cannot read it"),
        "{message}"
    );
    // Not an error: an open mesh as a hull, or as triangles on a fixed body; a flat one as triangles.
    for (shape, motion, file) in [
        ("hull", "dynamic", &open),
        ("none", "fixed", &open),
        ("none", "kinematic", &flat.to_vec()),
    ] {
        let dir = temp_dir(&format!("fine-{shape}-{motion}"));
        std::fs::write(dir.join("part.obj"), file).unwrap();
        let scene = dir.join("part.toml");
        std::fs::write(
            &scene,
            format!(
                "[[bodies]]\nname = \"part\"\nmotion = \"{motion}\"\ndensity = 1.0\n\
            shape = {{ type = \"mesh\", file = \"part.obj\", convex = \"{shape}\" }}\n"
            ),
        )
        .unwrap();
        let out = tumble(&["check", scene.to_str().unwrap()]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{shape} {motion}: {}",
            text(&out.stderr)
        );
    }
}
