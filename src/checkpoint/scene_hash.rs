//! The scene's hash: SHA-256 of the scene file's text and of every mesh file it loads, each
//! with its name and length, so a checkpoint is refused for a scene that is not the one it was
//! written from, mesh files included.

use super::CheckpointError;
use crate::scene::Scene;
use sha2::{Digest, Sha256};

/// The hash of `scene`, parsed from `text`: the text and each file it read (its meshes,
/// [`Scene::files`], in the order read) as it is on disk now. A file that cannot be read is an
/// error naming it.
pub fn scene_hash(text: &str, scene: &Scene) -> Result<[u8; 32], CheckpointError> {
    let mut h = Sha256::new();
    let mut part = |name: &[u8], bytes: &[u8]| {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    part(b"scene", text.as_bytes());
    for (name, path) in &scene.files {
        let bytes = std::fs::read(path)
            .map_err(|e| CheckpointError::new(path, format!("cannot read mesh file: {e}")))?;
        part(name.as_bytes(), &bytes);
    }
    Ok(h.finalize().into())
}

/// The hash as hexadecimal text, for messages.
pub fn hex(hash: &[u8; 32]) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}
