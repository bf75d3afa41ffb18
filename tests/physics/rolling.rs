//! A ball launched without spin slides, then rolls at 5/7 v0 from t = 2 v0 / (7 μ g).
use crate::common::*;
use glam::DVec3;
use tumble::world::World;

#[test]
fn sliding_ball_starts_rolling_at_five_sevenths() {
    let (r, v0, mu) = (0.1, 2.0, 0.2);
    let mut ball = body("ball", sphere(r), 1.0, DVec3::new(0.0, 0.0, r + 0.0004));
    ball.velocity = DVec3::new(v0, 0.0, 0.0);
    let mut world = World::new(&scene(G, 0.5, mu, vec![floor(), ball])).unwrap();
    let g = 9.81;
    let t_roll = 2.0 * v0 / (7.0 * mu * g);
    let mut t_slip_end = None;
    run(&mut world, 0.8, |w| {
        let b = w.body(1);
        let slip = b.velocity.x - b.angular_velocity.y * r;
        if t_slip_end.is_none() && slip.abs() < 0.01 * v0 {
            t_slip_end = Some(w.time());
        }
        // While sliding, the speed falls at μ g (Coulomb friction, eq. 8 averaged over the
        // microcollision train).
        let t = w.time();
        if t < 0.9 * t_roll {
            let want = v0 - mu * g * t;
            assert!(
                (b.velocity.x - want).abs() < 0.02 * v0,
                "t={t}: v={} want {want}",
                b.velocity.x
            );
        }
    });
    let b = world.body(1);
    let v_roll = 5.0 / 7.0 * v0;
    let t_slip_end = t_slip_end.expect("the ball never stopped slipping");
    eprintln!(
        "validation rolling: slip ends at {t_slip_end:.4} s (closed form {t_roll:.4}), v = {:.5} m/s (5/7 v0 = {:.5}), rel err {:.2e}",
        b.velocity.x,
        5.0 / 7.0 * v0,
        (b.velocity.x - 5.0 / 7.0 * v0).abs() / (5.0 / 7.0 * v0)
    );
    assert!(
        (t_slip_end - t_roll).abs() < 0.06 * t_roll,
        "rolling from {t_slip_end}, expected {t_roll}"
    );
    assert!(
        (b.velocity.x - v_roll).abs() < 0.01 * v_roll,
        "v = {} expected {v_roll}",
        b.velocity.x
    );
    assert!((b.angular_velocity.y * r - v_roll).abs() < 0.01 * v_roll);
    // Still on the floor, not bouncing away.
    assert!((b.position.z - r).abs() < 2e-3, "z = {}", b.position.z);
}
