//! What skinning does to a rig at one pose: volume (or area) ratios, joint regions, cross-sections.

use glam::{Mat4, Vec3};

use super::measure::{area, is_closed, signed_volume};
use crate::anim::{BoneFrame, Pose};
use crate::scene::Scene;
use crate::skin::PosedPrimitive;

/// How a whole mesh is measured: volume when every skinned primitive is closed, else area.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Enclosed volume (divergence theorem).
    Volume,
    /// Surface area (open meshes).
    Area,
}

/// Rest-pose reference for the ratios: topology, regions and rest measures.
#[derive(Clone, Debug)]
pub struct RestReference {
    /// Volume or area.
    pub measure: Measure,
    /// Whole-mesh rest measure (skinned primitives only).
    pub total: f64,
    /// Per skinned primitive (index into the posed list): the region (joint node) of each triangle.
    triangle_regions: Vec<Vec<Option<usize>>>,
    /// Joint nodes that own at least one triangle, with their rest measure.
    pub regions: Vec<(usize, f64)>,
}

impl RestReference {
    /// Measures the rest pose `rest` (posed by [`crate::skin::skin_scene`] at [`Pose::rest`]).
    #[must_use]
    pub fn new(scene: &Scene, rest: &[PosedPrimitive]) -> Self {
        let diagonal = crate::skin::bounds(rest).map_or(1.0, |(lo, hi)| (hi - lo).length());
        let skinned: Vec<&PosedPrimitive> = rest.iter().filter(|p| p.skinned).collect();
        let closed = !skinned.is_empty()
            && skinned
                .iter()
                .all(|p| is_closed(&p.vertices.positions, indices(scene, p), 1e-5 * diagonal));
        let measure = if closed {
            Measure::Volume
        } else {
            Measure::Area
        };
        let triangle_regions: Vec<Vec<Option<usize>>> =
            rest.iter().map(|p| regions_of(scene, p)).collect();
        let mut out = Self {
            measure,
            total: 0.0,
            triangle_regions,
            regions: Vec::new(),
        };
        let (total, regions) = out.measure_all(scene, rest);
        out.total = total;
        out.regions = regions;
        out
    }

    /// Whole-mesh measure and per-region measures of a posed scene.
    fn measure_all(&self, scene: &Scene, posed: &[PosedPrimitive]) -> (f64, Vec<(usize, f64)>) {
        let mut total = 0.0;
        let mut regions: Vec<(usize, f64)> = Vec::new();
        for (p, regs) in posed
            .iter()
            .zip(&self.triangle_regions)
            .filter(|(p, _)| p.skinned)
        {
            let positions = &p.vertices.positions;
            let idx = indices(scene, p);
            total += match self.measure {
                Measure::Volume => signed_volume(positions, idx, Vec3::ZERO),
                Measure::Area => area(positions, idx),
            };
            // Group this primitive's triangles by region.
            let mut by_region: Vec<(usize, Vec<u32>)> = Vec::new();
            for (tri, reg) in idx.chunks_exact(3).zip(regs) {
                let Some(joint) = *reg else { continue };
                match by_region.iter_mut().find(|(j, _)| *j == joint) {
                    Some((_, list)) => list.extend_from_slice(tri),
                    None => by_region.push((joint, tri.to_vec())),
                }
            }
            for (joint, tris) in by_region {
                let value = match self.measure {
                    // Cone volume from the region's own centroid: a closed mesh's slab volume.
                    Measure::Volume => {
                        let c = centroid(positions, &tris);
                        signed_volume(positions, &tris, c).abs()
                    }
                    Measure::Area => area(positions, &tris),
                };
                match regions.iter_mut().find(|(j, _)| *j == joint) {
                    Some((_, v)) => *v += value,
                    None => regions.push((joint, value)),
                }
            }
        }
        (total, regions)
    }

    /// Ratios to rest of a posed scene: the whole mesh, and each region (joint node, ratio).
    #[must_use]
    pub fn ratios(&self, scene: &Scene, posed: &[PosedPrimitive]) -> (f64, Vec<(usize, f64)>) {
        let (total, regions) = self.measure_all(scene, posed);
        let ratio = |value: f64, rest: f64| {
            if rest.abs() > 1e-30 {
                value / rest
            } else {
                1.0
            }
        };
        let per_region = self
            .regions
            .iter()
            .map(|&(joint, rest)| {
                let now = regions
                    .iter()
                    .find(|(j, _)| *j == joint)
                    .map_or(0.0, |(_, v)| *v);
                (joint, ratio(now, rest))
            })
            .collect();
        (ratio(total, self.total), per_region)
    }
}

/// The smallest distance of a vertex influenced by `joint` (a node) to the joint's bone axis.
///
/// The axis runs through the joint's posed position along its twist axis. It
/// measures how far a twisted or bent section has collapsed. Vertices that lie
/// on the axis in the bind pose (cap centres) are left out: they say nothing.
#[must_use]
pub fn min_radius_about(
    scene: &Scene,
    pose: &Pose,
    posed: &[PosedPrimitive],
    joint: usize,
) -> Option<f32> {
    let global = pose.global.get(joint).copied().unwrap_or(Mat4::IDENTITY);
    let origin = global.transform_point3(Vec3::ZERO);
    let axis = global
        .transform_vector3(BoneFrame::of(scene, joint).twist_axis)
        .try_normalize()?;
    let mut best: Option<f32> = None;
    for p in posed.iter().filter(|p| p.skinned) {
        let Some(skin) = scene
            .nodes
            .get(p.node)
            .and_then(|n| n.skin)
            .and_then(|s| scene.skins.get(s))
        else {
            continue;
        };
        let Some(j) = skin.joints.iter().position(|&n| n == joint) else {
            continue;
        };
        let Some(src) = source(scene, p) else {
            continue;
        };
        let Some(influences) = src.influences.as_ref() else {
            continue;
        };
        // The joint's axis in bind space, from its inverse bind matrix.
        let bind_from_joint = skin
            .inverse_bind
            .get(j)
            .copied()
            .unwrap_or(Mat4::IDENTITY)
            .inverse();
        let bind_origin = bind_from_joint.transform_point3(Vec3::ZERO);
        let bind_axis = bind_from_joint
            .transform_vector3(BoneFrame::of(scene, joint).twist_axis)
            .normalize_or(Vec3::Y);
        let bind_radius = |v: Vec3| {
            let d = v - bind_origin;
            (d - bind_axis * d.dot(bind_axis)).length()
        };
        let influenced: Vec<usize> = influences
            .iter()
            .enumerate()
            .filter(|(_, row)| row.iter().any(|i| i.joint as usize == j && i.weight > 0.05))
            .map(|(v, _)| v)
            .collect();
        let floor = 0.1
            * influenced
                .iter()
                .filter_map(|&v| src.positions.get(v))
                .map(|&v| bind_radius(v))
                .fold(0.0f32, f32::max);
        for v in influenced {
            let (Some(&bind), Some(&posed_v)) = (src.positions.get(v), p.vertices.positions.get(v))
            else {
                continue;
            };
            if bind_radius(bind) > floor {
                let v = posed_v;
                let d = v - origin;
                let r = (d - axis * d.dot(axis)).length();
                best = Some(best.map_or(r, |b: f32| b.min(r)));
            }
        }
    }
    best
}

/// For each triangle of a posed primitive, the joint node owning its first corner (heaviest influence).
fn regions_of(scene: &Scene, p: &PosedPrimitive) -> Vec<Option<usize>> {
    let idx = indices(scene, p);
    let skin = scene
        .nodes
        .get(p.node)
        .and_then(|n| n.skin)
        .and_then(|s| scene.skins.get(s));
    let influences = source(scene, p).and_then(|s| s.influences.as_ref());
    idx.chunks_exact(3)
        .map(|tri| {
            let (skin, influences) = (skin?, influences?);
            let heaviest = influences.of(tri[0] as usize).first()?;
            skin.joints.get(heaviest.joint as usize).copied()
        })
        .collect()
}

/// The scene primitive a posed primitive came from.
fn source<'s>(scene: &'s Scene, p: &PosedPrimitive) -> Option<&'s crate::scene::Primitive> {
    scene
        .meshes
        .get(p.mesh)
        .and_then(|m| m.primitives.get(p.primitive))
}

/// The triangle indices of a posed primitive.
fn indices<'s>(scene: &'s Scene, p: &PosedPrimitive) -> &'s [u32] {
    source(scene, p).map_or(&[], |s| &s.indices)
}

/// Mean position of the vertices an index list uses (with repeats).
fn centroid(positions: &[Vec3], indices: &[u32]) -> Vec3 {
    let (sum, n) = indices
        .iter()
        .filter_map(|&i| positions.get(i as usize))
        .fold((Vec3::ZERO, 0u32), |(s, n), p| (s + *p, n + 1));
    if n == 0 { Vec3::ZERO } else { sum / n as f32 }
}
