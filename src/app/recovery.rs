//! GPU faults in a running viewer: device loss, edited shaders, uncaptured errors.
//!
//! Everything built on the device lives in [`Graphics`] (plus the model's buffers), so a
//! lost device or a shader edit rebuilds those pieces and the window, UI state and CPU
//! scene carry on untouched. A rebuild that fails leaves the previous objects in place.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};

use super::model::LoadedModel;
use super::surface::WindowGpu;
use super::timing::GpuTimer;
use super::viewer::Running;
use crate::render::{
    BackdropRenderer, FrameBinding, GpuContext, OverlayRenderer, OverlayView, RenderSettings,
    Renderer,
};
use crate::ui::MAX_PANES;

/// The pipelines and per-view uniforms of the window, built from one device.
pub(super) struct Graphics {
    /// Mesh pipelines (all modes and debug views).
    pub renderer: Renderer,
    /// Grid, wireframe and ghost pipelines.
    pub overlay: OverlayRenderer,
    /// The 3D views' background fill (the window is cleared to the panel colour).
    pub backdrop: BackdropRenderer,
    /// Per view (split panes): frame uniforms of the mesh pipelines.
    pub frame_bindings: [FrameBinding; MAX_PANES],
    /// Per view: uniforms of the grid, the wireframe and the ghost.
    pub overlay_views: [[OverlayView; 3]; MAX_PANES],
}

impl Graphics {
    /// Builds every pipeline for the surface `format` with `samples` MSAA samples.
    pub fn new(ctx: &GpuContext, format: wgpu::TextureFormat, samples: u32) -> Result<Self> {
        let renderer = Renderer::new(
            ctx,
            RenderSettings {
                color_format: format,
                sample_count: samples,
                ..RenderSettings::default()
            },
        )?;
        let overlay = OverlayRenderer::new(ctx, &renderer, format)?;
        let background = renderer.settings().background.map(|c| c as f32);
        let backdrop = BackdropRenderer::new(ctx, format, samples, background)?;
        let frame_bindings = [
            FrameBinding::new(ctx, &renderer)?,
            FrameBinding::new(ctx, &renderer)?,
            FrameBinding::new(ctx, &renderer)?,
            FrameBinding::new(ctx, &renderer)?,
        ];
        let overlay_views = [(); MAX_PANES].map(|()| [0, 1, 2].map(|_| overlay.view(ctx)));
        Ok(Self {
            renderer,
            overlay,
            backdrop,
            frame_bindings,
            overlay_views,
        })
    }
}

/// Watches a folder of edited shaders; says when any `.wgsl` file in it changed.
pub(super) struct ShaderWatch {
    dir: PathBuf,
    stamp: Vec<(PathBuf, Option<SystemTime>)>,
    next_check: Instant,
}

/// How often the shader folder is looked at.
const WATCH_INTERVAL: Duration = Duration::from_millis(500);

impl ShaderWatch {
    /// Starts watching `dir` (its current files count as seen).
    pub fn new(dir: PathBuf) -> Self {
        let stamp = wgsl_stamps(&dir);
        Self {
            dir,
            stamp,
            next_check: Instant::now() + WATCH_INTERVAL,
        }
    }

    /// Whether a shader file was added, removed or modified since the last call that said so.
    pub fn changed(&mut self) -> bool {
        let now = Instant::now();
        if now < self.next_check {
            return false;
        }
        self.next_check = now + WATCH_INTERVAL;
        let stamp = wgsl_stamps(&self.dir);
        if stamp == self.stamp {
            return false;
        }
        self.stamp = stamp;
        true
    }
}

/// The `.wgsl` files of `dir` with their modification times, sorted by path.
fn wgsl_stamps(dir: &std::path::Path) -> Vec<(PathBuf, Option<SystemTime>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut stamps: Vec<_> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wgsl"))
        .map(|p| {
            let modified = std::fs::metadata(&p).and_then(|m| m.modified()).ok();
            (p, modified)
        })
        .collect();
    stamps.sort();
    stamps
}

impl Running {
    /// Acts on what the GPU reported since the last frame: a lost device, an uncaptured error,
    /// an edited shader. Runs at the start of every frame.
    pub(super) fn handle_gpu_faults(&mut self) {
        if let Some(reason) = self.gpu.faults.take_lost() {
            let reason = reason.trim_end_matches([':', ' ']).to_string();
            self.state.error = Some(match self.recover_device() {
                Ok(()) => format!(
                    "The GPU device was lost ({reason}); dqview made a new one and uploaded the model again."
                ),
                Err(e) => format!(
                    "The GPU device was lost ({reason}) and could not be recreated: {}",
                    crate::report::error_message(&e)
                ),
            });
            return;
        }
        if let Some(error) = self.gpu.faults.take_uncaptured() {
            self.state.error = Some(format!("GPU error: {error}"));
        }
        if self.shader_watch.as_mut().is_some_and(ShaderWatch::changed) {
            self.state.error = match self.rebuild_graphics() {
                Ok(()) => None,
                Err(e) => Some(format!(
                    "Shader error, still drawing with the previous shaders:\n{}",
                    crate::report::error_message(&e)
                )),
            };
        }
    }

    /// Rebuilds the pipelines (reading shader files anew) and re-uploads the model on the same
    /// device; on failure nothing changes.
    pub(super) fn rebuild_graphics(&mut self) -> Result<()> {
        let ctx = &self.gpu.ctx;
        let graphics = Graphics::new(ctx, self.gpu.config.format, self.gpu.samples)?;
        let model = LoadedModel::from_scene(ctx, &graphics.renderer, self.model.scene.clone())?;
        self.install(graphics, model);
        Ok(())
    }

    /// Makes a new device, surface and pipelines after a device loss and uploads the model again.
    pub(super) fn recover_device(&mut self) -> Result<()> {
        let gpu = WindowGpu::new(
            self.display.clone(),
            self.window.clone(),
            Some(self.gpu.samples),
        )
        .context("cannot create a new GPU device")?;
        let graphics = Graphics::new(&gpu.ctx, gpu.config.format, gpu.samples)?;
        let model =
            LoadedModel::from_scene(&gpu.ctx, &graphics.renderer, self.model.scene.clone())?;
        self.egui_renderer = gpu.egui_renderer();
        // A fresh egui context sends its font atlas again, to the new renderer.
        self.egui_ctx = gpu.egui_context();
        self.egui_state = egui_winit::State::new(
            self.egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &self.window,
            Some(self.window.scale_factor() as f32),
            self.window.theme(),
            Some(gpu.ctx.device.limits().max_texture_dimension_2d as usize),
        );
        self.timer = GpuTimer::new(&gpu.ctx.device, &gpu.ctx.queue);
        self.gpu = gpu;
        self.install(graphics, model);
        Ok(())
    }

    /// Puts freshly built pipelines and model buffers in place, keeping the pose being shown.
    fn install(&mut self, graphics: Graphics, mut model: LoadedModel) {
        model.pose = std::mem::replace(&mut self.model.pose, model.pose.clone());
        self.renderer = graphics.renderer;
        self.overlay = graphics.overlay;
        self.backdrop = graphics.backdrop;
        self.frame_bindings = graphics.frame_bindings;
        self.overlay_views = graphics.overlay_views;
        self.model = model;
        // Both hold buffers of the old pipelines or device; they are rebuilt on the next frame.
        self.crowd.clear();
        self.bulge.clear();
        // The new buffers start from the file's betas: put the panel's hybrid flags back.
        self.model
            .gpu
            .set_betas(&self.gpu.ctx, &self.inspector.betas);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shader_watch_sees_edits_new_files_and_removals() {
        let dir = std::env::temp_dir().join(format!("dqview-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("skin.wgsl");
        std::fs::write(&file, "// one").unwrap();
        std::fs::write(dir.join("notes.txt"), "not a shader").unwrap();
        let mut watch = ShaderWatch::new(dir.clone());
        watch.next_check = Instant::now();
        assert!(!watch.changed(), "nothing changed yet");
        // A later modification time (set explicitly: file systems may round to seconds).
        let later = SystemTime::now() + Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(later)
            .unwrap();
        watch.next_check = Instant::now();
        assert!(watch.changed(), "modified file");
        watch.next_check = Instant::now();
        assert!(!watch.changed(), "reported once");
        std::fs::write(dir.join("dq.wgsl"), "// new").unwrap();
        watch.next_check = Instant::now();
        assert!(watch.changed(), "new file");
        std::fs::remove_file(dir.join("dq.wgsl")).unwrap();
        watch.next_check = Instant::now();
        assert!(watch.changed(), "removed file");
        std::fs::write(dir.join("notes.txt"), "edited").unwrap();
        watch.next_check = Instant::now();
        assert!(!watch.changed(), "non-shader files are ignored");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
