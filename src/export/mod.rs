//! `tumble export RUN_DIR --gltf FILE.glb`: a finished run as one glTF 2.0 binary (GLB) that
//! Blender, three.js and other glTF viewers open and play.
//!
//! The file holds:
//! - a node per body, named as in the scene and in scene order, placed at the first frame's
//!   pose; its mesh is the body's shape tessellated as `tumble render` tessellates it
//!   ([`crate::tessellate::shape_mesh`] at [`crate::render::geometry::DETAIL`], a plane as a
//!   finite square), in a material of the renderer's colour
//!   ([`crate::render::geometry::body_colour`]);
//! - one animation, named after the scene file, with a translation and a rotation channel per
//!   moving (dynamic or kinematic) body: the frames as keyframes, linear, at their times in
//!   seconds. Fixed bodies have no channel.
//!
//! A pose in `frames.csv` is that of the body's shape frame, the frame the mesh is tessellated
//! in, so it is the node's transform as it is, the same model matrix `tumble render` draws with.
//!
//! Coordinates: glTF is y-up and tumble z-up, so the file holds tumble's (x, y, z) as
//! (x, z, −y) and an orientation's vector part alike; a y-up viewer (three.js) shows the run
//! standing, and Blender's importer turns it back to tumble's own coordinates.

mod document;
mod glb;

use crate::run_record::RunRecord;
use std::path::{Path, PathBuf};

/// What an export wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportReport {
    /// Nodes: one per body.
    pub nodes: usize,
    /// Distinct meshes (bodies of equal shape and colour share one).
    pub meshes: usize,
    /// Distinct materials (one per colour).
    pub materials: usize,
    /// Triangles over all bodies, counting a shared mesh once per body.
    pub triangles: usize,
    /// Frames, each a keyframe of the animation.
    pub frames: usize,
    /// Animation channels: two per moving body.
    pub channels: usize,
    /// Seconds from the first frame to the last.
    pub seconds: f64,
    /// Size of the GLB file (bytes).
    pub bytes: usize,
}

/// Why an export failed. Every case is the export's own failure (exit code 1): a run directory
/// that cannot be read is [`crate::run_record::RunRecordError`]'s, before the export starts.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The run cannot be written: it has no frames, a frame lacks bodies (a record built by
    /// hand), or a pose is beyond what glTF's f32 numbers hold (a body flown off to 10³⁹ m).
    #[error("{0}")]
    Invalid(String),
    /// The file would pass the GLB format's 4 GiB limit.
    #[error("the GLB would be {0} bytes, past the format's limit of 4 GiB")]
    TooLarge(u64),
    /// The document could not be encoded as JSON.
    #[error("cannot encode the glTF JSON: {0}")]
    Json(String),
    /// The file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The GLB file of `run`, and what it holds.
pub fn glb(run: &RunRecord) -> Result<(Vec<u8>, ExportReport), ExportError> {
    let doc = document::document(run)?;
    let json = doc
        .root
        .to_vec()
        .map_err(|e| ExportError::Json(e.to_string()))?;
    let bytes = glb::container(&json, &doc.bin)
        .ok_or(ExportError::TooLarge((json.len() + doc.bin.len()) as u64))?;
    let report = ExportReport {
        bytes: bytes.len(),
        ..doc.report
    };
    Ok((bytes, report))
}

/// Writes the GLB file of `run` to `path`, creating its directory if needed.
pub fn write_glb(run: &RunRecord, path: &Path) -> Result<ExportReport, ExportError> {
    let (bytes, report) = glb(run)?;
    let failed = |source| ExportError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    std::fs::write(path, &bytes).map_err(failed)?;
    Ok(report)
}
