//! `save_state` and `load_state`: a simulation kept as its scene and the calls that advanced it,
//! and rebuilt by making those calls again (the engine is deterministic, so the replay lands on
//! the same state bit for bit).

use engine::simulation::{FrameSink, RunError, Simulation as Engine, SinkError};
use engine::world::World;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::ops::ControlFlow;

/// One call that advanced a simulation.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Advance {
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
pub struct SavedState {
    /// [`STATE_FORMAT`].
    pub format: String,
    /// Where the scene came from (for messages).
    pub source: String,
    /// The scene's TOML text: a state loads only into a simulation of the same text.
    pub text: String,
    /// Whether the simulation recorded its impulses.
    pub record_events: bool,
    /// The calls, in order.
    pub log: Vec<Advance>,
}

/// The `format` of [`SavedState`].
const STATE_FORMAT: &str = "tumble-state/1";

impl SavedState {
    /// The state of a simulation of `source` (TOML `text`) advanced by `log`.
    pub fn new(source: &str, text: &str, record_events: bool, log: &[Advance]) -> Self {
        SavedState {
            format: STATE_FORMAT.to_string(),
            source: source.to_string(),
            text: text.to_string(),
            record_events,
            log: log.to_vec(),
        }
    }

    /// As bytes (JSON).
    pub fn to_bytes(&self) -> PyResult<Vec<u8>> {
        serde_json::to_vec(self).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// The state in `bytes`, which must have been saved from a simulation of the scene `text`
    /// (`source` names it in the message if not).
    pub fn from_bytes(bytes: &[u8], source: &str, text: &str) -> PyResult<Self> {
        let saved: SavedState = serde_json::from_slice(bytes)
            .map_err(|e| PyValueError::new_err(format!("not a saved tumble state: {e}")))?;
        if saved.format != STATE_FORMAT {
            return Err(PyValueError::new_err(format!(
                "a saved state of format {:?}, not {STATE_FORMAT:?}",
                saved.format
            )));
        }
        if saved.text != text {
            return Err(PyValueError::new_err(format!(
                "the state was saved from a simulation of another scene ({}), not of this one \
                 ({source})",
                saved.source
            )));
        }
        Ok(saved)
    }
}

/// Makes the calls of `log` again on `sim`, a simulation at its scene's start.
pub fn replay(sim: &mut Engine, log: &[Advance]) -> Result<(), RunError> {
    for advance in log {
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
}

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
