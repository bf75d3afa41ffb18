//! `tumble.Simulation`: a scene stepped from Python, frame by frame or in runs with the GIL
//! released, its states read and set as numpy arrays, its summary and impulses as dicts.

use crate::backend::{select_backend, thread_pool};
use crate::errors::{in_python_terms, scene_error, SimulationError};
use crate::progress::Progress;
use crate::replay::{replay, Advance, SavedState};
use crate::scene::Scene;
use engine::flow::FlowTables;
use engine::output::{FramesWriter, Summary};
use engine::simulation::{FrameSink, RunEnd, RunError, Simulation as Engine, SinkError};
use engine::world::{ProbeRow, World};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::ops::ControlFlow;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

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

/// Takes the probes' values at every frame's end (see [`Simulation::probes`]).
#[derive(Default)]
struct ProbeLog(Vec<ProbeRow>);

impl FrameSink for ProbeLog {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        self.0.extend_from_slice(world.probe_rows());
        Ok(ControlFlow::Continue(()))
    }
}

/// How long a run holds the GIL released between looks for Ctrl-C.
const STRETCH: Duration = Duration::from_millis(50);

/// A running simulation of a scene: `step_frame()`, `run(until)`, `time`, `names`, `state()`,
/// `summary()`.
#[pyclass(module = "tumble")]
pub struct Simulation {
    /// The engine's simulation (in a mutex only to make the class `Sync`, as Python objects must
    /// be: the methods that step take it by `&mut`, so it is never contended).
    sim: Mutex<Engine>,
    /// The scene it runs.
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
    /// The probes' values at every frame so far ([`Simulation::probes`]).
    probe_rows: Vec<ProbeRow>,
}

impl Simulation {
    /// The engine's simulation, to read.
    pub fn engine(&self) -> MutexGuard<'_, Engine> {
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
    /// to `frames` and `flow` (a run directory's tables); between stretches it records how far it got (in the last `run` of the log,
    /// if that is the call being made) and looks for Ctrl-C, whose `KeyboardInterrupt` is the
    /// outer error. The run's own failure is the inner one.
    pub fn advance(
        &mut self,
        py: Python<'_>,
        until: f64,
        mut frames: Option<&mut FramesWriter>,
        mut flow: Option<&mut FlowTables>,
        progress: &mut Progress<'_>,
    ) -> PyResult<Result<(), RunError>> {
        loop {
            let (result, rows) = self.stepping(py, |s| {
                let mut deadline = Deadline(Instant::now() + STRETCH);
                let mut probes = ProbeLog::default();
                let mut sinks: Vec<&mut dyn FrameSink> = vec![&mut deadline, &mut probes];
                if let Some(f) = frames.as_deref_mut() {
                    sinks.push(f);
                }
                if let Some(f) = flow.as_deref_mut() {
                    sinks.push(f);
                }
                let result = s.run(Some(until), &mut sinks);
                (result, probes.0)
            });
            self.probe_rows.extend(rows);
            let reached = self.engine().time();
            if let Some(Advance::Run { reached: r, .. }) = self.log.last_mut() {
                *r = reached;
            }
            progress.show(reached)?;
            match result {
                Ok(RunEnd::Reached) => return Ok(Ok(())),
                Ok(RunEnd::Stopped) => py.check_signals()?,
                Err(e) => return Ok(Err(e)),
            }
        }
    }

    /// A run error as a Python exception, recorded for the summary.
    pub fn failed(&mut self, e: RunError) -> PyErr {
        let message = in_python_terms(&e.to_string());
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
    pub fn new(
        scene: &Scene,
        backend: &str,
        threads: Option<usize>,
        record_events: bool,
    ) -> PyResult<Simulation> {
        let pool = thread_pool(threads)?;
        let mut sim = Engine::new(&scene.scene).map_err(scene_error)?;
        let selection = select_backend(backend, scene.scene.motion_counts().0)?;
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
            probe_rows: Vec::new(),
        })
    }

    /// Advances one frame (to the next multiple of the frame period, or to the scene's end);
    /// once the end is reached, one whole frame past it.
    fn step_frame(&mut self, py: Python<'_>) -> PyResult<()> {
        self.log.push(Advance::Step);
        let stepped = self.stepping(py, |s| {
            let mut rows = Vec::new();
            let stepped = s.step_frame();
            if stepped.is_ok() {
                rows.extend_from_slice(s.world().probe_rows());
            }
            (stepped, rows)
        });
        self.probe_rows.extend(stepped.1);
        match stepped.0 {
            Ok(()) => Ok(()),
            Err(e) => Err(self.failed(e)),
        }
    }

    /// Steps frame by frame to `until` (s; default the scene's duration). The GIL is released
    /// while it steps; Ctrl-C raises `KeyboardInterrupt` between frames, the simulation left at
    /// the last whole frame. With `progress`, a line on `sys.stderr` shows how far it got,
    /// ended with a newline however the run ends.
    #[pyo3(signature = (until = None, progress = false))]
    fn run(&mut self, py: Python<'_>, until: Option<f64>, progress: bool) -> PyResult<()> {
        let until = until.unwrap_or(self.engine().end());
        if until.is_nan() {
            return Err(PyValueError::new_err("until must be a number (got NaN)"));
        }
        let reached = self.engine().time();
        self.log.push(Advance::Run { until, reached });
        let mut line = Progress::new(py, progress, until)?;
        let outcome = self.advance(py, until, None, None, &mut line);
        drop(line);
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
    /// for the bodies that move), with `names` (the rows' bodies): `position` (n, 3), `orientation` (n, 4; w, x, y, z),
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
        // The rows' bodies: a scene with [[sources]] gains bodies as it runs.
        let names: Vec<&str> = (0..n).map(|i| world.body_name(i)).collect();
        d.set_item("names", names)?;
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
    /// frame starts from the new states with every pair bounded again. `names`, if given (as
    /// `state()` gives them, so that `set_state(**state)` works), must be the bodies' names now:
    /// a state taken before bodies were poured in or taken out does not fit.
    #[pyo3(signature = (position = None, orientation = None, velocity = None, angular_velocity = None, names = None))]
    fn set_state(
        &mut self,
        position: Option<Vec<[f64; 3]>>,
        orientation: Option<Vec<[f64; 4]>>,
        velocity: Option<Vec<[f64; 3]>>,
        angular_velocity: Option<Vec<[f64; 3]>>,
        names: Option<Vec<String>>,
    ) -> PyResult<()> {
        let engine = self.sim.get_mut().unwrap_or_else(|e| e.into_inner());
        let world = engine.world_mut();
        let n = world.body_count();
        if let Some(names) = &names {
            let now: Vec<&str> = (0..n).map(|i| world.body_name(i)).collect();
            if let Some(k) = (0..names.len().max(n))
                .find(|&k| names.get(k).map(String::as_str) != now.get(k).copied())
            {
                return Err(PyValueError::new_err(format!(
                    "names do not match the simulation's bodies (first difference at row {k}: \
                     {:?} against {:?}): the state was taken with other bodies in the world",
                    names.get(k),
                    now.get(k)
                )));
            }
        }
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
        let saved = SavedState::new(
            &self.scene.source,
            &self.scene.text,
            self.recording,
            &self.log,
        );
        Ok(PyBytes::new(py, &saved.to_bytes()?))
    }

    /// Takes the state `save_state` gave, of a simulation of this same scene: this simulation
    /// then continues bit for bit as that one would have. The engine is deterministic, so the
    /// state is rebuilt by running the same calls again from the scene's start, with the GIL
    /// released: it costs the saved run's time.
    fn load_state(&mut self, py: Python<'_>, state: &[u8]) -> PyResult<()> {
        let saved = SavedState::from_bytes(state, &self.scene.source, &self.scene.text)?;
        let mut sim = Engine::new(&self.scene.scene).map_err(scene_error)?;
        let selection = select_backend(&self.backend.0, self.scene.scene.motion_counts().0)?;
        selection.backend.install(sim.world_mut());
        sim.world_mut().record_events(saved.record_events);
        *self.sim.get_mut().unwrap_or_else(|e| e.into_inner()) = sim;
        self.recording = saved.record_events;
        self.log = saved.log.clone();
        self.error = None;
        if let Err(e) = self.stepping(py, |sim| replay(sim, &saved.log)) {
            return Err(self.failed(e));
        }
        if saved.record_events {
            // The replay's impulses were the saved simulation's, already taken from it.
            let engine = self.sim.get_mut().unwrap_or_else(|e| e.into_inner());
            engine.world_mut().take_events(&mut Vec::new());
        }
        Ok(())
    }

    /// The values of the scene's `[[probes]]` at every frame so far, as probes.csv's columns:
    /// `t` and `value` (float64 arrays), `probe` and `quantity` (lists of str), one entry per
    /// probe, quantity and frame.
    fn probes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rows = &self.probe_rows;
        let d = PyDict::new(py);
        d.set_item(
            "t",
            PyArray1::from_vec(py, rows.iter().map(|r| r.t).collect()),
        )?;
        d.set_item(
            "probe",
            rows.iter().map(|r| r.probe.as_str()).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "quantity",
            rows.iter().map(|r| r.quantity).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "value",
            PyArray1::from_vec(py, rows.iter().map(|r| r.value).collect()),
        )?;
        Ok(d)
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
        let name = |i: u32| world.event_body_name(i).to_string();
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
    /// What `summary()` returns, as the engine's [`Summary`] (`run` writes it as summary.json).
    pub fn summary_now(&self) -> Summary {
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
