//! What skinning does to a rig at one pose: volume (or area) ratios, joint regions, cross-sections.

use glam::{Mat4, Vec3};

use super::measure::{area, is_closed, signed_volume};
use super::region::{self, JointRegion, RegionError, joint_regions};
use crate::anim::{BoneFrame, Pose};
use crate::scene::Scene;
use crate::skin::{Betas, PosedPrimitive, SkinningMode, skin_scene};

/// How a whole mesh is measured: volume when every skinned primitive is closed, else area.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Enclosed volume (divergence theorem).
    Volume,
    /// Surface area (open meshes).
    Area,
}

/// Rest-pose reference for the ratios: topology, joint regions and rest measures.
#[derive(Clone, Debug)]
pub struct RestReference {
    /// Volume or area of the whole mesh.
    pub measure: Measure,
    /// Whole-mesh rest measure (skinned primitives only).
    pub total: f64,
    /// Every joint region, by joint node (see [`JointRegion`] for what a region is).
    regions: Vec<JointRegion>,
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
        let mut out = Self {
            measure,
            total: 0.0,
            regions: joint_regions(scene, rest),
        };
        out.total = out.whole(scene, rest);
        out
    }

    /// Skins `scene` at its rest pose (LBS, as every ratio's reference) and measures it.
    #[must_use]
    pub fn at_rest(scene: &Scene) -> Self {
        let rest = skin_scene(
            scene,
            &Pose::rest(scene),
            SkinningMode::Lbs,
            Betas::Uniform(0.0),
        );
        Self::new(scene, &rest)
    }

    /// Every joint region, by joint node.
    #[must_use]
    pub fn regions(&self) -> &[JointRegion] {
        &self.regions
    }

    /// The regions whose ratio means nothing even at rest, with the reason: (joint node, why).
    #[must_use]
    pub fn not_measurable(&self) -> Vec<(usize, super::NotMeasurable)> {
        self.regions
            .iter()
            .filter_map(|r| Some((r.joint, r.not_measurable?)))
            .collect()
    }

    /// The region of joint node `joint`, if it has one.
    #[must_use]
    pub fn region(&self, joint: usize) -> Option<&JointRegion> {
        self.regions.iter().find(|r| r.joint == joint)
    }

    /// The region of joint node `joint`, or an error naming the joints that have one.
    pub fn region_of(&self, scene: &Scene, joint: usize) -> Result<&JointRegion, RegionError> {
        self.region(joint).ok_or_else(|| {
            let name = scene
                .nodes
                .get(joint)
                .map_or_else(|| format!("node {joint}"), |n| n.name.clone());
            let with_region = self.regions.iter().map(|r| r.joint);
            RegionError::NoRegion {
                valid: region::nearest_names(scene, with_region, &name),
                name,
                node: joint,
            }
        })
    }

    /// The whole-mesh measure of a posed scene (volume or area, skinned primitives only).
    fn whole(&self, scene: &Scene, posed: &[PosedPrimitive]) -> f64 {
        posed
            .iter()
            .filter(|p| p.skinned)
            .map(|p| match self.measure {
                Measure::Volume => {
                    signed_volume(&p.vertices.positions, indices(scene, p), Vec3::ZERO)
                }
                Measure::Area => area(&p.vertices.positions, indices(scene, p)),
            })
            .sum()
    }

    /// The whole-mesh ratio to rest of a posed scene.
    #[must_use]
    pub fn whole_ratio(&self, scene: &Scene, posed: &[PosedPrimitive]) -> f64 {
        let now = self.whole(scene, posed);
        if self.total.abs() > 1e-30 {
            now / self.total
        } else {
            1.0
        }
    }

    /// Ratios to rest of a posed scene: the whole mesh, and each region measurable there
    /// (joint node, ratio); [`Self::not_measurable`] lists the regions never measured.
    #[must_use]
    pub fn ratios(&self, scene: &Scene, posed: &[PosedPrimitive]) -> (f64, Vec<(usize, f64)>) {
        let per_region = self
            .regions
            .iter()
            .filter_map(|r| Some((r.joint, r.ratio(posed).ok()?)))
            .collect();
        (self.whole_ratio(scene, posed), per_region)
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

/// The scene primitive a posed primitive came from.
fn source<'s>(scene: &'s Scene, p: &PosedPrimitive) -> Option<&'s crate::scene::Primitive> {
    scene
        .meshes
        .get(p.mesh)
        .and_then(|m| m.primitives.get(p.primitive))
}

/// The triangle indices of a posed primitive.
fn indices<'s>(scene: &'s Scene, p: &PosedPrimitive) -> &'s [u32] {
    source(scene, p).map_or(&[], |s| s.triangles())
}
