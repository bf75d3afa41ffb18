//! `[world] method = "lcp"`: Stewart & Trinkle's time-stepping (1996, §3) in place of the
//! event loop. Step l covers [l h, (l + 1) h] on a fixed grid, whatever the frame period. At its
//! start: the applied forces' impulse, the contacts within reach of the step gathered by the
//! broad and narrow phases, one LCP per group of contacts for the impulses that leave every gap
//! non-negative at the step's end within the linearized friction cone ([`crate::lcp`]): the
//! velocities v^{l+1} of eq. 5. Over the step the positions move with v^{l+1} (eq. 6,
//! q^{l+1} = q^l + h v^{l+1}), so a frame that ends inside a step shows the state of that
//! straight-line motion, exactly the scheme's own positions at the step's end, and the steps do
//! not depend on the frame period. Restitution is zero, as in the paper.

use super::stores::Stores;
use super::{EventKind, SimError, Stepper, World};
use crate::ballistic;
use crate::lcp::{apply_contact_impulses, LcpContact};
use crate::narrow_phase::ContactPoint;
use glam::DVec3;
use rustc_hash::FxHashSet;

/// Pivots allowed per row of an LCP before the step fails (Lemke's method takes about one per
/// row on contact problems, a few on degenerate ones).
const PIVOTS_PER_ROW: usize = 50;

/// Most rounds of the active set's growth per step (each adds the pairs the last impulses set
/// within reach; a cascade down a line of n bodies takes about n).
const MAX_ROUNDS: usize = 16;

impl World {
    /// One frame (to the next multiple of the frame period, or `until`): the steps that begin
    /// in it solve their impulses, and the positions move to the frame's end.
    pub(super) fn lcp_frame(&mut self, until: f64) -> Result<(), SimError> {
        let t0 = self.stores.clock.time;
        let period = self.stores.settings.frame_period;
        let h = self.stores.settings.time_step;
        let k = (t0 / period * (1.0 + 1e-12)).floor() + 1.0;
        let mut t1 = (k * period).min(until);
        if until - t1 < 1e-9 * period {
            t1 = until;
        }
        let mut begun = match self.stepper {
            Stepper::Lcp { steps_begun } => steps_begun,
            Stepper::Events => 0,
        };
        while self.stores.clock.time < t1 {
            self.stores.check_deadline()?;
            // A step begins on its grid time (within rounding of it): eq. 5's velocities.
            if self.stores.clock.time >= begun as f64 * h - 1e-9 * h {
                self.stores.lcp_velocities(h, &mut self.scratch.points)?;
                self.stores.take_geometry_failure()?;
                begun += 1;
                self.stepper = Stepper::Lcp { steps_begun: begun };
            }
            let step_end = begun as f64 * h;
            let end = if t1 <= step_end + 1e-9 * h {
                t1
            } else {
                step_end
            };
            self.stores.lcp_positions(end)?;
        }
        self.run_body_flow();
        self.measure_frame();
        self.stores.stats.counts.frames += 1;
        Ok(())
    }
}

impl Stores {
    /// Eq. 6 from the world time to `end`: the positions move with the step's velocities
    /// (fixed and kinematic bodies follow their own motion).
    fn lcp_positions(&mut self, end: f64) -> Result<(), SimError> {
        let dt = end - self.clock.time;
        let g = self.settings.gravity;
        for b in &mut self.bodies {
            if b.is_awake_dynamic() {
                b.position += dt * b.velocity;
                b.orientation = ballistic::rotate_constant(b.orientation, b.angular_velocity, dt);
                b.refresh_bounds();
                b.version = b.version.wrapping_add(1);
                b.time = end;
            } else {
                b.advance_to(end, g);
            }
        }
        if let Some(i) = self.bodies.iter().position(|b| !b.is_finite()) {
            return Err(self.non_finite(i, end));
        }
        self.clock.time = end;
        Ok(())
    }

    /// The velocities v^{l+1} of a step of length `h` beginning at the world time: eq. 5 with
    /// the contact impulses of the step's LCPs.
    ///
    /// The contacts are the paper's active set (§4): those within reach of the step at the
    /// velocities before the impulses, then, while the impulses set other pairs moving towards
    /// each other (a collision passed down a line of balls within one step, §4.2), the pairs
    /// now within reach are added and the step's LCPs solved again from the same velocities.
    fn lcp_velocities(&mut self, h: f64, points: &mut Vec<ContactPoint>) -> Result<(), SimError> {
        let t = self.clock.time;
        let g = self.settings.gravity;
        for b in &mut self.bodies {
            if b.is_awake_dynamic() {
                b.velocity += h * g;
            }
        }
        let before: Vec<(DVec3, DVec3)> = self
            .bodies
            .iter()
            .map(|b| (b.velocity, b.angular_velocity))
            .collect();
        let mut included = FxHashSet::default();
        let mut contacts = Vec::new();
        let mut impulses = Vec::new();
        for round in 0..MAX_ROUNDS {
            let added = self.gather_lcp_contacts(h, &mut included, &mut contacts, points);
            if (round > 0 && !added) || contacts.is_empty() {
                // Nothing new within reach (no contact at all: the velocities stay free).
                break;
            }
            if round > 0 {
                for (b, &(v, w)) in self.bodies.iter_mut().zip(&before) {
                    b.velocity = v;
                    b.angular_velocity = w;
                }
            }
            let report = apply_contact_impulses(
                &mut self.bodies,
                &contacts,
                h,
                self.settings.friction_directions,
                PIVOTS_PER_ROW,
                &mut impulses,
            )
            .map_err(|e| SimError::Lcp {
                time: t,
                message: e.to_string(),
            })?;
            self.stats.counts.lcp_problems += report.problems as u64;
            self.stats.counts.lcp_rows += report.rows as u64;
            self.stats.counts.lcp_largest =
                self.stats.counts.lcp_largest.max(report.largest as u64);
            self.stats.counts.lcp_pivots += report.pivots as u64;
        }
        self.stats.counts.lcp_steps += 1;
        if self.settings.record_events {
            // The last round's impulses (the earlier ones were taken back), each with the
            // contact's normal velocity before the step's impulses, gravity's included.
            for i in &impulses {
                let c = &i.contact;
                let saved = |k: usize| before.get(k).copied();
                let vn = self.normal_velocity_saved(saved, (c.a, c.b), c.point, c.normal);
                let j = (i.normal, i.friction.length());
                self.push_event(EventKind::Lcp, (c.a, c.b), c.point, c.normal, j, vn);
            }
        }
        Ok(())
    }

    /// Adds to `contacts` the contact points of the pairs within reach of the step at the
    /// bodies' present velocities that are not `included` yet (gaps up to ε_c plus what the
    /// pair's speeds could close in h: "in danger of being violated", §4). Returns whether any
    /// pair was added.
    fn gather_lcp_contacts(
        &mut self,
        h: f64,
        included: &mut FxHashSet<(usize, usize)>,
        contacts: &mut Vec<LcpContact>,
        points: &mut Vec<ContactPoint>,
    ) -> bool {
        let t = self.clock.time;
        let mut pairs = Vec::new();
        self.collect_pairs(h, &mut pairs);
        self.stats.counts.broad_phase_pairs += pairs.len() as u64;
        let mut added = false;
        for (a, b) in pairs {
            let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
            if (!ba.is_awake_dynamic() && !bb.is_awake_dynamic()) || included.contains(&(a, b)) {
                // Two given motions (kinematic and fixed): no impulse can change them.
                continue;
            }
            let reach = |x: &crate::body::Body| {
                x.velocity.length() + x.angular_velocity.length() * x.bounding_radius
            };
            let margin = self.settings.epsilon + h * (reach(ba) + reach(bb));
            let d = match super::collide::body_proximity(ba, bb, margin, points) {
                Ok(d) => d,
                Err(failure) => {
                    self.note_geometry_failure(failure);
                    continue;
                }
            };
            self.stats.counts.distance_queries += 1;
            if d > margin {
                continue;
            }
            included.insert((a, b));
            added = true;
            let friction = self
                .settings
                .materials
                .pair(ba.material, bb.material)
                .friction;
            for p in points.iter().filter(|p| p.separation <= margin) {
                if -p.separation > self.stats.max_penetration {
                    self.stats.max_penetration = -p.separation;
                    self.stats.deepest_at = (t, a as u32, b as u32);
                    self.stats.deepest_names = None;
                }
                contacts.push(LcpContact {
                    a,
                    b,
                    point: p.position,
                    normal: p.normal,
                    gap: p.separation,
                    friction,
                });
            }
        }
        added
    }
}
