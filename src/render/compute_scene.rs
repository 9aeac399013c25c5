//! Skinning every mesh of a scene with the GPU compute pass (the `--gpu` readback path).

use super::{ComputeSkinner, GpuContext, RenderError};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{Betas, PosedPrimitive, SkinMesh, SkinningMode, skin_scene};

/// Like [`crate::skin::skin_scene`], but skinned primitives go through the GPU compute pass.
///
/// Morph targets are applied by the compute shader too. Primitives drawn
/// without a skin (morphed or not) are moved rigidly on the CPU exactly as the
/// reference does, so the two outputs line up primitive for primitive.
pub fn skin_scene_gpu(
    ctx: &GpuContext,
    skinner: &ComputeSkinner,
    scene: &Scene,
    pose: &Pose,
    mode: SkinningMode,
    beta: f32,
) -> Result<Vec<PosedPrimitive>, RenderError> {
    // The CPU pass gives the layout and the rigid primitives; skinned ones are replaced below.
    let mut posed = skin_scene(scene, pose, mode, Betas::Uniform(beta));
    let mut palettes = crate::skin::PosePalettes::default();
    for p in posed.iter_mut() {
        let Some((skin, prim, influences)) = p.skinned_source(scene) else {
            continue;
        };
        let Some(palette) = palettes.get(scene, pose, skin) else {
            continue;
        };
        let mesh = SkinMesh {
            positions: &prim.positions,
            normals: &prim.normals,
            tangents: prim.tangents.as_deref().unwrap_or(&[]),
            influences,
        };
        let weights = pose.morph_weights_of(p.node);
        p.vertices = skinner.skin_morphed(
            ctx,
            palette,
            &mesh,
            &prim.morph_targets,
            weights,
            mode,
            beta,
        )?;
    }
    Ok(posed)
}

/// Like [`skin_scene_gpu`] in CoR mode: skinned primitives rotate about `centers`.
pub fn skin_scene_gpu_cor(
    ctx: &GpuContext,
    skinner: &ComputeSkinner,
    scene: &Scene,
    pose: &Pose,
    centers: &crate::skin::SceneCenters,
) -> Result<Vec<PosedPrimitive>, RenderError> {
    let mut posed = crate::skin::skin_scene_cor(scene, pose, centers);
    let mut palettes = crate::skin::PosePalettes::default();
    for p in posed.iter_mut() {
        let Some((skin, prim, influences)) = p.skinned_source(scene) else {
            continue;
        };
        let Some(palette) = palettes.get(scene, pose, skin) else {
            continue;
        };
        let mesh = SkinMesh {
            positions: &prim.positions,
            normals: &prim.normals,
            tangents: prim.tangents.as_deref().unwrap_or(&[]),
            influences,
        };
        let c = centers.of(p.mesh, p.primitive);
        p.vertices = skinner.skin_about(ctx, palette, &mesh, SkinningMode::Cor, 1.0, c)?;
    }
    Ok(posed)
}
