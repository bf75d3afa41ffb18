//! A block on a slope holds when tan θ < μ and slides with a = g (sin θ − μ cos θ) otherwise.
use crate::common::*;
use glam::{DQuat, DVec3};
use tumble::scene::RestingContactMode;
use tumble::world::World;

/// A 0.2 m cube resting on a fixed slope of angle `theta` through the origin.
fn slope_world(theta: f64, mu: f64) -> (World, DVec3) {
    let q = DQuat::from_rotation_y(theta);
    let n = q * DVec3::Z;
    let slope = fixed("slope", cuboid(5.0, 1.0, 0.5), -n * 0.5, q);
    let mut block = body("block", cuboid(0.1, 0.1, 0.1), 1.0, n * (0.1 + 0.0003));
    block.orientation = q;
    // Mirtich's microcollisions with the static-friction fix (the constraint mode's slope
    // cases are in resting_constraints.rs).
    let mut sc = scene(G, 0.3, mu, vec![slope, block]);
    sc.world.config.resting_contact = RestingContactMode::Microcollisions;
    let world = World::new(&sc).unwrap();
    // Downhill direction.
    (world, q * DVec3::X)
}

#[test]
fn block_holds_inside_friction_angle() {
    let theta = 20f64.to_radians();
    assert!(theta.tan() < 0.5);
    let (mut world, down) = slope_world(theta, 0.5);
    let start = world.body(1).position;
    run(&mut world, 2.0, |_| {});
    let moved = (world.body(1).position - start).dot(down);
    eprintln!(
        "validation slope hold: moved {moved:.3e} m in 2 s (tan θ = {:.3} < μ = 0.5)",
        theta.tan()
    );
    eprintln!("counts {:?}", world.counts());
    assert!(
        moved.abs() < 1e-3,
        "block crept {moved} m down the slope in 2 s"
    );
    assert!(world.counts().microcollisions > 0);
}

#[test]
fn block_slides_outside_friction_angle() {
    let (theta, mu) = (30f64.to_radians(), 0.2);
    let (mut world, down) = slope_world(theta, mu);
    let a = 9.81 * (theta.sin() - mu * theta.cos());
    let start = world.body(1).position;
    run(&mut world, 0.6, |_| {});
    let b = world.body(1);
    let v = b.velocity.dot(down);
    let s = (b.position - start).dot(down);
    eprintln!(
        "validation slope slide: v = {v:.5} m/s vs a t = {:.5} (rel err {:.2e}); s = {s:.5} m vs {:.5}",
        a * 0.6,
        (v - a * 0.6).abs() / (a * 0.6),
        0.5 * a * 0.36
    );
    assert!(
        (v - a * 0.6).abs() < 0.03 * a * 0.6,
        "v = {v}, expected {}",
        a * 0.6
    );
    assert!(
        (s - 0.5 * a * 0.36).abs() < 0.03 * 0.5 * a * 0.36,
        "s = {s}"
    );
}
