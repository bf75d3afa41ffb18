//! `tumble batch` throughput on `scenes/stable-poses.toml` (Mirtich 1996 §2.4's experiment: the
//! L-shaped part dropped from random orientations until it rests):
//! - `batch/stable_poses_200`: 200 trials on rayon's pool (one thread per core);
//! - `batch/stable_poses_200_one_thread`: the same on one thread, for the scaling.
//!
//! `cargo bench --bench batch`. The full 2000 trials: `tumble batch scenes/stable-poses.toml`,
//! which reports the wall time and trials per second.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;
use std::time::Duration;
use tumble::batch::{self, BatchOptions, Shard};
use tumble::gpu::Backend;

fn stable_poses(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/stable-poses.toml");
    let scene = tumble::scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let options = BatchOptions {
        trials: Some(200),
        seed: None,
        shard: Shard::ALL,
        backend: Backend::Cpu,
        on_trial: None,
        partial: None,
    };
    let run = || {
        let run = batch::run(&scene, &options).unwrap_or_else(|e| panic!("{e}"));
        assert!(run.results.iter().all(|r| r.outcome.is_ok()));
        run.results.len()
    };
    let mut group = c.benchmark_group("batch");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("stable_poses_200", |b| b.iter(run));
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    group.bench_function("stable_poses_200_one_thread", |b| {
        b.iter(|| one.install(run))
    });
    group.finish();
}

criterion_group!(benches, stable_poses);
criterion_main!(benches);
