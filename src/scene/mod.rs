//! Scene files (TOML): the data model a scene file describes ([`Scene`], [`WorldSettings`],
//! [`BodySpec`], …), its errors ([`SceneError`]) and the entry points [`load`] and
//! [`parse`](fn@parse).
//!
//! The format is documented for users in `docs/scene-format.md`; this module is its reference
//! implementation. The reading is split by what it reads:
//!
//! - `parse`: the whole document and its `[world]`, `[materials]` and `[[material_pairs]]`
//!   sections (and why it is a hand-written walker rather than `serde` derive);
//! - `bodies`: `[[bodies]]` entries and the keys they share with lattices;
//! - `inertia`: a body's `inertia`, principal moments or a full tensor;
//! - `lattice`: the `[[lattices]]` generators;
//! - `batch`: the `[batch]` table of `tumble batch`;
//! - `build_world`: a [`World`](crate::world::World) built from a scene (`World::new`);
//! - `shape`: `shape = { type = … }` tables;
//! - `table`: the spanned-table reader they all use, which locates every error.

mod batch;
mod bodies;
mod build_world;
mod inertia;
mod joints;
mod lattice;
mod mesh;
mod parse;
mod path;
mod shape;
mod table;

pub use crate::body::Motion;
/// The joints' kinds are the engine's, re-exported under the path the scene format has used.
pub use crate::joints::JointKind;
pub use crate::kinematic_path::PathSpec;
pub use crate::mass_properties::PartMass;
/// The `[world]` choices are engine types, spelled in scene files as `docs/scene-format.md` says
/// (`parse` reads them); re-exported here under the paths the scene format has always used.
pub use crate::world::{ContactPush, Method, RestingContactMode};
pub use batch::{BatchSpec, Distribution, StateVector, Vary, VaryKey};
pub use joints::{JointEnd, JointSpec};
pub use lattice::{random_rotation, MAX_GENERATED_BODIES};

use crate::material::{Material, MaterialError, MaterialPair, MaterialTable};
use crate::shape::Shape;
use crate::world::WorldConfig;
use glam::{DMat3, DQuat, DVec3};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `[world]` settings: the engine's [`WorldConfig`] (see [`WorldSettings::config`]) and the
/// run's `duration`.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSettings {
    /// Gravity (m/s²); z is up.
    pub gravity: DVec3,
    /// Simulated time to run (s).
    pub duration: f64,
    /// Swept-volume horizon t_f and output frame interval (s).
    pub frame_period: f64,
    /// Collision epsilon ε_c (m).
    pub collision_epsilon: f64,
    /// Rest time before a supported, motionless body sleeps (s); 0 disables sleeping.
    pub sleep_time: f64,
    /// How resting contacts are handled.
    pub resting_contact: RestingContactMode,
    /// Shortest length h of a contact step (s) when resting contacts are constraints; frames
    /// are split into steps no longer than the present length, which starts here.
    pub contact_step: f64,
    /// Longest contact step (s, ≥ `contact_step`; `None`: twice `contact_step`). Between the
    /// two the length doubles or halves per frame by the measured work of the contact steps
    /// against that of the local re-solves (see `World::adapt_step_length`); equal to
    /// `contact_step`, every step has that length.
    pub contact_step_max: Option<f64>,
    /// Most projected Gauss–Seidel sweeps per contact step (≥ 1).
    pub contact_sweeps: usize,
    /// Sweeps per level of the shock-propagation pass after them (0: no shock propagation;
    /// Bender & Schmitt 2006 §3.3).
    pub shock_sweeps: usize,
    /// The time-stepping method (`[world] method`).
    pub method: Method,
    /// `method = "lcp"`: the time step h (s), and the friction cone's directions.
    pub time_step: f64,
    pub friction_directions: usize,
    /// How a contact step restores a resting contact's shortfall below its target separation.
    pub contact_push: ContactPush,
}

impl WorldSettings {
    /// The engine's configuration these settings describe: everything but `duration`, which is
    /// how long the caller runs the world, not how the world runs.
    pub fn config(&self) -> WorldConfig {
        WorldConfig {
            gravity: self.gravity,
            frame_period: self.frame_period,
            collision_epsilon: self.collision_epsilon,
            sleep_time: self.sleep_time,
            resting_contact: self.resting_contact,
            contact_step: self.contact_step,
            contact_step_max: self.contact_step_max,
            contact_sweeps: self.contact_sweeps,
            shock_sweeps: self.shock_sweeps,
            method: self.method,
            time_step: self.time_step,
            friction_directions: self.friction_directions,
            contact_push: self.contact_push,
        }
    }
}

impl From<&WorldSettings> for WorldConfig {
    fn from(settings: &WorldSettings) -> WorldConfig {
        settings.config()
    }
}

impl Default for WorldSettings {
    /// The defaults of the scene format: gravity [0, 0, -9.81], duration 5 s, frame period
    /// 0.02 s, collision epsilon 1 mm, sleep time 0.5 s, resting contacts as constraints over
    /// contact steps of 2.5 ms with 8 Gauss–Seidel sweeps and 4 shock-propagation sweeps per
    /// level (see docs/performance.md for both modes measured on the funnels).
    fn default() -> Self {
        WorldSettings {
            gravity: DVec3::new(0.0, 0.0, -9.81),
            duration: 5.0,
            frame_period: 0.02,
            collision_epsilon: 0.001,
            sleep_time: 0.5,
            resting_contact: RestingContactMode::Constraints,
            contact_step: 0.0025,
            contact_step_max: None,
            contact_sweeps: 8,
            shock_sweeps: 4,
            method: Method::Event,
            time_step: 0.01,
            friction_directions: 8,
            contact_push: ContactPush::Velocity,
        }
    }
}

/// How the body's mass is given.
#[derive(Clone, Debug, PartialEq)]
pub enum MassSpec {
    /// Total mass (kg).
    Mass(f64),
    /// Uniform density (kg/m³).
    Density(f64),
    /// A compound whose every part carries its own mass or density, one entry per part in the
    /// order of the compound's `parts`: the body's mass, centre of mass and inertia are the sum
    /// of the parts' (overlapping parts add, which is how a dense insert is modelled).
    Parts(Vec<PartMass>),
}

/// A body's `inertia` key: principal moments along the computed principal axes, or a full tensor
/// that gives both the moments and the axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InertiaSpec {
    /// Principal moments (kg m²), ascending order matched to the computed principal axes sorted
    /// by their computed moments; the axes stay those of the shape's own tensor.
    Principal(DVec3),
    /// The inertia tensor about the centre of mass in the shape's frame (kg m²), symmetric and
    /// positive definite: the body's principal moments and axes are its eigen-decomposition, so
    /// the axes may be turned against the shape (a rattleback).
    Tensor(DMat3),
}

/// The [`MassSpec`] recorded for fixed and kinematic bodies that give neither `mass` nor
/// `density`: they have infinite mass, so the value is never used, but water's density keeps any
/// accidental use physically sane.
pub const UNUSED_DENSITY: f64 = 1000.0;

/// One body as written in the scene (after generators are expanded).
#[derive(Clone, Debug, PartialEq)]
pub struct BodySpec {
    /// Unique name.
    pub name: String,
    /// Dynamic, fixed or kinematic.
    pub motion: Motion,
    /// Shape in the body's own (user) frame.
    pub shape: Shape,
    /// Mass or density (ignored for fixed and kinematic bodies; [`UNUSED_DENSITY`] when they give
    /// none).
    pub mass: MassSpec,
    /// Optional inertia overriding the computed one (kg m², about the centre of mass): principal
    /// moments along the computed principal axes, or a full tensor in the shape's frame.
    pub inertia: Option<InertiaSpec>,
    /// Position of the shape frame's origin (m, world).
    pub position: DVec3,
    /// Orientation of the shape frame (unit quaternion).
    pub orientation: DQuat,
    /// Linear velocity of the shape frame's origin (m/s).
    pub velocity: DVec3,
    /// Angular velocity (rad/s, world).
    pub angular_velocity: DVec3,
    /// The name of the body's material.
    pub material: String,
    /// A kinematic body's prescribed motion (`path`), relative to `position` and
    /// `orientation`; `None` for constant velocities (and for every other body).
    pub path: Option<PathSpec>,
    /// Where the body was defined, for error messages: "scene.toml:12" (line of its table; for a
    /// lattice-generated body, the line of the `[[lattices]]` table).
    pub origin: String,
}

/// A parsed, validated scene.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The file it came from (or a label for in-memory scenes).
    pub source: PathBuf,
    /// World settings.
    pub world: WorldSettings,
    /// Named materials; always contains "default".
    pub materials: BTreeMap<String, Material>,
    /// `[[material_pairs]]` overrides of the combination rule (names validated).
    pub material_pairs: Vec<MaterialPair>,
    /// Bodies, generators expanded: the `[[bodies]]` entries in file order, then the bodies of
    /// each `[[lattices]]` entry in file order.
    pub bodies: Vec<BodySpec>,
    /// `[[joints]]`, in file order (body indices into `bodies`).
    pub joints: Vec<JointSpec>,
    /// `[batch]`: how `tumble batch` runs the scene's trials (ignored by `run`).
    pub batch: Option<BatchSpec>,
}

impl Scene {
    /// The scene's materials and pair overrides as a lookup table for the collision response.
    pub fn material_table(&self) -> Result<MaterialTable, SceneError> {
        MaterialTable::new(&self.materials, &self.material_pairs).map_err(|e: MaterialError| {
            SceneError {
                message: format!("{}: {e}", self.source.display()),
            }
        })
    }

    /// How many bodies have each motion: (dynamic, fixed, kinematic).
    pub fn motion_counts(&self) -> (usize, usize, usize) {
        let count = |m: Motion| self.bodies.iter().filter(|b| b.motion == m).count();
        (
            count(Motion::Dynamic),
            count(Motion::Fixed),
            count(Motion::Kinematic),
        )
    }
}

/// A scene error: file, location, key and body named in the message.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct SceneError {
    /// The full message, e.g. `scenes/a.toml:12:5: bodies[3] "ball": mass must be > 0 (got -1)`.
    pub message: String,
}

/// Reads and validates a scene file.
pub fn load(path: &Path) -> Result<Scene, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|e| SceneError {
        message: format!("{}: cannot read scene file: {e}", path.display()),
    })?;
    parse(&text, path)
}

/// Parses and validates scene text; `source` names it in errors.
pub fn parse(text: &str, source: &Path) -> Result<Scene, SceneError> {
    parse::scene(text, source)
}
