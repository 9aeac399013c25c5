//! The viewer window: winit event loop, wgpu surface, egui, frame loop and screenshots.
//!
//! `ui` holds the state and panels; this module owns everything with a handle to
//! the window or the GPU and feeds `ui` what it shows.

mod cor_job;
mod damage_check;
mod ddm_job;
mod egui_layer;
mod files;
mod follow;
mod frame;
mod graphics;
mod heat;
mod inspect;
mod job;
mod model;
mod paint;
mod passes;
mod profile;
mod recovery;
mod redraw;
mod scene_cache;
mod screenshot;
mod session;
mod surface;
mod timing;
mod twist_job;
mod ui_damage;
mod ui_script;
mod viewer;

use std::path::PathBuf;

use anyhow::{Result, anyhow};

use crate::pose_request::PoseRequest;
use crate::ui::ViewMode;

/// What to open and, for scripted runs, what to do.
#[derive(Clone, Debug, Default)]
pub struct ViewerOptions {
    /// Model to open: a path or `builtin:NAME`.
    pub model: String,
    /// View layout and split-view panes given on the command line (they win over the
    /// session's); `None`: the session's, else single.
    pub view: Option<(ViewMode, [bool; crate::ui::MAX_PANES])>,
    /// Shading (debug view) given on the command line; `None`: the session's, else shaded.
    pub shading: Option<crate::render::DebugView>,
    /// Mode, beta, clip, time and joint overrides at start.
    pub pose: PoseRequest,
    /// Write the window's last frame here as PNG.
    pub screenshot: Option<PathBuf>,
    /// Render this many frames, then close.
    pub exit_after_frames: Option<u64>,
    /// DQS bulge compensation at start, in [0, 1].
    pub bulge_compensation: f32,
    /// Direct Delta Mush's parameters at start (the panel's sliders).
    pub ddm: crate::skin::ddm::DdmParams,
    /// Delta Mush's iterations and factor at start (`--dm-iterations`, `--dm-factor`).
    pub dm: crate::skin::dm::DmParams,
    /// MSAA samples per pixel (1 or 4); `None` picks by adapter.
    pub msaa: Option<u32>,
    /// Read shaders from this folder and rebuild the pipelines when its files change.
    pub shader_dir: Option<PathBuf>,
    /// Test hook: destroy the GPU device after this many frames (the viewer must recover).
    pub lose_device_at_frame: Option<u64>,
    /// Read the session from this file at start and save it there at exit
    /// (instead of the per-model session in the user's config directory).
    pub session: Option<PathBuf>,
    /// Scripted input and dumps for tests (see `ui_script`).
    pub ui_script: Option<PathBuf>,
    /// The window's inner size at start, in logical pixels (default 1280 x 720).
    pub window_size: Option<(u32, u32)>,
    /// Write a Chrome trace of every frame here and print the per-stage breakdown at exit.
    pub profile: Option<PathBuf>,
}

impl ViewerOptions {
    /// Whether this is a scripted run (deterministic: no autoplay, errors end the run).
    #[must_use]
    pub fn is_scripted(&self) -> bool {
        self.screenshot.is_some() || self.exit_after_frames.is_some() || self.ui_script.is_some()
    }
}

/// Opens the viewer window and runs until it is closed (or the scripted frames are done).
pub fn run(options: ViewerOptions) -> Result<()> {
    let profiler = options
        .profile
        .as_deref()
        .map(profile::Profiler::start)
        .transpose()?;
    let event_loop = winit::event_loop::EventLoop::new().map_err(|e| {
        anyhow!("cannot open a window: no display ({e}); set DISPLAY, or run under xvfb-run")
    })?;
    let options_profile = options.profile.clone();
    let mut viewer = viewer::Viewer::new(options);
    event_loop
        .run_app(&mut viewer)
        .map_err(|e| anyhow!("the window's event loop failed: {e}"))?;
    let gpu_passes = viewer.gpu_pass_summary();
    let result = viewer.finish();
    if let (Some(profiler), Some(path)) = (profiler, &options_profile) {
        eprint!("{}", profiler.breakdown());
        eprintln!(
            "profile: {}",
            gpu_passes
                .as_deref()
                .unwrap_or("no GPU timestamps on this adapter")
        );
        eprintln!(
            "profile: trace written to {} (open in ui.perfetto.dev)",
            path.display()
        );
    }
    result
}
