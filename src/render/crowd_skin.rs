//! The compute pass that skins a primitive into a vertex buffer, once per crowd instance.

use wgpu::util::DeviceExt;

use super::gpu_data::{
    GpuComputeParams, GpuCrowdBindVertex, GpuCrowdInfluences, GpuDrawVertex, gpu_mode,
};
use super::layout::{Access, compute_buffer};
use super::shaders::{PaletteBinding, crowd_compute_source};
use super::{GpuContext, RenderError, Renderer};
use crate::skin::{SkinMesh, SkinningMode};

/// Invocations per workgroup. Keep in sync with `@workgroup_size` of `cs_skin_draw`.
const WORKGROUP_SIZE: u32 = 64;

/// The `cs_skin_draw` pipeline: storage palettes (group 0, the renderer's layout), mesh group 1.
#[derive(Debug)]
pub struct CrowdSkinner {
    mesh_layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

impl CrowdSkinner {
    /// Builds the pipeline on `renderer`'s storage palette layout, so crowd palettes bind to both paths.
    pub fn new(ctx: &GpuContext, renderer: &Renderer) -> Result<Self, RenderError> {
        ctx.scoped("dqview::CrowdSkinner::new", || {
            let mesh_layout =
                ctx.device
                    .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: Some("dqview::CrowdSkinner::mesh_layout"),
                        entries: &[
                            compute_buffer(0, Access::Uniform, size_of::<GpuComputeParams>()),
                            compute_buffer(1, Access::Read, size_of::<GpuCrowdBindVertex>()),
                            compute_buffer(2, Access::Read, size_of::<GpuCrowdInfluences>()),
                            compute_buffer(3, Access::ReadWrite, size_of::<GpuDrawVertex>()),
                        ],
                    });
            let palette_layout = renderer.palette_layout(PaletteBinding::Storage);
            let layout = ctx
                .device
                .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("dqview::CrowdSkinner::pipeline_layout"),
                    bind_group_layouts: &[Some(&palette_layout.layout), Some(&mesh_layout)],
                    immediate_size: 0,
                });
            let module = ctx
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("dqview::CrowdSkinner::shader"),
                    source: wgpu::ShaderSource::Wgsl(
                        crowd_compute_source(PaletteBinding::Storage).into(),
                    ),
                });
            let pipeline = ctx
                .device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some("dqview::CrowdSkinner::cs_skin_draw"),
                    layout: Some(&layout),
                    module: &module,
                    entry_point: Some("cs_skin_draw"),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    cache: None,
                });
            Self {
                mesh_layout,
                pipeline,
            }
        })
    }

    /// The pipeline, to set once per compute pass.
    #[must_use]
    pub fn pipeline(&self) -> &wgpu::ComputePipeline {
        &self.pipeline
    }
}

/// One primitive's compute inputs and, per instance, the vertex buffer it is skinned into.
#[derive(Debug)]
pub struct ComputeTargets {
    vertex_count: u32,
    groups: (u32, u32),
    /// `GpuComputeParams` per [`CROWD_MODES`] entry.
    params: [wgpu::Buffer; 3],
    /// Skinned vertices of each instance (`GpuDrawVertex`; storage and vertex buffer).
    pub outputs: Vec<wgpu::Buffer>,
    /// Group 1 per mode (as [`CROWD_MODES`]) per instance.
    bind_groups: [Vec<wgpu::BindGroup>; 3],
}

/// The modes the crowd's compute pass has parameters for.
const CROWD_MODES: [SkinningMode; 3] = [SkinningMode::Lbs, SkinningMode::Dqs, SkinningMode::Hybrid];

/// Index of `mode` in [`CROWD_MODES`]. CoR needs per-vertex centers the crowd does not
/// carry, so a CoR crowd is skinned with DQS (the rotation blend CoR shares); the panel says so.
fn mode_index(mode: SkinningMode) -> usize {
    match mode {
        SkinningMode::Lbs => 0,
        SkinningMode::Dqs | SkinningMode::Cor => 1,
        SkinningMode::Hybrid => 2,
    }
}

impl ComputeTargets {
    /// Uploads `mesh`'s bind pose and influences and makes `instances` output buffers.
    pub fn new(
        ctx: &GpuContext,
        skinner: &CrowdSkinner,
        mesh: &SkinMesh<'_>,
        instances: usize,
    ) -> Result<Self, RenderError> {
        let n = mesh.positions.len();
        let limits = ctx.device.limits();
        let output_bytes = (n.max(1) * size_of::<GpuDrawVertex>()) as u64;
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if output_bytes > limit {
            return Err(RenderError::TooLarge {
                what: "dqview::ComputeTargets::outputs",
                bytes: output_bytes,
                limit,
            });
        }
        let vertex_count = u32::try_from(n).map_err(|_| RenderError::TooLarge {
            what: "dqview::ComputeTargets::vertices",
            bytes: output_bytes,
            limit,
        })?;
        let mut bind_vertices: Vec<GpuCrowdBindVertex> = (0..n)
            .map(|v| GpuCrowdBindVertex {
                position: mesh.positions[v].extend(1.0).to_array(),
                normal: mesh.normal(v).extend(0.0).to_array(),
            })
            .collect();
        let mut influences = vec![GpuCrowdInfluences::default(); n];
        let sets = mesh.influences.to_fixed_sets(2);
        if let [(joints0, weights0), (joints1, weights1)] = sets.as_slice() {
            for (v, dst) in influences.iter_mut().enumerate() {
                let joints = [joints0[v], joints1[v]];
                *dst = GpuCrowdInfluences::new(joints, [weights0[v], weights1[v]]);
            }
        }
        // A zero-sized storage binding is not legal: keep one (unused) element.
        if bind_vertices.is_empty() {
            bind_vertices.push(GpuCrowdBindVertex::default());
            influences.push(GpuCrowdInfluences::default());
        }
        let groups = dispatch_size(n, limits.max_compute_workgroups_per_dimension);
        ctx.scoped("dqview::ComputeTargets::new", || {
            let device = &ctx.device;
            let init = |label, contents: &[u8], usage| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                })
            };
            let params = CROWD_MODES.map(|mode| {
                let p = GpuComputeParams {
                    vertex_count,
                    mode: gpu_mode(mode),
                    beta: 0.5,
                    row_stride: groups.0 * WORKGROUP_SIZE,
                };
                init(
                    "dqview::ComputeTargets::params",
                    bytemuck::bytes_of(&p),
                    wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                )
            });
            let vertices = init(
                "dqview::ComputeTargets::bind_vertices",
                bytemuck::cast_slice(&bind_vertices),
                wgpu::BufferUsages::STORAGE,
            );
            let influences = init(
                "dqview::ComputeTargets::influences",
                bytemuck::cast_slice(&influences),
                wgpu::BufferUsages::STORAGE,
            );
            let outputs: Vec<wgpu::Buffer> = (0..instances)
                .map(|_| {
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("dqview::ComputeTargets::skinned"),
                        size: output_bytes,
                        // COPY_DST: the viewer may write CPU-posed vertices instead
                        // (DQS with bulge compensation, which has no shader).
                        usage: wgpu::BufferUsages::STORAGE
                            | wgpu::BufferUsages::VERTEX
                            | wgpu::BufferUsages::COPY_SRC
                            | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                })
                .collect();
            let bind_groups = [0, 1, 2].map(|m| {
                outputs
                    .iter()
                    .map(|output| {
                        device.create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some("dqview::ComputeTargets::bind_group"),
                            layout: &skinner.mesh_layout,
                            entries: &[
                                whole(0, &params[m]),
                                whole(1, &vertices),
                                whole(2, &influences),
                                whole(3, output),
                            ],
                        })
                    })
                    .collect()
            });
            Self {
                vertex_count,
                groups,
                params,
                outputs,
                bind_groups,
            }
        })
    }

    /// Writes the hybrid factor (clamped to [0, 1], NaN as 1, as the CPU reference) of the hybrid params.
    pub fn set_beta(&self, queue: &wgpu::Queue, beta: f32) {
        let p = GpuComputeParams {
            vertex_count: self.vertex_count,
            mode: gpu_mode(SkinningMode::Hybrid),
            beta: crate::skin::Betas::Uniform(beta).of(0),
            row_stride: self.groups.0 * WORKGROUP_SIZE,
        };
        queue.write_buffer(&self.params[2], 0, bytemuck::bytes_of(&p));
    }

    /// Records the dispatch of `instance` in `mode`; the pass has the pipeline and group 0 set.
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, instance: usize, mode: SkinningMode) {
        if self.vertex_count == 0 {
            return;
        }
        let Some(group) = self.bind_groups[mode_index(mode)].get(instance) else {
            return;
        };
        pass.set_bind_group(1, group, &[]);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }
}

/// Workgroups in x and y: one row while it fits the per-dimension limit, else rows of `max_x`.
fn dispatch_size(vertices: usize, max_x: u32) -> (u32, u32) {
    let groups = vertices.div_ceil(WORKGROUP_SIZE as usize) as u64;
    let max_x = u64::from(max_x.max(1));
    if groups <= max_x {
        (groups as u32, 1)
    } else {
        (max_x as u32, groups.div_ceil(max_x) as u32)
    }
}

/// A bind group entry for the whole of `buffer`.
fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}
