//! The region a joint influences, posed, for a camera to frame.

use glam::Vec3;
use thiserror::Error;

use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{Betas, SkinningMode, skin_scene};

/// Smallest weight on a joint that puts a vertex in the joint's region.
///
/// 0.05 keeps the falloff of a smooth weight map (where LBS and DQS differ most) and drops
/// the stray 1-2% weights painting tools leave far from the joint.
pub const FOCUS_WEIGHT_THRESHOLD: f32 = 0.05;

/// Margin added on every side of a joint's region, as a fraction of its half diagonal.
pub const FOCUS_MARGIN: f32 = 0.15;

/// The posed vertices a joint influences: their world-space bounds, with the margin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FocusRegion {
    /// Smallest corner, world space, margin included.
    pub min: Vec3,
    /// Largest corner, world space, margin included.
    pub max: Vec3,
    /// Vertices whose weight on the joint is above the threshold.
    pub vertices: usize,
}

impl FocusRegion {
    /// The centre of the bounds.
    #[must_use]
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Half the diagonal of the bounds: the radius of a sphere holding the region.
    #[must_use]
    pub fn radius(&self) -> f32 {
        (self.max - self.min).length() * 0.5
    }

    /// The smallest region holding both (vertex counts add up).
    #[must_use]
    pub fn union(self, other: Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
            vertices: self.vertices + other.vertices,
        }
    }
}

/// Why a joint's region cannot be framed.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum FocusError {
    /// The node is not a joint of any skin.
    #[error("node {node} `{name}` is not a joint of any skin")]
    NotAJoint {
        /// Node index.
        node: usize,
        /// Node name.
        name: String,
    },
    /// No vertex of any skinned primitive weighs the joint above the threshold.
    #[error(
        "joint `{name}` (node {node}) influences no vertex (no weight above {threshold}); pick a joint that moves the mesh"
    )]
    NoInfluence {
        /// Node index.
        node: usize,
        /// Node name.
        name: String,
        /// The weight threshold, [`FOCUS_WEIGHT_THRESHOLD`].
        threshold: f32,
    },
}

/// The region joint node `joint` influences at `pose`: every vertex of every skinned primitive
/// whose summed weight on the joint is above [`FOCUS_WEIGHT_THRESHOLD`], posed with DQS (which
/// keeps the region's volume), bounds grown by [`FOCUS_MARGIN`].
pub fn focus_region(scene: &Scene, pose: &Pose, joint: usize) -> Result<FocusRegion, FocusError> {
    let name = scene
        .nodes
        .get(joint)
        .map_or_else(String::new, |n| n.name.clone());
    if !scene.skins.iter().any(|s| s.joints.contains(&joint)) {
        return Err(FocusError::NotAJoint { node: joint, name });
    }
    let posed = skin_scene(scene, pose, SkinningMode::Dqs, Betas::Uniform(1.0));
    let mut bounds: Option<(Vec3, Vec3)> = None;
    let mut vertices = 0;
    for prim in &posed {
        let Some((skin, _, influences)) = prim.skinned_source(scene) else {
            continue;
        };
        let Some(skin) = scene.skins.get(skin) else {
            continue;
        };
        // Skin-local indices of the joint (a node may be listed more than once).
        let locals: Vec<u16> = skin
            .joints
            .iter()
            .enumerate()
            .filter(|&(_, &node)| node == joint)
            .filter_map(|(i, _)| u16::try_from(i).ok())
            .collect();
        if locals.is_empty() {
            continue;
        }
        for (row, &p) in influences.iter().zip(&prim.vertices.positions) {
            let weight: f32 = row
                .iter()
                .filter(|i| locals.contains(&i.joint))
                .map(|i| i.weight)
                .sum();
            if weight > FOCUS_WEIGHT_THRESHOLD && p.is_finite() {
                vertices += 1;
                bounds = Some(bounds.map_or((p, p), |(lo, hi)| (lo.min(p), hi.max(p))));
            }
        }
    }
    let Some((lo, hi)) = bounds else {
        return Err(FocusError::NoInfluence {
            node: joint,
            name,
            threshold: FOCUS_WEIGHT_THRESHOLD,
        });
    };
    // A region of one vertex still needs a size to frame.
    let margin = ((hi - lo).length() * 0.5 * FOCUS_MARGIN).max(1e-3);
    Ok(FocusRegion {
        min: lo - Vec3::splat(margin),
        max: hi + Vec3::splat(margin),
        vertices,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{JointAngles, JointOverrides, find_node};
    use crate::builtin::builtin_scene;

    #[test]
    fn the_tip_region_of_the_twist_tube_is_its_upper_part() {
        let scene = builtin_scene("twist").expect("builtin");
        let tip = find_node(&scene, "tip").expect("tip");
        let base = find_node(&scene, "base").expect("base");
        let pose = Pose::rest(&scene);
        let region = focus_region(&scene, &pose, tip).expect("tip moves vertices");
        let whole = crate::skin::rest_bounds(&scene).expect("vertices");
        // The tube runs along +Y; the tip joint moves its upper half, blended near the middle.
        let height = whole.1.y - whole.0.y;
        assert!(region.max.y > whole.1.y, "{region:?} vs {whole:?}");
        assert!(
            region.min.y > whole.0.y + 0.2 * height,
            "{region:?} reaches the bottom of {whole:?}"
        );
        let base_region = focus_region(&scene, &pose, base).expect("base");
        assert!(base_region.center().y < region.center().y);
        assert!(
            region.vertices > 0 && region.vertices < scene.meshes[0].primitives[0].positions.len()
        );
    }

    #[test]
    fn the_region_follows_the_pose() {
        let scene = builtin_scene("elbow").expect("builtin");
        let joint = scene.skins[0].joints[1];
        let rest = focus_region(&scene, &Pose::rest(&scene), joint).expect("rest");
        let mut overrides = JointOverrides::new();
        overrides.set(
            joint,
            JointAngles {
                bend_deg: 90.0,
                ..JointAngles::default()
            },
        );
        let mut pose = Pose::rest(&scene);
        pose.sample(&scene, None, 0.0, &overrides);
        let bent = focus_region(&scene, &pose, joint).expect("bent");
        assert!(
            (bent.center() - rest.center()).length() > 0.1 * rest.radius(),
            "{rest:?} -> {bent:?}"
        );
    }

    #[test]
    fn nodes_that_are_no_joint_or_move_nothing_are_errors() {
        let mut scene = builtin_scene("twist").expect("builtin");
        let mesh_node = scene
            .nodes
            .iter()
            .position(|n| n.mesh.is_some())
            .expect("mesh node");
        let pose = Pose::rest(&scene);
        assert!(matches!(
            focus_region(&scene, &pose, mesh_node),
            Err(FocusError::NotAJoint { .. })
        ));
        // Every weight moved off `tip`: it is a joint that influences nothing.
        let tip = find_node(&scene, "tip").expect("tip");
        let local = scene.skins[0]
            .joints
            .iter()
            .position(|&j| j == tip)
            .expect("tip in skin") as u16;
        for prim in &mut scene.meshes[0].primitives {
            if let Some(inf) = &prim.influences {
                let rows: Vec<Vec<(u16, f32)>> = inf
                    .iter()
                    .map(|row| {
                        let total: f32 = row.iter().map(|i| i.weight).sum();
                        vec![(if local == 0 { 1 } else { 0 }, total)]
                    })
                    .collect();
                prim.influences = Some(crate::influences::Influences::from_rows(rows));
            }
        }
        let err = focus_region(&scene, &pose, tip).expect_err("no weight on tip");
        assert!(err.to_string().contains("influences no vertex"), "{err}");
    }
}
