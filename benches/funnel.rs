//! Whole-world benchmarks on the funnel scenes (the issue "Thousands of cubes through a funnel"),
//! the same scene files `tumble bench` runs:
//! - `funnel/world_new`: `World::new` for `scenes/funnel.toml` (1000 cubes): mass properties,
//!   colliders and the initial overlap check, i.e. the time to first frame;
//! - `funnel/step_0.1s`: 0.1 s of simulated time of `scenes/small-funnel.toml` from t = 1.0 s,
//!   when the cubes are piling into the funnel. `World` is not `Clone`, so each iteration's
//!   setup builds the world and simulates the first second again (not timed).
//!
//! `cargo bench --bench funnel`. Ten samples and short measurement times keep the run to about
//! a minute; `tumble bench` is the tool for full-length runs.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::path::Path;
use std::time::Duration;
use tumble::scene::Scene;
use tumble::world::World;

/// Simulated time the stepping benchmark starts from (s).
const START: f64 = 1.0;
/// Simulated time the stepping benchmark measures (s).
const SLICE: f64 = 0.1;

fn scene(file: &str) -> Scene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(file);
    match tumble::bench::load(&path) {
        Ok(bench) => bench.scene,
        Err(e) => panic!("{e}"),
    }
}

/// Steps `world` to `until`, frame by frame, as `tumble bench` does.
fn simulate(world: &mut World, until: f64) {
    while world.time() < until {
        if let Err(e) = world.step_frame(until) {
            panic!("simulation failed at t = {} s: {e}", world.time());
        }
    }
}

fn funnel(c: &mut Criterion) {
    let mut group = c.benchmark_group("funnel");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));

    let big = scene("funnel.toml");
    group.bench_function("world_new", |b| {
        b.iter(|| World::new(&big).expect("funnel.toml builds"))
    });

    let small = scene("small-funnel.toml");
    group.bench_function("step_0.1s", |b| {
        b.iter_batched(
            || {
                let mut world = World::new(&small).expect("small-funnel.toml builds");
                simulate(&mut world, START);
                world
            },
            |mut world| {
                simulate(&mut world, START + SLICE);
                world
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, funnel);
criterion_main!(benches);
