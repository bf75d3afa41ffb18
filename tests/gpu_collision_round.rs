//! The collision round's shader (`shaders/collision_round.wgsl`) against its f64 twin
//! (`tumble::stages::collision_round::collision_round`) on seeded random rounds: chains and
//! clusters of cubes meeting at several points a pair, some pairs against a still body, pairs
//! coloured so that no two of a colour share a moving body. The device and the twin sweep the
//! same rows in the same order, so they end with the same impulses and velocities to f32's
//! precision and stop each phase after nearly the same number of sweeps.

use glam::{DMat3, DVec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tumble::gpu::GpuStages;
use tumble::stages::collision_round::{
    collision_round, CollisionRounds, RoundBody, RoundInput, RoundParams, RoundRow,
};
use tumble::stages::contact_sweep::{mat3_f32, vec3_f32};

/// A random round: `bodies` cubes (body 0 still: a floor), `pairs` pairs of 1–4 points each,
/// coloured greedily; returns the rows, pair starts, colour starts and bodies.
fn random_round(
    seed: u64,
    bodies: usize,
    pairs: usize,
) -> (Vec<RoundRow>, Vec<u32>, Vec<u32>, Vec<RoundBody>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let unit = |rng: &mut ChaCha8Rng| loop {
        let v = DVec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        if v.length() > 0.1 && v.length() < 1.0 {
            return v.normalize();
        }
    };
    let inertia: Vec<DMat3> = (0..bodies)
        .map(|i| {
            if i == 0 {
                DMat3::ZERO
            } else {
                DMat3::from_diagonal(DVec3::splat(6.0))
            }
        })
        .collect();
    let body: Vec<RoundBody> = (0..bodies)
        .map(|i| RoundBody {
            v: vec3_f32(if i == 0 {
                DVec3::ZERO
            } else {
                2.0 * unit(&mut rng)
            }),
            inv_mass: if i == 0 { 0.0 } else { 1.0 },
            w: vec3_f32(if i == 0 { DVec3::ZERO } else { unit(&mut rng) }),
            moves: u32::from(i != 0),
            inv_inertia: mat3_f32(&inertia[i]),
        })
        .collect();
    // Pairs: neighbours in a chain, then random ones; greedy colours by moving bodies.
    let mut list: Vec<(usize, usize)> = (1..bodies).map(|i| (i, i - 1)).collect();
    while list.len() < pairs {
        let (a, b) = (rng.random_range(1..bodies), rng.random_range(0..bodies));
        if a != b {
            list.push((a, b));
        }
    }
    let mut used: Vec<u64> = vec![0; bodies];
    let colour: Vec<u32> = list
        .iter()
        .map(|&(a, b)| {
            let taken = used[a] | if b == 0 { 0 } else { used[b] };
            let c = (!taken).trailing_zeros();
            used[a] |= 1 << c;
            if b != 0 {
                used[b] |= 1 << c;
            }
            c
        })
        .collect();
    let colours = colour.iter().max().map_or(0, |c| c + 1);
    let cross = |r: DVec3| {
        DMat3::from_cols(
            DVec3::new(0.0, r.z, -r.y),
            DVec3::new(-r.z, 0.0, r.x),
            DVec3::new(r.y, -r.x, 0.0),
        )
    };
    let (mut rows, mut starts_of_pairs, mut colour_starts) = (Vec::new(), Vec::new(), vec![0u32]);
    for c in 0..colours {
        for (_, &(a, b)) in list.iter().enumerate().filter(|(k, _)| colour[*k] == c) {
            starts_of_pairs.push(rows.len() as u32);
            let n = unit(&mut rng);
            for _ in 0..rng.random_range(1..=4) {
                let ra = 0.5 * unit(&mut rng);
                let rb = 0.5 * unit(&mut rng);
                let (ma, mb) = (f64::from(body[a].inv_mass), f64::from(body[b].inv_mass));
                let k = DMat3::from_diagonal(DVec3::splat(ma + mb))
                    - cross(ra) * inertia[a] * cross(ra)
                    - cross(rb) * inertia[b] * cross(rb);
                rows.push(RoundRow {
                    ra: vec3_f32(ra),
                    target: rng.random_range(0.0..2.0),
                    rb: vec3_f32(rb),
                    mass: (1.0 / n.dot(k * n)) as f32,
                    normal: vec3_f32(n),
                    friction: rng.random_range(0.0..0.6),
                    k: mat3_f32(&k),
                    a: a as u32,
                    b: b as u32,
                    ..RoundRow::default()
                });
            }
        }
        colour_starts.push(starts_of_pairs.len() as u32);
    }
    starts_of_pairs.push(rows.len() as u32);
    (rows, starts_of_pairs, colour_starts, body)
}

fn gpu() -> Option<GpuStages> {
    match GpuStages::new() {
        Ok(g) => Some(g),
        Err(e) => {
            assert_ne!(
                std::env::var("CI").as_deref(),
                Ok("true"),
                "CI=true but no GPU adapter: {e}"
            );
            println!("SKIPPED: no GPU adapter ({e})");
            None
        }
    }
}

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn the_shader_matches_its_twin() {
    let Some(mut gpu) = gpu() else { return };
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
