//! Per-view frame uniforms (bind group 2): camera, lights, hybrid beta, debug view, wire colour.

use std::cell::Cell;

use glam::Vec4;

use super::gpu_data::GpuFrameUniforms;
use super::{GpuContext, RenderError, Renderer};

/// How far wire edges are pulled towards the eye, in clip w units, so they win the depth
/// test against their own faces.
pub const WIRE_DEPTH_PULL: f32 = 2e-4;

impl GpuFrameUniforms {
    /// These uniforms for wire edges in linear RGBA `color`, pulled towards the eye.
    #[must_use]
    pub fn with_wire(mut self, color: Vec4) -> Self {
        self.wire_color = color.to_array();
        self.extra[1] = WIRE_DEPTH_PULL;
        self
    }

    /// These uniforms for line lists whose vertex colours tint `color` (the ground grid).
    #[must_use]
    pub fn with_line_colors(mut self, color: Vec4) -> Self {
        self = self.with_wire(color);
        self.extra[3] = 1.0;
        self
    }
}

/// A frame uniform buffer and its bind group; written every frame, created once per view.
#[derive(Debug)]
pub struct FrameBinding {
    /// The uniform buffer (`GpuFrameUniforms`).
    pub buffer: wgpu::Buffer,
    /// Bind group 2 of the render pipelines.
    pub bind_group: wgpu::BindGroup,
    /// Whether the last uniforms written select a debug view (picks the pipeline variant).
    debug_view: Cell<bool>,
    /// Whether the last uniforms written turn DQS bulge compensation on (likewise).
    bulge: Cell<bool>,
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
                bulge: Cell::new(false),
            }
        })
    }

    /// Writes new uniforms into the existing buffer.
    pub fn write(&self, queue: &wgpu::Queue, uniforms: &GpuFrameUniforms) {
        // The region mask is drawn by the shaded pipelines: it needs no debug scalar, and the
        // camera probe draws it dozens of times.
        let view = uniforms.params[3];
        self.debug_view
            .set(view != 0.0 && view != super::DebugView::Region.id() as f32);
        self.bulge.set(uniforms.extra[0] > 0.0);
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(uniforms));
    }

    /// Whether the uniforms last written turn DQS bulge compensation on.
    #[must_use]
    pub fn bulge(&self) -> bool {
        self.bulge.get()
    }

    /// Whether the uniforms last written select a debug view rather than plain shading.
    #[must_use]
    pub fn debug_view(&self) -> bool {
        self.debug_view.get()
    }
}
