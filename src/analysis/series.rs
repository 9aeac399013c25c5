//! Ratio-to-rest series for the viewer's plot: per skinning mode, over a clip or a twist sweep,
//! for the whole mesh and, when asked, for one joint's region (see [`JointRegion`]).
//!
//! Samples run in parallel (rayon); a cancel flag stops the work between samples
//! and a progress callback counts finished samples.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::flip::{BlendPairs, clip_flips};
use super::metrics::{Measure, RestReference};
use super::region::{JointRegion, RegionError};
use crate::anim::{JointAngles, JointOverrides, Pose, clip_duration_s};
use crate::scene::Scene;
use crate::skin::ddm::SceneDdm;
use crate::skin::{MethodData, PerMode, SceneBetas, SceneCenters, SkinningMode, skin_scene_method};

/// What the plot's x axis runs over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SeriesAxis {
    /// Time in clip `clip`, seconds, over the whole clip.
    ClipTime {
        /// The clip.
        clip: usize,
    },
    /// Twist of joint `joint` (a node), degrees, from -360 to 360.
    Twist {
        /// The twisted joint.
        joint: usize,
    },
}

/// What to compute a series of.
#[derive(Clone, Debug)]
pub struct SeriesRequest {
    /// The x axis.
    pub axis: SeriesAxis,
    /// Number of samples (at least 2; both ends included).
    pub samples: usize,
    /// Clip and time of the base pose of a twist sweep (ignored for clip series).
    pub base_clip: Option<usize>,
    /// Time of the base pose of a twist sweep, seconds.
    pub base_time_s: f32,
    /// Joint angles on top of every sample (a twist sweep replaces its joint's twist).
    pub overrides: JointOverrides,
    /// Per-vertex hybrid betas.
    pub betas: SceneBetas,
    /// Global scale of the betas.
    pub beta_scale: f32,
    /// CoR centers; without them the series has no CoR line.
    pub cor_centers: Option<std::sync::Arc<SceneCenters>>,
    /// Direct Delta Mush's matrices; without them the series has no DDM line.
    pub ddm: Option<std::sync::Arc<SceneDdm>>,
    /// Delta Mush's rest deltas; without them the series has no DM line.
    pub dm: Option<std::sync::Arc<crate::skin::dm::SceneDm>>,
}

impl SeriesRequest {
    /// The betas, centers and DDM matrices the methods read.
    #[must_use]
    pub fn method_data(&self) -> MethodData<'_> {
        MethodData {
            betas: &self.betas,
            beta_scale: self.beta_scale,
            centers: self.cor_centers.as_deref(),
            ddm: self.ddm.as_deref(),
            dm: self.dm.as_deref(),
        }
    }
}

/// Whole-mesh ratio to rest per mode at each x.
#[derive(Clone, Debug, PartialEq)]
pub struct RatioSeries {
    /// Volume (closed meshes) or area.
    pub measure: Measure,
    /// The x axis.
    pub axis: SeriesAxis,
    /// Sample positions: seconds or degrees.
    pub x: Vec<f32>,
    /// Ratios per mode, in [`SkinningMode::ALL`] order, one per x (CoR's empty without centers,
    /// DDM's without its matrices).
    pub ratios: PerMode<Vec<f64>>,
    /// Per x: whether DQS has passed a flip there (clip series: since the clip's start;
    /// twist sweeps: beyond the twist range around 0 in which the skin is continuous).
    pub dqs_flipped: Vec<bool>,
    /// One joint region's ratios at the same x ([`ratio_series_with_region`]); `None` otherwise.
    pub region: Option<RegionSeries>,
}

/// A joint region's ratio to rest per mode, at each x of its [`RatioSeries`].
#[derive(Clone, Debug, PartialEq)]
pub struct RegionSeries {
    /// The joint (node index).
    pub joint: usize,
    /// The joint's name.
    pub name: String,
    /// Mesh vertices in the region.
    pub vertices: usize,
    /// Volume (closed region, openings capped) or area.
    pub measure: Measure,
    /// Ratios per mode, in [`SkinningMode::ALL`] order, one per x (CoR's empty without centers,
    /// DDM's without its matrices).
    pub ratios: PerMode<Vec<f64>>,
}

impl RatioSeries {
    /// The ratios of `mode`.
    #[must_use]
    pub fn of(&self, mode: SkinningMode) -> &[f64] {
        &self.ratios[mode.index()]
    }

    /// The x of the smallest ratio of `mode`, with that ratio.
    #[must_use]
    pub fn min_of(&self, mode: SkinningMode) -> Option<(f32, f64)> {
        min_at(&self.x, self.of(mode))
    }

    /// The region's ratios of `mode`; empty without a region.
    #[must_use]
    pub fn region_of(&self, mode: SkinningMode) -> &[f64] {
        self.region
            .as_ref()
            .map_or(&[], |r| &r.ratios[mode.index()])
    }

    /// The x of the region's smallest ratio of `mode`, with that ratio.
    #[must_use]
    pub fn region_min_of(&self, mode: SkinningMode) -> Option<(f32, f64)> {
        min_at(&self.x, self.region_of(mode))
    }

    /// The largest distance of `mode`'s ratio from 1.
    #[must_use]
    pub fn max_deviation(&self, mode: SkinningMode) -> f64 {
        self.of(mode)
            .iter()
            .map(|r| (r - 1.0).abs())
            .fold(0.0, f64::max)
    }
}

/// The sample positions of `request`: seconds over the clip, or degrees over -360..360.
#[must_use]
pub fn series_x(scene: &Scene, request: &SeriesRequest) -> Vec<f32> {
    let n = request.samples.max(2);
    let (lo, hi) = match request.axis {
        SeriesAxis::ClipTime { clip } => {
            (0.0, scene.animations.get(clip).map_or(0.0, clip_duration_s))
        }
        SeriesAxis::Twist { .. } => (-super::flip::SWEEP_LIMIT_DEG, super::flip::SWEEP_LIMIT_DEG),
    };
    (0..n)
        .map(|k| lo + (hi - lo) * k as f32 / (n - 1) as f32)
        .collect()
}

/// The x of the smallest of `values` (paired with `x` in order), with that value.
fn min_at(x: &[f32], values: &[f64]) -> Option<(f32, f64)> {
    x.iter()
        .copied()
        .zip(values.iter().copied())
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// Computes the whole-mesh series of `request`, in parallel; `None` when `cancel` was set.
///
/// `progress(done, total)` is called after each sample.
#[must_use]
pub fn ratio_series(
    scene: &Scene,
    request: &SeriesRequest,
    cancel: &AtomicBool,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Option<RatioSeries> {
    let reference = RestReference::at_rest(scene);
    series_of(scene, request, &reference, None, cancel, progress)
}

/// Like [`ratio_series`], with joint node `joint`'s region measured from the same skinned
/// poses (in [`RatioSeries::region`]), so a plot can draw both; `Ok(None)` when cancelled.
///
/// For a twist sweep the region is usually that of the twisted joint, but any joint with a
/// region will do. Errors: the joint has no region ([`RegionError::NoRegion`]).
pub fn ratio_series_with_region(
    scene: &Scene,
    request: &SeriesRequest,
    joint: usize,
    cancel: &AtomicBool,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Option<RatioSeries>, RegionError> {
    let reference = RestReference::at_rest(scene);
    let region = reference.region_of(scene, joint)?;
    Ok(series_of(
        scene,
        request,
        &reference,
        Some(region),
        cancel,
        progress,
    ))
}

/// The series of `request` against `reference`, with `region`'s ratios when given.
fn series_of(
    scene: &Scene,
    request: &SeriesRequest,
    reference: &RestReference,
    region: Option<&JointRegion>,
    cancel: &AtomicBool,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Option<RatioSeries> {
    let x = series_x(scene, request);
    let done = AtomicUsize::new(0);
    let total = x.len();
    let data = request.method_data();
    // Per x, per mode: (whole-mesh ratio, region ratio); NaN where not measured.
    let rows: Vec<Option<PerMode<(f64, f64)>>> = x
        .par_iter()
        // One pose per worker, re-posed per sample: a rest pose costs a pass over every node.
        .with_min_len(crate::anim::items_per_worker(x.len()))
        .map_init(
            || Pose::rest(scene),
            |pose, &at| {
                if cancel.load(Ordering::Relaxed) {
                    return None;
                }
                pose_at(scene, request, at, pose);
                let pose = &*pose;
                let row = SkinningMode::ALL.map(|mode| {
                    let Some(posed) = skin_scene_method(scene, pose, mode, &data) else {
                        return (f64::NAN, f64::NAN);
                    };
                    let local = region
                        .and_then(|r| r.ratio(&posed).ok())
                        .unwrap_or(f64::NAN);
                    (reference.whole_ratio(scene, &posed), local)
                });
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                Some(row)
            },
        )
        .collect();
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    let rows: Vec<PerMode<(f64, f64)>> = rows.into_iter().collect::<Option<_>>()?;
    let column = |pick: fn(&(f64, f64)) -> f64| {
        SkinningMode::ALL.map(|mode| {
            if !data.has(mode) {
                return Vec::new();
            }
            rows.iter().map(|r| pick(&r[mode.index()])).collect()
        })
    };
    let region = region.map(|r| RegionSeries {
        joint: r.joint,
        name: scene
            .nodes
            .get(r.joint)
            .map_or_else(String::new, |n| n.name.clone()),
        vertices: r.vertices,
        measure: r.measure,
        ratios: column(|c| c.1),
    });
    let dqs_flipped = flipped(scene, request, &x);
    Some(RatioSeries {
        measure: reference.measure,
        axis: request.axis,
        x,
        ratios: column(|c| c.0),
        dqs_flipped,
        region,
    })
}

/// Poses `pose` at sample position `x` of `request`.
fn pose_at(scene: &Scene, request: &SeriesRequest, x: f32, pose: &mut Pose) {
    match request.axis {
        SeriesAxis::ClipTime { clip } => {
            pose.sample(scene, Some(clip), x, &request.overrides);
        }
        SeriesAxis::Twist { joint } => {
            let mut overrides = request.overrides.clone();
            let angles = overrides.get(joint);
            overrides.set(
                joint,
                JointAngles {
                    twist_deg: x,
                    ..angles
                },
            );
            pose.sample(scene, request.base_clip, request.base_time_s, &overrides);
        }
    }
}

/// Clip flips at the series' times, followed at 30 samples a second or more (so no
/// joint turns half a circle between two) and read back at the nearest dense time.
fn clip_flips_at(
    scene: &Scene,
    pairs: &BlendPairs,
    clip: usize,
    request: &SeriesRequest,
    x: &[f32],
) -> Vec<bool> {
    let duration = scene.animations.get(clip).map_or(0.0, clip_duration_s);
    let n = x
        .len()
        .max((duration * 30.0).ceil() as usize + 1)
        .clamp(2, 10_000);
    let dense: Vec<f32> = (0..n)
        .map(|k| duration * k as f32 / (n - 1) as f32)
        .collect();
    let flips = clip_flips(scene, pairs, clip, &request.overrides, &dense);
    x.iter()
        .map(|&t| {
            let k = if duration > 0.0 {
                ((t / duration) * (n - 1) as f32).round() as usize
            } else {
                0
            };
            flips.get(k.min(n - 1)).copied().unwrap_or(false)
        })
        .collect()
}

/// Per sample: whether DQS has flipped there, over every skin.
fn flipped(scene: &Scene, request: &SeriesRequest, x: &[f32]) -> Vec<bool> {
    let mut out = vec![false; x.len()];
    for skin in 0..scene.skins.len() {
        let pairs = BlendPairs::of_skin(scene, skin);
        let per_x = match request.axis {
            SeriesAxis::ClipTime { clip } => clip_flips_at(scene, &pairs, clip, request, x),
            SeriesAxis::Twist { joint } => {
                let flips = super::flip::twist_flips(
                    scene,
                    &pairs,
                    joint,
                    request.base_clip,
                    request.base_time_s,
                    &request.overrides,
                );
                x.iter().map(|&t| flips.is_flipped_at(t)).collect()
            }
        };
        for (o, f) in out.iter_mut().zip(per_x) {
            *o |= f;
        }
    }
    out
}
