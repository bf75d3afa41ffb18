//! `tumble view RUN_DIR`: a finished run as one self-contained HTML file that plays it in a
//! browser, with no network at view time.
//!
//! The page holds three things: three.js (the vendored minified module build and its
//! OrbitControls, `vendor/`, see `vendor/README.md`), the run as one JSON object (meshes,
//! colours, the camera's focus and base64 poses, [`data`]), and the viewer's script
//! (`viewer.js` in the page `viewer.html`). Every body is drawn from the renderer's own meshes
//! and colours, framed by the renderer's automatic camera; the script interpolates the poses
//! between frames (quaternions by slerp) and plays them at real time times a chosen speed.
//!
//! three.js is an ES module, and a page opened from a `file://` URL cannot import modules from
//! neighbouring files (browsers refuse cross-origin module loads there). An import map sends
//! each module specifier to a `data:` URL holding the module's text instead: it works from
//! `file://` in Chromium and Firefox, needs no script to set it up, and keeps the vendored files
//! unchanged but for one import specifier. (The alternative, blob URLs made by a classic script
//! before the import map is inserted, needs the import map to be added dynamically, which is
//! harder to get right in every browser.)

pub mod data;

use crate::plural::count;
use crate::run_record::RunRecord;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The page around the data and the script; `{{name}}` marks where each goes.
const TEMPLATE: &str = include_str!("viewer.html");
/// The viewer's script (an ES module importing `three` and its OrbitControls).
const VIEWER: &str = include_str!("viewer.js");
/// three.js's core, which the module build imports.
const THREE_CORE: &str = include_str!("vendor/three.core.min.js");
/// three.js's module build (the WebGL renderer), importing the core.
const THREE_MODULE: &str = include_str!("vendor/three.module.min.js");
/// three.js's orbit controls (an addon importing `three`).
const ORBIT_CONTROLS: &str = include_str!("vendor/OrbitControls.js");
/// How the module build names the core: a relative path, which does not resolve from a `data:`
/// URL; it is renamed to [`CORE_SPECIFIER`], which the import map resolves.
const CORE_IMPORT: &str = "\"./three.core.min.js\"";
/// The import map's name for three.js's core.
const CORE_SPECIFIER: &str = "\"three-core\"";

/// The version of three.js the page embeds (the npm package `three`).
pub const THREE_VERSION: &str = "0.184.0";

/// Past this size (bytes) the command warns and suggests `--every`: a browser takes many
/// seconds to load such a page and holds several times its size in memory.
pub const LARGE_FILE_BYTES: u64 = 100_000_000;

/// The size `--every` suggestions aim at (bytes).
const SUGGESTED_FILE_BYTES: u64 = 50_000_000;

/// What to write.
#[derive(Clone, Debug)]
pub struct ViewOptions {
    /// The HTML file (its directory is created).
    pub out: PathBuf,
    /// Keep every K-th frame (K ≥ 1), the first and the last included.
    pub every: usize,
}

/// Why the page could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// Bad input: options, or a run with nothing to show (exit code 2).
    #[error("{0}")]
    Input(String),
    /// The file could not be written (exit code 1).
    #[error("{0}")]
    Output(String),
}

/// What [`write`] did.
#[derive(Clone, Debug)]
pub struct ViewReport {
    /// The HTML file.
    pub path: PathBuf,
    /// Its size (bytes).
    pub bytes: u64,
    /// Frames it holds.
    pub frames: usize,
    /// Bodies, fixed ones included.
    pub bodies: usize,
    /// Bodies with a pose per frame (all but the fixed ones).
    pub moving: usize,
    /// Distinct meshes (bodies with equal shapes share one).
    pub meshes: usize,
    /// The `--every` it was written with.
    pub every: usize,
    /// Bytes of the poses (base64), the part that grows with the run.
    pub pose_bytes: u64,
}

impl ViewReport {
    /// One line for the terminal: the file, its size and what it holds.
    pub fn describe(&self) -> String {
        format!(
            "Wrote {} ({}): {} of {} ({} moving, {}), three.js {}. \
             Open it in a browser; it needs no network.",
            self.path.display(),
            megabytes(self.bytes),
            count(self.frames, "frame", "frames"),
            count(self.bodies, "body", "bodies"),
            self.moving,
            count(self.meshes, "distinct mesh", "distinct meshes"),
            THREE_VERSION,
        )
    }

    /// A warning when the file is past [`LARGE_FILE_BYTES`], with the `--every` that would
    /// bring it near half that.
    pub fn warning(&self) -> Option<String> {
        if self.bytes <= LARGE_FILE_BYTES {
            return None;
        }
        // The poses shrink in proportion to the frames kept; the rest does not.
        let rest = self.bytes.saturating_sub(self.pose_bytes);
        let budget = SUGGESTED_FILE_BYTES.saturating_sub(rest).max(1);
        let factor = self.pose_bytes.div_ceil(budget).max(2) as usize;
        let every = self.every * factor;
        let estimate = rest + self.pose_bytes / factor as u64;
        Some(format!(
            "{} is {}: a browser loads a page this size slowly and may run out of memory; \
             `--every {every}` would make it about {}",
            self.path.display(),
            megabytes(self.bytes),
            megabytes(estimate)
        ))
    }
}

/// `1.6 MB`.
fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// The default output of `tumble view RUN_DIR`: `RUN_DIR/view.html`.
pub fn default_out(run_dir: &Path) -> PathBuf {
    run_dir.join("view.html")
}

/// Writes the page of `run` as `options` say.
pub fn write(run: &RunRecord, options: &ViewOptions) -> Result<ViewReport, ViewError> {
    if options.every == 0 {
        return Err(ViewError::Input("--every must be at least 1".into()));
    }
    if run.frames.is_empty() {
        return Err(ViewError::Input(format!(
            "{}: the run has no frames",
            run.dir.display()
        )));
    }
    let built = data::build(run, options.every);
    let report = ViewReport {
        path: options.out.clone(),
        bytes: 0,
        frames: built.data.times.len(),
        bodies: built.data.bodies.len(),
        moving: built.moving,
        meshes: built.data.meshes.len(),
        every: options.every,
        pose_bytes: built.pose_bytes as u64,
    };
    let json = data_json(&built.data)?;
    let title = built.data.title.clone();
    drop(built);
    let out = &options.out;
    let failed = |e: std::io::Error| ViewError::Output(format!("{}: {e}", out.display()));
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| ViewError::Output(format!("{}: {e}", dir.display())))?;
    }
    let file = std::fs::File::create(out).map_err(failed)?;
    let mut w = std::io::BufWriter::new(file);
    write_page(&mut w, &title, &json).map_err(failed)?;
    let file = w.into_inner().map_err(|e| failed(e.into_error()))?;
    file.sync_all().map_err(failed)?;
    let bytes = file.metadata().map_err(failed)?.len();
    Ok(ViewReport { bytes, ..report })
}

/// The page of `run` as one string (what [`write`] writes), keeping every `every`-th frame.
pub fn page(run: &RunRecord, every: usize) -> Result<String, ViewError> {
    if run.frames.is_empty() {
        return Err(ViewError::Input("the run has no frames".into()));
    }
    let built = data::build(run, every.max(1));
    let json = data_json(&built.data)?;
    let mut bytes = Vec::new();
    write_page(&mut bytes, &built.data.title, &json)
        .map_err(|e| ViewError::Output(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| ViewError::Output(e.to_string()))
}

/// The data as JSON that is safe inside a `<script>` element: a `<` (only possible inside a
/// string, a body's name) is written as `\u003c`, so that no `</script>` can end the element.
fn data_json(data: &data::ViewData) -> Result<String, ViewError> {
    let json = serde_json::to_string(data)
        .map_err(|e| ViewError::Output(format!("cannot encode the run: {e}")))?;
    Ok(if json.contains('<') {
        json.replace('<', "\\u003c")
    } else {
        json
    })
}

/// Writes the template with its `{{name}}` marks filled in.
fn write_page(w: &mut impl Write, title: &str, json: &str) -> std::io::Result<()> {
    let title = escape_html(title);
    let mut rest = TEMPLATE;
    while let Some(start) = rest.find("{{") {
        w.write_all(&rest.as_bytes()[..start])?;
        let end = start
            + rest[start..]
                .find("}}")
                .ok_or_else(|| std::io::Error::other("viewer.html: an unclosed {{"))?;
        match &rest[start + 2..end] {
            "title" => w.write_all(title.as_bytes())?,
            "three_version" => w.write_all(THREE_VERSION.as_bytes())?,
            "importmap" => w.write_all(import_map().as_bytes())?,
            "data" => w.write_all(json.as_bytes())?,
            "viewer" => w.write_all(VIEWER.as_bytes())?,
            other => {
                return Err(std::io::Error::other(format!(
                    "viewer.html: unknown mark {{{{{other}}}}}"
                )))
            }
        }
        rest = &rest[end + 2..];
    }
    w.write_all(rest.as_bytes())
}

/// `&`, `<`, `>` and `"` as entities.
fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The import map: `three`, its core and its OrbitControls, each a base64 `data:` URL.
fn import_map() -> String {
    let url = |text: &str| {
        format!(
            "data:text/javascript;base64,{}",
            data::base64(text.as_bytes())
        )
    };
    let module = THREE_MODULE.replace(CORE_IMPORT, CORE_SPECIFIER);
    format!(
        "{{\"imports\": {{\n\"three\": \"{}\",\n{}: \"{}\",\n\
         \"three/addons/controls/OrbitControls.js\": \"{}\"\n}}}}",
        url(&module),
        CORE_SPECIFIER,
        url(THREE_CORE),
        url(ORBIT_CONTROLS)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_build_imports_the_core_only_by_the_renamed_path() {
        // three.js's module build names its core twice (an import and a re-export); a new
        // version that names it otherwise would leave a path the data: URL cannot resolve.
        assert_eq!(THREE_MODULE.matches(CORE_IMPORT).count(), 2);
        let renamed = THREE_MODULE.replace(CORE_IMPORT, CORE_SPECIFIER);
        assert!(!renamed.contains("from\"./"), "another relative import");
        assert!(!THREE_CORE.contains("from\"./"), "the core imports a file");
        assert!(THREE_CORE.contains(&format!(
            "=\"{}\"",
            THREE_VERSION.split('.').nth(1).unwrap()
        )));
    }

    #[test]
    fn the_template_is_complete_and_the_script_cannot_end_its_element() {
        for mark in ["{{title}}", "{{importmap}}", "{{data}}", "{{viewer}}"] {
            assert_eq!(TEMPLATE.matches(mark).count(), 1, "{mark}");
        }
        assert!(!VIEWER.to_ascii_lowercase().contains("</script"));
        assert_eq!(escape_html("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }

    #[test]
    fn large_files_get_an_every_suggestion() {
        let report = ViewReport {
            path: PathBuf::from("v.html"),
            bytes: 240_000_000,
            frames: 3000,
            bodies: 1005,
            moving: 1000,
            meshes: 6,
            every: 1,
            pose_bytes: 238_000_000,
        };
        let w = report.warning().unwrap();
        assert!(w.contains("--every 5") && w.contains("240.0 MB"), "{w}");
        let small = ViewReport {
            bytes: 2_000_000,
            ..report
        };
        assert!(small.warning().is_none());
    }
}
