//! Stand-ins for `render::SceneGpu` and `render::FrameBinding` until they land on main.
// TODO(viewer): delete once main has SceneGpu; the call sites keep their shape.

use crate::anim::Pose;
use crate::render::{GpuContext, RenderError, RenderSettings, Renderer};
use crate::scene::Scene;
use crate::skin::SkinningMode;

/// Render settings for a window whose surface has `format`.
pub fn window_settings(_format: wgpu::TextureFormat, samples: u32) -> RenderSettings {
    RenderSettings {
        sample_count: samples,
        ..RenderSettings::default()
    }
}

/// Stand-in: draws nothing.
pub struct SceneGpu;

impl SceneGpu {
    /// Stand-in.
    pub fn new(
        _ctx: &GpuContext,
        _renderer: &Renderer,
        _scene: &Scene,
    ) -> Result<Self, RenderError> {
        Ok(Self)
    }

    /// Stand-in.
    pub fn update(&mut self, _ctx: &GpuContext, _scene: &Scene, _pose: &Pose) {}

    /// Stand-in.
    pub fn draw(
        &self,
        _pass: &mut wgpu::RenderPass<'_>,
        _renderer: &Renderer,
        _frame: &FrameBinding,
        _mode: SkinningMode,
    ) {
    }
}

/// Stand-in.
pub struct FrameBinding;

impl FrameBinding {
    /// Stand-in.
    pub fn new(_ctx: &GpuContext, _renderer: &Renderer) -> Result<Self, RenderError> {
        Ok(Self)
    }

    /// Stand-in.
    pub fn write(
        &self,
        _queue: &wgpu::Queue,
        _uniforms: &crate::render::gpu_data::GpuFrameUniforms,
    ) {
    }
}
