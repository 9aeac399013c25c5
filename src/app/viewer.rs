//! The winit application: window creation, events, model loading and the exit rules.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, anyhow};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow};
use winit::window::{Window, WindowId};

use super::ViewerOptions;
use super::egui_layer::EguiLayer;
use super::graphics::Graphics;
use super::inspect::Inspector;
use super::model::LoadedModel;
use super::recovery::FaultHooks;
use super::redraw::NextFrame;
use super::session::ModelFiles;
use super::surface::WindowGpu;
use super::timing::FrameStats;
use super::ui_script::{ScriptHooks, UiScript};
use crate::pose_request::ResolvedPose;
use crate::ui::{OrbitCamera, ViewerState};

/// Start-up frames left out of the frame-interval figures (pipelines and caches warm up).
const FIRST_FRAMES_SKIPPED: usize = 10;

/// The application: options, and once the window exists, everything running in it.
pub struct Viewer {
    options: ViewerOptions,
    running: Option<Running>,
    error: Option<anyhow::Error>,
}

/// A window with its GPU, UI and model, in parts that each own one concern.
pub struct Running {
    /// The window, its device and surface.
    pub(super) gpu: WindowGpu,
    /// Pipelines and per-pane uniforms.
    pub(super) graphics: Graphics,
    /// egui's context, input state and renderer.
    pub(super) egui: EguiLayer,
    /// The model: scene, pose, GPU buffers (every crowd instance), grid, CoR job.
    pub(super) model: LoadedModel,
    /// Plot series, flips and hybrid betas of the model.
    pub(super) inspector: Inspector,
    /// What the panels show and edit.
    pub(super) state: ViewerState,
    /// Frame rate, GPU time, frame count.
    pub(super) stats: FrameStats,
    /// Watching edited shaders and the device-loss test hook.
    pub(super) faults: FaultHooks,
    /// Test hook: frames drawn in part are checked against the whole frame.
    pub(super) damage_check: Option<super::damage_check::DamageCheck>,
    /// The frame to save as a PNG and the session files.
    pub(super) files: ModelFiles,
    /// Scripted input (`--ui-script`) and the widgets laid out last frame.
    pub(super) script: ScriptHooks,
    /// When the last frame's state wants the next one.
    pub(super) next_frame: NextFrame,
    /// Scripted and benchmark runs draw every frame (their scripts count frames).
    pub(super) every_frame: bool,
}

impl Viewer {
    /// A viewer that opens its window when the event loop starts.
    #[must_use]
    pub fn new(options: ViewerOptions) -> Self {
        Self {
            options,
            running: None,
            error: None,
        }
    }

    /// The mean GPU time of each pass over the run, where the adapter has timestamps.
    #[must_use]
    pub fn gpu_pass_summary(&self) -> Option<String> {
        let timer = self.running.as_ref()?.stats.timer.as_ref()?;
        timer.sums.summary()
    }

    /// The run's result: the first error that ended it, if any. Saves the session first.
    pub fn finish(self) -> Result<()> {
        if let Some(running) = &self.running {
            running.save_session();
        }
        self.error.map_or(Ok(()), Err)
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: anyhow::Error) {
        self.error.get_or_insert(e);
        event_loop.exit();
    }
}

impl ApplicationHandler for Viewer {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        match Running::start(event_loop, &self.options) {
            Ok(running) => {
                running.gpu.window.request_redraw();
                self.running = Some(running);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(running) = self.running.as_mut() else {
            return;
        };
        let response = running
            .egui
            .state
            .on_window_event(&running.gpu.window, &event);
        match event {
            WindowEvent::CloseRequested | WindowEvent::Destroyed => event_loop.exit(),
            WindowEvent::Resized(size) => {
                running.gpu.resize(size.width, size.height);
                running.gpu.window.request_redraw();
            }
            WindowEvent::DroppedFile(path) => {
                running.open_path(&path);
                running.gpu.window.request_redraw();
            }
            WindowEvent::RedrawRequested => {
                let screenshot_now = self
                    .options
                    .exit_after_frames
                    .is_none_or(|n| running.stats.frames + 1 >= n)
                    .then_some(self.options.screenshot.as_deref())
                    .flatten();
                match running.render_frame(screenshot_now) {
                    Ok(()) => {}
                    Err(e) => return self.fail(event_loop, e),
                }
                if let Some(n) = self.options.exit_after_frames
                    && running.stats.frames >= n
                {
                    let secs = running.stats.started.elapsed().as_secs_f64();
                    log::info!(
                        "{n} frames in {secs:.2} s: {:.1} FPS including start-up; last {:.1} FPS",
                        n as f64 / secs,
                        running.stats.clock.fps
                    );
                    // The benchmark's figures (benches/viewer_frames.rs reads this line).
                    let skip = FIRST_FRAMES_SKIPPED;
                    if let Some((median, p95, longest)) =
                        super::timing::interval_summary(&running.stats.intervals_ms, skip)
                    {
                        log::info!(
                            "frame interval after frame {skip}: median {median:.2} ms ({:.1} FPS), \
                             p95 {p95:.2} ms, longest {longest:.2} ms",
                            1e3 / median.max(1e-3)
                        );
                    }
                    let cache = &running.gpu.targets.scene;
                    let ((reused, drawn), whole) = (cache.counts, cache.whole_frames);
                    let (partial, pixels) = cache.partial_frames;
                    log::info!(
                        "3D views drawn in {drawn} frames, reused unchanged in {reused}; \
                         whole frames reused (UI unchanged too) in {whole}; \
                         UI drawn only where it changed in {partial} ({} pixels a frame)",
                        pixels.checked_div(partial).unwrap_or(0)
                    );
                    if let Some(check) = running.damage_check {
                        log::info!(
                            "UI damage checked in {} frames: {} pixels differ from the whole frames",
                            check.frames,
                            check.differing_pixels
                        );
                    }
                    event_loop.exit();
                    return;
                }
                if running.handle_file_requests() {
                    running.next_frame = NextFrame::Now;
                }
            }
            _ => {
                if response.repaint {
                    running.gpu.window.request_redraw();
                }
            }
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(running) = self.running.as_ref() else {
            return;
        };
        // On demand: draw when something asked for a frame, else sleep until input or a timer.
        let next = if running.every_frame {
            NextFrame::Now
        } else {
            running.next_frame
        };
        let flow = match next {
            _ if !running.gpu.visible => ControlFlow::Wait,
            next if next.is_due(Instant::now()) => {
                running.gpu.window.request_redraw();
                ControlFlow::Wait
            }
            NextFrame::At(t) => ControlFlow::WaitUntil(t),
            NextFrame::Now | NextFrame::OnInput => ControlFlow::Wait,
        };
        event_loop.set_control_flow(flow);
    }
}

impl Running {
    /// Creates the window, the GPU objects and the UI, and opens the model of `options`.
    fn start(event_loop: &ActiveEventLoop, options: &ViewerOptions) -> Result<Self> {
        let attributes = Window::default_attributes()
            .with_title("dqview")
            .with_inner_size(winit::dpi::LogicalSize::new(
                f64::from(options.window_size.map_or(1280, |s| s.0)),
                f64::from(options.window_size.map_or(720, |s| s.1)),
            ));
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .map_err(|e| anyhow!("cannot open a window: {e}"))?,
        );
        let display = event_loop.owned_display_handle();
        let gpu = WindowGpu::new(display, window, options.msaa)?;
        let (graphics, shader_error) = Graphics::start(&gpu, options.shader_dir.as_deref())?;
        let egui = EguiLayer::new(&gpu);
        let ctx = &gpu.ctx;
        let renderer = &graphics.renderer;
        let scripted = options.is_scripted();
        let (model, error) = match LoadedModel::open(ctx, renderer, &options.model) {
            Ok(m) => (m, None),
            Err(e) if !scripted => {
                // Interactive: show the error over the default rig instead of quitting.
                let fallback = LoadedModel::open(ctx, renderer, crate::model::DEFAULT_MODEL)?;
                (fallback, Some(crate::report::error_message(&e)))
            }
            Err(e) => return Err(e),
        };
        let mut state = ViewerState::default();
        // View and shading given on the command line are applied after the session.
        state.skinning.bulge_compensation = options.bulge_compensation;
        state.ddm.params = options.ddm;
        state.dm.params = options.dm;
        let samples = gpu.samples;
        // Say what was chosen: 1x is the default on a software rasterizer (`--msaa 4` overrides).
        state.status.adapter = if samples > 1 {
            format!("{}, {samples}x MSAA", ctx.info.name)
        } else {
            format!("{}, MSAA off", ctx.info.name)
        };
        state.error = error.or(shader_error);
        let resolved = options.pose.resolve(&model.scene)?;
        if let Some(notice) = &resolved.notice {
            eprintln!("dqview: {notice}");
        }
        state.skinning.mode = resolved.mode;
        // --beta is one beta for all; the map's strength starts at 1 (as stored).
        state.skinning.uniform_beta = resolved.beta;
        state.joints.overrides = resolved.overrides.clone();
        // A joint given an angle on the command line starts selected: its flip strip and twist plot show.
        state.joints.selected = state.joints.overrides.angles.keys().next().copied();
        let stats = FrameStats::new(&ctx.device, &ctx.queue);
        let script = options
            .ui_script
            .as_deref()
            .map(UiScript::load)
            .transpose()?;
        let mut running = Self {
            inspector: Inspector::new(model.scene.clone()),
            model,
            state,
            stats,
            faults: FaultHooks::new(options),
            damage_check: super::damage_check::DamageCheck::from_env(),
            files: ModelFiles::new(options),
            script: ScriptHooks::new(script),
            next_frame: NextFrame::Now,
            every_frame: scripted,
            graphics,
            egui,
            gpu,
        };
        running.adopt_model();
        let clip = resolved.clip.or_else(|| {
            // Interactive runs show the first clip, paused (Space plays it).
            (!scripted && !running.state.clips.is_empty()).then_some(0)
        });
        let duration = clip
            .and_then(|c| running.state.clips.get(c))
            .map_or(0.0, |c| c.1);
        running.state.playback.select(clip, duration);
        running.state.playback.time_s = resolved.time_s.clamp(0.0, duration);
        // Paused unless the model's session was saved playing (restored below).
        running.state.playback.playing = false;
        running.reset_hybrid_flags();
        running.restore_session(&options.model);
        running.apply_command_line(options, &resolved);
        Ok(running)
    }

    /// Puts back what the command line said over what the session restored: a flag given
    /// takes effect (view, shading, mode, beta, clip and time, joint angles).
    fn apply_command_line(&mut self, options: &ViewerOptions, resolved: &ResolvedPose) {
        let s = &mut self.state;
        if let Some((view, panes)) = options.view {
            (s.skinning.view, s.skinning.panes) = (view, panes);
        }
        if let Some(shading) = options.shading {
            s.skinning.shading = shading;
        }
        let pose = &options.pose;
        if pose.mode.is_some() {
            s.skinning.mode = resolved.mode;
        }
        if pose.beta.is_some() {
            s.skinning.uniform_beta = resolved.beta;
        }
        if pose.clip.is_some() || pose.time_s.is_some() {
            let duration = resolved
                .clip
                .and_then(|c| s.clips.get(c))
                .map_or(0.0, |c| c.1);
            s.playback.select(resolved.clip, duration);
            s.playback.time_s = resolved.time_s.clamp(0.0, duration);
            s.playback.playing = false;
        }
        if !(pose.twist.is_empty() && pose.bend.is_empty() && pose.roll.is_empty()) {
            s.joints.overrides = resolved.overrides.clone();
            s.joints.selected = s.joints.overrides.angles.keys().next().copied();
        }
    }

    /// Opens `path`, replacing the current model; on failure keeps it and shows the error.
    pub(super) fn open_path(&mut self, path: &Path) {
        let spec = path.to_string_lossy().into_owned();
        self.save_session();
        match LoadedModel::open(&self.gpu.ctx, &self.graphics.renderer, &spec)
            .with_context(|| format!("cannot open {}", path.display()))
        {
            Ok(model) => {
                self.inspector = Inspector::new(model.scene.clone());
                self.model = model;
                self.state.joints = Default::default();
                self.state.playback = Default::default();
                self.state.error = None;
                self.adopt_model();
                // The skinning method the file stores (FBX) is the mode it opens in.
                if let Some(mode) = crate::pose_request::file_mode(&self.model.scene) {
                    self.state.skinning.mode = mode;
                }
                if let Some((_, duration)) = self.state.clips.first() {
                    // Paused, unless its session was saved playing (restored below).
                    self.state.playback.select(Some(0), *duration);
                }
                self.state.follow.reset();
                self.state.inspect = Default::default();
                self.reset_hybrid_flags();
                self.restore_session(&spec);
            }
            Err(e) => self.state.error = Some(crate::report::error_message(&e)),
        }
    }

    /// Default DQS flags for the current model, clip and overrides (uploaded next frame).
    fn reset_hybrid_flags(&mut self) {
        self.state.hybrid.flags = self
            .inspector
            .default_flags(self.state.playback.clip, &self.state.joints.overrides);
        self.state.hybrid.revision += 1;
    }

    /// Points the UI state at the current model: facts, clips, trees, camera.
    fn adopt_model(&mut self) {
        self.state.facts = self.model.facts();
        self.state.clips = self.model.clips();
        self.state.trees = self.model.trees();
        self.state.cor = crate::ui::CorState::default();
        // The parameters stay the user's; the job's state is the new model's.
        self.state.ddm.job = crate::ui::CorState::default();
        self.state.ddm.pairs = None;
        self.state.dm.welded = None;
        self.state.dm.error = None;
        self.state.morphs = crate::ui::MorphsState::of_scene(&self.model.scene, &self.model.pose);
        self.state.camera = OrbitCamera {
            axes: crate::ui::ViewAxes::of(&self.model.scene.source_info),
            ..OrbitCamera::default()
        };
        self.state
            .camera
            .frame(self.model.bounds.0, self.model.bounds.1);
        // The first frame frames it again into the panes it lays out (labels left free).
        self.state.framed_bounds = Some(self.model.drawn_bounds());
        self.state.requests.frame_model = true;
        self.state.length_scale = Some(crate::analysis::LengthScale {
            diagonal: (self.model.bounds.1 - self.model.bounds.0).length(),
            unit_meters: self.model.scene.source_info.unit_meters,
        });
        self.gpu
            .window
            .set_title(&format!("dqview — {}", self.model.scene.source));
    }
}
