//! `dqview blend`'s pose under review (`--twist/--bend/--roll`) and its before/after table.

use anyhow::Result;
use rayon::prelude::*;

use super::BlendArgs;
use crate::analysis::{compare_fit, review_maps};
use crate::anim::JointOverrides;
use crate::anim::Pose;
use crate::pose_request::PoseRequest;
use crate::scene::Scene;
use crate::skin::{
    BetaChoice, BetaSources, FitPose, SceneBetas, SceneCenters, SkinningMode, SweepKind,
    hybrid_betas, skin_scene_cor, skin_scene_hybrid,
};

/// Most fit poses searched for the worst one when no pose is under review.
const WORST_OF: usize = 24;

/// The pose under review and the joint whose region the table shows.
pub(super) struct Review {
    /// The rest pose with the given joint angles, when any were given.
    pub pose: Option<FitPose>,
    /// The given joint angles (empty without a pose under review).
    pub overrides: JointOverrides,
    /// The first joint given an angle, else the first swept joint.
    joint: Option<usize>,
}

impl Review {
    /// Resolves `--twist/--bend/--roll` (and the region's joint) against `scene`.
    pub fn of(scene: &Scene, args: &BlendArgs) -> Result<Self> {
        let request = PoseRequest {
            twist: args.twist.clone(),
            bend: args.bend.clone(),
            roll: args.roll.clone(),
            ..PoseRequest::default()
        };
        let overrides = request.resolve(scene)?.overrides;
        let mut joint = overrides.angles.keys().next().copied();
        for (list, kind, flag) in [
            (&args.sweep, SweepKind::Twist, "--sweep"),
            (&args.bend_sweep, SweepKind::Bend, "--bend-sweep"),
        ] {
            if let (None, Some(spec)) = (joint, list.first()) {
                joint = Some(super::blend::parse_sweep(scene, spec, kind, flag)?.node);
            }
        }
        let pose = (!overrides.angles.is_empty()).then(|| FitPose {
            clip: None,
            time_s: 0.0,
            overrides: overrides.clone(),
        });
        Ok(Self {
            pose,
            overrides,
            joint,
        })
    }

    /// Prints joint flags, the file's map as stored, and the fitted map beside LBS, DQS and
    /// CoR at the pose under review (without one: the fit pose where the stored betas stray
    /// farthest from CoR), for the whole mesh and the joint's region.
    pub fn print(
        &self,
        scene: &Scene,
        centers: &SceneCenters,
        poses: &[FitPose],
        fitted: &SceneBetas,
    ) {
        let stored = SceneBetas::defaults(scene, None, &self.overrides);
        let flags_only = BetaSources {
            choice: BetaChoice::JointFlags,
            ..BetaSources::stored(None, &self.overrides)
        };
        let flags = hybrid_betas(scene, &flags_only).betas;
        let (pose, what) = match &self.pose {
            Some(p) => (p.clone(), "the pose under review".to_string()),
            None => {
                let worst = worst_pose(scene, centers, poses, &stored);
                let what = match worst.clip {
                    Some(c) => format!("the fit's worst pose (clip {c} at {:.3} s)", worst.time_s),
                    None => "the fit's worst pose (a sweep)".to_string(),
                };
                (worst, what)
            }
        };
        let maps = review_maps(&flags, &stored, false, fitted);
        let table = compare_fit(scene, centers, &pose.to_pose(scene), self.joint, &maps).table();
        println!("before/after at {what}:");
        for line in table.lines() {
            println!("  {line}");
        }
    }
}

/// Of up to [`WORST_OF`] fit poses spread over the list, the one whose hybrid with `betas`
/// lies farthest (mean vertex distance) from CoR.
fn worst_pose(
    scene: &Scene,
    centers: &SceneCenters,
    poses: &[FitPose],
    betas: &SceneBetas,
) -> FitPose {
    let step = poses.len().div_ceil(WORST_OF).max(1);
    let picked: Vec<&FitPose> = poses.iter().step_by(step).collect();
    let scored: Vec<(f64, &FitPose)> = picked
        .par_iter()
        .with_min_len(crate::anim::items_per_worker(picked.len()))
        .map_init(
            || Pose::rest(scene),
            |pose, p| {
                p.pose_into(scene, pose);
                let cor = skin_scene_cor(scene, pose, centers);
                let hybrid = skin_scene_hybrid(scene, pose, SkinningMode::Hybrid, betas, 1.0);
                let mut sum = 0.0f64;
                for (a, b) in hybrid.iter().zip(&cor).filter(|(a, _)| a.skinned) {
                    for (x, y) in a.vertices.positions.iter().zip(&b.vertices.positions) {
                        sum += f64::from((*x - *y).length());
                    }
                }
                (sum, *p)
            },
        )
        .collect();
    scored
        .into_iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or_else(FitPose::default, |(_, p)| p.clone())
}
