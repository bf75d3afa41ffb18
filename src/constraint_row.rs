//! One row of a constraint Jacobian between two bodies, the unit the joints' solver and the
//! LCP method's steps are built from: each end's Jacobian entries and its velocity change per
//! unit impulse `M⁻¹ Jᵀ`, the row's velocity `J v`, the coupling `J_i M⁻¹ J_kᵀ` of two rows,
//! and an impulse along a row applied.

use crate::body::Body;
use glam::DVec3;

/// One end of a row: the body (`None`: the world), its Jacobian entries (linear, angular:
/// signed, a's positive) and the velocity change per unit impulse `M⁻¹ Jᵀ` (zero for an end
/// that does not yield).
#[derive(Clone, Copy)]
pub struct End {
    pub body: Option<usize>,
    pub lin: DVec3,
    pub ang: DVec3,
    pub dv: DVec3,
    pub dw: DVec3,
}

impl End {
    /// The end of body `body` with Jacobian entries `lin`, `ang`.
    pub fn new(bodies: &[Body], body: Option<usize>, lin: DVec3, ang: DVec3) -> End {
        let (dv, dw) = match body {
            Some(k) if bodies[k].is_awake_dynamic() => (
                lin * bodies[k].inv_mass,
                bodies[k].inv_inertia_world() * ang,
            ),
            _ => (DVec3::ZERO, DVec3::ZERO),
        };
        End {
            body,
            lin,
            ang,
            dv,
            dw,
        }
    }
}

/// `J v` of a row now.
pub fn velocity(bodies: &[Body], ends: &[End; 2]) -> f64 {
    ends.iter()
        .filter_map(|e| {
            e.body
                .map(|k| e.lin.dot(bodies[k].velocity) + e.ang.dot(bodies[k].angular_velocity))
        })
        .sum()
}

/// `J_i M⁻¹ J_kᵀ` of two rows.
pub fn coupling(x: &[End; 2], y: &[End; 2]) -> f64 {
    let mut s = 0.0;
    for e in x {
        for f in y {
            if e.body.is_some() && e.body == f.body {
                s += e.lin.dot(f.dv) + e.ang.dot(f.dw);
            }
        }
    }
    s
}

/// Writes `J M⁻¹ Jᵀ` of `rows` into the top-left corner of the row-major matrix `m` whose rows
/// are `stride` long (symmetric: each coupling computed once).
pub fn fill_couplings(rows: &[[End; 2]], m: &mut [f64], stride: usize) {
    for i in 0..rows.len() {
        for k in i..rows.len() {
            let s = coupling(&rows[i], &rows[k]);
            m[i * stride + k] = s;
            m[k * stride + i] = s;
        }
    }
}

/// Applies impulse `lambda` along a row to its yielding bodies.
pub fn apply(bodies: &mut [Body], ends: &[End; 2], lambda: f64) {
    for e in ends {
        if let Some(k) = e.body {
            if bodies[k].is_awake_dynamic() {
                bodies[k].velocity += lambda * e.dv;
                bodies[k].angular_velocity += lambda * e.dw;
            }
        }
    }
}
