//! The contact step's coloured sweeps as a device stage: the types the solver packs its rows,
//! patches and velocities into (shared with `shaders/contact_sweep.wgsl`), and [`ContactSweeps`],
//! what a device that runs the sweeps implements.
//!
//! The sweeps are projected Gauss–Seidel (Bender & Schmitt 2006, §3.2) over the step's friction
//! patches in *colour order*: a greedy colouring gives no two patches of one colour a moving body
//! in common (Box2D v3's graph colouring), so a colour's patches can be swept at the same time,
//! one GPU thread each, with the result of sweeping them one after the other. The reference, in
//! f64 on the host, is `resting_contact`'s coloured sweep over the very same rows, colours and
//! order; the device works in f32 and stops on the device (the same tolerance and stall rule),
//! so one submission carries a whole step's sweeps and one readback returns its impulses.
//!
//! Every `#[repr(C)]` type here is shared with WGSL; `tests/stages_naga.rs` checks sizes and
//! offsets against naga's layouter.

use super::StageError;
use bytemuck::{Pod, Zeroable};

/// Slot flag of a body the step does not move (read-only velocity). Keep in sync with `STILL`
/// in `shaders/contact_sweep.wgsl` and `resting_contact::slots`.
pub const SLOT_STILL: u32 = 1 << 31;

/// Largest stall window the device honours (the host's `MAX_STALL_WINDOW`).
pub const SWEEP_MAX_STALL_WINDOW: usize = 16;

/// One contact point's normal row, in f32 (the solver's `Row` less what only the host reads).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SweepRow {
    /// Contact point from a's and from b's centre of mass (m).
    pub ra: [f32; 3],
    /// Required minimum of the step-mean normal velocity (m/s).
    pub bias: f32,
    pub rb: [f32; 3],
    /// Step-mean normal velocity the accelerations add (m/s).
    pub drift: f32,
    /// Unit normal from b to a.
    pub normal: [f32; 3],
    /// n·K·n and its inverse.
    pub k_nn: f32,
    /// Velocity change of a per unit normal impulse: linear and angular.
    pub lin_a: [f32; 3],
    pub inv_k_nn: f32,
    pub ang_a: [f32; 3],
    /// Accumulated normal impulse (N·s): the warm start's on input, the sweeps' on output.
    pub impulse: f32,
    /// The same of b (applied with the opposite sign).
    pub lin_b: [f32; 3],
    /// `|spread|²`.
    pub spread_sq: f32,
    pub ang_b: [f32; 3],
    /// `|spread|`.
    pub lever: f32,
    /// Offset from the patch's centroid across the normal (m).
    pub spread: [f32; 3],
    /// Moment arm of the slip about the normal (sliding patches).
    pub twist_arm: f32,
    /// Direction of the point's slip at the step's start (sliding patches; else zero).
    pub slip: [f32; 3],
    pub pad: f32,
}

/// One pair's friction patch, in f32. Matrices are stored by columns, each padded to four.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SweepPatch {
    /// Velocity slots of a and b ([`SLOT_STILL`] flags a read-only one).
    pub sa: u32,
    pub sb: u32,
    /// Its rows: `rows[first..first + count]`.
    pub first: u32,
    pub count: u32,
    /// Centroid from a's centre of mass, and the friction coefficient.
    pub ra: [f32; 3],
    pub friction: f32,
    /// Centroid from b's centre of mass, and the twisting row's effective inertia.
    pub rb: [f32; 3],
    pub twist_inv: f32,
    /// Unit normal from b to a, and the points' mean distance from the centroid.
    pub normal: [f32; 3],
    pub radius: f32,
    /// Step-mean relative velocity the accelerations add at the centroid, and a's inverse mass.
    pub drift: [f32; 3],
    pub inv_mass_a: f32,
    /// Accumulated tangential impulse (N·s) and twisting impulse (N·m·s).
    pub tangential: [f32; 3],
    pub twist: f32,
    /// Collision matrix K at the centroid.
    pub k: [[f32; 4]; 3],
    /// Inverse of K on the tangent plane.
    pub k_tt_inv: [[f32; 4]; 3],
    /// World inverse inertias of a and b (zero for a body that does not yield).
    pub inv_inertia_a: [[f32; 4]; 3],
    pub inv_inertia_b: [[f32; 4]; 3],
    /// b's inverse mass; 1 if the patch slides through the step.
    pub inv_mass_b: f32,
    pub slides: u32,
    pub pad: [u32; 2],
}

/// A body's velocity in the solver, in f32.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SweepVel {
    /// Linear velocity (m/s).
    pub v: [f32; 3],
    pub pad0: f32,
    /// Angular velocity (rad/s).
    pub w: [f32; 3],
    pub pad1: f32,
}

/// The sweeps' settings (a uniform).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SweepParams {
    /// Step length h (s).
    pub h: f32,
    /// Stop once the largest change of a predicted end position is within this (m).
    pub tolerance: f32,
    /// Most sweeps.
    pub max_iterations: u32,
    /// The stall rule's window (0: never; at most [`SWEEP_MAX_STALL_WINDOW`]).
    pub stall_window: u32,
    /// Number of colours.
    pub colours: u32,
    pub pad: [u32; 3],
}

/// Where the sweeps stand (a storage buffer the device updates after every sweep): zero on
/// input.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SweepControl {
    /// The running sweep's largest squared residual, as f32 bits (non-negative floats order
    /// as their bits).
    pub residual_bits: u32,
    /// 1 once the sweeps stopped.
    pub done: u32,
    /// Sweeps done.
    pub iterations: u32,
    /// The last sweep's residual (m).
    pub residual: f32,
    /// The stall rule's last residuals, by sweep modulo the window.
    pub history: [f32; SWEEP_MAX_STALL_WINDOW],
}

/// A step's sweeps as a device runs them.
#[derive(Clone, Copy, Debug)]
pub struct SweepInput<'a> {
    pub params: SweepParams,
    /// The step's normal rows, each patch's a slice.
    pub rows: &'a [SweepRow],
    /// The step's patches in the solver's order.
    pub patches: &'a [SweepPatch],
    /// Patch indices by colour: colour `c` is `order[starts[c]..starts[c + 1]]`.
    pub order: &'a [u32],
    pub starts: &'a [u32],
    /// Velocities of the moving slots (changed) and of the still ones (read).
    pub moving: &'a [SweepVel],
    pub still: &'a [SweepVel],
}

/// What the sweeps give back.
#[derive(Clone, Debug, Default)]
pub struct SweepOutput {
    /// Each row's accumulated normal impulse, in row order.
    pub impulses: Vec<f32>,
    /// Each patch's tangential impulse and twist `[x, y, z, twist]`, in patch order.
    pub friction: Vec<[f32; 4]>,
    /// The moving slots' velocities.
    pub moving: Vec<SweepVel>,
    /// Sweeps done and the last one's residual (m).
    pub iterations: u32,
    pub residual: f32,
}

/// A device that runs a contact step's coloured sweeps (see the module docs).
pub trait ContactSweeps {
    /// Runs the sweeps of `input` to the tolerance, a stall or the most sweeps.
    fn contact_sweeps(&mut self, input: &SweepInput<'_>) -> Result<SweepOutput, StageError>;
}

/// A column-major f32 matrix with padded columns, from glam's f64 one.
pub fn mat3_f32(m: &glam::DMat3) -> [[f32; 4]; 3] {
    let c = |v: glam::DVec3| [v.x as f32, v.y as f32, v.z as f32, 0.0];
    [c(m.x_axis), c(m.y_axis), c(m.z_axis)]
}

/// An f32 vector from glam's f64 one.
pub fn vec3_f32(v: glam::DVec3) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

/// The change from `before` to `after` (f32, as a device computed them) in f64: what a solver
/// stage changed a velocity by, added to the host's f64 velocity so that one the stage leaves
/// alone keeps its value bit for bit.
pub fn f32_change(after: [f32; 3], before: [f32; 3]) -> glam::DVec3 {
    glam::DVec3::new(
        f64::from(after[0] - before[0]),
        f64::from(after[1] - before[1]),
        f64::from(after[2] - before[2]),
    )
}
