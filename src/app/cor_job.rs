//! The viewer's center-of-rotation precompute, on a background thread.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crate::render::GpuContext;
use crate::scene::Scene;
use crate::skin::{CorError, CorOptions, CorProgress, SceneCenters};
use crate::ui::CorState;

/// A precompute in flight, or its outcome.
#[derive(Debug, Default)]
pub enum CorJob {
    /// Not started (the model has not been shown in CoR mode yet, or it was cancelled).
    #[default]
    Idle,
    /// Running on a background thread.
    Running {
        /// Shared with the thread: progress and cancellation.
        progress: Arc<CorProgress>,
        /// The thread; it returns the centers (cached on disk too).
        handle: JoinHandle<Result<SceneCenters, CorError>>,
        /// When it started.
        started: Instant,
    },
    /// The centers are on the GPU; kept for the plot's CoR line.
    Done(Arc<SceneCenters>),
}

impl CorJob {
    /// The centers, once computed.
    #[must_use]
    pub fn centers(&self) -> Option<&Arc<SceneCenters>> {
        match self {
            Self::Done(centers) => Some(centers),
            _ => None,
        }
    }

    /// Whether the precompute is running.
    #[must_use]
    pub fn is_running(&self) -> bool {
        matches!(self, Self::Running { .. })
    }

    /// Starts, polls or cancels the job as `wanted` (CoR on screen) and `state` (buttons) say;
    /// uploads the centers with `upload` when they arrive, and reports into `state`.
    /// `wait` (a scripted run's screenshot frame) blocks until a running job ends.
    #[allow(clippy::too_many_arguments)]
    pub fn poll(
        &mut self,
        scene: &Scene,
        wanted: bool,
        wait: bool,
        state: &mut CorState,
        ctx: &GpuContext,
        upload: impl FnOnce(&GpuContext, &SceneCenters),
    ) {
        let retry = std::mem::take(&mut state.retry);
        let cancel = std::mem::take(&mut state.cancel);
        match self {
            Self::Idle if (wanted && state.error.is_none()) || retry => {
                let progress = Arc::new(CorProgress::new());
                let shared = Arc::clone(&progress);
                let scene = scene.clone();
                let handle = std::thread::spawn(move || {
                    SceneCenters::compute_cached(&scene, &CorOptions::default(), &shared)
                        .map(|(c, _)| c)
                });
                state.error = None;
                state.ready = false;
                state.progress = Some(0.0);
                *self = Self::Running {
                    progress,
                    handle,
                    started: Instant::now(),
                };
            }
            Self::Running {
                progress, handle, ..
            } => {
                if cancel {
                    progress.cancel();
                }
                state.progress = Some(progress.fraction());
                if handle.is_finished() || wait {
                    let Self::Running {
                        handle, started, ..
                    } = std::mem::take(self)
                    else {
                        return;
                    };
                    state.progress = None;
                    match handle.join() {
                        Ok(Ok(centers)) => {
                            let secs = started.elapsed().as_secs_f64();
                            log::info!("CoR centers ready in {secs:.2} s");
                            upload(ctx, &centers);
                            state.ready = true;
                            *self = Self::Done(Arc::new(centers));
                        }
                        Ok(Err(e)) => state.error = Some(e.to_string()),
                        Err(_) => state.error = Some("the precompute panicked".into()),
                    }
                }
            }
            Self::Idle | Self::Done(_) => {}
        }
    }
}
