//! Skinning every mesh of a scene at a pose, in world space.

use glam::{Mat4, Vec3, Vec4};

use super::{
    Betas, JointPalette, MorphedVertices, SceneBetas, SkinMesh, SkinnedVertices, SkinningMode,
    has_active_morphs, morph_vertices, skin_vertices,
};
use crate::anim::Pose;
use crate::scene::{Primitive, Scene};

/// One primitive of one mesh node, posed in world space.
#[derive(Clone, Debug, Default)]
pub struct PosedPrimitive {
    /// Node that draws the mesh.
    pub node: usize,
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub primitive: usize,
    /// Whether the primitive was skinned (else moved rigidly by the node's global matrix).
    pub skinned: bool,
    /// World-space vertices.
    pub vertices: SkinnedVertices,
}

impl PosedPrimitive {
    /// For a skinned primitive: its skin index, source primitive and influences in `scene`.
    #[must_use]
    pub fn skinned_source<'s>(
        &self,
        scene: &'s Scene,
    ) -> Option<(usize, &'s Primitive, &'s crate::influences::Influences)> {
        if !self.skinned {
            return None;
        }
        let skin = scene.nodes.get(self.node)?.skin?;
        let prim = scene
            .meshes
            .get(self.mesh)?
            .primitives
            .get(self.primitive)?;
        Some((skin, prim, prim.influences.as_ref()?))
    }
}

/// The palettes of a pose, built once per skin on first use.
#[derive(Debug, Default)]
pub struct PosePalettes {
    palettes: Vec<Option<JointPalette>>,
    matrices: Vec<Mat4>,
}

impl PosePalettes {
    /// The palette of skin `skin` at `pose` (`None` for a skin the scene lacks).
    pub fn get(&mut self, scene: &Scene, pose: &Pose, skin: usize) -> Option<&JointPalette> {
        if self.palettes.len() < scene.skins.len() {
            self.palettes.resize(scene.skins.len(), None);
        }
        let matrices = &mut self.matrices;
        let slot = self.palettes.get_mut(skin)?;
        Some(slot.get_or_insert_with(|| {
            pose.skinning_matrices(scene, skin, matrices);
            JointPalette::from_matrices(matrices)
        }))
    }
}

/// Poses every primitive of every mesh node, ordered by node index then primitive index.
///
/// Morph targets are applied first, in bind space, with the pose's weights of
/// the mesh node. Skinned primitives (node with a skin, primitive with
/// influences) are then skinned with `mode` as glTF defines it (the mesh node's
/// own transform is ignored); other primitives are moved by their node's global matrix.
#[must_use]
pub fn skin_scene(
    scene: &Scene,
    pose: &Pose,
    mode: SkinningMode,
    betas: Betas<'_>,
) -> Vec<PosedPrimitive> {
    skin_scene_with(scene, pose, |job, out| {
        skin_vertices(job.palette, job.bind, mode, betas, out);
    })
}

/// Like [`skin_scene`], with per-vertex hybrid betas from `betas` scaled by `scale`.
#[must_use]
pub fn skin_scene_hybrid(
    scene: &Scene,
    pose: &Pose,
    mode: SkinningMode,
    betas: &SceneBetas,
    scale: f32,
) -> Vec<PosedPrimitive> {
    skin_scene_with(scene, pose, |job, out| {
        let b = Betas::Scaled(betas.of(job.mesh, job.primitive), scale);
        skin_vertices(job.palette, job.bind, mode, b, out);
    })
}

/// One skinned primitive to pose: which it is, its skin's palette and its (morphed) bind pose.
pub(crate) struct SkinJob<'a> {
    /// Skin index.
    pub skin: usize,
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub primitive: usize,
    /// The skin's palette at the pose.
    pub palette: &'a JointPalette,
    /// Bind-space vertices, morphed by the node's weights, and influences.
    pub bind: &'a SkinMesh<'a>,
}

/// Poses every primitive: skinned ones by `skin(job, out)`, once each; rigid ones by their
/// node's matrix. Every scene-wide skinning function (LBS, DQS, hybrid, CoR, compensated
/// DQS) is this with its own `skin`.
pub(crate) fn skin_scene_with(
    scene: &Scene,
    pose: &Pose,
    mut skin: impl FnMut(&SkinJob<'_>, &mut SkinnedVertices),
) -> Vec<PosedPrimitive> {
    let mut out = Vec::new();
    let mut matrices = Vec::new();
    let mut palettes: Vec<Option<JointPalette>> = vec![None; scene.skins.len()];
    let mut morphed = MorphedVertices::default();
    for &node_index in pose.mesh_nodes(scene).iter() {
        let Some(node) = scene.nodes.get(node_index) else {
            continue;
        };
        let Some(mesh_index) = node.mesh else {
            continue;
        };
        let Some(mesh) = scene.meshes.get(mesh_index) else {
            continue;
        };
        for (prim_index, prim) in mesh.primitives.iter().enumerate() {
            let mut posed = PosedPrimitive {
                node: node_index,
                mesh: mesh_index,
                primitive: prim_index,
                ..PosedPrimitive::default()
            };
            let (positions, normals, tangents) =
                bind_vertices(prim, pose.morph_weights_of(node_index), &mut morphed);
            match (node.skin, &prim.influences) {
                (Some(skin_index), Some(influences)) if skin_index < scene.skins.len() => {
                    let palette = palettes[skin_index].get_or_insert_with(|| {
                        pose.skinning_matrices(scene, skin_index, &mut matrices);
                        JointPalette::from_matrices(&matrices)
                    });
                    let bind = SkinMesh {
                        positions,
                        normals,
                        tangents,
                        influences,
                    };
                    let job = SkinJob {
                        skin: skin_index,
                        mesh: mesh_index,
                        primitive: prim_index,
                        palette,
                        bind: &bind,
                    };
                    skin(&job, &mut posed.vertices);
                    posed.skinned = true;
                }
                _ => {
                    let world = pose
                        .global
                        .get(node_index)
                        .copied()
                        .unwrap_or(Mat4::IDENTITY);
                    rigid(world, positions, normals, tangents, &mut posed.vertices);
                }
            }
            out.push(posed);
        }
    }
    out
}

/// Primitive `prim` of mesh node `node` moved rigidly by the node's global matrix at `pose`
/// (morphed first), as [`skin_scene`] poses primitives without a skin.
#[must_use]
pub fn pose_rigid_primitive(pose: &Pose, node: usize, prim: &Primitive) -> SkinnedVertices {
    let mut morphed = MorphedVertices::default();
    let (positions, normals, tangents) =
        bind_vertices(prim, pose.morph_weights_of(node), &mut morphed);
    let world = pose.global.get(node).copied().unwrap_or(Mat4::IDENTITY);
    let mut out = SkinnedVertices::default();
    rigid(world, positions, normals, tangents, &mut out);
    out
}

/// A primitive's bind-pose vertices: its own, or morphed into `morphed` when a weight is non-zero.
pub(crate) fn bind_vertices<'a>(
    prim: &'a Primitive,
    weights: &[f32],
    morphed: &'a mut MorphedVertices,
) -> (&'a [Vec3], &'a [Vec3], &'a [Vec4]) {
    let tangents = prim.tangents.as_deref().unwrap_or(&[]);
    if !has_active_morphs(&prim.morph_targets, weights) {
        return (&prim.positions, &prim.normals, tangents);
    }
    morph_vertices(
        &prim.positions,
        &prim.normals,
        tangents,
        &prim.morph_targets,
        weights,
        morphed,
    );
    (&morphed.positions, &morphed.normals, &morphed.tangents)
}

/// Moves bind-pose vertices by one matrix (normals by its inverse transpose).
fn rigid(
    world: Mat4,
    positions: &[Vec3],
    normals: &[Vec3],
    tangents: &[Vec4],
    out: &mut SkinnedVertices,
) {
    let normal_matrix = glam::Mat3::from_mat4(world).inverse().transpose();
    out.positions = positions
        .iter()
        .map(|&p| world.transform_point3(p))
        .collect();
    out.normals = normals
        .iter()
        .map(|&n| (normal_matrix * n).try_normalize().unwrap_or(n))
        .collect();
    out.tangents = tangents
        .iter()
        .map(|t| {
            let d = world
                .transform_vector3(t.truncate())
                .try_normalize()
                .unwrap_or(t.truncate());
            d.extend(t.w)
        })
        .collect();
    for p in &mut out.positions {
        if !p.is_finite() {
            *p = Vec3::ZERO;
        }
    }
    for n in &mut out.normals {
        if !n.is_finite() {
            *n = Vec3::Y;
        }
    }
}

/// Axis-aligned bounds (min, max) of all posed vertices; `None` when there are none.
#[must_use]
pub fn bounds(posed: &[PosedPrimitive]) -> Option<(Vec3, Vec3)> {
    posed
        .iter()
        .flat_map(|p| p.vertices.positions.iter())
        .fold(None, |acc, &p| match acc {
            None => Some((p, p)),
            Some((lo, hi)) => Some((lo.min(p), hi.max(p))),
        })
}

/// Bounds of the whole scene in its rest pose (the frame every camera and diagonal uses).
#[must_use]
pub fn rest_bounds(scene: &Scene) -> Option<(Vec3, Vec3)> {
    bounds(&skin_scene(
        scene,
        &Pose::rest(scene),
        SkinningMode::Lbs,
        Betas::Uniform(0.0),
    ))
}
