//! Rig reports: everything `dqview report` shows about a character, gathered on the CPU.
//!
//! [`gather`] measures a scene (summary, influences, volume over each clip per mode, the
//! worst joint regions, DQS twist flips, a fitted blend map, joint scales) into a
//! [`RigReport`]; [`write_html`] turns it, with pictures made elsewhere (the GPU renders
//! are the caller's), into one self-contained HTML page.

mod advice;
mod clips;
mod finite;
mod html;
mod html_sections;
mod influence_stats;
mod scales;
mod svg;

pub use crate::analysis::ScaleKind;
pub use advice::{
    CorDistance, DqsCandidate, FitReport, FlipReport, fit_report, flip_reports, twist_joints,
};
pub use clips::{
    Change, ClipReport, RegionTrack, UNCHANGED, WorstRegion, clip_report, pictured_regions,
    worst_regions,
};
pub use finite::non_finite_text;
pub use html::{Pictures, RegionPicture, count_word, pane_labels, write_html};
pub use influence_stats::InfluenceStats;
pub use scales::{JointScale, joint_scales};

use std::sync::atomic::AtomicBool;

use crate::analysis::{RatioSeries, SeriesAxis, SeriesRequest, ratio_series_with_region};
use crate::anim::JointOverrides;
use crate::scene::Scene;
use crate::scene::names::node_name;
use crate::skin::ddm::SceneDdm;
use crate::skin::dm::SceneDm;
use crate::skin::{PerMode, SceneBetas, SceneCenters};

/// Errors of gathering a report.
#[derive(Debug, thiserror::Error)]
pub enum RigReportError {
    /// The scene has no skinned primitive, so there is nothing to compare.
    #[error(
        "{0}: no skinned mesh (no node with a skin draws a mesh with weights), so there is nothing to report"
    )]
    NotSkinned(String),
    /// The blend fit failed.
    #[error("blend fit: {0}")]
    Fit(#[from] crate::skin::FitError),
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// Clips to sample; empty: the single pose of `overrides`.
    pub clips: Vec<usize>,
    /// Samples over each clip, both ends included.
    pub samples: usize,
    /// Samples per clip for the blend fit.
    pub fit_samples: usize,
    /// Joint angles on top of every sample.
    pub overrides: JointOverrides,
    /// Regions kept per clip plot and per mode in the worst list.
    pub worst_regions: usize,
}

/// The file's summary.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Where the scene came from.
    pub file: String,
    /// Format, e.g. `glTF`.
    pub format: String,
    /// The tool that wrote it, if it says.
    pub creator: Option<String>,
    /// Metres per unit.
    pub unit_meters: f32,
    /// Axes, e.g. `+Y up, +Z front, +X right`.
    pub axes: String,
    /// Meshes and primitives.
    pub meshes: usize,
    /// Primitives over all meshes.
    pub primitives: usize,
    /// Skinned primitives (drawn by a skinned node, with weights).
    pub skinned_primitives: usize,
    /// Vertices over all primitives.
    pub vertices: usize,
    /// Skins.
    pub skins: usize,
    /// Distinct joint nodes over all skins.
    pub joints: usize,
    /// Clip names with durations in seconds.
    pub clips: Vec<(String, f32)>,
    /// The loader's warnings.
    pub warnings: Vec<String>,
}

impl Summary {
    /// Summarises `scene`.
    #[must_use]
    pub fn of(scene: &Scene) -> Self {
        let info = &scene.source_info;
        let mut joints: Vec<usize> = scene.skins.iter().flat_map(|s| s.joints.clone()).collect();
        joints.sort_unstable();
        joints.dedup();
        Self {
            file: scene.source.clone(),
            format: info.format.clone(),
            creator: info.creator.clone(),
            unit_meters: info.unit_meters,
            axes: info.axes_text(),
            meshes: scene.meshes.len(),
            primitives: scene.meshes.iter().map(|m| m.primitives.len()).sum(),
            skinned_primitives: crate::skin::skinned_primitives(scene).len(),
            vertices: scene
                .meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .map(|p| p.positions.len())
                .sum(),
            skins: scene.skins.len(),
            joints: joints.len(),
            clips: scene
                .animations
                .iter()
                .map(|a| (a.name.clone(), crate::anim::clip_duration_s(a)))
                .collect(),
            warnings: scene.warning_lines(),
        }
    }
}

/// Everything the report shows, but the pictures.
#[derive(Clone, Debug)]
pub struct RigReport {
    /// The file.
    pub summary: Summary,
    /// Influence statistics.
    pub influences: InfluenceStats,
    /// One per clip (or one for the single pose).
    pub clips: Vec<ClipReport>,
    /// Per mode (in [`crate::skin::SkinningMode::ALL`] order), the regions that lose the most
    /// over all clips (lowest ratio first).
    pub loss: PerMode<Vec<WorstRegion>>,
    /// Per mode, the regions that grow the most over all clips (highest ratio first).
    pub growth: PerMode<Vec<WorstRegion>>,
    /// The joints whose rest pose is not their bind pose (empty for most files).
    pub rest_bind: crate::analysis::RestBind,
    /// DQS flips of the twist joints.
    pub flips: Vec<FlipReport>,
    /// Region ratio over a twist sweep of the first flip joint.
    pub sweep: Option<RatioSeries>,
    /// The blend fit, before and after.
    pub fit: Option<FitReport>,
    /// Joints with scale in their skinning matrices.
    pub scales: Vec<JointScale>,
    /// Joints to flag for DQS.
    pub dqs_candidates: Vec<DqsCandidate>,
    /// What `dqview check`'s pipeline rules find, at their default thresholds.
    pub checks: Vec<crate::check::Finding>,
    /// Joint regions whose ratio means nothing, so never ranked: (joint name, why).
    pub not_measurable: Vec<(String, String)>,
}

/// Progress of [`gather`]: a stage name, done, total.
pub type Progress<'a> = dyn Fn(&str, usize, usize) + Sync + 'a;

/// Measures `scene` for a report; `centers` are its CoR centres, `ddm` and `dm` its Direct
/// Delta Mush and Delta Mush data.
pub fn gather(
    scene: &Scene,
    centers: &SceneCenters,
    ddm: &SceneDdm,
    dm: &SceneDm,
    options: &ReportOptions,
    progress: &Progress<'_>,
    cancel: &AtomicBool,
) -> Result<RigReport, RigReportError> {
    if crate::skin::skinned_primitives(scene).is_empty() {
        return Err(RigReportError::NotSkinned(scene.source.clone()));
    }
    let clip_list: Vec<Option<usize>> = if options.clips.is_empty() {
        vec![None]
    } else {
        options.clips.iter().copied().map(Some).collect()
    };
    let mut clips = Vec::with_capacity(clip_list.len());
    for (i, &clip) in clip_list.iter().enumerate() {
        clips.push(clip_report(scene, (centers, ddm, dm), clip, options));
        progress("clips", i + 1, clip_list.len());
    }
    let loss = worst_regions(&clips, Change::Loss, options.worst_regions);
    let growth = worst_regions(&clips, Change::Growth, options.worst_regions);
    let flip_joints = twist_joints(scene, &options.clips, &options.overrides, &loss, &growth);
    let flips = flip_reports(scene, &flip_joints, &options.overrides);
    progress("flips", 1, 1);
    let sweep = flips
        .first()
        .and_then(|f| twist_sweep(scene, (centers, ddm, dm), f.joint, options, cancel));
    progress("sweep", 1, 1);
    let flipping: Vec<usize> = flips.iter().map(|f| f.joint).collect();
    let fit = fit_report(scene, centers, options, &flipping, progress, cancel)?;
    let scales = joint_scales(scene, &options.clips, &options.overrides);
    let check_options = crate::check::CheckOptions::DEFAULT;
    let deadline = std::time::Instant::now() + check_options.time_budget;
    let checks =
        crate::check::check_scene_with(scene, &check_options, Some(centers), deadline).findings;
    progress("checks", 1, 1);
    let wide = worst_regions(&clips, Change::Loss, 64);
    let dqs_candidates = advice::dqs_candidates(&wide[0]);
    Ok(RigReport {
        summary: Summary::of(scene),
        influences: InfluenceStats::of(scene),
        clips,
        loss,
        growth,
        rest_bind: crate::analysis::rest_bind(scene),
        flips,
        sweep,
        fit,
        scales,
        dqs_candidates,
        checks,
        not_measurable: crate::analysis::RestReference::at_rest(scene)
            .not_measurable()
            .into_iter()
            .map(|(joint, why)| (node_name(scene, joint), why.text()))
            .collect(),
    })
}

/// Samples of the twist sweep, -360..360 degrees every 10.
const SWEEP_SAMPLES: usize = 73;

/// Region and whole ratios over a twist of `joint` on the rest pose, per mode.
fn twist_sweep(
    scene: &Scene,
    (centers, ddm, dm): (&SceneCenters, &SceneDdm, &SceneDm),
    joint: usize,
    options: &ReportOptions,
    cancel: &AtomicBool,
) -> Option<RatioSeries> {
    let request = SeriesRequest {
        axis: SeriesAxis::Twist { joint },
        samples: SWEEP_SAMPLES,
        base_clip: None,
        base_time_s: 0.0,
        overrides: options.overrides.clone(),
        betas: SceneBetas::defaults(scene, None, &options.overrides),
        beta_scale: 1.0,
        cor_centers: Some(std::sync::Arc::new(centers.clone())),
        ddm: Some(std::sync::Arc::new(ddm.clone())),
        dm: Some(std::sync::Arc::new(dm.clone())),
    };
    let none = |_: usize, _: usize| {};
    ratio_series_with_region(scene, &request, joint, cancel, &none)
        .ok()
        .flatten()
}
