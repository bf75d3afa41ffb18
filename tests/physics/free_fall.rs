//! Free fall and torque-free spin in closed form.
use crate::common::*;
use glam::{DQuat, DVec3};
use tumble::world::World;

#[test]
fn free_fall_matches_closed_form() {
    let mut b = body("ball", sphere(0.1), 2.0, DVec3::new(0.0, 0.0, 10.0));
    b.velocity = DVec3::new(1.5, -0.5, 3.0);
    b.angular_velocity = DVec3::new(0.0, 2.0, 1.0);
    let mut world = World::new(&scene(G, 0.5, 0.5, vec![b.clone()])).unwrap();
    let mut frames = 0;
    run(&mut world, 1.0, |w| {
        let t = w.time();
        let s = w.body_state(0);
        let want = b.position + b.velocity * t + 0.5 * G * t * t;
        assert!(
            (s.position - want).length() < 1e-12,
            "t={t}: {} vs {want}",
            s.position
        );
        assert!((s.velocity - (b.velocity + G * t)).length() < 1e-12);
        let q = DQuat::from_scaled_axis(b.angular_velocity * t);
        assert!(s.orientation.dot(q).abs() > 1.0 - 1e-12);
        frames += 1;
    });
    assert_eq!(frames, 50);
    let t = world.time();
    let want = b.position + b.velocity * t + 0.5 * G * t * t;
    eprintln!(
        "validation free fall: |x - x(t)| = {:.2e} m at t = {t}",
        (world.body_state(0).position - want).length()
    );
    assert_eq!(
        world.counts().collisions + world.counts().microcollisions,
        0
    );
}

#[test]
fn asymmetric_body_keeps_angular_momentum_and_energy() {
    let mut b = body("brick", cuboid(0.3, 0.1, 0.05), 1.0, DVec3::ZERO);
    // Spin near the intermediate axis: the tumbling (Dzhanibekov) motion is a stiff test.
    b.angular_velocity = DVec3::new(0.01, 6.0, 0.02);
    let mut world = World::new(&scene(DVec3::ZERO, 0.5, 0.5, vec![b])).unwrap();
    let l = |w: &World| {
        let body = w.body(0);
        body.orientation * (body.inertia * (body.orientation.inverse() * body.angular_velocity))
    };
    let l0 = l(&world);
    let e0 = world.kinetic_energy();
    let mut flipped = false;
    run(&mut world, 5.0, |w| {
        assert!((l(w) - l0).length() < 1e-9 * l0.length());
        assert!((w.kinetic_energy() - e0).abs() < 1e-7 * e0);
        // The body's y axis turns over: the instability really is followed.
        if (w.body(0).orientation * DVec3::Y).y < -0.9 {
            flipped = true;
        }
    });
    assert!(
        flipped,
        "the intermediate-axis flip should happen within 5 s"
    );
}
