//! Rig analysis: what each skinning mode does to a rig's volume, per pose and over a clip,
//! for the whole mesh and for one joint's region.

mod bulge;
mod finite;
mod fit_review;
mod flip;
mod focus;
mod heat;
mod heat_focus;
mod heat_units;
mod joint_scale;
mod measure;
mod method_loss;
mod metrics;
mod region;
mod region_reason;
mod region_report;
mod rest_bind;
mod series;

pub use bulge::bulge;
pub use fit_review::{
    FIT_COLUMNS, FitCells, FitComparison, FitMeasure, FitRow, FitTable, FitTableRow, compare_fit,
    review_maps,
};
pub use flip::{
    BlendPair, BlendPairs, PairFlip, SWEEP_LIMIT_DEG, TwistFlips, clip_flipped_pairs, clip_flips,
    twist_flips,
};
pub use focus::{FOCUS_MARGIN, FOCUS_WEIGHT_THRESHOLD, FocusError, FocusRegion, focus_region};
pub use heat::{
    HeatBetas, HeatQuantity, HeatRange, HeatRangeError, HeatRangeSpec, heat_decimals,
    heat_value_text, heat_values, pose_heat_range,
};
pub use heat_focus::focus_heat_range;
pub use heat_units::{LengthScale, heat_value_with_length};
pub use joint_scale::{ScaleKind, classify_scale};
pub use measure::{area, is_closed, signed_volume};
pub use method_loss::{LOSS_FACTOR, SAME_RATIO_SPREAD, lbs_loses_more, same_in_every_mode};
pub use metrics::{Measure, RestReference, min_radius_about};
pub use region::{
    AreaReason, JointRegion, MAX_CAP_SHARE, MIN_REST_SHARE, MIN_ROUNDNESS, MIN_TRIANGLES,
    NotMeasurable, RegionError, WELD_TOLERANCE, find_joint, joint_regions,
};
pub use region_report::{RegionAnalysis, RegionModeReport, analyze_region};
pub use rest_bind::{REST_BIND_TOLERANCE, RestBind, RestBindJoint, rest_bind};
pub use series::{
    RatioSeries, RegionSeries, SeriesAxis, SeriesRequest, ratio_series, ratio_series_with_region,
    series_x,
};

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::scene::Scene;
use crate::skin::ddm::SceneDdm;
use crate::skin::{
    Betas, MethodData, PosedPrimitive, SceneBetas, SceneCenters, SkinningMode, bounds, skin_scene,
    skin_scene_dqs_compensated, skin_scene_method,
};

/// What to analyse: a clip (or the rest pose), how densely, with which overrides.
#[derive(Clone, Debug, Default)]
pub struct AnalyzeOptions {
    /// Clip to sample; `None` analyses the single pose of the overrides.
    pub clip: Option<usize>,
    /// Samples over the clip (at least 1; both ends included when 2 or more).
    pub samples: usize,
    /// One moment of the clip to measure instead of `samples` over it (`analyze --time`).
    pub time_s: Option<f32>,
    /// Joint angles applied on top of every sample.
    pub overrides: JointOverrides,
    /// Hybrid betas per vertex, and their global scale.
    pub hybrid: SceneBetas,
    /// Global hybrid scale (1 keeps the betas).
    pub hybrid_scale: f32,
    /// Joint node whose smallest cross-section radius is reported.
    pub focus_joint: Option<usize>,
    /// Centers of rotation: with them CoR is measured too, without them it is left out.
    pub cor_centers: Option<SceneCenters>,
    /// Direct Delta Mush's matrices: with them DDM is measured too, without them it is left out.
    pub ddm: Option<SceneDdm>,
    /// Delta Mush's rest deltas; without them DM is not measured.
    pub dm: Option<crate::skin::dm::SceneDm>,
    /// DQS bulge compensation amount in [0, 1]; above 0, DQS with compensation is measured too.
    pub bulge_compensation: f32,
}

impl AnalyzeOptions {
    /// The betas, centers and DDM matrices the methods read.
    #[must_use]
    pub fn method_data(&self) -> MethodData<'_> {
        MethodData {
            betas: &self.hybrid,
            beta_scale: self.hybrid_scale,
            centers: self.cor_centers.as_ref(),
            ddm: self.ddm.as_ref(),
            dm: self.dm.as_ref(),
        }
    }
}

/// One mode's results over all samples.
#[derive(Clone, Debug, PartialEq)]
pub struct ModeReport {
    /// The mode.
    pub mode: SkinningMode,
    /// Whole-mesh ratio to rest at each sample time.
    pub ratios: Vec<f64>,
    /// Smallest ratio.
    pub min_ratio: f64,
    /// Largest ratio.
    pub max_ratio: f64,
    /// Time of the ratio farthest from 1.
    pub worst_time_s: f32,
    /// Up to three joint regions farthest from their rest measure at their worst sample: (node, name, ratio).
    pub worst_joints: Vec<(usize, String, f64)>,
    /// Smallest cross-section radius about the focus joint over all samples.
    pub min_radius: Option<f32>,
    /// Largest bulge over all samples (see [`bulge()`]); `None` for rigs without hinge vertices.
    pub bulge: Option<f32>,
    /// Largest distance of any vertex from its CoR position over all samples, over the rest
    /// bounding-box diagonal (see [`max_vertex_distance`]); `None` without centers.
    pub cor_distance: Option<f32>,
}

/// DQS with bulge compensation over all samples.
#[derive(Clone, Debug, PartialEq)]
pub struct CompensatedReport {
    /// Compensation amount in [0, 1].
    pub amount: f32,
    /// Smallest whole-mesh ratio to rest.
    pub min_ratio: f64,
    /// Largest whole-mesh ratio to rest.
    pub max_ratio: f64,
    /// Largest bulge over all samples.
    pub bulge: Option<f32>,
}

/// The analysis of a rig.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// Whether ratios are of volume (closed meshes) or area.
    pub measure: Measure,
    /// Sample times in seconds.
    pub times_s: Vec<f32>,
    /// One report per mode (LBS, DQS, hybrid, and CoR when centers were given).
    pub modes: Vec<ModeReport>,
    /// DQS with bulge compensation, when [`AnalyzeOptions::bulge_compensation`] is above 0.
    pub dqs_compensated: Option<CompensatedReport>,
    /// Largest distance between a vertex's LBS and DQS positions, in model units.
    pub max_lbs_dqs_displacement: f32,
    /// Joint regions whose ratio means nothing, never among the worst joints: (node, why).
    pub not_measurable: Vec<(usize, NotMeasurable)>,
    /// The same over the rest-pose bounding-box diagonal.
    pub max_lbs_dqs_displacement_relative: f32,
    /// Time of the largest displacement.
    pub max_displacement_time_s: f32,
}

/// One mode at one sample.
#[derive(Clone, Debug)]
struct ModeSample {
    /// Whole-mesh ratio to rest.
    ratio: f64,
    /// Per joint region: (node, ratio).
    regions: Vec<(usize, f64)>,
    /// Smallest radius about the focus joint.
    radius: Option<f32>,
    /// Bulge of the hinge vertices.
    bulge: Option<f32>,
    /// Largest distance from the CoR positions, in model units.
    cor_distance: Option<f32>,
}

/// Per-sample results: per mode, LBS-DQS displacement, compensated DQS (ratio, bulge).
type SampleResult = (Vec<ModeSample>, f32, Option<(f64, Option<f32>)>);

/// Analyses `scene` per `options`, in parallel over samples; `progress(done, total)` is called after each.
#[must_use]
pub fn analyze(
    scene: &Scene,
    options: &AnalyzeOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Analysis {
    let rest_pose = Pose::rest(scene);
    let rest = skin_scene(scene, &rest_pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let reference = RestReference::new(scene, &rest);
    let diagonal = bounds(&rest)
        .map_or(1.0, |(lo, hi)| (hi - lo).length())
        .max(1e-12);
    let times_s = sample_times(scene, options);
    let modes_run: Vec<SkinningMode> = SkinningMode::ALL
        .into_iter()
        .filter(|&m| options.method_data().has(m))
        .collect();
    let done = AtomicUsize::new(0);
    let results: Vec<SampleResult> = times_s
        .par_iter()
        .map(|&t| {
            let result = analyze_sample(scene, options, &reference, &modes_run, t);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, times_s.len());
            result
        })
        .collect();
    let dqs_compensated = (options.bulge_compensation > 0.0).then(|| {
        let all: Vec<(f64, Option<f32>)> = results.iter().filter_map(|r| r.2).collect();
        CompensatedReport {
            amount: options.bulge_compensation.clamp(0.0, 1.0),
            min_ratio: all.iter().map(|r| r.0).fold(f64::INFINITY, f64::min),
            max_ratio: all.iter().map(|r| r.0).fold(f64::NEG_INFINITY, f64::max),
            bulge: all.iter().filter_map(|r| r.1).reduce(f32::max),
        }
    });
    let modes = modes_run
        .iter()
        .enumerate()
        .map(|(m, &mode)| mode_report(scene, mode, m, &times_s, &results, diagonal))
        .collect();
    let (max_i, max_d) = results
        .iter()
        .enumerate()
        .map(|(i, r)| (i, r.1))
        .fold((0, 0.0f32), |best, x| if x.1 > best.1 { x } else { best });
    Analysis {
        measure: reference.measure,
        times_s: times_s.clone(),
        modes,
        dqs_compensated,
        max_lbs_dqs_displacement: max_d,
        not_measurable: reference.not_measurable(),
        max_lbs_dqs_displacement_relative: max_d / diagonal,
        max_displacement_time_s: times_s.get(max_i).copied().unwrap_or(0.0),
    }
}

/// Skins one sample time in every mode of `modes_run` and measures each.
fn analyze_sample(
    scene: &Scene,
    options: &AnalyzeOptions,
    reference: &RestReference,
    modes_run: &[SkinningMode],
    t: f32,
) -> SampleResult {
    let mut pose = Pose::rest(scene);
    pose.sample(scene, options.clip, t, &options.overrides);
    let data = options.method_data();
    let posed_cor = skin_scene_method(scene, &pose, SkinningMode::Cor, &data);
    let mut per_mode = Vec::with_capacity(modes_run.len());
    let mut posed_lbs = Vec::new();
    let mut displacement = 0.0f32;
    for &mode in modes_run {
        let posed = match (mode, &posed_cor) {
            (SkinningMode::Cor, Some(cor)) => cor.clone(),
            _ => skin_scene_method(scene, &pose, mode, &data).unwrap_or_default(),
        };
        let cor_distance = posed_cor.as_ref().map(|c| max_vertex_distance(&posed, c));
        let (ratio, regions) = reference.ratios(scene, &posed);
        let radius = options
            .focus_joint
            .and_then(|j| min_radius_about(scene, &pose, &posed, j));
        let bulge = bulge(scene, &pose, &posed);
        per_mode.push(ModeSample {
            ratio,
            regions,
            radius,
            bulge,
            cor_distance,
        });
        match mode {
            SkinningMode::Lbs => posed_lbs = posed,
            SkinningMode::Dqs => {
                for (a, b) in posed_lbs.iter().zip(&posed) {
                    for (p, q) in a.vertices.positions.iter().zip(&b.vertices.positions) {
                        displacement = displacement.max((*p - *q).length());
                    }
                }
            }
            SkinningMode::Hybrid | SkinningMode::Cor | SkinningMode::Ddm | SkinningMode::Dm => {}
        }
    }
    let compensated = (options.bulge_compensation > 0.0).then(|| {
        let posed = skin_scene_dqs_compensated(scene, &pose, options.bulge_compensation);
        (
            reference.ratios(scene, &posed).0,
            bulge(scene, &pose, &posed),
        )
    });
    (per_mode, displacement, compensated)
}

/// The sample times: evenly over the clip, both ends included; a single 0 without a clip.
fn sample_times(scene: &Scene, options: &AnalyzeOptions) -> Vec<f32> {
    let duration = options
        .clip
        .and_then(|c| scene.animations.get(c))
        .map_or(0.0, clip_duration_s);
    if let Some(t) = options.time_s {
        return vec![t];
    }
    let n = options.samples.max(1);
    if options.clip.is_none() || n == 1 || duration <= 0.0 {
        return vec![0.0];
    }
    (0..n)
        .map(|k| duration * k as f32 / (n - 1) as f32)
        .collect()
}

/// Summarises mode `m` over all samples.
fn mode_report(
    scene: &Scene,
    mode: SkinningMode,
    m: usize,
    times_s: &[f32],
    results: &[SampleResult],
    diagonal: f32,
) -> ModeReport {
    let ratios: Vec<f64> = results.iter().map(|r| r.0[m].ratio).collect();
    let worst = ratios
        .iter()
        .enumerate()
        .fold((0usize, 0.0f64), |best, (i, r)| {
            let off = (r.max(1e-12)).ln().abs();
            if off > best.1 { (i, off) } else { best }
        })
        .0;
    // Each region at its own worst sample, then the three worst regions.
    let mut regions: Vec<(usize, f64)> = Vec::new();
    for r in results {
        for &(joint, ratio) in &r.0[m].regions {
            let off = ratio.max(1e-12).ln().abs();
            match regions.iter_mut().find(|(j, _)| *j == joint) {
                Some(slot) if slot.1.max(1e-12).ln().abs() < off => slot.1 = ratio,
                Some(_) => {}
                None => regions.push((joint, ratio)),
            }
        }
    }
    regions.sort_by(|a, b| {
        b.1.max(1e-12)
            .ln()
            .abs()
            .total_cmp(&a.1.max(1e-12).ln().abs())
    });
    let worst_joints = regions
        .into_iter()
        .take(3)
        .map(|(j, r)| {
            (
                j,
                scene
                    .nodes
                    .get(j)
                    .map_or_else(String::new, |n| n.name.clone()),
                r,
            )
        })
        .collect();
    let min_radius = results
        .iter()
        .filter_map(|r| r.0[m].radius)
        .reduce(f32::min);
    let bulge = results.iter().filter_map(|r| r.0[m].bulge).reduce(f32::max);
    let cor_distance = results
        .iter()
        .filter_map(|r| r.0[m].cor_distance)
        .reduce(f32::max)
        .map(|d| d / diagonal);
    ModeReport {
        mode,
        min_ratio: ratios.iter().copied().fold(f64::INFINITY, f64::min),
        max_ratio: ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        worst_time_s: times_s.get(worst).copied().unwrap_or(0.0),
        ratios,
        worst_joints,
        min_radius,
        bulge,
        cor_distance,
    }
}

/// Largest distance between a vertex's positions in `a` and `b` (same primitives, same order), in model units.
///
/// Primitives are paired by node, mesh and primitive index; unpaired ones are skipped.
#[must_use]
pub fn max_vertex_distance(a: &[PosedPrimitive], b: &[PosedPrimitive]) -> f32 {
    let mut max = 0.0f32;
    for pa in a {
        let Some(pb) = b
            .iter()
            .find(|pb| (pb.node, pb.mesh, pb.primitive) == (pa.node, pa.mesh, pa.primitive))
        else {
            continue;
        };
        for (p, q) in pa.vertices.positions.iter().zip(&pb.vertices.positions) {
            max = max.max((*p - *q).length());
        }
    }
    max
}
