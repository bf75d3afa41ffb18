//! GPU stages vs their CPU twins (vello's `compare_gpu_cpu` idea), on random scenes of 1, 2, 63, 64,
//! 65 and 10 000 bodies (around the 64-thread workgroup size, and a realistic size):
//!
//! * pair sets identical after sorting;
//! * numbers equal within a stated tolerance — boxes within 4 × 2⁻²⁰ of their magnitude (the GPU
//!   may fuse multiply-adds and WGSL allows 2.5 ulp division), bounds within 4 × 2⁻²⁰ of their
//!   magnitudes;
//! * GPU bounds never above the exact f64 values (bounding-sphere distances and first-touch times,
//!   and parry3d cuboid distances for a cuboid subset);
//! * broad-phase overflow: a pair capacity of 1 with every box overlapping still returns all pairs.
//!
//! Runs on any adapter, Mesa's lavapipe included. With no adapter it prints
//! "SKIPPED: no GPU adapter" and passes, unless CI=true, where it fails.

#[path = "stages_reference.rs"]
mod reference;
#[path = "stage_scene/mod.rs"]
mod stage_scene;

use glam::DVec3;
use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::shape::Cuboid;
use reference::{centre_at, first_touch, orientation_at, sphere_distance, v64};
use stage_scene::random_scene;
use std::sync::{Mutex, OnceLock};
use tumble::gpu::GpuStages;
use tumble::stages::{
    broad_phase, pair_bounds, swept_aabb, BoxOverride, CpuStages, FrameParams, FrameStages,
    PairBound, StageAabb, StageBody, MOTION_DYNAMIC, ROUND_REL, TOI_NONE,
};

const SIZES: [usize; 6] = [1, 2, 63, 64, 65, 10_000];

/// One device for the whole test binary (tests take turns on it).
fn gpu() -> Option<std::sync::MutexGuard<'static, GpuStages>> {
    static GPU: OnceLock<Option<Mutex<GpuStages>>> = OnceLock::new();
    let slot = GPU.get_or_init(|| match GpuStages::new() {
        Ok(g) => {
            eprintln!("adapter: {}", g.context().adapter_name());
            Some(Mutex::new(g))
        }
        Err(e) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("CI=true but no GPU adapter: {e}");
            }
            None
        }
    });
    match slot {
        Some(m) => Some(m.lock().unwrap_or_else(|p| p.into_inner())),
        None => {
            println!("SKIPPED: no GPU adapter");
            None
        }
    }
}

fn close(a: f32, b: f32, magnitude: f32) -> bool {
    (a - b).abs() <= 4.0 * ROUND_REL * (1.0 + magnitude.abs())
}

fn floor_override(bodies: &[StageBody]) -> Vec<BoxOverride> {
    // Body 0 of a random scene (n >= 8) is the fixed floor: give it an exact thin slab.
    if bodies.len() < 8 {
        return Vec::new();
    }
    let b = &bodies[0];
    let r = b.bounding_radius;
    let top = b.position[2] + r;
    vec![BoxOverride::new(
        0,
        StageAabb::new(
            [b.position[0] - r, b.position[1] - r, top - 1.0],
            [b.position[0] + r, b.position[1] + r, top],
            0,
        ),
    )]
}

fn assert_boxes_close(gpu: &[StageAabb], cpu: &[StageAabb], n: usize) {
    assert_eq!(gpu.len(), cpu.len());
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        assert_eq!(g.motion, c.motion, "n={n} box {i}");
        for k in 0..3 {
            assert!(
                close(g.min[k], c.min[k], c.min[k]),
                "n={n} box {i}: {g:?} vs {c:?}"
            );
            assert!(
                close(g.max[k], c.max[k], c.max[k]),
                "n={n} box {i}: {g:?} vs {c:?}"
            );
        }
    }
}

/// Same pairs; distances within tolerance; TOIs within tolerance, except that a TOI near the
/// frame end may be "none" on one side (the root is ill-conditioned there).
fn assert_bounds_close(
    gpu: &[PairBound],
    cpu: &[PairBound],
    bodies: &[StageBody],
    params: &FrameParams,
) {
    assert_eq!(gpu.len(), cpu.len());
    let period = params.frame_period;
    for (g, c) in gpu.iter().zip(cpu) {
        assert_eq!((g.a, g.b), (c.a, c.b));
        let (ba, bb) = (&bodies[g.a as usize], &bodies[g.b as usize]);
        let mag = glam::Vec3::from(ba.position).length()
            + glam::Vec3::from(bb.position).length()
            + ba.bounding_radius
            + bb.bounding_radius;
        assert!(
            close(g.distance_bound, c.distance_bound, mag),
            "{g:?} vs {c:?}"
        );
        match (g.toi_bound == TOI_NONE, c.toi_bound == TOI_NONE) {
            (false, false) => assert!(
                (g.toi_bound - c.toi_bound).abs() <= 1e-4 * period,
                "{g:?} vs {c:?}"
            ),
            (true, false) => assert!(c.toi_bound >= 0.999 * period, "{g:?} vs {c:?}"),
            (false, true) => assert!(g.toi_bound >= 0.999 * period, "{g:?} vs {c:?}"),
            (true, true) => {}
        }
    }
}

/// Bounds never above the exact f64 bounding-sphere values.
fn assert_conservative(
    bounds: &[PairBound],
    bodies: &[StageBody],
    params: &FrameParams,
    limit: usize,
) {
    for pb in bounds.iter().take(limit) {
        let (a, b) = (&bodies[pb.a as usize], &bodies[pb.b as usize]);
        let d = sphere_distance(params, a, b, 0.0);
        assert!(pb.distance_bound as f64 <= d, "{pb:?}: exact distance {d}");
        // (None: the spheres never come within ε/2, and any bound is below "never".)
        if let Some(t) = first_touch(params, a, b) {
            assert!(pb.toi_bound as f64 <= t, "{pb:?}: exact first touch {t}");
        }
    }
}

fn brute_force(boxes: &[StageAabb]) -> Vec<[u32; 2]> {
    let mut out = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            let fixed = boxes[i].motion == 1 && boxes[j].motion == 1;
            if !fixed && boxes[i].overlaps(&boxes[j]) {
                out.push([i as u32, j as u32]);
            }
        }
    }
    out
}

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn swept_aabb_matches_twin_and_contains_the_motion() {
    let Some(mut gpu) = gpu() else { return };
    for n in SIZES {
        let (bodies, params) = random_scene(n, 100 + n as u64);
        let overrides = floor_override(&bodies);
        let cpu = swept_aabb::swept_aabb(&params, &bodies, &overrides);
        let g = gpu.swept_aabb(&bodies, &overrides, &params).unwrap();
        assert_boxes_close(&g, &cpu, n);
        let skip = overrides.len(); // the host's floor box is the host's business
        for (i, (bx, b)) in g.iter().zip(&bodies).enumerate().skip(skip) {
            // Without an own box: the sphere around the centre; with one: at least the own box
            // carried along the path (the rotation's growth is checked in tests/stages_cpu.rs).
            let (lo, hi) = if b.has_own_box != 0 {
                (v64(b.own_min), v64(b.own_max))
            } else {
                let r = b.bounding_radius as f64;
                (DVec3::splat(-r), DVec3::splat(r))
            };
            let pad = 0.5 * params.epsilon as f64;
            for k in 0..=16 {
                let t = params.frame_period as f64 * k as f64 / 16.0;
                let c = centre_at(&params, b, t);
                for axis in 0..3 {
                    assert!(
                        (bx.min[axis] as f64) <= c[axis] + lo[axis] - pad
                            && c[axis] + hi[axis] + pad <= bx.max[axis] as f64,
                        "n={n} body {i} t={t}: centre {c} + [{lo}, {hi}] not inside {bx:?}"
                    );
                }
            }
        }
    }
}

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn broad_phase_matches_twin_and_brute_force() {
    let Some(mut gpu) = gpu() else { return };
    for n in SIZES {
        let (bodies, params) = random_scene(n, 200 + n as u64);
        let overrides = floor_override(&bodies);
        let boxes = swept_aabb::swept_aabb(&params, &bodies, &overrides);
        let cpu = broad_phase::broad_phase(&boxes);
        let g = gpu.broad_phase(&boxes, &params).unwrap();
        assert_eq!(g, cpu, "n={n}");
        assert_eq!(cpu, brute_force(&boxes), "n={n}");
        // And without the floor override: the floor's big box goes through the large list.
        let boxes = swept_aabb::swept_aabb(&params, &bodies, &[]);
        let g = gpu.broad_phase(&boxes, &params).unwrap();
        assert_eq!(g, brute_force(&boxes), "n={n} (no override)");
    }
}

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn broad_phase_never_drops_a_pair_on_overflow() {
    let Some(mut gpu) = gpu() else { return };
    let n = 120;
    let (mut bodies, params) = random_scene(n, 7);
    for b in &mut bodies {
        b.motion = MOTION_DYNAMIC;
        b.position = [
            0.01 * b.position[0],
            0.01 * b.position[1],
            0.01 * b.position[2],
        ];
    }
    let boxes = swept_aabb::swept_aabb(&params, &bodies, &[]);
    let all = n * (n - 1) / 2;
    assert_eq!(brute_force(&boxes).len(), all);
    gpu.set_pair_capacity(1).unwrap();
    let before = gpu.overflow_reruns();
    let pairs = gpu.broad_phase(&boxes, &params).unwrap();
    assert_eq!(pairs, brute_force(&boxes));
    assert!(gpu.overflow_reruns() > before);
    gpu.set_pair_capacity(1).unwrap();
    let before = gpu.overflow_reruns();
    let out = gpu.frame(&bodies, &[], &params).unwrap();
    assert_eq!(out.bounds.len(), all);
    assert!(gpu.overflow_reruns() > before);
    let pairs: Vec<[u32; 2]> = out.bounds.iter().map(|p| [p.a, p.b]).collect();
    assert_eq!(pairs, broad_phase::broad_phase(&out.boxes));
}

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn pair_bounds_match_twin_and_stay_below_exact() {
    let Some(mut gpu) = gpu() else { return };
    for n in SIZES {
        for offset in [0.0f32, 1000.0] {
            let (mut bodies, params) = random_scene(n, 300 + n as u64);
            for b in &mut bodies {
                b.position[0] += offset;
            }
            let boxes = swept_aabb::swept_aabb(&params, &bodies, &floor_override(&bodies));
            let pairs = broad_phase::broad_phase(&boxes);
            let cpu = pair_bounds::pair_bounds(&params, &bodies, &pairs);
            let g = gpu.pair_bounds(&bodies, &pairs, &params).unwrap();
            assert_bounds_close(&g, &cpu, &bodies, &params);
            assert_conservative(&g, &bodies, &params, 20_000);
            assert_conservative(&cpu, &bodies, &params, 20_000);
        }
    }
}

/// Pairs of cuboids aimed roughly at each other: the bounds must stay below parry3d's exact
/// cuboid–cuboid distance, now and at sampled times before the TOI bound.
#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn pair_bounds_stay_below_cuboid_distances() {
    let Some(mut gpu) = gpu() else { return };
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let params = FrameParams::new([0.0, 0.0, -9.81], 0.0, 0.25, 1e-3);
    let mut bodies = Vec::new();
    let mut halves = Vec::new();
    let mut pairs = Vec::new();
    for p in 0..300u32 {
        for side in [-1.0f32, 1.0] {
            let h = [0; 3].map(|_| rng.random_range(0.05..0.5f32));
            let r = (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]).sqrt();
            let q = glam::Vec4::from([0; 4].map(|_| rng.random_range(-1.0..1.0f32))).normalize();
            let gap = rng.random_range(0.0..2.0f32);
            bodies.push(StageBody {
                position: [
                    side * (0.6 + gap),
                    10.0 * p as f32,
                    rng.random_range(-0.2..0.2),
                ],
                time: 0.0,
                orientation: q.into(),
                velocity: [
                    -side * rng.random_range(0.0..8.0f32),
                    rng.random_range(-1.0..1.0),
                    0.0,
                ],
                bounding_radius: r,
                angular_velocity: [0; 3].map(|_| rng.random_range(-6.0..6.0f32)),
                rotation_radius: r,
                inv_inertia: [1.0; 3],
                motion: if rng.random_range(0..4) == 0 { 1 } else { 0 },
                ..Default::default()
            });
            halves.push(h);
        }
        pairs.push([2 * p, 2 * p + 1]);
    }
    let bounds = gpu.pair_bounds(&bodies, &pairs, &params).unwrap();
    let cuboid = |i: usize| {
        Cuboid::new(Vector::new(
            halves[i][0] as f64,
            halves[i][1] as f64,
            halves[i][2] as f64,
        ))
    };
    let pose = |i: usize, t: f64| {
        let c: DVec3 = centre_at(&params, &bodies[i], t);
        Pose::from_parts(c, orientation_at(&params, &bodies[i], t))
    };
    let mut approaching = 0;
    for pb in &bounds {
        let (a, b) = (pb.a as usize, pb.b as usize);
        let d = parry3d_f64::query::distance(&pose(a, 0.0), &cuboid(a), &pose(b, 0.0), &cuboid(b))
            .unwrap()
            .distance;
        assert!(
            pb.distance_bound as f64 <= d + 1e-9,
            "{pb:?}: cuboid distance {d}"
        );
        if pb.toi_bound < params.frame_period {
            approaching += 1;
        }
        let end = (pb.toi_bound as f64).min(params.frame_period as f64);
        for k in (0..32).filter(|_| end > 0.0) {
            let t = end * k as f64 / 32.0;
            let d = parry3d_f64::query::distance(&pose(a, t), &cuboid(a), &pose(b, t), &cuboid(b))
                .unwrap()
                .distance;
            assert!(
                d >= 0.5 * params.epsilon as f64 - 1e-9,
                "{pb:?}: cuboids {d} apart at t={t}"
            );
        }
    }
    assert!(
        approaching > 50,
        "the scene should exercise finite TOI bounds ({approaching})"
    );
}

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn frame_matches_twins() {
    let Some(mut gpu) = gpu() else { return };
    let mut cpu_stages = CpuStages::new();
    for n in SIZES {
        let (bodies, params) = random_scene(n, 400 + n as u64);
        let overrides = floor_override(&bodies);
        let out = gpu.frame(&bodies, &overrides, &params).unwrap();
        let cpu = cpu_stages.frame(&bodies, &overrides, &params).unwrap();
        assert_boxes_close(&out.boxes, &cpu.boxes, n);
        // Pairs exactly those of the GPU's own boxes (a box an ulp away could flip a touching pair).
        let pairs: Vec<[u32; 2]> = out.bounds.iter().map(|p| [p.a, p.b]).collect();
        assert_eq!(pairs, broad_phase::broad_phase(&out.boxes), "n={n}");
        let twin = pair_bounds::pair_bounds(&params, &bodies, &pairs);
        assert_bounds_close(&out.bounds, &twin, &bodies, &params);
        assert_conservative(&out.bounds, &bodies, &params, 5_000);
    }
}

/// 100 000 bodies: the bitonic sort runs all its global steps (2¹⁷ slots); the twin (checked
/// against brute force at smaller sizes) is the reference.
#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn broad_phase_and_frame_match_twin_at_100k() {
    let Some(mut gpu) = gpu() else { return };
    let (bodies, params) = random_scene(100_000, 500);
    let boxes = swept_aabb::swept_aabb(&params, &bodies, &[]);
    let cpu = broad_phase::broad_phase(&boxes);
    assert_eq!(gpu.broad_phase(&boxes, &params).unwrap(), cpu);
    let out = gpu
        .frame(&bodies, &floor_override(&bodies), &params)
        .unwrap();
    let pairs: Vec<[u32; 2]> = out.bounds.iter().map(|p| [p.a, p.b]).collect();
    assert_eq!(pairs, broad_phase::broad_phase(&out.boxes));
}
