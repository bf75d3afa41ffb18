//! Frame-stage benchmarks: each stage on the CPU twin with 1 thread (`<stage>/cpu1`), on all
//! threads (`<stage>/cpu`) and on the GPU (`<stage>/gpu`, when an adapter exists), at 1 000,
//! 10 000 and 100 000 bodies of the shared random scene (`tests/stage_scene`), plus the whole
//! `frame`. GPU timings include the upload, the dispatches and the readback of each call, as the
//! world would pay them. Short measurements (2 s) keep the run to a few minutes.
//!
//! `cargo bench --bench stages`; `TUMBLE_ADAPTER=<substring>` picks the adapter.

#[path = "../tests/stage_scene/mod.rs"]
mod stage_scene;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use stage_scene::random_scene;
use std::time::Duration;
use tumble::gpu::GpuStages;
use tumble::stages::{broad_phase, swept_aabb, CpuStages, FrameStages};

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

fn stages(c: &mut Criterion) {
    let mut imps: Vec<(&str, Box<dyn FrameStages>)> = vec![
        ("cpu1", Box::new(CpuStages::with_threads(1))),
        ("cpu", Box::new(CpuStages::new())),
    ];
    match GpuStages::new() {
        Ok(g) => {
            eprintln!("gpu: {}", g.context().adapter_name());
            imps.push(("gpu", Box::new(g)));
        }
        Err(e) => eprintln!("no GPU benchmarks: {e}"),
    }
    for stage in ["swept_aabb", "broad_phase", "pair_bounds", "frame"] {
        let mut group = c.benchmark_group(stage);
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for n in SIZES {
            let (bodies, params) = random_scene(n, 42);
            let boxes = swept_aabb::swept_aabb(&params, &bodies, &[]);
            let pairs = broad_phase::broad_phase(&boxes);
            group.throughput(Throughput::Elements(n as u64));
            for (name, imp) in imps.iter_mut() {
                let id = BenchmarkId::new(*name, n);
                match stage {
                    "swept_aabb" => group.bench_function(id, |b| {
                        b.iter(|| imp.swept_aabb(&bodies, &[], &params).unwrap())
                    }),
                    "broad_phase" => group.bench_function(id, |b| {
                        b.iter(|| imp.broad_phase(&boxes, &params).unwrap())
                    }),
                    "pair_bounds" => group.bench_function(id, |b| {
                        b.iter(|| imp.pair_bounds(&bodies, &pairs, &params).unwrap())
                    }),
                    _ => group.bench_function(id, |b| {
                        b.iter(|| imp.frame(&bodies, &[], &params).unwrap())
                    }),
                };
            }
        }
        group.finish();
    }
}

criterion_group!(benches, stages);
criterion_main!(benches);
