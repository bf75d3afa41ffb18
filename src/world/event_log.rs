//! The impulse event log (`tumble run --events`): one record per impulse the world applies,
//! Mirtich's proposed picture of the forces (Mirtich 1996 §6) and an audit trail of every
//! collision response. Off by default; when off, nothing is computed or stored.

use super::stores::Stores;
use super::World;
use crate::resting_contact::ContactImpulse;
use glam::DVec3;

/// What applied an impulse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
#[derive(Clone, Copy, Debug, PartialEq)]
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
    }
}

impl Stores {
    /// The time of an impulse between a and b: the later of their clocks (a fixed body's
    /// clock is never advanced).
    fn impulse_time(&self, a: usize, b: usize) -> f64 {
        self.bodies[a].time.max(self.bodies[b].time)
    }

    /// Normal relative velocity at `point` along `normal`, a's against b's, now.
    fn normal_velocity(&self, a: usize, b: usize, point: DVec3, normal: DVec3) -> f64 {
        (self.bodies[a].point_velocity(point) - self.bodies[b].point_velocity(point)).dot(normal)
    }

    /// Records `impulse` (the vector on a) at `point`, once it has been applied; `vn_before`
    /// is the normal velocity before it.
    pub(super) fn log_impulse(
        &mut self,
        kind: EventKind,
        (a, b): (usize, usize),
        point: DVec3,
        normal: DVec3,
        impulse: DVec3,
        vn_before: f64,
    ) {
        if !self.settings.record_events {
            return;
        }
        let jn = impulse.dot(normal);
        self.push_event(
            kind,
            (a, b),
            point,
            normal,
            (jn, (impulse - jn * normal).length()),
            vn_before,
        );
    }

    /// Records an impulse given as its normal and tangential magnitudes `(jn, jt)`.
    pub(super) fn push_event(
        &mut self,
        kind: EventKind,
        (a, b): (usize, usize),
        point: DVec3,
        normal: DVec3,
        (jn, jt): (f64, f64),
        vn_before: f64,
    ) {
        if !self.settings.record_events {
            return;
        }
        let event = ImpulseEvent {
            t: self.impulse_time(a, b),
            kind,
            a: a as u32,
            b: b as u32,
            point,
            normal,
            jn,
            jt,
            vn_before,
            vn_after: self.normal_velocity(a, b, point, normal),
        };
        self.stats.event_log.push(event);
    }

    /// Normal velocity at `point` from velocities saved before a solve: `saved(i)` is body
    /// i's `(velocity, angular velocity)` then, `None` where it is its present one.
    pub(super) fn normal_velocity_saved(
        &self,
        saved: impl Fn(usize) -> Option<(DVec3, DVec3)>,
        (a, b): (usize, usize),
        point: DVec3,
        normal: DVec3,
    ) -> f64 {
        let velocity = |i: usize| {
            let body = &self.bodies[i];
            let (v, w) = saved(i).unwrap_or((body.velocity, body.angular_velocity));
            v + w.cross(point - body.position)
        };
        (velocity(a) - velocity(b)).dot(normal)
    }

    /// Records a solve's contact impulses; `saved` as for [`Self::normal_velocity_saved`].
    pub(super) fn log_contact_impulses(
        &mut self,
        kind: EventKind,
        impulses: &[ContactImpulse],
        saved: impl Fn(usize) -> Option<(DVec3, DVec3)>,
    ) {
        for c in impulses {
            let pair = (c.a, c.b);
            let vn_before = self.normal_velocity_saved(&saved, pair, c.point, c.normal);
            let j = (c.normal_impulse, c.tangent_impulse);
            self.push_event(kind, pair, c.point, c.normal, j, vn_before);
        }
    }
}
