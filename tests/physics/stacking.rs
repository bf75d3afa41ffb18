//! Stacking without sleeping: the contact step alone holds a 20-cube stack, a 20-row pyramid
//! and a 24-brick tower for 10 s at default settings (Box2D v3's and Rapier's stacking scenes
//! are the anchors). Each body starts at rest at its resting gap, so any motion is the solver's.

use crate::common::*;
use std::path::Path;
use tumble::world::World;

/// Runs the bundled scene `scenes/stacking/<name>.toml` to its end; the largest distance any
/// body got from its start over the frames (m, with the body and time), and the largest
/// penetration, against ε_c.
fn hold(name: &str) -> (f64, String, f64, f64, f64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenes/stacking/{name}.toml"));
    let sc = tumble::scene::load(&path).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(
        sc.world.config.sleep_time, 0.0,
        "{name} must run with sleeping off"
    );
    let eps = sc.world.config.collision_epsilon;
    let mut w = World::new(&sc).expect("valid scene");
    let n = w.body_count();
    let start: Vec<_> = (0..n).map(|i| w.body(i).position).collect();
    let (mut worst, mut who, mut when) = (0.0f64, String::new(), 0.0);
    run(&mut w, sc.world.duration, |w| {
        for (i, s) in start.iter().enumerate() {
            let d = w.body(i).position.distance(*s);
            if d > worst {
                (worst, who, when) = (d, w.body(i).name.clone(), w.time());
            }
        }
    });
    assert_eq!(w.counts().sleeps, 0);
    (worst, who, when, w.max_penetration(), eps)
}

/// Asserts that every body of `name` stays within 1 mm of its start and penetrates by at most
/// ε_c.
fn stands(name: &str) {
    let (worst, who, when, pen, eps) = hold(name);
    println!(
        "{name}: largest distance from the start {worst:.3e} m ({who} at {when:.2} s), \
         limit 1e-3 m; largest penetration {pen:.3e} m, limit ε_c = {eps:e} m"
    );
    assert!(worst <= 1e-3, "{name}: {who} moved {worst} m by {when} s");
    assert!(pen <= eps, "{name}: penetration {pen} m");
}

#[test]
fn a_stack_of_twenty_cubes_stands_without_sleeping() {
    stands("stack20");
}

#[test]
fn a_pyramid_of_twenty_rows_stands_without_sleeping() {
    stands("pyramid20");
}

#[test]
fn a_tower_of_twenty_four_bricks_stands_without_sleeping() {
    stands("tower24");
}
