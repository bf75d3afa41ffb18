//! A run directory that stands on its own: `tumble run` keeps a copy of the scene file
//! (`scene.toml`) and of every file it names (`meshes/`), with their original paths and SHA-256
//! hashes in `summary.json` (`stored_scene`), so that `render`, `view` and `export` work from
//! any directory, after the scene was edited or moved, and a reader can tell whether the
//! original still matches what ran.

use crate::scene::{self, Scene};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `summary.json`'s `stored_scene`: where the copies are and what they were copied from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredScene {
    /// The scene's copy, relative to the run directory (`scene.toml`).
    pub file: String,
    /// The scene file that ran, absolute; `null` for a scene made in memory (Python's
    /// `Scene.from_toml`, `from_dict`).
    pub original: Option<String>,
    /// SHA-256 of its bytes (hex).
    pub sha256: String,
    /// The files it names (meshes), in the order it read them.
    pub files: Vec<StoredFile>,
}

/// One file a stored scene names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredFile {
    /// The scene's `file` value, as written.
    pub name: String,
    /// The copy, relative to the run directory (`meshes/0-part.stl`).
    pub stored: String,
    /// The file that was read, absolute.
    pub original: String,
    /// SHA-256 of its bytes (hex).
    pub sha256: String,
}

/// A scene file or a named file that could not be copied or read back.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RunDirError(pub String);

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// Copies the scene file `source` (whose parse is `scene`) and every file it read into `dir`:
/// `dir/scene.toml` and `dir/meshes/K-NAME`, replacing copies of an earlier run there.
pub fn store(dir: &Path, source: &Path, scene: &Scene) -> Result<StoredScene, RunDirError> {
    let text =
        std::fs::read(source).map_err(|e| RunDirError(format!("{}: {e}", source.display())))?;
    store_text(dir, &text, Some(source), scene)
}

/// [`store`] for scene text (`original`: the file it was read from, if any).
pub fn store_text(
    dir: &Path,
    text: &[u8],
    original: Option<&Path>,
    scene: &Scene,
) -> Result<StoredScene, RunDirError> {
    let fail = |what: &Path, e: std::io::Error| RunDirError(format!("{}: {e}", what.display()));
    let copy = dir.join("scene.toml");
    std::fs::write(&copy, text).map_err(|e| fail(&copy, e))?;
    let meshes = dir.join("meshes");
    if meshes.exists() {
        std::fs::remove_dir_all(&meshes).map_err(|e| fail(&meshes, e))?;
    }
    let mut files = Vec::new();
    for (k, (name, path)) in scene.files.iter().enumerate() {
        let base = path
            .file_name()
            .map(|b| b.to_string_lossy().into_owned())
            .unwrap_or_else(|| "file".to_string());
        let stored = format!("meshes/{k}-{base}");
        let bytes = std::fs::read(path).map_err(|e| fail(path, e))?;
        std::fs::create_dir_all(&meshes).map_err(|e| fail(&meshes, e))?;
        let to = dir.join(&stored);
        std::fs::write(&to, &bytes).map_err(|e| fail(&to, e))?;
        files.push(StoredFile {
            name: name.clone(),
            stored,
            original: absolute(path),
            sha256: sha256_hex(&bytes),
        });
    }
    Ok(StoredScene {
        file: "scene.toml".to_string(),
        original: original.map(absolute),
        sha256: sha256_hex(text),
        files,
    })
}

/// Reads the stored copy back: the scene as it ran, its named files from the copies. Errors
/// name the run directory's file.
pub fn load(dir: &Path, stored: &StoredScene) -> Result<Scene, RunDirError> {
    let path = dir.join(&stored.file);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        RunDirError(format!(
            "{}: the run's copy of its scene: {e}",
            path.display()
        ))
    })?;
    let files: BTreeMap<String, PathBuf> = stored
        .files
        .iter()
        .map(|f| (f.name.clone(), dir.join(&f.stored)))
        .collect();
    // Named as the original (an export's animation, a picture's title take its stem); the text
    // is the original's, byte for byte.
    let source = stored.original.as_ref().map_or(path.clone(), PathBuf::from);
    scene::parse_stored(&text, &source, &files).map_err(|e| RunDirError(e.message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_scene_reads_back_with_its_meshes_after_the_original_is_gone() {
        let root = std::env::temp_dir().join(format!("tumble-run-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (scenes, run) = (root.join("scenes/sub"), root.join("run"));
        std::fs::create_dir_all(&scenes).unwrap();
        std::fs::create_dir_all(root.join("scenes/meshes")).unwrap();
        std::fs::create_dir_all(&run).unwrap();
        std::fs::copy(
            concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/meshes/cube.stl"),
            root.join("scenes/meshes/cube.stl"),
        )
        .unwrap();
        let source = scenes.join("part.toml");
        std::fs::write(
            &source,
            "[[bodies]]\nname = \"part\"\n\
             shape = { type = \"mesh\", file = \"../meshes/cube.stl\", scale = 0.001 }\n\
             density = 1000\n",
        )
        .unwrap();
        let scene = scene::load(&source).unwrap();
        assert_eq!(scene.files.len(), 1);
        let stored = store(&run, &source, &scene).unwrap();
        assert_eq!(stored.files[0].name, "../meshes/cube.stl");
        assert_eq!(stored.files[0].stored, "meshes/0-cube.stl");
        assert_eq!(stored.sha256.len(), 64);
        std::fs::remove_dir_all(root.join("scenes")).unwrap();
        let back = load(&run, &stored).unwrap();
        assert_eq!(back.bodies.len(), 1);
        assert_eq!(back.bodies[0].shape, scene.bodies[0].shape);
        std::fs::remove_dir_all(&root).ok();
    }
}
