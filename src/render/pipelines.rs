//! The vertex-skinning render pipelines of one palette kind, built on first use.
//!
//! Four modes x opaque or blended x shaded or with the debug views make 16 pipelines per
//! palette kind. A software rasterizer spends ~45 ms compiling each, so only the opaque
//! shaded ones of the uniform palette are built up front; the rest wait for a draw.

use std::sync::OnceLock;

use super::GpuContext;
use super::gpu_data::{GpuMeshVertex, GpuVertexJoints};
use super::palette::PaletteLayout;
use super::renderer::RenderSettings;
use super::shaders::{PaletteBinding, render_source, vertex_entry_point};
use crate::skin::SkinningMode;

/// Vertex buffer 0: `GpuMeshVertex`. Keep in sync with `VertexIn` in `shaders/skin_render.wgsl`.
const MESH_ATTRIBUTES: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 6 => Float32x2];
/// Vertex buffer 2: one hybrid beta per vertex (`f32`).
const BETA_ATTRIBUTES: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![7 => Float32];
/// Vertex buffer 3: one linear RGBA colour per vertex (`Unorm16x4`, see `GpuMesh::colors`).
pub(super) const COLOR_ATTRIBUTES: [wgpu::VertexAttribute; 1] =
    wgpu::vertex_attr_array![9 => Unorm16x4];
/// Bytes per vertex of [`COLOR_ATTRIBUTES`].
pub(super) const COLOR_STRIDE: u64 = size_of::<[u16; 4]>() as u64;
/// Vertex buffer 4 (CoR pipeline only): one center of rotation per vertex (`[f32; 3]`).
///
/// Keep in sync with `vs_main_cor` in `shaders/cor_render.wgsl`.
const COR_ATTRIBUTES: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![8 => Float32x3];
/// Vertex buffer 1: `GpuVertexJoints`.
const JOINT_ATTRIBUTES: [wgpu::VertexAttribute; 4] =
    wgpu::vertex_attr_array![2 => Uint16x4, 3 => Uint16x4, 4 => Float32x4, 5 => Float32x4];

/// Which pipeline of a palette kind: skinning mode, colour target and debug views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PipelineKey {
    /// The skinning mode (vertex entry point).
    pub mode: SkinningMode,
    /// Alpha blending without depth writes (`AlphaMode::Blend` materials).
    pub blend: bool,
    /// The debug views compiled in (`DEBUG_VIEWS` in `shaders/skin_render.wgsl`).
    pub debug: bool,
}

impl PipelineKey {
    /// Number of distinct keys.
    const COUNT: usize = 16;

    /// The key's slot in `0..COUNT`.
    fn index(self) -> usize {
        let mode = match self.mode {
            SkinningMode::Lbs => 0,
            SkinningMode::Dqs => 1,
            SkinningMode::Hybrid => 2,
            SkinningMode::Cor => 3,
        };
        mode * 4 + usize::from(self.blend) * 2 + usize::from(self.debug)
    }

    /// The wgpu label of the pipeline.
    fn label(self) -> String {
        let blend = if self.blend { "_blend" } else { "" };
        let debug = if self.debug { "_debug" } else { "" };
        format!("dqview::Renderer::rp_{}{blend}{debug}", self.mode.name())
    }
}

/// One palette kind's pipelines on one explicit layout (so bind groups are shared), built lazily.
#[derive(Debug)]
pub(super) struct RenderVariant {
    /// Group 0 layout of this palette kind.
    pub palette_layout: PaletteLayout,
    device: wgpu::Device,
    layout: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
    settings: RenderSettings,
    /// Per [`PipelineKey::index`]: the pipeline, or `None` when building it failed.
    slots: [OnceLock<Option<wgpu::RenderPipeline>>; PipelineKey::COUNT],
}

impl RenderVariant {
    /// Creates the layout and shader module (validating the WGSL) of `binding`; no pipelines yet.
    pub fn new(
        ctx: &GpuContext,
        [frame_layout, material_layout]: [&wgpu::BindGroupLayout; 2],
        settings: &RenderSettings,
        binding: PaletteBinding,
    ) -> Self {
        let palette_layout = PaletteLayout::new(ctx, binding);
        let layout = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("dqview::Renderer::pipeline_layout"),
                bind_group_layouts: &[
                    Some(&palette_layout.layout),
                    Some(frame_layout),
                    Some(material_layout),
                ],
                immediate_size: 0,
            });
        let module = ctx
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("dqview::Renderer::shader"),
                source: wgpu::ShaderSource::Wgsl(render_source(binding).into()),
            });
        Self {
            palette_layout,
            device: ctx.device.clone(),
            layout,
            module,
            settings: *settings,
            slots: Default::default(),
        }
    }

    /// Builds the pipeline of `key` now (errors surface in the caller's error scope).
    pub fn prebuild(&self, key: PipelineKey) {
        let _ = self.slots[key.index()].set(Some(self.build(key)));
    }

    /// The pipeline of `key`, built on first use; `None` (logged) when the device refused it.
    pub fn get(&self, key: PipelineKey) -> Option<&wgpu::RenderPipeline> {
        self.slots[key.index()]
            .get_or_init(|| {
                let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
                let pipeline = self.build(key);
                match pollster::block_on(scope.pop()) {
                    None => Some(pipeline),
                    Some(e) => {
                        log::error!("cannot build {}: {e}", key.label());
                        None
                    }
                }
            })
            .as_ref()
    }

    /// Creates the pipeline of `key`.
    fn build(&self, key: PipelineKey) -> wgpu::RenderPipeline {
        let buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<GpuMeshVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &MESH_ATTRIBUTES,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<GpuVertexJoints>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &JOINT_ATTRIBUTES,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<f32>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &BETA_ATTRIBUTES,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: COLOR_STRIDE,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &COLOR_ATTRIBUTES,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<[f32; 3]>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &COR_ATTRIBUTES,
            }),
        ];
        // `DEBUG_VIEWS` in shaders/skin_render.wgsl: compiled out of the shaded pipelines.
        let constants = [("DEBUG_VIEWS", f64::from(u8::from(key.debug)))];
        let options = wgpu::PipelineCompilationOptions {
            constants: &constants,
            ..wgpu::PipelineCompilationOptions::default()
        };
        let label = key.label();
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(&label),
                layout: Some(&self.layout),
                vertex: wgpu::VertexState {
                    module: &self.module,
                    entry_point: Some(vertex_entry_point(key.mode)),
                    compilation_options: options.clone(),
                    // Only the CoR pipeline reads the centers (buffer 4).
                    buffers: if key.mode == SkinningMode::Cor {
                        &buffers[..]
                    } else {
                        &buffers[..4]
                    },
                },
                primitive: RenderSettings::mesh_primitive(),
                depth_stencil: Some(RenderSettings::depth_for(key.blend)),
                multisample: self.settings.multisample(),
                fragment: Some(wgpu::FragmentState {
                    module: &self.module,
                    entry_point: Some("fs_main"),
                    compilation_options: options,
                    targets: &[Some(self.settings.target_for(key.blend))],
                }),
                multiview_mask: None,
                cache: None,
            })
    }
}
