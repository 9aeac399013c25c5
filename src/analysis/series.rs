//! Ratio-to-rest series for the viewer's plot: per skinning mode, over a clip or a twist sweep.
//!
//! Samples run in parallel (rayon); a cancel flag stops the work between samples
//! and a progress callback counts finished samples.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::flip::{BlendPairs, clip_flips};
use super::metrics::{Measure, RestReference};
use crate::anim::{JointAngles, JointOverrides, Pose, clip_duration_s};
use crate::scene::Scene;
use crate::skin::{
    Betas, SceneBetas, SceneCenters, SkinningMode, skin_scene, skin_scene_cor, skin_scene_hybrid,
};

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
    /// Ratios per mode, in [`SkinningMode::ALL`] order, one per x (CoR's empty without centers).
    pub ratios: [Vec<f64>; 4],
    /// Per x: whether DQS has passed a flip there (clip series: since the clip's start;
    /// twist sweeps: beyond the twist range around 0 in which the skin is continuous).
    pub dqs_flipped: Vec<bool>,
}

impl RatioSeries {
    /// The ratios of `mode`.
    #[must_use]
    pub fn of(&self, mode: SkinningMode) -> &[f64] {
        let i = SkinningMode::ALL
            .iter()
            .position(|&m| m == mode)
            .unwrap_or(0);
        self.ratios.get(i).map_or(&[], Vec::as_slice)
    }

    /// The x of the smallest ratio of `mode`, with that ratio.
    #[must_use]
    pub fn min_of(&self, mode: SkinningMode) -> Option<(f32, f64)> {
        self.x
            .iter()
            .copied()
            .zip(self.of(mode).iter().copied())
            .min_by(|a, b| a.1.total_cmp(&b.1))
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

/// Computes the series of `request`, in parallel; `None` when `cancel` was set.
///
/// `progress(done, total)` is called after each sample.
#[must_use]
pub fn ratio_series(
    scene: &Scene,
    request: &SeriesRequest,
    cancel: &AtomicBool,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Option<RatioSeries> {
    let rest_pose = Pose::rest(scene);
    let rest = skin_scene(scene, &rest_pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let reference = RestReference::new(scene, &rest);
    let x = series_x(scene, request);
    let done = AtomicUsize::new(0);
    let total = x.len();
    let cor = request.cor_centers.as_deref();
    let rows: Vec<Option<[f64; 4]>> = x
        .par_iter()
        .map(|&at| {
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            let pose = pose_at(scene, request, at);
            let row = SkinningMode::ALL.map(|mode| {
                let posed = match (mode, cor) {
                    (SkinningMode::Cor, Some(centers)) => skin_scene_cor(scene, &pose, centers),
                    (SkinningMode::Cor, None) => return f64::NAN,
                    _ => skin_scene_hybrid(scene, &pose, mode, &request.betas, request.beta_scale),
                };
                reference.ratios(scene, &posed).0
            });
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            Some(row)
        })
        .collect();
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    let rows: Vec<[f64; 4]> = rows.into_iter().collect::<Option<_>>()?;
    let ratios = [0, 1, 2, 3].map(|m| {
        if m == 3 && cor.is_none() {
            return Vec::new();
        }
        rows.iter().map(|r| r[m]).collect()
    });
    let dqs_flipped = flipped(scene, request, &x);
    Some(RatioSeries {
        measure: reference.measure,
        axis: request.axis,
        x,
        ratios,
        dqs_flipped,
    })
}

/// The pose at sample position `x` of `request`.
fn pose_at(scene: &Scene, request: &SeriesRequest, x: f32) -> Pose {
    let mut pose = Pose::rest(scene);
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
    pose
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
