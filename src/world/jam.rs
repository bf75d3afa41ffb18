//! The switch rule between the two paradigms (Mirtich 1996 §4.2): which islands leave the event
//! loop to be stepped as a whole over the next contact step, and when they come back.
//!
//! An island here is a connected set of awake dynamic bodies through the pairs the last contact
//! step solved (fixed and kinematic bodies join nothing: every body on one floor is not one
//! island). Its *rate* is the collisions and local re-solves its bodies took part in per contact
//! step, per body (a pair's points in a stepped island's collision round count as one
//! collision), each body's count a moving average over about 8 steps ([`SMOOTHING`]), so that
//! one impact on a resting pile is a burst that fades and a jam is sustained. An island of at
//! least [`MIN_BODIES`] is jammed when its rate reaches [`ENTER_RATE`]; a jammed island stays
//! jammed while its rate stays at [`STAY_RATE`] or more, and for [`CALM_STEPS`] steps after it
//! falls below (hysteresis: a jam that pauses for a step is not handed back to the events only
//! to be taken again). A body with no contact in the last step is an island of one, never
//! jammed: whatever flies is an event, so nothing is frozen in mid-air (Mirtich's warning about
//! Impulse). The rule reads counts that do not depend on the thread count, so neither does it.
//! See docs/measurements.md, Jammed islands, for the rates measured on the bundled scenes.

use super::stores::{BodyJam, IslandTally, Stores};
use crate::body::read_each;

/// Weight of the last contact step in a body's smoothed activity (an exponential moving average
/// over about 1/SMOOTHING steps).
pub(super) const SMOOTHING: f64 = 1.0 / 8.0;
/// Collisions and re-solves per body per contact step (smoothed) from which an island is jammed.
pub(super) const ENTER_RATE: f64 = 0.25;
/// Rate down to which a jammed island stays jammed.
pub(super) const STAY_RATE: f64 = 0.1;
/// Contact steps a jammed island stays jammed after its rate fell below [`STAY_RATE`].
pub(super) const CALM_STEPS: u8 = 4;
/// Fewest bodies of a jammed island.
pub(super) const MIN_BODIES: u32 = 8;

impl Stores {
    /// Decides, at the start of the contact step from `t0`, which bodies are in jammed islands
    /// (`Body::jammed`); counts the islands stepped (`island_steps`) and those newly switched
    /// (`stepped_islands`). Called before the step's contacts are gathered, so the islands are
    /// the last step's contacts. A step redone from the same instant keeps the decision.
    pub(super) fn decide_jams(&mut self, t0: f64) {
        if !self.settings.step_jams || self.jams.decided_at == Some(t0) {
            return;
        }
        self.jams.decided_at = Some(t0);
        let n = self.bodies.len();
        let jams = &mut self.jams;
        jams.seen.resize(n, 0);
        jams.smoothed.resize(n, 0.0);
        jams.calm.resize(n, 0);
        jams.parent.clear();
        jams.parent.extend(0..n as u32);
        let bodies = &mut self.bodies;
        // What the rule reads of each body, read once (the passes below would read each body
        // twice, a cache miss each in a large world).
        read_each(bodies, &mut jams.state, |b| BodyJam {
            awake: b.is_awake_dynamic(),
            jammed: b.jammed,
            activity: b.activity,
        });
        // The last contact step's own contacts, not the pairs held since: a pair that comes to
        // rest mid-step is held in the stores of the island loop that found it, which the
        // world's do not see, so only these are the same on any number of threads.
        for c in &self.contacts.step.contacts {
            let (a, b) = (c.a as usize, c.b as usize);
            if jams.state[a].awake && jams.state[b].awake {
                let (ra, rb) = (find(&mut jams.parent, a), find(&mut jams.parent, b));
                // The smaller root wins, so the partition's roots do not depend on the order
                // the pairs are visited in.
                let (lo, hi) = (ra.min(rb), ra.max(rb));
                jams.parent[hi] = lo as u32;
            }
        }
        jams.tally.clear();
        jams.tally.resize(n, IslandTally::default());
        for i in 0..n {
            let body = jams.state[i];
            if !body.awake {
                continue;
            }
            let r = find(&mut jams.parent, i);
            let growth = body.activity.wrapping_sub(jams.seen[i]);
            // A jam is sustained, one impact on a pile is a burst that fades.
            let smoothed = jams.smoothed[i] + SMOOTHING * (growth as f64 - jams.smoothed[i]);
            jams.smoothed[i] = smoothed;
            let t = &mut jams.tally[r];
            t.bodies += 1;
            t.activity += smoothed;
            if body.jammed {
                t.was_jammed = true;
                t.calm = t.calm.max(jams.calm[i]);
            }
        }
        let mut any = false;
        for (i, target) in bodies.iter_mut().enumerate() {
            let body = jams.state[i];
            jams.seen[i] = body.activity;
            // Only a body whose flag changes is written.
            if !body.awake {
                if body.jammed {
                    target.jammed = false;
                }
                jams.calm[i] = 0;
                continue;
            }
            let r = find(&mut jams.parent, i);
            let (jammed, calm) = rule(jams.tally[r]);
            if jammed != body.jammed {
                target.jammed = jammed;
            }
            jams.calm[i] = calm;
            any |= jammed;
            if jammed && r == i {
                self.stats.counts.island_steps += 1;
                if !jams.tally[r].was_jammed {
                    self.stats.counts.stepped_islands += 1;
                }
            }
        }
        jams.any = any;
    }

    /// Whether pair (a, b) belongs to a jammed island over the present contact step.
    pub(super) fn jammed_pair(&self, a: usize, b: usize) -> bool {
        self.bodies[a].jammed || self.bodies[b].jammed
    }
}

/// The rule for an island (its `tally`): whether it is jammed now, and its calm count. An
/// island of enough bodies is jammed at the enter rate of smoothed activity per body, stays so
/// at the stay rate, and below it for `CALM_STEPS` − 1 more steps.
fn rule(tally: IslandTally) -> (bool, u8) {
    let IslandTally {
        bodies,
        activity,
        was_jammed: was,
        calm,
    } = tally;
    if bodies < MIN_BODIES {
        return (false, 0);
    }
    let rate = activity / bodies as f64;
    if rate >= ENTER_RATE || (was && rate >= STAY_RATE) {
        (true, 0)
    } else if was && calm + 1 < CALM_STEPS {
        (true, calm + 1)
    } else {
        (false, 0)
    }
}

/// Root of `i` in the union–find `parent`, halving the path on the way.
fn find(parent: &mut [u32], mut i: usize) -> usize {
    while parent[i] as usize != i {
        let up = parent[parent[i] as usize];
        parent[i] = up;
        i = up as usize;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(bodies: u32, activity: f64, was_jammed: bool, calm: u8) -> IslandTally {
        IslandTally {
            bodies,
            activity,
            was_jammed,
            calm,
        }
    }

    #[test]
    fn the_rule_enters_stays_and_calms_with_hysteresis() {
        // Too small an island is never jammed, whatever its rate.
        assert_eq!(rule(tally(MIN_BODIES - 1, 100.0, true, 0)), (false, 0));
        let n = 20u32;
        let at = |rate: f64| rate * n as f64;
        // Enters at the enter rate, not below it.
        assert_eq!(rule(tally(n, at(ENTER_RATE), false, 0)), (true, 0));
        assert_eq!(rule(tally(n, at(0.99 * ENTER_RATE), false, 0)), (false, 0));
        // Stays at the stay rate once jammed.
        assert_eq!(rule(tally(n, at(STAY_RATE), true, 0)), (true, 0));
        // Below it, stays for CALM_STEPS - 1 more steps, then returns to events.
        let mut state = (true, 0u8);
        let mut stepped = 0;
        while state.0 {
            state = rule(tally(n, 0.0, true, state.1));
            stepped += usize::from(state.0);
        }
        assert_eq!(stepped, CALM_STEPS as usize - 1);
    }
}
