//! Joints: bodies linked by ball, hinge, slider and fixed joints, simulated by impulses
//! (Bender, Finckh & Schmitt's impulse-based joints, the constraint side of Mirtich 1996's
//! hybrid, §4).
//!
//! Between a step's start and its end every body still flies its ballistic trajectory, so the
//! event loop's time-of-impact bounds stay conservative for jointed bodies as for free ones.
//! The joints act through impulses at the step's ends ([`Joints::hold_over_step`]):
//! - at the start, impulses chosen so that the *predicted* ballistic poses at the step's end
//!   satisfy every joint (a position-level prediction, iterated to a tolerance: SHAKE);
//! - at the end, the joints' relative velocities are projected out ([`Joints::project`]:
//!   RATTLE's velocity half), so the reported velocities are the constrained ones.
//!
//! Together they are RATTLE, second order and symplectic: a frictionless pendulum keeps its
//! energy without drift. A collision of a jointed body is an impulse on its whole articulation:
//! its collision matrix is the constrained system's (Mirtich 1996 §4.1, K = J H⁻¹ Jᵀ), found
//! column by column as the projected response to unit impulses ([`Joints::articulated_matrix`]),
//! and the articulation's velocities are projected after it. Jointed bodies do not collide with
//! each other.

mod dense;
mod solve;

use crate::body::Body;
use crate::union_find::UnionFind;
use glam::{DQuat, DVec3};
use rustc_hash::FxHashSet;

pub use solve::{JOINT_TOLERANCE, MAX_JOINT_SOLVES};

/// The kind of a joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// The anchor points coincide; any relative rotation.
    Ball,
    /// The anchor points coincide and the bodies turn only about the axis.
    Hinge,
    /// No relative rotation; the anchor points move only along the axis.
    Slider,
    /// No relative motion at all.
    Fixed,
}

impl JointKind {
    /// The kind's name, as scene files spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            JointKind::Ball => "ball",
            JointKind::Hinge => "hinge",
            JointKind::Slider => "slider",
            JointKind::Fixed => "fixed",
        }
    }
}

/// A joint as [`Joints::new`] takes it: world coordinates at t = 0, whatever it was read from
/// (the scene module converts its `[[joints]]` records into these).
#[derive(Clone, Debug, PartialEq)]
pub struct JointDef {
    /// Its name, kept for reports.
    pub name: String,
    /// Its kind.
    pub kind: JointKind,
    /// The two ends: body indices, `None` for the fixed world frame (never both the same).
    pub bodies: [Option<usize>; 2],
    /// The anchor (m, world at t = 0).
    pub anchor: DVec3,
    /// Unit axis (world at t = 0) of a hinge or a slider; `None` otherwise.
    pub axis: Option<DVec3>,
    /// Optional limits `[lower, upper]`: rad for a hinge, m for a slider.
    pub limits: Option<[f64; 2]>,
}

/// One joint as the world holds it: everything in the two bodies' own frames.
#[derive(Clone, Debug)]
pub struct Joint {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: JointKind,
    /// Body indices; `None` for the world.
    pub a: Option<usize>,
    pub b: Option<usize>,
    /// The anchor relative to each body's centre of mass in its body frame (for the world:
    /// the anchor in world coordinates).
    pub anchor_a: DVec3,
    pub anchor_b: DVec3,
    /// The axis (hinge, slider) in each frame, unit; `DVec3::Z` otherwise.
    pub axis_a: DVec3,
    pub axis_b: DVec3,
    /// A unit vector perpendicular to the axis in each frame, equal in the world at t = 0: the
    /// zero of a hinge's angle.
    pub normal_a: DVec3,
    pub normal_b: DVec3,
    /// b's orientation relative to a's at t = 0: `q_a⁻¹ q_b`.
    pub relative: DQuat,
    /// Limits (rad for a hinge, m for a slider), lower ≤ upper.
    pub limits: Option<[f64; 2]>,
}

/// The joints of a world and the articulations they make.
#[derive(Clone, Debug, Default)]
pub struct Joints {
    /// The joints, scene order.
    pub joints: Vec<Joint>,
    /// Per body: its articulation's index, or `u32::MAX` for a body without joints.
    pub articulation_of: Vec<u32>,
    /// Each articulation's bodies (ascending) and joints (scene order).
    pub articulations: Vec<(Vec<usize>, Vec<usize>)>,
    /// Jointed pairs (a < b), which never collide.
    joined: FxHashSet<(u32, u32)>,
}

impl Joints {
    /// The world's joints from their definitions, with `bodies` at their initial states.
    pub fn new(defs: &[JointDef], bodies: &[Body]) -> Joints {
        let mut joints = Vec::with_capacity(defs.len());
        for s in defs {
            let [a, b] = s.bodies;
            let axis = s.axis.unwrap_or(DVec3::Z);
            let normal = axis.any_orthonormal_vector();
            let local = |i: Option<usize>, p: DVec3| match i {
                None => p,
                Some(i) => bodies[i].orientation.inverse() * (p - bodies[i].position),
            };
            let turn = |i: Option<usize>, v: DVec3| match i {
                None => v,
                Some(i) => bodies[i].orientation.inverse() * v,
            };
            let q = |i: Option<usize>| i.map_or(DQuat::IDENTITY, |i| bodies[i].orientation);
            joints.push(Joint {
                name: s.name.clone(),
                kind: s.kind,
                a,
                b,
                anchor_a: local(a, s.anchor),
                anchor_b: local(b, s.anchor),
                axis_a: turn(a, axis),
                axis_b: turn(b, axis),
                normal_a: turn(a, normal),
                normal_b: turn(b, normal),
                relative: q(a).inverse() * q(b),
                limits: s.limits,
            });
        }
        // Articulations: bodies linked through joints (the world links nothing).
        let n = bodies.len();
        let mut sets = UnionFind::default();
        sets.reset(n);
        let mut joined = FxHashSet::default();
        for j in &joints {
            if let (Some(a), Some(b)) = (j.a, j.b) {
                sets.union(a as u32, b as u32);
                joined.insert((a.min(b) as u32, a.max(b) as u32));
            }
        }
        sets.flatten();
        let mut articulation_of = vec![u32::MAX; n];
        let mut articulations: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
        let mut index_of_root = vec![u32::MAX; n];
        for (k, j) in joints.iter().enumerate() {
            let Some(first) = j.a.or(j.b) else { continue };
            let r = sets.root(first) as usize;
            if index_of_root[r] == u32::MAX {
                index_of_root[r] = articulations.len() as u32;
                articulations.push((Vec::new(), Vec::new()));
            }
            articulations[index_of_root[r] as usize].1.push(k);
        }
        for (i, of) in articulation_of.iter_mut().enumerate() {
            let r = sets.root(i) as usize;
            if index_of_root[r] != u32::MAX {
                *of = index_of_root[r];
                articulations[index_of_root[r] as usize].0.push(i);
            }
        }
        Joints {
            joints,
            articulation_of,
            articulations,
            joined,
        }
    }

    /// True when the world has no joints.
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// True when a and b are joined to each other (they never collide).
    pub fn joined(&self, a: usize, b: usize) -> bool {
        !self.joined.is_empty() && self.joined.contains(&(a.min(b) as u32, a.max(b) as u32))
    }

    /// The articulation of body `i`, if it has joints.
    pub fn articulation(&self, i: usize) -> Option<usize> {
        match self.articulation_of.get(i) {
            Some(&k) if k != u32::MAX => Some(k as usize),
            _ => None,
        }
    }

    /// The largest distance between a joint's two anchors now (m): the joints' drift.
    pub fn drift(&self, bodies: &[Body]) -> f64 {
        self.joints
            .iter()
            .map(|j| {
                let (pa, pb) = (
                    anchor(bodies, j.a, j.anchor_a),
                    anchor(bodies, j.b, j.anchor_b),
                );
                let d = pa - pb;
                match j.kind {
                    // A slider's anchors may part along its axis.
                    JointKind::Slider => {
                        let axis = turned(bodies, j.a, j.axis_a);
                        (d - d.dot(axis) * axis).length()
                    }
                    _ => d.length(),
                }
            })
            .fold(0.0, f64::max)
    }
}

/// A joint end's anchor in world coordinates now.
pub(crate) fn anchor(bodies: &[Body], i: Option<usize>, local: DVec3) -> DVec3 {
    match i {
        None => local,
        Some(i) => bodies[i].position + bodies[i].orientation * local,
    }
}

/// A joint end's body-frame vector in world coordinates now.
pub(crate) fn turned(bodies: &[Body], i: Option<usize>, local: DVec3) -> DVec3 {
    match i {
        None => local,
        Some(i) => bodies[i].orientation * local,
    }
}
