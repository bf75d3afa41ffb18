//! A small fast ball never tunnels through a thin wall.
use crate::common::*;
use glam::{DQuat, DVec3};
use rand::{Rng, SeedableRng};
use tumble::world::World;

#[test]
fn fast_small_ball_bounces_off_a_thin_wall() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    for trial in 0..20 {
        // A 1 mm plate in the z = 0 plane; balls at up to 300 m/s cross 6 m in one frame.
        let wall = fixed(
            "wall",
            cuboid(2.0, 2.0, 0.0005),
            DVec3::ZERO,
            DQuat::IDENTITY,
        );
        let speed = rng.random_range(50.0..300.0);
        let dir = DVec3::new(
            rng.random_range(-0.3..0.3),
            rng.random_range(-0.3..0.3),
            -1.0,
        )
        .normalize();
        let mut ball = body(
            "ball",
            sphere(0.005),
            0.01,
            DVec3::new(0.0, 0.0, 0.5) - dir * 0.0,
        );
        ball.velocity = dir * speed;
        let mut world = World::new(&scene(DVec3::ZERO, 0.9, 0.3, vec![wall, ball])).unwrap();
        run(&mut world, 0.1, |w| {
            let z = w.body(1).position.z;
            assert!(
                z > 0.0005,
                "trial {trial}: ball at z = {z} went through the wall"
            );
        });
        assert!(
            world.body(1).velocity.z > 0.0,
            "trial {trial}: the ball did not bounce"
        );
        assert_eq!(world.max_penetration(), 0.0);
    }
}
