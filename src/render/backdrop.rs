//! A flat background fill for one viewport rectangle of the scene pass.
//!
//! The viewer clears its window to the UI panel colour and fills each 3D view with the
//! scene background here. egui then draws no panel backgrounds: on a software rasterizer its
//! fragment shader over ~40% of the window cost more than the whole 3D pass.

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use super::layout::uniform_buffer;
use super::shaders::{BACKDROP_WGSL, shader_text};
use super::{DEPTH_FORMAT, GpuContext, RenderError};

/// The fill colour. Keep in sync with `Backdrop` in `shaders/backdrop.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuBackdrop {
    /// Linear RGBA.
    pub color: [f32; 4],
}

/// A pipeline that paints the current viewport one flat colour, behind everything.
#[derive(Debug)]
pub struct BackdropRenderer {
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
}

impl BackdropRenderer {
    /// Builds the fill for `color_format` and `samples`, painting linear RGBA `color`.
    pub fn new(
        ctx: &GpuContext,
        color_format: wgpu::TextureFormat,
        samples: u32,
        color: [f32; 4],
    ) -> Result<Self, RenderError> {
        ctx.scoped("dqview::BackdropRenderer::new", || {
            let device = &ctx.device;
            let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("dqview::BackdropRenderer::layout"),
                entries: &[uniform_buffer(
                    0,
                    wgpu::ShaderStages::FRAGMENT,
                    size_of::<GpuBackdrop>(),
                )],
            });
            let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("dqview::BackdropRenderer::color"),
                contents: bytemuck::bytes_of(&GpuBackdrop { color }),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("dqview::BackdropRenderer::bind_group"),
                layout: &layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: buffer.as_entire_binding(),
                }],
            });
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("dqview::BackdropRenderer::pipeline_layout"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("dqview::BackdropRenderer::shader"),
                source: wgpu::ShaderSource::Wgsl(shader_text("backdrop.wgsl", BACKDROP_WGSL)),
            });
            let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("dqview::BackdropRenderer::pipeline"),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_backdrop"),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState::default(),
                // Behind everything: no depth write, so the cleared depth stays for the meshes.
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(false),
                    depth_compare: Some(wgpu::CompareFunction::Always),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: samples,
                    mask: !0,
                    alpha_to_coverage_enabled: false,
                },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_backdrop"),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: color_format,
                        blend: None,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            });
            Self {
                pipeline,
                bind_group,
            }
        })
    }

    /// Fills the pass's current viewport (within its scissor rectangle).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.draw(0..3, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backdrop_shader_validates_with_naga() {
        let module = crate::render::shaders::validate_wgsl("backdrop.wgsl", BACKDROP_WGSL);
        let mut entry: Vec<_> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        entry.sort_unstable();
        assert_eq!(entry, ["fs_backdrop", "vs_backdrop"]);
        assert_eq!(size_of::<GpuBackdrop>(), 16);
    }
}
