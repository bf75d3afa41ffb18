//! Newton's cradle: a striker at 1 m/s hits a line of five equal, elastic, frictionless balls
//! 1 µm apart. Exactly one ball, the far end's, must leave, at the striker's speed; the striker
//! and the other four stay at rest. Every gap is inside ε_c, so the contacts down the line are
//! simultaneous as far as the contact band is concerned: this must hold however simultaneous
//! impacts are ordered or solved.
//!
//! Two scenes: in zero gravity (`scenes/experiments/newtons-cradle.toml`) and on a frictionless
//! floor under gravity (`newtons-cradle-floor.toml`), where the touching balls are resting
//! contacts of the contact steps.
use crate::figure_st::{self, Panel};
use plotters::prelude::SeriesLabelPosition;
use std::path::Path;
use tumble::world::World;

/// Most speed left in a ball that should be at rest, and most error of the leaving ball's
/// velocity, both relative to the striker's speed.
const TOL: f64 = 1e-6;
/// Before the striker arrives (it has 0.1 m to go at 1 m/s): the line must still be at rest.
const BEFORE_IMPACT: f64 = 0.05;

/// Runs `file`; returns the worst error relative to the striker's speed at the end, and the
/// fastest ball of the line before the impact (m/s).
fn cradle(file: &str, figure: &str) -> (f64, f64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let scene = tumble::scene::load(&path).unwrap();
    let mut world = World::new(&scene).unwrap();
    let names = ["striker", "ball_1", "ball_2", "ball_3", "ball_4", "ball_5"];
    let ids: Vec<usize> = names.iter().map(|n| world.body_index(n).unwrap()).collect();
    let v0 = world.body_state(ids[0]).velocity;
    let mut paths: Vec<Vec<(f64, f64)>> = ids
        .iter()
        .map(|&i| vec![(0.0, world.body_state(i).position.x)])
        .collect();
    let energy0 = world.kinetic_energy();
    let momentum0 = world.momentum();
    let t_end = scene.world.duration;
    let mut before: f64 = 0.0;
    while world.time() < t_end - 1e-12 {
        world.step_frame(t_end).expect("simulation failed");
        for (k, &i) in ids.iter().enumerate() {
            paths[k].push((world.time(), world.body_state(i).position.x));
        }
        if world.time() <= BEFORE_IMPACT + 1e-12 {
            for &i in &ids[1..] {
                before = before.max(world.body_state(i).velocity.x.abs());
            }
        }
    }
    eprintln!(
        "Newton's cradle ({file}): striker at {:.3} m/s into five balls 1 µm apart (ε_c = {} m, gravity {:?})",
        v0.x, scene.world.config.collision_epsilon, scene.world.config.gravity.to_array()
    );
    eprintln!("  fastest ball of the line before the striker arrives (t ≤ {BEFORE_IMPACT} s): {before:.3e} m/s");
    eprintln!(
        "  ball       velocity at t = {t_end} s (m/s)                   want (m/s)  error / |v0|"
    );
    let mut worst: f64 = 0.0;
    for (k, &i) in ids.iter().enumerate() {
        let s = world.body_state(i);
        let want = if k == ids.len() - 1 { v0 } else { v0 * 0.0 };
        // Only the horizontal motion: on the floor a resting ball reports the step's gravity.
        let mut error = s.velocity - want;
        error.z = 0.0;
        let error = error.length() / v0.length();
        worst = worst.max(error);
        eprintln!(
            "  {:8}  [{:+.3e}, {:+.3e}, {:+.3e}]  {:.0}           {error:.2e}",
            names[k], s.velocity.x, s.velocity.y, s.velocity.z, want.x
        );
    }
    let energy = world.kinetic_energy();
    let momentum = world.momentum();
    eprintln!(
        "  worst error {worst:.2e} (tolerance {TOL:.0e}); kinetic energy {energy:.6} J (start {energy0:.6}); x momentum {:.6} N s (start {:.6}); {} collisions, {} microcollisions",
        momentum.x,
        momentum0.x,
        world.counts().collisions,
        world.counts().microcollisions
    );
    let mut panel = Panel::new("t (s)", "x (m)").legend_at(SeriesLabelPosition::UpperLeft);
    for (k, p) in paths.into_iter().enumerate() {
        panel = panel.line(names[k], p);
    }
    figure_st::write(
        figure,
        &format!("Newton's cradle ({file}): one ball must leave at the striker's speed"),
        &[panel],
    );
    (worst, before)
}

#[test]
fn newtons_cradle_sends_off_exactly_one_ball() {
    let (worst, before) = cradle("scenes/experiments/newtons-cradle.toml", "newtons-cradle");
    assert!(
        before <= TOL,
        "the line moved before the impact: {before} m/s"
    );
    assert!(
        worst <= TOL,
        "a ball other than the last one moves, or the last one is off: worst error {worst:e}"
    );
}

/// On a floor the touching balls are resting contacts, and the contact step pushes each pair
/// from its 1 µm gap towards its target separation of ε_c/2: by a push-out that must leave
/// the line at rest (a velocity bias would spread it, at up to 0.39 m/s).
#[test]
fn newtons_cradle_on_a_frictionless_floor_sends_off_exactly_one_ball() {
    let (worst, before) = cradle(
        "scenes/experiments/newtons-cradle-floor.toml",
        "newtons-cradle-floor",
    );
    assert!(
        before <= TOL,
        "the line moved before the impact: {before} m/s"
    );
    assert!(
        worst <= TOL,
        "a ball other than the last one moves, or the last one is off: worst error {worst:e}"
    );
}
