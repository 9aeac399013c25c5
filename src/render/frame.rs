//! Per-view frame uniforms (bind group 1): camera, lights, hybrid beta.

use std::cell::Cell;

use super::gpu_data::GpuFrameUniforms;
use super::{GpuContext, RenderError, Renderer};

/// A frame uniform buffer and its bind group; written every frame, created once per view.
#[derive(Debug)]
pub struct FrameBinding {
    /// The uniform buffer (`GpuFrameUniforms`).
    pub buffer: wgpu::Buffer,
    /// Bind group 1 of the render pipelines.
    pub bind_group: wgpu::BindGroup,
    /// Whether the last uniforms written select a debug view (picks the pipeline variant).
    debug_view: Cell<bool>,
}

impl FrameBinding {
    /// Creates the buffer and bind group for `renderer`'s frame layout.
    pub fn new(ctx: &GpuContext, renderer: &Renderer) -> Result<Self, RenderError> {
        ctx.scoped("dqview::FrameBinding::new", || {
            let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("dqview::FrameBinding::uniforms"),
                size: size_of::<GpuFrameUniforms>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("dqview::FrameBinding::bind_group"),
                layout: renderer.frame_layout(),
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: buffer.as_entire_binding(),
                }],
            });
            Self {
                buffer,
                bind_group,
                debug_view: Cell::new(false),
            }
        })
    }

    /// Writes new uniforms into the existing buffer.
    pub fn write(&self, queue: &wgpu::Queue, uniforms: &GpuFrameUniforms) {
        self.debug_view.set(uniforms.params[3] != 0.0);
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(uniforms));
    }

    /// Whether the uniforms last written select a debug view rather than plain shading.
    #[must_use]
    pub fn debug_view(&self) -> bool {
        self.debug_view.get()
    }
}
