//! `[world] method = "lcp"`: Stewart & Trinkle's time-stepping (1996, §3) in place of the
//! event loop. Each step of length h: the applied forces' impulse, the contacts within reach
//! of the step gathered by the broad and narrow phases, one LCP per group of contacts for the
//! impulses that leave every gap non-negative at the step's end within the linearized friction
//! cone ([`crate::lcp`]), then the positions advanced with the new velocities (the
//! semi-implicit update of their eq. 6). Restitution is zero, as in the paper.

use super::{SimError, World};
use crate::ballistic;
use crate::lcp::{apply_contact_impulses, LcpContact};
use crate::narrow_phase::proximity;

/// Pivots allowed per row of an LCP before the step fails (Lemke's method needs about one per
/// row on contact problems).
const PIVOTS_PER_ROW: usize = 50;

impl World {
    /// One frame (to the next multiple of the frame period, or `until`) in equal steps no
    /// longer than `time_step`, so that frames end on their grid.
    pub(super) fn lcp_frame(&mut self, until: f64) -> Result<(), SimError> {
        let t0 = self.time;
        let period = self.settings.frame_period;
        let k = (t0 / period * (1.0 + 1e-12)).floor() + 1.0;
        let mut t1 = (k * period).min(until);
        if until - t1 < 1e-9 * period {
            t1 = until;
        }
        let steps = ((t1 - t0) / self.settings.time_step * (1.0 - 1e-9))
            .ceil()
            .max(1.0) as usize;
        for s in 1..=steps {
            let end = if s == steps {
                t1
            } else {
                t0 + (t1 - t0) * s as f64 / steps as f64
            };
            self.lcp_step(end - self.time)?;
            self.time = end;
        }
        self.counts.frames += 1;
        Ok(())
    }

    /// One time step of length `h` from the world time (every body there).
    pub(super) fn lcp_step(&mut self, h: f64) -> Result<(), SimError> {
        let t = self.time;
        let g = self.settings.gravity;
        for b in &mut self.bodies {
            if b.is_awake_dynamic() {
                b.velocity += h * g;
            }
        }
        // Contacts within reach of the step: gaps up to ε_c plus what the pair's speeds could
        // close in h (Stewart & Trinkle's active set, "in danger of being violated").
        let pairs = self.collect_pairs(h);
        self.counts.broad_phase_pairs += pairs.len() as u64;
        let mut contacts = Vec::new();
        let mut points = std::mem::take(&mut self.points);
        for (a, b) in pairs {
            let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
            let reach = |x: &crate::body::Body| {
                x.velocity.length() + x.angular_velocity.length() * x.bounding_radius
            };
            let margin = self.settings.epsilon + h * (reach(ba) + reach(bb));
            let d = proximity(
                &ba.collider,
                &ba.pose(),
                &bb.collider,
                &bb.pose(),
                margin,
                &mut points,
            );
            self.counts.distance_queries += 1;
            if d > margin {
                continue;
            }
            let friction = self
                .settings
                .materials
                .pair(ba.material, bb.material)
                .friction;
            for p in points.iter().filter(|p| p.separation <= margin) {
                if -p.separation > self.max_penetration {
                    self.max_penetration = -p.separation;
                    self.deepest_at = (t, a as u32, b as u32);
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
        self.points = points;
        let report = apply_contact_impulses(
            &mut self.bodies,
            &contacts,
            h,
            self.settings.friction_directions,
            PIVOTS_PER_ROW,
        )
        .map_err(|e| SimError::Lcp {
            time: t,
            message: e.to_string(),
        })?;
        self.counts.lcp_problems += report.problems as u64;
        self.counts.lcp_rows += report.rows as u64;
        self.counts.lcp_largest = self.counts.lcp_largest.max(report.largest as u64);
        self.counts.lcp_pivots += report.pivots as u64;
        self.counts.lcp_steps += 1;
        // Eq. 6: the positions advanced with the velocities at the step's end (fixed and
        // kinematic bodies follow their own motion).
        for b in &mut self.bodies {
            if b.is_awake_dynamic() {
                b.position += h * b.velocity;
                b.orientation = ballistic::rotate_constant(b.orientation, b.angular_velocity, h);
                b.refresh_bounds();
                b.version = b.version.wrapping_add(1);
                b.time = t + h;
            } else {
                b.advance_to(t + h, g);
            }
        }
        if let Some(i) = self.bodies.iter().position(|b| !b.is_finite()) {
            return Err(self.non_finite(i, t + h));
        }
        self.time = t + h;
        Ok(())
    }
}
