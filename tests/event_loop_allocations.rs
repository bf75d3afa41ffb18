//! The event loop allocates nothing per event (issue 4: "no allocation in the event loop"),
//! checked by counting: this test binary installs the counting allocator `tumble bench` uses and
//! runs the bundled small funnel (50 cubes falling through it, jamming, draining and settling on
//! the ground) on one thread.
//!
//! The loop's buffers (each body's held pairs, a re-solve's ring, the solver's rows, the heap)
//! live in the world and are reused; they allocate only when a scene first needs them larger
//! than ever before. So after the first second the count may still rise now and then (measured:
//! 93 allocations over the 56 000 heap pops of the last three seconds, 1.7 per thousand), but an
//! allocation made by any one kind of event would show at its rate: re-solves are 14 per
//! thousand heap pops here, collisions 66.

use std::path::Path;
use tumble::event_loop_allocations::{self, Allocations, CountingAllocator};
use tumble::world::World;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Allocations per thousand heap pops above which an event, not a buffer's growth, allocates:
/// three times the growth measured, a fifth of the re-solves' rate.
const MOST_PER_THOUSAND_POPS: f64 = 5.0;

/// Steps `w` to `t` and returns the event loops' allocations so far and the heap pops.
fn run_to(w: &mut World, t: f64) -> (Allocations, u64) {
    while w.time() < t {
        w.step_frame(t).expect("the small funnel runs");
    }
    let allocations = event_loop_allocations::count().expect("the counter is installed");
    (allocations, w.counts().heap_pops)
}

#[test]
fn the_event_loop_allocates_only_to_grow_its_buffers() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/small-funnel.toml");
    let scene = tumble::scene::load(&path).expect("the bundled scene loads");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| {
        let before = event_loop_allocations::count().expect("the counter is installed");
        let mut w = World::new(&scene).expect("valid scene");
        // The first second: the cubes land in the funnel and jam, and the buffers grow. That
        // this is counted shows the counter sees the loop.
        let (grown, pops_grown) = run_to(&mut w, 1.0);
        let growing = grown.since(before);
        assert!(
            growing.count > 0,
            "no allocation counted while the buffers grew"
        );
        assert!(
            pops_grown > 1_000,
            "only {pops_grown} heap pops in the first second"
        );
        // The rest: the pile drains and settles, tens of thousands of events.
        let (end, pops_end) = run_to(&mut w, scene.world.duration);
        let pops = pops_end - pops_grown;
        assert!(
            pops > 10_000,
            "only {pops} heap pops after the first second"
        );
        let after = end.since(grown);
        let per_thousand = 1000.0 * after.count as f64 / pops as f64;
        assert!(
            per_thousand <= MOST_PER_THOUSAND_POPS,
            "the event loop allocated {} times ({} bytes) over {pops} heap pops: {per_thousand:.2} \
             per thousand",
            after.count,
            after.bytes
        );
    });
}
