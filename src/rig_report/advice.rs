//! The report's advice: DQS flips of twist joints, what a fitted blend map gains, joints to flag.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use rayon::prelude::*;

use super::clips::{WorstRegion, deviation};
use super::{Progress, ReportOptions, RigReportError};
use crate::analysis::{BlendPairs, lbs_loses_more, max_vertex_distance, twist_flips};
use crate::anim::{JointOverrides, Pose};
use crate::scene::Scene;
use crate::scene::names::node_name;
use crate::skin::{
    FitOptions, FitPose, HybridFlags, JointSweep, PerMode, SceneBetas, SceneCenters, SkinningMode,
    SweepKind, bounds, fit_blend, skin_scene, skin_scene_cor, skin_scene_hybrid,
};

/// Most joints whose flips are searched.
const MAX_FLIP_JOINTS: usize = 8;
/// LBS ratio (and share of DQS's and CoR's) below which a region counts as collapsing: `check`'s default.
pub const COLLAPSE_RATIO: f64 = crate::check::CheckOptions::DEFAULT.min_volume_ratio;

/// Where twisting a joint flips DQS.
#[derive(Clone, Debug, PartialEq)]
pub struct FlipReport {
    /// The joint (node index).
    pub joint: usize,
    /// Its name.
    pub name: String,
    /// First flip at a positive twist, degrees.
    pub above_deg: Option<f32>,
    /// First flip at a negative twist, degrees.
    pub below_deg: Option<f32>,
    /// Blended joint pairs that flip.
    pub pairs: usize,
}

impl FlipReport {
    /// The nearest flip's distance from 0, degrees (infinite without one).
    #[must_use]
    pub fn nearest_deg(&self) -> f32 {
        [self.above_deg, self.below_deg]
            .into_iter()
            .flatten()
            .map(f32::abs)
            .fold(f32::INFINITY, f32::min)
    }
}

/// The joints whose flips the report searches: joints flagged as twisting (by name, by the
/// clips, or by the overrides), then the joints of the worst DQS and LBS regions, losses and
/// growths together, farthest from 1 first.
#[must_use]
pub fn twist_joints(
    scene: &Scene,
    clips: &[usize],
    overrides: &JointOverrides,
    loss: &PerMode<Vec<WorstRegion>>,
    growth: &PerMode<Vec<WorstRegion>>,
) -> Vec<usize> {
    let mut joints: Vec<usize> = Vec::new();
    let clip_options: Vec<Option<usize>> = std::iter::once(None)
        .chain(clips.iter().copied().map(Some))
        .collect();
    for (s, skin) in scene.skins.iter().enumerate() {
        for &clip in &clip_options {
            let flags = HybridFlags::defaults(scene, s, clip, overrides);
            for (&node, _) in skin.joints.iter().zip(&flags.dqs).filter(|(_, f)| **f) {
                if !joints.contains(&node) {
                    joints.push(node);
                }
            }
        }
    }
    for mode in [SkinningMode::Dqs, SkinningMode::Lbs] {
        let m = mode.index();
        let mut worst: Vec<&WorstRegion> = loss[m].iter().chain(&growth[m]).collect();
        worst.sort_by(|a, b| deviation(b.ratio()).total_cmp(&deviation(a.ratio())));
        for w in worst {
            if !joints.contains(&w.joint) {
                joints.push(w.joint);
            }
        }
    }
    joints.truncate(2 * MAX_FLIP_JOINTS);
    joints
}

/// The DQS flips of each of `joints` twisted on the rest pose, nearest flip first.
#[must_use]
pub fn flip_reports(
    scene: &Scene,
    joints: &[usize],
    overrides: &JointOverrides,
) -> Vec<FlipReport> {
    let pairs: Vec<BlendPairs> = (0..scene.skins.len())
        .map(|s| BlendPairs::of_skin(scene, s))
        .collect();
    let mut out: Vec<FlipReport> = joints
        .par_iter()
        .map(|&joint| {
            let mut report = FlipReport {
                joint,
                name: node_name(scene, joint),
                above_deg: None,
                below_deg: None,
                pairs: 0,
            };
            for p in &pairs {
                let in_skin = scene
                    .skins
                    .get(p.skin)
                    .is_some_and(|s| s.joints.contains(&joint));
                if !in_skin {
                    continue;
                }
                let f = twist_flips(scene, p, joint, None, 0.0, overrides);
                report.above_deg = [report.above_deg, f.above_deg]
                    .into_iter()
                    .flatten()
                    .reduce(f32::min);
                report.below_deg = [report.below_deg, f.below_deg]
                    .into_iter()
                    .flatten()
                    .reduce(f32::max);
                report.pairs += f.pairs.len();
            }
            report
        })
        .collect();
    // Joints that blend with nothing cannot flip: they are left out.
    out.retain(|f| f.pairs > 0);
    out.sort_by(|a, b| a.nearest_deg().total_cmp(&b.nearest_deg()));
    out.truncate(MAX_FLIP_JOINTS);
    out
}

/// Largest vertex distance from CoR over the fit poses, over the rest bounding-box diagonal.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CorDistance {
    /// The largest over all poses.
    pub max: f32,
    /// The mean over poses of each pose's largest.
    pub mean: f32,
}

/// A blend map fitted to CoR over the report's poses, and each mode's distance from CoR.
#[derive(Clone, Debug, PartialEq)]
pub struct FitReport {
    /// Poses fitted over.
    pub poses: usize,
    /// Vertices given a beta.
    pub vertices: usize,
    /// Mean fitted beta.
    pub mean_beta: f32,
    /// Seconds the fit took.
    pub seconds: f64,
    /// LBS, DQS, hybrid by joint flags, hybrid with the fitted map.
    pub distances: [CorDistance; 4],
}

impl FitReport {
    /// Labels of [`FitReport::distances`].
    pub const LABELS: [&'static str; 4] =
        ["LBS", "DQS", "hybrid (joint flags)", "hybrid (fitted map)"];
}

/// Fits a blend map over the report's clips (or twist sweeps of `flip_joints` without
/// clips) and measures every mode's distance from CoR before and after.
pub fn fit_report(
    scene: &Scene,
    centers: &SceneCenters,
    options: &ReportOptions,
    flip_joints: &[usize],
    progress: &Progress<'_>,
    cancel: &AtomicBool,
) -> Result<Option<FitReport>, RigReportError> {
    let poses = fit_poses(scene, options, flip_joints);
    if poses.is_empty() {
        return Ok(None);
    }
    let started = Instant::now();
    let report = |done: usize, total: usize| progress("fit", done, total);
    let fit = fit_blend(
        scene,
        centers,
        &poses,
        &FitOptions::default(),
        &report,
        cancel,
    )?;
    let seconds = started.elapsed().as_secs_f64();
    let rest = skin_scene(
        scene,
        &Pose::rest(scene),
        SkinningMode::Lbs,
        crate::skin::Betas::Uniform(0.0),
    );
    let diagonal = bounds(&rest)
        .map_or(1.0, |(lo, hi)| (hi - lo).length())
        .max(1e-12);
    // Joint flags depend on the clip alone; each costs a scan of the clip over every node, so
    // it is made once per clip, not once per pose (on a million-node file that scan dominated).
    let mut clip_flags: Vec<(Option<usize>, SceneBetas)> = Vec::new();
    for p in &poses {
        if !clip_flags.iter().any(|(c, _)| *c == p.clip) {
            let flags = SceneBetas::defaults(scene, p.clip, &options.overrides);
            clip_flags.push((p.clip, flags));
        }
    }
    let per_pose: Vec<[f32; 4]> = poses
        .par_iter()
        .with_min_len(crate::anim::items_per_worker(poses.len()))
        .map_init(
            || Pose::rest(scene),
            |pose, p| {
                p.pose_into(scene, pose);
                let pose = &*pose;
                let cor = skin_scene_cor(scene, pose, centers);
                let Some((_, flags)) = clip_flags.iter().find(|(c, _)| *c == p.clip) else {
                    return [0.0; 4];
                };
                let d = |mode, betas: &SceneBetas| {
                    max_vertex_distance(&skin_scene_hybrid(scene, pose, mode, betas, 1.0), &cor)
                        / diagonal
                };
                [
                    d(SkinningMode::Lbs, flags),
                    d(SkinningMode::Dqs, flags),
                    d(SkinningMode::Hybrid, flags),
                    d(SkinningMode::Hybrid, &fit.betas),
                ]
            },
        )
        .collect();
    let distances = [0, 1, 2, 3].map(|k| CorDistance {
        max: per_pose.iter().map(|d| d[k]).fold(0.0, f32::max),
        mean: per_pose.iter().map(|d| d[k]).sum::<f32>() / per_pose.len().max(1) as f32,
    });
    Ok(Some(FitReport {
        poses: fit.poses,
        vertices: fit.vertices,
        mean_beta: fit.betas.mean(),
        seconds,
        distances,
    }))
}

/// The fit's poses: `fit_samples` per clip with the overrides, else twist sweeps of up to two
/// flip joints from -180 to 180 degrees, else the single pose.
fn fit_poses(scene: &Scene, options: &ReportOptions, flip_joints: &[usize]) -> Vec<FitPose> {
    let mut poses: Vec<FitPose> = Vec::new();
    for &c in &options.clips {
        poses.extend(
            FitPose::clip_samples(scene, c, options.fit_samples)
                .into_iter()
                .map(|p| FitPose {
                    overrides: options.overrides.clone(),
                    ..p
                }),
        );
    }
    if poses.is_empty() {
        for &node in flip_joints.iter().take(2) {
            let sweep = JointSweep {
                node,
                kind: SweepKind::Twist,
                from_deg: -180.0,
                to_deg: 180.0,
            };
            poses.extend(FitPose::sweep_samples(&sweep, options.fit_samples));
        }
    }
    if poses.is_empty() {
        poses.push(FitPose {
            clip: None,
            time_s: 0.0,
            overrides: options.overrides.clone(),
        });
    }
    poses
}

/// A joint to flag for DQS: LBS collapses its region, DQS keeps the volume.
#[derive(Clone, Debug, PartialEq)]
pub struct DqsCandidate {
    /// Where LBS is worst.
    pub region: WorstRegion,
}

/// The LBS losses (regions that shrink) that LBS loses clearly more of than DQS and CoR at that moment, by
/// `check`'s `lbs_collapse` rule at its default ratio ([`crate::analysis::lbs_loses_more`]).
#[must_use]
pub fn dqs_candidates(lbs_loss: &[WorstRegion]) -> Vec<DqsCandidate> {
    let [l, d, _, c] = [
        SkinningMode::Lbs,
        SkinningMode::Dqs,
        SkinningMode::Hybrid,
        SkinningMode::Cor,
    ]
    .map(SkinningMode::index);
    lbs_loss
        .iter()
        .filter(|w| lbs_loses_more(w.ratios[l], w.ratios[d], Some(w.ratios[c]), COLLAPSE_RATIO))
        .map(|w| DqsCandidate { region: w.clone() })
        .collect()
}
