//! Offscreen rendering of a whole scene in one or more viewports (single, split).

use super::offscreen::{OffscreenTarget, RgbaImage};
use super::renderer::{Camera, Renderer};
use super::{FrameBinding, GpuContext, RenderError, SceneGpu, SkinRun, ViewParams};
use crate::skin::SkinningMode;

/// One viewport of an image: where, from which camera, and with which skinning.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Left edge in pixels.
    pub x: u32,
    /// Top edge in pixels.
    pub y: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Camera; its aspect should be width / height.
    pub camera: Camera,
    /// Skinning mode.
    pub mode: SkinningMode,
    /// Hybrid beta scale and debug view.
    pub params: ViewParams,
}

impl View {
    /// Splits a `width` x `height` image into `modes.len()` side-by-side views, framing `min..max` from `direction`.
    #[must_use]
    pub fn side_by_side(
        width: u32,
        height: u32,
        modes: &[SkinningMode],
        params: ViewParams,
        [min, max]: [glam::Vec3; 2],
        direction: glam::Vec3,
    ) -> Vec<Self> {
        Self::panes(width, height, modes, params, |aspect| {
            Camera::framing(min, max, direction, aspect)
        })
    }

    /// Splits a `width` x `height` image into `modes.len()` side-by-side views, each seen by
    /// `camera(aspect)` (aspect = pane width / height), so every pane shares one camera.
    #[must_use]
    pub fn panes(
        width: u32,
        height: u32,
        modes: &[SkinningMode],
        params: ViewParams,
        camera: impl Fn(f32) -> Camera,
    ) -> Vec<Self> {
        let n = modes.len().max(1) as u32;
        let pane = (width / n).max(1);
        modes
            .iter()
            .enumerate()
            .map(|(i, &mode)| {
                let x = pane * i as u32;
                // The last pane takes the rounding remainder.
                let w = if i as u32 + 1 == n {
                    width.saturating_sub(x).max(1)
                } else {
                    pane
                };
                Self {
                    x,
                    y: 0,
                    width: w,
                    height: height.max(1),
                    camera: camera(w as f32 / height.max(1) as f32),
                    mode,
                    params,
                }
            })
            .collect()
    }
}

impl Renderer {
    /// Renders `scene` once per view into one image of the renderer's size and reads it back.
    pub fn render_views(
        &self,
        ctx: &GpuContext,
        scene: &SceneGpu,
        views: &[View],
    ) -> Result<RgbaImage, RenderError> {
        let size = [self.settings.width, self.settings.height];
        self.render_views_sized(ctx, scene, views, size, self.settings.background)
    }

    /// Renders `scene` once per view into one image of `size` pixels cleared to `background`
    /// (linear RGBA) and reads it back: several rows of panes, or the small panes of a probe,
    /// in one pass.
    pub fn render_views_sized(
        &self,
        ctx: &GpuContext,
        scene: &SceneGpu,
        views: &[View],
        size: [u32; 2],
        background: [f64; 4],
    ) -> Result<RgbaImage, RenderError> {
        let target = OffscreenTarget::sized(ctx, self, size)?;
        let frames = views
            .iter()
            .map(|v| {
                let frame = FrameBinding::new(ctx, self)?;
                frame.write(&ctx.queue, &self.settings.to_gpu_view(&v.camera, &v.params));
                Ok(frame)
            })
            .collect::<Result<Vec<_>, RenderError>>()?;
        let (width, height) = (size[0].max(1), size[1].max(1));
        // Delta Mush panes draw what its compute passes wrote.
        let dm = scene.has_dm() && views.iter().any(|v| v.mode == SkinningMode::Dm);
        ctx.scoped("dqview::Renderer::render_views", || {
            let mut encoder = ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("dqview::Renderer::views_encoder"),
                });
            if dm {
                let run = SkinRun::new(SkinningMode::Dm, 1.0);
                scene.encode_skinning(ctx, &mut encoder, self, run, None)?;
            }
            {
                let mut pass = target.begin_pass(&mut encoder, background);
                for (view, frame) in views.iter().zip(&frames) {
                    let x = view.x.min(width - 1);
                    let y = view.y.min(height - 1);
                    let w = view.width.min(width - x).max(1);
                    let h = view.height.min(height - y).max(1);
                    pass.set_viewport(x as f32, y as f32, w as f32, h as f32, 0.0, 1.0);
                    scene.draw(&mut pass, self, frame, view.mode);
                }
            }
            ctx.queue.submit([encoder.finish()]);
            Ok::<(), RenderError>(())
        })??;
        target.read_rgba(ctx)
    }
}
