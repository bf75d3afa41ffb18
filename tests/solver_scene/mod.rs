//! Seeded random inputs of the solver stages (`shaders/collision_round.wgsl`,
//! `shaders/contact_sweep.wgsl`), shared by their tests and benchmarks: chains and clusters of
//! cubes meeting at several points a pair, some pairs against a still body (a floor), pairs
//! coloured greedily so that no two of a colour share a moving body.

#![allow(dead_code)]

use glam::{DMat3, DVec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tumble::stages::collision_round::{RoundBody, RoundRow};
use tumble::stages::contact_sweep::{
    mat3_f32, vec3_f32, SweepParams, SweepPatch, SweepRow, SweepVel, SLOT_STILL,
};

/// A random round: `bodies` cubes (body 0 still: a floor), `pairs` pairs of 1–4 points each,
/// coloured greedily; returns the rows, pair starts, colour starts and bodies.
pub fn random_round(
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

/// A random contact step for the coloured sweeps: `bodies` moving cubes (slots 0..bodies) on a
/// still floor, `patches` patches of four rows each (a chain, then random pairs, a tenth of
/// them on the floor), coloured greedily; returns the params (16 sweeps, no early stop), rows,
/// patches, order, colour starts, moving and still velocities.
#[allow(clippy::type_complexity)]
pub fn random_step(
    seed: u64,
    bodies: usize,
    patches: usize,
) -> (
    SweepParams,
    Vec<SweepRow>,
    Vec<SweepPatch>,
    Vec<u32>,
    Vec<u32>,
    Vec<SweepVel>,
    Vec<SweepVel>,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let v = |rng: &mut ChaCha8Rng, s: f64| {
        [
            (s * rng.random_range(-1.0..1.0)) as f32,
            (s * rng.random_range(-1.0..1.0)) as f32,
            (s * rng.random_range(-1.0..1.0)) as f32,
        ]
    };
    let moving: Vec<SweepVel> = (0..bodies)
        .map(|_| SweepVel {
            v: v(&mut rng, 1.0),
            w: v(&mut rng, 1.0),
            ..SweepVel::default()
        })
        .collect();
    let still = vec![SweepVel::default()];
    let mut slots: Vec<(u32, u32)> = (1..bodies as u32).map(|i| (i, i - 1)).collect();
    while slots.len() < patches {
        let a = rng.random_range(0..bodies as u32);
        let b = if rng.random_range(0..10) == 0 {
            SLOT_STILL
        } else {
            rng.random_range(0..bodies as u32)
        };
        if a != b {
            slots.push((a, b));
        }
    }
    slots.truncate(patches);
    let mut used = vec![0u64; bodies];
    let moving_slot = |s: u32| s & SLOT_STILL == 0;
    let colour: Vec<u32> = slots
        .iter()
        .map(|&(a, b)| {
            let taken = used[a as usize] | if moving_slot(b) { used[b as usize] } else { 0 };
            let c = (!taken).trailing_zeros();
            used[a as usize] |= 1 << c;
            if moving_slot(b) {
                used[b as usize] |= 1 << c;
            }
            c
        })
        .collect();
    let colours = colour.iter().max().map_or(0, |c| c + 1) as usize;
    let mut order = Vec::with_capacity(patches);
    let mut starts = vec![0u32];
    for c in 0..colours as u32 {
        order.extend((0..patches as u32).filter(|&k| colour[k as usize] == c));
        starts.push(order.len() as u32);
    }
    let eye = mat3_f32(&DMat3::from_diagonal(DVec3::splat(2.0)));
    let half = mat3_f32(&DMat3::from_diagonal(DVec3::splat(0.5)));
    let inertia = mat3_f32(&DMat3::from_diagonal(DVec3::splat(6.0)));
    let mut rows = Vec::with_capacity(4 * patches);
    let patch_list = slots
        .iter()
        .map(|&(sa, sb)| {
            let first = rows.len() as u32;
            let n = [0.0, 0.0, 1.0];
            for _ in 0..4 {
                rows.push(SweepRow {
                    ra: v(&mut rng, 0.5),
                    bias: 0.01,
                    rb: v(&mut rng, 0.5),
                    drift: -0.02,
                    normal: n,
                    k_nn: 4.0,
                    lin_a: [0.0, 0.0, 1.0],
                    inv_k_nn: 0.25,
                    ang_a: v(&mut rng, 1.0),
                    lin_b: [0.0, 0.0, 1.0],
                    ang_b: v(&mut rng, 1.0),
                    spread: v(&mut rng, 0.5),
                    spread_sq: 0.2,
                    lever: 0.45,
                    ..SweepRow::default()
                });
            }
            SweepPatch {
                sa,
                sb,
                first,
                count: 4,
                friction: 0.3,
                normal: n,
                radius: 0.5,
                twist_inv: 0.1,
                inv_mass_a: 1.0,
                inv_mass_b: if moving_slot(sb) { 1.0 } else { 0.0 },
                k: eye,
                k_tt_inv: half,
                inv_inertia_a: inertia,
                inv_inertia_b: inertia,
                ..SweepPatch::default()
            }
        })
        .collect();
    let params = SweepParams {
        h: 0.005,
        tolerance: 0.0,
        max_iterations: 16,
        stall_window: 0,
        colours: colours as u32,
        pad: [0; 3],
    };
    (params, rows, patch_list, order, starts, moving, still)
}
