//! The viewer's Direct Delta Mush precompute, on a background thread, cached on disk.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crate::render::{GpuContext, RenderError};
use crate::scene::Scene;
use crate::skin::ddm::{DdmParams, DdmProgress, SceneDdm, SmoothingError};
use crate::ui::DdmState;

/// A precompute in flight, or its outcome.
#[derive(Debug, Default)]
pub enum DdmJob {
    /// Not started (no DDM view shown yet, or cancelled).
    #[default]
    Idle,
    /// Running on a background thread for `params`.
    Running {
        /// Shared with the thread: progress and cancellation.
        progress: Arc<DdmProgress>,
        /// The thread; it returns the matrices (cached on disk too).
        handle: JoinHandle<Result<SceneDdm, SmoothingError>>,
        /// The parameters it runs with.
        params: DdmParams,
        /// When it started.
        started: Instant,
    },
    /// The matrices are on the GPU.
    Done(Arc<SceneDdm>),
}

impl DdmJob {
    /// The matrices, once computed.
    #[must_use]
    pub fn ddm(&self) -> Option<&Arc<SceneDdm>> {
        match self {
            Self::Done(ddm) => Some(ddm),
            _ => None,
        }
    }

    /// The parameters of the running or finished job.
    fn params(&self) -> Option<DdmParams> {
        match self {
            Self::Idle => None,
            Self::Running { params, .. } => Some(*params),
            Self::Done(ddm) => Some(ddm.params),
        }
    }

    /// Starts, polls, restarts (new parameters) or cancels the job as `wanted` (DDM on screen)
    /// and `state` say; uploads the matrices with `upload` when they arrive. `wait` (a scripted
    /// run's screenshot frame) blocks until a running job ends.
    pub fn poll(
        &mut self,
        scene: &Scene,
        (wanted, wait): (bool, bool),
        state: &mut DdmState,
        ctx: &GpuContext,
        upload: impl FnOnce(&GpuContext, &SceneDdm) -> Result<(), RenderError>,
    ) {
        let retry = std::mem::take(&mut state.job.retry);
        let cancel = std::mem::take(&mut state.job.cancel);
        if wanted && self.params().is_some_and(|p| p != state.params) {
            if let Self::Running { progress, .. } = self {
                progress.cancel();
            }
            *self = Self::Idle;
            state.job.error = None;
        }
        match self {
            Self::Idle if (wanted && state.job.error.is_none()) || retry => {
                self.start(scene, state);
            }
            Self::Running {
                progress, handle, ..
            } => {
                if cancel {
                    progress.cancel();
                }
                state.job.progress = Some(progress.fraction());
                if handle.is_finished() || wait {
                    self.finish(state, ctx, upload);
                }
            }
            Self::Idle | Self::Done(_) => {}
        }
    }

    /// Starts the precompute for `state.params` on a new thread.
    fn start(&mut self, scene: &Scene, state: &mut DdmState) {
        let progress = Arc::new(DdmProgress::new());
        let shared = Arc::clone(&progress);
        let scene = scene.clone();
        let params = state.params;
        let handle = std::thread::spawn(move || {
            SceneDdm::compute_cached(&scene, params, &shared, None).map(|(d, _)| d)
        });
        state.job.error = None;
        state.job.ready = false;
        state.job.progress = Some(0.0);
        state.pairs = None;
        *self = Self::Running {
            progress,
            handle,
            params,
            started: Instant::now(),
        };
    }

    /// Joins the finished (or awaited) thread and uploads or reports its outcome.
    fn finish(
        &mut self,
        state: &mut DdmState,
        ctx: &GpuContext,
        upload: impl FnOnce(&GpuContext, &SceneDdm) -> Result<(), RenderError>,
    ) {
        let Self::Running {
            handle, started, ..
        } = std::mem::take(self)
        else {
            return;
        };
        state.job.progress = None;
        match handle.join() {
            Ok(Ok(ddm)) => {
                let secs = started.elapsed().as_secs_f64();
                if let Err(e) = upload(ctx, &ddm) {
                    // Kept off the GPU (the panes draw LBS), and not retried on its own.
                    state.job.error = Some(format!("DDM cannot be drawn here: {e}"));
                    return;
                }
                log::info!("DDM matrices ready in {secs:.2} s");
                state.job.ready = true;
                state.pairs = Some((ddm.pair_count(), ddm.bytes()));
                *self = Self::Done(Arc::new(ddm));
            }
            Ok(Err(e)) => state.job.error = Some(e.to_string()),
            Err(_) => state.job.error = Some("the DDM precompute panicked".into()),
        }
    }
}
