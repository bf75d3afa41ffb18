//! The `backend` and `threads` arguments: where the frame stages run, and on how many threads.

use crate::errors::in_python_terms;
use engine::gpu::{select, BackendKind, Selection};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// The backend named `name` ("cpu", "gpu" or "auto").
pub fn backend_kind(name: &str) -> PyResult<BackendKind> {
    match name {
        "cpu" => Ok(BackendKind::Cpu),
        "gpu" => Ok(BackendKind::Gpu),
        "auto" => Ok(BackendKind::Auto),
        other => Err(PyValueError::new_err(format!(
            "backend must be \"cpu\", \"gpu\" or \"auto\" (got {other:?})"
        ))),
    }
}

/// The backend `name` resolves to for a scene of `moving` dynamic bodies, as the command line
/// resolves it; a GPU that cannot be opened raises `RuntimeError` whose remedy reads
/// `backend="cpu"`.
pub fn select_backend(name: &str, moving: usize) -> PyResult<Selection> {
    select(backend_kind(name)?, moving)
        .map_err(|e| PyRuntimeError::new_err(in_python_terms(&e.to_string())))
}

/// A pool of `threads` worker threads (`None`: rayon's global pool, one thread per core).
pub fn thread_pool(threads: Option<usize>) -> PyResult<Option<rayon::ThreadPool>> {
    match threads {
        None => Ok(None),
        Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map(Some)
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start {n} threads: {e}"))),
    }
}
