//! The frictional collision impulse ([`tumble::collision_impulse::collision_impulse`],
//! Mirtich & Canny §4) over a fixed set of cube collisions like the funnel's: unit cubes (1 kg,
//! side 1 m) in random orientations meeting corner to face or against the fixed ground, with
//! approach speeds of 0.3–5 m/s, random slip, μ = 0.1 and e = 0.48. Every collision of the
//! event loop runs this integration, so it is timed on its own here.
//!
//! `cargo bench --bench collision_impulse`.

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{DMat3, DQuat, DVec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Duration;
use tumble::collision_impulse::{collision_frame, collision_impulse, collision_matrix, ContactLaw};

/// `(M, u0)` in the collision frame for `count` seeded cube collisions.
fn cases(count: usize) -> Vec<(DMat3, DVec3)> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let unit = |rng: &mut ChaCha8Rng| {
        DVec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        )
        .normalize_or(DVec3::Z)
    };
    // A unit cube's principal inverse inertia is 6 / (m s²) about every axis; one axis is
    // made slightly stiffer (about a box of sides 1 × 1 × 0.9), so the world inverse inertia
    // is not a multiple of the identity and the slip direction turns during a collision.
    let inv_inertia = DVec3::new(6.0, 6.0, 6.0 / 0.905);
    (0..count)
        .map(|k| {
            let qa = DQuat::from_axis_angle(unit(&mut rng), rng.random_range(0.0..3.1));
            let ia = DMat3::from_quat(qa)
                * DMat3::from_diagonal(inv_inertia)
                * DMat3::from_quat(qa).transpose();
            let n = unit(&mut rng);
            // A corner of a: half the diagonal away from its centre, on the side facing b.
            let ra = -(qa * DVec3::new(0.5, 0.5, 0.5).copysign(qa.inverse() * -n));
            let (inv_mb, ib, rb) = if k % 3 == 0 {
                (0.0, DMat3::ZERO, DVec3::ZERO) // against the fixed ground
            } else {
                let qb = DQuat::from_axis_angle(unit(&mut rng), rng.random_range(0.0..3.1));
                let ib = DMat3::from_quat(qb)
                    * DMat3::from_diagonal(inv_inertia)
                    * DMat3::from_quat(qb).transpose();
                (1.0, ib, ra + n * rng.random_range(0.5..0.87))
            };
            let k_world = collision_matrix(1.0, &ia, ra, inv_mb, &ib, rb);
            let frame = collision_frame(n);
            let m = frame.transpose() * k_world * frame;
            let speed = rng.random_range(0.3..5.0);
            let slip = rng.random_range(0.0..2.0) * speed;
            let phi: f64 = rng.random_range(0.0..std::f64::consts::TAU);
            (m, DVec3::new(slip * phi.cos(), slip * phi.sin(), -speed))
        })
        .collect()
}

fn impulse(c: &mut Criterion) {
    let cases = cases(256);
    let law = ContactLaw {
        friction: 0.1,
        restitution: 0.48,
        micro_speed: (2.0f64 * 9.81 * 1e-3).sqrt(),
    };
    let mut group = c.benchmark_group("collision_impulse");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("cube_collisions_256", |b| {
        b.iter(|| {
            for (m, u0) in &cases {
                black_box(collision_impulse(black_box(m), black_box(*u0), &law));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, impulse);
criterion_main!(benches);
