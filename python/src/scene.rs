//! `tumble.Scene`: a validated scene from a file, TOML text or Python dicts, and the
//! conversion of Python values to TOML that `from_dict` and `batch(vary=...)` share.

use crate::errors::{scene_error, unreadable_scene, SceneError};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::path::{Path, PathBuf};

/// A validated scene (`[world]`, materials, bodies, lattices, joints), as the command line reads
/// it.
#[pyclass(frozen, module = "tumble")]
#[derive(Clone)]
pub struct Scene {
    /// The engine's scene.
    pub scene: engine::scene::Scene,
    /// Where it came from: the file, `<string>` or `<dict>`.
    pub source: String,
    /// Its TOML text (a batch with other `vary` entries is parsed from it again).
    pub text: String,
}

#[pymethods]
impl Scene {
    /// Reads and validates the scene file `path` (TOML).
    ///
    /// A file that does not exist raises `tumble.SceneFileNotFound`, which is both a
    /// `SceneError` and a `FileNotFoundError`.
    #[staticmethod]
    pub fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Scene> {
        let bytes = std::fs::read(&path).map_err(|e| unreadable_scene(py, &path, e))?;
        let text = engine::scene::decode_text(&path, bytes).map_err(scene_error)?;
        let scene = engine::scene::parse(&text, &path).map_err(scene_error)?;
        Ok(Scene {
            scene,
            source: path.display().to_string(),
            text,
        })
    }

    /// Parses and validates scene text (TOML); `name` stands for the file in error messages.
    #[staticmethod]
    #[pyo3(signature = (text, name = "<string>"))]
    fn from_toml(text: &str, name: &str) -> PyResult<Scene> {
        let scene = engine::scene::parse(text, Path::new(name)).map_err(scene_error)?;
        Ok(Scene {
            scene,
            source: name.to_string(),
            text: text.to_string(),
        })
    }

    /// A scene from the TOML schema as Python dicts, lists, numbers, strings and booleans
    /// (`{"world": {"duration": 1.0}, "bodies": [{...}], ...}`). Errors name the key; their
    /// line and column are those of the dict written out as TOML.
    #[staticmethod]
    fn from_dict(d: &Bound<'_, PyDict>) -> PyResult<Scene> {
        let table = match to_toml(d.as_any(), "<dict>: ", "")? {
            toml::Value::Table(t) => t,
            _ => unreachable!("a dict converts to a table"),
        };
        let text = toml::to_string(&table)
            .map_err(|e| SceneError::new_err(format!("<dict>: cannot write as TOML: {e}")))?;
        Scene::from_toml(&text, "<dict>")
    }

    /// The simulated time a run goes to (s).
    #[getter]
    fn duration(&self) -> f64 {
        self.scene.world.duration
    }

    /// The frame period (s).
    #[getter]
    fn frame_period(&self) -> f64 {
        self.scene.world.config.frame_period
    }

    fn __repr__(&self) -> String {
        format!(
            "tumble.Scene({:?}, duration={}, frame_period={})",
            self.source, self.scene.world.duration, self.scene.world.config.frame_period
        )
    }
}

/// A Python value as a TOML value; `key` is where it sits and `origin` what it is part of
/// (`"<dict>: "` for `from_dict`, empty for an argument named by `key`), for errors.
pub fn to_toml(v: &Bound<'_, PyAny>, origin: &str, key: &str) -> PyResult<toml::Value> {
    let at = |k: &str| match key.is_empty() {
        true => k.to_string(),
        false => format!("{key}.{k}"),
    };
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        let i: i64 = v
            .extract()
            .map_err(|_| SceneError::new_err(format!("{origin}{key}: integer out of range")))?;
        return Ok(toml::Value::Integer(i));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if let Ok(d) = v.downcast::<PyDict>() {
        let mut t = toml::Table::new();
        for (k, x) in d.iter() {
            let k: String = k
                .extract()
                .map_err(|_| SceneError::new_err(format!("{origin}{key}: keys must be strings")))?;
            let value = to_toml(&x, origin, &at(&k))?;
            t.insert(k, value);
        }
        return Ok(toml::Value::Table(t));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() || v.hasattr("tolist")? {
        // A numpy array or scalar converts through its Python form.
        let v = match v.hasattr("tolist")? {
            true => v.call_method0("tolist")?,
            false => v.clone(),
        };
        if !(v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>()) {
            return to_toml(&v, origin, key);
        }
        let items: Vec<Bound<'_, PyAny>> = v.try_iter()?.collect::<PyResult<_>>()?;
        let values = items
            .iter()
            .enumerate()
            .map(|(k, x)| to_toml(x, origin, &format!("{key}[{k}]")))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(toml::Value::Array(values));
    }
    Err(PyTypeError::new_err(format!(
        "{origin}{key}: a value of type {} has no TOML form (use a number, string, bool, list \
         or dict)",
        v.get_type().name()?
    )))
}

/// A `Scene`, or the scene file at a path.
pub fn as_scene(scene: &Bound<'_, PyAny>) -> PyResult<Scene> {
    match scene.extract::<Scene>() {
        Ok(s) => Ok(s),
        Err(_) => Scene::from_file(
            scene.py(),
            scene.extract::<PathBuf>().map_err(|_| {
                PyTypeError::new_err("scene must be a tumble.Scene or a path to a scene file")
            })?,
        ),
    }
}
