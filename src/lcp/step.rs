//! One step's contact impulses by Stewart & Trinkle 1996 (§3): the discrete Newton–Euler
//! equations (5) with the non-penetration (7), the polyhedral friction cone (8)–(9) and their
//! complementarity (10)–(12), written as a pure LCP in the impulses (`p_n = h c_n`, `β`) and
//! the sliding-speed bound `λ`, and solved by Lemke's method ([`super::lemke`]) per group of
//! contacts that share a moving body.

use super::lemke::{self, LemkeError};
use crate::body::Body;
use crate::constraint_row::{apply, fill_couplings, velocity, End};
use crate::union_find::UnionFind;
use glam::DVec3;

/// The relative relaxation of each step's LCP rows ([`lemke::solve_relaxed`]: why Lemke's
/// method needs it on contacts at rest): 10⁻⁹ of the largest scaled entry of q, a normal
/// velocity of nanometres per second where the bodies move at metres per second.
const RELAXATION: f64 = 1e-9;

/// A contact of the step: bodies a and b, the point, the unit normal from b to a, the gap
/// (m, negative when penetrating) and the pair's friction coefficient.
#[derive(Clone, Copy, Debug)]
pub struct LcpContact {
    pub a: usize,
    pub b: usize,
    pub point: DVec3,
    pub normal: DVec3,
    pub gap: f64,
    pub friction: f64,
}

/// What the step's LCPs took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LcpReport {
    /// LCPs solved (one per group of contacts sharing a moving body).
    pub problems: usize,
    /// Their sizes summed, and the largest.
    pub rows: usize,
    pub largest: usize,
    /// Lemke pivots summed.
    pub pivots: usize,
}

/// The two ends of the row of direction `d` at contact `c` (a's relative velocity along d).
fn row(bodies: &[Body], c: &LcpContact, d: DVec3) -> [End; 2] {
    let r = |i: usize| c.point - bodies[i].position;
    [
        End::new(bodies, Some(c.a), d, r(c.a).cross(d)),
        End::new(bodies, Some(c.b), -d, -(r(c.b).cross(d))),
    ]
}

/// The `count` unit directions of the polyhedral friction cone at normal `n` (eq. 3's `d_i`,
/// evenly spaced in the tangent plane, the paper's choice in §4.2), the first along world x
/// projected on the tangent plane (world y where the normal is within 45° of x). The cone is
/// exact along its edges and cuts the circle's friction by up to cos(π / count) between them,
/// so fixing the first edge to the world's axes makes a motion along x (a block sliding down a
/// slope that falls along x) meet the paper's exact friction rather than an angle that depends
/// on how the normal's arbitrary tangent was picked.
fn directions(n: DVec3, count: usize) -> Vec<DVec3> {
    let axis = if n.x.abs() < std::f64::consts::FRAC_1_SQRT_2 {
        DVec3::X
    } else {
        DVec3::Y
    };
    let t1 = (axis - axis.dot(n) * n).normalize();
    let t2 = n.cross(t1);
    (0..count)
        .map(|j| {
            let a = std::f64::consts::TAU * j as f64 / count as f64;
            a.cos() * t1 + a.sin() * t2
        })
        .collect()
}

/// Applies to the bodies' velocities (already holding `h` times the applied forces' change,
/// i.e. `v_l + h M⁻¹ f_ext`) the impulses of the step's LCP over `contacts`, with `count`
/// friction directions per contact and a pivot budget of `budget_per_row` times each LCP's
/// size. The contacts are grouped by the moving bodies they share, one LCP per group.
pub fn apply_contact_impulses(
    bodies: &mut [Body],
    contacts: &[LcpContact],
    h: f64,
    count: usize,
    budget_per_row: usize,
    impulses: &mut Vec<LcpImpulse>,
) -> Result<LcpReport, LemkeError> {
    let mut report = LcpReport::default();
    impulses.clear();
    for group in groups(bodies, contacts) {
        let (size, pivots) = solve_group(bodies, &group, h, count, budget_per_row, impulses)?;
        report.problems += 1;
        report.rows += size;
        report.largest = report.largest.max(size);
        report.pivots += pivots;
    }
    Ok(report)
}

/// The contacts in groups joined through shared moving bodies (fixed and kinematic ones join
/// nothing: their velocities are given), in the order of their first contact.
fn groups(bodies: &[Body], contacts: &[LcpContact]) -> Vec<Vec<LcpContact>> {
    let mut sets = UnionFind::default();
    sets.reset(bodies.len());
    let moves = |i: usize| bodies[i].is_awake_dynamic();
    for c in contacts {
        if moves(c.a) && moves(c.b) {
            sets.union(c.a as u32, c.b as u32);
        }
    }
    sets.flatten();
    let mut index = vec![usize::MAX; bodies.len()];
    let mut out: Vec<Vec<LcpContact>> = Vec::new();
    for c in contacts {
        let owner = if moves(c.a) { c.a } else { c.b };
        let r = sets.root(owner) as usize;
        if index[r] == usize::MAX {
            index[r] = out.len();
            out.push(Vec::new());
        }
        out[index[r]].push(*c);
    }
    out
}

/// A contact's impulses over a step: normal `p_n` and the friction impulse `D β` (on a).
#[derive(Clone, Copy, Debug)]
pub struct LcpImpulse {
    /// The contact.
    pub contact: LcpContact,
    /// Normal impulse p_n = h c_n (N·s).
    pub normal: f64,
    /// Friction impulse D β (N·s, in the tangent plane).
    pub friction: DVec3,
}

/// Builds and solves one group's LCP (z = [p_n; β; λ]) and applies its impulses, appending the
/// contacts' impulses that are not zero to `impulses`; returns its size and pivots.
fn solve_group(
    bodies: &mut [Body],
    contacts: &[LcpContact],
    h: f64,
    count: usize,
    budget_per_row: usize,
    impulses: &mut Vec<LcpImpulse>,
) -> Result<(usize, usize), LemkeError> {
    let k = contacts.len();
    let mut rows: Vec<[End; 2]> = Vec::with_capacity(k * (count + 1));
    for c in contacts {
        rows.push(row(bodies, c, c.normal));
    }
    for c in contacts {
        for d in directions(c.normal, count) {
            rows.push(row(bodies, c, d));
        }
    }
    let rows_len = rows.len();
    let size = rows_len + k;
    let mut m = vec![0.0; size * size];
    fill_couplings(&rows, &mut m, size);
    // A contact set is often degenerate (a ball on a table touching two balls, a box's four
    // corners on the floor: more rows than the bodies' freedoms), and M is then singular. It is
    // not regularized: a diagonal of ε turns the exact zeros of the degenerate directions into
    // pivots of size ε, which Lemke's method then takes and whose rounding it amplifies by 1/ε
    // (on funnel-250's box piles with ε = 10⁻⁹ this ended runs on false rays). The solver
    // recognises the zeros instead ([`lemke`]).
    for (c, contact) in contacts.iter().enumerate() {
        let lambda = rows_len + c;
        for j in 0..count {
            let f = k + c * count + j;
            // (8): λ e + Dᵀ v⁺ ≥ 0.
            m[f * size + lambda] = 1.0;
            // (9): μ c_n − eᵀ β ≥ 0.
            m[lambda * size + f] = -1.0;
        }
        m[lambda * size + c] = contact.friction;
    }
    let mut q = vec![0.0; size];
    for (i, r) in rows.iter().enumerate() {
        q[i] = velocity(bodies, r);
    }
    // (7), linearized at the step's end: gap + h nᵀ v⁺ ≥ 0, divided by h. An overlap is not
    // asked to close within the step (gap taken as 0): with it, several overlapping contacts
    // can ask for velocities no impulse gives, and the LCP has no solution (Anitescu & Potra
    // 1997); with gaps ≥ 0, v⁺ = 0 satisfies every row, and Lemke's method always ends.
    for (c, contact) in contacts.iter().enumerate() {
        q[c] += contact.gap.max(0.0) / h;
    }
    let solution = lemke::solve_relaxed(&m, &q, RELAXATION, budget_per_row * size)?;
    for (r, &z) in rows.iter().zip(&solution.z) {
        if z != 0.0 {
            apply(bodies, r, z);
        }
    }
    for (c, contact) in contacts.iter().enumerate() {
        let friction: DVec3 = directions(contact.normal, count)
            .into_iter()
            .enumerate()
            .map(|(j, d)| solution.z[k + c * count + j] * d)
            .sum();
        let normal = solution.z[c];
        if normal != 0.0 || friction != DVec3::ZERO {
            impulses.push(LcpImpulse {
                contact: *contact,
                normal,
                friction,
            });
        }
    }
    Ok((size, solution.pivots))
}

#[cfg(test)]
mod tests {
    use super::directions;
    use glam::DVec3;

    #[test]
    fn the_friction_directions_span_the_tangent_plane_evenly() {
        let n = DVec3::new(0.3, -0.2, 0.9).normalize();
        let d = directions(n, 8);
        let sum: DVec3 = d.iter().copied().sum();
        assert!(sum.length() < 1e-12);
        for x in &d {
            assert!(x.dot(n).abs() < 1e-12 && (x.length() - 1.0).abs() < 1e-12);
        }
    }
}
