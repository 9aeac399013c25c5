//! The window's pipelines and per-pane uniforms, built from one device.
//!
//! Everything built on the device apart from the model's buffers lives here, so a lost
//! device or a shader edit rebuilds this one part (see `recovery.rs`).

use std::path::Path;

use anyhow::Result;
use glam::Vec4;

use super::surface::WindowGpu;
use crate::render::{
    BackdropRenderer, Camera, FrameBinding, GpuContext, RenderSettings, Renderer, ViewParams,
};
use crate::ui::MAX_PANES;

/// Edge colour of the wireframe toggle.
const WIRE_COLOR: Vec4 = Vec4::new(0.05, 0.05, 0.06, 0.55);
/// Edge colour of the overlay ghost.
const GHOST_COLOR: Vec4 = Vec4::new(0.2, 0.85, 1.0, 0.2);

/// One pane's uniforms: the mesh, its wireframe, the ghost and the grid.
pub struct PaneBindings {
    /// Frame uniforms of the mesh draws.
    pub mesh: FrameBinding,
    /// The same camera and skinning, wireframe colour.
    pub wire: FrameBinding,
    /// The same camera and skinning, ghost colour.
    pub ghost: FrameBinding,
    /// The same camera, for the ground grid's line list.
    pub grid: FrameBinding,
}

impl PaneBindings {
    /// Writes this frame's uniforms: `params` for the mesh, wire and ghost, seen by `camera`.
    pub fn write(
        &self,
        queue: &wgpu::Queue,
        renderer: &Renderer,
        camera: &Camera,
        params: &ViewParams,
    ) {
        let uniforms = renderer.settings().to_gpu_view(camera, params);
        self.mesh.write(queue, &uniforms);
        self.wire.write(queue, &uniforms.with_wire(WIRE_COLOR));
        self.ghost.write(queue, &uniforms.with_wire(GHOST_COLOR));
        self.grid
            .write(queue, &uniforms.with_line_colors(Vec4::ONE));
    }
}

/// The pipelines and per-pane uniforms of the window.
pub struct Graphics {
    /// The skinning pipelines (every mode, debug view and wire kind).
    pub renderer: Renderer,
    /// The 3D views' background fill (the window is cleared to the panel colour).
    pub backdrop: BackdropRenderer,
    /// Per split pane.
    pub panes: [PaneBindings; MAX_PANES],
}

impl Graphics {
    /// The graphics of a new window: with the shaders of `shader_dir` when given; if those
    /// fail, the built-in ones and the reason (shown in the window; the folder is watched on).
    pub fn start(gpu: &WindowGpu, shader_dir: Option<&Path>) -> Result<(Self, Option<String>)> {
        let (ctx, format, samples) = (&gpu.ctx, gpu.config.format, gpu.samples);
        let Some(dir) = shader_dir else {
            return Ok((Self::new(ctx, format, samples)?, None));
        };
        crate::render::set_shader_dir(Some(dir.to_path_buf()));
        match Self::new(ctx, format, samples) {
            Ok(g) => Ok((g, None)),
            Err(e) => {
                crate::render::set_shader_dir(None);
                let built_in = Self::new(ctx, format, samples);
                crate::render::set_shader_dir(Some(dir.to_path_buf()));
                let message = format!(
                    "Shader error in {}, drawing with the built-in shaders:\n{}",
                    dir.display(),
                    crate::report::error_message(&e)
                );
                Ok((built_in?, Some(message)))
            }
        }
    }

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
        let background = renderer.settings().background.map(|c| c as f32);
        let backdrop = BackdropRenderer::new(ctx, format, samples, background)?;
        let pane = || -> Result<PaneBindings> {
            Ok(PaneBindings {
                mesh: FrameBinding::new(ctx, &renderer)?,
                wire: FrameBinding::new(ctx, &renderer)?,
                ghost: FrameBinding::new(ctx, &renderer)?,
                grid: FrameBinding::new(ctx, &renderer)?,
            })
        };
        let panes = [
            pane()?,
            pane()?,
            pane()?,
            pane()?,
            pane()?,
            pane()?,
            pane()?,
        ];
        Ok(Self {
            renderer,
            backdrop,
            panes,
        })
    }
}
