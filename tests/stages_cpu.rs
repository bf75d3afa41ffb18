//! The CPU twins on their own (no device): swept boxes contain the sampled motion, the broad
//! phase equals brute force, pair bounds stay below exact distances, and results do not depend
//! on the thread count.

#[path = "stages_reference.rs"]
mod reference;
#[path = "stage_scene/mod.rs"]
mod stage_scene;

use glam::DVec3;
use proptest::prelude::*;
use reference::{centre_at, first_touch, orientation_at, sphere_distance, v64};
use stage_scene::random_scene;
use tumble::stages::broad_phase::{broad_phase, broad_phase_prepare};
use tumble::stages::pair_bounds::pair_bounds;
use tumble::stages::swept_aabb::swept_aabb;
use tumble::stages::{
    BoxOverride, CpuStages, FrameParams, FrameStages, StageAabb, StageBody, MOTION_DYNAMIC,
    MOTION_FIXED, MOTION_KINEMATIC, TOI_NONE,
};

fn brute_force(boxes: &[StageAabb]) -> Vec<[u32; 2]> {
    let mut out = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            let fixed = boxes[i].motion == MOTION_FIXED && boxes[j].motion == MOTION_FIXED;
            if !fixed && boxes[i].overlaps(&boxes[j]) {
                out.push([i as u32, j as u32]);
            }
        }
    }
    out
}

#[test]
fn swept_boxes_contain_sampled_positions_with_radius() {
    for (n, offset) in [(500, 0.0f32), (500, 5000.0)] {
        let (mut bodies, params) = random_scene(n, 1);
        for b in &mut bodies {
            b.position[1] -= offset;
        }
        let boxes = swept_aabb(&params, &bodies, &[]);
        for (i, (bx, b)) in boxes.iter().zip(&bodies).enumerate() {
            assert_eq!(bx.motion, b.motion);
            if b.has_own_box != 0 {
                continue; // tighter than the sphere: the next test
            }
            let grow = b.bounding_radius as f64 + 0.5 * params.epsilon as f64;
            let g = params.gravity[2] as f64;
            let s0 = (params.frame_start - b.time) as f64;
            let v0 = b.velocity[2] as f64;
            let apex = -v0 / g - s0; // relative to the frame start
            let mut times: Vec<f64> = (0..=32)
                .map(|k| params.frame_period as f64 * k as f64 / 32.0)
                .collect();
            if apex > 0.0 && apex < params.frame_period as f64 {
                times.push(apex);
            }
            for t in times {
                let c = centre_at(&params, b, t);
                for k in 0..3 {
                    assert!(
                        bx.min[k] as f64 <= c[k] - grow && c[k] + grow <= bx.max[k] as f64,
                        "body {i} at t={t}: {c} ± {grow} not inside {bx:?}"
                    );
                }
            }
        }
    }
}

/// A body's own box at its time, carried along its path and grown by its rotation bound, holds
/// every vertex of the cuboid it came from (padded by ε/2) at every sampled time of the frame,
/// and the result is never wider than the bounding sphere's box.
#[test]
fn own_boxes_contain_the_turning_cuboid_and_stay_inside_the_sphere_box() {
    use crate::stage_scene::{cuboid_half_extents, own_box_extent};
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut checked = 0;
    for (n, offset) in [(500, 0.0f32), (500, 5000.0)] {
        let (mut bodies, mut params) = random_scene(n, 3);
        params.frame_period = 0.05; // long enough for rotation to matter
        let mut halves = Vec::new();
        for b in &mut bodies {
            b.position[1] -= offset;
            let half = cuboid_half_extents(&mut rng, b.bounding_radius);
            if b.has_own_box != 0 {
                let e = own_box_extent(b.orientation, half);
                b.own_min = e.map(|x| -x);
                b.own_max = e;
            }
            halves.push(v64(half));
        }
        let spheres: Vec<StageAabb> = {
            let plain: Vec<StageBody> = bodies
                .iter()
                .map(|b| StageBody {
                    has_own_box: 0,
                    ..*b
                })
                .collect();
            swept_aabb(&params, &plain, &[])
        };
        let boxes = swept_aabb(&params, &bodies, &[]);
        for (i, b) in bodies.iter().enumerate() {
            let (bx, sphere) = (&boxes[i], &spheres[i]);
            for k in 0..3 {
                assert!(
                    sphere.min[k] <= bx.min[k] && bx.max[k] <= sphere.max[k],
                    "body {i}"
                );
            }
            if b.has_own_box == 0 {
                assert_eq!(bx, sphere, "body {i}");
                continue;
            }
            checked += 1;
            let pad = 0.5 * params.epsilon as f64;
            for step in 0..=40 {
                let t = params.frame_period as f64 * step as f64 / 40.0;
                let q = orientation_at(&params, b, t);
                let c = centre_at(&params, b, t);
                for corner in 0..8 {
                    let sign = DVec3::new(
                        if corner & 1 == 0 { -1.0 } else { 1.0 },
                        if corner & 2 == 0 { -1.0 } else { 1.0 },
                        if corner & 4 == 0 { -1.0 } else { 1.0 },
                    );
                    let v = c + q * (sign * halves[i]);
                    for k in 0..3 {
                        assert!(
                            bx.min[k] as f64 <= v[k] - pad && v[k] + pad <= bx.max[k] as f64,
                            "body {i} at t={t}: vertex {v} ± {pad} not inside {bx:?}"
                        );
                    }
                }
            }
        }
        // The own boxes must also be tighter for most bodies, or they would not be worth it.
        let tighter = (0..bodies.len())
            .filter(|&i| bodies[i].has_own_box != 0 && boxes[i] != spheres[i])
            .count();
        assert!(tighter * 2 > bodies.iter().filter(|b| b.has_own_box != 0).count());
    }
    assert!(checked > 200, "{checked}");
}

#[test]
fn swept_box_of_a_fixed_body_is_its_sphere_box_and_overrides_replace_it() {
    let params = FrameParams::new([0.0, 0.0, -9.81], 0.0, 0.1, 0.0);
    let b = StageBody {
        position: [1.0, 2.0, 3.0],
        velocity: [5.0, 5.0, 5.0], // ignored: fixed bodies do not move
        bounding_radius: 0.5,
        motion: MOTION_FIXED,
        ..Default::default()
    };
    let boxes = swept_aabb(&params, &[b], &[]);
    for k in 0..3 {
        assert!((boxes[0].min[k] - (b.position[k] - 0.5)).abs() < 1e-5);
        assert!((boxes[0].max[k] - (b.position[k] + 0.5)).abs() < 1e-5);
    }
    let exact = StageAabb::new([0.0; 3], [1.0; 3], 99);
    let boxes = swept_aabb(
        &params,
        &[b],
        &[BoxOverride::new(0, exact), BoxOverride::new(7, exact)],
    );
    assert_eq!(boxes[0], StageAabb::new([0.0; 3], [1.0; 3], MOTION_FIXED));
}

#[test]
fn broad_phase_equals_brute_force_on_scenes() {
    for n in [0, 1, 2, 3, 10, 63, 64, 65, 255, 256, 257, 600, 3000] {
        let (bodies, params) = random_scene(n, 2 + n as u64);
        let boxes = swept_aabb(&params, &bodies, &[]);
        assert_eq!(broad_phase(&boxes), brute_force(&boxes), "n={n}");
    }
}

/// Tiny boxes far from the origin (columns of a centimetre at 10 km), dense clusters, and every
/// motion: the column rounding must never lose a pair.
#[test]
fn broad_phase_equals_brute_force_far_from_the_origin() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
    for (centre, spread, size) in [
        (1e4f32, 0.05f32, 4e-3f32),
        (-3e4, 5.0, 0.3),
        (0.0, 1e-3, 1e-4),
    ] {
        let boxes: Vec<StageAabb> = (0..2000)
            .map(|_| {
                let c = [0; 3].map(|_| centre + rng.random_range(-spread..spread));
                let h = [0; 3].map(|_| rng.random_range(0.0..size));
                StageAabb::new(
                    [0, 1, 2].map(|k| c[k] - h[k]),
                    [0, 1, 2].map(|k| c[k] + h[k]),
                    rng.random_range(0..3),
                )
            })
            .collect();
        let pairs = broad_phase(&boxes);
        assert_eq!(pairs, brute_force(&boxes), "centre {centre}");
        assert!(!pairs.is_empty(), "centre {centre}: no pairs to check");
    }
}

#[test]
fn broad_phase_sends_the_floor_to_the_large_list() {
    let (bodies, params) = random_scene(3000, 5);
    let boxes = swept_aabb(&params, &bodies, &[]);
    let (stats, sorted, _, small) = broad_phase_prepare(&boxes);
    assert!(small < boxes.len(), "the floor should be large: {stats:?}");
    assert!(sorted[small..].iter().any(|e| e[2] == 0));
    assert!(
        small > boxes.len() * 9 / 10,
        "few large boxes: {}",
        boxes.len() - small
    );
    let pairs = broad_phase(&boxes);
    assert!(
        pairs.iter().any(|p| p[0] == 0),
        "the floor touches the bottom layer"
    );
    assert!(
        pairs.len() > 300,
        "a scene with neighbours ({})",
        pairs.len()
    );
}

fn arb_box() -> impl Strategy<Value = StageAabb> {
    (
        prop::array::uniform3(-50.0f32..50.0),
        prop::array::uniform3(0.0f32..3.0),
        0u32..3,
        prop::bool::weighted(0.05),
    )
        .prop_map(|(c, h, motion, huge)| {
            let h = if huge { h.map(|x| 20.0 * x + 40.0) } else { h };
            StageAabb::new(
                [0, 1, 2].map(|k| c[k] - h[k]),
                [0, 1, 2].map(|k| c[k] + h[k]),
                motion,
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn broad_phase_equals_brute_force(boxes in prop::collection::vec(arb_box(), 0..400)) {
        prop_assert_eq!(broad_phase(&boxes), brute_force(&boxes));
    }
}

/// Checks both bounds of every pair against the f64 bounding-sphere truth.
fn check_bounds(bodies: &[StageBody], params: &FrameParams, pairs: &[[u32; 2]]) -> usize {
    let bounds = pair_bounds(params, bodies, pairs);
    let mut finite = 0;
    for pb in &bounds {
        let (a, b) = (&bodies[pb.a as usize], &bodies[pb.b as usize]);
        let d = sphere_distance(params, a, b, 0.0);
        assert!(pb.distance_bound as f64 <= d, "{pb:?}: exact {d}");
        assert!(pb.toi_bound >= 0.0);
        if pb.toi_bound != TOI_NONE {
            assert!(pb.toi_bound <= params.frame_period);
            if pb.toi_bound > 0.0 {
                finite += 1;
            }
        }
        // Sampled times before the bound: the spheres are still more than ε/2 apart.
        let end = (pb.toi_bound as f64).min(params.frame_period as f64);
        for k in (0..64).filter(|_| end > 0.0) {
            let t = end * k as f64 / 64.0;
            let d = sphere_distance(params, a, b, t);
            assert!(
                d >= 0.5 * params.epsilon as f64,
                "{pb:?}: {d} apart at t={t}"
            );
        }
        if let Some(t) = first_touch(params, a, b) {
            assert!(pb.toi_bound as f64 <= t, "{pb:?}: exact first touch {t}");
        }
    }
    finite
}

#[test]
fn pair_bounds_stay_below_exact_distances_on_scenes() {
    for offset in [0.0f32, 1000.0, -30000.0] {
        let (mut bodies, params) = random_scene(3000, 3);
        for b in &mut bodies {
            b.position[2] += offset;
        }
        let boxes = swept_aabb(&params, &bodies, &[]);
        let pairs = broad_phase(&boxes);
        check_bounds(&bodies, &params, &pairs);
    }
}

/// Head-on, grazing and accelerating pairs, many with a finite TOI bound inside a long frame.
#[test]
fn pair_bounds_stay_below_exact_on_approaching_pairs() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let params = FrameParams::new([0.0, 0.0, -9.81], 0.25, 0.5, 1e-3);
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    for p in 0..2000u32 {
        let base = [rng.random_range(-2000.0..2000.0f32), 0.0, 0.0];
        let ra = rng.random_range(0.01..1.0f32);
        let rb = rng.random_range(0.01..1.0f32);
        let gap = rng.random_range(0.0..3.0f32);
        let miss = rng.random_range(-1.0..1.0f32) * (ra + rb) * 1.1; // some graze, some miss
        let speed = rng.random_range(0.0..20.0f32);
        let motions = [MOTION_DYNAMIC, MOTION_FIXED, MOTION_KINEMATIC];
        let ma = motions[rng.random_range(0..3)];
        let mb = if ma == MOTION_FIXED {
            MOTION_DYNAMIC
        } else {
            motions[rng.random_range(0..3)]
        };
        bodies.push(StageBody {
            position: base,
            time: rng.random_range(0.0..0.25),
            velocity: [speed, 0.0, rng.random_range(-5.0..5.0)],
            bounding_radius: ra,
            motion: ma,
            ..Default::default()
        });
        bodies.push(StageBody {
            position: [base[0] + ra + rb + gap, miss, rng.random_range(-1.0..1.0)],
            time: 0.25,
            velocity: [
                -rng.random_range(0.0..5.0f32),
                0.0,
                rng.random_range(-5.0..5.0),
            ],
            bounding_radius: rb,
            motion: mb,
            ..Default::default()
        });
        pairs.push([2 * p, 2 * p + 1]);
    }
    let finite = check_bounds(&bodies, &params, &pairs);
    assert!(finite > 300, "finite TOI bounds exercised: {finite}");
}

#[test]
fn pair_bound_of_a_head_on_pair_is_tight() {
    // Two unit spheres 3 m apart closing at 2 m/s: contact (ε/2 = 0) at t = 0.5 s.
    let params = FrameParams::new([0.0; 3], 0.0, 1.0, 0.0);
    let a = StageBody {
        velocity: [1.0, 0.0, 0.0],
        bounding_radius: 1.0,
        motion: MOTION_KINEMATIC,
        ..Default::default()
    };
    let b = StageBody {
        position: [3.0, 0.0, 0.0],
        velocity: [-1.0, 0.0, 0.0],
        bounding_radius: 1.0,
        motion: MOTION_KINEMATIC,
        ..Default::default()
    };
    let pb = pair_bounds(&params, &[a, b], &[[0, 1]])[0];
    assert!(
        pb.distance_bound <= 1.0 && pb.distance_bound > 1.0 - 1e-5,
        "{pb:?}"
    );
    assert!(pb.toi_bound <= 0.5 && pb.toi_bound > 0.5 - 1e-5, "{pb:?}");
    // Receding: never.
    let a2 = StageBody {
        velocity: [-1.0, 0.0, 0.0],
        ..a
    };
    assert_eq!(
        pair_bounds(&params, &[a2, b], &[[0, 1]])[0].toi_bound,
        TOI_NONE
    );
    // Overlapping: now.
    let b2 = StageBody {
        position: [1.5, 0.0, 0.0],
        ..b
    };
    assert_eq!(pair_bounds(&params, &[a, b2], &[[0, 1]])[0].toi_bound, 0.0);
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let (bodies, params) = random_scene(5000, 6);
    let mut one = CpuStages::with_threads(1);
    let mut all = CpuStages::new();
    let o1 = one.frame(&bodies, &[], &params).unwrap();
    let o2 = all.frame(&bodies, &[], &params).unwrap();
    assert_eq!(o1, o2);
    assert!(!o1.bounds.is_empty());
}
