//! Skinning on the GPU with a compute pass, read back to the CPU (tests, export, benchmarks).

use glam::Vec4;
use wgpu::util::DeviceExt;

use super::gpu_data::{
    GpuBindVertex, GpuComputeParams, GpuMorphDelta, GpuMorphWeights, GpuSkinnedVertex,
    GpuVertexInfluences, MAX_GPU_MORPH_TARGETS, gpu_mode,
};
use super::palette::{GpuPalette, PaletteLayout};
use super::shaders::{PaletteBinding, compute_source};
use super::{GpuContext, RenderError};
use crate::scene::MorphTarget;
use crate::skin::{
    Betas, JointPalette, SkinMesh, SkinnedVertices, SkinningMode, effective_weight,
    has_active_morphs,
};

/// Invocations per workgroup. Keep in sync with `@workgroup_size` of `cs_skin`.
const WORKGROUP_SIZE: u32 = 64;

/// Influence sets of four packed per vertex (`Influences::to_fixed_sets`): eight influences.
const INFLUENCE_SETS: usize = 2;

/// The compute pipeline of one palette kind, with its layouts.
#[derive(Debug)]
struct Variant {
    palette_layout: PaletteLayout,
    pipeline: wgpu::ComputePipeline,
}

/// What besides the palette and mesh a compute skinning run may use.
#[derive(Clone, Copy, Debug, Default)]
pub struct SkinExtras<'a> {
    /// Morph targets applied to the bind pose before skinning.
    pub morph_targets: &'a [MorphTarget],
    /// One weight per target (missing ones are 0).
    pub morph_weights: &'a [f32],
    /// CoR centers, one per vertex (CoR mode; a missing center is the vertex itself).
    pub cor_centers: &'a [glam::Vec3],
}

/// Skins meshes with the `cs_skin` compute shader; pipelines are built once, in [`ComputeSkinner::new`].
#[derive(Debug)]
pub struct ComputeSkinner {
    /// Group 1: params, bind vertices, influences, output.
    mesh_layout: wgpu::BindGroupLayout,
    uniform: Variant,
    storage: Variant,
}

impl ComputeSkinner {
    /// Builds both pipeline variants (uniform and storage palettes).
    pub fn new(ctx: &GpuContext) -> Result<Self, RenderError> {
        ctx.scoped("dqview::ComputeSkinner::new", || {
            let mesh_layout = mesh_layout(ctx);
            let uniform = variant(ctx, &mesh_layout, PaletteBinding::Uniform);
            let storage = variant(ctx, &mesh_layout, PaletteBinding::Storage);
            Self {
                mesh_layout,
                uniform,
                storage,
            }
        })
    }

    /// Skins `mesh` with `palette` on the GPU and reads the result back.
    ///
    /// Matches [`crate::skin::skin_vertices`] with `Betas::Uniform(beta)`,
    /// except that each vertex keeps only its eight heaviest influences
    /// (renormalised), as the GPU packs two sets of four.
    pub fn skin(
        &self,
        ctx: &GpuContext,
        palette: &JointPalette,
        mesh: &SkinMesh<'_>,
        mode: SkinningMode,
        beta: f32,
    ) -> Result<SkinnedVertices, RenderError> {
        self.skin_with(ctx, palette, mesh, mode, beta, &SkinExtras::default())
    }

    /// Like [`ComputeSkinner::skin`], CoR mode rotating about `cor_centers` (one per vertex;
    /// a missing center is the vertex itself), matching [`crate::skin::skin_vertices_cor`].
    pub fn skin_about(
        &self,
        ctx: &GpuContext,
        palette: &JointPalette,
        mesh: &SkinMesh<'_>,
        mode: SkinningMode,
        beta: f32,
        cor_centers: &[glam::Vec3],
    ) -> Result<SkinnedVertices, RenderError> {
        let extras = SkinExtras {
            cor_centers,
            ..SkinExtras::default()
        };
        self.skin_with(ctx, palette, mesh, mode, beta, &extras)
    }

    /// Like [`ComputeSkinner::skin`], with `targets` at `weights` applied to the bind pose first.
    ///
    /// Matches [`crate::skin::morph_vertices`] followed by the CPU skinning.
    #[allow(clippy::too_many_arguments)]
    pub fn skin_morphed(
        &self,
        ctx: &GpuContext,
        palette: &JointPalette,
        mesh: &SkinMesh<'_>,
        targets: &[MorphTarget],
        weights: &[f32],
        mode: SkinningMode,
        beta: f32,
    ) -> Result<SkinnedVertices, RenderError> {
        let extras = SkinExtras {
            morph_targets: targets,
            morph_weights: weights,
            ..SkinExtras::default()
        };
        self.skin_with(ctx, palette, mesh, mode, beta, &extras)
    }

    /// [`ComputeSkinner::skin`] with morph targets and CoR centers.
    pub fn skin_with(
        &self,
        ctx: &GpuContext,
        palette: &JointPalette,
        mesh: &SkinMesh<'_>,
        mode: SkinningMode,
        beta: f32,
        extras: &SkinExtras<'_>,
    ) -> Result<SkinnedVertices, RenderError> {
        let n = mesh.positions.len();
        let has_normals = mesh.has_normals();
        let has_tangents = mesh.has_tangents();
        if n == 0 {
            return Ok(SkinnedVertices::default());
        }
        let limits = ctx.device.limits();
        let max_binding = limits.max_storage_buffer_binding_size;
        let needed = (n * size_of::<GpuVertexInfluences>()) as u64;
        if needed > max_binding {
            return Err(RenderError::TooLarge {
                what: "dqview::ComputeSkinner::influences",
                bytes: needed,
                limit: max_binding,
            });
        }
        if extras.morph_targets.len() > MAX_GPU_MORPH_TARGETS {
            return Err(RenderError::TooManyMorphTargets {
                targets: extras.morph_targets.len(),
                limit: MAX_GPU_MORPH_TARGETS,
            });
        }
        let (morph_deltas, morph_weights) =
            pack_morphs(extras.morph_targets, extras.morph_weights, n);
        let needed = (morph_deltas.len() * size_of::<GpuMorphDelta>()) as u64;
        if needed > max_binding {
            return Err(RenderError::TooLarge {
                what: "dqview::ComputeSkinner::morph_deltas",
                bytes: needed,
                limit: max_binding,
            });
        }
        let variant = match PaletteBinding::for_joint_count(palette.len()) {
            PaletteBinding::Uniform => &self.uniform,
            PaletteBinding::Storage => &self.storage,
        };
        let gpu_palette = GpuPalette::new(ctx, &variant.palette_layout, palette)?;
        let vertices = pack_vertices(mesh);
        let influences = pack_influences(mesh);
        let centers: Vec<[f32; 4]> = mesh
            .positions
            .iter()
            .enumerate()
            .map(|(v, &p)| {
                extras
                    .cor_centers
                    .get(v)
                    .copied()
                    .unwrap_or(p)
                    .extend(1.0)
                    .to_array()
            })
            .collect();
        let (groups_x, groups_y) = dispatch_size(n, limits.max_compute_workgroups_per_dimension);
        let params = GpuComputeParams {
            vertex_count: n as u32,
            mode: gpu_mode(mode),
            // Same clamping (and NaN as DQS) as the CPU reference.
            beta: Betas::Uniform(beta).of(0),
            row_stride: groups_x * WORKGROUP_SIZE,
        };

        let output = ctx.scoped("dqview::ComputeSkinner::skin", || {
            let device = &ctx.device;
            let init = |label, contents: &[u8], usage| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                })
            };
            let params = init(
                "dqview::ComputeSkinner::params",
                bytemuck::bytes_of(&params),
                wgpu::BufferUsages::UNIFORM,
            );
            let vertices = init(
                "dqview::ComputeSkinner::bind_vertices",
                bytemuck::cast_slice(&vertices),
                wgpu::BufferUsages::STORAGE,
            );
            let influences = init(
                "dqview::ComputeSkinner::influences",
                bytemuck::cast_slice(&influences),
                wgpu::BufferUsages::STORAGE,
            );
            let centers = init(
                "dqview::ComputeSkinner::cor_centers",
                bytemuck::cast_slice(&centers),
                wgpu::BufferUsages::STORAGE,
            );
            let morph_deltas = init(
                "dqview::ComputeSkinner::morph_deltas",
                bytemuck::cast_slice(&morph_deltas),
                wgpu::BufferUsages::STORAGE,
            );
            let morph_weights = init(
                "dqview::ComputeSkinner::morph_weights",
                bytemuck::bytes_of(&morph_weights),
                wgpu::BufferUsages::UNIFORM,
            );
            let output = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("dqview::ComputeSkinner::skinned"),
                size: (n * size_of::<GpuSkinnedVertex>()) as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let mesh_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("dqview::ComputeSkinner::mesh_bind_group"),
                layout: &self.mesh_layout,
                entries: &[
                    entry(0, &params),
                    entry(1, &vertices),
                    entry(2, &influences),
                    entry(3, &output),
                    entry(4, &morph_deltas),
                    entry(5, &morph_weights),
                    entry(6, &centers),
                ],
            });
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("dqview::ComputeSkinner::encoder"),
            });
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("dqview::ComputeSkinner::pass"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&variant.pipeline);
                pass.set_bind_group(0, &gpu_palette.bind_group, &[]);
                pass.set_bind_group(1, &mesh_group, &[]);
                pass.dispatch_workgroups(groups_x, groups_y, 1);
            }
            ctx.queue.submit([encoder.finish()]);
            output
        })?;

        let bytes = ctx.read_buffer(&output, "dqview::ComputeSkinner::readback")?;
        let skinned: &[GpuSkinnedVertex] =
            bytemuck::try_cast_slice(&bytes).map_err(|e| RenderError::Readback {
                label: "dqview::ComputeSkinner::readback",
                message: e.to_string(),
            })?;
        let mut out = SkinnedVertices {
            positions: skinned
                .iter()
                .map(|v| Vec4::from_array(v.position).truncate())
                .collect(),
            ..SkinnedVertices::default()
        };
        if has_normals {
            out.normals = skinned
                .iter()
                .map(|v| Vec4::from_array(v.normal).truncate())
                .collect();
        }
        if has_tangents {
            out.tangents = skinned
                .iter()
                .map(|v| Vec4::from_array(v.tangent))
                .collect();
        }
        Ok(out)
    }
}

/// Group 1 of the compute pass. Keep in sync with `shaders/skin_compute.wgsl`.
fn mesh_layout(ctx: &GpuContext) -> wgpu::BindGroupLayout {
    use super::layout::{Access, compute_buffer};
    ctx.device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("dqview::ComputeSkinner::mesh_layout"),
            entries: &[
                compute_buffer(0, Access::Uniform, size_of::<GpuComputeParams>()),
                compute_buffer(1, Access::Read, size_of::<GpuBindVertex>()),
                compute_buffer(2, Access::Read, size_of::<GpuVertexInfluences>()),
                compute_buffer(3, Access::ReadWrite, size_of::<GpuSkinnedVertex>()),
                compute_buffer(4, Access::Read, size_of::<GpuMorphDelta>()),
                compute_buffer(5, Access::Uniform, size_of::<GpuMorphWeights>()),
                compute_buffer(6, Access::Read, size_of::<[f32; 4]>()),
            ],
        })
}

/// The pipeline for one palette kind, with an explicit layout (palette group 0, mesh group 1).
fn variant(
    ctx: &GpuContext,
    mesh_layout: &wgpu::BindGroupLayout,
    binding: PaletteBinding,
) -> Variant {
    let palette_layout = PaletteLayout::new(ctx, binding);
    let layout = ctx
        .device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("dqview::ComputeSkinner::pipeline_layout"),
            bind_group_layouts: &[Some(&palette_layout.layout), Some(mesh_layout)],
            immediate_size: 0,
        });
    let module = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(match binding {
                PaletteBinding::Uniform => "dqview::ComputeSkinner::shader_uniform",
                PaletteBinding::Storage => "dqview::ComputeSkinner::shader_storage",
            }),
            source: wgpu::ShaderSource::Wgsl(compute_source(binding).into()),
        });
    let pipeline = ctx
        .device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(match binding {
                PaletteBinding::Uniform => "dqview::ComputeSkinner::cs_skin_uniform",
                PaletteBinding::Storage => "dqview::ComputeSkinner::cs_skin_storage",
            }),
            layout: Some(&layout),
            module: &module,
            entry_point: Some("cs_skin"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
    Variant {
        palette_layout,
        pipeline,
    }
}

/// A bind group entry for the whole of `buffer`.
fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
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

/// Bind-pose vertices; missing normals and tangents get the CPU reference's stand-ins (+Y, +X).
fn pack_vertices(mesh: &SkinMesh<'_>) -> Vec<GpuBindVertex> {
    (0..mesh.positions.len())
        .map(|v| GpuBindVertex::new(mesh.positions[v], mesh.normal(v), mesh.tangent(v)))
        .collect()
}

/// Eight influences per vertex; vertices past the influence rows have none (stay at bind pose).
fn pack_influences(mesh: &SkinMesh<'_>) -> Vec<GpuVertexInfluences> {
    let sets = mesh.influences.to_fixed_sets(INFLUENCE_SETS);
    let mut out = vec![GpuVertexInfluences::default(); mesh.positions.len()];
    for (set, (joints, weights)) in sets.iter().enumerate() {
        for (dst, (j, w)) in out.iter_mut().zip(joints.iter().zip(weights)) {
            dst.joints[set] = j.map(u32::from);
            dst.weights[set] = *w;
        }
    }
    out
}

/// Target-major displacements and one weight per target, for bindings 4 and 5.
///
/// Without an active target (every weight 0) a single zero delta and a single
/// zero weight are bound instead: WGSL has no empty arrays, and the shader
/// skips zero weights. Non-finite weights become 0, as on the CPU.
fn pack_morphs(
    targets: &[MorphTarget],
    weights: &[f32],
    n: usize,
) -> (Vec<GpuMorphDelta>, GpuMorphWeights) {
    if !has_active_morphs(targets, weights) {
        return (vec![GpuMorphDelta::default()], GpuMorphWeights::default());
    }
    let mut deltas = vec![GpuMorphDelta::default(); targets.len() * n];
    for (t, target) in targets.iter().enumerate() {
        let Some(slot) = deltas.get_mut(t * n..(t + 1) * n) else {
            continue;
        };
        // Lists of the wrong length add nothing, as in `morph_vertices`.
        let fill = |list: &[glam::Vec3],
                    get: fn(&mut GpuMorphDelta) -> &mut [f32; 4],
                    slot: &mut [GpuMorphDelta]| {
            if list.len() == n {
                for (d, v) in slot.iter_mut().zip(list) {
                    *get(d) = v.extend(0.0).to_array();
                }
            }
        };
        fill(&target.positions, |d| &mut d.position, slot);
        fill(&target.normals, |d| &mut d.normal, slot);
        fill(&target.tangents, |d| &mut d.tangent, slot);
    }
    let mut packed = GpuMorphWeights {
        count: targets.len().min(MAX_GPU_MORPH_TARGETS) as u32,
        ..GpuMorphWeights::default()
    };
    for t in 0..targets.len().min(MAX_GPU_MORPH_TARGETS) {
        packed.weights[t / 4][t % 4] = effective_weight(weights, t);
    }
    (deltas, packed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch_goes_2d_past_the_limit() {
        assert_eq!(dispatch_size(1, 65535), (1, 1));
        assert_eq!(dispatch_size(64 * 65535, 65535), (65535, 1));
        assert_eq!(dispatch_size(64 * 65535 + 1, 65535), (65535, 2));
    }
}
