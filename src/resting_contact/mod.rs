//! Resting contact as constraints over a contact step (Bender & Schmitt 2006, §3.2; the
//! "paradigm shift" of Mirtich 1996, §4.2).
//!
//! Event-driven simulation resolves a resting contact as a train of microcollisions: a block on
//! a floor hops at every corner roughly every `2·sqrt(2ε_c/g)` seconds, and a pile of a thousand
//! blocks fills the event heap with them. Here the contacts that are resting at the start of a
//! contact step of length `h` (separation within a margin of ε_c, approach slower than the
//! microcollision speed plus what gravity adds over a step) are instead handled together, once
//! per step: impulses applied at the step's start so that, flying ballistically over the step,
//! every contact point ends the step at the target separation or farther, and sticking points
//! do not slide (Bender & Schmitt's contact handling, eq. 8 and their static-friction rule).
//!
//! ## The prediction
//! With impulses applied at `t₀`, the contact points' relative motion over the step is, to
//! second order, `d(t₀+h) = d₀ + h·ū` with the *step-mean* relative velocity
//! `ū = u(t₀) + ½·h·a`, where `a` is the relative acceleration of the two body points (gravity
//! on awake dynamic bodies and the centripetal terms `ω×(ω×r)`). The constraint for a contact
//! point with normal `n` is then linear in the impulses:
//!
//! - normal: `n·ū ≥ (d_target − d₀)/h`, with accumulated normal impulse ≥ 0 (eq. 2–3: bodies
//!   never stick together);
//! - tangential: `ū_t = 0` (static friction: the points end the step where they started, so a
//!   block on a slope within its friction angle does not creep), as long as the tangential
//!   impulse stays in the Coulomb cone `|p_t| ≤ μ·p_n` (eq. 6), else sliding with `|p_t| = μ·p_n`
//!   opposing the slip.
//!
//! All points of all pairs are solved together by projected Gauss–Seidel over accumulated
//! impulses (Bender & Schmitt's iteration "until d_n(t₀+h) is zero within a tolerance"), which
//! resolves the dependencies inside a pile: a normal row per point, and per pair one friction
//! patch (one per ball or capsule part where a compound touches at several) — the tangential
//! impulse at the points' centre of pressure inside the disk `μ·Σp_n`, and a twisting impulse
//! about the normal inside μ times the loads' spread about that centre — rather than a friction
//! disk per point (see `Patch` for why).
//!
//! ## Why this stays exact
//! The prediction is only a way to choose impulses. Every pair stays in the event heap with its
//! conservative time-of-impact bound: a contact point whose prediction was wrong (a new feature,
//! a fast spin) is caught by the ordinary event machinery before it penetrates, and collisions
//! faster than the resting threshold are never taken from it.
//!
//! ## Where it lives
//! - [`RestingContact`], [`StepSettings`], [`StepReport`] (here): a step's input and report;
//! - `tracked_point`: contact points carried through a step on their bodies ([`TrackedPoint`]);
//! - `prediction`: the step-mean motion the constraints are written in, and
//!   [`predicted_separation`];
//! - `patch`: a pair's normal rows and friction patch, and the step's constraints;
//! - `solver`: [`Solver::solve`], one contact step from contacts to impulses, stage by stage:
//!   - `prepare`: the rows and patches built from the contacts;
//!   - `split`: the bodies' velocity slots, and the tree of parts a large step is swept in on
//!     several threads;
//!   - `warm_start`: the previous step's impulses, reapplied (and kept at the step's end);
//!   - `sweep`: the projected Gauss–Seidel sweeps and when they stop, run over the tree;
//!   - `lanes`: each node's sweeps four patches at a time in vector lanes (the host's
//!     default; `sweep::sweep_patch` is its scalar twin, bit for bit);
//!   - `colouring`: or in colour order, each colour's patches sharing no moving body (the
//!     f64 reference of `device_sweep`, the sweeps on a GPU: [`Sweeps`]);
//!   - `shock`: the shock-propagation levels swept after them;
//!   - `push_apart`: the push-out of contacts nearer than the target, as velocities the bodies
//!     keep for the step only (split impulses);
//! - `slots`: the bodies' velocities inside the solver;
//! - `friction`: a patch's friction rows, shared by the sweeps, shock propagation and push-out;
//! - `crew`: the pool threads that sweep a level's parts at once.

mod colouring;
mod crew;
mod device_sweep;
mod friction;
mod lanes;
mod parallel_append;
mod patch;
mod prediction;
mod prepare;
mod push_apart;
mod shock;
mod slots;
mod solver;
mod split;
mod sweep;
mod tracked_point;
mod warm_start;

#[cfg(test)]
mod tests;

pub(crate) use colouring::Colouring;
pub use prediction::predicted_separation;
pub use solver::{Solver, Sweeps};
pub use tracked_point::{tracked_contacts, TrackedPoint};

use crate::narrow_phase::ContactPoint;
use glam::DVec3;

/// One resting contact point between bodies `a` and `b` at the start of a contact step.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct RestingContact {
    /// First body (the normal points from b to a).
    pub a: u32,
    /// Second body.
    pub b: u32,
    /// Contact point, world (m).
    pub position: DVec3,
    /// Unit normal from b to a.
    pub normal: DVec3,
    /// Separation at the step's start (m; negative: overlap).
    pub separation: f64,
    /// Coulomb friction coefficient of the pair.
    pub friction: f64,
}

impl RestingContact {
    /// The contact of bodies `a`, `b` at the narrow phase's point `p`, with the pair's friction.
    pub fn at(a: usize, b: usize, p: &ContactPoint, friction: f64) -> Self {
        RestingContact {
            a: a as u32,
            b: b as u32,
            position: p.position,
            normal: p.normal,
            separation: p.separation,
            friction,
        }
    }

    /// Its point as the narrow phase gives one: the inverse of [`RestingContact::at`].
    pub fn point(&self) -> ContactPoint {
        ContactPoint {
            position: self.position,
            separation: self.separation,
            normal: self.normal,
        }
    }
}

/// A contact's impulse over one solve, as [`Solver::solve`] reports it: `+normal_impulse·normal`
/// and a tangential impulse of `tangent_impulse` act on body `a`, the opposite on `b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactImpulse {
    /// The pair (body indices).
    pub a: usize,
    pub b: usize,
    /// The contact point (m, world) and its unit normal (from b towards a).
    pub point: DVec3,
    pub normal: DVec3,
    /// Accumulated normal impulse (N·s, > 0).
    pub normal_impulse: f64,
    /// This point's share of the pair's friction impulse (N·s).
    pub tangent_impulse: f64,
}

/// Settings of one contact step.
#[derive(Clone, Copy, Debug)]
pub struct StepSettings {
    /// Step length h (s).
    pub h: f64,
    /// Gravity (m/s²).
    pub gravity: DVec3,
    /// Separation every contact point should have at the step's end (m).
    pub target: f64,
    /// Stop iterating once no impulse changes a point's predicted end position by more than
    /// this (m).
    pub tolerance: f64,
    /// Most Gauss–Seidel sweeps.
    pub max_iterations: usize,
    /// Fraction of a contact's shortfall below the target restored over the step (see
    /// `bias`).
    pub push_out: f64,
    /// Restore the shortfall by a push-out the bodies keep for the step only (split impulses,
    /// see `push_apart`); otherwise by the contact rows' own bias, as a velocity that stays.
    pub split_push: bool,
    /// Sweeps per level of the shock-propagation pass after the Gauss–Seidel sweeps (0: none;
    /// see `shock`).
    pub shock_iterations: usize,
    /// Stop sweeping once the residual fell by less than a fifth over this many sweeps (from
    /// twice this many on; 0: never). Projected Gauss–Seidel with friction cones can stall or
    /// cycle short of the tolerance; then further sweeps up to `max_iterations` buy nothing.
    pub stall_window: usize,
}

/// What one contact step did.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepReport {
    /// Gauss–Seidel sweeps done.
    pub iterations: usize,
    /// Largest change of a predicted end position in the last sweep (m).
    pub residual: f64,
    /// Wall time of the stages before the sweeps (s): prepare, order, slots and tree, warm
    /// start, shock levels, lanes' groups.
    pub prepare_seconds: f64,
    /// Wall time of the sweeps and the shock-propagation pass (s).
    pub sweep_seconds: f64,
    /// Of `sweep_seconds`, the shock-propagation pass (s).
    pub shock_seconds: f64,
    /// Wall time of the store stages after the sweeps (s): velocities, push-out, impulses
    /// reported and kept.
    pub store_seconds: f64,
    /// Whether the Gauss–Seidel sweeps ran on a device ([`Sweeps::Device`]), and the wall time
    /// of that call (packing, upload, the device's work, readback, unpacking; s).
    pub on_device: bool,
    pub device_seconds: f64,
}
