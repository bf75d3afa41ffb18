//! The solver stages on the device against the host, call by call: a jammed island's collision
//! round (`collision_round/twin`, the f64 twin on one thread, against `collision_round/gpu`) at
//! 64 to 8 192 points, and a contact step's coloured sweeps on the device (`contact_sweep/gpu`,
//! 16 sweeps) at 256 to 65 536 patches of four points. GPU timings include the upload, every
//! dispatch and the readback, as the world pays them; a call's time at the smallest size is
//! its fixed cost. With the host's sweep cost a point (`rate sweep ns/point-sweep` of
//! `tumble bench` on the same machine) they give the sizes from which the device repays a call:
//! the world's `DEVICE_MIN_POINTS` and `DEVICE_MIN_ROWS`.
//!
//! `cargo bench --bench solver_stages`; `TUMBLE_ADAPTER=<substring>` picks the adapter.

#[path = "../tests/solver_scene/mod.rs"]
mod solver_scene;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use solver_scene::{random_round, random_step};
use std::time::Duration;
use tumble::gpu::GpuStages;
use tumble::stages::collision_round::{collision_round, CollisionRounds, RoundInput, RoundParams};
use tumble::stages::contact_sweep::{ContactSweeps, SweepInput};

fn solver_stages(c: &mut Criterion) {
    let mut gpu = match GpuStages::new() {
        Ok(g) => {
            eprintln!("gpu: {}", g.context().adapter_name());
            Some(g)
        }
        Err(e) => {
            eprintln!("no GPU benchmarks: {e}");
            None
        }
    };
    let mut group = c.benchmark_group("collision_round");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for pairs in [24, 200, 800, 3_200] {
        let (rows, pair_starts, starts, bodies) = random_round(7, pairs / 2 + 2, pairs);
        let input = RoundInput {
            params: RoundParams {
                tolerance: 1e-3,
                max_sweeps: 32,
                colours: (starts.len() - 1) as u32,
                pad: 0,
            },
            rows: &rows,
            pairs: &pair_starts,
            starts: &starts,
            bodies: &bodies,
        };
        group.throughput(Throughput::Elements(rows.len() as u64));
        group.bench_function(BenchmarkId::new("twin", rows.len()), |b| {
            b.iter(|| collision_round(&input))
        });
        if let Some(gpu) = gpu.as_mut() {
            group.bench_function(BenchmarkId::new("gpu", rows.len()), |b| {
                b.iter(|| gpu.collision_round(&input).unwrap())
            });
        }
    }
    group.finish();
    let Some(gpu) = gpu.as_mut() else { return };
    let mut group = c.benchmark_group("contact_sweep");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for patches in [256, 4_096, 65_536] {
        let (params, rows, patch_list, order, starts, moving, still) =
            random_step(11, patches / 3 + 2, patches);
        let input = SweepInput {
            params,
            rows: &rows,
            patches: &patch_list,
            order: &order,
            starts: &starts,
            moving: &moving,
            still: &still,
        };
        group.throughput(Throughput::Elements(rows.len() as u64 * 16));
        group.bench_function(BenchmarkId::new("gpu", rows.len()), |b| {
            b.iter(|| gpu.contact_sweeps(&input).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, solver_stages);
criterion_main!(benches);
