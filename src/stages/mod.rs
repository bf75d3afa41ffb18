//! CPU twins of the data-parallel frame stages, and the types they share with the WGSL shaders.
//!
//! At each frame start the host (authoritative f64 state, event heap; Mirtich & Canny 1994, §3) runs
//! three data-parallel stages over all bodies, in f32:
//!
//! 1. [`swept_aabb`] — the box bounding each body's motion over the frame;
//! 2. [`broad_phase`] — all pairs of overlapping swept boxes (sort and sweep in columns);
//! 3. [`pair_bounds`] — per candidate pair, conservative lower bounds on the distance now and on
//!    the time of impact within the frame (bounding spheres, §3's conservative advancement idea).
//!
//! There is no integration stage. The host advances every body to the frame start in f64 before
//! seeding (`world/stage_seed.rs` packs them with `time` = `frame_start` = 0), so an f32 stage
//! that moved them there would only copy them; and a body given at another time is carried by
//! the stages that need its motion ([`swept_aabb`], [`pair_bounds`]: `s` is measured from the
//! body's own `time`). (Rejected: an RK4 `integrate` stage with its own shader, which ran with
//! `dt = 0` in every real run, so its Euler-equation path ran only in its tests.)
//!
//! Each stage exists twice with the same name: `shaders/<stage>.wgsl` and `src/stages/<stage>.rs`
//! (vello's `cpu/` model). One GPU thread is one call of the twin's `<stage>_one(ix, …)`, so the two
//! can be read side by side. [`CpuStages`] runs the twins (rayon); `crate::gpu::GpuStages` runs the
//! shaders; both implement [`FrameStages`], so the world can hold a `Box<dyn FrameStages>`.
//!
//! Every `#[repr(C)]` type here is shared with WGSL: **keep in sync with
//! `shaders/shared/body.wgsl`** (and `bump.wgsl`, `broad_phase.wgsl` where noted).
//! `tests/stages_naga.rs` checks sizes and offsets against naga's layouter.
//!
//! Precision: every stage works in f32 and pads its results by [`ROUND_REL`] (2⁻²⁰ ≈ 16 ulps of the
//! magnitudes involved) so boxes contain and bounds stay below the exact f64 values. Times are f32
//! too: the host should pass times relative to a recent origin (e.g. `frame_start = 0` and body
//! times as offsets from it) so that they keep their precision late in a long simulation.

pub mod broad_phase;
pub mod contact_sweep;
pub mod math;
mod outward;
pub mod pair_bounds;
pub mod swept_aabb;

pub use outward::{f32_above, f32_below};

use bytemuck::{Pod, Zeroable};
use rayon::ThreadPool;

/// `StageBody::motion` of a body that moves under gravity and collisions.
pub const MOTION_DYNAMIC: u32 = 0;
/// `StageBody::motion` of a body that never moves (floors, walls).
pub const MOTION_FIXED: u32 = 1;
/// `StageBody::motion` of a body with prescribed constant linear and angular velocity (no gravity).
pub const MOTION_KINEMATIC: u32 = 2;

/// Relative padding applied to f32 results so they stay conservative: 2⁻²⁰, i.e. 16 ulps of the
/// magnitudes involved. It covers the f64→f32 rounding of the inputs (½ ulp each), the few roundings
/// of each formula, and the GPU's looser accuracy (WGSL allows 2.5 ulp for division and sqrt, and
/// may contract a·b+c into an FMA). Keep in sync with `ROUND_REL` in `shaders/shared/body.wgsl`.
pub const ROUND_REL: f32 = 1.0 / 1_048_576.0;

/// [`PairBound::toi_bound`] when the bounding spheres cannot come within `epsilon / 2` during the
/// frame. Any value above `frame_period` would do; the largest finite f32 avoids relying on
/// infinities in WGSL (where implementations may assume they do not occur).
pub const TOI_NONE: f32 = f32::MAX;

/// One body as the stages see it: 112 bytes, f32, packed as vec3 + scalar so WGSL's 16-byte vec3
/// alignment adds no hidden padding. Keep in sync with `StageBody` in `shaders/shared/body.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct StageBody {
    /// Centre of mass (m, world).
    pub position: [f32; 3],
    /// The time this state is at (s), in the time origin of [`FrameParams::frame_start`]; the
    /// stages move the centre from it (the world passes its bodies at the frame start).
    pub time: f32,
    /// Orientation quaternion (x, y, z, w), body → world.
    pub orientation: [f32; 4],
    /// Velocity of the centre of mass (m/s, world).
    pub velocity: [f32; 3],
    /// Largest distance of any point of the body from its centre of mass (m). Covers rotation: the
    /// body stays inside this sphere whatever its orientation.
    pub bounding_radius: f32,
    /// Angular velocity (rad/s, world).
    pub angular_velocity: [f32; 3],
    /// Bound on the change of the support function per unit angular speed (m); not used by these
    /// stages, carried for the host's rotation-aware bounds.
    pub rotation_radius: f32,
    /// Principal inverse inertia in the body frame (1/(kg m²)); 0 for an infinite moment.
    pub inv_inertia: [f32; 3],
    /// [`MOTION_DYNAMIC`], [`MOTION_FIXED`] or [`MOTION_KINEMATIC`].
    pub motion: u32,
    /// Lower corner of the body's own axis-aligned box at `time`, relative to `position` (m);
    /// read only when `has_own_box` is 1. The host rounds it outwards to f32.
    pub own_min: [f32; 3],
    /// Bound on the angular speed over the frame (rad/s; the host's torque-free bound, rounded
    /// up): with `rotation_radius`, how far rotation can move the own box's faces.
    pub max_angular_speed: f32,
    /// Upper corner of the own box at `time`, relative to `position` (m).
    pub own_max: [f32; 3],
    /// 1 when `own_min`/`own_max`/`max_angular_speed` describe the body at `time` (then the
    /// swept box is the own box carried along the path, cut to the sphere's box: see
    /// [`swept_aabb`]); 0 for the bounding-sphere box alone.
    pub has_own_box: u32,
}

/// Per-frame constants, one uniform for every stage. 48 bytes. Keep in sync with `FrameParams` in
/// `shaders/shared/body.wgsl`.
///
/// `body_count`, `pair_capacity` and `override_count` are filled in by the stage implementations
/// from the slices they are given; callers can leave them 0 (see [`FrameParams::new`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FrameParams {
    /// Gravitational acceleration (m/s², world); applies to dynamic bodies only.
    pub gravity: [f32; 3],
    /// Start of the frame (s), in the same time origin as [`StageBody::time`].
    pub frame_start: f32,
    /// Length of the frame (s), > 0.
    pub frame_period: f32,
    /// Collision distance tolerance ε (m): the host treats bodies closer than ε as in contact, so
    /// boxes are grown by ε/2 and the time-of-impact bound is the first time the spheres may come
    /// within ε/2.
    pub epsilon: f32,
    /// Number of bodies (filled in by the stages).
    pub body_count: u32,
    /// Capacity of the candidate-pair buffer (filled in by the stages).
    pub pair_capacity: u32,
    /// Number of [`BoxOverride`]s (filled in by the stages).
    pub override_count: u32,
    /// Padding to a multiple of 16 bytes (uniform buffer rule).
    pub pad: [u32; 3],
}

impl FrameParams {
    /// Frame constants with the counts left 0 for the stages to fill in.
    pub fn new(gravity: [f32; 3], frame_start: f32, frame_period: f32, epsilon: f32) -> Self {
        FrameParams {
            gravity,
            frame_start,
            frame_period,
            epsilon,
            ..Default::default()
        }
    }
}

/// An axis-aligned box (m, world), tagged with its body's motion so the broad phase can skip
/// fixed–fixed pairs without a second input buffer. 32 bytes. Keep in sync with `StageAabb` in
/// `shaders/shared/body.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct StageAabb {
    /// Lower corner.
    pub min: [f32; 3],
    /// The body's [`StageBody::motion`].
    pub motion: u32,
    /// Upper corner.
    pub max: [f32; 3],
    /// Padding (vec3 alignment).
    pub pad: u32,
}

impl StageAabb {
    /// A box from its corners and its body's motion.
    pub fn new(min: [f32; 3], max: [f32; 3], motion: u32) -> Self {
        StageAabb {
            min,
            motion,
            max,
            pad: 0,
        }
    }

    /// Whether the closed boxes intersect (touching counts: the broad phase must be conservative).
    pub fn overlaps(&self, other: &StageAabb) -> bool {
        (0..3).all(|k| self.min[k] <= other.max[k] && other.min[k] <= self.max[k])
    }

    /// Whether `p` lies in the closed box.
    pub fn contains(&self, p: [f32; 3]) -> bool {
        (0..3).all(|k| self.min[k] <= p[k] && p[k] <= self.max[k])
    }
}

/// A box supplied by the host for one body, replacing the bounding-sphere box [`swept_aabb`]
/// computes. Meant for fixed bodies with an exact box (a 60 m floor's bounding sphere would give an
/// 85 m cube); the host is responsible for it being conservative. 48 bytes. Keep in sync with
/// `BoxOverride` in `shaders/shared/body.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BoxOverride {
    /// The box (its `motion` field is ignored: the body's own is kept).
    pub aabb: StageAabb,
    /// Index of the body it replaces the box of; out-of-range indices are ignored.
    pub body: u32,
    /// Padding (struct alignment 16).
    pub pad: [u32; 3],
}

impl BoxOverride {
    /// The box `aabb` for body `body`.
    pub fn new(body: u32, aabb: StageAabb) -> Self {
        BoxOverride {
            aabb,
            body,
            pad: [0; 3],
        }
    }
}

/// Conservative bounds for one candidate pair. 16 bytes. Keep in sync with `PairBound` in
/// `shaders/shared/body.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PairBound {
    /// First body (a < b).
    pub a: u32,
    /// Second body.
    pub b: u32,
    /// Lower bound on the distance between the bodies at the frame start (m); negative when the
    /// bounding spheres overlap (the bound then says nothing).
    pub distance_bound: f32,
    /// Lower bound on the time after the frame start (s) at which the bodies can first come within
    /// ε/2; 0 if they may already be; [`TOI_NONE`] if not within the frame.
    pub toi_bound: f32,
}

/// Broad-phase statistics: a workgroup's partial sums over its boxes, or (element 0 of the GPU
/// buffer) the totals with the choices derived from them. 64 bytes. Keep in sync with
/// `BroadPhaseStats` in `shaders/broad_phase.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BroadPhaseStats {
    /// Σ box centres (relative to box 0's centre).
    pub centre_sum: [f32; 3],
    /// Sweep axis (0, 1, 2): the one along which the centres spread most (largest variance).
    pub axis: u32,
    /// Σ box centres², per axis (relative to box 0's centre).
    pub centre_sq_sum: [f32; 3],
    /// Number of boxes summed.
    pub count: u32,
    /// Σ box extents (max − min), per axis.
    pub extent_sum: [f32; 3],
    /// Boxes longer than this along the sweep axis go to the large list.
    pub large_threshold: f32,
    /// Column axis: the axis of second-largest spread, cut into columns of `column_width`.
    pub column_axis: u32,
    /// 1 / column width (1/m); boxes spanning more than two columns go to the large list.
    pub column_scale: f32,
    /// Column-axis coordinate of the boundary between columns −1 and 0 (box 0's centre).
    pub column_origin: f32,
    /// Padding.
    pub pad: u32,
}

/// The broad phase's bump counters. 16 bytes. Keep in sync with `Bump` in
/// `shaders/shared/bump.wgsl` (vello's `bump.wgsl` idea: count past the capacity so the host knows
/// exactly how much to grow).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Bump {
    /// Pairs found (may exceed the capacity: then only the first `pair_capacity` were stored).
    pub pairs: u32,
    /// 1 if a pair did not fit.
    pub overflow: u32,
    /// Boxes in the large list.
    pub large: u32,
    /// Padding.
    pub pad: u32,
}

/// What one frame's stages produce.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameOutput {
    /// Swept box of every body, in body order.
    pub boxes: Vec<StageAabb>,
    /// Bounds of every candidate pair, sorted by (a, b).
    pub bounds: Vec<PairBound>,
}

/// A failure of a stage implementation (only the GPU one can fail).
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// Reading results back from the device failed.
    #[error("GPU readback failed: {0}")]
    Readback(String),
    /// A buffer would exceed the device's limits.
    #[error("{what} needs {bytes} bytes, above the device limit of {limit}")]
    TooLarge {
        /// Which buffer.
        what: &'static str,
        /// Bytes needed.
        bytes: u64,
        /// The device's limit.
        limit: u64,
    },
}

/// The frame stages, on the CPU ([`CpuStages`]) or the GPU (`crate::gpu::GpuStages`). Methods
/// mirror the stages one by one (for tests and benchmarks); [`FrameStages::frame`] runs all three
/// in order, which on the GPU needs one upload and one readback.
///
/// The count fields of `params` are ignored: implementations set them from the slices.
pub trait FrameStages: Send {
    /// Human-readable name of the implementation (adapter name for the GPU).
    fn name(&self) -> String;
    /// Stage 1: swept boxes over the frame, then the host's overrides (see [`swept_aabb`]).
    fn swept_aabb(
        &mut self,
        bodies: &[StageBody],
        overrides: &[BoxOverride],
        params: &FrameParams,
    ) -> Result<Vec<StageAabb>, StageError>;
    /// Stage 2: all pairs (a < b) of overlapping boxes, except fixed–fixed, sorted (see
    /// [`broad_phase`]).
    fn broad_phase(
        &mut self,
        boxes: &[StageAabb],
        params: &FrameParams,
    ) -> Result<Vec<[u32; 2]>, StageError>;
    /// Stage 3: bounds for each pair, in the order given (see [`pair_bounds`]).
    fn pair_bounds(
        &mut self,
        bodies: &[StageBody],
        pairs: &[[u32; 2]],
        params: &FrameParams,
    ) -> Result<Vec<PairBound>, StageError>;
    /// All three stages: returns the boxes and the pair bounds.
    fn frame(
        &mut self,
        bodies: &[StageBody],
        overrides: &[BoxOverride],
        params: &FrameParams,
    ) -> Result<FrameOutput, StageError>;
    /// The contact step's coloured sweeps on the same device, if it runs them (see
    /// [`contact_sweep`]); `None`, the default: the host sweeps them.
    fn contact_sweeper(&mut self) -> Option<&mut dyn contact_sweep::ContactSweeps> {
        None
    }
}

/// What holds a [`FrameStages`] and runs its frames with it: the world
/// (`crate::world::World`, implemented in `world/stage_seed.rs`). A backend chosen by
/// `crate::gpu::select` installs its stages through this trait, so that the gpu module does not
/// import the world.
pub trait FrameStagesHost {
    /// Runs the frame-start stages through `stages` from now on.
    fn set_frame_stages(&mut self, stages: Box<dyn FrameStages>);
}

/// The CPU twins behind [`FrameStages`], run on rayon: on the global pool, or on a private pool
/// of a chosen size ([`CpuStages::with_threads`], e.g. 1 thread for benchmarks).
pub struct CpuStages {
    pool: Option<ThreadPool>,
}

impl Default for CpuStages {
    fn default() -> Self {
        Self::new()
    }
}

impl CpuStages {
    /// Twins on rayon's global pool (all cores).
    pub fn new() -> Self {
        CpuStages { pool: None }
    }

    /// Twins on a private pool of `threads` threads.
    pub fn with_threads(threads: usize) -> Self {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .expect("rayon thread pool");
        CpuStages { pool: Some(pool) }
    }

    fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(f),
            None => f(),
        }
    }
}

impl FrameStages for CpuStages {
    fn name(&self) -> String {
        let threads = self
            .pool
            .as_ref()
            .map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
        format!("cpu ({threads} threads)")
    }

    fn swept_aabb(
        &mut self,
        bodies: &[StageBody],
        overrides: &[BoxOverride],
        params: &FrameParams,
    ) -> Result<Vec<StageAabb>, StageError> {
        Ok(self.run(|| swept_aabb::swept_aabb(params, bodies, overrides)))
    }

    fn broad_phase(
        &mut self,
        boxes: &[StageAabb],
        _params: &FrameParams,
    ) -> Result<Vec<[u32; 2]>, StageError> {
        Ok(self.run(|| broad_phase::broad_phase(boxes)))
    }

    fn pair_bounds(
        &mut self,
        bodies: &[StageBody],
        pairs: &[[u32; 2]],
        params: &FrameParams,
    ) -> Result<Vec<PairBound>, StageError> {
        Ok(self.run(|| pair_bounds::pair_bounds(params, bodies, pairs)))
    }

    fn frame(
        &mut self,
        bodies: &[StageBody],
        overrides: &[BoxOverride],
        params: &FrameParams,
    ) -> Result<FrameOutput, StageError> {
        Ok(self.run(|| {
            let boxes = swept_aabb::swept_aabb(params, bodies, overrides);
            let pairs = broad_phase::broad_phase(&boxes);
            let bounds = pair_bounds::pair_bounds(params, bodies, &pairs);
            FrameOutput { boxes, bounds }
        }))
    }
}
