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
//! per-point impulses with each point's 3×3 collision matrix `K` (Bender & Schmitt's iteration
//! "until d_n(t₀+h) is zero within a tolerance"), which resolves the dependencies inside a pile.
//!
//! ## Why this stays exact
//! The prediction is only a way to choose impulses. Every pair stays in the event heap with its
//! conservative time-of-impact bound: a contact point whose prediction was wrong (a new feature,
//! a fast spin) is caught by the ordinary event machinery before it penetrates, and collisions
//! faster than the resting threshold are never taken from it.

use crate::body::Body;
use crate::collision_impulse::collision_matrix;
use glam::{DMat3, DVec3};

/// One resting contact point between bodies `a` and `b` at the start of a contact step.
#[derive(Clone, Copy, Debug)]
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
    /// [`bias`]).
    pub push_out: f64,
}

/// What one contact step did.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepReport {
    /// Gauss–Seidel sweeps done.
    pub iterations: usize,
    /// Largest change of a predicted end position in the last sweep (m).
    pub residual: f64,
}

/// Per-point solver state.
#[derive(Clone, Copy)]
struct Row {
    a: usize,
    b: usize,
    ra: DVec3,
    rb: DVec3,
    normal: DVec3,
    friction: f64,
    /// Required minimum of the step-mean normal velocity (m/s).
    bias: f64,
    /// Step-mean relative velocity the bodies' accelerations add: ½·h·a (m/s).
    drift: DVec3,
    k: DMat3,
    /// n·K·n: the normal row's inverse effective mass.
    k_nn: f64,
    /// Inverse of K restricted to the tangent plane (a 3×3 matrix acting on tangent vectors).
    k_tt_inv: DMat3,
    /// Accumulated impulse on a (−impulse on b).
    impulse: DVec3,
    /// The point in the frame of the body it is tracked on (for warm starting).
    local: DVec3,
    /// Height of the point along −gravity (sweep order: bottom up).
    height: f64,
}

/// A solved contact of the previous step, kept to warm-start the next one.
#[derive(Clone, Copy)]
struct Solved {
    a: u32,
    b: u32,
    local: DVec3,
    impulse: DVec3,
}

/// Reusable buffers for [`Solver::solve`], and the previous step's impulses.
#[derive(Default)]
pub struct Solver {
    rows: Vec<Row>,
    /// Last step's contacts, sorted by pair.
    previous: Vec<Solved>,
}

/// The body a contact point is tracked on between steps: b unless b does not move.
fn tracked(bodies: &[Body], a: usize, b: usize) -> usize {
    if bodies[b].is_awake_dynamic() {
        b
    } else {
        a
    }
}

impl Solver {
    /// Solves the contact step for `contacts` and applies the impulses to `bodies` (all at the
    /// step's start). Calls `pushed(a, b, normal)` once per contact that ended with a positive
    /// normal impulse (for the sleeping rule's support record). With `whole_step`, the
    /// contacts are all of a step's: warm-started from the previous step's impulses, and kept
    /// to warm-start the next; otherwise (a few contacts re-solved mid-step) neither.
    pub fn solve(
        &mut self,
        bodies: &mut [Body],
        contacts: &[RestingContact],
        settings: &StepSettings,
        whole_step: bool,
        mut pushed: impl FnMut(usize, usize, DVec3),
    ) -> StepReport {
        let h = settings.h;
        self.rows.clear();
        for c in contacts {
            let (a, b) = (c.a as usize, c.b as usize);
            let (ba, bb) = (&bodies[a], &bodies[b]);
            let (ra, rb) = (c.position - ba.position, c.position - bb.position);
            let k = collision_matrix(
                ba.effective_inv_mass(),
                &ba.inv_inertia_world(),
                ra,
                bb.effective_inv_mass(),
                &bb.inv_inertia_world(),
                rb,
            );
            let k_nn = c.normal.dot(k * c.normal);
            if k_nn.is_nan() || k_nn <= 1e-300 {
                continue; // neither body yields
            }
            let acc = relative_acceleration(ba, bb, ra, rb, c.normal, settings.gravity);
            let t = tracked(bodies, a, b);
            let local = bodies[t].orientation.inverse() * (c.position - bodies[t].position);
            self.rows.push(Row {
                a,
                b,
                ra,
                rb,
                normal: c.normal,
                friction: c.friction,
                bias: bias(c.separation, settings.target, settings.push_out, h),
                drift: 0.5 * h * acc,
                k,
                k_nn,
                k_tt_inv: tangent_inverse(&k, c.normal),
                impulse: DVec3::ZERO,
                local,
                height: -c.position.dot(settings.gravity),
            });
        }

        // Bottom up: in a pile the lower contacts carry the upper ones, so Gauss–Seidel
        // converges faster sweeping upwards (the idea behind shock propagation).
        self.rows
            .sort_unstable_by(|x, y| x.height.total_cmp(&y.height));
        if whole_step {
            self.warm_start(bodies);
        }

        let mut report = StepReport::default();
        for sweep in 0..settings.max_iterations {
            let mut residual: f64 = 0.0;
            for row in self.rows.iter_mut() {
                let (ba, bb) = (&bodies[row.a], &bodies[row.b]);
                let u = ba.velocity + ba.angular_velocity.cross(row.ra)
                    - bb.velocity
                    - bb.angular_velocity.cross(row.rb)
                    + row.drift;
                // Normal row first (eq. 8 with the clamp of eq. 3: the accumulated normal
                // impulse never pulls), then the tangential row inside the Coulomb disk (eq. 6):
                // separate rows, as Bender & Schmitt do, so a clamped friction impulse does not
                // spoil the normal one.
                let n = row.normal;
                let pn_old = row.impulse.dot(n);
                let pn = (pn_old + (row.bias - u.dot(n)) / row.k_nn).max(0.0);
                let u = u + (row.k * n) * (pn - pn_old);
                let ut = u - u.dot(n) * n;
                let pt_old = row.impulse - pn_old * n;
                let mut pt = pt_old - row.k_tt_inv * ut;
                pt -= pt.dot(n) * n;
                let limit = row.friction * pn;
                let len = pt.length();
                if len > limit {
                    pt *= limit / len;
                }
                let next = pn * n + pt;
                let delta = next - row.impulse;
                if delta == DVec3::ZERO {
                    continue;
                }
                residual = residual.max((row.k * delta).length() * h);
                bodies[row.a].apply_impulse(delta, row.ra + bodies[row.a].position);
                bodies[row.b].apply_impulse(-delta, row.rb + bodies[row.b].position);
                row.impulse = next;
            }
            report.iterations = sweep + 1;
            report.residual = residual;
            if residual <= settings.tolerance {
                break;
            }
        }
        for row in &self.rows {
            if row.impulse.dot(row.normal) > 0.0 {
                pushed(row.a, row.b, row.normal);
            }
        }
        if !whole_step {
            return report;
        }
        self.previous.clear();
        self.previous.extend(self.rows.iter().map(|r| Solved {
            a: r.a as u32,
            b: r.b as u32,
            local: r.local,
            impulse: r.impulse,
        }));
        self.previous.sort_unstable_by_key(|x| (x.a, x.b));
        report
    }

    /// Starts each row from the impulse its contact had at the end of the previous step (same
    /// pair, same point on the tracked body within a few percent of the body's size), kept
    /// inside the new friction cone, and applies those impulses. A resting pile then needs only
    /// the change since the last step, not to rebuild its whole weight chain from zero.
    fn warm_start(&mut self, bodies: &mut [Body]) {
        if self.previous.is_empty() {
            return;
        }
        for row in self.rows.iter_mut() {
            let key = (row.a as u32, row.b as u32);
            let start = self.previous.partition_point(|x| (x.a, x.b) < key);
            let t = tracked(bodies, row.a, row.b);
            let reach = 0.05 * bodies[t].bounding_radius.min(1e3);
            let mut best = None;
            let mut best_d = reach * reach;
            for old in self.previous[start..]
                .iter()
                .take_while(|x| (x.a, x.b) == key)
            {
                let d = (old.local - row.local).length_squared();
                if d <= best_d {
                    best_d = d;
                    best = Some(old.impulse);
                }
            }
            let Some(p) = best else { continue };
            let n = row.normal;
            let pn = p.dot(n).max(0.0);
            let mut pt = p - p.dot(n) * n;
            let limit = row.friction * pn;
            if pt.length() > limit {
                pt *= limit / pt.length();
            }
            let p = pn * n + pt;
            if p == DVec3::ZERO {
                continue;
            }
            row.impulse = p;
            bodies[row.a].apply_impulse(p, row.ra + bodies[row.a].position);
            bodies[row.b].apply_impulse(-p, row.rb + bodies[row.b].position);
        }
    }
}

/// The inverse of `K` on the tangent plane of `n`: with an orthonormal tangent basis `T`
/// (3×2), `T (Tᵀ K T)⁻¹ Tᵀ`, so that `p_t = −k_tt_inv · u_t` is the tangential impulse that
/// stops the tangential slip `u_t` (eq. 5 in both tangent directions at once).
fn tangent_inverse(k: &DMat3, n: DVec3) -> DMat3 {
    let (t1, t2) = n.any_orthonormal_pair();
    let (a, b, c, d) = (
        t1.dot(*k * t1),
        t1.dot(*k * t2),
        t2.dot(*k * t1),
        t2.dot(*k * t2),
    );
    let det = a * d - b * c;
    if det.is_nan() || det.abs() <= 1e-300 {
        return DMat3::ZERO;
    }
    // (TᵀKT)⁻¹ = [d −b; −c a] / det, mapped back to world vectors.
    let cols = |x: DVec3| {
        let (x1, x2) = (t1.dot(x), t2.dot(x));
        let (y1, y2) = ((d * x1 - b * x2) / det, (-c * x1 + a * x2) / det);
        t1 * y1 + t2 * y2
    };
    DMat3::from_cols(cols(DVec3::X), cols(DVec3::Y), cols(DVec3::Z))
}

/// Least step-mean normal velocity for a contact at separation `d0` (eq. 8 with a target): a
/// contact farther than the target may close to it over the step; one nearer may not close at
/// all and is pushed back the fraction `push_out` of the way. Pushing all the way at every step
/// (as eq. 8 does) can ask more of a jammed pile than its other contacts allow, and
/// Gauss–Seidel then trades one violated contact for another instead of converging.
fn bias(d0: f64, target: f64, push_out: f64, h: f64) -> f64 {
    if d0 >= target {
        (target - d0) / h
    } else {
        push_out * (target - d0) / h
    }
}

/// Relative acceleration of the two body points of a contact over a step: gravity, and the part
/// of the centripetal terms ω×(ω×r) that brings them together. Only that part: on a curved
/// surface (a rolling ball) the contact moves over the body, so the body point's centripetal
/// motion away from the contact says nothing about the separation, while a polytope's vertex
/// swinging towards the other body does close the gap.
fn relative_acceleration(
    ba: &Body,
    bb: &Body,
    ra: DVec3,
    rb: DVec3,
    normal: DVec3,
    gravity: DVec3,
) -> DVec3 {
    let (w_a, w_b) = (ba.angular_velocity, bb.angular_velocity);
    let spin = w_a.cross(w_a.cross(ra)) - w_b.cross(w_b.cross(rb));
    ba.acceleration(gravity) - bb.acceleration(gravity) + spin.dot(normal).min(0.0) * normal
}

/// Where contact `c`, flying ballistically from now, would be after a step of `settings.h` (m,
/// to second order): the test for whether a held pair needs its contacts solved again.
pub fn predicted_separation(bodies: &[Body], c: &RestingContact, settings: &StepSettings) -> f64 {
    let (ba, bb) = (&bodies[c.a as usize], &bodies[c.b as usize]);
    let (ra, rb) = (c.position - ba.position, c.position - bb.position);
    let u = ba.point_velocity(c.position) - bb.point_velocity(c.position)
        + 0.5 * settings.h * relative_acceleration(ba, bb, ra, rb, c.normal, settings.gravity);
    c.separation + settings.h * u.dot(c.normal)
}
