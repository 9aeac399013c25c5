//! GPU faults in a running viewer: device loss, edited shaders, uncaptured errors.
//!
//! Everything built on the device lives in [`Graphics`] and the model's buffers, so a
//! lost device or a shader edit rebuilds those pieces and the window, UI state and CPU
//! scene carry on untouched. A rebuild that fails leaves the previous objects in place.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};

use super::ViewerOptions;
use super::egui_layer::EguiLayer;
use super::graphics::Graphics;
use super::model::LoadedModel;
use super::surface::WindowGpu;
use super::timing::FrameStats;
use super::viewer::Running;

/// What can make the viewer rebuild its graphics besides a device loss.
pub(super) struct FaultHooks {
    /// The edited-shader folder being watched (`--shader-dir`).
    pub shader_watch: Option<ShaderWatch>,
    /// Test hook: destroy the device after this many frames, to exercise recovery.
    pub lose_device_at_frame: Option<u64>,
}

impl FaultHooks {
    /// The hooks `options` ask for.
    pub fn new(options: &ViewerOptions) -> Self {
        Self {
            shader_watch: options.shader_dir.clone().map(ShaderWatch::new),
            lose_device_at_frame: options.lose_device_at_frame,
        }
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

    /// When the folder is next looked at.
    #[must_use]
    pub fn next_check(&self) -> Instant {
        self.next_check
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
        let watch = self.faults.shader_watch.as_mut();
        if watch.is_some_and(ShaderWatch::changed) {
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
        self.gpu.targets.scene.forget();
        Ok(())
    }

    /// Makes a new device, surface and pipelines after a device loss and uploads the model again.
    pub(super) fn recover_device(&mut self) -> Result<()> {
        let gpu = WindowGpu::new(
            self.gpu.display.clone(),
            self.gpu.window.clone(),
            Some(self.gpu.samples),
        )
        .context("cannot create a new GPU device")?;
        let graphics = Graphics::new(&gpu.ctx, gpu.config.format, gpu.samples)?;
        let model =
            LoadedModel::from_scene(&gpu.ctx, &graphics.renderer, self.model.scene.clone())?;
        self.egui = EguiLayer::new(&gpu);
        let frames = self.stats.frames;
        self.stats = FrameStats::new(&gpu.ctx.device, &gpu.ctx.queue);
        self.stats.frames = frames;
        self.gpu = gpu;
        self.install(graphics, model);
        Ok(())
    }

    /// Puts freshly built pipelines and model buffers in place, keeping the pose being shown
    /// (the crowd is resized to the slider and the betas uploaded on the next frame).
    fn install(&mut self, graphics: Graphics, mut model: LoadedModel) {
        model.pose = std::mem::replace(&mut self.model.pose, model.pose.clone());
        model.cor = std::mem::take(&mut self.model.cor);
        model.ddm = std::mem::take(&mut self.model.ddm);
        self.graphics = graphics;
        self.model = model;
        // The new buffers start from the file's betas and no centers: put the panel's back.
        let ctx = &self.gpu.ctx;
        let renderer = &self.graphics.renderer;
        self.model
            .gpu
            .set_betas(ctx, renderer, &self.inspector.betas);
        if let Some(centers) = self.model.cor.centers() {
            self.model.gpu.set_cor_centers(ctx, renderer, centers);
        }
        if let Some(ddm) = self.model.ddm.ddm()
            && let Err(e) = self.model.gpu.set_ddm(ctx, renderer, ddm)
        {
            log::warn!("DDM matrices not restored: {e}");
        }
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
