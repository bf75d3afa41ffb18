// The broad phase's bump counters (vello's bump.wgsl idea): the pair counter keeps counting past
// the capacity, so the host knows exactly how far to grow the pair buffer before re-running.
// Keep in sync with Bump in src/stages/mod.rs.

struct Bump {
    pairs: atomic<u32>,
    overflow: atomic<u32>,
    large: atomic<u32>,
    pad: u32,
}

// The same memory for stages that only read it (atomics need read_write storage).
struct BumpView {
    pairs: u32,
    overflow: u32,
    large: u32,
    pad: u32,
}
