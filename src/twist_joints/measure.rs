//! How much a rig with roll joints gains: one joint region's volume (or area) ratio to rest
//! and its mean distance from CoR, for LBS before and after, DQS and CoR, at one pose.
//!
//! The region is the input's (the triangles whose first corner's heaviest influence is the
//! joint at rest), measured on both rigs: they share every vertex.

use crate::analysis::{JointRegion, RestReference};
use crate::anim::{JointOverrides, Pose};
use crate::scene::Scene;
use crate::skin::{Betas, PosedPrimitive, SceneCenters, SkinningMode, skin_scene, skin_scene_cor};

/// A pose to measure at: a clip moment (or the rest pose) with joint overrides on top.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasurePose {
    /// Clip index, `None` for the rest pose.
    pub clip: Option<usize>,
    /// Seconds into the clip.
    pub time_s: f32,
    /// Joint angles on top (node indices of the input, which the output keeps).
    pub overrides: JointOverrides,
}

/// One joint region at one pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionFigures {
    /// Ratio to rest: LBS of the input.
    pub lbs_before: f64,
    /// Ratio to rest: LBS of the rig with roll joints.
    pub lbs_after: f64,
    /// Ratio to rest: DQS of the input.
    pub dqs: f64,
    /// Ratio to rest: CoR of the input.
    pub cor: f64,
    /// Mean distance of the region's vertices from their CoR positions over the rest
    /// bounding-box diagonal: LBS before.
    pub cor_distance_before: f64,
    /// The same for LBS after.
    pub cor_distance_after: f64,
    /// The same for DQS.
    pub cor_distance_dqs: f64,
}

impl RegionFigures {
    /// How far LBS after went from LBS before towards CoR (1: all the way; negative: away).
    #[must_use]
    pub fn gain_towards_cor(&self) -> f64 {
        let gap = self.cor - self.lbs_before;
        if gap.abs() < 1e-9 {
            if (self.lbs_after - self.cor).abs() < 1e-9 {
                1.0
            } else {
                0.0
            }
        } else {
            (self.lbs_after - self.lbs_before) / gap
        }
    }
}

/// Skins both rigs at `pose` and measures `region` (the input's) in each mode.
#[must_use]
pub fn measure_region(
    input: &Scene,
    output: &Scene,
    region: &JointRegion,
    centers: &SceneCenters,
    pose: &MeasurePose,
    diagonal: f32,
) -> RegionFigures {
    let posed = |scene: &Scene| {
        let mut p = Pose::rest(scene);
        p.sample(scene, pose.clip, pose.time_s, &pose.overrides);
        p
    };
    let (pose_in, pose_out) = (posed(input), posed(output));
    let lbs_before = skin_scene(input, &pose_in, SkinningMode::Lbs, Betas::Uniform(0.0));
    let lbs_after = skin_scene(output, &pose_out, SkinningMode::Lbs, Betas::Uniform(0.0));
    let dqs = skin_scene(input, &pose_in, SkinningMode::Dqs, Betas::Uniform(0.0));
    let cor = skin_scene_cor(input, &pose_in, centers);
    let distance = |posed: &[PosedPrimitive]| {
        mean_distance(region, posed, &cor) / f64::from(diagonal.max(1e-12))
    };
    RegionFigures {
        lbs_before: region.ratio(&lbs_before),
        lbs_after: region.ratio(&lbs_after),
        dqs: region.ratio(&dqs),
        cor: region.ratio(&cor),
        cor_distance_before: distance(&lbs_before),
        cor_distance_after: distance(&lbs_after),
        cor_distance_dqs: distance(&dqs),
    }
}

/// The mean distance of the region's vertices between `a` and `b`.
fn mean_distance(region: &JointRegion, a: &[PosedPrimitive], b: &[PosedPrimitive]) -> f64 {
    let mut sum = 0.0;
    let mut count = 0usize;
    for (prim, vertices) in region.vertices_by_primitive() {
        let (Some(pa), Some(pb)) = (a.get(prim), b.get(prim)) else {
            continue;
        };
        for &v in &vertices {
            let (Some(x), Some(y)) = (
                pa.vertices.positions.get(v as usize),
                pb.vertices.positions.get(v as usize),
            ) else {
                continue;
            };
            sum += f64::from(x.distance(*y));
            count += 1;
        }
    }
    if count == 0 { 0.0 } else { sum / count as f64 }
}

/// The input's rest reference (regions and rest measures), to measure both rigs against.
#[must_use]
pub fn rest_reference(input: &Scene) -> RestReference {
    RestReference::at_rest(input)
}
