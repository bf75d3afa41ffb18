//! Recording the impulses as the event loop and the contact steps apply them, into the run's
//! event log ([`super::event_log`]), when the run records them.

use super::event_log::{EventKind, ImpulseEvent};
use super::stores::Stores;
use crate::resting_contact::ContactImpulse;
use glam::DVec3;

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
