//! `tumble.run`: a scene run to its end, with what `tumble run --out` writes, as a dict.

use crate::errors::in_python_terms;
use crate::progress::Progress;
use crate::scene::as_scene;
use crate::simulation::Simulation;
use crate::tables::table_format;
use engine::flow::FlowTables;
use engine::output::{self, FramesWriter};
use engine::simulation::RunError;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::path::{Path, PathBuf};

/// Runs `scene` (a `Scene` or a path) to its end and returns its summary as a dict. With `out`,
/// writes `frames.csv` and `summary.json` there as `tumble run --out` does (the summary also
/// after a simulation error, which the dict then names); `every` and `record` thin frames.csv as
/// `--every` and `--record` do, and `format="parquet"` writes frames.parquet instead. Ctrl-C
/// raises `KeyboardInterrupt` between frames, after the frames so far are written.
#[pyfunction]
#[pyo3(signature = (scene, out = None, backend = "cpu", threads = None, every = 1, record = None, format = "csv"))]
#[allow(clippy::too_many_arguments)]
pub fn run<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyAny>,
    out: Option<PathBuf>,
    backend: &str,
    threads: Option<usize>,
    every: u64,
    record: Option<Vec<String>>,
    format: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let format = table_format(format)?;
    if every == 0 {
        return Err(PyValueError::new_err("every must be at least 1"));
    }
    let scene = as_scene(scene)?;
    let mut sim = Simulation::new(&scene, backend, threads, false)?;
    let io = |e: output::OutputError| PyRuntimeError::new_err(in_python_terms(&e.to_string()));
    let selection =
        output::FrameSelection::new(every, &record.unwrap_or_default(), sim.engine().world())
            .map_err(|e| PyValueError::new_err(in_python_terms(&e)))?;
    let mut frames = match &out {
        Some(dir) => {
            output::create_dir(dir).map_err(io)?;
            let path = dir.join(format!("frames.{}", format.extension()));
            let mut w = FramesWriter::create_as(&path, selection, format).map_err(io)?;
            w.write_frame(sim.engine().world()).map_err(io)?;
            Some(w)
        }
        None => None,
    };
    let until = sim.engine().end();
    // Ctrl-C ends the run after the frames so far are written; a failed simulation is named in
    // the summary, as `tumble run` names it.
    let mut no_progress = Progress::new(py, false, until)?;
    // The tables of a scene's sources, sinks and probes, as `tumble run` writes them.
    let mut flow = match &out {
        Some(dir) => FlowTables::create(dir, &scene.scene, format).map_err(io)?,
        None => None,
    };
    let outcome = match sim.advance(py, until, frames.as_mut(), flow.as_mut(), &mut no_progress) {
        Err(interrupted) => Err(interrupted),
        Ok(Err(RunError::Sink(e))) => {
            return Err(PyRuntimeError::new_err(in_python_terms(&e.to_string())))
        }
        Ok(Err(e)) => {
            sim.failed(e);
            Ok(())
        }
        Ok(Ok(())) => Ok(()),
    };
    if let Some(mut f) = frames {
        f.write_last(sim.engine().world()).map_err(io)?;
        f.finish().map_err(io)?;
    }
    if let Some(f) = flow {
        f.finish().map_err(io)?;
    }
    let mut summary = sim.summary_now();
    if outcome.is_err() {
        summary.status = "interrupted".to_string();
        summary.error = Some("interrupted".to_string());
    }
    if let Some(dir) = &out {
        // The run directory keeps the scene it ran, as `tumble run` does.
        let file = Path::new(&scene.source);
        let original = file.is_file().then_some(file);
        summary.stored_scene = Some(
            engine::run_dir::store_text(dir, scene.text.as_bytes(), original, &scene.scene)
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
        );
        summary.write(&dir.join("summary.json")).map_err(io)?;
    }
    outcome?;
    let json =
        serde_json::to_string(&summary).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (json,))
}
