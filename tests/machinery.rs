//! Prescribed motion of kinematic bodies (`path`): the closed forms a shaken, keyframed or
//! rocking fixture must reproduce, the bounds' conservativeness on a fast-vibrating plate, a
//! slow pusher waking a sleeper, a crush, and the `path` errors. Each test prints what it
//! measured against the closed form (`cargo test --release --test machinery -- --nocapture`);
//! the scenes of `scenes/machinery/` are measured in `tests/machinery_scenes.rs`.
#[path = "cli_support/mod.rs"]
mod cli_support;

use glam::{DQuat, DVec3};
use std::f64::consts::{FRAC_PI_2, TAU};
use std::path::Path;
use tumble::kinematic_path::KinematicPath;
use tumble::scene::Scene;
use tumble::world::World;

const G: f64 = 9.81;

fn parse(text: &str) -> Scene {
    tumble::scene::parse(text, Path::new("machinery.toml"))
        .unwrap_or_else(|e| panic!("{}", e.message))
}

fn world(scene: &Scene) -> World {
    World::new(scene).unwrap_or_else(|e| panic!("{}", e.message))
}

/// The angle between two orientations (rad), accurate for small angles too.
fn turn_between(a: DQuat, b: DQuat) -> f64 {
    let d = a * b.inverse();
    2.0 * DVec3::new(d.x, d.y, d.z).length().min(1.0).asin()
}

fn index(world: &World, name: &str) -> usize {
    world
        .body_index(name)
        .unwrap_or_else(|| panic!("no body {name}"))
}

/// Runs `world` frame by frame to `t_end`, calling `each` after every frame.
fn run(world: &mut World, t_end: f64, mut each: impl FnMut(&World)) {
    while world.time() < t_end - 1e-12 {
        world.step_frame(t_end).expect("simulation failed");
        each(world);
    }
}

/// A kinematic plate 1 m square, 0.1 m thick (top face at z = 0.05 at rest) on `path`, and a
/// 0.2 m cube of 1 kg resting 0.25 mm above it.
fn plate_and_block(path: &str, friction: f64, epsilon: f64) -> String {
    format!(
        r#"
[world]
duration = 2.0
frame_period = 0.005
collision_epsilon = {epsilon}

[materials.default]
restitution = 0.0
friction = {friction}

[[bodies]]
name = "plate"
motion = "kinematic"
shape = {{ type = "box", half_extents = [0.5, 0.5, 0.05] }}
path = {path}

[[bodies]]
name = "block"
shape = {{ type = "box", half_extents = [0.1, 0.1, 0.1] }}
mass = 1.0
position = [0.0, 0.0, 0.15025]
"#
    )
}

/// A plate shaken vertically at 5 Hz from its crest (phase π/2): with A (2πf)² < g the block
/// rides it (the contact step predicts the plate's own acceleration), the gap never opening
/// beyond ε_c; with A (2πf)² > g the plate drops away faster than the block falls, and the
/// block's first flight is the closed form gap(t) = gap₀ + A (1 − cos 2πf t) − g t²/2.
#[test]
fn a_block_rides_a_plate_shaken_below_one_g_and_flies_above_it() {
    let (f, eps, gap0) = (5.0, 0.0005, 0.00025);
    let w = TAU * f;
    for (gamma, flies) in [(0.7, false), (1.5, true)] {
        let a = gamma * G / (w * w);
        let path = format!(
            "{{ type = \"oscillate\", amplitude = [0.0, 0.0, {a}], frequency = {f}, \
             phase = {FRAC_PI_2} }}"
        );
        let scene = parse(&plate_and_block(&path, 0.5, eps));
        let mut world = world(&scene);
        let (plate, block) = (index(&world, "plate"), index(&world, "block"));
        let closed = |t: f64| gap0 + a * (1.0 - (w * t).cos()) - 0.5 * G * t * t;
        let (mut flight_err, mut risen, mut landed, mut max_closed) =
            (0.0f64, false, false, 0.0f64);
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        run(&mut world, 2.0, |world| {
            let t = world.time();
            let gap = world.body(block).position.z - 0.1 - (world.body(plate).position.z + 0.05);
            // The first flight, until the closed form comes back down to the contact band.
            risen |= closed(t) > 3.0 * eps;
            landed |= risen && closed(t) <= 3.0 * eps;
            if !landed {
                flight_err = flight_err.max((gap - closed(t)).abs());
                max_closed = max_closed.max(closed(t));
            }
            if t > 0.3 {
                (lo, hi) = (lo.min(gap), hi.max(gap));
            }
        });
        let counts = world.counts();
        eprintln!(
            "A (2πf)² = {gamma} g (A = {:.3} mm): gap over 0.3–2 s in [{lo:.3e}, {hi:.3e}] m \
             (ε_c = {eps}); max penetration {:.1e} m; sleeps {}",
            a * 1e3,
            world.max_penetration(),
            counts.sleeps
        );
        assert!(
            world.max_penetration() <= eps,
            "penetration {}",
            world.max_penetration()
        );
        assert!(lo >= -eps, "the block sank {lo} m into the plate");
        if flies {
            eprintln!(
                "  first flight: gap up to {max_closed:.4e} m, |sim − closed form| ≤ \
                 {flight_err:.1e} m"
            );
            assert!(max_closed > 4.0 * eps && flight_err < 1e-9, "{flight_err}");
            assert!(hi > 10.0 * eps, "no flight: largest gap {hi} m");
        } else {
            assert!(
                hi <= eps,
                "the block left a plate shaken below 1 g: gap {hi} m"
            );
            // A body resting on a moving fixture never falls asleep on it.
            assert_eq!(counts.sleeps, 0);
        }
    }
}

/// The largest slide (m) of a block on a plate at x(t) = A (cos ωt − 1) under Coulomb friction
/// μ, in 1D, integrated in steps of 1 µs: stuck while the plate's acceleration stays within
/// μ g, else pulled towards the plate's velocity at μ g, sticking again where they meet.
fn coulomb_slide(a: f64, w: f64, mu: f64, t_end: f64) -> f64 {
    let dt = 1e-6;
    let plate = |t: f64| {
        (
            a * ((w * t).cos() - 1.0),
            -a * w * (w * t).sin(),
            -a * w * w * (w * t).cos(),
        )
    };
    let (mut x, mut v, mut slide) = (0.0f64, 0.0f64, 0.0f64);
    let mut t = 0.0;
    while t < t_end {
        let (_, vp, ap) = plate(t);
        let (xp1, vp1, _) = plate(t + dt);
        let rel = v - vp;
        let v1 = if rel.abs() <= mu * G * dt {
            if ap.abs() <= mu * G {
                vp1 // stuck
            } else {
                v + mu * G * ap.signum() * dt // breaks loose, pulled the plate's way
            }
        } else {
            let v1 = v - mu * G * rel.signum() * dt;
            if (v1 - vp1) * rel <= 0.0 {
                vp1
            } else {
                v1
            }
        };
        x += 0.5 * (v + v1) * dt;
        v = v1;
        t += dt;
        slide = slide.max((x - xp1).abs());
    }
    slide
}

/// A plate shaken horizontally at 5 Hz from rest: below A (2πf)² = μ g static friction carries
/// the block with it; above, the block slips as far as the 1D Coulomb model says.
#[test]
fn a_block_sticks_to_a_plate_shaken_sideways_below_mu_g_and_slips_above() {
    let (f, mu, eps) = (5.0, 0.5, 0.0005);
    let w = TAU * f;
    for gamma in [0.7, 1.5] {
        let a = gamma * mu * G / (w * w);
        let path = format!(
            "{{ type = \"oscillate\", amplitude = [{a}, 0.0, 0.0], frequency = {f}, \
             phase = {FRAC_PI_2} }}"
        );
        let scene = parse(&plate_and_block(&path, mu, eps));
        let mut world = world(&scene);
        let (plate, block) = (index(&world, "plate"), index(&world, "block"));
        let offset0 = world.body(block).position.x - world.body(plate).position.x;
        let mut slide = 0.0f64;
        run(&mut world, 2.0, |world| {
            let offset = world.body(block).position.x - world.body(plate).position.x;
            slide = slide.max((offset - offset0).abs());
        });
        let model = coulomb_slide(a, w, mu, 2.0);
        eprintln!(
            "A (2πf)² = {gamma} μg (A = {:.3} mm): block slid up to {slide:.4e} m on the plate \
             (1D Coulomb model: {model:.4e} m)",
            a * 1e3
        );
        if gamma < 1.0 {
            assert!(slide < 1e-5 && model < 1e-9, "slip below μ g: {slide} m");
        } else {
            assert!(slide > 1e-3, "no slip above μ g: {slide} m");
            assert!(
                (slide - model).abs() < 0.05 * model,
                "{slide} against {model}"
            );
        }
    }
}

/// Parts and a pile of 120 small cubes on a plate shaken at 100 Hz, gently (0.9 g, 22 µm) and
/// hard (20 g, 0.5 mm; then also 10 m/s² sideways): the bounds follow the plate's acceleration,
/// and a held contact the plate approaches mid-step is a collision at once, so nothing ever
/// gets deeper than ε_c into it (without the second rule the vertical case sank a cube
/// 1.14 ε_c into the plate).
#[test]
fn a_fast_vibrating_plate_never_lets_a_resting_part_penetrate() {
    let f = 100.0;
    let w2 = (TAU * f).powi(2);
    for (amplitude, eps) in [
        (DVec3::new(0.0, 0.0, 0.9 * G / w2), 5e-5),
        (DVec3::new(0.0, 0.0, 0.5e-3), 5e-5),
        (DVec3::new(0.3e-3, 0.2e-3, 0.5e-3), 2e-4),
    ] {
        let parts = [
            ("box", "half_extents = [0.02, 0.02, 0.02]", -0.2, 0.02),
            ("box", "half_extents = [0.03, 0.02, 0.01]", -0.1, 0.01),
            ("sphere", "radius = 0.02", 0.0, 0.02),
            ("cylinder", "radius = 0.02, half_height = 0.01", 0.1, 0.01),
            ("capsule", "radius = 0.01, half_length = 0.02", 0.2, 0.01),
        ];
        let mut text = format!(
            "[world]\nframe_period = 0.01\ncollision_epsilon = {eps}\n\n[[bodies]]\n\
             name = \"plate\"\nmotion = \"kinematic\"\n\
             shape = {{ type = \"box\", half_extents = [0.4, 0.2, 0.01] }}\n\
             path = {{ type = \"oscillate\", amplitude = [{}, {}, {}], frequency = {f} }}\n",
            amplitude.x, amplitude.y, amplitude.z
        );
        for (k, (kind, keys, x, half)) in parts.iter().enumerate() {
            // The capsule lies along x (its axis turned from z).
            let turn = if *kind == "capsule" {
                "[0.7071067811865476, 0.0, 0.7071067811865476, 0.0]"
            } else {
                "[1.0, 0.0, 0.0, 0.0]"
            };
            text += &format!(
                "\n[[bodies]]\nname = \"part_{k}\"\nshape = {{ type = \"{kind}\", {keys} }}\n\
                 density = 1000.0\nposition = [{x}, 0.0, {}]\norientation = {turn}\n",
                0.01 + half + 0.5 * eps
            );
        }
        text += "\n[[lattices]]\nname = \"cube\"\nshape = { type = \"box\", half_extents = \
                 [0.01, 0.01, 0.01] }\ndensity = 1000.0\ncount = [10, 4, 3]\n\
                 spacing = [0.03, 0.03, 0.03]\ncenter = [0.0, 0.1, 0.0]\nlowest = 0.0212\n";
        let scene = parse(&text);
        // On the host path, and seeded through the data-parallel stages (their CPU twins),
        // which sweep constant velocities: a path body's box and bounds come from the host.
        for stages in [false, true] {
            let mut world = world(&scene);
            if stages {
                world.set_frame_stages(Box::new(tumble::stages::CpuStages::new()));
            }
            let clock = std::time::Instant::now();
            // The lowest centre over the plate's footprint (bodies shaken off its edges fall).
            let mut lowest = f64::INFINITY;
            run(&mut world, 1.0, |world| {
                for k in 1..world.body_count() {
                    let p = world.body(k).position;
                    if p.x.abs() < 0.4 && p.y.abs() < 0.2 {
                        lowest = lowest.min(p.z);
                    }
                }
            });
            let c = world.counts();
            eprintln!(
                "100 Hz, amplitude {amplitude} m ({:.1} g vertical), {}: max penetration \
                 {:.2e} m = {:.3} ε_c; lowest centre over the plate z = {lowest:.4} m; {} collisions, \
                 {} heap pops, {:.2} s wall for 1 s",
                amplitude.z * w2 / G,
                if stages { "stages" } else { "host" },
                world.max_penetration(),
                world.max_penetration() / eps,
                c.collisions,
                c.heap_pops,
                clock.elapsed().as_secs_f64()
            );
            assert!(
                world.max_penetration() <= eps,
                "{}",
                world.max_penetration()
            );
            assert!(lowest > 0.01, "a part fell through the plate: z = {lowest}");
        }
    }
}

/// A keyframed body is exactly at its keys at the key times, also on its second lap, and moves
/// at the piecewise constant velocity between them.
#[test]
fn a_keyframed_body_reaches_its_keys_at_the_key_times() {
    let scene = parse(
        r#"
[world]
frame_period = 0.02
[[bodies]]
name = "slider"
motion = "kinematic"
shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
position = [1.0, 2.0, 3.0]
orientation = [0.9238795325112867, 0.3826834323650898, 0.0, 0.0]
path = { type = "keyframes", times = [0.0, 0.3, 0.7, 1.0], positions = [[0, 0, 0], [0.5, 0, 0], [0.5, 0.2, 0.1], [0, 0, 0]], orientations = [[1, 0, 0, 0], [0.7071067811865476, 0, 0, 0.7071067811865476], [0, 0, 0, 1], [1, 0, 0, 0]], repeat = true }
"#,
    );
    let spec = &scene.bodies[0];
    let mut world = world(&scene);
    let keys = [
        (
            0.3,
            DVec3::new(0.5, 0.0, 0.0),
            DQuat::from_rotation_z(FRAC_PI_2),
        ),
        (
            0.7,
            DVec3::new(0.5, 0.2, 0.1),
            DQuat::from_rotation_z(std::f64::consts::PI),
        ),
        (1.0, DVec3::ZERO, DQuat::IDENTITY),
    ];
    let mut worst = (0.0f64, 0.0f64);
    for lap in 0..2 {
        for (t, p, r) in keys {
            let t = t + lap as f64;
            while world.time() < t {
                world.step_frame(t).unwrap();
            }
            let s = world.body_state(0);
            let (dx, dq) = (
                (s.position - (spec.position + p)).length(),
                turn_between(s.orientation, r * spec.orientation),
            );
            eprintln!("lap {lap}, key at t = {t}: position off by {dx:.1e} m, orientation by {dq:.1e} rad");
            worst = (worst.0.max(dx), worst.1.max(dq));
            if lap == 0 {
                assert_eq!(s.position, spec.position + p, "key at {t}");
            }
        }
    }
    assert!(worst.0 < 1e-12 && worst.1 < 1e-12, "{worst:?}");
    // Between the keys: (0.5, 0.2, 0.1) − (0.5, 0, 0) over 0.4 s.
    while world.time() < 2.5 {
        world.step_frame(2.5).unwrap();
    }
    let v = world.body_state(0).velocity;
    eprintln!("velocity at t = 2.5 s: {v} (expected (0, 0.5, 0.25))");
    assert!((v - DVec3::new(0.0, 0.5, 0.25)).length() < 1e-12);
}

/// A rocking body's angular velocity is the derivative of its angle: Θ 2πf cos(2πf t) along the
/// axis exactly, and the frames' finite differences of the orientation agree to O(h²).
#[test]
fn a_rocking_body_turns_at_the_derivative_of_its_angle() {
    let (amp, f) = (0.3, 2.0);
    let scene = parse(&format!(
        r#"
[world]
frame_period = 0.005
[[bodies]]
name = "rocker"
motion = "kinematic"
shape = {{ type = "box", half_extents = [0.3, 0.05, 0.02] }}
path = {{ type = "rock", axis = [0.0, 1.0, 0.0], amplitude = {amp}, frequency = {f} }}
"#
    ));
    let mut world = world(&scene);
    let mut frames = vec![(0.0, world.body_state(0))];
    run(&mut world, 1.0, |w| {
        frames.push((w.time(), w.body_state(0)))
    });
    let (mut exact, mut fd, mut peak) = (0.0f64, 0.0f64, 0.0f64);
    for k in 1..frames.len() - 1 {
        let (t, s) = frames[k];
        let closed = DVec3::Y * (amp * TAU * f * (TAU * f * t).cos());
        exact = exact.max((s.angular_velocity - closed).length());
        let (before, after) = (frames[k - 1], frames[k + 1]);
        let turn = (after.1.orientation * before.1.orientation.inverse()).to_scaled_axis();
        fd = fd.max((turn / (after.0 - before.0) - s.angular_velocity).length());
        peak = peak.max(s.angular_velocity.length());
    }
    eprintln!(
        "rock Θ = {amp} rad at {f} Hz: |ω − Θ 2πf cos 2πft| ≤ {exact:.1e} rad/s; central \
         differences of the frames off by ≤ {fd:.2e} rad/s ({:.3} % of the peak {peak:.4})",
        100.0 * fd / peak
    );
    assert!(exact < 1e-12 && fd < 0.01 * peak);
}

/// `frames.csv` rows of path bodies are the path's exact state at the frame times.
#[test]
fn frames_csv_rows_of_path_bodies_follow_their_paths() {
    let dir = cli_support::temp_dir("machinery-frames");
    let scene_path = dir.join("paths.toml");
    let text = r#"
[world]
duration = 1.0
frame_period = 0.01
[[bodies]]
name = "shaker"
motion = "kinematic"
shape = { type = "box", half_extents = [0.2, 0.2, 0.02] }
position = [0.0, 0.0, 0.5]
path = { type = "oscillate", amplitude = [0.001, 0.0, 0.002], frequency = 13.0, phase = 0.3 }
[[bodies]]
name = "rocker"
motion = "kinematic"
shape = { type = "cylinder", radius = 0.2, half_height = 0.02 }
position = [2.0, 0.0, 0.5]
orientation = [0.9950041652780258, 0.09983341664682815, 0.0, 0.0]
path = { type = "rock", axis = [1.0, 1.0, 0.0], amplitude = 0.4, frequency = 3.0 }
[[bodies]]
name = "carrier"
motion = "kinematic"
shape = { type = "box", half_extents = [0.3, 0.1, 0.02] }
position = [-2.0, 0.0, 0.5]
path = { type = "keyframes", times = [0.1, 0.45, 0.8], positions = [[0, 0, 0], [0.3, 0, 0], [0.3, 0.3, 0]], orientations = [[1, 0, 0, 0], [1, 0, 0, 0], [0.9238795325112867, 0, 0, 0.3826834323650898]] }
"#;
    std::fs::write(&scene_path, text).unwrap();
    let out = dir.join("out");
    let status = cli_support::tumble(&[
        "run",
        scene_path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--backend",
        "cpu",
    ]);
    assert_eq!(
        status.status.code(),
        Some(0),
        "{}",
        cli_support::text(&status.stderr)
    );
    let scene = parse(text);
    let paths: Vec<KinematicPath> = scene
        .bodies
        .iter()
        .map(|b| KinematicPath::new(b.path.clone().unwrap(), b.position, b.orientation))
        .collect();
    let csv = std::fs::read_to_string(out.join("frames.csv")).unwrap();
    let (mut rows, mut worst) = (0, 0.0f64);
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let k = scene
            .bodies
            .iter()
            .position(|b| b.name == cells[1])
            .unwrap();
        let x: Vec<f64> = cells.iter().skip(2).map(|c| c.parse().unwrap()).collect();
        let s = paths[k].state_at(cells[0].parse().unwrap());
        let q = DQuat::from_xyzw(x[4], x[5], x[6], x[3]);
        let v = |i: usize| DVec3::new(x[i], x[i + 1], x[i + 2]);
        let off = [
            (v(0) - s.position).length(),
            turn_between(q, s.orientation),
            (v(7) - s.velocity).length(),
            (v(10) - s.angular_velocity).length(),
        ];
        worst = off.into_iter().fold(worst, f64::max);
        rows += 1;
    }
    eprintln!(
        "{rows} frames.csv rows of 3 path bodies: largest difference from the path {worst:.1e}"
    );
    assert_eq!(rows, 3 * 101);
    assert!(worst < 1e-12, "{worst}");
}

/// A cube asleep on the floor is pushed by a kinematic pusher far slower than the wake speed
/// (2 sqrt(2 g ε_c) = 0.28 m/s): a kinematic body pushes however slowly, so the cube wakes and
/// moves instead of being passed through.
#[test]
fn a_slow_pusher_wakes_a_sleeping_cube_and_pushes_it() {
    let scene = parse(
        r#"
[world]
frame_period = 0.02
sleep_time = 0.3
[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "box", half_extents = [2.0, 2.0, 0.1] }
position = [0.0, 0.0, -0.1]
[[bodies]]
name = "cube"
shape = { type = "box", half_extents = [0.05, 0.05, 0.05] }
mass = 1.0
position = [0.0, 0.0, 0.0502]
[[bodies]]
name = "pusher"
motion = "kinematic"
shape = { type = "box", half_extents = [0.02, 0.2, 0.1] }
position = [-0.075, 0.0, 0.1002]
path = { type = "keyframes", times = [0.0, 1.0, 3.0], positions = [[0, 0, 0], [0, 0, 0], [0.1, 0, 0]] }
"#,
    );
    let mut world = world(&scene);
    let (cube, pusher) = (index(&world, "cube"), index(&world, "pusher"));
    let mut slept = false;
    run(&mut world, 3.0, |w| slept |= w.body(cube).asleep);
    let moved = world.body(cube).position.x;
    let gap = world.body(cube).position.x - 0.05 - (world.body(pusher).position.x + 0.02);
    eprintln!(
        "pusher at 0.05 m/s: cube slept {slept}, woke {} time(s), moved {moved:.4} m, ends \
         {gap:.2e} m ahead of the pusher; max penetration {:.1e} m",
        world.counts().wakes,
        world.max_penetration()
    );
    assert!(slept && world.counts().wakes >= 1);
    assert!(moved > 0.09, "the cube was not pushed: {moved}");
    assert!(world.max_penetration() <= 0.001);
}

/// A pusher that drives a cube into a fixed wall crushes it: no impulse can part two bodies of
/// infinite mass, so the run stops with a "jammed" error naming the bodies and the time (the
/// cube meets the wall at 0.6 s) instead of repeating impulses at one instant for ever.
#[test]
fn a_crush_between_a_pusher_and_a_wall_stops_with_a_jammed_error() {
    let scene = parse(
        r#"
[world]
frame_period = 0.02
[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "box", half_extents = [2.0, 2.0, 0.1] }
position = [0.0, 0.0, -0.1]
[[bodies]]
name = "wall"
motion = "fixed"
shape = { type = "box", half_extents = [0.02, 0.5, 0.2] }
position = [0.1, 0.0, 0.2]
[[bodies]]
name = "cube"
shape = { type = "box", half_extents = [0.05, 0.05, 0.05] }
mass = 1.0
position = [0.0, 0.0, 0.0502]
[[bodies]]
name = "pusher"
motion = "kinematic"
shape = { type = "box", half_extents = [0.02, 0.2, 0.1] }
position = [-0.1, 0.0, 0.1002]
path = { type = "keyframes", times = [0.0, 2.0], positions = [[0, 0, 0], [0.2, 0, 0]] }
"#,
    );
    let mut world = world(&scene);
    let clock = std::time::Instant::now();
    let err = loop {
        match world.step_frame(2.0) {
            Ok(()) if world.time() < 2.0 => {}
            Ok(()) => panic!("the crush went unnoticed"),
            Err(e) => break e.to_string(),
        }
    };
    eprintln!("{err} ({:.2} s wall)", clock.elapsed().as_secs_f64());
    assert!(err.contains("jammed") && err.contains("\"cube\""), "{err}");
    assert!((world.time() - 0.6).abs() < 0.02, "{}", world.time());
}

/// Every `path` error names the file, line:column, body and key.
#[test]
fn path_errors_name_the_file_line_column_body_and_key() {
    let body = |motion: &str, extra: &str| {
        format!(
            "[[bodies]]\nname = \"plate\"\nmotion = \"{motion}\"\nshape = {{ type = \"box\", \
             half_extents = [1.0, 1.0, 0.1] }}\n{extra}\n"
        )
    };
    let osc = "path = { type = \"oscillate\", amplitude = [0.0, 0.0, 0.001], frequency = 5.0 }";
    let cases = [
        (body("kinematic", "path = { type = \"oscillate\", amplitude = [0.0, 0.0, 0.001], frequency = -5.0 }"),
         "machinery.toml:5:73: bodies[0] \"plate\": path.frequency must be >= 0 (got -5)"),
        (body("kinematic", "path = { type = \"oscillate\", amplitude = [0.0, 0.0, 0.001], frequency = nan }"),
         "machinery.toml:5:73: bodies[0] \"plate\": path.frequency must be a finite number (got NaN)"),
        (body("kinematic", "path = { type = \"spin\" }"),
         "machinery.toml:5:17: bodies[0] \"plate\": path.type must be one of oscillate, rock, keyframes (got unknown path type \"spin\")"),
        (body("dynamic", &format!("mass = 1.0\n{osc}")),
         "machinery.toml:6:8: bodies[0] \"plate\": path is only allowed on a kinematic body (this body is dynamic; add motion = \"kinematic\")"),
        (body("kinematic", &format!("velocity = [1.0, 0.0, 0.0]\n{osc}")),
         "machinery.toml:5:12: bodies[0] \"plate\": velocity must be zero on a body with a path (the path gives its velocities)"),
        (body("kinematic", "path = { type = \"keyframes\", times = [0.0, 1.0, 1.0], positions = [[0, 0, 0], [1, 0, 0], [2, 0, 0]] }"),
         "machinery.toml:5:49: bodies[0] \"plate\": path.times[2] must be after times[1] (got 1 after 1): times must be strictly increasing"),
        (body("kinematic", "path = { type = \"keyframes\", times = [0.0, 1.0], positions = [[0, 0, 0], [1, 0, 0], [2, 0, 0]] }"),
         "machinery.toml:5:62: bodies[0] \"plate\": path.positions must have one entry per time (got 3 for 2 times)"),
        (body("kinematic", "path = { type = \"keyframes\", times = [0.0, 1.0], orientations = [[1, 0, 0, 0], [2, 0, 0, 0]] }"),
         "machinery.toml:5:80: bodies[0] \"plate\": path.orientations[1] must be a unit quaternion [w, x, y, z] (got norm 2; within 1e-6 of 1 is normalised)"),
        (body("kinematic", "path = { type = \"keyframes\", times = [0.0, 1.0], positions = [[0, 0, 0], [1, 0, 0]], repeat = true }"),
         "machinery.toml:5:62: bodies[0] \"plate\": path.positions must end where they start when repeat = true"),
        (body("kinematic", "path = { type = \"rock\", axis = [0.0, 0.0, 0.0], amplitude = 0.1, frequency = 1.0 }"),
         "machinery.toml:5:32: bodies[0] \"plate\": path.axis must not be zero (got [0, 0, 0])"),
        (body("kinematic", "path = { type = \"rock\", axis = [0.0, 0.0, 1.0], frequency = 1.0 }"),
         "machinery.toml:5:8: bodies[0] \"plate\": missing key path.amplitude"),
        (body("kinematic", "path = { type = \"oscillate\", amplitude = [0.0, 0.0, 0.001], frequency = 5.0, speed = 1 }"),
         "machinery.toml:5:78: bodies[0] \"plate\": unknown key \"path.speed\" (expected one of: type, amplitude, frequency, phase)"),
    ];
    for (text, expected) in cases {
        let err = tumble::scene::parse(&text, Path::new("machinery.toml")).expect_err(expected);
        eprintln!("{}", err.message);
        assert!(
            err.message.starts_with(expected),
            "got:      {}\nexpected: {expected}",
            err.message
        );
    }
}
