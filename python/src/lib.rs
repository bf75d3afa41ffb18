//! The `tumble` Python module: the engine's scenes and simulations as plain Python objects,
//! states as numpy arrays, summaries as dicts. The bindings only convert; every number comes
//! from the engine crate (`engine` here), through the same frame loop as `tumble run`
//! ([`engine::simulation::Simulation`]).

use engine::gpu::{select, BackendKind};
use engine::output::{self, FramesWriter, Summary};
use engine::simulation::{FrameSink, RunEnd, RunError, Simulation as Engine, SinkError};
use engine::world::World;
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

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

/// A validated scene (`[world]`, materials, bodies, lattices, joints), as the command line reads
/// it.
#[pyclass(frozen, module = "tumble")]
#[derive(Clone)]
struct Scene {
    scene: engine::scene::Scene,
    /// Where it came from: the file, `<string>` or `<dict>`.
    source: String,
    /// Its TOML text (a batch with other `vary` entries is parsed from it again).
    text: String,
}

fn scene_error(e: engine::scene::SceneError) -> PyErr {
    SceneError::new_err(e.message)
}

#[pymethods]
impl Scene {
    /// Reads and validates the scene file `path` (TOML).
    #[staticmethod]
    fn from_file(path: PathBuf) -> PyResult<Scene> {
        let text = std::fs::read_to_string(&path).map_err(|e| {
            SceneError::new_err(format!("{}: cannot read scene file: {e}", path.display()))
        })?;
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
        let table = match to_toml(d.as_any(), "")? {
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

/// A Python value as a TOML value; `key` is where it sits, for errors.
fn to_toml(v: &Bound<'_, PyAny>, key: &str) -> PyResult<toml::Value> {
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
            .map_err(|_| SceneError::new_err(format!("<dict>: {key}: integer out of range")))?;
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
                .map_err(|_| SceneError::new_err(format!("<dict>: {key}: keys must be strings")))?;
            let value = to_toml(&x, &at(&k))?;
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
            return to_toml(&v, key);
        }
        let items: Vec<Bound<'_, PyAny>> = v.try_iter()?.collect::<PyResult<_>>()?;
        let values = items
            .iter()
            .enumerate()
            .map(|(k, x)| to_toml(x, &format!("{key}[{k}]")))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(toml::Value::Array(values));
    }
    Err(PyTypeError::new_err(format!(
        "<dict>: {key}: a {} has no TOML form (use a number, string, bool, list or dict)",
        v.get_type().name()?
    )))
}

/// The table format named `name`.
fn table_format(name: &str) -> PyResult<output::TableFormat> {
    match name {
        "csv" => Ok(output::TableFormat::Csv),
        "parquet" => Ok(output::TableFormat::Parquet),
        other => Err(PyValueError::new_err(format!(
            "format must be \"csv\" or \"parquet\" (got {other:?})"
        ))),
    }
}

/// The backend named `name`.
fn backend_kind(name: &str) -> PyResult<BackendKind> {
    match name {
        "cpu" => Ok(BackendKind::Cpu),
        "gpu" => Ok(BackendKind::Gpu),
        "auto" => Ok(BackendKind::Auto),
        other => Err(PyValueError::new_err(format!(
            "backend must be \"cpu\", \"gpu\" or \"auto\" (got {other:?})"
        ))),
    }
}

/// A pool of `threads` worker threads (`None`: rayon's global pool, one thread per core).
fn thread_pool(threads: Option<usize>) -> PyResult<Option<rayon::ThreadPool>> {
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

/// Ends a run's stretch of frames once its time is up, so that the caller can take the GIL
/// back and look for Ctrl-C.
struct Deadline(Instant);

impl FrameSink for Deadline {
    fn frame(&mut self, _: &mut World) -> Result<ControlFlow<()>, SinkError> {
        Ok(match Instant::now() >= self.0 {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        })
    }
}

/// Trials a batch runs between looks for Ctrl-C.
const BATCH_BLOCK: u64 = 256;

/// How long a run holds the GIL released between looks for Ctrl-C.
const STRETCH: Duration = Duration::from_millis(50);

/// A running simulation of a scene: `step_frame()`, `run(until)`, `time`, `names`, `state()`,
/// `summary()`.
#[pyclass(module = "tumble")]
struct Simulation {
    /// The engine's simulation (in a mutex only to make the class `Sync`, as Python objects must
    /// be: the methods that step take it by `&mut`, so it is never contended).
    sim: Mutex<Engine>,
    scene: Scene,
    /// Its own thread pool, with `threads`; `None`: rayon's global one (one thread per core).
    pool: Option<rayon::ThreadPool>,
    /// The backend that runs ("cpu" or "gpu") and its adapter.
    backend: (String, Option<String>),
    /// Wall time spent stepping (s).
    wall: f64,
    /// The error that stopped it, if one did.
    error: Option<String>,
    /// Whether it records its impulses for [`Simulation::events`].
    recording: bool,
    /// Every call that advanced it, in order: what `save_state` keeps and `load_state` replays.
    log: Vec<Advance>,
}

/// One call that advanced a simulation ([`Simulation::log`]).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
enum Advance {
    /// `step_frame()`.
    Step,
    /// `run(until)`, which got to `reached` (short of `until` when interrupted or failed).
    Run { until: f64, reached: f64 },
    /// `set_state(...)`: the bodies set and their new states (position, orientation w x y z,
    /// velocity, angular velocity).
    Set(Vec<(usize, [f64; 13])>),
}

/// What `save_state` returns, as JSON: the scene's text and the calls that advanced it.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedState {
    format: String,
    source: String,
    text: String,
    record_events: bool,
    log: Vec<Advance>,
}

/// The `format` of [`SavedState`].
const STATE_FORMAT: &str = "tumble-state/1";

/// Ends a replayed `run` where the original got to.
struct StopAt(f64);

impl FrameSink for StopAt {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        Ok(match world.time() >= self.0 {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        })
    }
}

impl Simulation {
    /// The engine's simulation, to read.
    fn engine(&self) -> MutexGuard<'_, Engine> {
        self.sim.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on the simulation's pool with the GIL released, timing it.
    fn stepping<T: Send>(&mut self, py: Python<'_>, f: impl FnOnce(&mut Engine) -> T + Send) -> T {
        let Simulation {
            sim, pool, wall, ..
        } = self;
        let sim = sim.get_mut().unwrap_or_else(|e| e.into_inner());
        let start = Instant::now();
        let out = py.allow_threads(|| match pool {
            Some(p) => p.install(|| f(sim)),
            None => f(sim),
        });
        *wall += start.elapsed().as_secs_f64();
        out
    }

    /// Steps to `until` with the GIL released, in stretches of [`STRETCH`], offering each frame
    /// to `frames`; between stretches it records how far it got (in the last `run` of the log,
    /// if that is the call being made) and looks for Ctrl-C, whose `KeyboardInterrupt` is the
    /// outer error. The run's own failure is the inner one.
    fn advance(
        &mut self,
        py: Python<'_>,
        until: f64,
        mut frames: Option<&mut FramesWriter>,
        progress: bool,
    ) -> PyResult<Result<(), RunError>> {
        loop {
            let result = self.stepping(py, |s| {
                let mut deadline = Deadline(Instant::now() + STRETCH);
                let mut sinks: Vec<&mut dyn FrameSink> = vec![&mut deadline];
                if let Some(f) = frames.as_deref_mut() {
                    sinks.push(f);
                }
                s.run(Some(until), &mut sinks)
            });
            let reached = self.engine().time();
            if let Some(Advance::Run { reached: r, .. }) = self.log.last_mut() {
                *r = reached;
            }
            if progress {
                eprint!("\r  t = {reached:.4} s of {until} s");
            }
            match result {
                Ok(RunEnd::Reached) => return Ok(Ok(())),
                Ok(RunEnd::Stopped) => py.check_signals()?,
                Err(e) => return Ok(Err(e)),
            }
        }
    }

    /// A run error as a Python exception, recorded for the summary.
    fn failed(&mut self, e: RunError) -> PyErr {
        let message = e.to_string();
        self.error = Some(message.clone());
        SimulationError::new_err(message)
    }
}

#[pymethods]
impl Simulation {
    /// A simulation of `scene` at its start. `backend`: "cpu" (the host's f64 path), "gpu" (the
    /// WGSL stages on the adapter wgpu finds) or "auto" (the GPU for scenes of at least 50 000
    /// moving bodies on a real GPU, else the CPU; as on the command line). `threads`: worker threads for this simulation (default: one per core);
    /// results do not depend on it.
    ///
    /// With `record_events`, every impulse is recorded for `events()`.
    #[new]
    #[pyo3(signature = (scene, backend = "cpu", threads = None, record_events = false))]
    fn new(
        scene: &Scene,
        backend: &str,
        threads: Option<usize>,
        record_events: bool,
    ) -> PyResult<Simulation> {
        let kind = match backend {
            "cpu" => BackendKind::Cpu,
            "gpu" => BackendKind::Gpu,
            "auto" => BackendKind::Auto,
            other => {
                return Err(PyValueError::new_err(format!(
                    "backend must be \"cpu\", \"gpu\" or \"auto\" (got {other:?})"
                )))
            }
        };
        let pool = match threads {
            None => None,
            Some(0) => return Err(PyValueError::new_err("threads must be at least 1")),
            Some(n) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| {
                        PyRuntimeError::new_err(format!("cannot start {n} threads: {e}"))
                    })?,
            ),
        };
        let mut sim = Engine::new(&scene.scene).map_err(scene_error)?;
        let moving = scene.scene.motion_counts().0;
        let selection = select(kind, moving).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        selection.backend.install(sim.world_mut());
        sim.world_mut().record_events(record_events);
        let backend = (
            selection.backend.name().to_string(),
            selection.backend.adapter(),
        );
        Ok(Simulation {
            sim: Mutex::new(sim),
            scene: scene.clone(),
            pool,
            backend,
            wall: 0.0,
            error: None,
            recording: record_events,
            log: Vec::new(),
        })
    }

    /// Advances one frame (to the next multiple of the frame period, or to the scene's end);
    /// once the end is reached, one whole frame past it.
    fn step_frame(&mut self, py: Python<'_>) -> PyResult<()> {
        self.log.push(Advance::Step);
        match self.stepping(py, |s| s.step_frame()) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.failed(e)),
        }
    }

    /// Steps frame by frame to `until` (s; default the scene's duration). The GIL is released
    /// while it steps; Ctrl-C raises `KeyboardInterrupt` between frames, the simulation left at
    /// the last whole frame. With `progress`, a line on stderr shows how far it got.
    #[pyo3(signature = (until = None, progress = false))]
    fn run(&mut self, py: Python<'_>, until: Option<f64>, progress: bool) -> PyResult<()> {
        let until = until.unwrap_or(self.engine().end());
        if until.is_nan() {
            return Err(PyValueError::new_err("until must be a number (got NaN)"));
        }
        let reached = self.engine().time();
        self.log.push(Advance::Run { until, reached });
        let outcome = self.advance(py, until, None, progress);
        if progress {
            eprintln!();
        }
        if let Err(e) = outcome? {
            return Err(self.failed(e));
        }
        Ok(())
    }

    /// The simulated time (s).
    #[getter]
    fn time(&self) -> f64 {
        self.engine().time()
    }

    /// The bodies' names, in body order (fixed ones included).
    #[getter]
    fn names(&self) -> Vec<String> {
        self.engine()
            .names()
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// The scene it runs.
    #[getter]
    fn scene(&self) -> Scene {
        self.scene.clone()
    }

    /// Every body's state now, as float64 arrays in body order (the numbers frames.csv writes
    /// for the bodies that move): `position` (n, 3), `orientation` (n, 4; w, x, y, z),
    /// `velocity` (n, 3), `angular_velocity` (n, 3; rad/s, world).
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let engine = self.engine();
        let world = engine.world();
        let n = world.body_count();
        let (mut p, mut q, mut v, mut w) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for i in 0..n {
            let s = world.body_state(i);
            p.push(s.position.to_array().to_vec());
            q.push(vec![
                s.orientation.w,
                s.orientation.x,
                s.orientation.y,
                s.orientation.z,
            ]);
            v.push(s.velocity.to_array().to_vec());
            w.push(s.angular_velocity.to_array().to_vec());
        }
        let d = PyDict::new(py);
        let array = |rows: Vec<Vec<f64>>, width: usize| -> PyResult<Bound<'py, PyAny>> {
            match rows.is_empty() {
                true => Ok(PyArray1::<f64>::zeros(py, 0, false)
                    .reshape([0, width])?
                    .into_any()),
                false => Ok(PyArray2::from_vec2(py, &rows)?.into_any()),
            }
        };
        d.set_item("position", array(p, 3)?)?;
        d.set_item("orientation", array(q, 4)?)?;
        d.set_item("velocity", array(v, 3)?)?;
        d.set_item("angular_velocity", array(w, 3)?)?;
        Ok(d)
    }

    /// Sets the dynamic bodies' states from arrays in body order, as `state()` gives them
    /// (`position` (n, 3), `orientation` (n, 4; w, x, y, z), `velocity` (n, 3),
    /// `angular_velocity` (n, 3)); the arrays not given keep the present values. A row of a fixed
    /// or kinematic body must keep its present value. The bodies changed are woken, and the next
    /// frame starts from the new states with every pair bounded again.
    #[pyo3(signature = (position = None, orientation = None, velocity = None, angular_velocity = None))]
    fn set_state(
        &mut self,
        position: Option<Vec<[f64; 3]>>,
        orientation: Option<Vec<[f64; 4]>>,
        velocity: Option<Vec<[f64; 3]>>,
        angular_velocity: Option<Vec<[f64; 3]>>,
    ) -> PyResult<()> {
        let engine = self.sim.get_mut().unwrap_or_else(|e| e.into_inner());
        let world = engine.world_mut();
        let n = world.body_count();
        for (what, len) in [
            ("position", position.as_ref().map(Vec::len)),
            ("orientation", orientation.as_ref().map(Vec::len)),
            ("velocity", velocity.as_ref().map(Vec::len)),
            ("angular_velocity", angular_velocity.as_ref().map(Vec::len)),
        ] {
            if let Some(len) = len.filter(|&l| l != n) {
                return Err(PyValueError::new_err(format!(
                    "{what} has {len} rows; the simulation has {n} bodies"
                )));
            }
        }
        let mut changed = Vec::new();
        for i in 0..n {
            let now = world.body_state(i);
            let mut s = now.to_array();
            if let Some(p) = &position {
                s[0..3].copy_from_slice(&p[i]);
            }
            if let Some(q) = &orientation {
                s[3..7].copy_from_slice(&q[i]);
            }
            if let Some(v) = &velocity {
                s[7..10].copy_from_slice(&v[i]);
            }
            if let Some(w) = &angular_velocity {
                s[10..13].copy_from_slice(&w[i]);
            }
            if s == now.to_array() {
                continue;
            }
            if world.body_motion(i) != engine::body::Motion::Dynamic {
                return Err(PyValueError::new_err(format!(
                    "body \"{}\" is not dynamic: its state cannot be set",
                    world.body_name(i)
                )));
            }
            changed.push((i, s));
        }
        for (i, s) in &changed {
            world
                .set_body_state(*i, &engine::body::BodyState::from_array(s))
                .map_err(PyValueError::new_err)?;
        }
        if !changed.is_empty() {
            self.log.push(Advance::Set(changed));
        }
        Ok(())
    }

    /// The simulation's state as bytes: the scene and every call that advanced it. A simulation of
    /// the same scene given them by `load_state` continues bit for bit as this one would.
    fn save_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let saved = SavedState {
            format: STATE_FORMAT.to_string(),
            source: self.scene.source.clone(),
            text: self.scene.text.clone(),
            record_events: self.recording,
            log: self.log.clone(),
        };
        let bytes =
            serde_json::to_vec(&saved).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Takes the state `save_state` gave, of a simulation of this same scene: this simulation
    /// then continues bit for bit as that one would have. The engine is deterministic, so the
    /// state is rebuilt by running the same calls again from the scene's start, with the GIL
    /// released: it costs the saved run's time.
    fn load_state(&mut self, py: Python<'_>, state: &[u8]) -> PyResult<()> {
        let saved: SavedState = serde_json::from_slice(state)
            .map_err(|e| PyValueError::new_err(format!("not a saved tumble state: {e}")))?;
        if saved.format != STATE_FORMAT {
            return Err(PyValueError::new_err(format!(
                "a saved state of format {:?}, not {STATE_FORMAT:?}",
                saved.format
            )));
        }
        if saved.text != self.scene.text {
            return Err(PyValueError::new_err(format!(
                "the state was saved from a simulation of another scene ({}), not of this one ({})",
                saved.source, self.scene.source
            )));
        }
        let mut sim = Engine::new(&self.scene.scene).map_err(scene_error)?;
        let moving = self.scene.scene.motion_counts().0;
        let selection = select(backend_kind(&self.backend.0)?, moving)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        selection.backend.install(sim.world_mut());
        sim.world_mut().record_events(saved.record_events);
        let replay = |sim: &mut Engine| -> Result<(), RunError> {
            for advance in &saved.log {
                match advance {
                    Advance::Step => sim.step_frame()?,
                    Advance::Run { until, reached } => {
                        sim.run(Some(*until), &mut [&mut StopAt(*reached)])?;
                    }
                    Advance::Set(states) => {
                        for (i, s) in states {
                            // Set once already, from the same numbers.
                            let _ = sim
                                .world_mut()
                                .set_body_state(*i, &engine::body::BodyState::from_array(s));
                        }
                    }
                }
            }
            Ok(())
        };
        *self.sim.get_mut().unwrap_or_else(|e| e.into_inner()) = sim;
        self.recording = saved.record_events;
        self.log = saved.log.clone();
        self.error = None;
        if let Err(e) = self.stepping(py, replay) {
            return Err(self.failed(e));
        }
        if saved.record_events {
            // The replay's impulses were the saved simulation's, already taken from it.
            let engine = self.sim.get_mut().unwrap_or_else(|e| e.into_inner());
            engine.world_mut().take_events(&mut Vec::new());
        }
        Ok(())
    }

    /// The impulses recorded since the last call (the simulation made with `record_events=True`),
    /// as events.csv's columns: `t`, `kind`, `body_a`, `body_b` (names), `px`, `py`, `pz`, `nx`,
    /// `ny`, `nz`, `jn`, `jt`, `vn_before`, `vn_after` (float64 arrays, the names and kinds
    /// lists).
    fn events<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if !self.recording {
            return Err(PyRuntimeError::new_err(
                "this simulation does not record its impulses: make it with record_events=True",
            ));
        }
        let engine = self.sim.get_mut().unwrap_or_else(|e| e.into_inner());
        let mut taken = Vec::new();
        engine.world_mut().take_events(&mut taken);
        let world = engine.world();
        let d = PyDict::new(py);
        let column = |f: &dyn Fn(&engine::world::ImpulseEvent) -> f64| {
            PyArray1::from_vec(py, taken.iter().map(f).collect())
        };
        let name = |i: u32| world.body_name(i as usize).to_string();
        d.set_item("t", column(&|e| e.t))?;
        let kinds: Vec<&str> = taken.iter().map(|e| e.kind.as_str()).collect();
        d.set_item("kind", kinds)?;
        d.set_item(
            "body_a",
            taken.iter().map(|e| name(e.a)).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "body_b",
            taken.iter().map(|e| name(e.b)).collect::<Vec<_>>(),
        )?;
        d.set_item("px", column(&|e| e.point.x))?;
        d.set_item("py", column(&|e| e.point.y))?;
        d.set_item("pz", column(&|e| e.point.z))?;
        d.set_item("nx", column(&|e| e.normal.x))?;
        d.set_item("ny", column(&|e| e.normal.y))?;
        d.set_item("nz", column(&|e| e.normal.z))?;
        d.set_item("jn", column(&|e| e.jn))?;
        d.set_item("jt", column(&|e| e.jt))?;
        d.set_item("vn_before", column(&|e| e.vn_before))?;
        d.set_item("vn_after", column(&|e| e.vn_after))?;
        Ok(d)
    }

    /// What `summary.json` holds for the run so far, as a dict: `scene`, `backend`, `adapter`,
    /// `sim_time`, `wall_time` (the time spent stepping), `counts`, `max_penetration`, `error`
    /// and `bodies`.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_string(&self.summary_now())
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        py.import("json")?.call_method1("loads", (json,))
    }

    fn __repr__(&self) -> String {
        format!(
            "tumble.Simulation({:?}, time={}, backend={:?})",
            self.scene.source,
            self.engine().time(),
            self.backend.0
        )
    }
}

impl Simulation {
    fn summary_now(&self) -> Summary {
        let engine = self.engine();
        let world = engine.world();
        // "running": stepped part of the way, as a run's summary while it goes.
        let status = match (&self.error, world.time() >= engine.end()) {
            (Some(_), _) => "failed",
            (None, true) => "finished",
            (None, false) => "running",
        };
        Summary {
            scene: self.scene.source.clone(),
            status: status.to_string(),
            backend: self.backend.0.clone(),
            adapter: self.backend.1.clone(),
            sim_time: world.time(),
            wall_time: self.wall,
            counts: world.counts().clone(),
            max_penetration: world.max_penetration(),
            error: self.error.clone(),
            bodies: Summary::bodies_of(world),
            stored_scene: None,
        }
    }
}

/// Runs `scene` (a `Scene` or a path) to its end and returns its summary as a dict. With `out`,
/// writes `frames.csv` and `summary.json` there as `tumble run --out` does (the summary also
/// after a simulation error, which the dict then names); `every` and `record` thin frames.csv as
/// `--every` and `--record` do, and `format="parquet"` writes frames.parquet instead. Ctrl-C raises `KeyboardInterrupt` between frames, after the
/// frames so far are written.
#[pyfunction]
#[pyo3(signature = (scene, out = None, backend = "cpu", threads = None, every = 1, record = None, format = "csv"))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
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
    let io = |e: output::OutputError| PyRuntimeError::new_err(e.to_string());
    let selection =
        output::FrameSelection::new(every, &record.unwrap_or_default(), sim.engine().world())
            .map_err(PyValueError::new_err)?;
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
    let outcome = match sim.advance(py, until, frames.as_mut(), false) {
        Err(interrupted) => Err(interrupted),
        Ok(Err(RunError::Sink(e))) => return Err(PyRuntimeError::new_err(e.to_string())),
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

/// Runs the trials of `scene`'s `[batch]` (`trials` and `seed` override its own; `vary`, a list of
/// dicts in the `[[batch.vary]]` schema, replaces its draws) on all cores or `threads`, writes
/// `trials.csv`, `poses.csv`, `poses.svg` and `summary.json` to `out` (default: a temporary
/// directory) as `tumble batch` does (with `format="parquet"` also `trials.parquet` and
/// `poses.parquet`), and returns `trials.csv` as a pandas DataFrame (a dict of numpy arrays
/// without pandas). One failing trial never stops the batch.
#[pyfunction]
#[pyo3(signature = (scene, trials = None, seed = None, vary = None, out = None, backend = "cpu", threads = None, format = "csv"))]
#[allow(clippy::too_many_arguments)]
fn batch<'py>(
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
        batch.insert("vary".to_string(), to_toml(vary.as_any(), "batch.vary")?);
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
    let kind = backend_kind(backend)?;
    let moving = scene.scene.motion_counts().0;
    let selection = select(kind, moving).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
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
            .map_err(|e| SceneError::new_err(e.to_string()))?;
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

/// A CSV table as a pandas DataFrame, or without pandas a dict of columns (numpy float64 arrays
/// where every value is a number, else lists of strings).
fn read_table<'py>(py: Python<'py>, path: &Path) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(pandas) = py.import("pandas") {
        return pandas.call_method1("read_csv", (path,));
    }
    let numpy = py.import("numpy")?;
    let csv = py.import("csv")?;
    let file = py.import("builtins")?.call_method1("open", (path,))?;
    let rows: Vec<Vec<String>> = csv.call_method1("reader", (&file,))?.extract()?;
    file.call_method0("close")?;
    let d = PyDict::new(py);
    let Some((header, rows)) = rows.split_first() else {
        return Ok(d.into_any());
    };
    for (k, name) in header.iter().enumerate() {
        let cells: Vec<&str> = rows
            .iter()
            .map(|r| r.get(k).map_or("", |c| c.as_str()))
            .collect();
        let numbers: Option<Vec<f64>> = cells.iter().map(|c| c.parse::<f64>().ok()).collect();
        match numbers {
            Some(x) => d.set_item(name, numpy.call_method1("array", (x,))?)?,
            None => d.set_item(name, cells)?,
        }
    }
    Ok(d.into_any())
}

/// A `Scene`, or the scene file at a path.
fn as_scene(scene: &Bound<'_, PyAny>) -> PyResult<Scene> {
    match scene.extract::<Scene>() {
        Ok(s) => Ok(s),
        Err(_) => Scene::from_file(scene.extract::<PathBuf>().map_err(|_| {
            PyTypeError::new_err("scene must be a tumble.Scene or a path to a scene file")
        })?),
    }
}

/// tumble: event-driven rigid-body simulation of many polyhedra.
#[pymodule]
fn tumble(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Scene>()?;
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(batch, m)?)?;
    m.add("SceneError", m.py().get_type::<SceneError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
