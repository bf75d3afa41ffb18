//! Checkpoints of a run: the whole simulation state in one file, written as a run goes
//! (`tumble run --checkpoint-every S`) and read back to continue it (`tumble run --resume DIR`)
//! exactly as the run would have gone on: the frames after a resume are byte for byte those of
//! a run never stopped (tests/checkpoint.rs).
//!
//! # The file, `DIR/checkpoint.bin`
//! All numbers little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `TUMBLECK` |
//! | 4 | format version, [`FORMAT_VERSION`] (`u32`) |
//! | 32 | the scene's hash: SHA-256 of the scene file's text and every mesh file it loads |
//! | 8 | payload length (`u64`) |
//! | 32 | checksum: SHA-256 of the 52 bytes above and the payload |
//! | … | payload: [`RunInfo`] then the world's state ([`crate::world::WorldState`]), in `postcard` |
//!
//! `postcard` writes integers as varints and every `f64` as its 8 raw bytes, so each value
//! reads back to the same bits. The payload carries what a resume needs besides the folder:
//! the scene file's text and path (mesh files are read relative to it and hashed again), the
//! run's options, where the output tables stood (their byte lengths: a resume cuts them back to
//! that and appends), the simulated and wall time. A file that is truncated, corrupt, of
//! another version or of another scene is refused with an error naming it and what is wrong.
//!
//! The file is replaced atomically (written beside, synced, renamed): a run killed at any
//! instant leaves the previous checkpoint or the new one whole.
//!
//! What the world's state holds, and why the rest need not be saved, is in
//! `world/saved_state.rs`; the command line's side (`--checkpoint-every`, `--resume`) in the
//! binary's `cli/resume.rs`; the user's guide in `docs/checkpoints.md`.
//!
//! Modules: `file` (header, checksum, atomic write), `scene_hash` (the scene's hash) and
//! `crate::sorted_map` (hash maps written sorted by key, so one state makes one file).

mod file;
mod scene_hash;

pub use file::{HEADER_LEN, MAGIC, VERSION_OFFSET};
pub use scene_hash::{hex, scene_hash};

use crate::output::{EventsMark, FramesMark};
use crate::scene::{self, Scene};
use crate::world::{World, WorldState};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The format version this build writes and reads; any change to the layout or to the state
/// saved takes a new one. 2: each body's stall-guard counts. 3: the counts and stage times
/// of the contact sweeps on a device. 4: without the broad phase's grid (each step's seeding
/// resets it before any query). 5: the counts of bodies inserted, unplaced and removed, and the
/// names of the deepest overlap's bodies once one is removed.
pub const FORMAT_VERSION: u32 = 5;

/// The checkpoint's name in a run's output folder.
pub const FILE_NAME: &str = "checkpoint.bin";

/// Why a checkpoint cannot be written, read or used; names the file.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct CheckpointError {
    /// The checkpoint (or the file it needs).
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

impl CheckpointError {
    /// An error about `path`.
    pub fn new(path: &Path, message: impl Into<String>) -> CheckpointError {
        CheckpointError {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

/// The scene a run simulates, whole: what a resume builds its world from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneRecord {
    /// The scene file as the run was given it (summary.json's `scene`).
    pub name: String,
    /// The scene file's absolute path: its folder is the one mesh files are read from.
    pub path: PathBuf,
    /// The scene file's text.
    pub text: String,
}

/// The options a run was started with, kept so that a resume goes on with the same.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunOptions {
    /// Simulated time the run goes to (s).
    pub duration: f64,
    /// Every K-th frame kept (`--every`).
    pub every: u64,
    /// Bodies kept (`--record`; empty: every non-fixed body).
    pub record: Vec<String>,
    /// The tables' format, "csv" (Parquet tables cannot be reopened: no checkpoints there).
    pub format: String,
    /// Whether events.csv is written (`--events`).
    pub events: bool,
    /// The backend that ran, "cpu" or "gpu" (not `auto`: a resume must run on the same).
    pub backend: String,
    /// Simulated seconds between checkpoints (`--checkpoint-every`).
    pub checkpoint_every: f64,
    /// Worker threads (`--threads`; `None`: one per core). Results do not depend on it, the
    /// parallel event loop's counters do.
    pub threads: Option<u64>,
}

/// What a checkpoint holds besides the world's state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The scene.
    pub scene: SceneRecord,
    /// The run's options.
    pub options: RunOptions,
    /// Where frames.csv stood.
    pub frames: FramesMark,
    /// Where events.csv stood (`None`: the run writes none).
    pub events: Option<EventsMark>,
    /// The run directory's copies of the scene and its files, as summary.json names them.
    pub stored_scene: Option<crate::run_dir::StoredScene>,
    /// The world's time (s).
    pub time: f64,
    /// Wall time the run has taken so far, over all its parts (s).
    pub wall_time: f64,
}

/// A checkpoint read back and checked ([`read`]).
pub struct Checkpoint {
    /// The file it was read from.
    pub path: PathBuf,
    /// The scene's hash written in its header.
    pub scene_hash: [u8; 32],
    /// The run it belongs to.
    pub info: RunInfo,
    /// The world's state.
    pub world: WorldState,
}

/// The size and the cost of one checkpoint written.
#[derive(Clone, Copy, Debug)]
pub struct Written {
    /// Bytes of the file.
    pub bytes: u64,
    /// Wall time to encode and write it, sync included (s).
    pub seconds: f64,
}

/// The checkpoint file of output folder `dir`.
pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

/// Encodes a checkpoint of `world` (between frames) for the run `info` of a scene hashing to
/// `scene_hash` ([`scene_hash`]): the whole file's bytes.
pub fn encode(
    scene_hash: &[u8; 32],
    info: &RunInfo,
    world: &World,
) -> Result<Vec<u8>, postcard::Error> {
    let payload = postcard::to_stdvec(info)?;
    let payload = postcard::to_extend(&world.state(), payload)?;
    Ok(file::encode(FORMAT_VERSION, scene_hash, &payload))
}

/// Writes a checkpoint of `world` to `path`, replacing the last one atomically.
pub fn write(
    path: &Path,
    scene_hash: &[u8; 32],
    info: &RunInfo,
    world: &World,
) -> Result<Written, CheckpointError> {
    let clock = Instant::now();
    let bytes = encode(scene_hash, info, world)
        .map_err(|e| CheckpointError::new(path, format!("cannot encode the state: {e}")))?;
    file::write_atomic(path, &bytes)?;
    Ok(Written {
        bytes: bytes.len() as u64,
        seconds: clock.elapsed().as_secs_f64(),
    })
}

/// Reads the checkpoint at `path` and checks its header, length and checksum, and that its
/// contents decode. The scene is checked when it is built ([`Checkpoint::scene`]).
pub fn read(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CheckpointError::new(path, format!("cannot read checkpoint: {e}")))?;
    decode(path, &bytes)
}

/// [`read`] on bytes already read; `path` names them in errors.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
    let (scene_hash, payload) = file::decode(path, bytes, FORMAT_VERSION)?;
    let corrupt = |what: &str, e: postcard::Error| {
        CheckpointError::new(path, format!("corrupt: cannot decode the {what}: {e}"))
    };
    let (info, rest) =
        postcard::take_from_bytes::<RunInfo>(payload).map_err(|e| corrupt("run's record", e))?;
    let (world, rest) =
        postcard::take_from_bytes::<WorldState>(rest).map_err(|e| corrupt("world's state", e))?;
    if !rest.is_empty() {
        return Err(CheckpointError::new(
            path,
            format!("corrupt: {} bytes left over after the state", rest.len()),
        ));
    }
    Ok(Checkpoint {
        path: path.to_path_buf(),
        scene_hash,
        info,
        world,
    })
}

impl Checkpoint {
    /// The scene of the checkpoint, parsed from its text with mesh files read from the scene's
    /// folder, or, where those moved or changed, from the run directory's copies; refused if
    /// its hash (text and meshes) is not the header's either way.
    pub fn scene(&self) -> Result<Scene, CheckpointError> {
        let record = &self.info.scene;
        let original = scene::parse(&record.text, &record.path).map_err(|e| {
            CheckpointError::new(&self.path, format!("cannot build its scene again: {e}"))
        });
        let original = original.and_then(|scene| self.same_hash(scene));
        // Meshes moved or edited since: the run directory's own copies, if they are the same.
        match (
            original.is_err(),
            &self.info.stored_scene,
            self.path.parent(),
        ) {
            (true, Some(stored), Some(dir)) if !stored.files.is_empty() => {
                let files = stored
                    .files
                    .iter()
                    .map(|f| (f.name.clone(), dir.join(&f.stored)))
                    .collect();
                match scene::parse_stored(&record.text, &record.path, &files) {
                    Ok(scene) => self.same_hash(scene).or(original),
                    Err(_) => original,
                }
            }
            _ => original,
        }
    }

    /// `scene` if its hash (text and files) is the checkpoint's.
    fn same_hash(&self, scene: Scene) -> Result<Scene, CheckpointError> {
        let record = &self.info.scene;
        let now = scene_hash(&record.text, &scene)?;
        if now != self.scene_hash {
            return Err(CheckpointError::new(
                &self.path,
                format!(
                    "the scene's hash is {}, not the {} the checkpoint was written with: a mesh \
                     file of {} changed since",
                    hex(&now),
                    hex(&self.scene_hash),
                    record.path.display()
                ),
            ));
        }
        Ok(scene)
    }

    /// The world of `scene` ([`Checkpoint::scene`]) in the checkpoint's state, without frame
    /// stages (install the backend on it).
    pub fn into_world(self, scene: &Scene) -> Result<World, CheckpointError> {
        let mut world = World::new(scene).map_err(|e| {
            CheckpointError::new(&self.path, format!("cannot build its world: {e}"))
        })?;
        world.restore_state(self.world).map_err(|e| {
            CheckpointError::new(&self.path, format!("does not fit its scene: {e}"))
        })?;
        Ok(world)
    }
}
