//! Center-of-rotation skinning (Le and Hodgins 2016): the CPU reference.
//!
//! Per vertex: q = blended rotation (DQS's sign rule, influence 0 as the pivot),
//! v' = R(q) (v - p*) + LBS(p*), with p* the vertex's precomputed center
//! ([`super::cor_centers`]). Skins with scale or shear apply DQS's phase 1 (the
//! blended scale/shear S) first: v' = R(q) S (v - p*) + LBS(p*), so a
//! single-influence vertex is exactly LBS whatever its center.

use glam::{Mat3, Mat4, Vec3, Vec4};

use super::cor_precompute::{CorError, CorOptions, CorProgress, cor_centers};
use super::cpu::{transform_normal, transform_tangent};
use super::{JointPalette, PosedPrimitive, SkinMesh, SkinnedVertices};
use crate::anim::Pose;
use crate::dq::{blend_rotation, rotate_vector};
use crate::influences::Influence;
use crate::scene::Scene;

/// Skins one vertex about its center of rotation `center`: position, unit normal, tangent.
///
/// A vertex with no influences stays at its bind position; the result is
/// always finite (non-finite output falls back to the bind pose).
#[must_use]
pub fn skin_vertex_cor(
    palette: &JointPalette,
    position: Vec3,
    normal: Vec3,
    tangent: Vec4,
    influences: &[Influence],
    center: Vec3,
) -> (Vec3, Vec3, Vec4) {
    let bind = (position, normal, tangent);
    if influences.is_empty() {
        return super::cpu::finite_or(position, normal, tangent, bind);
    }
    let mut m = Mat4::ZERO;
    let mut s = Mat3::ZERO;
    for i in influences {
        m += palette
            .matrices
            .get(i.joint as usize)
            .copied()
            .unwrap_or(Mat4::IDENTITY)
            * i.weight;
        if let Some(scales) = &palette.scale_shear {
            s += scales
                .get(i.joint as usize)
                .copied()
                .unwrap_or(Mat3::IDENTITY)
                * i.weight;
        }
    }
    let (offset, n1, t1) = match palette.scale_shear {
        None => (position - center, normal, tangent),
        Some(_) => (
            s * (position - center),
            transform_normal(s, normal),
            transform_tangent(s, tangent),
        ),
    };
    let q = blend_rotation(influences.iter().map(|i| {
        let r = palette
            .dual_quats
            .get(i.joint as usize)
            .map_or(glam::Quat::IDENTITY, |dq| dq.real);
        (r, i.weight)
    }));
    let p = rotate_vector(q, offset) + m.transform_point3(center);
    let n = rotate_vector(q, n1).try_normalize().unwrap_or(n1);
    let t = rotate_vector(q, t1.truncate())
        .try_normalize()
        .unwrap_or(t1.truncate());
    super::cpu::finite_or(p, n, t.extend(t1.w), bind)
}

/// Skins every vertex of `mesh` about `centers` (one per vertex; missing ones are the vertex itself, i.e. LBS).
pub fn skin_vertices_cor(
    palette: &JointPalette,
    mesh: &SkinMesh<'_>,
    centers: &[Vec3],
    out: &mut SkinnedVertices,
) {
    super::cpu::fill_skinned(mesh, out, |v| {
        let p = mesh.positions[v];
        let center = centers.get(v).copied().unwrap_or(p);
        let (n, t) = (mesh.normal(v), mesh.tangent(v));
        skin_vertex_cor(palette, p, n, t, mesh.influences.of(v), center)
    });
}

/// Centers of rotation of every skinned primitive of a scene, by mesh and primitive index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SceneCenters {
    /// `per_primitive[mesh][primitive]`: one center per vertex (empty: not skinned).
    pub per_primitive: Vec<Vec<Vec<Vec3>>>,
}

impl SceneCenters {
    /// Computes the centers of every primitive with influences, adding each one's vertices to `progress` first.
    pub fn compute(
        scene: &Scene,
        options: &CorOptions,
        progress: &CorProgress,
    ) -> Result<Self, CorError> {
        Self::compute_with(scene, progress, |prim| {
            let Some(influences) = &prim.influences else {
                return Ok(Vec::new());
            };
            cor_centers(
                &prim.positions,
                prim.triangles(),
                influences,
                options,
                progress,
            )
        })
    }

    /// Like [`SceneCenters::compute`], through the on-disk cache (see [`super::cor_centers_cached`]).
    ///
    /// Returns the centers and how many primitives came from the cache.
    pub fn compute_cached(
        scene: &Scene,
        options: &CorOptions,
        progress: &CorProgress,
    ) -> Result<(Self, usize), CorError> {
        let mut from_cache = 0;
        let centers = Self::compute_with(scene, progress, |prim| {
            let Some(influences) = &prim.influences else {
                return Ok(Vec::new());
            };
            let (centers, source) = super::cor_centers_cached(
                &prim.positions,
                prim.triangles(),
                influences,
                options,
                progress,
                None,
            )?;
            from_cache += usize::from(source == super::CorSource::Cache);
            Ok(centers)
        })?;
        Ok((centers, from_cache))
    }

    /// Like [`SceneCenters::compute`], each primitive's centers from `centers_of`.
    pub fn compute_with(
        scene: &Scene,
        progress: &CorProgress,
        mut centers_of: impl FnMut(&crate::scene::Primitive) -> Result<Vec<Vec3>, CorError>,
    ) -> Result<Self, CorError> {
        for prim in scene.meshes.iter().flat_map(|m| &m.primitives) {
            if prim.influences.is_some() {
                progress.add_total(prim.positions.len());
            }
        }
        let mut per_primitive = Vec::with_capacity(scene.meshes.len());
        for mesh in &scene.meshes {
            let mut prims = Vec::with_capacity(mesh.primitives.len());
            for prim in &mesh.primitives {
                prims.push(centers_of(prim)?);
            }
            per_primitive.push(prims);
        }
        Ok(Self { per_primitive })
    }

    /// The centers of one primitive (empty when none were computed).
    #[must_use]
    pub fn of(&self, mesh: usize, primitive: usize) -> &[Vec3] {
        self.per_primitive
            .get(mesh)
            .and_then(|m| m.get(primitive))
            .map_or(&[], Vec::as_slice)
    }
}

/// Poses every primitive like [`super::skin_scene`] in CoR mode, skinned ones about `centers`:
/// morphed first (the centers stay those of the rest mesh), then skinned once each.
#[must_use]
pub fn skin_scene_cor(scene: &Scene, pose: &Pose, centers: &SceneCenters) -> Vec<PosedPrimitive> {
    super::posed::skin_scene_with(scene, pose, |job, out| {
        let c = centers.of(job.mesh, job.primitive);
        skin_vertices_cor(job.palette, job.bind, c, out);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skin::SkinningMode;
    use glam::Quat;

    fn palette() -> JointPalette {
        JointPalette::from_matrices(&[
            Mat4::from_rotation_translation(Quat::from_rotation_z(0.3), Vec3::new(0.0, 1.0, 0.0)),
            Mat4::from_rotation_translation(Quat::from_rotation_x(1.2), Vec3::new(2.0, 0.0, 1.0)),
            Mat4::from_scale_rotation_translation(
                Vec3::new(1.5, 0.5, 1.0),
                Quat::from_rotation_y(0.7),
                Vec3::X,
            ),
        ])
    }

    #[test]
    fn single_influence_is_lbs_whatever_the_center() {
        let p = palette();
        let v = Vec3::new(0.3, -0.2, 0.5);
        for joint in 0..3u16 {
            let inf = [Influence { joint, weight: 1.0 }];
            let lbs =
                super::super::skin_vertex(&p, SkinningMode::Lbs, 0.0, v, Vec3::Y, Vec4::X, &inf);
            let cor = skin_vertex_cor(&p, v, Vec3::Y, Vec4::X, &inf, Vec3::new(5.0, 1.0, -2.0));
            assert!(
                lbs.0.abs_diff_eq(cor.0, 1e-5),
                "{joint}: {} {}",
                lbs.0,
                cor.0
            );
            assert!(
                lbs.1.abs_diff_eq(cor.1, 1e-5),
                "{joint}: {} {}",
                lbs.1,
                cor.1
            );
        }
    }

    #[test]
    fn rotation_is_blended_about_the_center() {
        // Joint 1 turns 90 degrees about +Z through the origin; half weight turns 45 degrees
        // about the center: LBS of the center plus the offset turned 45 degrees.
        let p = JointPalette::from_matrices(&[
            Mat4::IDENTITY,
            Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2),
        ]);
        let inf = [
            Influence {
                joint: 0,
                weight: 0.5,
            },
            Influence {
                joint: 1,
                weight: 0.5,
            },
        ];
        let center = Vec3::new(1.0, 0.0, 0.0);
        let v = Vec3::new(1.0, -0.2, 0.0);
        let (out, n, _) = skin_vertex_cor(&p, v, Vec3::NEG_Y, Vec4::X, &inf, center);
        let lbs_center = Vec3::new(0.5, 0.5, 0.0);
        let q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
        let expected = lbs_center + q * Vec3::new(0.0, -0.2, 0.0);
        assert!(out.abs_diff_eq(expected, 1e-5), "{out} {expected}");
        assert!(n.abs_diff_eq(q * Vec3::NEG_Y, 1e-5), "{n}");
    }
}
