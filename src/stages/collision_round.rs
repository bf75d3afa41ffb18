//! A jammed island's collision round as a device stage (Bender & Schmitt 2006, §3.1; the joint
//! round of `world/impacts.rs`): the types the host packs a round into (shared with
//! `shaders/collision_round.wgsl`), [`CollisionRounds`], what a device that solves rounds
//! implements, and [`collision_round`], the f64 twin the device is held to.
//!
//! A round is three phases of projected Gauss–Seidel sweeps over its contact points (rows),
//! each phase until no sweep changes a point's velocity by more than the tolerance or the most
//! sweeps: Newton's law `u' ≥ target` with accumulated normal impulses ≥ 0; Coulomb friction,
//! each point's tangential impulse toward sticking within μ times its normal impulse; and a last
//! inelastic pass (targets 0, impulses only pushing). The rows come grouped by pair and the
//! pairs by colour (no two pairs of a colour share a moving body), so a colour's pairs are
//! swept at once, one thread a pair, with the result of sweeping them one after the other: the
//! twin sweeps the rows in that order. The energy guard (a round that would add energy is solved
//! again with targets 0) stays with the host, which sees the velocities after the round.

use super::StageError;
use bytemuck::{Pod, Zeroable};
use glam::{DMat3, DVec3};

/// One contact point of a round, in f32.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RoundRow {
    /// The point from a's and from b's centre of mass (m), Newton's target (m/s) and the
    /// point's normal effective mass 1/(n·K·n).
    pub ra: [f32; 3],
    pub target: f32,
    pub rb: [f32; 3],
    pub mass: f32,
    /// Unit normal from b to a, and the friction coefficient.
    pub normal: [f32; 3],
    pub friction: f32,
    /// The pair's collision matrix K at the point (columns, padded).
    pub k: [[f32; 4]; 3],
    /// Accumulated tangential impulse, normal impulse and the inelastic pass's impulse (N·s):
    /// zero on input.
    pub tangent: [f32; 3],
    pub impulse: f32,
    pub extra: f32,
    /// The bodies' indices in the round's body list.
    pub a: u32,
    pub b: u32,
    pub pad: u32,
}

/// One body of a round, in f32: its velocity, and how it takes an impulse.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RoundBody {
    pub v: [f32; 3],
    /// Effective inverse mass (0 for a body that does not yield).
    pub inv_mass: f32,
    pub w: [f32; 3],
    /// 1 if impulses move it (an awake dynamic body), else 0: its velocity is only read.
    pub moves: u32,
    /// World inverse inertia (columns, padded; zero for a body that does not yield).
    pub inv_inertia: [[f32; 4]; 3],
}

/// A round's settings (a uniform).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RoundParams {
    /// A phase stops once no sweep changes a point's velocity by more than this (m/s).
    pub tolerance: f32,
    /// Most sweeps of each phase.
    pub max_sweeps: u32,
    /// Number of colours.
    pub colours: u32,
    pub pad: u32,
}

/// Where a round stands (a storage buffer the device updates after every sweep): zero on input.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RoundControl {
    /// The running sweep's largest change, as f32 bits.
    pub change_bits: u32,
    pub pad: [u32; 3],
    /// Per phase (normal, friction, inelastic): 1 once it stopped, and its sweeps.
    pub done: [u32; 4],
    pub sweeps: [u32; 4],
}

/// A round as a device solves it.
#[derive(Clone, Copy, Debug)]
pub struct RoundInput<'a> {
    pub params: RoundParams,
    /// The rows, grouped by pair, the pairs by colour: pair `p` is
    /// `rows[pairs[p] as usize..pairs[p + 1] as usize]`, colour `c` the pairs
    /// `starts[c]..starts[c + 1]`.
    pub rows: &'a [RoundRow],
    pub pairs: &'a [u32],
    pub starts: &'a [u32],
    pub bodies: &'a [RoundBody],
}

/// What a round gives back.
#[derive(Clone, Debug, Default)]
pub struct RoundOutput {
    /// Each row's normal impulse, inelastic impulse and tangential impulse.
    pub impulses: Vec<[f32; 5]>,
    /// Each body's velocity after the round (`[v, w]`).
    pub velocities: Vec<[[f32; 3]; 2]>,
    /// Sweeps of each phase.
    pub sweeps: [u32; 3],
}

/// A device that solves a jammed island's collision rounds (see the module docs).
pub trait CollisionRounds {
    /// Solves one round to the tolerance or the most sweeps of each phase.
    fn collision_round(&mut self, input: &RoundInput<'_>) -> Result<RoundOutput, StageError>;
}

/// A body of the twin, in f64.
struct TwinBody {
    v: DVec3,
    w: DVec3,
    inv_mass: f64,
    inv_inertia: DMat3,
    moves: bool,
}

/// A row of the twin, in f64.
struct TwinRow {
    a: usize,
    b: usize,
    ra: DVec3,
    rb: DVec3,
    n: DVec3,
    target: f64,
    mass: f64,
    friction: f64,
    k: DMat3,
    normal: f64,
    extra: f64,
    tangent: DVec3,
}

fn v3(x: [f32; 3]) -> DVec3 {
    DVec3::new(x[0].into(), x[1].into(), x[2].into())
}

fn m3(m: [[f32; 4]; 3]) -> DMat3 {
    let c = |k: usize| DVec3::new(m[k][0].into(), m[k][1].into(), m[k][2].into());
    DMat3::from_cols(c(0), c(1), c(2))
}

fn f32s(v: DVec3) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

/// Relative velocity of a row's point (a's against b's).
fn row_velocity(bodies: &[TwinBody], r: &TwinRow) -> DVec3 {
    let (a, b) = (&bodies[r.a], &bodies[r.b]);
    a.v + a.w.cross(r.ra) - b.v - b.w.cross(r.rb)
}

/// Impulse `j` on a at the row's point, `-j` on b (each only if it moves).
fn apply(bodies: &mut [TwinBody], r: &TwinRow, j: DVec3) {
    let a = &mut bodies[r.a];
    if a.moves {
        a.v += j * a.inv_mass;
        a.w += a.inv_inertia * r.ra.cross(j);
    }
    let b = &mut bodies[r.b];
    if b.moves {
        b.v -= j * b.inv_mass;
        b.w -= b.inv_inertia * r.rb.cross(j);
    }
}

/// The normal sweeps: toward each row's target, or, `inelastic`, only as far as stopping its
/// approach, on top of the impulses already applied. Returns the sweeps made.
fn normal_phase(
    rows: &mut [TwinRow],
    bodies: &mut [TwinBody],
    inelastic: bool,
    tolerance: f64,
    max_sweeps: u32,
) -> u32 {
    let mut sweeps = 0;
    while sweeps < max_sweeps {
        sweeps += 1;
        let mut change: f64 = 0.0;
        for r in rows.iter_mut() {
            let un = row_velocity(bodies, r).dot(r.n);
            let (target, acc) = if inelastic {
                (0.0, r.extra)
            } else {
                (r.target, r.normal)
            };
            let next = (acc + r.mass * (target - un)).max(0.0);
            let delta = next - acc;
            if delta != 0.0 {
                apply(bodies, r, delta * r.n);
                if inelastic {
                    r.extra = next;
                } else {
                    r.normal = next;
                }
                change = change.max((delta / r.mass).abs());
            }
        }
        if change <= tolerance {
            break;
        }
    }
    sweeps
}

/// The friction sweeps: each point's tangential impulse toward sticking, along its slip,
/// within μ times its normal impulse. Returns the sweeps made.
fn friction_phase(
    rows: &mut [TwinRow],
    bodies: &mut [TwinBody],
    tolerance: f64,
    max_sweeps: u32,
) -> u32 {
    let mut sweeps = 0;
    while sweeps < max_sweeps {
        sweeps += 1;
        let mut change: f64 = 0.0;
        for r in rows.iter_mut() {
            if r.friction <= 0.0 || r.normal <= 0.0 {
                continue;
            }
            let u = row_velocity(bodies, r);
            let ut = u - u.dot(r.n) * r.n;
            let speed = ut.length();
            if speed <= tolerance {
                continue;
            }
            let dir = ut / speed;
            let mass_t = 1.0 / dir.dot(r.k * dir);
            let mut next = r.tangent - mass_t * ut;
            let limit = r.friction * r.normal;
            if next.length() > limit {
                next *= limit / next.length();
            }
            let delta = next - r.tangent;
            apply(bodies, r, delta);
            r.tangent = next;
            change = change.max(delta.length() / mass_t);
        }
        if change <= tolerance {
            break;
        }
    }
    sweeps
}

/// The twin of `shaders/collision_round.wgsl` in f64, sweeping the rows in their order (the
/// pairs' order is the colours'): the reference the device is held to, and the same sweeps as
/// the host's joint round (`world/impacts.rs`) over rows in that order.
pub fn collision_round(input: &RoundInput<'_>) -> RoundOutput {
    let mut bodies: Vec<TwinBody> = input
        .bodies
        .iter()
        .map(|b| TwinBody {
            v: v3(b.v),
            w: v3(b.w),
            inv_mass: b.inv_mass.into(),
            inv_inertia: m3(b.inv_inertia),
            moves: b.moves != 0,
        })
        .collect();
    let mut rows: Vec<TwinRow> = input
        .rows
        .iter()
        .map(|r| TwinRow {
            a: r.a as usize,
            b: r.b as usize,
            ra: v3(r.ra),
            rb: v3(r.rb),
            n: v3(r.normal),
            target: r.target.into(),
            mass: r.mass.into(),
            friction: r.friction.into(),
            k: m3(r.k),
            normal: 0.0,
            extra: 0.0,
            tangent: DVec3::ZERO,
        })
        .collect();
    let tolerance = f64::from(input.params.tolerance);
    let max_sweeps = input.params.max_sweeps;
    let sweeps = [
        normal_phase(&mut rows, &mut bodies, false, tolerance, max_sweeps),
        friction_phase(&mut rows, &mut bodies, tolerance, max_sweeps),
        normal_phase(&mut rows, &mut bodies, true, tolerance, max_sweeps),
    ];
    RoundOutput {
        impulses: rows
            .iter()
            .map(|r| {
                let t = f32s(r.tangent);
                [r.normal as f32, r.extra as f32, t[0], t[1], t[2]]
            })
            .collect(),
        velocities: bodies.iter().map(|b| [f32s(b.v), f32s(b.w)]).collect(),
        sweeps,
    }
}
