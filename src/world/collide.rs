//! A popped pair's event: the proximity query, the collision response (Mirtich & Canny 1994 §4:
//! frictional impulses, microcollisions, several points at once) and the re-bounding of every
//! pair whose bodies an impulse changed.

use super::counts::GeometryFailure;
use super::stores::Stores;
use super::RestingContactMode;
use super::Scratch;
use super::{EventKind, SimError};
use crate::body::{Body, Motion, SavedVelocity};
use crate::collision_impulse::{
    collision_frame, collision_impulse, collision_matrix, ContactLaw, ImpulseKind,
};
use crate::event_heap::BoundKind;
use crate::geometry_guard::guarded;
use crate::narrow_phase::{proximity, ContactPoint};
use glam::{DMat3, DVec3};

/// One point of a simultaneous microcollision.
#[derive(Clone, Copy)]
pub(super) struct MicroRow {
    point: ContactPoint,
    /// The relative velocity the point is to reach (its approach reversed).
    target: DVec3,
    /// The inverse of the point's collision matrix.
    k_inv: DMat3,
    /// The impulse accumulated on a so far.
    impulse: DVec3,
}

/// Normal relative velocity of bodies a and b at contact point `p` (negative: approaching).
pub(super) fn normal_speed(bodies: &[Body], a: usize, b: usize, p: &ContactPoint) -> f64 {
    let u = bodies[a].point_velocity(p.position) - bodies[b].point_velocity(p.position);
    u.dot(p.normal)
}

/// Proximity of two bodies at their current poses ([`proximity`] on their colliders), or the
/// failure of the geometry library on them (`out` then empty).
pub(super) fn body_proximity(
    a: &Body,
    b: &Body,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> Result<f64, GeometryFailure> {
    guarded(|| proximity(&a.collider, &a.pose(), &b.collider, &b.pose(), margin, out)).map_err(
        |message| {
            out.clear();
            GeometryFailure::new(a, b, message)
        },
    )
}

/// The buffers of a re-bounding after an impulse ([`Stores::rebound_after_change`]).
#[derive(Default)]
pub(super) struct Rebound {
    /// The bodies whose trajectories changed (ascending).
    pub(super) changed: Vec<usize>,
    /// Grid query results.
    pub(super) candidates: Vec<u32>,
}

/// The buffers of one pair's collision response ([`super::collide`]).
#[derive(Default)]
pub(super) struct Response {
    /// Rows of `Stores::simultaneous_microcollision`.
    pub(super) micro_rows: Vec<super::collide::MicroRow>,
    /// Velocities saved while finding an articulated collision matrix.
    pub(super) joint_saved: Vec<SavedVelocity>,
}

impl Stores {
    /// Handles a popped, current entry of kind `kind`: both bodies are at `t`.
    pub(super) fn process_pair(
        &mut self,
        a: usize,
        b: usize,
        t: f64,
        kind: BoundKind,
        s: &mut Scratch,
    ) -> Result<(), SimError> {
        let d = self.measure(a, b, &mut s.points);
        let eps = self.band(a, b);
        if d <= eps && (self.bodies[a].asleep || self.bodies[b].asleep) {
            // An impact faster than a microcollision train wakes the sleeper (§4.2).
            let approach = s
                .points
                .iter()
                .filter(|p| p.separation <= eps)
                .map(|p| -self.normal_speed(a, b, p))
                .fold(0.0, f64::max);
            // A kinematic body pushes on however slowly: neither side would yield to it.
            let pushed = (self.bodies[a].motion == Motion::Kinematic
                || self.bodies[b].motion == Motion::Kinematic)
                && approach > 1e-12;
            if approach > self.settings.wake_speed || pushed {
                for i in [a, b] {
                    if self.bodies[i].asleep {
                        self.wake_up(i, t, s);
                    }
                }
            }
        }
        if d <= eps && self.settings.resting_mode == RestingContactMode::Constraints {
            let crossing = kind == BoundKind::Crossing;
            // Entering the band slower than an impact: handled when the gap is half the band, an
            // instant of the trajectories, not of the bound's history (`band_crossing`). An
            // impact's impulse depends on the velocities alone; a resting solve also on the gap.
            if !crossing && eps >= self.settings.epsilon && !self.is_impact(a, b, eps, &s.points) {
                if let Some(tc) = self.band_crossing(a, b, d, 0.5 * eps, t, s) {
                    self.stats.counts.band_crossings += 1;
                    self.push(a, b, tc, BoundKind::Crossing);
                    return Ok(());
                }
            }
            if self.resolve_held(a, b, t, crossing, s) {
                for i in [a, b] {
                    if !self.bodies[i].is_finite() {
                        return Err(self.non_finite(i, t));
                    }
                }
            } else {
                self.push_fine(a, b, d, t, &s.points);
            }
            return Ok(());
        }
        if d <= eps && self.is_impact(a, b, eps, &s.points) {
            // An impact, with every other at this instant that shares its bodies.
            let moved = &mut s.impact_moved;
            moved.clear();
            let (set, response) = (&mut s.impacts, &mut s.response);
            self.resolve_impacts((a, b), t, moved, set, &mut s.points, response);
            if let Some(&i) = moved.iter().find(|&&i| !self.bodies[i].is_finite()) {
                return Err(self.non_finite(i, t));
            }
            self.rebound_after_change(a, b, t, moved, &mut s.points, &mut s.rebound);
        } else if d <= eps && self.resolve_contacts(a, b, eps, &mut s.points, &mut s.response) {
            for i in [a, b] {
                if !self.bodies[i].is_finite() {
                    return Err(self.non_finite(i, t));
                }
            }
            self.rebound_after_change(a, b, t, &[], &mut s.points, &mut s.rebound);
        } else {
            self.push_fine(a, b, d, t, &s.points);
        }
        Ok(())
    }

    /// Normal relative velocity of the contact point (negative: approaching).
    pub(super) fn normal_speed(&self, a: usize, b: usize, p: &ContactPoint) -> f64 {
        normal_speed(&self.bodies, a, b, p)
    }

    /// Applies collision impulses at the approaching contact points of `s.points`, until none
    /// approaches. Returns true if any impulse was applied.
    ///
    /// When several manifold points approach at once (a face or an edge landing or resting), the
    /// first impulse acts at their centroid with their mean normal: the resultant of a pressure
    /// spread over the face. Taking the corners one by one instead couples each corner's normal
    /// and tangential motion through the rotation terms of `M`, so the velocity-reversing
    /// microcollision impulse leaves the friction cone and a block on a slope creeps. Any point
    /// still approaching afterwards is then resolved on its own, most approaching first.
    pub(super) fn resolve_contacts(
        &mut self,
        a: usize,
        b: usize,
        eps: f64,
        points: &mut Vec<ContactPoint>,
        s: &mut Response,
    ) -> bool {
        let material = self
            .settings
            .materials
            .pair(self.bodies[a].material, self.bodies[b].material);
        let law = ContactLaw {
            friction: material.friction,
            restitution: material.restitution,
            micro_speed: self.settings.micro_speed,
        };
        points.retain(|p| p.separation <= eps);
        let mut any = false;
        let (mut sum, mut normal, mut count, mut all_micro) = (DVec3::ZERO, DVec3::ZERO, 0, true);
        for p in points.iter() {
            let un = self.normal_speed(a, b, p);
            if un < -1e-12 {
                sum += p.position;
                normal += p.normal;
                count += 1;
                all_micro &= -un < self.settings.micro_speed;
            }
        }
        if count >= 2 && all_micro {
            any |= self.simultaneous_microcollision(a, b, points, &law, &mut s.micro_rows);
        } else if count >= 2 && normal.length() > 1e-9 {
            let centroid = ContactPoint {
                position: sum / count as f64,
                separation: 0.0,
                normal: normal.normalize(),
            };
            any |= self.apply_collision(a, b, &centroid, &law, &mut s.joint_saved);
        }
        let cap = 8 * points.len().max(1);
        for iteration in 0..=cap {
            let mut worst = None;
            let mut worst_un = -1e-12;
            for (k, p) in points.iter().enumerate() {
                let un = self.normal_speed(a, b, p);
                if un < worst_un {
                    worst_un = un;
                    worst = Some(k);
                }
            }
            let Some(k) = worst else { break };
            if iteration == cap {
                self.stats.counts.unresolved_contacts += 1;
                break;
            }
            if !self.apply_collision(a, b, &points[k], &law, &mut s.joint_saved) {
                break;
            }
            any = true;
        }
        if any {
            for i in [a, b] {
                self.bodies[i].refresh_bounds();
            }
        }
        any
    }

    /// A microcollision at several points at once (§4.5 extended to a face or an edge): the
    /// impulses that reverse the relative velocity of every approaching contact point together,
    /// found by projected Gauss–Seidel over accumulated per-point impulses kept inside their
    /// friction cones (Bender & Schmitt 2006, §3.2, with Mirtich's reversal as the target). For a
    /// block whose contact face is translating and turning, full reversal means `v → −v`,
    /// `ω → −ω`: no work and no net drift, so a block inside its friction angle stays put. Where
    /// the cones cannot hold the reversal, the clamped impulses are sliding friction. Falls back
    /// (returns false, nothing applied) if the result would add kinetic energy.
    pub(super) fn simultaneous_microcollision(
        &mut self,
        a: usize,
        b: usize,
        points: &[ContactPoint],
        law: &ContactLaw,
        active: &mut Vec<MicroRow>,
    ) -> bool {
        const ITERATIONS: usize = 24;
        let saved = [
            SavedVelocity::of(a, &self.bodies[a]),
            SavedVelocity::of(b, &self.bodies[b]),
        ];
        let energy_before = self.bodies[a].kinetic_energy() + self.bodies[b].kinetic_energy();
        let rel = |w: &Stores, p: &ContactPoint| {
            w.bodies[a].point_velocity(p.position) - w.bodies[b].point_velocity(p.position)
        };
        // A reusable buffer: no allocation in the event loop.
        active.clear();
        for p in points {
            let u = rel(self, p);
            if u.dot(p.normal) < -1e-12 {
                // Kept: the iterations' impulses read it again.
                self.bodies[a].refresh_inertia();
                self.bodies[b].refresh_inertia();
                let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
                let k = collision_matrix(
                    ba.effective_inv_mass(),
                    &ba.inv_inertia_world(),
                    p.position - ba.position,
                    bb.effective_inv_mass(),
                    &bb.inv_inertia_world(),
                    p.position - bb.position,
                );
                active.push(MicroRow {
                    point: *p,
                    target: -u,
                    k_inv: k.inverse(),
                    impulse: DVec3::ZERO,
                });
            }
        }
        for _ in 0..ITERATIONS {
            for row in active.iter_mut() {
                let (p, acc) = (&row.point, &mut row.impulse);
                let u = rel(self, p);
                let mut next = *acc + row.k_inv * (row.target - u);
                let pn = next.dot(p.normal).max(0.0);
                let mut pt = next - next.dot(p.normal) * p.normal;
                let limit = law.friction * pn;
                if pt.length() > limit {
                    pt *= limit / pt.length();
                }
                next = pn * p.normal + pt;
                let delta = next - *acc;
                self.bodies[a].apply_impulse(delta, p.position);
                self.bodies[b].apply_impulse(-delta, p.position);
                *acc = next;
            }
        }
        let energy_after = self.bodies[a].kinetic_energy() + self.bodies[b].kinetic_energy();
        // Written so that a NaN energy also counts as a gain and falls back.
        let kept = energy_after <= energy_before * (1.0 + 1e-9) + 1e-15;
        let first_normal = active.first().map(|r| r.point.normal);
        if !kept {
            for s in &saved {
                s.restore(&mut self.bodies);
            }
            return false;
        }
        self.stats.counts.microcollisions += 1;
        if self.settings.record_events {
            for row in active.iter() {
                let (p, vn_before) = (&row.point, -row.target.dot(row.point.normal));
                let kind = EventKind::Microcollision;
                self.log_impulse(kind, (a, b), p.position, p.normal, row.impulse, vn_before);
            }
        }
        if let Some(n) = first_normal {
            self.note_support(a, b, n);
        }
        true
    }

    /// One collision of a and b at contact point `p` (§4): the collision matrix in the collision
    /// frame, the impulse from [`collision_impulse`], applied equal and opposite.
    pub(super) fn apply_collision(
        &mut self,
        a: usize,
        b: usize,
        p: &ContactPoint,
        law: &ContactLaw,
        joint_saved: &mut Vec<SavedVelocity>,
    ) -> bool {
        // A jointed body answers as its articulation (Mirtich 1996 §4.1).
        let t = self.bodies[a].time.max(self.bodies[b].time);
        let articulated = self.articulated_matrix((a, b), p.position, t, joint_saved);
        // Kept: the impulse applied below reads it again.
        self.bodies[a].refresh_inertia();
        self.bodies[b].refresh_inertia();
        let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
        let (ra, rb) = (p.position - ba.position, p.position - bb.position);
        let k_world = articulated.unwrap_or_else(|| {
            collision_matrix(
                ba.effective_inv_mass(),
                &ba.inv_inertia_world(),
                ra,
                bb.effective_inv_mass(),
                &bb.inv_inertia_world(),
                rb,
            )
        });
        let frame = collision_frame(p.normal);
        let m = frame.transpose() * k_world * frame;
        let u = frame.transpose() * (ba.point_velocity(p.position) - bb.point_velocity(p.position));
        let result = collision_impulse(&m, u, law);
        let kind = match result.kind {
            ImpulseKind::Separating => return false,
            ImpulseKind::Micro => {
                self.stats.counts.microcollisions += 1;
                EventKind::Microcollision
            }
            ImpulseKind::Full => {
                self.stats.counts.collisions += 1;
                self.bodies[a].count_event();
                self.bodies[b].count_event();
                EventKind::Collision
            }
        };
        let impulse = frame * result.impulse;
        self.bodies[a].apply_impulse(impulse, p.position);
        self.bodies[b].apply_impulse(-impulse, p.position);
        if articulated.is_some() {
            // The impulse moves the whole articulation: the velocities it was found with.
            let which: Vec<usize> = [a, b]
                .iter()
                .filter_map(|&i| self.joints.articulation(i))
                .collect();
            self.joints.project(&mut self.bodies, Some(&which));
        }
        self.note_support(a, b, p.normal);
        let vn_before = (frame * u).dot(p.normal);
        self.log_impulse(kind, (a, b), p.position, p.normal, impulse, vn_before);
        true
    }

    /// After a and b changed velocity at time t, and the bodies of `also` (ascending, perhaps
    /// including a or b) with them: new versions, new swept boxes, and new bounds for every
    /// pair whose boxes now overlap.
    pub(super) fn rebound_after_change(
        &mut self,
        a: usize,
        b: usize,
        t: f64,
        also: &[usize],
        points: &mut Vec<ContactPoint>,
        s: &mut Rebound,
    ) {
        let changed = &mut s.changed;
        changed.clear();
        changed.extend(
            [a, b]
                .into_iter()
                .chain(also.iter().copied())
                .filter(|&i| self.bodies[i].is_awake_dynamic()),
        );
        changed.sort_unstable();
        changed.dedup();
        self.project_joints_of(changed, t);
        self.renew_boxes(changed, t);
        // The colliding pair itself: positions are unchanged, so re-measure is cheap and exact.
        let d = self.measure(a, b, points);
        self.push_fine(a, b, d, t, points);
        self.bound_neighbours(changed, t, Some((a, b)), &mut s.candidates);
    }

    /// After the bodies `changed` (ascending) changed velocity at time `t`: new versions, new
    /// swept boxes, and coarse bounds for every pair their boxes now overlap. All versions are
    /// bumped first, so a pair of two changed bodies is bounded once, with both new
    /// trajectories (bounding it from each side would leave the first entry stale at once).
    pub(super) fn rebound_bodies(&mut self, changed: &[usize], t: f64, s: &mut Rebound) {
        if self.joints.is_empty() {
            self.renew_boxes(changed, t);
            self.bound_neighbours(changed, t, None, &mut s.candidates);
            return;
        }
        // A reusable buffer: no allocation in the event loop once grown.
        let all = &mut s.changed;
        all.clear();
        all.extend_from_slice(changed);
        self.project_joints_of(all, t);
        self.renew_boxes(all, t);
        self.bound_neighbours(all, t, None, &mut s.candidates);
    }

    /// New versions and swept boxes (from `t` to the step's end) for the awake dynamic bodies
    /// of `changed`: their bounds so far are stale.
    pub(super) fn renew_boxes(&mut self, changed: &[usize], t: f64) {
        for &i in changed {
            if self.bodies[i].is_awake_dynamic() {
                self.bodies[i].version = self.bodies[i].version.wrapping_add(1);
                let bx = self.body_box(i, self.clock.frame_end - t);
                self.pairs.set_box(i, bx);
            }
        }
    }

    /// Coarse bounds at `t` for every pair that an awake dynamic body of `changed` (ascending,
    /// boxes renewed) forms with a body its box now overlaps, each pair once, except the pair
    /// `except` (bounded by the caller).
    pub(super) fn bound_neighbours(
        &mut self,
        changed: &[usize],
        t: f64,
        except: Option<(usize, usize)>,
        cand: &mut Vec<u32>,
    ) {
        debug_assert!(changed.windows(2).all(|w| w[0] < w[1]));
        for (k, &i) in changed.iter().enumerate() {
            if !self.bodies[i].is_awake_dynamic() {
                continue;
            }
            let bx = self.pairs.boxes[i];
            self.pairs.grid.query(i, &bx, &self.pairs.boxes, cand);
            for &j in cand.iter() {
                let j = j as usize;
                let pair = (i.min(j), i.max(j));
                // A pair with a changed body met earlier was bounded from that body's side.
                let earlier =
                    changed[..k].binary_search(&j).is_ok() && self.bodies[j].is_awake_dynamic();
                if j != i && !earlier && Some(pair) != except && self.pair_matters(i, j) {
                    self.bodies[j].advance_to(t, self.settings.gravity);
                    self.push_bound(pair.0, pair.1, t);
                }
            }
        }
    }

    /// True proximity of a pair at the bodies' current states; its contact points go into
    /// `points`.
    pub(super) fn measure(&mut self, a: usize, b: usize, points: &mut Vec<ContactPoint>) -> f64 {
        self.measure_within(a, b, self.settings.epsilon, points)
    }

    /// True proximity of a pair at the bodies' current states, with the contact points up to
    /// `margin` apart in `points`; records the largest penetration seen.
    pub(super) fn measure_within(
        &mut self,
        a: usize,
        b: usize,
        margin: f64,
        points: &mut Vec<ContactPoint>,
    ) -> f64 {
        let d = match body_proximity(&self.bodies[a], &self.bodies[b], margin, points) {
            Ok(d) => d,
            Err(failure) => return self.note_geometry_failure(failure),
        };
        let normal = points.first().map(|p| p.normal);
        self.note_measured(a, b, d, normal);
        d
    }

    /// Keeps the first geometry failure until the frame loop returns it; the pair reads as apart
    /// (+∞) meanwhile.
    pub(super) fn note_geometry_failure(&mut self, failure: GeometryFailure) -> f64 {
        self.stats.geometry_failure.get_or_insert(failure);
        f64::INFINITY
    }

    /// The geometry failure noted since the last call, as the step's error.
    pub(super) fn take_geometry_failure(&mut self) -> Result<(), SimError> {
        match self.stats.geometry_failure.take() {
            None => Ok(()),
            Some(failure) => Err(failure.into_error()),
        }
    }

    /// The bookkeeping of one proximity query of pair (a, b) that found distance `d` and, if
    /// any point, `normal`: the query count, the largest penetration, the pair's last axis.
    pub(super) fn note_measured(&mut self, a: usize, b: usize, d: f64, normal: Option<DVec3>) {
        self.stats.counts.distance_queries += 1;
        if -d > self.stats.max_penetration {
            self.stats.max_penetration = -d;
            // Both bodies are at the time of the query.
            self.stats.deepest_at = (self.bodies[a].time, a.min(b) as u32, a.max(b) as u32);
            self.stats.deepest_names = None;
        }
        if let Some(n) = normal {
            self.pairs.bounds.last_axis.insert((a as u32, b as u32), n);
        }
    }
}
