//! GPU skinning read back to the CPU: `export --gpu`, tests, benchmarks.
//!
//! Both functions upload a one-instance [`SceneGpu`] on the compute path, run `cs_skin` once
//! per skinned primitive and read the output: the same geometry, palettes and WGSL as every draw.

use glam::Vec3;

use super::geometry::GeometrySource;
use super::scene_draw::SkinRun;
use super::scene_gpu::{SceneGpu, SceneOptions};
use super::{GpuContext, RenderError, Renderer, SkinPath};
use crate::anim::Pose;
use crate::influences::Influences;
use crate::scene::{MorphTarget, Scene};
use crate::skin::{
    JointPalette, PosedPrimitive, SceneBetas, SceneCenters, SkinMesh, SkinnedVertices,
    SkinningMode, pose_rigid_primitive,
};

/// What a scene is skinned with besides its pose.
#[derive(Clone, Copy, Debug)]
pub struct GpuSkinning<'a> {
    /// Mode, hybrid beta scale and bulge compensation.
    pub run: SkinRun,
    /// Centers of rotation (CoR mode; without them CoR is LBS).
    pub cor_centers: Option<&'a SceneCenters>,
    /// Direct Delta Mush's matrices (DDM mode; without them DDM is LBS).
    pub ddm: Option<&'a crate::skin::ddm::SceneDdm>,
    /// Delta Mush's welded surfaces (DM mode; without them DM is LBS).
    pub dm: Option<&'a crate::skin::dm::SceneDm>,
    /// Per-vertex hybrid betas, scaled by `run.beta` (without them `run.beta` is every vertex's beta).
    pub betas: Option<&'a SceneBetas>,
}

impl GpuSkinning<'_> {
    /// `run` alone: no centers, no per-vertex betas.
    #[must_use]
    pub fn new(run: SkinRun) -> Self {
        Self {
            run,
            cor_centers: None,
            ddm: None,
            dm: None,
            betas: None,
        }
    }
}

/// Like [`crate::skin::skin_scene`] (and its CoR, hybrid and compensated forms), with every
/// skinned primitive skinned once by the GPU compute pass.
///
/// Morph targets are applied by the shader too. Primitives drawn without a skin are moved
/// by their node's matrix on the CPU, exactly as the reference does (no skinning there), so
/// the two outputs line up primitive for primitive.
pub fn skin_scene_gpu(
    ctx: &GpuContext,
    renderer: &Renderer,
    scene: &Scene,
    pose: &Pose,
    skinning: &GpuSkinning<'_>,
) -> Result<Vec<PosedPrimitive>, RenderError> {
    let options = SceneOptions {
        instances: 1,
        path: SkinPath::Compute,
        tangents: true,
    };
    let mut gpu = SceneGpu::with_options(ctx, renderer, scene, pose, &options)?;
    if let Some(centers) = skinning.cor_centers {
        gpu.set_cor_centers(ctx, renderer, centers);
    }
    if let Some(ddm) = skinning.ddm {
        gpu.set_ddm(ctx, renderer, ddm)?;
    }
    if let Some(betas) = skinning.betas {
        gpu.set_betas(ctx, renderer, betas);
    }
    if let Some(dm) = skinning
        .dm
        .filter(|_| skinning.run.mode == SkinningMode::Dm)
    {
        gpu.set_dm(ctx, renderer, dm)?;
    }
    run_compute(ctx, renderer, &gpu, skinning.run)?;
    let mut out = Vec::with_capacity(gpu.draw_count());
    for index in 0..gpu.draw_count() {
        let Some(((mesh, primitive), skinned)) = gpu.primitive_source(index) else {
            continue;
        };
        let node = gpu.node_of(index);
        let Some(prim) = scene
            .meshes
            .get(mesh)
            .and_then(|m| m.primitives.get(primitive))
        else {
            continue;
        };
        let vertices = if skinned {
            let mut v = gpu.read_skinned(ctx, index, 0)?;
            if prim.normals.len() != prim.positions.len() {
                v.normals.clear();
            }
            v
        } else {
            pose_rigid_primitive(pose, node, prim)
        };
        out.push(PosedPrimitive {
            node,
            mesh,
            primitive,
            skinned,
            vertices,
        });
    }
    Ok(out)
}

/// Inputs of [`skin_mesh_gpu`] besides the palette and the mesh.
#[derive(Clone, Copy, Debug, Default)]
pub struct MeshSkinning<'a> {
    /// Morph targets applied to the bind pose before skinning.
    pub morph_targets: &'a [MorphTarget],
    /// One weight per target (missing ones are 0).
    pub morph_weights: &'a [f32],
    /// CoR centers, one per vertex (CoR mode; without them the vertex itself).
    pub cor_centers: &'a [Vec3],
    /// Per-vertex hybrid betas, scaled by the run's beta (without them the run's beta alone).
    pub betas: &'a [f32],
}

/// Skins `mesh` with `palette` by `run` on the GPU and reads it back.
///
/// Matches [`crate::skin::skin_vertices`] (and `skin_vertices_cor` in CoR mode), except that
/// each vertex keeps only its eight heaviest influences (renormalised).
pub fn skin_mesh_gpu(
    ctx: &GpuContext,
    renderer: &Renderer,
    palette: &JointPalette,
    mesh: &SkinMesh<'_>,
    run: SkinRun,
    extras: &MeshSkinning<'_>,
) -> Result<SkinnedVertices, RenderError> {
    if mesh.positions.is_empty() {
        return Ok(SkinnedVertices::default());
    }
    // A mesh whose influences are all empty is still skinned (its vertices stay put), not rigid.
    let influences: &Influences = mesh.influences;
    let source = GeometrySource {
        positions: mesh.positions,
        normals: mesh.normals,
        tangents: if mesh.has_tangents() {
            mesh.tangents
        } else {
            &[]
        },
        influences: Some(influences),
        morph_targets: extras.morph_targets,
        ..GeometrySource::default()
    };
    let options = SceneOptions {
        instances: 1,
        path: SkinPath::Compute,
        tangents: mesh.has_tangents(),
    };
    let mut gpu = SceneGpu::from_mesh(ctx, renderer, &source, palette, &options)?;
    gpu.set_mesh_morph_weights(ctx, extras.morph_weights);
    if !extras.cor_centers.is_empty() {
        gpu.set_mesh_cor_centers(ctx, renderer, extras.cor_centers);
    }
    if !extras.betas.is_empty() {
        gpu.set_mesh_betas(ctx, renderer, extras.betas);
    }
    run_compute(ctx, renderer, &gpu, run)?;
    let mut out = gpu.read_skinned(ctx, 0, 0)?;
    if !mesh.has_normals() {
        out.normals.clear();
    }
    Ok(out)
}

/// Records and submits `gpu`'s compute pass with `run`.
fn run_compute(
    ctx: &GpuContext,
    renderer: &Renderer,
    gpu: &SceneGpu,
    run: SkinRun,
) -> Result<(), RenderError> {
    ctx.scoped("dqview::skin_scene_gpu", || {
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("dqview::skin_scene_gpu"),
            });
        let encoded = gpu.encode_skinning(ctx, &mut encoder, renderer, run, None);
        ctx.queue.submit([encoder.finish()]);
        encoded
    })?
}
