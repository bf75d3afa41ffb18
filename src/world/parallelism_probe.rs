//! The event loop's available parallelism, measured: built only with
//! `--features parallelism-probe` (docs/measurements.md, Parallel events inside one jam).
//!
//! For every processed event (a current heap entry), its wall time and the bodies whose clock
//! or version it changed: the popped pair, every body an impulse moved, every neighbour advanced
//! to be bounded. An event may start once every earlier event on one of its bodies has finished,
//! so each body's events keep their order, as in any conservative or rollback-free parallel
//! event loop. The total event time over that schedule's length, per half second of simulated
//! time, is printed to standard error: an upper bound on what parallel events could gain, with
//! unboundedly many cores and free synchronisation (reads of bodies already at the event's time
//! are not seen, which can only raise it).

use crate::body::Body;
use std::cell::RefCell;
use std::time::Instant;

/// One half second's schedule.
#[derive(Default)]
struct Probe {
    /// Each body's clock and version before the present event.
    before: Vec<(f64, u32)>,
    /// Per body, when its last event finishes in the schedule (s of event time).
    finish: Vec<f64>,
    /// Per body, the length of its chain of events (links).
    depth: Vec<u64>,
    makespan: f64,
    chain: u64,
    events: u64,
    cost: f64,
}

thread_local! {
    static PROBE: RefCell<Probe> = RefCell::new(Probe::default());
}

/// Records the bodies' clocks and versions before an event; returns its start.
pub(super) fn before_event(bodies: &[Body]) -> Instant {
    PROBE.with(|p| {
        let mut p = p.borrow_mut();
        p.before.clear();
        p.before.extend(bodies.iter().map(|b| (b.time, b.version)));
    });
    Instant::now()
}

/// Schedules the event of pair (a, b) that began at `started`.
pub(super) fn after_event(bodies: &[Body], a: usize, b: usize, started: Instant) {
    let cost = started.elapsed().as_secs_f64();
    PROBE.with(|p| {
        let mut p = p.borrow_mut();
        let p = &mut *p;
        if p.finish.len() < bodies.len() {
            p.finish.resize(bodies.len(), 0.0);
            p.depth.resize(bodies.len(), 0);
        }
        let changed = |i: usize| (bodies[i].time, bodies[i].version) != p.before[i];
        let touched: Vec<usize> = (0..bodies.len())
            .filter(|&i| i == a || i == b || changed(i))
            .collect();
        let start = touched.iter().map(|&i| p.finish[i]).fold(0.0, f64::max);
        let link = 1 + touched.iter().map(|&i| p.depth[i]).max().unwrap_or(0);
        for &i in &touched {
            p.finish[i] = start + cost;
            p.depth[i] = link;
        }
        p.makespan = p.makespan.max(start + cost);
        p.chain = p.chain.max(link);
        p.events += 1;
        p.cost += cost;
    });
}

/// Prints the half second from `from` (s) and starts the next one afresh.
pub(super) fn report(from: f64) {
    PROBE.with(|p| {
        let mut p = p.borrow_mut();
        if p.events > 0 {
            eprintln!(
                "parallelism {from:.1}-{:.1} s: {} events, {:.3} s of events in {:.3} s of \
                 schedule: {:.2}x; longest chain {} links",
                from + 0.5,
                p.events,
                p.cost,
                p.makespan,
                p.cost / p.makespan,
                p.chain
            );
        }
        // The next half second starts afresh (the bodies' snapshot is taken at each event).
        p.finish.clear();
        p.depth.clear();
        (p.makespan, p.chain, p.events, p.cost) = (0.0, 0, 0, 0.0);
    });
}
