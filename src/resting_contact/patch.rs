//! A pair's constraints in one contact step: a normal [`Row`] per contact point and one friction
//! [`Patch`] per pair, how [`Solver::add_patch`] builds them from the pair's contacts, and how an
//! impulse on each is applied to the two bodies' velocities.

use super::prediction::{bias, flight_slip, push_bias, relative_acceleration};
use super::slots::Vel;
use super::warm_start::tracked;
use super::{RestingContact, Solver, StepSettings};
use crate::body::Body;
use crate::collision_impulse::collision_matrix;
use glam::{DMat3, DVec3};

/// Normal row of one contact point.
#[derive(Clone, Copy)]
pub(super) struct Row {
    pub(super) ra: DVec3,
    pub(super) rb: DVec3,
    pub(super) normal: DVec3,
    /// Required minimum of the step-mean normal velocity (m/s).
    pub(super) bias: f64,
    /// Required minimum of the step-mean normal push-out velocity (m/s; see `push_apart`).
    pub(super) push: f64,
    /// Step-mean normal velocity the bodies' accelerations add: n·½·h·a (m/s).
    pub(super) drift: f64,
    /// n·K·n: the row's inverse effective mass.
    pub(super) k_nn: f64,
    /// 1 / n·K·n, the row's effective mass: each update multiplies by it instead of
    /// dividing by `k_nn` (a division sat on the sweep's dependency chain from one row to the
    /// next, and was its hottest instruction).
    pub(super) inv_k_nn: f64,
    /// The effective masses of the row with only a, or only b, taking impulses (the
    /// shock-propagation pass's one-sided rows): 1 / (1/m_a + (r_a×n)·I_a⁻¹(r_a×n)), and the
    /// same for b; 0 where that body does not yield.
    pub(super) inv_k_a: f64,
    pub(super) inv_k_b: f64,
    /// Velocity change of a per unit normal impulse: linear `n/m_a`, angular `I_a⁻¹(r_a × n)`
    /// (and of b, with the opposite sign): the impulse is applied without re-forming the
    /// world inertia at every Gauss–Seidel update.
    pub(super) lin_a: DVec3,
    pub(super) ang_a: DVec3,
    pub(super) lin_b: DVec3,
    pub(super) ang_b: DVec3,
    /// Accumulated normal impulse on a (−impulse·n on b).
    pub(super) impulse: f64,
    /// The point in the frame of the body it is tracked on (for warm starting).
    pub(super) local: DVec3,
    /// Its offset from its patch's centroid across the normal (m), and that offset's square
    /// length: where its load puts the patch's centre of pressure ([`Load`]).
    pub(super) spread: DVec3,
    pub(super) spread_sq: f64,
}

/// The normal impulses of a patch's rows as its friction sees them: their total, and their
/// first and second moments of the points' offsets from the centroid across the normal
/// (Σ p, Σ p·s, Σ p·|s|²). The friction acts at the centre of pressure, where the moment of a
/// sliding pressure distribution's friction vanishes, and resists a twist by the loads' spread
/// about it.
#[derive(Clone, Copy, Default)]
pub(super) struct Load {
    pub(super) total: f64,
    first: DVec3,
    second: f64,
}

impl Load {
    /// Adds normal impulse `p` of `row`.
    #[inline(always)]
    pub(super) fn add(&mut self, p: f64, row: &Row) {
        self.add_point(p, row.spread, row.spread_sq);
    }

    /// Adds normal impulse `p` at offset `spread` from the centroid, whose square length is
    /// `spread_sq`.
    #[inline(always)]
    pub(super) fn add_point(&mut self, p: f64, spread: DVec3, spread_sq: f64) {
        self.total += p;
        self.first += spread * p;
        self.second += p * spread_sq;
    }

    /// The centre of pressure's offset from the centroid (zero without a load).
    #[inline(always)]
    pub(super) fn centre(&self) -> DVec3 {
        if self.total > 0.0 {
            self.first / self.total
        } else {
            DVec3::ZERO
        }
    }

    /// The loads' twisting lever about the centre of pressure, times their total: Σ p·ρ with
    /// ρ the root mean square distance from it (the mean distance for a face on its corners,
    /// 0 for a single loaded point).
    #[inline(always)]
    pub(super) fn twist_moment(&self) -> f64 {
        self.twist_moment_sq().sqrt()
    }

    /// The square of [`Self::twist_moment`].
    #[inline(always)]
    pub(super) fn twist_moment_sq(&self) -> f64 {
        (self.total * self.second - self.first.length_squared()).max(0.0)
    }
}

/// The contact points of one pair in one step, with their friction as one patch: a tangential
/// impulse at the points' centre of pressure bounded by `μ·Σp_n`, and a twisting impulse about
/// the normal bounded by `μ·Σp_n·ρ` with ρ the loads' RMS distance from that centre ([`Load`]).
///
/// Friction per point (each point's own Coulomb disk) is the literal reading of eq. 6, but a
/// face resting on four corners is statically indeterminate: Gauss–Seidel settles on one of
/// many normal load sets, generally lopsided, and per-point friction proportional to lopsided
/// loads twists a sliding block about the normal and makes it slide too fast. The friction of
/// a sliding pressure distribution has its resultant at the centre of pressure whatever the
/// distribution, which is what the patch applies; on a face the indeterminate part of the
/// loads moves neither that centre nor ρ. The centroid below is where the patch's effective
/// masses are taken.
#[derive(Clone, Copy)]
pub(super) struct Patch {
    pub(super) a: usize,
    pub(super) b: usize,
    /// Centroid of the points relative to each centre of mass.
    pub(super) ra: DVec3,
    pub(super) rb: DVec3,
    pub(super) normal: DVec3,
    pub(super) friction: f64,
    /// Step-mean relative velocity the accelerations add at the centroid: ½·h·a (m/s).
    pub(super) drift: DVec3,
    /// Collision matrix K at the centroid.
    pub(super) k: DMat3,
    /// Effective inverse masses and world inverse inertias of a and b (0 for bodies that do
    /// not yield).
    pub(super) inv_mass_a: f64,
    pub(super) inv_mass_b: f64,
    pub(super) inv_inertia_a: DMat3,
    pub(super) inv_inertia_b: DMat3,
    /// Inverse of K at the centroid restricted to the tangent plane.
    pub(super) k_tt_inv: DMat3,
    /// Inverse of `n·(I_a⁻¹ + I_b⁻¹)·n`: the twisting row's effective inertia (0: no twist).
    pub(super) twist_inv: f64,
    /// Mean distance of the points from the centroid (m): the scale of the twisting row's
    /// residual (its limit comes from the loads, [`Load::twist_moment`]).
    pub(super) radius: f64,
    /// Its normal rows: `rows[first..first + count]`.
    pub(super) first: usize,
    pub(super) count: usize,
    /// Accumulated tangential impulse on a (at the centre of pressure).
    pub(super) tangential: DVec3,
    /// Accumulated twisting impulse on a about the normal (N·m·s).
    pub(super) twist: f64,
    /// Height of the centroid along −gravity (sweep order: bottom up).
    pub(super) height: f64,
    /// Velocity slots of a and b (see [`Solver::assign_slots`]).
    pub(super) sa: u32,
    pub(super) sb: u32,
    /// Node of the step's tree of parts (heap numbering, root 1; see `split`).
    pub(super) node: u8,
    /// Where the pair's entries of the previous step start in `Solver::previous` and
    /// `Solver::previous_patches` (u32::MAX: none), found for the warm start while the patches
    /// are still in pair order.
    pub(super) previous_rows: u32,
    pub(super) previous_patch: u32,
    /// Which of its pair's patches this is, in the order they were added (0 for a pair with
    /// one; see `Solver::add_patches`).
    pub(super) group: u16,
}

impl Row {
    /// Applies normal impulse `dp` (on a; −dp on b) to the velocities `va`, `vb` of a and b
    /// (each only if it moves).
    pub(super) fn apply_to(
        &self,
        va: &mut Vel,
        vb: &mut Vel,
        a_moves: bool,
        b_moves: bool,
        dp: f64,
    ) {
        if a_moves {
            va.v += self.lin_a * dp;
            va.w += self.ang_a * dp;
        }
        if b_moves {
            vb.v += -(self.lin_b * dp);
            vb.w += -(self.ang_b * dp);
        }
    }
}

impl Patch {
    /// Where the friction of `load` acts: its centre of pressure, from a's and from b's centre
    /// of mass.
    #[inline(always)]
    pub(super) fn pressure_point(&self, load: &Load) -> (DVec3, DVec3) {
        let centre = load.centre();
        (self.ra + centre, self.rb + centre)
    }

    /// Applies tangential impulse `p` at `ra`, `rb` from the centres of mass (the centre of
    /// pressure, [`Self::pressure_point`]) and twisting impulse `twist` about the normal (on a;
    /// the opposite on b) to the velocities `va`, `vb` of a and b (each only if it moves).
    #[inline(always)]
    pub(super) fn apply_at(
        &self,
        va: &mut Vel,
        vb: &mut Vel,
        [a_moves, b_moves]: [bool; 2],
        (ra, rb): (DVec3, DVec3),
        p: DVec3,
        twist: f64,
    ) {
        let l = self.normal * twist;
        if a_moves {
            va.v += p * self.inv_mass_a;
            va.w += self.inv_inertia_a * (ra.cross(p) + l);
        }
        if b_moves {
            vb.v += -(p * self.inv_mass_b);
            vb.w += -(self.inv_inertia_b * (rb.cross(p) + l));
        }
    }
}

impl Solver {
    /// Adds the rows of one pair's contact points and their patch.
    pub(super) fn add_patch(
        &mut self,
        bodies: &[Body],
        points: &[RestingContact],
        settings: &StepSettings,
    ) {
        let h = settings.h;
        let (a, b) = (points[0].a as usize, points[0].b as usize);
        let (ba, bb) = (&bodies[a], &bodies[b]);
        let first = self.rows.len();
        let t = tracked(bodies, a, b);
        let (inv_inertia_a, inv_inertia_b) = (ba.inv_inertia_world(), bb.inv_inertia_world());
        // The collision matrix K of a point at r_a, r_b from the two centres of mass.
        let k_at = |ra: DVec3, rb: DVec3| {
            collision_matrix(
                ba.effective_inv_mass(),
                &inv_inertia_a,
                ra,
                bb.effective_inv_mass(),
                &inv_inertia_b,
                rb,
            )
        };
        let mut centroid = DVec3::ZERO;
        let mut normal = DVec3::ZERO;
        // Half the gap along the normal, summed: each body's own surface point is that far
        // from the contact's midpoint (a's towards a, b's towards b).
        let mut half_gap = DVec3::ZERO;
        for c in points {
            let (ra, rb) = (c.position - ba.position, c.position - bb.position);
            let n = c.normal;
            let (ang_a, ang_b) = (inv_inertia_a * ra.cross(n), inv_inertia_b * rb.cross(n));
            // n·K·n without forming K: 1/m_a + (r_a×n)·I_a⁻¹(r_a×n), and the same for b.
            let k_a = ba.effective_inv_mass() + ra.cross(n).dot(ang_a);
            let k_b = bb.effective_inv_mass() + rb.cross(n).dot(ang_b);
            let k_nn = k_a + k_b;
            if k_nn.is_nan() || k_nn <= 1e-300 {
                continue; // neither body yields
            }
            let inverse = |k: f64| if k > 1e-300 { 1.0 / k } else { 0.0 };
            let acc = relative_acceleration(ba, bb, ra, rb, n, settings.gravity, h);
            let shortfall = push_bias(c.separation, settings.target, settings.push_out, h);
            self.rows.push(Row {
                ra,
                rb,
                normal: n,
                // With split push-outs the row only stops a near contact from closing; the
                // push-out restores its shortfall (`push_apart`). Otherwise the row's own bias
                // does, as a velocity that stays.
                bias: if settings.split_push {
                    bias(c.separation, settings.target, h)
                } else {
                    bias(c.separation, settings.target, h) + shortfall
                },
                push: if settings.split_push { shortfall } else { 0.0 },
                drift: 0.5 * h * acc.dot(n),
                k_nn,
                inv_k_nn: 1.0 / k_nn,
                inv_k_a: inverse(k_a),
                inv_k_b: inverse(k_b),
                lin_a: n * ba.effective_inv_mass(),
                ang_a,
                lin_b: n * bb.effective_inv_mass(),
                ang_b,
                impulse: 0.0,
                local: bodies[t].orientation.inverse() * (c.position - bodies[t].position),
                spread: DVec3::ZERO,
                spread_sq: 0.0,
            });
            centroid += c.position;
            normal += c.normal;
            half_gap += 0.5 * c.separation * c.normal;
        }
        let count = self.rows.len() - first;
        if count == 0 {
            return;
        }
        let centroid = centroid / count as f64;
        let normal = normal.normalize_or(points[0].normal);
        for r in &mut self.rows[first..] {
            let d = r.ra + ba.position - centroid;
            r.spread = d - d.dot(normal) * normal;
            r.spread_sq = r.spread.length_squared();
        }
        let radius = self.rows[first..]
            .iter()
            .map(|r| r.spread_sq.sqrt())
            .sum::<f64>()
            / count as f64;
        // A ball or capsule rolling on a body that takes no impulse (a floor, a kinematic
        // platter) has its friction act between the two bodies' own surface points, not at the
        // midpoint of the gap: there it would roll on r + gap/2 (2.5 % too fast for its spin
        // at r = 1 cm and a gap of ε_c/2 = 0.5 mm). Elsewhere at the midpoint: between two
        // bodies that both yield, equal and opposite impulses at two points a gap apart would
        // turn the pair (angular momentum must be kept), and a face resting on a face does not
        // roll (moving its friction off the midpoint only changed how a flat coin rocks).
        let rolls = |b: &Body, p: DVec3| {
            b.collider
                .rolling_core(b.orientation.inverse() * (p - b.position))
                .is_some()
        };
        let half_gap = half_gap / count as f64;
        let half_gap = match (ba.effective_inv_mass() > 0.0, bb.effective_inv_mass() > 0.0) {
            (true, false) if rolls(ba, centroid + half_gap) => half_gap,
            (false, true) if rolls(bb, centroid - half_gap) => half_gap,
            _ => DVec3::ZERO,
        };
        let (ra, rb) = (
            centroid + half_gap - ba.position,
            centroid - half_gap - bb.position,
        );
        let k = k_at(ra, rb);
        let twist_k = normal.dot(inv_inertia_a * normal) + normal.dot(inv_inertia_b * normal);
        // A slip the step could not move the points by more than the solve's tolerance is
        // left out: on a resting stack it is the sweeps' own residual spin, noise that would
        // only cost sweeps.
        let slip = flight_slip(ba, bb, ra, rb, normal, h);
        let slip = if slip.length() * h > settings.tolerance {
            slip
        } else {
            DVec3::ZERO
        };
        self.patches.push(Patch {
            a,
            b,
            ra,
            rb,
            normal,
            friction: points[0].friction,
            drift: 0.5 * h * relative_acceleration(ba, bb, ra, rb, normal, settings.gravity, h)
                + slip,
            k,
            inv_mass_a: ba.effective_inv_mass(),
            inv_mass_b: bb.effective_inv_mass(),
            inv_inertia_a,
            inv_inertia_b,
            k_tt_inv: tangent_inverse(&k, normal),
            twist_inv: if twist_k > 1e-300 && radius > 0.0 {
                1.0 / twist_k
            } else {
                0.0
            },
            radius,
            first,
            count,
            tangential: DVec3::ZERO,
            twist: 0.0,
            height: -centroid.dot(settings.gravity),
            sa: u32::MAX,
            sb: u32::MAX,
            node: 1,
            previous_rows: u32::MAX,
            previous_patch: u32::MAX,
            group: 0,
        });
    }
}

/// The inverse of `K` on the tangent plane of `n`: with an orthonormal tangent basis `T`
/// (3×2), `T (Tᵀ K T)⁻¹ Tᵀ`, so that `p_t = −k_tt_inv · u_t` is the tangential impulse that
/// stops the tangential slip `u_t` (eq. 5 in both tangent directions at once).
pub(super) fn tangent_inverse(k: &DMat3, n: DVec3) -> DMat3 {
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
