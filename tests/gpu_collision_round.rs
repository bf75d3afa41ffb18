//! The collision round's shader (`shaders/collision_round.wgsl`) against its f64 twin
//! (`tumble::stages::collision_round::collision_round`) on seeded random rounds: chains and
//! clusters of cubes meeting at several points a pair, some pairs against a still body, pairs
//! coloured so that no two of a colour share a moving body. The device and the twin sweep the
//! same rows in the same order, so they end with the same impulses and velocities to f32's
//! precision and stop each phase after nearly the same number of sweeps.

#[path = "gpu_support/mod.rs"]
mod gpu_support;
#[path = "solver_scene/mod.rs"]
mod solver_scene;

use gpu_support::gpu_stages;
use solver_scene::random_round;
use tumble::stages::collision_round::{collision_round, CollisionRounds, RoundInput, RoundParams};

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn the_shader_matches_its_twin() {
    let Some(mut gpu) = gpu_stages() else { return };
    for (seed, bodies, pairs) in [(1, 2, 1), (2, 9, 12), (3, 65, 130), (4, 400, 900)] {
        let (rows, pairs, starts, bodies) = random_round(seed, bodies, pairs);
        for max_sweeps in [1, 32] {
            let input = RoundInput {
                params: RoundParams {
                    tolerance: if max_sweeps == 1 { 0.0 } else { 1e-3 },
                    max_sweeps,
                    colours: (starts.len() - 1) as u32,
                    pad: 0,
                },
                rows: &rows,
                pairs: &pairs,
                starts: &starts,
                bodies: &bodies,
            };
            let twin = collision_round(&input);
            let device = gpu.collision_round(&input).unwrap();
            let scale = twin
                .velocities
                .iter()
                .flatten()
                .flatten()
                .fold(1.0f32, |m, x| m.max(x.abs()));
            let dv = twin
                .velocities
                .iter()
                .zip(&device.velocities)
                .flat_map(|(x, y)| {
                    (0..2).flat_map(move |k| (0..3).map(move |i| (x[k][i] - y[k][i]).abs()))
                })
                .fold(0.0f32, f32::max);
            let dp = twin
                .impulses
                .iter()
                .zip(&device.impulses)
                .flat_map(|(x, y)| (0..5).map(move |i| (x[i] - y[i]).abs()))
                .fold(0.0f32, f32::max);
            eprintln!(
                "seed {seed}: {} rows, {} colours, {max_sweeps} sweeps at most: sweeps {:?} \
                 (twin) {:?} (device); largest difference {dv:.2e} m/s of {scale:.1}, \
                 impulses {dp:.2e} N·s",
                rows.len(),
                starts.len() - 1,
                twin.sweeps,
                device.sweeps
            );
            assert!(dv <= 1e-4 * scale, "velocities differ by {dv:e}");
            assert!(dp <= 1e-4 * scale, "impulses differ by {dp:e}");
            for phase in 0..3 {
                assert!(twin.sweeps[phase].abs_diff(device.sweeps[phase]) <= 2);
            }
        }
    }
}
