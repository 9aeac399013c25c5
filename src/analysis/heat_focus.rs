//! Heat ranges of a picture framed on a joint: over the vertices of its focus region only, so
//! the joint in view spans the colour scale even where another part of the body strays further.

use super::heat::{HeatBetas, HeatQuantity, HeatRange, HeatRangeSpec, heat_values};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::SkinningMode;

/// Like [`pose_heat_range`] over the vertices of joint node `joint`'s focus region only
/// (weight on the joint above [`super::FOCUS_WEIGHT_THRESHOLD`]): the range of a picture
/// framed on the joint (`render --focus`, `report`'s region pictures).
#[must_use]
pub fn focus_heat_range(
    scene: &Scene,
    pose: &Pose,
    (quantity, modes): (HeatQuantity, &[SkinningMode]),
    betas: HeatBetas<'_>,
    diagonal: f32,
    spec: HeatRangeSpec,
    joint: usize,
) -> HeatRange {
    let mask = focus_vertex_mask(scene, joint);
    heat_range_over(
        scene,
        pose,
        (quantity, modes),
        betas,
        diagonal,
        spec,
        Some(&mask),
    )
}

/// [`pose_heat_range`] over the vertices `mask` keeps ([`heat_values`]' order; all without one).
pub(super) fn heat_range_over(
    scene: &Scene,
    pose: &Pose,
    (quantity, modes): (HeatQuantity, &[SkinningMode]),
    betas: HeatBetas<'_>,
    diagonal: f32,
    spec: HeatRangeSpec,
    mask: Option<&[bool]>,
) -> HeatRange {
    if let HeatRangeSpec::Fixed(range) = spec {
        return range;
    }
    let modes: &[SkinningMode] = match quantity {
        HeatQuantity::Displacement => &[SkinningMode::Dqs],
        HeatQuantity::Collapse | HeatQuantity::CorDistance => modes,
    };
    modes
        .iter()
        .map(|&mode| {
            let mut values = heat_values(scene, pose, quantity, mode, betas, diagonal);
            if let Some(mask) = mask {
                let mut keep = mask.iter();
                values.retain(|_| keep.next().copied().unwrap_or(false));
            }
            spec.range_of(quantity, &values)
        })
        .reduce(HeatRange::union)
        .unwrap_or_else(|| quantity.default_range())
}

/// Per vertex of each skinned primitive ([`heat_values`]' order: mesh nodes with a skin in
/// node order, their primitives with influences in order): whether its weight on joint node
/// `joint` is above [`super::FOCUS_WEIGHT_THRESHOLD`], as [`super::focus_region`] selects.
fn focus_vertex_mask(scene: &Scene, joint: usize) -> Vec<bool> {
    let mut out = Vec::new();
    for node in &scene.nodes {
        let (Some(mesh), Some(skin)) = (node.mesh, node.skin) else {
            continue;
        };
        let (Some(mesh), Some(skin)) = (scene.meshes.get(mesh), scene.skins.get(skin)) else {
            continue;
        };
        for prim in &mesh.primitives {
            let Some(influences) = &prim.influences else {
                continue;
            };
            out.extend(influences.iter().map(|row| {
                let weight: f32 = row
                    .iter()
                    .filter(|i| skin.joints.get(usize::from(i.joint)) == Some(&joint))
                    .map(|i| i.weight)
                    .sum();
                weight > super::FOCUS_WEIGHT_THRESHOLD
            }));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::heat::tests::{ONE, twisted};
    use crate::analysis::pose_heat_range;

    #[test]
    fn cor_distance_is_zero_in_cor_and_a_focus_range_keeps_to_the_joints_vertices() {
        use crate::skin::{CorOptions, CorProgress, SceneCenters};
        let (scene, pose, diagonal) = twisted(150.0);
        let centers = SceneCenters::compute(&scene, &CorOptions::default(), &CorProgress::new())
            .expect("centers");
        let betas = HeatBetas {
            centers: Some(&centers),
            ddm: None,
            ..ONE
        };
        let q = HeatQuantity::CorDistance;
        let cor = heat_values(&scene, &pose, q, SkinningMode::Cor, betas, diagonal);
        assert!(cor.iter().all(|&v| v == 0.0), "CoR is its own reference");
        let lbs = heat_values(&scene, &pose, q, SkinningMode::Lbs, betas, diagonal);
        assert_eq!(lbs.len(), cor.len());
        let max = lbs.iter().copied().fold(0.0_f32, f32::max);
        // The pinched middle ring: LBS near the axis, CoR near the rest radius 0.25.
        assert!(max * diagonal > 0.1, "{}", max * diagonal);
        let spec = HeatRangeSpec::default();
        let modes = [SkinningMode::Lbs, SkinningMode::Cor];
        let whole = pose_heat_range(&scene, &pose, q, &modes, betas, diagonal, spec);
        assert_eq!(whole, HeatRange { lo: 0.0, hi: max });
        // Focused on `base`: only the vertices weighing it above the threshold count.
        let base = crate::scene::names::joint(&scene, "base").expect("base");
        let mask = focus_vertex_mask(&scene, base);
        assert_eq!(mask.len(), lbs.len());
        assert!(mask.iter().any(|&m| m) && !mask.iter().all(|&m| m));
        let kept = lbs
            .iter()
            .zip(&mask)
            .filter(|(_, m)| **m)
            .map(|(v, _)| *v)
            .fold(0.0_f32, f32::max);
        let focused = focus_heat_range(&scene, &pose, (q, &modes), betas, diagonal, spec, base);
        assert_eq!(focused.hi, kept.max(q.min_span()));
    }
}
