//! Reproducible random scenes for the stage tests and benchmarks (shared, as Box2D's
//! `benchmark/` scenes are, so the numbers are comparable). A fixture, not part of the library:
//! `tests/stages_cpu.rs`, `tests/gpu_compare.rs` and `benches/stages.rs` include it with
//! `#[path]`, each using part of it.
#![allow(dead_code)]

use glam::{DQuat, DVec3, Vec3, Vec4};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tumble::stages::{
    f32_above, FrameParams, StageBody, MOTION_DYNAMIC, MOTION_FIXED, MOTION_KINEMATIC,
};

/// Frame constants of the random scenes: gravity −9.81 m/s² along z, frame at t = 0 lasting
/// 1/60 s, ε = 1 mm.
pub fn scene_params() -> FrameParams {
    FrameParams::new([0.0, 0.0, -9.81], 0.0, 1.0 / 60.0, 1e-3)
}

/// `n` bodies scattered in a cube of side 2 n^⅓ m (about one body per 8 m³, a few neighbours
/// each): radii 0.1–0.6 m, speeds up to ~5 m/s, spins up to ~8 rad/s, times up to one frame
/// before the frame start; 80 % dynamic (half of them with unequal principal moments), 10 %
/// kinematic, 10 % fixed. The moving bodies of equal principal moments are cuboids (constant
/// angular velocity, so their vertices are easy to follow in tests) and carry their own box
/// ([`StageBody::has_own_box`]): a cuboid whose half-diagonal is 0.999 × its radius, with random
/// proportions from a second generator (so the other bodies are the same as without boxes). With `n >= 8`, body 0 is a fixed "floor" whose bounding sphere is as
/// wide as the scene and reaches z = 0.5, so it overlaps the bottom layer and exercises the broad
/// phase's large-box path.
pub fn random_scene(n: usize, seed: u64) -> (Vec<StageBody>, FrameParams) {
    let params = scene_params();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut box_rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0b0c_5eed);
    let side = 2.0 * (n.max(1) as f32).cbrt();
    let bodies = (0..n)
        .map(|i| {
            if i == 0 && n >= 8 {
                let r = side;
                return StageBody {
                    position: [0.5 * side, 0.5 * side, 0.5 - r],
                    orientation: [0.0, 0.0, 0.0, 1.0],
                    bounding_radius: r,
                    rotation_radius: r,
                    motion: MOTION_FIXED,
                    ..Default::default()
                };
            }
            let roll: f32 = rng.random();
            let motion = if roll < 0.8 {
                MOTION_DYNAMIC
            } else if roll < 0.9 {
                MOTION_KINEMATIC
            } else {
                MOTION_FIXED
            };
            let radius = rng.random_range(0.1..0.6f32);
            let (position, velocity, angular_velocity) = {
                let mut v3 = |a: f32| [0; 3].map(|_| rng.random_range(-a..a));
                (v3(side).map(|c| c.abs()), v3(3.0), v3(5.0))
            };
            let q = Vec4::from([0; 4].map(|_| rng.random_range(-1.0..1.0f32)));
            let q = if q.length() > 1e-3 {
                q.normalize()
            } else {
                Vec4::W
            };
            let spherical: bool = rng.random();
            let inv_inertia = if spherical {
                let i = 1.0 / (0.4 * radius * radius);
                [i; 3]
            } else {
                [0; 3].map(|_| rng.random_range(0.5..5.0f32) / (radius * radius))
            };
            let mut body = StageBody {
                position,
                time: -rng.random_range(0.0..params.frame_period),
                orientation: q.into(),
                velocity,
                bounding_radius: radius,
                angular_velocity,
                rotation_radius: radius,
                inv_inertia,
                motion,
                ..Default::default()
            };
            if spherical && motion != MOTION_FIXED {
                let half = cuboid_half_extents(&mut box_rng, radius);
                let extent = own_box_extent(body.orientation, half);
                body.own_min = extent.map(|e| -e);
                body.own_max = extent;
                let w = Vec3::from(angular_velocity).as_dvec3().length();
                body.max_angular_speed = f32_above(w);
                body.has_own_box = 1;
            }
            body
        })
        .collect();
    (bodies, params)
}

/// Half extents of a cuboid of random proportions whose half-diagonal is 0.999 × `radius`.
pub fn cuboid_half_extents(rng: &mut ChaCha8Rng, radius: f32) -> [f32; 3] {
    let u = Vec3::from([0; 3].map(|_| rng.random_range(0.2..1.0f32)));
    (u.normalize() * (0.999 * radius)).into()
}

/// Half-widths of the axis-aligned box of a cuboid with half extents `half` turned by
/// quaternion `q` (x, y, z, w): |R|·h per axis, in f64 and rounded outwards to f32 ([`f32_above`]).
pub fn own_box_extent(q: [f32; 4], half: [f32; 3]) -> [f32; 3] {
    let q = DQuat::from_xyzw(q[0].into(), q[1].into(), q[2].into(), q[3].into()).normalize();
    let h = Vec3::from(half).as_dvec3();
    let axes = [q * DVec3::X, q * DVec3::Y, q * DVec3::Z];
    [0, 1, 2].map(|k| {
        let e = axes[0][k].abs() * h.x + axes[1][k].abs() * h.y + axes[2][k].abs() * h.z;
        f32_above(e)
    })
}
