//! The scenes of `scenes/machinery/`, measured: a vibratory feeder's feed rate against the
//! amplitude and the frequency, a rotating drum's dynamic angle of repose, a hopper emptying
//! onto a moving plate (`cargo test --release --test machinery_scenes -- --nocapture`). The
//! closed-form checks of prescribed motion are in `tests/machinery.rs`.

use glam::DVec3;
use std::f64::consts::TAU;
use std::path::PathBuf;
use tumble::scene::Scene;
use tumble::world::World;

const G: f64 = 9.81;

/// `scenes/machinery/<file>`, loaded and checked.
fn load(file: &str) -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenes/machinery")
        .join(file);
    tumble::scene::load(&path).unwrap_or_else(|e| panic!("{}", e.message))
}

fn world(scene: &Scene) -> World {
    World::new(scene).unwrap_or_else(|e| panic!("{}", e.message))
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

/// The feeder's mean speed along its track over `[t0, t1]` (m/s), with the track's path given
/// amplitude (m, along the scene's vibration direction) and frequency.
fn feed_rate(amplitude: f64, frequency: f64, t0: f64, t1: f64) -> f64 {
    let mut scene = load("feeder.toml");
    let track = &mut scene.bodies[0];
    let direction = match track.path.as_ref().unwrap() {
        tumble::scene::PathSpec::Oscillate { amplitude, .. } => amplitude.normalize(),
        other => panic!("{other:?}"),
    };
    track.path = Some(tumble::scene::PathSpec::Oscillate {
        amplitude: direction * amplitude,
        frequency,
        phase: 0.0,
    });
    let along = scene.bodies[0].orientation * DVec3::X;
    let mut world = world(&scene);
    let parts: Vec<usize> = (1..world.body_count()).collect();
    let mean = |w: &World| {
        parts
            .iter()
            .map(|&i| w.body(i).position.dot(along))
            .sum::<f64>()
            / parts.len() as f64
    };
    let mut at = (0.0, 0.0);
    run(&mut world, t1, |w| {
        if (w.time() - t0).abs() < 1e-9 {
            at.0 = mean(w);
        }
    });
    at.1 = mean(&world);
    assert!(world.max_penetration() <= scene.world.config.collision_epsilon);
    (at.1 - at.0) / (t1 - t0)
}

/// scenes/machinery/feeder.toml: parts walk uphill on a track vibrating along a direction
/// inclined to it, faster with a larger throw number Γ = A (2πf)² sin β / (g cos α), and not at
/// all on a still track.
#[test]
fn feeder_parts_walk_uphill_when_the_track_vibrates() {
    let (alpha, beta) = (3f64.to_radians(), 25f64.to_radians());
    let gamma = |a: f64, f: f64| a * (TAU * f).powi(2) * beta.sin() / (G * alpha.cos());
    let still = feed_rate(0.0, 25.0, 0.5, 1.5);
    eprintln!("still track: {still:.2e} m/s");
    let mut table = Vec::new();
    for (a, f) in [
        (1.0e-3, 25.0),
        (1.5e-3, 25.0),
        (2.0e-3, 25.0),
        (1.5e-3, 20.0),
        (1.5e-3, 30.0),
    ] {
        let v = feed_rate(a, f, 0.5, 1.5);
        eprintln!(
            "A = {:.1} mm, f = {f} Hz: Γ = {:.2}, peak track speed {:.3} m/s, feed rate {v:.4} m/s",
            a * 1e3,
            gamma(a, f),
            a * TAU * f
        );
        table.push(v);
    }
    assert!(
        still.abs() < 1e-3,
        "parts move on a still track: {still} m/s"
    );
    assert!(table.iter().all(|&v| v > 0.02), "{table:?}");
    // Γ = 1.06 barely lifts the parts; Γ = 1.60 throws them.
    assert!(table[0] < table[1], "{table:?}");
}

/// scenes/machinery/drum.toml: the bed turns with the drum to a dynamic angle of repose,
/// measured from its centre of mass (atan2(−x̄, −z̄): the bed is lifted on the rising −x side).
#[test]
fn drum_bed_settles_at_a_dynamic_angle_of_repose() {
    let scene = load("drum.toml");
    let mut world = world(&scene);
    let clock = std::time::Instant::now();
    let (t_end, from) = (3.0, 1.5);
    let mut angles = Vec::new();
    let mut reach = 0.0f64;
    run(&mut world, t_end, |w| {
        let n = w.body_count() - 1;
        let c = (1..=n).map(|i| w.body(i).position).sum::<DVec3>() / n as f64;
        if w.time() > from {
            angles.push((-c.x).atan2(-c.z).to_degrees());
        }
        for i in 1..=n {
            let p = w.body(i).position;
            reach = reach.max(p.x.hypot(p.z));
        }
    });
    let mean = angles.iter().sum::<f64>() / angles.len() as f64;
    let (lo, hi) = angles
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &a| {
            (l.min(a), h.max(a))
        });
    let wall = clock.elapsed().as_secs_f64();
    eprintln!(
        "drum at 1.5 rad/s: dynamic angle of repose {mean:.1}° (from {lo:.1}° to {hi:.1}° over \
         {from}–{t_end} s: avalanches); farthest cube centre {reach:.4} m from the axis; max \
         penetration {:.1e} m; wall {wall:.2} s for {t_end} s",
        world.max_penetration()
    );
    assert!(mean > 20.0 && mean < 70.0, "{mean}");
    assert!(reach < 0.15, "a cube left the drum: {reach}");
    assert!(world.max_penetration() <= scene.world.config.collision_epsilon);
}

/// scenes/machinery/hopper.toml: the hopper empties onto the moving plate, which carries every
/// cube away at its own velocity.
#[test]
fn hopper_empties_onto_the_moving_plate_which_carries_the_cubes() {
    let scene = load("hopper.toml");
    let mut world = world(&scene);
    let plate = index(&world, "plate");
    run(&mut world, 3.0, |_| {});
    let v = world.body(plate).velocity;
    let cubes: Vec<usize> = (0..world.body_count())
        .filter(|&i| world.body_name(i).starts_with("cube"))
        .collect();
    let on_plate = cubes.iter().filter(|&&i| {
        let p = world.body(i).position;
        p.z > 0.0 && p.z < 0.1 && p.y.abs() < 0.25
    });
    let carried = on_plate.clone().count();
    // Horizontally: at a step's end a resting body falls at g h (the contact step's sawtooth).
    let horizontal = |u: DVec3| DVec3::new(u.x, u.y, 0.0);
    let slips: Vec<f64> = on_plate
        .map(|&i| horizontal(world.body(i).velocity - v).length())
        .collect();
    let riding = slips.iter().filter(|&&s| s < 1e-3).count();
    let mean_v = cubes.iter().map(|&i| world.body(i).velocity).sum::<DVec3>() / cubes.len() as f64;
    let mean_x = cubes.iter().map(|&i| world.body(i).position.x).sum::<f64>() / cubes.len() as f64;
    eprintln!(
        "plate at {v} m/s: {carried} of {} cubes on it at 3 s, {riding} of them within 1 mm/s \
         of its horizontal velocity (at most {:.1e} m/s off), mean velocity {mean_v:.4} m/s \
         (vertically the contact step's g h), mean x {mean_x:.3} m; max penetration {:.1e} m",
        cubes.len(),
        slips.iter().fold(0.0f64, |a, &b| a.max(b)),
        world.max_penetration()
    );
    assert_eq!(carried, cubes.len());
    assert!(riding * 10 >= 9 * carried, "{riding} of {carried}");
    assert!(
        horizontal(mean_v - v).length() < 0.01 * v.length() && mean_x > 0.4,
        "{mean_v} {mean_x}"
    );
}

/// Balls in a dish (Mirtich 1996, Table 1): four steel balls released on the slope of a fixed
/// concave mesh, neighbours moving in opposite senses, meet, knock each other about and settle
/// at its bottom without sinking into the triangles.
#[test]
fn balls_in_a_dish_meet_and_settle_at_its_bottom() {
    let scene = load("dish.toml");
    let mut world = world(&scene);
    let balls: Vec<usize> = (0..4)
        .map(|k| index(&world, &format!("ball_{k}")))
        .collect();
    let mut highest: f64 = 0.0;
    run(&mut world, scene.world.duration, |w| {
        for &i in &balls {
            highest = highest.max(w.body_state(i).position.z);
        }
    });
    let collisions = world.counts().collisions + world.counts().microcollisions;
    let rims: Vec<f64> = balls
        .iter()
        .map(|&i| world.body_state(i).position.truncate().length())
        .collect();
    eprintln!(
        "balls in a dish, {} s: {collisions} collisions between balls or with the dish, final \
         distances from the axis {rims:.4?} m (rim 0.2 m), highest centre {highest:.4} m, \
         max penetration {:.2e} m",
        scene.world.duration,
        world.max_penetration()
    );
    assert!(world.counts().collisions > 0, "the balls never met");
    assert!(world.max_penetration() < scene.world.config.collision_epsilon);
    assert!(
        rims.iter().all(|&d| d < 0.06),
        "a ball is not at the bottom: {rims:?}"
    );
}
