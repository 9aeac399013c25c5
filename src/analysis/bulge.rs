//! The bulge of a posed scene: how far hinge vertices stand out from the bent limb axis.

use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{PosedPrimitive, SkinSkeleton};

/// Largest outward displacement of a hinge vertex over the mean rest radius; `None` without hinges.
///
/// A hinge vertex is one whose two heaviest influences are a joint and its
/// parent (the elbow region of `builtin:elbow`). Its radius is its distance
/// from the limb axis near the hinge (see [`crate::skin::HingeAxis`]): at rest
/// from the bind-space axis, posed from the axis moved by the two joints. The
/// bulge is max(posed radius - rest radius) over the region, divided by the
/// region's mean rest radius: 0 when no vertex moves outwards.
#[must_use]
pub fn bulge(scene: &Scene, pose: &Pose, posed: &[PosedPrimitive]) -> Option<f32> {
    let mut max_excess = f32::NEG_INFINITY;
    let mut rest_sum = 0.0f64;
    let mut count = 0usize;
    let mut matrices = Vec::new();
    let mut skeletons: Vec<Option<SkinSkeleton>> = vec![None; scene.skins.len()];
    for p in posed.iter() {
        let Some((skin, prim, influences)) = p.skinned_source(scene) else {
            continue;
        };
        let Some(slot) = skeletons.get_mut(skin) else {
            continue;
        };
        let skeleton = slot.get_or_insert_with(|| SkinSkeleton::of(scene, skin));
        pose.skinning_matrices(scene, skin, &mut matrices);
        crate::skin::count_visits(prim.positions.len());
        for (v, (&bind, &skinned)) in prim.positions.iter().zip(&p.vertices.positions).enumerate() {
            let Some((parent, child, axis)) = skeleton.hinge(influences.of(v)) else {
                continue;
            };
            let (Some(&mp), Some(&mc)) = (matrices.get(parent), matrices.get(child)) else {
                continue;
            };
            let rest = axis.distance(bind);
            let now = axis.posed(mp, mc).distance(skinned);
            if rest.is_finite() && now.is_finite() {
                max_excess = max_excess.max(now - rest);
                rest_sum += f64::from(rest);
                count += 1;
            }
        }
    }
    if count == 0 || rest_sum <= 0.0 {
        return None;
    }
    Some(max_excess / (rest_sum / count as f64) as f32)
}
