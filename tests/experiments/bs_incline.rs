//! Bender & Schmitt (2006) §4, blocks on an incline (`scenes/experiments/incline.toml`): cubes
//! launched down or up slopes inside their friction angle stop after
//! d = v0² / (2 g (μ cos θ ∓ sin θ)) and then hold.
use crate::figure_st::{self, Panel};
use glam::DVec3;
use plotters::prelude::SeriesLabelPosition;
use std::path::Path;
use tumble::world::World;

/// Allowed error of the stopping distance, relative to d.
const DISTANCE_TOL: f64 = 0.005;
/// Most travel (m) allowed between 0.2 s after the stop and the end of the run.
const CREEP_TOL: f64 = 1e-4;

/// One block: its slope's angle, the friction, the launch speed, the unit vector of the launch
/// along the slope, and the closed-form stopping distance and time.
struct Case {
    name: String,
    body: usize,
    theta: f64,
    mu: f64,
    v0: f64,
    dir: DVec3,
    d: f64,
    t_stop: f64,
}

#[test]
fn blocks_stop_after_the_closed_form_distance_and_hold() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/experiments/incline.toml");
    let scene = tumble::scene::load(&path).unwrap();
    let g = -scene.world.config.gravity.z;
    let table = scene.material_table().unwrap();
    let mut world = World::new(&scene).unwrap();
    let mut cases = Vec::new();
    for spec in scene.bodies.iter().filter(|b| b.name.starts_with("block_")) {
        let slope = scene
            .bodies
            .iter()
            .find(|b| b.name == spec.name.replace("block_", "slope_"))
            .unwrap();
        let normal = slope.orientation * DVec3::Z;
        let theta = normal.z.acos();
        let mu = table
            .pair_by_name(&spec.material, &slope.material)
            .unwrap()
            .friction;
        let v0 = spec.velocity.length();
        let dir = spec.velocity / v0;
        // Down the slope the weight's component helps the motion, up it opposes it.
        let downhill = dir.z < 0.0 || theta == 0.0;
        let a = g * (mu * theta.cos() + if downhill { -theta.sin() } else { theta.sin() });
        assert!(mu > theta.tan() && a > 0.0, "{}: would not stop", spec.name);
        cases.push(Case {
            name: spec.name.clone(),
            body: world.body_index(&spec.name).unwrap(),
            theta,
            mu,
            v0,
            dir,
            d: v0 * v0 / (2.0 * a),
            t_stop: v0 / a,
        });
    }
    assert_eq!(cases.len(), 6);
    let start: Vec<DVec3> = cases
        .iter()
        .map(|c| world.body_state(c.body).position)
        .collect();
    // Travel along the launch direction, per frame.
    let mut travel: Vec<Vec<(f64, f64)>> = vec![vec![(0.0, 0.0)]; cases.len()];
    let t_end = scene.world.duration;
    while world.time() < t_end - 1e-12 {
        world.step_frame(t_end).expect("simulation failed");
        for (k, c) in cases.iter().enumerate() {
            let p = world.body_state(c.body).position;
            travel[k].push((world.time(), (p - start[k]).dot(c.dir)));
        }
    }
    eprintln!("blocks on inclines (Bender & Schmitt 2006 §4): stopping distance d = v0²/(2g(μ cos θ ∓ sin θ))");
    eprintln!("  block       θ     μ    v0    d (m)    ours (m)   rel. error  stop (s)  ours (s)  creep after (m)");
    let mut worst: f64 = 0.0;
    let mut failures = Vec::new();
    for (k, c) in cases.iter().enumerate() {
        let samples = &travel[k];
        let final_s = samples.last().unwrap().1;
        // The stop: the first frame from which the block stays within 10 µm of where it ends.
        let stop = samples
            .iter()
            .rev()
            .take_while(|s| (s.1 - final_s).abs() < 1e-5)
            .last()
            .unwrap()
            .0;
        // Travel at 0.2 s after the closed-form stop, and the creep from there to the end.
        let settled = samples
            .iter()
            .find(|s| s.0 >= c.t_stop + 0.2)
            .map_or(final_s, |s| s.1);
        let creep = final_s - settled;
        let error = (final_s - c.d) / c.d;
        worst = worst.max(error.abs());
        eprintln!(
            "  {:9} {:4.0}°  {:.1}  {:.1}  {:.5}  {:.5}    {:+.2e}   {:.4}    {:.2}     {:+.1e}",
            c.name,
            c.theta.to_degrees(),
            c.mu,
            c.v0,
            c.d,
            final_s,
            error,
            c.t_stop,
            stop,
            creep
        );
        if error.abs() > DISTANCE_TOL {
            failures.push(format!("{}: travelled {final_s} m, d = {} m", c.name, c.d));
        }
        if creep.abs() > CREEP_TOL {
            failures.push(format!("{}: crept {creep} m after stopping", c.name));
        }
    }
    eprintln!(
        "  worst relative error of d: {worst:.2e} (tolerance {DISTANCE_TOL}); max penetration {:.2e} m",
        world.max_penetration()
    );
    let mut panel = Panel::new("t (s)", "travel along the slope (m)")
        .legend_at(SeriesLabelPosition::LowerRight);
    for (k, c) in cases.iter().enumerate() {
        let label = format!(
            "{}: θ = {:.0}°, μ = {:.1}, v0 = {:.1} m/s {}",
            c.name.trim_start_matches("block_"),
            c.theta.to_degrees(),
            c.mu,
            c.v0,
            if c.dir.z < 0.0 || c.theta == 0.0 {
                "down"
            } else {
                "up"
            }
        );
        panel = panel.line(label, travel[k].clone());
    }
    for (k, c) in cases.iter().enumerate() {
        panel = panel.reference(k, vec![(0.0, c.d), (t_end, c.d)]);
    }
    figure_st::write(
        "incline",
        "Blocks launched along inclines: travel against the closed-form stopping distance (dashed)",
        &[panel],
    );
    assert!(world.max_penetration() <= 0.0);
    assert!(failures.is_empty(), "{failures:#?}");
}
