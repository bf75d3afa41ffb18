//! `[world] method = "lcp"`, Stewart & Trinkle's time-stepping (1996), against the paper's
//! experiments (§4) and closed forms: the four balls (§4.2: the landing time, the velocity
//! error's first-order fall with h, Table 1), the falling rod (§4.1: impact, slap-down, slide),
//! a block on a slope (holding, and sliding at g (sin θ − μ cos θ)), and the scene errors of
//! the method's keys. Each test prints its figures beside the paper's or the closed form's.

use glam::{DQuat, DVec3};
use std::path::Path;
use tumble::body::BodyState;
use tumble::scene::{self, Method, Scene};
use tumble::world::World;

const G: f64 = 9.81;

/// A bundled scene run with the LCP method at step `h`, frames every `frame` seconds.
fn lcp_scene(file: &str, h: f64, frame: f64) -> Scene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let mut scene = scene::load(&path).unwrap();
    scene.world.config.method = Method::Lcp;
    scene.world.config.time_step = h;
    scene.world.config.frame_period = frame;
    scene
}

/// The states of the `names` bodies at every frame's end to `t_end`, with the frame times.
fn run(scene: &Scene, names: &[&str], t_end: f64) -> (Vec<f64>, Vec<Vec<BodyState>>, World) {
    let mut world = World::new(scene).unwrap();
    let ids: Vec<usize> = names.iter().map(|n| world.body_index(n).unwrap()).collect();
    let (mut times, mut states) = (Vec::new(), Vec::new());
    while world.time() < t_end - 1e-12 {
        world.step_frame(t_end).expect("simulation failed");
        times.push(world.time());
        states.push(ids.iter().map(|&i| world.body_state(i)).collect());
    }
    (times, states, world)
}

/// The four balls: the paper's step sizes, its reference step, and its Table 1.
const STEPS: [f64; 4] = [0.02, 0.01, 0.005, 0.0025];
const REFERENCE_STEP: f64 = 0.00125;
const PAPER_VELOCITY_ERROR: [f64; 4] = [0.5050, 0.3523, 0.1657, 0.0700];
const PAPER_POSITION_ERROR: [f64; 4] = [0.2505, 0.2015, 0.0838, 0.0298];
const BALLS: [&str; 4] = ["thrown", "ball1", "ball2", "ball3"];

#[test]
fn four_balls_thrown_ball_lands_within_one_step_of_the_closed_form() {
    // The ball falls 0.9 m from rest: it reaches the table at sqrt(1.8 / g) = 0.42835 s (the
    // paper: 0.42 s). The scheme puts it on the table at the end of the step whose free-flight
    // end position would be below it (eq. 7: the gap closes exactly at t_{l+1}); that time is
    // the landing. The semi-implicit positions run ahead of the exact ones by g t h / 2, and the
    // landing lies on the step grid, so it comes within [−h, +h/2] of the closed form.
    let closed_form = (1.8 / G).sqrt();
    eprintln!("four balls: the thrown ball lands (closed form {closed_form:.5} s, paper 0.42 s)");
    for h in STEPS {
        let (times, states, world) = run(
            &lcp_scene("scenes/experiments/four-balls.toml", h, h),
            &["thrown"],
            0.6,
        );
        let k = (0..times.len())
            .find(|&k| states[k][0].position.z <= 0.1 + 1e-9)
            .expect("the ball never landed");
        let landing = times[k];
        let after = states[k + 1][0];
        let later = states[(0.05 / h) as usize + k][0];
        eprintln!(
            "  h = {h:<7} on the table at {landing:.5} s (error {:+.5} s = {:+.2} h); a step \
             later vz = {:.1e} m/s; 50 ms later rolling at [{:.4}, {:.4}] m/s (5/7 of [1.5, 0.1]: \
             [1.0714, 0.0714]); max penetration {:.1e} m",
            landing - closed_form,
            (landing - closed_form) / h,
            after.velocity.z,
            later.velocity.x,
            later.velocity.y,
            world.max_penetration()
        );
        assert!(
            (landing - closed_form).abs() <= h,
            "h = {h}: landing at {landing} s"
        );
        assert!(after.velocity.z.abs() < 1e-6);
    }
}

/// Velocities and positions of the four balls at the frames of a run at step `h` (frames of
/// the reference step, so that every run is sampled on one grid).
fn four_ball_run(h: f64) -> Vec<Vec<BodyState>> {
    let scene = lcp_scene("scenes/experiments/four-balls.toml", h, REFERENCE_STEP);
    let (times, states, _) = run(&scene, &BALLS, 1.0);
    assert_eq!(times.len(), 800);
    states
}

/// The paper's error measures (§4.2, Table 1): the velocity error ∫₀¹ ‖v_h(t) − v(t)‖_∞ dt and
/// the position error sup_t ‖q_h(t) − q(t)‖_∞, v the 24 velocity components of the four balls
/// (linear and angular), q their 12 centre coordinates, against the run at h = 1.25 ms. The
/// scheme's velocity is constant over each step, and every step ends on the sampling grid, so
/// the rectangle rule is exact for the integral.
fn errors(run: &[Vec<BodyState>], reference: &[Vec<BodyState>]) -> (f64, f64) {
    let (mut velocity, mut position) = (0.0, 0.0f64);
    for (a, b) in run.iter().zip(reference) {
        let mut v = 0.0f64;
        let mut q = 0.0f64;
        for (x, y) in a.iter().zip(b) {
            v = v.max((x.velocity - y.velocity).abs().max_element()).max(
                (x.angular_velocity - y.angular_velocity)
                    .abs()
                    .max_element(),
            );
            q = q.max((x.position - y.position).abs().max_element());
        }
        velocity += v * REFERENCE_STEP;
        position = position.max(q);
    }
    (velocity, position)
}

#[test]
fn four_balls_velocity_error_falls_linearly_with_the_step() {
    let reference = four_ball_run(REFERENCE_STEP);
    let measured: Vec<(f64, f64)> = STEPS
        .iter()
        .map(|&h| errors(&four_ball_run(h), &reference))
        .collect();
    eprintln!("four balls, errors against h = 1.25 ms (Stewart & Trinkle 1996, Table 1)");
    eprintln!("  h        vel. error: paper   tumble    pos. error: paper   tumble");
    for (k, h) in STEPS.iter().enumerate() {
        eprintln!(
            "  {h:<8} {:>18.4} {:>8.4} {:>19.4} {:>8.4}",
            PAPER_VELOCITY_ERROR[k], measured[k].0, PAPER_POSITION_ERROR[k], measured[k].1
        );
    }
    let ratios: Vec<f64> = measured.windows(2).map(|w| w[0].0 / w[1].0).collect();
    eprintln!("  velocity error ratio per halving of h: {ratios:.2?} (first order: 2)");
    // First order: each halving of h divides the error by about 2 (the paper's ratios are
    // 1.4, 2.1 and 2.4), and over the three halvings by about 8 (the paper's 7.2).
    for (k, r) in ratios.iter().enumerate() {
        assert!((1.2..=3.5).contains(r), "halving {k}: ratio {r}");
    }
    let overall = measured[0].0 / measured[3].0;
    assert!((4.0..=16.0).contains(&overall), "overall ratio {overall}");
}

/// The falling rod (§4.1): what the paper reports and the tolerance its 2.5 ms step allows.
const PAPER_IMPACT: f64 = 0.383;
const PAPER_FLAT: f64 = 0.548;
const PAPER_SLIDE: f64 = 0.02;
const ROD_TOL: f64 = 0.005;

#[test]
fn falling_rod_hits_lies_flat_and_stops_at_the_papers_times() {
    // At the paper's step h = 2.5 ms. The impact is the first step that ends with an end on
    // the table, the slap-down the first with both, the slide's end the first step after it
    // from which the centre stays within 1 µm of where it ends.
    let h = 0.0025;
    let (times, states, world) = run(
        &lcp_scene("scenes/experiments/falling-rod.toml", h, h),
        &["rod"],
        1.0,
    );
    let ends = |s: &BodyState| {
        let axis = s.orientation * DVec3::Z;
        let dz = 0.25 * axis.z.abs();
        (s.position.z - dz - 0.05, s.position.z + dz - 0.05)
    };
    // An end within 0.1 mm of the table touches it: the linearized gap (eq. 7) closes exactly,
    // the spinning end's arc leaves it up to (ω h)² l / 2 above (25 µm at the impact).
    let touching = 1e-4;
    let impact = (0..times.len())
        .find(|&k| ends(&states[k][0]).0 < touching)
        .expect("no impact");
    let flat = (impact..times.len())
        .find(|&k| ends(&states[k][0]).1 < touching)
        .expect("never flat");
    let last_x = states.last().unwrap()[0].position.x;
    let stop = (flat..times.len())
        .find(|&k| (k..times.len()).all(|j| (states[j][0].position.x - last_x).abs() < 1e-6))
        .expect("still sliding");
    let (t_impact, t_flat, t_stop) = (times[impact], times[flat], times[stop]);
    eprintln!("falling rod at h = 2.5 ms       paper   tumble (lcp)");
    eprintln!("  first impact (s)             {PAPER_IMPACT:.3}   {t_impact:.4}");
    eprintln!("  slap-down (s)                {PAPER_FLAT:.3}   {t_flat:.4}");
    eprintln!(
        "  slide after it (s)           {PAPER_SLIDE:.3}   {:.4}",
        t_stop - t_flat
    );
    eprintln!(
        "  final x {last_x:.5} m, max penetration {:.1e} m, {:?} pivots",
        world.max_penetration(),
        world.counts().lcp_pivots
    );
    assert!((t_impact - PAPER_IMPACT).abs() <= ROD_TOL);
    assert!((t_flat - PAPER_FLAT).abs() <= ROD_TOL);
    assert!(((t_stop - t_flat) - PAPER_SLIDE).abs() <= ROD_TOL);
}

/// A 0.2 m cube of 1 kg resting on a fixed slab tilted by `theta` about y (the slope falls
/// towards +x, along a friction cone edge: see `directions` in src/lcp/step.rs), friction `mu`;
/// and the cube's starting centre.
fn slope_scene(theta: f64, mu: f64, h: f64) -> (Scene, DVec3) {
    let q = DQuat::from_rotation_y(theta);
    let n = q * DVec3::Z;
    let slab = DVec3::ZERO;
    let block = slab + 0.6 * n;
    let text = format!(
        r#"
[world]
gravity = [0.0, 0.0, -9.81]
duration = 1.0
frame_period = {h}
method = "lcp"
time_step = {h}
friction_directions = 8

[materials.default]
restitution = 0.0
friction = {mu}

[[bodies]]
name = "slope"
motion = "fixed"
shape = {{ type = "box", half_extents = [3.0, 1.0, 0.5] }}
orientation = [{}, {}, {}, {}]

[[bodies]]
name = "block"
shape = {{ type = "box", half_extents = [0.1, 0.1, 0.1] }}
mass = 1.0
position = [{}, {}, {}]
orientation = [{}, {}, {}, {}]
"#,
        q.w, q.x, q.y, q.z, block.x, block.y, block.z, q.w, q.x, q.y, q.z
    );
    (scene::parse(&text, Path::new("slope.toml")).unwrap(), block)
}

#[test]
fn a_block_on_a_slope_holds_and_slides_as_the_closed_forms_say() {
    let h = 0.005;
    eprintln!("block on a slope, h = 5 ms, 8 friction directions, one along the fall line");
    for (deg, mu) in [(20.0f64, 0.5), (30.0, 0.3), (35.0, 0.2)] {
        let theta = deg.to_radians();
        let down = DVec3::new(theta.cos(), 0.0, -theta.sin());
        let (scene, start) = slope_scene(theta, mu, h);
        let (times, states, world) = run(&scene, &["block"], 1.0);
        let s = states.last().unwrap()[0];
        let t = *times.last().unwrap();
        let speed = s.velocity.dot(down);
        let across = (s.velocity - speed * down).length();
        // Closed form: at rest while tan θ ≤ μ, else a = g (sin θ − μ cos θ). The scheme gives
        // the velocity exactly (v^{l+1} = v^l + h a), the distance a h² l (l + 1) / 2, that is
        // a t² / 2 + a t h / 2.
        let a = (G * (theta.sin() - mu * theta.cos())).max(0.0);
        let want_distance = 0.5 * a * t * t + 0.5 * a * t * h;
        let distance = (s.position - start).dot(down);
        eprintln!(
            "  θ = {deg}°, μ = {mu} (tan θ {:.3}): speed {speed:.6} m/s at t = {t:.3} s \
             (closed form {:.6}, error {:.1e}), across the fall line {across:.1e} m/s, \
             distance {distance:.6} m (scheme's closed form {want_distance:.6}), spin {:.1e} rad/s, \
             max penetration {:.1e} m",
            theta.tan(),
            a * t,
            speed - a * t,
            s.angular_velocity.length(),
            world.max_penetration()
        );
        assert!(
            (speed - a * t).abs() < 1e-6,
            "speed {speed}, closed form {}",
            a * t
        );
        assert!(across < 1e-6 && s.angular_velocity.length() < 1e-6);
        assert!((distance - want_distance).abs() < 1e-6);
    }
}

/// The message of a scene text that must be refused.
fn scene_error(world: &str) -> String {
    let text = format!(
        "[world]\n{world}\n\n[[bodies]]\nname = \"floor\"\nmotion = \"fixed\"\nshape = {{ type = \"box\", half_extents = [5.0, 5.0, 0.5] }}\n"
    );
    match scene::parse(&text, Path::new("scenes/bad.toml")) {
        Ok(_) => panic!("scene was accepted: {world}"),
        Err(e) => e.message,
    }
}

#[test]
fn bad_method_keys_are_refused_with_file_line_and_key() {
    let cases = [
        (
            "method = \"verlet\"",
            "scenes/bad.toml:2:10: ",
            &["method", "\"event\" or \"lcp\"", "verlet"][..],
        ),
        (
            "method = \"lcp\"\ntime_step = 0.0",
            "scenes/bad.toml:3:13: ",
            &["time_step", "must be > 0"][..],
        ),
        (
            "method = \"lcp\"\ntime_step = -0.01",
            "scenes/bad.toml:3:13: ",
            &["time_step", "must be > 0"][..],
        ),
        (
            "time_step = nan",
            "scenes/bad.toml:2:13: ",
            &["time_step", "finite"][..],
        ),
        (
            "friction_directions = 2",
            "scenes/bad.toml:2:23: ",
            &["friction_directions", "from 3 to 64", "got 2"][..],
        ),
        (
            "friction_directions = 4.5",
            "scenes/bad.toml:2:23: ",
            &["friction_directions", "integer"][..],
        ),
    ];
    // Joints under the LCP method, which would ignore them.
    let text = "[world]\nmethod = \"lcp\"\n\n[[bodies]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.1 }\nmass = 1.0\n\n[[joints]]\ntype = \"ball\"\nbodies = [\"ball\", \"world\"]\nanchor = [0.0, 0.0, 1.0]\n";
    match scene::parse(text, Path::new("scenes/bad.toml")) {
        Ok(_) => panic!("a jointed scene was accepted with method = \"lcp\""),
        Err(e) => {
            eprintln!("joints with method = \"lcp\" -> {}", e.message);
            assert!(
                e.message.starts_with("scenes/bad.toml:2:10: "),
                "{}",
                e.message
            );
            assert!(e.message.contains("joints"), "{}", e.message);
        }
    }
    for (world, at, parts) in cases {
        let m = scene_error(world);
        eprintln!("{world:?} -> {m}");
        assert!(m.starts_with(at), "expected {at:?} in {m:?}");
        for part in parts {
            assert!(m.contains(part), "expected {part:?} in {m:?}");
        }
    }
}

/// The LCP method's impulse log (`tumble run --events`): a box resting on a table is carried by
/// `lcp` impulses at its corners every step, whose normal impulses add up to its weight times
/// the time, and after which no corner approaches the table.
#[test]
fn a_resting_box_is_carried_by_lcp_impulses_adding_up_to_its_weight() {
    let text = "[world]\nmethod = \"lcp\"\ntime_step = 0.01\nduration = 1.0\nsleep_time = 0.0\n\n\
                [[bodies]]\nname = \"table\"\nmotion = \"fixed\"\n\
                shape = { type = \"box\", half_extents = [2.0, 2.0, 0.5] }\nposition = [0.0, 0.0, -0.5]\n\n\
                [[bodies]]\nname = \"box\"\nshape = { type = \"box\", half_extents = [0.1, 0.1, 0.1] }\n\
                mass = 2.0\nposition = [0.0, 0.0, 0.1]\n";
    let scene = scene::parse(text, Path::new("resting-box.toml")).unwrap();
    let mut world = World::new(&scene).unwrap();
    world.record_events(true);
    let mut events = Vec::new();
    while world.time() < 1.0 - 1e-12 {
        world.step_frame(1.0).unwrap();
        world.take_events(&mut events);
    }
    let total: f64 = events.iter().map(|e| e.jn).sum();
    let want = 2.0 * 9.81 * 1.0;
    let worst_after = events
        .iter()
        .map(|e| e.vn_after)
        .fold(f64::INFINITY, f64::min);
    eprintln!(
        "resting box under the LCP method: {} impulse events, normal impulses summing to {total:.6} \
         N s against m g t = {want:.6} N s ({:+.2e}); most approaching after an impulse {worst_after:.2e} m/s",
        events.len(),
        total / want - 1.0
    );
    assert!(events.iter().all(|e| e.kind.as_str() == "lcp"));
    // Four corners make a statically indeterminate support: Lemke's method ends on a vertex
    // of the solution set, with some corners unloaded (two, here), so every step has between
    // one and four events.
    let mut steps: Vec<f64> = events.iter().map(|e| e.t).collect();
    steps.dedup();
    assert_eq!(steps.len(), 100, "a step without an impulse");
    assert!(events.len() <= 4 * 100);
    assert!((total / want - 1.0).abs() < 1e-6);
    assert!(worst_after > -1e-6);
}
