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
//! - `derived`: a body's size, volume, mass and inertia checked at the keys that make them;
//! - `inertia`: a body's `inertia`, principal moments or a full tensor;
//! - `lattice`: the `[[lattices]]` generators;
//! - `flow`: the `[[sources]]` that pour bodies in over the run and the `[[sinks]]` that take
//!   them out;
//! - `region`: the boxes they name;
//! - `probes`: the `[[probes]]` that measure a run at each frame;
//! - `batch`: the `[batch]` table of `tumble batch`;
//! - `build_world`: a [`World`](crate::world::World) built from a scene (`World::new`);
//! - `shape`: `shape = { type = … }` tables;
//! - `table`: the spanned-table reader they all use, which locates every error;
//! - `unclosed`: where a bracket or string the TOML parser found unclosed opened;
//! - `warnings`: what a valid scene does that its author likely did not mean ([`Scene::warnings`]).

mod batch;
mod bodies;
mod build_world;
mod derived;
mod flow;
mod inertia;
mod joints;
mod lattice;
pub mod limits;
mod mesh;
mod parse;
mod path;
mod probes;
mod region;
mod shape;
pub mod shorten;
mod table;
mod unclosed;
mod warnings;

pub use crate::body::Motion;
/// The joints' kinds are the engine's, re-exported under the path the scene format has used.
pub use crate::joints::JointKind;
pub use crate::kinematic_path::PathSpec;
pub use crate::mass_properties::PartMass;
/// The `[world]` choices are engine types, spelled in scene files as `docs/scene-format.md` says
/// (`parse` reads them); re-exported here under the paths the scene format has always used.
pub use crate::world::{ContactPush, JammedIslands, Method, RestingContactMode};
pub use batch::{BatchSpec, Distribution, ScalarKey, StateVector, Vary, VaryKey, VaryTarget};
pub(crate) use build_world::{body_from_spec, body_placed};
pub use flow::{SinkSpec, SourceBody, SourceSpec, MAX_REGION_EXTENT};
pub use joints::{JointEnd, JointSpec};
pub use lattice::random_rotation;
pub use probes::{ProbeKind, ProbeSpec};
pub use region::Region;

use crate::material::{Material, MaterialError, MaterialPair, MaterialTable};
use crate::shape::Shape;
use crate::world::WorldConfig;
use glam::{DMat3, DQuat, DVec3};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `[world]` settings: the engine's [`WorldConfig`] and the run's `duration`, which is how long
/// the caller runs the world, not how the world runs.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSettings {
    /// Simulated time to run (s).
    pub duration: f64,
    /// Everything else the table sets (see [`WorldConfig`]'s fields for their meaning).
    pub config: WorldConfig,
}

impl Default for WorldSettings {
    /// The defaults of the scene format: duration 5 s and [`WorldConfig::default`].
    fn default() -> Self {
        WorldSettings {
            duration: 5.0,
            config: WorldConfig::default(),
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
    /// `[[sources]]`: bodies poured in over the run, in file order.
    pub sources: Vec<SourceSpec>,
    /// `[[sinks]]`: regions that take bodies out, in file order.
    pub sinks: Vec<SinkSpec>,
    /// `[[probes]]`: what the run measures at each frame, in file order.
    pub probes: Vec<ProbeSpec>,
    /// The files it read besides itself (meshes): each `file` value as written, and the path
    /// it was read from. A run directory keeps copies of them ([`crate::run_dir`]).
    pub files: Vec<(String, PathBuf)>,
}

impl Scene {
    /// The scene's materials and pair overrides as a lookup table for the collision response.
    pub fn material_table(&self) -> Result<MaterialTable, SceneError> {
        MaterialTable::new(&self.materials, &self.material_pairs)
            .map_err(|e: MaterialError| SceneError::new(format!("{}: {e}", self.source.display())))
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

impl SceneError {
    /// An error with `message`, its long quoted values and long numbers shortened
    /// ([`shorten::shorten_values`]): a message must stay readable whatever the file holds.
    pub fn new(message: impl Into<String>) -> SceneError {
        SceneError {
            message: shorten::shorten_values(&message.into()),
        }
    }
}

/// Whether `body` is a name generator `generator` gives its bodies: `<generator>_<k>`, k a
/// number (a lattice's bodies, a source's).
pub fn generated_by(body: &str, generator: &str) -> bool {
    body.strip_prefix(generator)
        .and_then(|rest| rest.strip_prefix('_'))
        .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}

/// Reads and validates a scene file.
pub fn load(path: &Path) -> Result<Scene, SceneError> {
    parse(&read_text(path)?, path)
}

/// Reads a scene file's text. An error names the file; text that is not UTF-8 is refused at the
/// line and column of its first invalid byte (std's own message names neither).
pub fn read_text(path: &Path) -> Result<String, SceneError> {
    let bytes = std::fs::read(path)
        .map_err(|e| SceneError::new(format!("{}: cannot read scene file: {e}", path.display())))?;
    decode_text(path, bytes)
}

/// The text of a scene file's `bytes` (read from `path`, which the error names), refused at the
/// line and column of the first byte that is not UTF-8: for callers that read the file
/// themselves, as the Python package does to tell a missing file from the rest.
pub fn decode_text(path: &Path, bytes: Vec<u8>) -> Result<String, SceneError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        // Everything before `at` is valid UTF-8, so lines and columns count characters there.
        let before = String::from_utf8_lossy(&bytes[..at]);
        let line = before.matches('\n').count() + 1;
        let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
            .chars()
            .count()
            + 1;
        SceneError::new(format!(
            "{}:{line}:{col}: the scene file is not UTF-8 text: byte 0x{:02x} (offset {at}) \
             is not valid UTF-8; save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)",
            path.display(),
            bytes[at]
        ))
    })
}

/// Parses and validates scene text; `source` names it in errors.
pub fn parse(text: &str, source: &Path) -> Result<Scene, SceneError> {
    parse::scene(text, source, None)
}

/// Parses a stored copy of a scene (a run directory's `scene.toml`), whose named files are
/// read from `files` (`file` value as written → path) instead of beside `source`.
pub fn parse_stored(
    text: &str,
    source: &Path,
    files: &BTreeMap<String, PathBuf>,
) -> Result<Scene, SceneError> {
    parse::scene(text, source, Some(files))
}
