//! How much a rig with helper joints gains: joint regions' volume (or area) ratios to rest
//! and their mean and largest distance from CoR, for LBS before and after, DQS and CoR, at
//! poses the weight fit never saw (a 170 degree twist, a 120 degree bend, held-out clip keys).
//!
//! A region is the input's (the triangles whose first corner's heaviest influence is the
//! joint at rest), measured on both rigs: they share every vertex.

use super::poses::{PoseSets, check_bend, check_twist};
use crate::analysis::{JointRegion, NotMeasurable, RestReference};
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

/// The four methods measured, in the order of [`RegionFigures::volume`].
pub const METHODS: [&str; 4] = ["LBS", "LBS + helpers", "DQS", "CoR"];

/// One joint region at one pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionFigures {
    /// Ratio to rest: LBS of the input, LBS with helpers, DQS, CoR; or why the region has none.
    pub volume: [Result<f64, NotMeasurable>; 4],
    /// Mean vertex distance from the CoR positions over the rest diagonal: LBS, LBS with
    /// helpers, DQS.
    pub mean_distance: [f64; 3],
    /// The largest vertex distance from the CoR positions over the rest diagonal, likewise.
    pub max_distance: [f64; 3],
}

/// Skins both rigs at `pose` and measures each of `regions` (the input's) in every method.
fn measure_regions(
    input: &Scene,
    output: &Scene,
    regions: &[&JointRegion],
    centers: &SceneCenters,
    pose: &MeasurePose,
    diagonal: f32,
) -> Vec<RegionFigures> {
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
    let scale = 1.0 / f64::from(diagonal.max(1e-12));
    regions
        .iter()
        .map(|region| {
            let d = [&lbs_before, &lbs_after, &dqs].map(|p| distances(region, p, &cor));
            RegionFigures {
                volume: [&lbs_before, &lbs_after, &dqs, &cor].map(|p| region.ratio(p)),
                mean_distance: d.map(|(mean, _)| mean * scale),
                max_distance: d.map(|(_, max)| max * scale),
            }
        })
        .collect()
}

/// The mean and largest distance of the region's vertices between `a` and `b`.
fn distances(region: &JointRegion, a: &[PosedPrimitive], b: &[PosedPrimitive]) -> (f64, f64) {
    let (mut sum, mut max, mut count) = (0.0, 0.0f64, 0usize);
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
            let d = f64::from(x.distance(*y));
            sum += d;
            max = max.max(d);
            count += 1;
        }
    }
    if count == 0 {
        (0.0, 0.0)
    } else {
        (sum / count as f64, max)
    }
}

/// One region judged at the poses the fit never saw.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldOut {
    /// The joint whose region it is.
    pub joint: usize,
    /// At a 170 degree twist of the joint.
    pub twist: RegionFigures,
    /// At a 120 degree bend of the joint in its main bending plane.
    pub bend: RegionFigures,
    /// The held-out clip moment where LBS is farthest from CoR in the region, and its figures.
    pub worst: Option<(MeasurePose, RegionFigures)>,
    /// Held-out clip moments measured.
    pub moments: usize,
    /// Of those, the ones where LBS + helpers is at most DQS's mean distance from CoR (+1e-4).
    pub at_most_dqs: usize,
    /// Of those, the ones where LBS + helpers is no farther from CoR than LBS (+1e-6).
    pub not_worse_than_lbs: usize,
    /// Of those, the ones where LBS + helpers keeps a volume within 0.03 of CoR's (both measurable).
    pub volume_near_cor: usize,
    /// The region's mean distance from CoR over the diagonal, averaged over those moments:
    /// LBS, LBS + helpers, DQS.
    pub moments_mean_distance: [f64; 3],
}

/// Slack on "at most DQS's distance" (of the diagonal), as the targets state it.
pub const DQS_SLACK: f64 = 1e-4;
/// Slack on "no farther than LBS" (of the diagonal): f32 rounding.
pub const LBS_SLACK: f64 = 1e-6;
/// Largest volume ratio gap to CoR that counts as near.
pub const VOLUME_SLACK: f64 = 0.03;

/// Judges the regions of `joints` on the rig `output` (the input `input` with helpers) at the
/// held-out poses; joints without a region are left out.
#[must_use]
pub fn judge_held_out(
    input: &Scene,
    output: &Scene,
    joints: &[usize],
    reference: &RestReference,
    centers: &SceneCenters,
    diagonal: f32,
) -> Vec<HeldOut> {
    let measured: Vec<(usize, &JointRegion)> = joints
        .iter()
        .filter_map(|&j| Some((j, reference.region(j)?)))
        .collect();
    let regions: Vec<&JointRegion> = measured.iter().map(|(_, r)| *r).collect();
    let at = |pose: &MeasurePose| measure_regions(input, output, &regions, centers, pose, diagonal);
    let mut judged: Vec<HeldOut> = measured
        .iter()
        .enumerate()
        .map(|(i, &(joint, _))| HeldOut {
            joint,
            twist: at(&check_twist(joint))[i],
            bend: at(&check_bend(input, joint))[i],
            worst: None,
            moments: 0,
            at_most_dqs: 0,
            not_worse_than_lbs: 0,
            volume_near_cor: 0,
            moments_mean_distance: [0.0; 3],
        })
        .collect();
    let moments = PoseSets::of(input, joints).held_out_moments;
    for pose in &moments {
        for (h, f) in judged.iter_mut().zip(at(pose)) {
            h.count(pose, &f);
        }
    }
    for h in &mut judged {
        let n = h.moments.max(1) as f64;
        h.moments_mean_distance.iter_mut().for_each(|d| *d /= n);
    }
    judged
}

impl HeldOut {
    /// Counts one held-out clip moment.
    fn count(&mut self, pose: &MeasurePose, f: &RegionFigures) {
        self.moments += 1;
        for (sum, d) in self.moments_mean_distance.iter_mut().zip(f.mean_distance) {
            *sum += d;
        }
        let [lbs, after, dqs] = f.mean_distance;
        self.at_most_dqs += usize::from(after <= dqs + DQS_SLACK);
        self.not_worse_than_lbs += usize::from(after <= lbs + LBS_SLACK);
        if let (Ok(after), Ok(cor)) = (f.volume[1], f.volume[3]) {
            self.volume_near_cor += usize::from((after - cor).abs() <= VOLUME_SLACK);
        }
        if self
            .worst
            .as_ref()
            .is_none_or(|(_, w)| lbs > w.mean_distance[0])
        {
            self.worst = Some((pose.clone(), *f));
        }
    }
}

/// The input's rest reference (regions and rest measures), to measure both rigs against.
#[must_use]
pub fn rest_reference(input: &Scene) -> RestReference {
    RestReference::at_rest(input)
}
