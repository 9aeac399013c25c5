//! The joints whose twist collapses LBS: `check`'s `lbs_collapse` over the clips, and a
//! 170 degree twist of each joint at rest, both by the rule of [`lbs_loses_more`].

use std::time::{Duration, Instant};

use super::measure::MeasurePose;
use crate::analysis::{Measure, RestReference, lbs_loses_more};
use crate::anim::{JointOverrides, Pose, first_child_joint};
use crate::check::{CheckOptions, Rule, check_scene_with};
use crate::scene::Scene;
use crate::skin::{Betas, SceneCenters, SkinningMode, skin_scene, skin_scene_cor};

/// The twist a sweep tries, in degrees: past it DQS flips.
pub const SWEEP_TWIST_DEG: f32 = 170.0;

/// A joint the analysis picked, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct PickedJoint {
    /// The joint's node index.
    pub joint: usize,
    /// Why, in one line.
    pub reason: String,
    /// Its worst pose: the worst clip moment, else the twist at rest.
    pub worst: MeasurePose,
}

/// The rest pose with `joint` twisted by `twist_deg`.
#[must_use]
pub fn twist_pose(joint: usize, twist_deg: f32) -> MeasurePose {
    MeasurePose {
        clip: None,
        time_s: 0.0,
        overrides: JointOverrides::twist(joint, twist_deg),
    }
}

/// Every joint whose region LBS collapses in a clip or at a 170 degree twist, clips first.
#[must_use]
pub fn pick_joints(
    scene: &Scene,
    reference: &RestReference,
    centers: &SceneCenters,
    time_budget: Duration,
) -> Vec<PickedJoint> {
    let options = CheckOptions {
        time_budget,
        ..CheckOptions::DEFAULT
    };
    let checked = check_scene_with(scene, &options, Some(centers), Instant::now() + time_budget);
    let mut picked: Vec<PickedJoint> = checked
        .findings
        .iter()
        .filter(|f| f.rule == Rule::LbsCollapse)
        .filter_map(|f| {
            let joint = crate::scene::names::node(scene, f.joint.as_deref()?).ok()?;
            let clip = f
                .clip
                .as_deref()
                .and_then(|c| crate::scene::names::clip(scene, c).ok());
            Some(PickedJoint {
                joint,
                reason: format!("in clips: {}", f.detail),
                worst: MeasurePose {
                    clip,
                    time_s: f.time.unwrap_or(0.0),
                    overrides: JointOverrides::new(),
                },
            })
        })
        .filter(|p| first_child_joint(scene, p.joint).is_some())
        .collect();
    for joint in sweep_candidates(scene, reference) {
        if picked.iter().any(|p| p.joint == joint) {
            continue;
        }
        let pose = twist_pose(joint, SWEEP_TWIST_DEG);
        let [lbs, dqs, cor] = region_ratios(scene, reference, centers, joint, &pose);
        if lbs_loses_more(lbs, dqs, Some(cor), options.min_volume_ratio) {
            picked.push(PickedJoint {
                joint,
                reason: format!(
                    "twisted {SWEEP_TWIST_DEG:.0} degrees at rest its region keeps {lbs:.3} of its volume with LBS, {dqs:.3} with DQS, {cor:.3} with CoR"
                ),
                worst: pose,
            });
        }
    }
    picked
}

/// The joints a twist sweep tries: weighted joints with a child joint whose region is
/// measured by volume.
fn sweep_candidates(scene: &Scene, reference: &RestReference) -> Vec<usize> {
    scene
        .joint_nodes()
        .into_iter()
        .filter(|&j| first_child_joint(scene, j).is_some())
        .filter(|&j| {
            reference
                .region(j)
                .is_some_and(|r| r.measure == Measure::Volume)
        })
        .collect()
}

/// Joint `joint`'s region ratio to rest at `pose`: LBS, DQS, CoR.
fn region_ratios(
    scene: &Scene,
    reference: &RestReference,
    centers: &SceneCenters,
    joint: usize,
    pose: &MeasurePose,
) -> [f64; 3] {
    let Some(region) = reference.region(joint) else {
        return [1.0; 3];
    };
    let mut p = Pose::rest(scene);
    p.sample(scene, pose.clip, pose.time_s, &pose.overrides);
    let lbs = skin_scene(scene, &p, SkinningMode::Lbs, Betas::Uniform(0.0));
    let dqs = skin_scene(scene, &p, SkinningMode::Dqs, Betas::Uniform(0.0));
    let cor = skin_scene_cor(scene, &p, centers);
    [region.ratio(&lbs), region.ratio(&dqs), region.ratio(&cor)]
}
