//! The joints' impulses, solved for a whole articulation at once: the position-level prediction
//! over a step (SHAKE), the velocity projection (RATTLE's second half) and the articulated
//! collision matrix (Mirtich 1996 §4.1). Each joint is a few scalar rows (a relative velocity
//! of its anchors or of its bodies' spins along a world direction); the impulses of all the
//! rows come from one dense solve of `J M⁻¹ Jᵀ λ = r` ([`super::dense`]), exact where
//! Gauss–Seidel over a chain of links converges slowly.

use super::dense::Cholesky;
use super::{anchor, turned, Joint, JointKind, Joints};
use crate::ballistic;
use crate::body::{Body, SavedVelocity};
use crate::constraint_row::{apply, fill_couplings, velocity, End};
use glam::{DMat3, DQuat, DVec3};

/// A joint's predicted anchor mismatch (m) or angle (rad) below which the prediction is done.
pub const JOINT_TOLERANCE: f64 = 1e-10;
/// Most solves of one prediction (each re-predicts the poses: the rotations make it
/// nonlinear; it converges in two or three).
pub const MAX_JOINT_SOLVES: usize = 20;

/// One scalar row: the relative velocity, a's minus b's, of a joint's anchors (linear) or of
/// its bodies' spins (angular) along a world direction.
#[derive(Clone, Copy, Debug)]
struct Row {
    joint: usize,
    angular: bool,
    dir: DVec3,
    /// A limit's row (the other rows are the joint's own).
    limit: bool,
}

/// The rows of an articulation at the bodies' present poses, factored.
struct System {
    rows: Vec<Row>,
    ends: Vec<[End; 2]>,
    factor: Cholesky,
}

impl System {
    fn new(joints: &[Joint], bodies: &[Body], rows: Vec<Row>) -> System {
        let end = |i: Option<usize>, lin: DVec3, ang: DVec3| End::new(bodies, i, lin, ang);
        let ends: Vec<[End; 2]> = rows
            .iter()
            .map(|r| {
                let j = &joints[r.joint];
                let d = r.dir;
                if r.angular {
                    [end(j.a, DVec3::ZERO, d), end(j.b, DVec3::ZERO, -d)]
                } else {
                    let (pa, pb) = (
                        anchor(bodies, j.a, j.anchor_a),
                        anchor(bodies, j.b, j.anchor_b),
                    );
                    let centre = |i: Option<usize>| i.map_or(DVec3::ZERO, |k| bodies[k].position);
                    [
                        end(j.a, d, (pa - centre(j.a)).cross(d)),
                        end(j.b, -d, -(pb - centre(j.b)).cross(d)),
                    ]
                }
            })
            .collect();
        let n = rows.len();
        let mut a = vec![0.0; n * n];
        fill_couplings(&ends, &mut a, n);
        System {
            factor: Cholesky::new(&a, n),
            rows,
            ends,
        }
    }

    /// `J v` of row `i` now.
    fn velocity(&self, bodies: &[Body], i: usize) -> f64 {
        velocity(bodies, &self.ends[i])
    }

    /// Solves for the impulses that change the rows' velocities by `rhs` and applies them.
    fn apply(&self, bodies: &mut [Body], rhs: &mut [f64]) {
        self.factor.solve(rhs);
        for (ends, &lambda) in self.ends.iter().zip(rhs.iter()) {
            apply(bodies, ends, lambda);
        }
    }

    /// Sets every row's velocity to zero (the limits' rows: to no approach), exactly.
    fn project(&self, bodies: &mut [Body]) {
        let mut rhs: Vec<f64> = (0..self.rows.len())
            .map(|i| -self.velocity(bodies, i))
            .collect();
        self.apply(bodies, &mut rhs);
    }
}

/// Body `i`'s ballistic pose after `h` from its present state (the world end: identity).
fn predicted(bodies: &[Body], i: Option<usize>, h: f64, gravity: DVec3) -> (DVec3, DQuat) {
    let Some(k) = i else {
        return (DVec3::ZERO, DQuat::IDENTITY);
    };
    let b = &bodies[k];
    if !b.is_awake_dynamic() || h == 0.0 {
        return (b.position, b.orientation);
    }
    let (x, _) = ballistic::advance_linear(b.position, b.velocity, gravity, h);
    let (q, _) = ballistic::advance_rotation(b.orientation, b.angular_velocity, b.inertia, h);
    (x, q)
}

/// Two unit directions perpendicular to the unit `axis`.
fn plane(axis: DVec3) -> [DVec3; 2] {
    let d1 = axis.any_orthonormal_vector();
    [d1, axis.cross(d1)]
}

/// A hinge's angle (b turned against a about the axis) at the orientations given (rad).
fn hinge_angle(j: &Joint, qa: DQuat, qb: DQuat) -> f64 {
    let (axis, na, nb) = (qa * j.axis_a, qa * j.normal_a, qb * j.normal_b);
    na.cross(nb).dot(axis).atan2(na.dot(nb))
}

/// How far a value is past `limits` (0 inside).
fn past(value: f64, limits: Option<[f64; 2]>) -> f64 {
    match limits {
        Some([lo, _]) if value < lo => value - lo,
        Some([_, hi]) if value > hi => value - hi,
        _ => 0.0,
    }
}

/// The mismatches of a joint at the given poses: its anchors' (a's minus b's) and its
/// orientation's (the small rotation b needs, as a's spin minus b's must close it), and how
/// far its hinge angle or slider displacement is past its limits.
fn mismatch(j: &Joint, (xa, qa): (DVec3, DQuat), (xb, qb): (DVec3, DQuat)) -> (DVec3, DVec3, f64) {
    let (qa, qb) = (
        if j.a.is_some() { qa } else { DQuat::IDENTITY },
        if j.b.is_some() { qb } else { DQuat::IDENTITY },
    );
    let pa = if j.a.is_some() {
        xa + qa * j.anchor_a
    } else {
        j.anchor_a
    };
    let pb = if j.b.is_some() {
        xb + qb * j.anchor_b
    } else {
        j.anchor_b
    };
    let e = pa - pb;
    let (phi, over) = match j.kind {
        JointKind::Ball => (DVec3::ZERO, 0.0),
        JointKind::Hinge => {
            let (aa, ab) = (qa * j.axis_a, qb * j.axis_b);
            (ab.cross(aa), past(hinge_angle(j, qa, qb), j.limits))
        }
        JointKind::Slider | JointKind::Fixed => {
            let mut err = qa * j.relative * qb.inverse();
            if err.w < 0.0 {
                err = -err;
            }
            let over = match j.kind {
                JointKind::Slider => past(-e.dot(qa * j.axis_a), j.limits),
                _ => 0.0,
            };
            (2.0 * DVec3::new(err.x, err.y, err.z), over)
        }
    };
    (e, phi, over)
}

impl Joints {
    /// A joint's own rows at the bodies' present poses.
    fn joint_rows(&self, bodies: &[Body], k: usize, out: &mut Vec<Row>) {
        let j = &self.joints[k];
        let row = |angular, dir| Row {
            joint: k,
            angular,
            dir,
            limit: false,
        };
        let axis = turned(bodies, j.a, j.axis_a);
        match j.kind {
            JointKind::Slider => out.extend(plane(axis).map(|d| row(false, d))),
            _ => out.extend(DVec3::AXES.map(|d| row(false, d))),
        }
        match j.kind {
            JointKind::Ball => {}
            JointKind::Hinge => out.extend(plane(axis).map(|d| row(true, d))),
            JointKind::Slider | JointKind::Fixed => out.extend(DVec3::AXES.map(|d| row(true, d))),
        }
    }

    /// The row of joint `k`'s limit, along its axis (angular for a hinge, linear for a slider).
    fn limit_row(&self, bodies: &[Body], k: usize) -> Row {
        let j = &self.joints[k];
        Row {
            joint: k,
            angular: j.kind == JointKind::Hinge,
            dir: turned(bodies, j.a, j.axis_a),
            limit: true,
        }
    }

    /// The rows of the articulations `which`: each joint's own, and its limit's where
    /// `limit(k)` says it acts.
    fn rows(&self, bodies: &[Body], which: &[usize], limit: impl Fn(usize) -> bool) -> Vec<Row> {
        let mut rows = Vec::new();
        for &m in which {
            for &k in &self.articulations[m].1 {
                self.joint_rows(bodies, k, &mut rows);
                if self.joints[k].limits.is_some() && limit(k) {
                    rows.push(self.limit_row(bodies, k));
                }
            }
        }
        rows
    }

    /// The articulations `which`, or all of them.
    fn which(&self, which: Option<&[usize]>) -> Vec<usize> {
        which.map_or_else(
            || (0..self.articulations.len()).collect(),
            <[usize]>::to_vec,
        )
    }

    /// Impulses at the step's start (every body at its start) such that the bodies' ballistic
    /// poses after `h` satisfy every joint of the articulations `which` (all: `None`), within
    /// [`JOINT_TOLERANCE`]: Bender, Finckh & Schmitt's prediction, each solve giving the
    /// impulses that close the predicted mismatches over `h` through `J M⁻¹ Jᵀ` at the poses
    /// now, then predicting again. A limit acts once its prediction is past it. Returns the
    /// solves made.
    pub fn hold_over_step(
        &self,
        bodies: &mut [Body],
        which: Option<&[usize]>,
        h: f64,
        gravity: DVec3,
    ) -> usize {
        let mut solves = 0;
        if h <= 0.0 {
            return 0;
        }
        for m in self.which(which) {
            let joints = &self.articulations[m].1;
            let mut active = vec![false; self.joints.len()];
            let mut system: Option<System> = None;
            for _ in 0..MAX_JOINT_SOLVES {
                // The mismatches at the predicted poses; a limit newly passed joins the rows.
                let mut misses = Vec::with_capacity(joints.len());
                let mut grew = false;
                let mut worst: f64 = 0.0;
                for &k in joints {
                    let j = &self.joints[k];
                    let (fa, fb) = (
                        predicted(bodies, j.a, h, gravity),
                        predicted(bodies, j.b, h, gravity),
                    );
                    let (e, phi, over) = mismatch(j, fa, fb);
                    if over.abs() > JOINT_TOLERANCE && !active[k] {
                        active[k] = true;
                        grew = true;
                    }
                    misses.push((k, e, phi, over));
                }
                if grew || system.is_none() {
                    let rows = self.rows(bodies, &[m], |k| active[k]);
                    system = Some(System::new(&self.joints, bodies, rows));
                }
                let s = system.as_ref().expect("built above");
                let mut rhs = Vec::with_capacity(s.rows.len());
                for r in &s.rows {
                    let &(_, e, phi, over) = misses
                        .iter()
                        .find(|x| x.0 == r.joint)
                        .expect("a joint of the articulation");
                    let miss = match (r.limit, r.angular) {
                        // The joint's own rows: the mismatch along the row (a slider's or a
                        // hinge's axis excluded by the rows' directions).
                        (false, false) => e.dot(r.dir),
                        (false, true) => phi.dot(r.dir),
                        // A limit: back to it (an active limit holds at it).
                        (true, _) => -over,
                    };
                    if !r.limit || over != 0.0 {
                        worst = worst.max(miss.abs());
                    }
                    rhs.push(-miss / h);
                }
                if worst <= JOINT_TOLERANCE {
                    break;
                }
                s.apply(bodies, &mut rhs);
                solves += 1;
            }
        }
        solves
    }

    /// Projects the joints' relative velocities out of the articulations `which` (all:
    /// `None`): after it the anchors move together and hinges, sliders and fixed joints turn and
    /// slide only as they allow, and a joint at a limit stops moving past it. It is the
    /// constrained system's velocity, a linear projection: Mirtich 1996 §4.1's response of the
    /// articulation to an impulse on one of its bodies. Returns the solves made.
    pub fn project(&self, bodies: &mut [Body], which: Option<&[usize]>) -> usize {
        let mut solves = 0;
        for m in self.which(which) {
            let rows = self.rows(bodies, &[m], |k| {
                let (value, rate) = self.limited_motion(bodies, k);
                let [lo, hi] = self.joints[k]
                    .limits
                    .unwrap_or([f64::NEG_INFINITY, f64::INFINITY]);
                (value >= hi - 1e-9 && rate > 0.0) || (value <= lo + 1e-9 && rate < 0.0)
            });
            if rows.is_empty() {
                continue;
            }
            System::new(&self.joints, bodies, rows).project(bodies);
            solves += 1;
        }
        solves
    }

    /// Joint `k`'s limited coordinate now and its rate: a hinge's angle (rad, rad/s) or a
    /// slider's displacement of b's anchor along a's axis (m, m/s).
    fn limited_motion(&self, bodies: &[Body], k: usize) -> (f64, f64) {
        let j = &self.joints[k];
        let axis = turned(bodies, j.a, j.axis_a);
        let q = |i: Option<usize>| i.map_or(DQuat::IDENTITY, |i| bodies[i].orientation);
        match j.kind {
            JointKind::Hinge => {
                let w = |i: Option<usize>| i.map_or(DVec3::ZERO, |i| bodies[i].angular_velocity);
                (hinge_angle(j, q(j.a), q(j.b)), (w(j.b) - w(j.a)).dot(axis))
            }
            _ => {
                let (pa, pb) = (
                    anchor(bodies, j.a, j.anchor_a),
                    anchor(bodies, j.b, j.anchor_b),
                );
                let v =
                    |i: Option<usize>, x| i.map_or(DVec3::ZERO, |i| bodies[i].point_velocity(x));
                ((pb - pa).dot(axis), (v(j.b, pb) - v(j.a, pa)).dot(axis))
            }
        }
    }

    /// The collision matrix of a contact at `point` between a and b when either is jointed
    /// (Mirtich 1996 §4.1: `K = J H⁻¹ Jᵀ`, the relative velocity change at the point per unit
    /// impulse of the constrained system): column k is the projected response, from rest, to
    /// the unit impulse `e_k` at the point on a (−e_k on b). The bodies' velocities are left as
    /// they were. `saved` is a reusable buffer.
    pub fn articulated_matrix(
        &self,
        bodies: &mut [Body],
        (a, b): (usize, usize),
        point: DVec3,
        saved: &mut Vec<SavedVelocity>,
    ) -> DMat3 {
        let mut which: Vec<usize> = [a, b]
            .iter()
            .filter_map(|&i| self.articulation(i))
            .collect();
        which.sort_unstable();
        which.dedup();
        saved.clear();
        for &m in &which {
            for &i in &self.articulations[m].0 {
                saved.push(SavedVelocity::of(i, &bodies[i]));
            }
        }
        for i in [a, b] {
            if !saved.iter().any(|s| s.body == i) {
                saved.push(SavedVelocity::of(i, &bodies[i]));
            }
        }
        // The limits as the present velocities have them (a hinge resting on its stop stays
        // on it).
        let system = {
            let rows = self.rows(bodies, &which, |k| {
                let (value, _) = self.limited_motion(bodies, k);
                let [lo, hi] = self.joints[k]
                    .limits
                    .unwrap_or([f64::NEG_INFINITY, f64::INFINITY]);
                value >= hi - 1e-9 || value <= lo + 1e-9
            });
            System::new(&self.joints, bodies, rows)
        };
        let mut cols = [DVec3::ZERO; 3];
        for (k, col) in cols.iter_mut().enumerate() {
            for s in saved.iter() {
                bodies[s.body].velocity = DVec3::ZERO;
                bodies[s.body].angular_velocity = DVec3::ZERO;
            }
            let e = DVec3::AXES[k];
            bodies[a].apply_impulse(e, point);
            bodies[b].apply_impulse(-e, point);
            system.project(bodies);
            *col = bodies[a].point_velocity(point) - bodies[b].point_velocity(point);
        }
        for s in saved.iter() {
            s.restore(bodies);
        }
        // Symmetric in exact arithmetic; average away the rounding.
        let k = DMat3::from_cols(cols[0], cols[1], cols[2]);
        (k + k.transpose()) * 0.5
    }
}
