"""tumble: event-driven rigid-body simulation of many polyhedra.

Type stubs of the compiled module (its functions are written in Rust; their docstrings are the
module's own). Scenes are TOML (docs/scene-format.md); states are numpy float64 arrays;
summaries are dicts of summary.json's keys.
"""

from os import PathLike
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

FloatArray = npt.NDArray[np.float64]

class SceneError(Exception):
    """A scene that is malformed or invalid: the message names the file, line, column and key."""

class SceneFileNotFound(SceneError, FileNotFoundError):
    """A scene file that does not exist."""

class SimulationError(RuntimeError):
    """A simulation that failed: the simulation stays where it stopped."""

class Scene:
    """A validated scene (TOML)."""

    @staticmethod
    def from_file(path: Union[str, PathLike[str]]) -> "Scene":
        """Reads and validates the scene file `path`."""
    @staticmethod
    def from_toml(text: str, name: str = "<string>") -> "Scene":
        """Parses and validates scene text; `name` stands for the file in error messages."""
    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> "Scene":
        """A scene from the TOML schema as Python dicts, lists, numbers, strings and booleans."""
    @property
    def duration(self) -> float:
        """`[world] duration` (s)."""
    @property
    def frame_period(self) -> float:
        """`[world] frame_period` (s)."""

class Simulation:
    """A running simulation of a scene: `step_frame()`, `run(until)`, `time`, `names`,
    `state()`, `probes()`, `summary()`."""

    def __init__(
        self,
        scene: Scene,
        backend: str = "cpu",
        threads: Optional[int] = None,
        record_events: bool = False,
    ) -> None:
        """`backend`: "cpu", "gpu" or "auto"; `threads`: worker threads (default one per core;
        results do not depend on it); `record_events`: record every impulse for `events()`."""
    def step_frame(self) -> None:
        """Advances one frame (to the next multiple of the frame period, or to the end)."""
    def run(self, until: Optional[float] = None, progress: bool = False) -> None:
        """Steps frame by frame to `until` (s; default the scene's duration)."""
    @property
    def time(self) -> float:
        """The simulated time (s)."""
    @property
    def names(self) -> List[str]:
        """The bodies' names, in body order (a scene with `[[sources]]` gains bodies as it
        runs, and one with `[[sinks]]` loses them)."""
    @property
    def scene(self) -> Scene:
        """The scene it runs."""
    def state(self) -> Dict[str, Any]:
        """Every body's state in body order: `names` (list of str), `position` (n, 3),
        `orientation` (n, 4; w, x, y, z), `velocity` (n, 3), `angular_velocity` (n, 3)."""
    def set_state(
        self,
        position: Optional[Sequence[Sequence[float]]] = None,
        orientation: Optional[Sequence[Sequence[float]]] = None,
        velocity: Optional[Sequence[Sequence[float]]] = None,
        angular_velocity: Optional[Sequence[Sequence[float]]] = None,
        names: Optional[Sequence[str]] = None,
    ) -> None:
        """Sets the dynamic bodies' states from arrays in body order, as `state()` gives them;
        `names`, if given, must be the bodies' names now."""
    def save_state(self) -> bytes:
        """The scene and every call that advanced the simulation."""
    def load_state(self, state: bytes) -> None:
        """Continues bit for bit from a state `save_state` gave for this same scene."""
    def probes(self) -> Dict[str, Any]:
        """The `[[probes]]` values at every frame so far, as probes.csv's columns: `t` and
        `value` (float64 arrays), `probe` and `quantity` (lists of str)."""
    def events(self) -> Dict[str, Any]:
        """The impulses recorded since the last call, as events.csv's columns (a simulation
        made with `record_events=True`)."""
    def summary(self) -> Dict[str, Any]:
        """What summary.json holds for the run so far."""

def run(
    scene: Union[Scene, str, PathLike[str]],
    out: Optional[Union[str, PathLike[str]]] = None,
    backend: str = "cpu",
    threads: Optional[int] = None,
    every: int = 1,
    record: Optional[Sequence[str]] = None,
    format: str = "csv",
) -> Dict[str, Any]:
    """Runs `scene` to its end and returns its summary; with `out`, writes what `tumble run
    --out` writes (frames, summary, and the tables of sources, sinks and probes)."""

def batch(
    scene: Union[Scene, str, PathLike[str]],
    trials: Optional[int] = None,
    seed: Optional[int] = None,
    vary: Optional[Sequence[Mapping[str, Any]]] = None,
    out: Optional[Union[str, PathLike[str]]] = None,
    backend: str = "cpu",
    threads: Optional[int] = None,
    format: str = "csv",
) -> Any:
    """Runs the scene's `[batch]` and returns trials.csv: a pandas DataFrame, or a dict of numpy
    arrays without pandas."""
