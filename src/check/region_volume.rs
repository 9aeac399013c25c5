//! Joint-region ratios for `lbs_collapse`, kept apart so a finer per-joint measure can replace it.
//!
//! A region is an [`crate::analysis::JointRegion`] (the triangles whose first corner's heaviest
//! influence is the joint, its openings capped): by volume where that is meaningful (it closes,
//! its caps are not most of it, its rest volume is well above zero for its size), else by area;
//! regions too small to say anything are skipped, and regions whose ratio means nothing (too
//! few triangles, no rest size; or inside out at a pose) are not measured. Each region not measured by volume is a
//! [`RegionNote`] with the reason, for `--json`.

use serde::Serialize;

use super::node_name;
use crate::analysis::{Measure, RestReference};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{Betas, SceneCenters, SkinningMode, skin_scene, skin_scene_cor};

/// Regions with fewer than this share of all regions' triangles are left out: a handful of
/// triangles around a joint measure almost nothing, and their ratio is noise.
const MIN_REGION_SHARE: f64 = 0.002;

/// A joint region `lbs_collapse` measures by area, or skips, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegionNote {
    /// The joint's node name.
    pub joint: String,
    /// The joint's node index.
    pub node: usize,
    /// `area` (measured by its area), `skipped` (too small a share to matter) or
    /// `not measurable` (its ratio would say nothing: [`crate::analysis::NotMeasurable`]).
    pub measure: &'static str,
    /// Why, for a person.
    pub reason: String,
}

/// The rest measure of every joint region of a scene, to compare posed regions with.
pub(super) struct RegionVolumes {
    /// Rest measures and triangle regions.
    reference: RestReference,
    /// Joint nodes whose region is measured.
    kept: Vec<usize>,
    /// The regions measured by area or skipped, with the reason.
    notes: Vec<RegionNote>,
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
        let mut kept = Vec::new();
        let mut notes = Vec::new();
        for r in reference.regions() {
            let note = |measure, reason| RegionNote {
                joint: node_name(scene, r.joint),
                node: r.joint,
                measure,
                reason,
            };
            let share = r.triangles as f64 / total.max(1) as f64;
            if share < MIN_REGION_SHARE {
                notes.push(note(
                    "skipped",
                    format!(
                        "{} triangles, {:.2}% of the regions' (under {}%): too few to measure",
                        r.triangles,
                        100.0 * share,
                        100.0 * MIN_REGION_SHARE
                    ),
                ));
                continue;
            }
            if let Some(why) = r.not_measurable {
                notes.push(note("not measurable", why.text()));
                continue;
            }
            if let Some(reason) = r.area_reason {
                notes.push(note("area", reason.text()));
            }
            kept.push(r.joint);
        }
        // Regions come by joint node; kept sorted for the lookups.
        kept.sort_unstable();
        (!kept.is_empty() || !notes.is_empty()).then_some(Self {
            reference,
            kept,
            notes,
        })
    }

    /// The regions measured by area or skipped, with the reason.
    pub(super) fn notes(&self) -> &[RegionNote] {
        &self.notes
    }

    /// Whether joint node `joint`'s region is measured by volume or by area.
    pub(super) fn measure(&self, joint: usize) -> Measure {
        self.reference
            .region(joint)
            .map_or(Measure::Area, |r| r.measure)
    }

    /// Each measured region's ratio to rest at `pose` skinned with `mode`: (joint node, ratio).
    pub(super) fn ratios(
        &self,
        scene: &Scene,
        pose: &Pose,
        mode: SkinningMode,
    ) -> Vec<(usize, f64)> {
        let posed = skin_scene(scene, pose, mode, Betas::Uniform(0.0));
        self.kept_ratios(scene, &posed)
    }

    /// Each measured region's ratio to rest at `pose` skinned with CoR about `centers`.
    pub(super) fn cor_ratios(
        &self,
        scene: &Scene,
        pose: &Pose,
        centers: &SceneCenters,
    ) -> Vec<(usize, f64)> {
        let posed = skin_scene_cor(scene, pose, centers);
        self.kept_ratios(scene, &posed)
    }

    /// The kept regions' ratios on `posed`.
    fn kept_ratios(
        &self,
        scene: &Scene,
        posed: &[crate::skin::PosedPrimitive],
    ) -> Vec<(usize, f64)> {
        let (_, regions) = self.reference.ratios(scene, posed);
        regions
            .into_iter()
            .filter(|(joint, _)| self.kept.binary_search(joint).is_ok())
            .collect()
    }
}
