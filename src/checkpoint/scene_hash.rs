//! The scene's hash: SHA-256 of the scene file's text and of every mesh file it loads, each
//! with its name and length, so a checkpoint is refused for a scene that is not the one it was
//! written from, mesh files included.

use super::CheckpointError;
use crate::scene::Scene;
use crate::shape::Shape;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The mesh files `scene` loads, as the scene names them (relative to its folder), each once,
/// sorted.
pub fn mesh_files(scene: &Scene) -> Vec<String> {
    let mut files: Vec<String> = scene
        .bodies
        .iter()
        .filter_map(|b| match &b.shape {
            Shape::Mesh { mesh, .. } => Some(mesh.file.clone()),
            _ => None,
        })
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The folder a scene's mesh files are relative to: its file's.
pub fn scene_dir(scene: &Scene) -> PathBuf {
    scene
        .source
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The hash of `scene`, parsed from `text`: the text and each mesh file as it is on disk now.
/// A mesh that cannot be read is an error naming it.
pub fn scene_hash(text: &str, scene: &Scene) -> Result<[u8; 32], CheckpointError> {
    let mut h = Sha256::new();
    let mut part = |name: &[u8], bytes: &[u8]| {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    part(b"scene", text.as_bytes());
    let dir = scene_dir(scene);
    for file in mesh_files(scene) {
        let path = dir.join(&file);
        let bytes = std::fs::read(&path)
            .map_err(|e| CheckpointError::new(&path, format!("cannot read mesh file: {e}")))?;
        part(file.as_bytes(), &bytes);
    }
    Ok(h.finalize().into())
}

/// The hash as hexadecimal text, for messages.
pub fn hex(hash: &[u8; 32]) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}
