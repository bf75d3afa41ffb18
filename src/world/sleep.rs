//! Sleeping and waking (Mirtich 1996 §4.2): a supported body at rest for a while sleeps; an
//! impact faster than a microcollision train wakes it and every sleeper resting on it.

use super::stores::Stores;
use super::Scratch;
use crate::body::{Body, Motion};
use glam::DVec3;

impl Stores {
    /// Puts to sleep, at the end of a frame, every awake dynamic body that has stayed within
    /// `rest_distance` of its rest anchor for `sleep_time` while a fixed or sleeping support
    /// held it up (Mirtich 1996, §4.2: the rule needs contact, low speed over a time window and
    /// a support, so nothing freezes in mid-air).
    pub(super) fn sleep_resting_bodies(&mut self, t: f64) {
        if self.settings.sleep_time <= 0.0 {
            return;
        }
        let joints = &self.joints;
        let free =
            |(i, b): &(usize, &mut Body)| b.is_awake_dynamic() && joints.articulation(*i).is_none();
        // Jointed bodies never sleep: their joints' impulses act at every step.
        for (_, b) in self.bodies.iter_mut().enumerate().filter(free) {
            let (x0, q0, since) = b.rest_anchor;
            let turned = q0.angle_between(b.orientation) * b.bounding_radius;
            if (b.position - x0).length() > self.settings.rest_distance
                || turned > self.settings.rest_distance
            {
                b.rest_anchor = (b.position, b.orientation, t);
            } else if t - since >= self.settings.sleep_time
                && t - b.supported_at <= self.settings.sleep_time
            {
                b.sleep();
                self.stats.counts.sleeps += 1;
            }
        }
    }

    /// Wakes sleeping body `i` at time `t`, and every sleeping body resting on it, transitively
    /// upwards (a body left asleep above a woken support would hang in mid-air). Woken bodies get
    /// new boxes and bounds for their pairs ([`Self::rebound_bodies`]).
    pub(super) fn wake_up(&mut self, i: usize, t: f64, s: &mut Scratch) {
        let up = -self.settings.gravity.normalize_or_zero();
        let stack = &mut s.wake_stack;
        stack.clear();
        stack.push(i);
        let woken = &mut s.woken;
        woken.clear();
        let cand = &mut s.rebound.candidates;
        while let Some(k) = stack.pop() {
            if !self.bodies[k].asleep {
                continue;
            }
            self.bodies[k].advance_to(t, self.settings.gravity);
            self.bodies[k].wake(t);
            self.stats.counts.wakes += 1;
            woken.push(k);
            let bx = self.pairs.boxes[k];
            self.pairs.grid.query(k, &bx, &self.pairs.boxes, cand);
            let height = self.bodies[k].position.dot(up);
            for &j in cand.iter() {
                let j = j as usize;
                if self.bodies[j].asleep && self.bodies[j].position.dot(up) > height {
                    stack.push(j);
                }
            }
        }
        // New boxes and bounds for the woken bodies, each pair of two woken bodies once.
        woken.sort_unstable();
        self.rebound_bodies(woken, t, &mut s.rebound);
    }

    /// Records that the contact impulse along `n` (from b to a) held a up from b, or b from a.
    pub(super) fn note_support(&mut self, a: usize, b: usize, n: DVec3) {
        let up = -self.settings.gravity.normalize_or_zero();
        let holds = |w: &Body| w.motion == Motion::Fixed || w.asleep;
        if self.bodies[a].is_awake_dynamic() && holds(&self.bodies[b]) && n.dot(up) > 0.5 {
            self.bodies[a].supported_at = self.bodies[a].time;
        }
        if self.bodies[b].is_awake_dynamic() && holds(&self.bodies[a]) && -n.dot(up) > 0.5 {
            self.bodies[b].supported_at = self.bodies[b].time;
        }
    }
}
