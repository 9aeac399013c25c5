//! Volume over a clip per mode, for the whole mesh and every joint region, and the worst regions.

use rayon::prelude::*;

use super::ReportOptions;
use crate::analysis::{Measure, RestReference};
use crate::anim::{Pose, clip_duration_s};
use crate::scene::Scene;
use crate::scene::names::node_name;
use crate::skin::ddm::SceneDdm;
use crate::skin::dm::SceneDm;
use crate::skin::{MethodData, PerMode, SceneBetas, SceneCenters, SkinningMode, skin_scene_method};

/// One joint region's ratio to rest per mode over a clip.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionTrack {
    /// The joint (node index).
    pub joint: usize,
    /// The joint's name.
    pub name: String,
    /// Per mode in [`SkinningMode::ALL`] order, one ratio per sample.
    pub ratios: PerMode<Vec<f64>>,
}

impl RegionTrack {
    /// The largest deviation from 1 (as |ln ratio|) of any mode at any sample.
    #[must_use]
    pub fn worst_deviation(&self) -> f64 {
        self.ratios
            .iter()
            .flatten()
            .map(|&r| deviation(r))
            .fold(0.0, f64::max)
    }
}

/// One clip (or the single pose) measured in every mode.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipReport {
    /// The clip; `None` for the single pose.
    pub clip: Option<usize>,
    /// The clip's name (`pose` for the single pose).
    pub name: String,
    /// Sample times, seconds.
    pub times_s: Vec<f32>,
    /// Volume (closed meshes) or area.
    pub measure: Measure,
    /// Whole-mesh ratio to rest per mode in [`SkinningMode::ALL`] order.
    pub whole: PerMode<Vec<f64>>,
    /// Every joint region's ratios.
    pub regions: Vec<RegionTrack>,
}

impl ClipReport {
    /// The `n` regions that deviate most in some mode, worst first.
    #[must_use]
    pub fn worst_tracks(&self, n: usize) -> Vec<&RegionTrack> {
        let mut tracks: Vec<&RegionTrack> = self.regions.iter().collect();
        tracks.sort_by(|a, b| b.worst_deviation().total_cmp(&a.worst_deviation()));
        tracks.truncate(n);
        tracks
    }
}

/// Which way a region strays from its rest measure: the two are ranked apart, so a region that
/// swells is never listed as one that collapses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Ratio below 1: the region keeps less than its rest measure.
    Loss,
    /// Ratio above 1: the region grows past its rest measure.
    Growth,
}

/// Within this of 1 a region's ratio is no change: listed neither as a loss nor as a growth.
pub const UNCHANGED: f64 = 1e-3;

impl Change {
    /// Both, loss first.
    pub const ALL: [Self; 2] = [Self::Loss, Self::Growth];

    /// Which way `ratio` strays; `None` within [`UNCHANGED`] of 1, or NaN.
    #[must_use]
    pub fn of(ratio: f64) -> Option<Self> {
        if ratio < 1.0 - UNCHANGED {
            Some(Self::Loss)
        } else if ratio > 1.0 + UNCHANGED {
            Some(Self::Growth)
        } else {
            None
        }
    }

    /// Whether `a` strays farther this way than `b` (a lower ratio for a loss, a higher one
    /// for a growth).
    fn farther(self, a: f64, b: f64) -> bool {
        match self {
            Self::Loss => a < b,
            Self::Growth => a > b,
        }
    }

    /// `loses` or `grows`.
    #[must_use]
    pub fn verb(self) -> &'static str {
        match self {
            Self::Loss => "loses",
            Self::Growth => "grows",
        }
    }

    /// `loss` or `growth`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Loss => "loss",
            Self::Growth => "growth",
        }
    }
}

/// A region at its worst moment in one mode, one way ([`Change`]).
#[derive(Clone, Debug, PartialEq)]
pub struct WorstRegion {
    /// The mode.
    pub mode: SkinningMode,
    /// Loss (its lowest ratio) or growth (its highest).
    pub change: Change,
    /// The joint (node index).
    pub joint: usize,
    /// The joint's name.
    pub name: String,
    /// The clip of the worst moment (`None`: the single pose).
    pub clip: Option<usize>,
    /// The clip's name.
    pub clip_name: String,
    /// Time of the worst moment, seconds.
    pub time_s: f32,
    /// The region's ratio to rest in every mode at that moment ([`SkinningMode::ALL`] order).
    pub ratios: PerMode<f64>,
}

impl WorstRegion {
    /// The ratio in this region's own mode.
    #[must_use]
    pub fn ratio(&self) -> f64 {
        self.ratios[self.mode.index()]
    }

    /// Whether every mode keeps the same share of the region at this moment
    /// ([`crate::analysis::same_in_every_mode`]): the pose takes the volume, not the method.
    #[must_use]
    pub fn is_the_pose(&self) -> bool {
        crate::analysis::same_in_every_mode(&self.ratios)
    }
}

/// The worst regions the report draws: per mode, the first `per_mode` of its losses and growths
/// together, farthest from 1 (as |ln ratio|) first, each moment once, and a region every mode
/// changes alike ([`WorstRegion::is_the_pose`]) once whatever the mode or moment.
#[must_use]
pub fn pictured_regions<'a>(
    loss: &'a PerMode<Vec<WorstRegion>>,
    growth: &'a PerMode<Vec<WorstRegion>>,
    per_mode: usize,
) -> Vec<&'a WorstRegion> {
    let mut out: Vec<&WorstRegion> = Vec::new();
    for (losses, growths) in loss.iter().zip(growth) {
        let mut list: Vec<&WorstRegion> = losses.iter().chain(growths).collect();
        list.sort_by(|a, b| deviation(b.ratio()).total_cmp(&deviation(a.ratio())));
        for w in list.into_iter().take(per_mode) {
            let seen = out.iter().any(|o| {
                let same_moment = (o.joint, o.clip) == (w.joint, w.clip) && o.time_s == w.time_s;
                same_moment || (o.joint == w.joint && o.is_the_pose() && w.is_the_pose())
            });
            if !seen {
                out.push(w);
            }
        }
    }
    out
}

/// Distance of a ratio from 1 as |ln r| (NaN: 0).
#[must_use]
pub fn deviation(ratio: f64) -> f64 {
    if ratio.is_nan() {
        0.0
    } else {
        ratio.max(1e-12).ln().abs()
    }
}

/// One mode at one sample: the whole-mesh ratio and (joint, ratio) per region.
type SampleRatios = (f64, Vec<(usize, f64)>);

/// Skins `clip` (or the single pose) at `options.samples` times in every mode and measures each.
#[must_use]
pub fn clip_report(
    scene: &Scene,
    (centers, ddm, dm): (&SceneCenters, &SceneDdm, &SceneDm),
    clip: Option<usize>,
    options: &ReportOptions,
) -> ClipReport {
    let reference = RestReference::at_rest(scene);
    let duration = clip
        .and_then(|c| scene.animations.get(c))
        .map_or(0.0, clip_duration_s);
    let n = if clip.is_none() || duration <= 0.0 {
        1
    } else {
        options.samples.max(2)
    };
    let times_s: Vec<f32> = (0..n)
        .map(|k| duration * k as f32 / (n - 1).max(1) as f32)
        .collect();
    let betas = SceneBetas::defaults(scene, clip, &options.overrides);
    let data = MethodData {
        betas: &betas,
        beta_scale: 1.0,
        centers: Some(centers),
        ddm: Some(ddm),
        dm: Some(dm),
    };
    let rows: Vec<PerMode<SampleRatios>> = times_s
        .par_iter()
        // One pose per worker, re-posed per time: a rest pose costs a pass over every node.
        .with_min_len(crate::anim::items_per_worker(times_s.len()))
        .map_init(
            || Pose::rest(scene),
            |pose, &t| {
                pose.sample(scene, clip, t, &options.overrides);
                let pose = &*pose;
                SkinningMode::ALL.map(|mode| {
                    let posed = skin_scene_method(scene, pose, mode, &data).unwrap_or_default();
                    reference.ratios(scene, &posed)
                })
            },
        )
        .collect();
    let whole = SkinningMode::ALL.map(|m| rows.iter().map(|r| r[m.index()].0).collect());
    // Regions measurable at rest; a sample where one is not (inside out) is NaN, a gap.
    let joints: Vec<usize> = reference
        .regions()
        .iter()
        .filter(|r| r.is_measurable())
        .map(|r| r.joint)
        .collect();
    let ratio_at = |sample: &SampleRatios, joint: usize| {
        sample
            .1
            .iter()
            .find(|(j, _)| *j == joint)
            .map_or(f64::NAN, |x| x.1)
    };
    let regions = joints
        .iter()
        .map(|&joint| RegionTrack {
            joint,
            name: node_name(scene, joint),
            ratios: SkinningMode::ALL.map(|m| {
                rows.iter()
                    .map(|r| ratio_at(&r[m.index()], joint))
                    .collect()
            }),
        })
        .collect();
    ClipReport {
        clip,
        name: clip
            .and_then(|c| scene.animations.get(c))
            .map_or_else(|| "pose".to_string(), |a| a.name.clone()),
        times_s,
        measure: reference.measure,
        whole,
        regions,
    }
}

/// Per mode, the `n` regions that stray farthest `change`'s way over all clips, each at its
/// worst moment that way (a joint appears once per mode, at its worst clip): for a loss the
/// lowest ratios first, for a growth the highest. A region within [`UNCHANGED`] of 1 is neither.
#[must_use]
pub fn worst_regions(clips: &[ClipReport], change: Change, n: usize) -> PerMode<Vec<WorstRegion>> {
    SkinningMode::ALL.map(|mode| {
        let m = mode.index();
        let mut best: Vec<WorstRegion> = Vec::new();
        for clip in clips {
            for track in &clip.regions {
                let Some(k) = worst_sample(&track.ratios[m], change) else {
                    continue;
                };
                let candidate = WorstRegion {
                    mode,
                    change,
                    joint: track.joint,
                    name: track.name.clone(),
                    clip: clip.clip,
                    clip_name: clip.name.clone(),
                    time_s: clip.times_s.get(k).copied().unwrap_or(0.0),
                    ratios: SkinningMode::ALL
                        .map(|i| track.ratios[i.index()].get(k).copied().unwrap_or(f64::NAN)),
                };
                match best.iter_mut().find(|b| b.joint == track.joint) {
                    Some(b) if change.farther(candidate.ratio(), b.ratio()) => {
                        *b = candidate;
                    }
                    Some(_) => {}
                    None => best.push(candidate),
                }
            }
        }
        best.sort_by(|a, b| match change {
            Change::Loss => a.ratio().total_cmp(&b.ratio()),
            Change::Growth => b.ratio().total_cmp(&a.ratio()),
        });
        best.truncate(n);
        best
    })
}

/// The sample of `ratios` that strays farthest `change`'s way; `None` when no sample strays
/// that way (all NaN, or within [`UNCHANGED`] of 1, or the other way).
fn worst_sample(ratios: &[f64], change: Change) -> Option<usize> {
    ratios
        .iter()
        .enumerate()
        .filter(|(_, r)| Change::of(**r) == Some(change))
        .reduce(|a, b| if change.farther(*b.1, *a.1) { b } else { a })
        .map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clip of one region (`name`, node `joint`) with these LBS ratios; the other modes keep 1.
    fn clip(name: &str, joint: usize, lbs: Vec<f64>) -> ClipReport {
        let n = lbs.len();
        ClipReport {
            clip: Some(0),
            name: "clip".into(),
            times_s: (0..n).map(|k| k as f32).collect(),
            measure: Measure::Volume,
            whole: std::array::from_fn(|_| vec![1.0; n]),
            regions: vec![RegionTrack {
                joint,
                name: name.into(),
                ratios: [
                    lbs,
                    vec![1.0; n],
                    vec![1.0; n],
                    vec![1.0; n],
                    vec![1.0; n],
                    vec![1.0; n],
                ],
            }],
        }
    }

    #[test]
    fn a_region_that_grows_is_ranked_as_growth_not_as_the_worst_loss() {
        // Index1.R swells to 1.79 (far from 1 as |ln r|: 0.58); Ring1.L shrinks to 0.7 (0.36).
        let clips = [
            clip("Index1.R", 1, vec![1.0, 1.79, 0.98]),
            clip("Ring1.L", 2, vec![1.0, 0.7, 1.0005]),
        ];
        let loss = worst_regions(&clips, Change::Loss, 4);
        let growth = worst_regions(&clips, Change::Growth, 4);
        let lbs = SkinningMode::Lbs.index();
        let names = |l: &[WorstRegion]| -> Vec<(String, f64)> {
            l.iter().map(|w| (w.name.clone(), w.ratio())).collect()
        };
        assert_eq!(
            names(&loss[lbs]),
            [("Ring1.L".to_string(), 0.7), ("Index1.R".to_string(), 0.98)]
        );
        assert_eq!(names(&growth[lbs]), [("Index1.R".to_string(), 1.79)]);
        assert!(loss[lbs].iter().all(|w| w.change == Change::Loss));
        assert!(growth[lbs].iter().all(|w| w.change == Change::Growth));
        // 1.0005 is within UNCHANGED of 1: no growth; DQS keeps everything: no region either way.
        let dqs = SkinningMode::Dqs.index();
        assert!(loss[dqs].is_empty() && growth[dqs].is_empty());
        // The picture of LBS's farthest region is the growth, and it says so.
        let pictured = pictured_regions(&loss, &growth, 1);
        assert_eq!(pictured.len(), 1);
        assert_eq!(
            (pictured[0].name.as_str(), pictured[0].change),
            ("Index1.R", Change::Growth)
        );
    }
}
