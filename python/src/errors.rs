//! The module's exceptions, and the engine's messages in Python's terms: where the command line
//! would say `--backend cpu`, a Python user passes `backend="cpu"`.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyTuple, PyType};
use std::path::Path;

create_exception!(
    tumble,
    SceneError,
    PyException,
    "A scene that is malformed or invalid: the message names the file, line, column and key, as \
     the command line does."
);
create_exception!(
    tumble,
    SimulationError,
    PyRuntimeError,
    "A simulation that failed (a jam the engine could not resolve, a stalled frame): the \
     simulation stays where it stopped."
);

/// `SceneFileNotFound`, made once per interpreter: pyo3's `create_exception!` takes one base,
/// and this class has two.
static SCENE_FILE_NOT_FOUND: GILOnceCell<Py<PyType>> = GILOnceCell::new();

/// `tumble.SceneFileNotFound(SceneError, FileNotFoundError)`: a scene file that does not exist,
/// caught by `except tumble.SceneError` and by `except FileNotFoundError` alike.
pub fn scene_file_not_found(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    SCENE_FILE_NOT_FOUND
        .get_or_try_init(py, || {
            let bases = PyTuple::new(
                py,
                [
                    py.get_type::<SceneError>(),
                    py.get_type::<PyFileNotFoundError>(),
                ],
            )?;
            let namespace = PyDict::new(py);
            namespace.set_item("__module__", "tumble")?;
            namespace.set_item(
                "__doc__",
                "A scene file that does not exist: a SceneError and a FileNotFoundError, with \
                 errno, strerror and filename set as open() sets them.",
            )?;
            let class = py.import("builtins")?.getattr("type")?.call1((
                "SceneFileNotFound",
                bases,
                namespace,
            ))?;
            Ok(class.downcast_into::<PyType>()?.unbind())
        })
        .map(|class| class.bind(py))
}

/// Why the scene file at `path` could not be read: [`scene_file_not_found`] for a missing file
/// (its message is the one `open()` gives), else a [`SceneError`] naming the file.
pub fn unreadable_scene(py: Python<'_>, path: &Path, e: std::io::Error) -> PyErr {
    if e.kind() != std::io::ErrorKind::NotFound {
        return SceneError::new_err(format!("{}: cannot read scene file: {e}", path.display()));
    }
    let errno = e.raw_os_error().unwrap_or(2); // ENOENT
    let strerror = strerror(py, errno).unwrap_or_else(|| "No such file or directory".to_string());
    match scene_file_not_found(py) {
        Ok(class) => PyErr::from_type(class.clone(), (errno, strerror, path.display().to_string())),
        Err(made) => made,
    }
}

/// The C library's text for `errno`, as Python's own `OSError`s carry it.
fn strerror(py: Python<'_>, errno: i32) -> Option<String> {
    py.import("os")
        .and_then(|os| os.call_method1("strerror", (errno,)))
        .and_then(|s| s.extract())
        .ok()
}

/// An engine scene error as a [`SceneError`] with the command line's message.
pub fn scene_error(e: engine::scene::SceneError) -> PyErr {
    SceneError::new_err(in_python_terms(&e.message))
}

/// Command-line flags the engine's messages may name, and the keyword argument each is in the
/// Python API; `quoted`: its value is a string there (`backend="cpu"`, `record=["ball"]`).
const FLAGS: [(&str, &str, Quote); 7] = [
    ("--backend", "backend", Quote::String),
    ("--format", "format", Quote::String),
    ("--record", "record", Quote::List),
    ("--every", "every", Quote::None),
    ("--trials", "trials", Quote::None),
    ("--seed", "seed", Quote::None),
    ("--threads", "threads", Quote::None),
];

/// How a flag's value is written as its keyword argument's.
#[derive(Clone, Copy)]
enum Quote {
    /// `--backend cpu` → `backend="cpu"`.
    String,
    /// `--record ball` → `record=["ball"]`.
    List,
    /// `--every` → `every` (the value, if any, stays as it was written).
    None,
}

/// `message` with each command-line flag of [`FLAGS`] written as the keyword argument it is in
/// Python (`use --backend cpu` → `use backend="cpu"`); the rest unchanged. The engine's messages
/// are the command line's, and its text stays so: the binding translates.
pub fn in_python_terms(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    'scan: while let Some(at) = rest.find("--") {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        for (flag, keyword, quote) in FLAGS {
            let Some(after) = tail.strip_prefix(flag) else {
                continue;
            };
            // A longer flag (`--backends`) is not this one.
            if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-') {
                continue;
            }
            let value = after
                .strip_prefix(' ')
                .map(|v| &v[..v.find(|c: char| !is_value_char(c)).unwrap_or(v.len())])
                // A sentence's full stop is not part of the value.
                .map(|v| v.trim_end_matches('.'))
                .filter(|v| !v.is_empty());
            match (quote, value) {
                (Quote::String, Some(v)) => out.push_str(&format!("{keyword}=\"{v}\"")),
                (Quote::List, Some(v)) => out.push_str(&format!("{keyword}=[\"{v}\"]")),
                _ => {
                    out.push_str(keyword);
                    rest = after;
                    continue 'scan;
                }
            }
            rest = &after[1 + value.map_or(0, str::len)..];
            continue 'scan;
        }
        out.push_str("--");
        rest = &tail[2..];
    }
    out.push_str(rest);
    out
}

/// Characters of a flag's value in a message: names and numbers, up to the punctuation that
/// follows (`--record ball:`, `--backend cpu;`).
fn is_value_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')
}
