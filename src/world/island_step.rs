//! A jammed island's simultaneous step (Bender & Schmitt 2006 §3.1–3.2; Mirtich 1996 §4.2's
//! paradigm shift): at the contact step's start its collisions are resolved in rounds over the
//! whole island, then its contacts, colliding or resting, are solved with every other resting
//! contact over the step (`contact_step.rs`), their pairs held.
//!
//! In a jam the order of the collisions means nothing (a row of cubes squeezed between two
//! walls is re-hit every 0.3–0.5 ms; its outlet count moves ±30 % with rounding in every
//! engine), so the island gives it up: one collision loop per step instead of an event per hit,
//! each hit passed on through the pile by the next round instead of by the next event.
//! Nothing else is given up: every pair keeps its conservative bound through the step and the
//! event loop still answers any pair that comes within its band after all (a prediction that
//! missed), so nothing tunnels and the penetration bound holds as everywhere else.

use super::impacts::ImpactScratch;
use super::round_sweeps::Convergence;
use super::stores::Stores;
use crate::stages::collision_round::CollisionRounds;

/// Most collision rounds of one step: an impulse passes one contact further per round (Smith et
/// al. 2012's propagation, as in `impacts.rs`); what still approaches after them is stopped by
/// the contact solve, inelastically.
const MAX_ROUNDS: usize = 16;

/// A round's iterations: within 10⁻³ of its fastest approach, at most 32 sweeps. The event
/// loop's impact sets converge to rounding so that their result does not depend on the order;
/// inside a jam the order is given up anyway.
pub(super) const STEP: Convergence = Convergence {
    tolerance: 1e-3,
    max_sweeps: 32,
};

impl Stores {
    /// The jammed islands' collision loop (Bender & Schmitt §3.1): rounds of Newton's law with
    /// Coulomb friction over every point of a jammed pair that approaches as fast as a collision,
    /// each round's points solved together (`Stores::collision_round`), until none approaches or
    /// [`MAX_ROUNDS`] have run. Counts `step_collisions`.
    ///
    /// `device`, where the frame stages run on one, solves the rounds there.
    pub(super) fn collide_jammed(
        &mut self,
        set: &mut ImpactScratch,
        mut device: Option<&mut (dyn CollisionRounds + '_)>,
    ) {
        self.jammed_points(set);
        for _ in 0..MAX_ROUNDS {
            let rows = self.collision_round(set, STEP, device.as_deref_mut());
            if rows == 0 {
                break;
            }
            self.stats.counts.step_collisions += rows as u64;
        }
    }
}
