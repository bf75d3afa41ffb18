//! Single collisions against closed forms; conservation over many free collisions.
use crate::common::*;
use glam::{DQuat, DVec3};
use rand::{Rng, SeedableRng};
use tumble::material::Material;
use tumble::shape::Shape;
use tumble::world::World;

#[test]
fn equal_elastic_balls_exchange_velocities() {
    let mut a = body("a", sphere(0.1), 1.0, DVec3::ZERO);
    a.velocity = DVec3::new(1.0, 0.0, 0.0);
    let b = body("b", sphere(0.1), 1.0, DVec3::new(0.5, 0.0, 0.0));
    let mut world = World::new(&scene(DVec3::ZERO, 1.0, 0.0, vec![a, b])).unwrap();
    run(&mut world, 1.0, |_| {});
    eprintln!(
        "validation exchange: |v_a| = {:.2e}, |v_b - v0| = {:.2e}",
        world.body(0).velocity.length(),
        (world.body(1).velocity - DVec3::X).length()
    );
    assert!(
        world.body(0).velocity.length() < 1e-9,
        "{}",
        world.body(0).velocity
    );
    assert!((world.body(1).velocity - DVec3::X).length() < 1e-9);
    assert_eq!(world.counts().collisions, 1);
    // Caught within the collision epsilon, never overlapping.
    assert_eq!(world.max_penetration(), 0.0);
}

#[test]
fn dropped_ball_rebounds_to_e_squared_of_its_height() {
    for e in [0.3, 0.5, 0.8] {
        let r = 0.1;
        let h = 1.0;
        let ball = body("ball", sphere(r), 1.0, DVec3::new(0.0, 0.0, r + h));
        let mut world = World::new(&scene(G, e, 0.0, vec![floor(), ball])).unwrap();
        let mut apex = None;
        run(&mut world, 0.6, |w| {
            let b = w.body(1);
            if apex.is_none() && b.velocity.z > 0.0 {
                apex = Some(b.position.z - r + b.velocity.z * b.velocity.z / (2.0 * 9.81));
            }
        });
        let apex = apex.expect("no rebound");
        eprintln!(
            "validation rebound e = {e}: apex {apex:.5} m vs e² h = {:.5} (rel err {:.2e})",
            e * e * h,
            (apex - e * e * h).abs() / (e * e * h)
        );
        assert!(
            (apex - e * e * h).abs() < 0.005 * e * e * h + 1e-3,
            "e = {e}: apex {apex}, want {}",
            e * e * h
        );
    }
}

/// Many bodies of mixed shapes and materials, no gravity, no fixed bodies: every collision keeps
/// linear and angular momentum, and the kinetic energy never rises.
#[test]
fn free_collisions_keep_momentum_and_never_create_energy() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut bodies = Vec::new();
    let mut sc = scene(DVec3::ZERO, 0.5, 0.5, vec![]);
    for k in 0..4 {
        sc.materials.insert(
            format!("m{k}"),
            Material {
                restitution: rng.random_range(0.0..=1.0),
                friction: rng.random_range(0.0..=1.0),
            },
        );
    }
    let mut n = 0;
    for i in 0..4 {
        for j in 0..4 {
            for k in 0..2 {
                let pos = DVec3::new(i as f64, j as f64, k as f64) * 0.9;
                let shape = match n % 3 {
                    0 => sphere(0.25),
                    1 => cuboid(0.2, 0.15, 0.25),
                    _ => Shape::Capsule {
                        radius: 0.12,
                        half_length: 0.18,
                    },
                };
                let mut b = body(&format!("b{n}"), shape, rng.random_range(0.5..2.0), pos);
                b.orientation =
                    DQuat::from_scaled_axis(DVec3::new(rng.random(), rng.random(), rng.random()));
                b.velocity = (DVec3::new(1.35, 1.35, 0.45) - pos) * 1.5
                    + DVec3::new(rng.random(), rng.random(), rng.random())
                    - 0.5;
                b.angular_velocity =
                    (DVec3::new(rng.random(), rng.random(), rng.random()) - 0.5) * 6.0;
                b.material = format!("m{}", n % 4);
                bodies.push(b);
                n += 1;
            }
        }
    }
    sc.bodies = bodies;
    let mut world = World::new(&sc).unwrap();
    let angular = |w: &World| -> DVec3 {
        (0..w.body_count())
            .map(|i| {
                let b = w.body(i);
                let l_spin =
                    b.orientation * (b.inertia * (b.orientation.inverse() * b.angular_velocity));
                b.position.cross(b.velocity) / b.inv_mass + l_spin
            })
            .sum()
    };
    let p0 = world.momentum();
    let l0 = angular(&world);
    let mut e_prev = world.kinetic_energy();
    let e0 = e_prev;
    run(&mut world, 3.0, |w| {
        if std::env::var_os("TUMBLE_DEBUG").is_some() {
            eprintln!("t={:.2} {:?}", w.time(), w.counts());
        }
        assert!(
            (w.momentum() - p0).length() < 1e-9 * (1.0 + p0.length()),
            "momentum drifted"
        );
        assert!(
            (angular(w) - l0).length() < 1e-7 * (1.0 + l0.length()),
            "angular momentum drifted"
        );
        let e = w.kinetic_energy();
        assert!(
            e <= e_prev + 1e-9 * e0,
            "energy rose from {e_prev} to {e} at t = {}",
            w.time()
        );
        e_prev = e;
    });
    eprintln!(
        "validation free collisions: {} collisions, momentum drift {:.2e}, energy {e0:.4} -> {e_prev:.4} J",
        world.counts().collisions,
        (world.momentum() - p0).length(),
    );
    assert!(
        world.counts().collisions >= 20,
        "only {} collisions",
        world.counts().collisions
    );
    assert!(
        e_prev < e0,
        "inelastic collisions must have dissipated energy"
    );
}
