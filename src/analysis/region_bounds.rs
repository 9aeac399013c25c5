//! The box around what a joint moves (every vertex it weighs on above `REGION_WEIGHT`, posed),
//! for framing a camera on it; broader than the `JointRegion` that `analyze --joint` measures.

use glam::Vec3;

use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{Betas, SkinningMode, skin_scene};

/// A vertex belongs to a joint's region when that joint's weight on it is above this.
pub const REGION_WEIGHT: f32 = 0.05;

/// The box around the region joint (node) `node` moves at `pose`: every skinned vertex whose
/// weight on it is above [`REGION_WEIGHT`], posed with LBS, grown by a tenth of its size on
/// each side; `None` when the joint weighs on no vertex.
#[must_use]
pub fn joint_region_bounds(scene: &Scene, pose: &Pose, node: usize) -> Option<(Vec3, Vec3)> {
    let posed = skin_scene(scene, pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let mut bounds: Option<(Vec3, Vec3)> = None;
    for p in &posed {
        let Some((skin, _, influences)) = p.skinned_source(scene) else {
            continue;
        };
        let Some(joint) = scene.skins[skin].joints.iter().position(|&j| j == node) else {
            continue;
        };
        for (v, row) in influences.iter().enumerate() {
            let weight = row
                .iter()
                .find(|i| usize::from(i.joint) == joint)
                .map_or(0.0, |i| i.weight);
            if weight > REGION_WEIGHT
                && let Some(&q) = p.vertices.positions.get(v)
            {
                bounds = Some(bounds.map_or((q, q), |(lo, hi)| (lo.min(q), hi.max(q))));
            }
        }
    }
    bounds.map(|(lo, hi)| {
        let margin = (hi - lo) * 0.1 + Vec3::splat(1e-4);
        (lo - margin, hi + margin)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tip_region_is_the_upper_tube_and_follows_the_pose() {
        let scene = crate::model::load_model("builtin:twist").expect("builtin");
        let tip = crate::anim::find_node(&scene, "tip").expect("tip");
        let base = crate::anim::find_node(&scene, "base").expect("base");
        let rest = Pose::rest(&scene);
        let (lo, hi) = joint_region_bounds(&scene, &rest, tip).expect("tip moves vertices");
        // Tip weights rise from y = 0.5 (smoothstep), so its region is the upper tube, y 0.5..2.
        assert!(lo.y > 0.3 && lo.y < 0.6, "{lo}");
        assert!(hi.y > 2.0 && hi.y < 2.3, "{hi}");
        let (blo, bhi) = joint_region_bounds(&scene, &rest, base).expect("base");
        assert!(blo.y < 0.0 && bhi.y < 1.7, "{blo} {bhi}");
        // Bent 90 degrees about z, the tip region swings sideways.
        let mut overrides = crate::anim::JointOverrides::new();
        overrides.set(
            tip,
            crate::anim::JointAngles {
                bend_deg: 90.0,
                ..Default::default()
            },
        );
        let mut bent = Pose::rest(&scene);
        bent.sample(&scene, None, 0.0, &overrides);
        let (blo, bhi) = joint_region_bounds(&scene, &bent, tip).expect("tip");
        assert!((bhi - blo).x > 0.8, "{blo} {bhi}");
        assert_eq!(joint_region_bounds(&scene, &rest, 999), None);
    }
}
