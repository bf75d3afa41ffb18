//! Choosing where the frame stages run: the host's own f64 path (`cpu`), the WGSL stages on
//! whatever adapter wgpu finds (`gpu`), or the one expected faster for the run (`auto`).
//!
//! Shared by every command that builds a world (`tumble run`, `tumble bench`, `tumble batch`,
//! the Python bindings) so that they agree on the rule and on the messages.
//!
//! `auto`, the default, runs the GPU only for scenes of at least
//! [`AUTO_GPU_MIN_BODIES`](super::auto::AUTO_GPU_MIN_BODIES) moving bodies on a real GPU, and
//! below that looks for no device at all (the rule and why: [`super::auto`]). `cpu` never looks.
//! `--backend gpu` uses any adapter, CPU implementations such as lavapipe included (that is how
//! the GPU path is tested without a GPU).

use super::auto::{auto_choice, probe};
use super::{GpuContext, GpuError, GpuStages};
use crate::stages::collision_round::{CollisionRounds, RoundInput, RoundOutput};
use crate::stages::contact_sweep::{ContactSweeps, SweepInput, SweepOutput};
use crate::stages::{
    BoxOverride, FrameOutput, FrameParams, FrameStages, FrameStagesHost, PairBound, StageAabb,
    StageBody, StageError,
};
use std::sync::{Arc, Mutex};

/// The backend asked for (the `--backend` value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// The host's f64 path; no device is opened.
    Cpu,
    /// [`GpuStages`] on the adapter [`super::GpuContext::new`] picks, CPU implementations included.
    Gpu,
    /// The GPU for scenes of many moving bodies on a real GPU, else the host path
    /// ([`super::auto`]); no device is looked for below the body count.
    Auto,
}

/// The backend that will run.
#[derive(Clone)]
pub enum Backend {
    /// The host's f64 path (no frame stages set on the world).
    Cpu,
    /// The WGSL stages on a device, shareable by the worlds built in turn from one selection.
    Gpu(SharedGpuStages),
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Backend::Cpu => f.write_str("Cpu"),
            Backend::Gpu(g) => write!(f, "Gpu({:?})", g.name()),
        }
    }
}

impl Backend {
    /// `"cpu"` or `"gpu"`: the `backend` of summary.json.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu(_) => "gpu",
        }
    }

    /// The adapter's name, backend and type ([`GpuContext::adapter_name`]); `None` on the CPU.
    pub fn adapter(&self) -> Option<String> {
        match self {
            Backend::Cpu => None,
            Backend::Gpu(g) => Some(g.name()),
        }
    }

    /// The frame stages a world should run on this backend, `None` for its host path. May be
    /// asked for several worlds (a benchmark's repeats); they share the device. The CPU backend
    /// keeps the world on its host path rather than installing [`crate::stages::CpuStages`]: the
    /// host path is f64, skips the f32 round trip and is the reference the stages are checked
    /// against.
    pub fn frame_stages(&self) -> Option<Box<dyn FrameStages>> {
        match self {
            Backend::Cpu => None,
            Backend::Gpu(stages) => Some(Box::new(stages.clone())),
        }
    }

    /// Makes `world` (any [`FrameStagesHost`]: the world, without this module importing it) run
    /// its frame-start stages on this backend: [`Self::frame_stages`], applied.
    pub fn install(&self, world: &mut impl FrameStagesHost) {
        if let Some(stages) = self.frame_stages() {
            world.set_frame_stages(stages);
        }
    }
}

/// [`GpuStages`] behind a shared handle, so that one device and its pipelines serve every world
/// built from one selection. The alternative, a device per world, would make each repeat of
/// `tumble bench` pay (and time) device start-up and shader compilation again. Worlds take turns
/// on the lock; each call runs whole stages, so the lock is taken once per frame.
#[derive(Clone)]
pub struct SharedGpuStages(Arc<Mutex<GpuStages>>);

impl SharedGpuStages {
    /// Wraps `stages` for sharing.
    pub fn new(stages: GpuStages) -> Self {
        SharedGpuStages(Arc::new(Mutex::new(stages)))
    }

    /// Runs `f` on the stages. A panic in another world's stage call leaves no half-written
    /// state that matters (buffers are rewritten by every call), so a poisoned lock is taken over.
    pub fn with<R>(&self, f: impl FnOnce(&mut GpuStages) -> R) -> R {
        let mut guard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }
}

impl FrameStages for SharedGpuStages {
    fn name(&self) -> String {
        self.with(|g| g.name())
    }

    fn swept_aabb(
        &mut self,
        bodies: &[StageBody],
        overrides: &[BoxOverride],
        params: &FrameParams,
    ) -> Result<Vec<StageAabb>, StageError> {
        self.with(|g| g.swept_aabb(bodies, overrides, params))
    }

    fn broad_phase(
        &mut self,
        boxes: &[StageAabb],
        params: &FrameParams,
    ) -> Result<Vec<[u32; 2]>, StageError> {
        self.with(|g| g.broad_phase(boxes, params))
    }

    fn pair_bounds(
        &mut self,
        bodies: &[StageBody],
        pairs: &[[u32; 2]],
        params: &FrameParams,
    ) -> Result<Vec<PairBound>, StageError> {
        self.with(|g| g.pair_bounds(bodies, pairs, params))
    }

    fn frame(
        &mut self,
        bodies: &[StageBody],
        overrides: &[BoxOverride],
        params: &FrameParams,
    ) -> Result<FrameOutput, StageError> {
        self.with(|g| g.frame(bodies, overrides, params))
    }

    fn contact_sweeper(&mut self) -> Option<&mut dyn ContactSweeps> {
        Some(self)
    }

    fn collision_rounder(&mut self) -> Option<&mut dyn CollisionRounds> {
        Some(self)
    }
}

impl CollisionRounds for SharedGpuStages {
    fn collision_round(&mut self, input: &RoundInput<'_>) -> Result<RoundOutput, StageError> {
        self.with(|g| g.collision_round(input))
    }
}

impl ContactSweeps for SharedGpuStages {
    fn contact_sweeps(&mut self, input: &SweepInput<'_>) -> Result<SweepOutput, StageError> {
        self.with(|g| g.contact_sweeps(input))
    }
}

/// The outcome of [`select`]: the backend, and the lines for stderr.
#[derive(Debug)]
pub struct Selection {
    /// The backend to install.
    pub backend: Backend,
    /// The line every command prints: which device was opened, e.g. `"backend: gpu (NVIDIA …
    /// (Vulkan, DiscreteGpu))"`, or why `auto` could not use the GPU it found. `None` for the
    /// CPU otherwise (nothing to report).
    pub note: Option<String>,
    /// For `auto`: what it chose and why, e.g. `"backend: cpu (auto: 1 005 moving bodies, below
    /// the 50 000 the GPU needs)"`, which `tumble bench` prints. `None` for `cpu` and `gpu`.
    pub auto: Option<String>,
}

/// An explicit `--backend gpu` that cannot be honoured.
#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    /// No adapter at all, or none matching `TUMBLE_ADAPTER`.
    #[error("--backend gpu: {0}; or use --backend cpu")]
    NoAdapter(GpuError),
    /// An adapter exists but the device or the pipelines could not be created.
    #[error("GPU backend unavailable (wgpu): {0}; use --backend cpu")]
    Unusable(GpuError),
}

impl From<GpuError> for SelectError {
    fn from(e: GpuError) -> Self {
        match e {
            GpuError::NoAdapter { .. } => SelectError::NoAdapter(e),
            _ => SelectError::Unusable(e),
        }
    }
}

/// Resolves `kind` to a backend for a scene of `moving_bodies` dynamic bodies (the `auto` rule:
/// [`super::auto`]). `cpu` looks for no device; only an explicit [`BackendKind::Gpu`] can fail
/// (`auto` falls back to the host, and says why, if the GPU it picked cannot be opened).
pub fn select(kind: BackendKind, moving_bodies: usize) -> Result<Selection, SelectError> {
    match kind {
        BackendKind::Cpu => Ok(Selection {
            backend: Backend::Cpu,
            note: None,
            auto: None,
        }),
        BackendKind::Gpu => {
            let stages = GpuStages::new()?;
            let note = format!("backend: gpu ({})", stages.context().adapter_name());
            Ok(Selection {
                backend: Backend::Gpu(SharedGpuStages::new(stages)),
                note: Some(note),
                auto: None,
            })
        }
        BackendKind::Auto => {
            let mut adapter = None;
            let choice = auto_choice(moving_bodies, || {
                let (a, found) = probe();
                adapter = a;
                found
            });
            let opened = match adapter {
                Some(a) if choice.gpu => {
                    Some(GpuContext::on_adapter(a).and_then(GpuStages::with_context))
                }
                _ => None,
            };
            Ok(match opened {
                None => Selection {
                    backend: Backend::Cpu,
                    note: None,
                    auto: Some(format!("backend: cpu ({})", choice.reason)),
                },
                Some(Ok(stages)) => {
                    let line = format!("backend: gpu ({})", choice.reason);
                    Selection {
                        backend: Backend::Gpu(SharedGpuStages::new(stages)),
                        note: Some(line.clone()),
                        auto: Some(line),
                    }
                }
                Some(Err(e)) => {
                    let line = format!("backend: cpu ({}; cannot be used: {e})", choice.reason);
                    Selection {
                        backend: Backend::Cpu,
                        note: Some(line.clone()),
                        auto: Some(line),
                    }
                }
            })
        }
    }
}
