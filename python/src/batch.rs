//! `tumble.batch`: the trials of a scene's `[batch]`, written as `tumble batch` writes them and
//! returned as a table.

use crate::backend::{select_backend, thread_pool};
use crate::errors::{in_python_terms, scene_error, SceneError};
use crate::scene::{as_scene, to_toml, Scene};
use crate::tables::{read_table, table_format};
use engine::output;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::path::{Path, PathBuf};

/// Trials a batch runs between looks for Ctrl-C.
const BATCH_BLOCK: u64 = 256;

/// Runs the trials of `scene`'s `[batch]` (`trials` and `seed` override its own; `vary`, a list of
/// dicts in the `[[batch.vary]]` schema, replaces its draws) on all cores or `threads`, writes
/// `trials.csv`, `poses.csv`, `poses.svg` and `summary.json` to `out` (default: a temporary
/// directory) as `tumble batch` does (with `format="parquet"` also `trials.parquet` and
/// `poses.parquet`), and returns `trials.csv` as a pandas DataFrame (a dict of numpy arrays
/// without pandas). One failing trial never stops the batch.
#[pyfunction]
#[pyo3(signature = (scene, trials = None, seed = None, vary = None, out = None, backend = "cpu", threads = None, format = "csv"))]
#[allow(clippy::too_many_arguments)]
pub fn batch<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyAny>,
    trials: Option<u64>,
    seed: Option<u64>,
    vary: Option<&Bound<'py, PyList>>,
    out: Option<PathBuf>,
    backend: &str,
    threads: Option<usize>,
    format: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let format = table_format(format)?;
    let mut scene = as_scene(scene)?;
    if let Some(vary) = vary {
        let mut table: toml::Table = toml::from_str(&scene.text)
            .map_err(|e| SceneError::new_err(format!("{}: {e}", scene.source)))?;
        let batch = table
            .entry("batch")
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let toml::Value::Table(batch) = batch else {
            return Err(SceneError::new_err(format!(
                "{}: batch must be a table",
                scene.source
            )));
        };
        batch.insert("vary".to_string(), to_toml(vary.as_any(), "", "vary")?);
        let text = toml::to_string(&table)
            .map_err(|e| SceneError::new_err(format!("{}: {e}", scene.source)))?;
        // Relative mesh paths still resolve against the scene's own file.
        let source = scene.source.clone();
        let parsed = engine::scene::parse(&text, Path::new(&source)).map_err(scene_error)?;
        scene = Scene {
            scene: parsed,
            source,
            text,
        };
    }
    if scene.scene.batch.is_none() {
        return Err(SceneError::new_err(format!(
            "{}: no [batch] table: a batch needs one (see docs/scene-format.md)",
            scene.source
        )));
    }
    let selection = select_backend(backend, scene.scene.motion_counts().0)?;
    let total = trials.unwrap_or(scene.scene.batch.as_ref().map_or(1, |b| b.trials));
    // In blocks of trials, so that Ctrl-C is looked for between them (the trials of a block run
    // at once on the threads); the blocks together are the whole batch, trial for trial.
    let blocks = total.div_ceil(BATCH_BLOCK).max(1);
    let pool = thread_pool(threads)?;
    let engine_scene = &scene.scene;
    let mut run: Option<engine::batch::BatchRun> = None;
    for index in 1..=blocks {
        let options = engine::batch::BatchOptions {
            trials,
            seed,
            shard: engine::batch::Shard {
                index,
                count: blocks,
            },
            backend: selection.backend.clone(),
            on_trial: None,
            partial: None,
        };
        let block = py
            .allow_threads(|| match &pool {
                Some(p) => p.install(|| engine::batch::run(engine_scene, &options)),
                None => engine::batch::run(engine_scene, &options),
            })
            .map_err(|e| SceneError::new_err(in_python_terms(&e.to_string())))?;
        match run.as_mut() {
            None => run = Some(block),
            Some(r) => {
                r.results.extend(block.results);
                r.wall_time += block.wall_time;
            }
        }
        py.check_signals()?;
    }
    let mut run = run.expect("at least one block");
    run.shard = engine::batch::Shard::ALL;
    let dir = match out {
        Some(d) => d,
        None => {
            let tempfile = py.import("tempfile")?;
            tempfile
                .call_method1("mkdtemp", ("tumble-batch-",))?
                .extract::<PathBuf>()?
        }
    };
    let threads_used = pool
        .as_ref()
        .map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
    engine::batch::write(&dir, &scene.scene, &run, threads_used)
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    if format == output::TableFormat::Parquet {
        engine::batch::write_parquet_twins(&dir)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    }
    read_table(py, &dir.join("trials.csv"))
}
