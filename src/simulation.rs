//! The one frame loop every simulating command runs: a [`Simulation`] owns a [`World`] and steps
//! it frame by frame to an end time, checks that time advances, and hands each finished frame to
//! [`FrameSink`]s (`frames.csv`, `events.csv`, a progress bar, a bench's timeline, a batch
//! trial's rest watch).
//!
//! `tumble run`, `tumble bench`, `tumble batch` (one simulation per trial) and `tumble compare`
//! (one per method, run to each comparison time in turn) all drive their worlds through it, so
//! the frames they take, and the checks made between them, are the same everywhere. The names
//! follow the Python API it is meant to back: `sim.step_frame()`, `sim.run(until=None)`,
//! `sim.time`, `sim.names`.
//!
//! # A frame
//! Frame k ends at k · frame period, computed by multiplication: summing the period would drift
//! (ten steps of 0.02 s end at 0.19999999999999998) and leave a sliver of a frame at the end. A
//! frame that would pass the run's end stops there instead. The world is asked for exactly that
//! frame end ([`World::step_frame`] with the frame's end as its `until`), and asked again should
//! it stop short, so that a sink sees one call per frame, at the frame's nominal time.
//!
//! Rejected: passing the run's end as `until` and letting the world pick the frame's end on its
//! own grid. The frames' ends are the same, but the world prepares the next frame's first step
//! for the `until` it was last given, so a run that ends off the grid (`--duration 1.013`) would
//! prepare its last-but-one frame differently, and its frames, impulses and counters would not be
//! those `tumble run` has always written.
//!
//! # The stall check
//! Every call of the world must move its time forward. A call that returns without advancing
//! would be made again with the same arguments and so loop forever, silently; the run stops
//! instead with [`RunError::Stalled`] at the time where it stuck. This is the check `tumble run`
//! and `tumble bench` made, word for word; `batch` and `compare` had none, so a stalled trial or
//! method hung the whole command. A stricter test (a least advance, a count of short frames) was
//! left out: the world ends each call on its frame grid or at the end it is given, so any advance
//! is real progress, and a threshold would be one more number to tune.
//!
//! The run is over when the world's time reaches the end (`time < until` steps on), with no
//! tolerance: the world lands on the end it is given bit for bit (`batch` and `compare` used to
//! stop 1e-12 s short of it).

use crate::flow::Flow;
use crate::output::{EventsWriter, FramesWriter, OutputError};
use crate::scene::{Scene, SceneError};
use crate::world::{on_pool, SimError, World};
use std::ops::ControlFlow;

/// Why a sink failed (a file that could not be written, a callback's own error).
pub type SinkError = Box<dyn std::error::Error + Send + Sync>;

/// Takes each frame a [`Simulation`] finishes: writes it out, counts it, watches it.
///
/// A sink sees the world at the frame's end, mutably so that it can take what the frame recorded
/// ([`World::take_events`]). It can end the run early by returning [`ControlFlow::Break`] (a
/// batch trial stops once every body sleeps). Sinks run on the thread of the frame loop (one of
/// rayon's, see [`crate::world::on_pool`]), hence `Send`.
pub trait FrameSink: Send {
    /// The frame that just ended; `Break` ends the run after every sink has seen it.
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError>;
}

/// `frames.csv`: one row per non-fixed body per frame ([`FramesWriter::write_frame`]).
impl FrameSink for FramesWriter {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        self.write_frame(world)?;
        Ok(ControlFlow::Continue(()))
    }
}

/// `inserted.csv`, `removed.csv` and `probes.csv` ([`crate::flow::FlowTables::write`]).
impl FrameSink for crate::flow::FlowTables {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        self.write(world)?;
        Ok(ControlFlow::Continue(()))
    }
}

/// `events.csv`: the impulses the frame recorded ([`EventsWriter::write_events`]); the world
/// must record them ([`World::record_events`]).
impl FrameSink for EventsWriter {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        self.write_events(world)?;
        Ok(ControlFlow::Continue(()))
    }
}

/// Why a run stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The world failed during a frame.
    #[error("simulation failed at t = {time} s: {error}")]
    Sim {
        /// The world's time after the failed frame (s).
        time: f64,
        /// The world's error.
        error: SimError,
    },
    /// A frame returned without advancing the world's time (see the module's notes).
    #[error("simulation failed: time did not advance past t = {time} s")]
    Stalled {
        /// Where the time stuck (s).
        time: f64,
    },
    /// A sink failed; the frame it was given was simulated.
    #[error(transparent)]
    Sink(SinkError),
}

impl From<OutputError> for RunError {
    fn from(e: OutputError) -> Self {
        RunError::Sink(Box::new(e))
    }
}

/// How a run that did not fail ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// The world reached the end time.
    Reached,
    /// A sink asked to stop before the end.
    Stopped,
}

/// A world and the end time of its scene, stepped frame by frame.
pub struct Simulation {
    world: World,
    /// The scene's `[world] duration` (s): where [`Simulation::run`] stops by default.
    end: f64,
    /// The scene's `[world] frame_period` (s).
    frame_period: f64,
}

impl Simulation {
    /// Builds the world of `scene`, to be run to its `[world] duration`.
    pub fn new(scene: &Scene) -> Result<Simulation, SceneError> {
        Simulation::from_world(World::new(scene)?, scene)
    }

    /// A world already built from `scene` (with its frame stages installed, say), to be run to
    /// the scene's `[world] duration` in frames of its `frame_period`, with its sources and
    /// sinks installed ([`Flow`]; the bodies due at its present time poured in at once); an
    /// error names a source's body whose mass properties or collider cannot be made.
    pub fn from_world(mut world: World, scene: &Scene) -> Result<Simulation, SceneError> {
        if let Some(mut flow) = Flow::new(scene)? {
            crate::world::BodyFlow::after_step(&mut flow, &mut world);
            world.set_body_flow(Box::new(flow));
        }
        Ok(Simulation {
            world,
            end: scene.world.duration,
            frame_period: scene.world.config.frame_period,
        })
    }

    /// The world's time (s).
    pub fn time(&self) -> f64 {
        self.world.time()
    }

    /// The end time [`Simulation::run`] goes to without an `until` (s).
    pub fn end(&self) -> f64 {
        self.end
    }

    /// The bodies' names, in body order (the scene's).
    pub fn names(&self) -> Vec<&str> {
        (0..self.world.body_count())
            .map(|i| self.world.body_name(i))
            .collect()
    }

    /// The world, to read.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world, to configure (backend, event recording) or change between frames.
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// The world, the simulation done with.
    pub fn into_world(self) -> World {
        self.world
    }

    /// Advances one frame: to the next frame time, or to the end time if that comes first; once
    /// the end is reached, a whole frame past it. No sink sees it.
    pub fn step_frame(&mut self) -> Result<(), RunError> {
        let until = if !self.world.reached(self.end) {
            self.end
        } else {
            f64::INFINITY
        };
        self.frame_towards(until)
    }

    /// The end of the frame the world is in: the next multiple of the frame period after its
    /// time, or `until` if that comes first. The multiple is found as the world finds it, with
    /// the same allowance for a time that is a multiple up to rounding.
    fn frame_end(&self, until: f64) -> f64 {
        let k = (self.world.time() / self.frame_period * (1.0 + 1e-12)).floor() + 1.0;
        (k * self.frame_period).min(until)
    }

    /// Steps frame by frame to `until` (s; `None`: the end time), handing each frame to every
    /// sink in order. Stops early, after the frame, when a sink asks to ([`RunEnd::Stopped`]);
    /// on a failure the world stays where it stopped, for the caller to report. Already at or
    /// past `until`, it does nothing.
    ///
    /// The whole loop runs on one of rayon's pool threads ([`on_pool`]), handed over once rather
    /// than at every frame.
    pub fn run(
        &mut self,
        until: Option<f64>,
        sinks: &mut [&mut dyn FrameSink],
    ) -> Result<RunEnd, RunError> {
        let until = until.unwrap_or(self.end);
        on_pool(|| {
            while !self.world.reached(until) {
                self.frame_towards(until)?;
                let mut end = RunEnd::Reached;
                for sink in sinks.iter_mut() {
                    if sink
                        .frame(&mut self.world)
                        .map_err(RunError::Sink)?
                        .is_break()
                    {
                        end = RunEnd::Stopped;
                    }
                }
                if end == RunEnd::Stopped {
                    return Ok(RunEnd::Stopped);
                }
            }
            Ok(RunEnd::Reached)
        })
    }

    /// One frame towards `until` (later than the world's time), with the stall check at every
    /// call of the world.
    fn frame_towards(&mut self, until: f64) -> Result<(), RunError> {
        let target = self.frame_end(until);
        // The world ends its frame at `target` exactly; the loop only guards a world that
        // would stop short, so that the frame still ends where it should.
        while !self.world.reached(target) {
            let before = self.world.time();
            if let Err(error) = self.world.step_frame(target) {
                return Err(RunError::Sim {
                    time: self.world.time(),
                    error,
                });
            }
            if self.world.time() <= before {
                return Err(RunError::Stalled { time: before });
            }
        }
        Ok(())
    }
}
