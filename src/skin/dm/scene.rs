//! Delta Mush over a whole scene: each skinned mesh's welded surface and rest deltas, and the
//! scene posed by LBS then smoothed and corrected mesh by mesh.

use glam::{DMat3, DVec3, Vec3};

use super::{DmParams, DmSurface, WeldedSurface, smooth_positions};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{Betas, MorphedVertices, PosedPrimitive, SkinningMode, skin_scene};

/// One skinned mesh's welded surface and its Delta Mush data.
///
/// The rest positions are the bind-space positions times the skin's scale at rest (the
/// skinning matrices' median uniform scale over the joints the mesh uses), so the rest deltas
/// come out in world units: the robot's hands are modelled in centimetres under a 100x
/// armature. Rotation and translation of the bind space change nothing (the deltas are taken
/// in each corner's own frame), which is why Blender, smoothing in the object's space, agrees.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshDm {
    /// The welded surface the smoothing runs over, positions scaled to world units.
    pub surface: WeldedSurface,
    /// Its edge graph and rest deltas.
    pub dm: DmSurface,
    /// `source[w]`: the (primitive, vertex) whose skinned position welded vertex `w` takes.
    pub source: Vec<(u32, u32)>,
    /// The skin's scale at rest the rest positions were multiplied by.
    pub rest_scale: f64,
}

impl MeshDm {
    /// The Delta Mush data of `surface` with its rest positions times `scale`, at `params`.
    #[must_use]
    pub fn new(mut surface: WeldedSurface, scale: f64, params: DmParams) -> Self {
        let mut source = vec![(u32::MAX, u32::MAX); surface.len()];
        for (prim, map) in surface.vertex_of.iter().enumerate().rev() {
            for (v, &w) in map.iter().enumerate().rev() {
                source[w as usize] = (prim as u32, v as u32);
            }
        }
        for p in &mut surface.positions {
            *p *= scale;
        }
        let dm = DmSurface::new(&surface, params);
        Self {
            surface,
            dm,
            source,
            rest_scale: scale,
        }
    }
}

/// The Delta Mush data of every mesh of a scene with influences.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SceneDm {
    /// `per_mesh[mesh]`: `None` for a mesh without influences.
    pub per_mesh: Vec<Option<MeshDm>>,
    /// The parameters it was computed with.
    pub params: DmParams,
}

impl SceneDm {
    /// Welds every mesh of `scene` with influences and computes its rest deltas, at the scale
    /// of the first skin that draws it.
    #[must_use]
    pub fn compute(scene: &Scene, params: DmParams) -> Self {
        let rest = Pose::rest(scene);
        let mut matrices = Vec::new();
        let per_mesh = scene
            .meshes
            .iter()
            .enumerate()
            .map(|(m, mesh)| {
                let surface = WeldedSurface::of_mesh(mesh);
                if surface.is_empty() {
                    return None;
                }
                let skin = scene
                    .nodes
                    .iter()
                    .find(|n| n.mesh == Some(m) && n.skin.is_some())
                    .and_then(|n| n.skin);
                if let Some(skin) = skin {
                    rest.skinning_matrices(scene, skin, &mut matrices);
                } else {
                    matrices.clear();
                }
                let scale = skin_scale(&matrices, &surface);
                Some(MeshDm::new(surface, scale, params))
            })
            .collect();
        Self { per_mesh, params }
    }

    /// Welded vertices, all meshes together (the smoothing graph's vertices).
    #[must_use]
    pub fn welded_vertex_count(&self) -> usize {
        WeldedSurface::total_len(self.per_mesh.iter().flatten().map(|m| &m.surface))
    }
}

/// The median uniform scale (cube root of the determinant) of the skinning `matrices` of the
/// joints `surface` is weighted to; 1 where there is none or it is not a positive number.
fn skin_scale(matrices: &[glam::Mat4], surface: &WeldedSurface) -> f64 {
    let mut used: Vec<u16> = surface
        .influences
        .iter()
        .flatten()
        .filter(|i| i.weight > 0.0)
        .map(|i| i.joint)
        .collect();
    used.sort_unstable();
    used.dedup();
    let mut scales: Vec<f64> = used
        .iter()
        .filter_map(|&j| matrices.get(usize::from(j)))
        .map(|&m| uniform_scale(m))
        .filter(|s| s.is_finite() && *s > 0.0)
        .collect();
    scales.sort_by(f64::total_cmp);
    scales.get(scales.len() / 2).copied().unwrap_or(1.0)
}

/// Poses `scene` by Delta Mush: every primitive by LBS, then each skinned mesh `dm` has data
/// for smoothed over its welded surface and given back its rest deltas.
#[must_use]
pub fn skin_scene_dm(scene: &Scene, pose: &Pose, dm: &SceneDm) -> Vec<PosedPrimitive> {
    let mut posed = skin_scene(scene, pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let mut start = 0;
    while start < posed.len() {
        let node = posed[start].node;
        let len = posed[start..].iter().take_while(|p| p.node == node).count();
        let group = &mut posed[start..start + len];
        if let Some(mesh) = dm.per_mesh.get(group[0].mesh).and_then(Option::as_ref) {
            mush_mesh(scene, pose, mesh, group);
        }
        start += len;
    }
    posed
}

/// Delta Mush of one welded surface at one pose.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mushed {
    /// Each welded vertex's position.
    pub positions: Vec<DVec3>,
    /// The rotation each vertex's corner frames turned by (`None`: left at LBS).
    pub rotations: Vec<Option<DMat3>>,
    /// Whether a vertex lost a corner to [`super::MIN_CORNER_HEIGHT_ROUNDINGS`] (at rest or posed), so
    /// its result is not the plain method's.
    pub stabilised: Vec<bool>,
}

/// Each welded vertex of `mesh` by Delta Mush from its LBS positions `lbs`, its rest deltas
/// times `scales` (one per welded vertex; empty: 1, as Blender has it).
#[must_use]
pub fn mush_welded(mesh: &MeshDm, lbs: &[DVec3], scales: &[f64]) -> Mushed {
    let smoothed = smooth_positions(&mesh.dm, lbs);
    let mut out = Mushed {
        positions: smoothed.clone(),
        rotations: vec![None; smoothed.len()],
        stabilised: vec![false; smoothed.len()],
    };
    for v in 0..smoothed.len() {
        let mut shares = Vec::new();
        for c in mesh.dm.corners_of(v) {
            let (prev, next) = (smoothed[c.prev as usize], smoothed[c.next as usize]);
            let height = super::corner_height(prev, smoothed[v], next);
            let clear = height >= mesh.dm.min_corner_height;
            if !c.rest_stable || !clear {
                out.stabilised[v] = true;
                continue;
            }
            if let Some(f) = super::corner_frame(prev, smoothed[v], next) {
                shares.push((f, c));
            }
        }
        let total: f64 = shares.iter().map(|(f, _)| f.weight).sum();
        if total.is_nan() || total <= 0.0 {
            // No corner to carry the rest's detail back: the smoothing alone would shrink it.
            out.positions[v] = lbs[v];
            continue;
        }
        let mut rotation = DMat3::ZERO;
        for (f, c) in &shares {
            let w = f.weight / total;
            out.positions[v] += f.basis * c.delta * (w * scales.get(v).copied().unwrap_or(1.0));
            rotation += f.basis * c.rest_frame.transpose() * w;
        }
        out.rotations[v] = Some(rotation);
    }
    out
}

/// Smooths and corrects the LBS-posed primitives of one mesh node (`group`, in primitive
/// order) by `mesh`'s Delta Mush data.
fn mush_mesh(scene: &Scene, pose: &Pose, mesh: &MeshDm, group: &mut [PosedPrimitive]) {
    let skinned = |prim: u32| {
        group
            .iter()
            .position(|p| p.primitive == prim as usize && p.skinned)
    };
    let slots: Vec<Option<usize>> = (0..mesh.surface.vertex_of.len() as u32)
        .map(skinned)
        .collect();
    let lbs_of = |(prim, v): (u32, u32)| -> Option<DVec3> {
        let slot = (*slots.get(prim as usize)?)?;
        Some(group[slot].vertices.positions.get(v as usize)?.as_dvec3())
    };
    let Some(lbs) = mesh
        .source
        .iter()
        .map(|&s| lbs_of(s))
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let Mushed {
        positions: mushed,
        rotations,
        ..
    } = mush_welded(mesh, &lbs, &joint_scales(scene, pose, group[0].node, mesh));
    let node = group[0].node;
    let mut morphed = MorphedVertices::default();
    for (prim, map) in mesh.surface.vertex_of.iter().enumerate() {
        let Some(slot) = slots[prim] else { continue };
        let Some(source) = scene.meshes[group[slot].mesh].primitives.get(prim) else {
            continue;
        };
        // The corners' frames turn bind-space directions into world ones.
        let (_, normals, tangents) =
            crate::skin::posed::bind_vertices(source, pose.morph_weights_of(node), &mut morphed);
        let out = &mut group[slot].vertices;
        for (v, &w) in map.iter().enumerate() {
            let w = w as usize;
            let moved = out.positions[v].as_dvec3() + (mushed[w] - lbs[w]);
            if moved.is_finite() {
                out.positions[v] = moved.as_vec3();
            }
            let Some(r) = rotations[w] else { continue };
            if let (Some(n), Some(bind)) = (out.normals.get_mut(v), normals.get(v)) {
                *n = turn(r, *bind).unwrap_or(*n);
            }
            if let (Some(t), Some(bind)) = (out.tangents.get_mut(v), tangents.get(v)) {
                *t = turn(r, bind.truncate()).map_or(*t, |d| d.extend(bind.w));
            }
        }
    }
}

/// Each welded vertex's scale at `pose` relative to rest: its joints' uniform scales (cube
/// roots of their skinning matrices' determinants) blended by its weights, over the skin's
/// scale at rest. A joint scaled to 0.6 shrinks its vertices' rest deltas with it, as it
/// shrinks LBS; Blender's Corrective Smooth keeps them, which swells a shrunk part. With no
/// scaled joint every value is 1 and the result is Blender's.
#[must_use]
pub fn joint_scales(scene: &Scene, pose: &Pose, node: usize, mesh: &MeshDm) -> Vec<f64> {
    let Some(skin) = scene.nodes.get(node).and_then(|n| n.skin) else {
        return Vec::new();
    };
    let mut matrices = Vec::new();
    pose.skinning_matrices(scene, skin, &mut matrices);
    let scale_of: Vec<f64> = matrices.iter().map(|&m| uniform_scale(m)).collect();
    let rest = mesh.rest_scale;
    mesh.surface
        .influences
        .iter()
        .map(|row| {
            let total: f64 = row.iter().map(|i| f64::from(i.weight)).sum();
            let blended: f64 = row
                .iter()
                .map(|i| {
                    f64::from(i.weight)
                        * scale_of.get(usize::from(i.joint)).copied().unwrap_or(rest)
                })
                .sum();
            let s = blended / total / rest;
            if s.is_finite() && s > 0.0 { s } else { 1.0 }
        })
        .collect()
}

/// A skinning matrix's uniform scale: the cube root of its determinant's magnitude.
fn uniform_scale(m: glam::Mat4) -> f64 {
    f64::from(m.determinant()).abs().cbrt()
}

/// `d` turned by `r`, unit length; `None` when that is degenerate.
fn turn(r: DMat3, d: Vec3) -> Option<Vec3> {
    (r * d.as_dvec3()).as_vec3().try_normalize()
}
