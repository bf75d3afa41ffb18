//! The joints in the frame loop ([`crate::joints`]): their impulses at each step's start and
//! end, the projection of an articulation's velocities after an impulse on one of its bodies,
//! and the articulated collision matrix (Mirtich 1996 §4.1).

use super::stores::Stores;
use super::World;
use crate::body::SavedVelocity;
use glam::{DMat3, DVec3};

impl Stores {
    /// At a step's start (every body there): the impulses that make the bodies' ballistic
    /// poses at the step's end satisfy the joints. Jointed bodies get new trajectories: new
    /// versions and spin bounds.
    pub(super) fn hold_joints_over_step(&mut self, h: f64) {
        if self.joints.is_empty() {
            return;
        }
        let solves = self
            .joints
            .hold_over_step(&mut self.bodies, None, h, self.settings.gravity);
        self.stats.counts.joint_solves += solves as u64;
        self.renew_jointed();
    }

    /// At a step's end (every body there): the joints' relative velocities projected out, so
    /// that the velocities reported are the constrained system's (RATTLE's second half).
    pub(super) fn project_joint_velocities(&mut self) {
        if self.joints.is_empty() {
            return;
        }
        let solves = self.joints.project(&mut self.bodies, None);
        self.stats.counts.joint_solves += solves as u64;
        self.renew_jointed();
    }

    /// New versions and spin bounds for every jointed body.
    fn renew_jointed(&mut self) {
        for (members, _) in &self.joints.articulations {
            for &i in members {
                let body = &mut self.bodies[i];
                body.version = body.version.wrapping_add(1);
                body.refresh_bounds();
            }
        }
    }

    /// The articulations of the bodies of `bodies`, each once.
    fn articulations_of(&self, bodies: &[usize]) -> Vec<usize> {
        let mut which: Vec<usize> = bodies
            .iter()
            .filter_map(|&i| self.joints.articulation(i))
            .collect();
        which.sort_unstable();
        which.dedup();
        which
    }

    /// Brings every body of the articulations `which` to time `t` (the event loop advances
    /// bodies lazily; a projection needs them all at one instant).
    fn advance_articulations(&mut self, which: &[usize], t: f64) {
        for &m in which {
            for k in 0..self.joints.articulations[m].0.len() {
                let i = self.joints.articulations[m].0[k];
                self.bodies[i].advance_to(t, self.settings.gravity);
            }
        }
    }

    /// After an impulse at `t` on the bodies of `changed` (ascending): the velocities of their
    /// articulations projected onto the joints (the impulse moves the whole articulation), and
    /// every body of those articulations added to `changed` (kept ascending), since their
    /// trajectories changed too.
    pub(super) fn project_joints_of(&mut self, changed: &mut Vec<usize>, t: f64) {
        if self.joints.is_empty() {
            return;
        }
        let which = self.articulations_of(changed);
        if which.is_empty() {
            return;
        }
        self.advance_articulations(&which, t);
        let mut solves = self.joints.project(&mut self.bodies, Some(&which));
        // The joints held again over what is left of the step: the projection leaves them
        // right in velocity, but the bodies' ballistic flights to the step's end would part
        // them by about g τ²/2.
        let left = self.clock.frame_end - t;
        solves +=
            self.joints
                .hold_over_step(&mut self.bodies, Some(&which), left, self.settings.gravity);
        self.stats.counts.joint_solves += solves as u64;
        for &m in &which {
            changed.extend_from_slice(&self.joints.articulations[m].0);
        }
        changed.sort_unstable();
        changed.dedup();
    }

    /// The collision matrix of a contact at `point` between a and b (both at `t`) when either
    /// is jointed: the articulations' constrained response (Mirtich 1996 §4.1); `None` for two
    /// free bodies.
    pub(super) fn articulated_matrix(
        &mut self,
        (a, b): (usize, usize),
        point: DVec3,
        t: f64,
        saved: &mut Vec<SavedVelocity>,
    ) -> Option<DMat3> {
        if self.joints.is_empty() {
            return None;
        }
        let which = self.articulations_of(&[a, b]);
        if which.is_empty() {
            return None;
        }
        self.advance_articulations(&which, t);
        let k = self
            .joints
            .articulated_matrix(&mut self.bodies, (a, b), point, saved);
        Some(k)
    }
}

impl World {
    /// The largest mismatch of a joint's two anchors now (m; a slider's along its axis not
    /// counted): how far the joints have drifted.
    pub fn joint_drift(&self) -> f64 {
        self.stores.joints.drift(&self.stores.bodies)
    }

    /// Number of joints.
    pub fn joint_count(&self) -> usize {
        self.stores.joints.joints.len()
    }
}
