//! Every bind group layout of the skinning pipelines, made once per device.
//!
//! Groups of the render pipelines: 0 palette slot, 1 geometry (with the compute path's
//! skinned vertices), 2 frame uniforms, 3 material. Groups of `cs_skin`: 0 palette slot,
//! 1 geometry, 2 compute parameters and output. Delta Mush's surface passes: 0 palette slot,
//! 1 surface; its gather and scatter: 1 geometry, 2 output, 3 primitive.

use std::num::NonZeroU64;

use super::gpu_data::{
    GpuComputeParams, GpuDmParams, GpuDmPrimitiveParams, GpuDualQuat, GpuFrameUniforms,
    GpuGeometryParams, GpuJointLinear, GpuSkinParams,
};
use super::shaders::{MAX_UNIFORM_JOINTS, PaletteBinding};
use super::{GpuContext, material};

/// Bytes of the uniform dual quaternion window (`array<mat2x4<f32>, 2048>`).
pub(crate) const UNIFORM_DUAL_QUAT_BYTES: u64 =
    (MAX_UNIFORM_JOINTS * size_of::<GpuDualQuat>()) as u64;

/// How a shader sees a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, read>`.
    Read,
    /// `var<storage, read_write>`.
    ReadWrite,
}

/// A buffer at `binding` seen by `stages` with `access`, at least `min_size` bytes.
pub(crate) fn buffer_entry(
    binding: u32,
    stages: wgpu::ShaderStages,
    access: Access,
    min_size: u64,
) -> wgpu::BindGroupLayoutEntry {
    let ty = match access {
        Access::Uniform => wgpu::BufferBindingType::Uniform,
        Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
        Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
    };
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: stages,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(min_size),
        },
        count: None,
    }
}

/// A uniform buffer at `binding` seen by `stages`, at least `min_size` bytes.
pub(crate) fn uniform_buffer(
    binding: u32,
    stages: wgpu::ShaderStages,
    min_size: usize,
) -> wgpu::BindGroupLayoutEntry {
    buffer_entry(binding, stages, Access::Uniform, min_size as u64)
}

/// A bind group entry for the whole of `buffer`.
pub(crate) fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

/// The layouts every skinning pipeline and bind group is made with.
#[derive(Debug)]
pub struct GpuLayouts {
    /// Group 0 per [`PaletteBinding`] (uniform, storage).
    palette: [wgpu::BindGroupLayout; 2],
    /// Group 1 of the render pipelines: the geometry and the skinned vertices (read).
    pub(crate) geometry_draw: wgpu::BindGroupLayout,
    /// Group 1 of `cs_skin`: the geometry.
    pub(crate) geometry_compute: wgpu::BindGroupLayout,
    /// Group 2 of `cs_skin`: parameters and the skinned vertices (written).
    pub(crate) compute_output: wgpu::BindGroupLayout,
    /// Group 2 of the render pipelines: per-view frame uniforms.
    pub(crate) frame: wgpu::BindGroupLayout,
    /// Group 3 of the render pipelines: material uniforms, texture, sampler.
    pub(crate) material: wgpu::BindGroupLayout,
    /// Group 1 of Delta Mush's surface passes: parameters, static data, LBS, from, to, corrections.
    pub(crate) dm_surface: wgpu::BindGroupLayout,
    /// Group 3 of Delta Mush's gather and scatter: parameters, welded map, welded buffer.
    pub(crate) dm_primitive: wgpu::BindGroupLayout,
}

impl GpuLayouts {
    /// Creates every layout on `ctx`'s device.
    #[must_use]
    pub fn new(ctx: &GpuContext) -> Self {
        let device = &ctx.device;
        let layout = |label, entries: &[wgpu::BindGroupLayoutEntry]| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries,
            })
        };
        let skinning = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::COMPUTE;
        let palette = PaletteBinding::ALL.map(|binding| {
            let dual_quats = match binding {
                PaletteBinding::Uniform => {
                    buffer_entry(1, skinning, Access::Uniform, UNIFORM_DUAL_QUAT_BYTES)
                }
                PaletteBinding::Storage => {
                    buffer_entry(1, skinning, Access::Read, size_of::<GpuDualQuat>() as u64)
                }
            };
            layout(
                match binding {
                    PaletteBinding::Uniform => "dqview::GpuLayouts::palette_uniform",
                    PaletteBinding::Storage => "dqview::GpuLayouts::palette_storage",
                },
                &[
                    uniform_buffer(0, skinning, size_of::<GpuSkinParams>()),
                    dual_quats,
                    buffer_entry(
                        2,
                        skinning,
                        Access::Read,
                        size_of::<GpuJointLinear>() as u64,
                    ),
                ],
            )
        });
        let geometry = |stages| {
            vec![
                uniform_buffer(0, stages, size_of::<GpuGeometryParams>()),
                buffer_entry(1, stages, Access::Read, 4),
                buffer_entry(2, stages, Access::Read, 4),
                buffer_entry(3, stages, Access::Read, 4),
                buffer_entry(4, stages, Access::Read, 4),
                buffer_entry(5, stages, Access::Read, 16),
            ]
        };
        let mut draw_entries = geometry(wgpu::ShaderStages::VERTEX);
        draw_entries.push(buffer_entry(6, wgpu::ShaderStages::VERTEX, Access::Read, 4));
        let compute = wgpu::ShaderStages::COMPUTE;
        Self {
            palette,
            geometry_draw: layout("dqview::GpuLayouts::geometry_draw", &draw_entries),
            geometry_compute: layout("dqview::GpuLayouts::geometry_compute", &geometry(compute)),
            compute_output: layout(
                "dqview::GpuLayouts::compute_output",
                &[
                    uniform_buffer(0, compute, size_of::<GpuComputeParams>()),
                    buffer_entry(1, compute, Access::ReadWrite, 4),
                ],
            ),
            frame: layout(
                "dqview::GpuLayouts::frame",
                &[uniform_buffer(
                    0,
                    wgpu::ShaderStages::VERTEX_FRAGMENT,
                    size_of::<GpuFrameUniforms>(),
                )],
            ),
            material: material::material_layout(ctx),
            dm_surface: layout(
                "dqview::GpuLayouts::dm_surface",
                &[
                    uniform_buffer(0, compute, size_of::<GpuDmParams>()),
                    buffer_entry(1, compute, Access::Read, 4),
                    buffer_entry(2, compute, Access::Read, 16),
                    buffer_entry(3, compute, Access::Read, 16),
                    buffer_entry(4, compute, Access::ReadWrite, 16),
                    buffer_entry(5, compute, Access::ReadWrite, 16),
                ],
            ),
            dm_primitive: layout(
                "dqview::GpuLayouts::dm_primitive",
                &[
                    uniform_buffer(0, compute, size_of::<GpuDmPrimitiveParams>()),
                    buffer_entry(1, compute, Access::Read, 4),
                    buffer_entry(2, compute, Access::ReadWrite, 16),
                ],
            ),
        }
    }

    /// Group 0 of palette slots of kind `binding`.
    #[must_use]
    pub fn palette(&self, binding: PaletteBinding) -> &wgpu::BindGroupLayout {
        match binding {
            PaletteBinding::Uniform => &self.palette[0],
            PaletteBinding::Storage => &self.palette[1],
        }
    }
}
