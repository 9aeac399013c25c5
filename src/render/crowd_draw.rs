//! The plain (unskinned) draw of vertices the compute pass has already skinned.

use super::gpu_data::{GpuDrawVertex, GpuMeshVertex};
use super::pipelines::{COLOR_ATTRIBUTES, COLOR_STRIDE};
use super::renderer::RenderSettings;
use super::shaders::draw_skinned_source;
use super::{GpuContext, RenderError, Renderer};

/// Vertex buffer 0: `GpuDrawVertex`. Keep in sync with `SkinnedIn` in `shaders/draw_skinned.wgsl`.
const SKINNED_ATTRIBUTES: [wgpu::VertexAttribute; 2] = [
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x3,
        offset: 0,
        shader_location: 0,
    },
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x3,
        offset: 16,
        shader_location: 1,
    },
];

/// Vertex buffer 1: the uv of `GpuMeshVertex` (the bind-pose buffer the vertex path draws from).
const UV_ATTRIBUTES: [wgpu::VertexAttribute; 1] = [wgpu::VertexAttribute {
    format: wgpu::VertexFormat::Float32x2,
    offset: std::mem::offset_of!(GpuMeshVertex, uv) as u64,
    shader_location: 6,
}];

/// `vs_main_skinned` + `fs_main` on the renderer's frame (group 1) and material (group 2) layouts.
///
/// Group 0 (the palette) is left empty: these vertices are skinned already.
/// Vertex buffers: 0 the skinned vertices, 1 the bind-pose `GpuMeshVertex` (uv), 2 `GpuMesh::colors`.
#[derive(Debug)]
pub struct SkinnedDrawPipeline {
    /// The pipeline for opaque and alpha-masked materials.
    pub pipeline: wgpu::RenderPipeline,
    /// The pipeline for alpha-blended materials (blending, no depth writes).
    pub blend_pipeline: wgpu::RenderPipeline,
}

impl SkinnedDrawPipeline {
    /// The pipeline for a material that blends (`blend`) or not.
    #[must_use]
    pub fn for_material(&self, blend: bool) -> &wgpu::RenderPipeline {
        if blend {
            &self.blend_pipeline
        } else {
            &self.pipeline
        }
    }
}

impl SkinnedDrawPipeline {
    /// Builds the pipeline for `renderer`'s target format and sample count.
    pub fn new(ctx: &GpuContext, renderer: &Renderer) -> Result<Self, RenderError> {
        ctx.scoped("dqview::SkinnedDrawPipeline::new", || {
            let layout = ctx
                .device
                .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("dqview::SkinnedDrawPipeline::layout"),
                    bind_group_layouts: &[
                        None,
                        Some(renderer.frame_layout()),
                        Some(renderer.material_layout()),
                    ],
                    immediate_size: 0,
                });
            let module = ctx
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("dqview::SkinnedDrawPipeline::shader"),
                    source: wgpu::ShaderSource::Wgsl(draw_skinned_source().into()),
                });
            let settings = renderer.settings();
            let pipeline = |blend: bool, label: &'static str| {
                ctx.device
                    .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                        label: Some(label),
                        layout: Some(&layout),
                        vertex: wgpu::VertexState {
                            module: &module,
                            entry_point: Some("vs_main_skinned"),
                            compilation_options: wgpu::PipelineCompilationOptions::default(),
                            buffers: &[
                                Some(wgpu::VertexBufferLayout {
                                    array_stride: size_of::<GpuDrawVertex>() as u64,
                                    step_mode: wgpu::VertexStepMode::Vertex,
                                    attributes: &SKINNED_ATTRIBUTES,
                                }),
                                Some(wgpu::VertexBufferLayout {
                                    array_stride: size_of::<GpuMeshVertex>() as u64,
                                    step_mode: wgpu::VertexStepMode::Vertex,
                                    attributes: &UV_ATTRIBUTES,
                                }),
                                Some(wgpu::VertexBufferLayout {
                                    array_stride: COLOR_STRIDE,
                                    step_mode: wgpu::VertexStepMode::Vertex,
                                    attributes: &COLOR_ATTRIBUTES,
                                }),
                            ],
                        },
                        primitive: RenderSettings::mesh_primitive(),
                        depth_stencil: Some(RenderSettings::depth_for(blend)),
                        multisample: settings.multisample(),
                        fragment: Some(wgpu::FragmentState {
                            module: &module,
                            entry_point: Some("fs_main"),
                            compilation_options: wgpu::PipelineCompilationOptions::default(),
                            targets: &[Some(settings.target_for(blend))],
                        }),
                        multiview_mask: None,
                        cache: None,
                    })
            };
            Self {
                pipeline: pipeline(false, "dqview::SkinnedDrawPipeline::rp_skinned"),
                blend_pipeline: pipeline(true, "dqview::SkinnedDrawPipeline::rp_skinned_blend"),
            }
        })
    }
}
