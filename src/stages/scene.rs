//! Reproducible random scenes for the stage tests and benchmarks (shared, as Box2D's
//! `benchmark/` scenes are, so the numbers are comparable).

use super::{FrameParams, StageBody, MOTION_DYNAMIC, MOTION_FIXED, MOTION_KINEMATIC};
use glam::Vec4;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Frame constants of the random scenes: gravity −9.81 m/s² along z, frame at t = 0 lasting
/// 1/60 s, ε = 1 mm.
pub fn scene_params() -> FrameParams {
    FrameParams::new([0.0, 0.0, -9.81], 0.0, 1.0 / 60.0, 1e-3)
}

/// `n` bodies scattered in a cube of side 2 n^⅓ m (about one body per 8 m³, a few neighbours
/// each): radii 0.1–0.6 m, speeds up to ~5 m/s, spins up to ~8 rad/s, times up to one frame
/// before the frame start; 80 % dynamic (half of them with unequal principal moments), 10 %
/// kinematic, 10 % fixed. With `n >= 8`, body 0 is a fixed "floor" whose bounding sphere is as
/// wide as the scene and reaches z = 0.5, so it overlaps the bottom layer and exercises the broad
/// phase's large-box path.
pub fn random_scene(n: usize, seed: u64) -> (Vec<StageBody>, FrameParams) {
    let params = scene_params();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
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
            StageBody {
                position,
                time: -rng.random_range(0.0..params.frame_period),
                orientation: q.into(),
                velocity,
                bounding_radius: radius,
                angular_velocity,
                rotation_radius: radius,
                inv_inertia,
                motion,
            }
        })
        .collect();
    (bodies, params)
}
