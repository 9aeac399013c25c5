//! Joint-region volume ratios for `lbs_collapse`, kept apart so a finer per-joint measure can replace it.
//!
//! A region is an [`crate::analysis::JointRegion`] (the triangles whose first corner's heaviest
//! influence is the joint, its openings capped: volume when it closes, area when not), as
//! `dqview analyze` reports its worst joints.

use crate::analysis::{Measure, RestReference};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{Betas, SkinningMode, skin_scene};

/// Regions with fewer than this share of all regions' triangles are left out: a handful of
/// triangles around a joint measure almost nothing, and their ratio is noise.
const MIN_REGION_SHARE: f64 = 0.002;

/// The rest measure of every joint region of a scene, to compare posed regions with.
pub(super) struct RegionVolumes {
    /// Rest measures and triangle regions.
    reference: RestReference,
    /// Joint nodes whose region is large enough to report.
    kept: Vec<usize>,
}

impl RegionVolumes {
    /// Measures the rest pose; `None` when the scene has no skinned triangles.
    pub(super) fn new(scene: &Scene) -> Option<Self> {
        let rest = skin_scene(
            scene,
            &Pose::rest(scene),
            SkinningMode::Lbs,
            Betas::Uniform(0.0),
        );
        if !rest.iter().any(|p| p.skinned) {
            return None;
        }
        let reference = RestReference::new(scene, &rest);
        let total: usize = reference.regions().iter().map(|r| r.triangles).sum();
        let kept: Vec<usize> = reference
            .regions()
            .iter()
            .filter(|r| r.rest.abs() > 0.0 && r.triangles as f64 >= MIN_REGION_SHARE * total as f64)
            .map(|r| r.joint)
            .collect();
        (!kept.is_empty()).then_some(Self { reference, kept })
    }

    /// Whether joint node `joint`'s region is measured by volume or by area.
    pub(super) fn measure(&self, joint: usize) -> Measure {
        self.reference
            .region(joint)
            .map_or(Measure::Area, |r| r.measure)
    }

    /// Each kept region's ratio to rest at `pose` skinned with `mode`: (joint node, ratio).
    pub(super) fn ratios(
        &self,
        scene: &Scene,
        pose: &Pose,
        mode: SkinningMode,
    ) -> Vec<(usize, f64)> {
        let posed = skin_scene(scene, pose, mode, Betas::Uniform(0.0));
        let (_, regions) = self.reference.ratios(scene, &posed);
        regions
            .into_iter()
            .filter(|(joint, _)| self.kept.contains(joint))
            .collect()
    }
}
