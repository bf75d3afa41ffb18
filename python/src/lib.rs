//! The `tumble` Python module: the engine's scenes and simulations as plain Python objects,
//! states as numpy arrays, summaries as dicts. The bindings only convert; every number comes
//! from the engine crate (`engine` here), through the same frame loop as `tumble run`
//! ([`engine::simulation::Simulation`]).
//!
//! One module per topic: [`scene`] (`Scene`), [`simulation`] (`Simulation`) with [`replay`]
//! (its saved states) and [`progress`] (its progress line), [`runs`] (`run`), [`batch`]
//! (`batch`) with [`tables`] (the table it returns), [`backend`] (the `backend` and `threads`
//! arguments) and [`errors`] (the exceptions, and the engine's messages in Python's terms).

mod backend;
mod batch;
mod errors;
mod progress;
mod replay;
mod runs;
mod scene;
mod simulation;
mod tables;

use pyo3::prelude::*;

/// tumble: event-driven rigid-body simulation of many polyhedra.
#[pymodule]
#[pyo3(name = "tumble")]
fn tumble_python(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<scene::Scene>()?;
    m.add_class::<simulation::Simulation>()?;
    m.add_function(wrap_pyfunction!(runs::run, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch, m)?)?;
    m.add("SceneError", py.get_type::<errors::SceneError>())?;
    m.add("SceneFileNotFound", errors::scene_file_not_found(py)?)?;
    m.add("SimulationError", py.get_type::<errors::SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
