//! The impulse event log (`tumble run --events`): one record per impulse the world applies,
//! Mirtich's proposed picture of the forces (Mirtich 1996 §6) and an audit trail of every
//! collision response. Off by default; when off, nothing is computed or stored.

use super::World;
use glam::DVec3;

/// What applied an impulse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum EventKind {
    /// A collision: Mirtich & Canny §4's integration of the impulse (eq. 9), alone or as a
    /// row of a simultaneous impact set.
    Collision,
    /// A microcollision (§4.5): the approach slower than the microcollision speed reversed.
    Microcollision,
    /// A resting contact's impulse over a contact step (Bender & Schmitt 2006 §3.2).
    Resting,
    /// A held pair's local re-solve within a contact step.
    ReSolve,
    /// `method = "lcp"`: a contact's impulse over a time step, from the step's LCP (Stewart &
    /// Trinkle 1996, eq. 5).
    Lcp,
}

impl EventKind {
    /// The name in `events.csv`'s `kind` column.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Collision => "collision",
            EventKind::Microcollision => "microcollision",
            EventKind::Resting => "resting",
            EventKind::ReSolve => "re-solve",
            EventKind::Lcp => "lcp",
        }
    }
}

/// One impulse at one contact point: `+jn·n + jt` acts on body `a`, the opposite on `b`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ImpulseEvent {
    /// Simulated time (s).
    pub t: f64,
    /// What applied it.
    pub kind: EventKind,
    /// The bodies (world indices, scene order).
    pub a: u32,
    pub b: u32,
    /// Contact point (m, world).
    pub point: DVec3,
    /// Unit contact normal, from b towards a.
    pub normal: DVec3,
    /// Normal impulse on a (N·s, ≥ 0 for a pushing contact).
    pub jn: f64,
    /// Magnitude of the tangential (friction) impulse (N·s).
    pub jt: f64,
    /// Relative normal velocity of the contact point, a's against b's, just before and just
    /// after the impulse (m/s; negative: approaching). For a contact step's rows these span
    /// the whole solve; for a row of an impact set, the whole set's round.
    pub vn_before: f64,
    pub vn_after: f64,
}

impl World {
    /// Records every impulse from now on (see [`World::take_events`]). Island worlds inherit
    /// it through the settings.
    pub fn record_events(&mut self, on: bool) {
        self.stores.settings.record_events = on;
    }

    /// Moves the impulses recorded since the last call into `out` (appended), in time order;
    /// impulses at one instant are ordered by their pair, then as applied, so the log is the
    /// same whether a step ran as one event loop or on threads, one group of islands each.
    pub fn take_events(&mut self, out: &mut Vec<ImpulseEvent>) {
        self.stores
            .stats
            .event_log
            .sort_by(|x, y| x.t.total_cmp(&y.t).then((x.a, x.b).cmp(&(y.a, y.b))));
        out.append(&mut self.stores.stats.event_log);
        let stats = &mut self.stores.stats;
        stats.departed_taken = std::mem::take(&mut stats.departed);
    }
}
