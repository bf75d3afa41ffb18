//! The friction rows of one patch ([`friction_rows`], eq. 5–6 of Bender & Schmitt 2006, §3.2,
//! as a patch: see `Patch`), shared by the Gauss–Seidel sweeps (`sweep`), the shock-propagation
//! pass (`shock`) and the push-out (`push_apart`).

use super::patch::{Load, Patch, Row};
use super::slots::Vel;
use glam::{DMat3, DVec3};

/// The friction rows of one patch, after its normal rows' impulses made `load`: the tangential
/// impulse at the centre of pressure inside the Coulomb disk `μ·Σp` (eq. 5–6), then the
/// twisting impulse about the normal inside μ times the loads' twisting moment about it, each
/// applied to the bodies that `moves`, with the tangent-plane inverse `k_tt_inv` and twisting
/// inverse `twist_inv` of those bodies (taken at the centroid: they set the step towards the
/// solution, not the solution).
/// Returns the square of the largest change of a predicted end position over a step of `h`
/// (squared: no square root for a residual that is only compared).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn friction_rows(
    patch: &mut Patch,
    rows: &[Row],
    va: &mut Vel,
    vb: &mut Vel,
    moves: [bool; 2],
    load: Load,
    k_tt_inv: DMat3,
    twist_inv: f64,
    h: f64,
) -> f64 {
    let mut residual_sq: f64 = 0.0;
    let n = patch.normal;
    let total = load.total;
    // The centre of pressure: a curved body modelled as a hull touches on its lowest vertex
    // while its neighbours within the margin carry nothing, and friction at their centroid
    // would resist its spin about that vertex as a slip.
    let at = patch.pressure_point(&load);
    let u = va.v + va.w.cross(at.0) - vb.v - vb.w.cross(at.1) + patch.drift;
    let ut = u - u.dot(n) * n;
    let mut pt = patch.tangential - k_tt_inv * ut;
    pt -= pt.dot(n) * n;
    // Compared squared: the square root is only taken where the impulse is clamped (a
    // sliding patch), not for every sticking one.
    let (slide_share, twist_share) = sliding_shares(patch, rows);
    let limit = patch.friction * slide_share * total;
    let len_sq = pt.length_squared();
    if len_sq > limit * limit {
        pt *= limit / len_sq.sqrt();
    }
    let dpt = pt - patch.tangential;
    if dpt != DVec3::ZERO {
        residual_sq = residual_sq.max((patch.k * dpt).length_squared() * (h * h));
        patch.apply_at(va, vb, moves, at, dpt, 0.0);
        patch.tangential = pt;
    }
    if twist_inv > 0.0 {
        let spin = n.dot(va.w - vb.w);
        // Inside μ·M, M the loads' twisting moment; compared squared, so the square root is
        // only taken for a twist that slips.
        let tw = patch.twist - twist_inv * spin;
        let mu = patch.friction * twist_share;
        let limit_sq = mu * mu * load.twist_moment_sq();
        let tw = if tw * tw > limit_sq {
            limit_sq.sqrt().copysign(tw)
        } else {
            tw
        };
        let dtw = tw - patch.twist;
        if dtw != 0.0 {
            let r = dtw / twist_inv * patch.radius * h;
            residual_sq = residual_sq.max(r * r);
            patch.apply_at(va, vb, moves, (patch.ra, patch.rb), DVec3::ZERO, dtw);
            patch.twist = tw;
        }
    }
    residual_sq
}

/// The shares of its sliding limit `μ·Σp` and of its twisting limit `μ·Σp·ρ` that a patch's
/// friction may use, with its rows' present loads (`rows`: the patch's). Both are whole (1)
/// unless the patch slides through the step (`Patch::slides`). Then its friction is each
/// point's Coulomb friction against its own slip (the limit surface of the points, Goyal, Ruina
/// & Papadopoulos 1991), and the shares are the force and the torque that gives against those
/// of a pure slide and a pure spin: `|Σ pᵢ ŝᵢ| / Σpᵢ` and `|Σ pᵢ (sᵢ × ŝᵢ)·n| / Σ pᵢ|sᵢ|`. A
/// patch that slides fast resists its spin weakly and one that spins fast its slide, and slip
/// and spin stop together (Farkas et al. 2003), where two separate limits would spend the
/// friction twice.
#[inline(always)]
pub(super) fn sliding_shares(patch: &Patch, rows: &[Row]) -> (f64, f64) {
    if !patch.slides {
        return (1.0, 1.0);
    }
    let (mut total, mut force, mut torque, mut lever) = (0.0, DVec3::ZERO, 0.0, 0.0);
    for r in rows {
        let p = r.impulse.max(0.0);
        total += p;
        force += r.slip * p;
        torque += r.twist_arm * p;
        lever += r.lever * p;
    }
    if total <= 0.0 {
        return (1.0, 1.0);
    }
    let twist = if lever > 0.0 {
        torque.abs() / lever
    } else {
        1.0
    };
    ((force.length() / total).min(1.0), twist.min(1.0))
}
