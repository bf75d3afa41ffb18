//! `tumble bench`: runs a scene without writing frames and reports speed and quality.
//!
//! One run is `World::new` (timed separately as the time to first frame) followed by the frames
//! up to the duration, taken by [`Simulation::run`](crate::simulation::Simulation::run) as
//! `tumble run` takes them; nothing else is timed, so the figures are the simulator's own cost. A bench repeats the run, reports each one
//! and the medians of the timing figures, and checks that the repeats agree on the counters (the
//! event loop is meant to be deterministic, so a disagreement is itself a finding).
//!
//! Quality figures, measured at the end of each run:
//! - the largest penetration the world saw
//!   ([`World::max_penetration`](crate::world::World::max_penetration));
//! - **escaped** bodies: dynamic bodies whose centre is inside a fixed body (a wall or the floor,
//!   by the narrow phase) or below the top of the floor by more than their bounding radius while
//!   over the floor's footprint (fell through). The floor is the fixed body whose box reaches
//!   lowest;
//! - bodies that **fell off the floor's edge**: below its top by more than their radius but
//!   outside its footprint (a bounded floor has edges; leaving over one is not a missed contact);
//! - bodies **through the outlet**, when the scene has a `[bench]` table with `outlet_z`: dynamic
//!   bodies whose centre is below that height (the funnel scenes' figure of merit).
//!
//! Where the time goes over simulated time: each run records a row at every frame's end
//! ([`timeline`]); the report sums them per simulated second, and `--timeline FILE` writes the
//! first run's rows as CSV.
//!
//! # `[bench]` in scene files
//! The scene parser ([`crate::scene`]) rejects unknown top-level keys, and `[bench]` is not one of
//! its own, so [`parse`] takes it out first: when the file has a `bench` key the document is
//! re-serialised without it and that text is parsed. Line numbers in the errors of such a file
//! then refer to the re-serialised text; files without `[bench]` are parsed as written.
//!
//! # Where it lives
//! - `bench_table`: a scene file with its `[bench]` table ([`load`], [`parse`]);
//! - `run`: the options, the repeated runs and what can fail ([`run()`]);
//! - `quality`: the quality figures and the escape test ([`quality()`], [`EscapeCheck`]);
//! - `rates`: per-event and per-body rates of a run's counters ([`Rates`]);
//! - `cost`: the wall time and each stage's per contact point-step ([`PerContactPointStep`]);
//! - `report`: the run and bench reports (the JSON report) and the medians over the runs;
//! - `table`: the report as the tables `tumble bench` prints;
//! - `memory`: the process's peak resident memory;
//! - [`timeline`]: where the wall time goes over simulated time.

mod bench_table;
mod cost;
mod memory;
mod quality;
mod rates;
mod report;
mod run;
mod table;
pub mod timeline;

#[cfg(test)]
mod tests;

pub use bench_table::{load, parse, BenchScene};
pub use cost::PerContactPointStep;
pub use memory::peak_memory_mib;
pub use quality::{quality, EscapeCheck, OverlapPlace, Quality};
pub use rates::Rates;
pub use report::{BenchReport, RunReport};
pub use run::{run, BenchError, BenchOptions};
pub use timeline::{FrameRow, SecondRow, Timeline};
