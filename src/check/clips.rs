//! Rules over the clips: `dqs_flip_in_clip`, `lbs_collapse` (in `collapse.rs`), and the joint
//! scan of every pose.
//!
//! Flips and joint scale need only the palette of a pose, so they are sampled densely
//! ([`DENSE_RATE_HZ`]); the LBS volume needs the skinned mesh, so it takes
//! [`super::CheckOptions::samples`] poses a clip. Clips run in file order until the
//! file's deadline; what is left is reported as `check_incomplete`.

use std::time::Instant;

use super::collapse::Collapses;
use super::joints::JointScan;
use super::region_volume::{RegionNote, RegionVolumes};
use super::{CheckOptions, Finding, Rule, node_name};
use crate::analysis::{BlendPairs, clip_flipped_pairs};
use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::scene::Scene;
use crate::skin::SceneCenters;

/// Palette-only samples per second of a clip (flips, joint scale): a joint must not turn
/// 180 degrees between two, and 30 per second is every frame of most game clips.
const DENSE_RATE_HZ: f32 = 30.0;
/// Most palette-only samples of one clip (a damaged file may claim a clip of years).
const MAX_DENSE_SAMPLES: usize = 3000;
/// Most joint matrices the palette-only samples of one clip may visit (samples x joints),
/// so a rig of 100,000 joints takes fewer samples rather than minutes.
const MAX_DENSE_WORK: usize = 5_000_000;

/// Every clip rule's findings, plus the joint scale findings (rest pose and clips), and the
/// regions `lbs_collapse` measures by area or skips; `centers` for CoR, else computed when needed.
#[must_use]
pub(super) fn check(
    scene: &Scene,
    options: &CheckOptions,
    centers: Option<&SceneCenters>,
    deadline: Instant,
) -> (Vec<Finding>, Vec<RegionNote>) {
    let mut scan = JointScan::new(options.scale_tolerance);
    scan.scan(scene, &Pose::rest(scene), None, 0.0);
    let regions = RegionVolumes::new(scene);
    let pairs: Vec<BlendPairs> = (0..scene.skins.len())
        .map(|s| BlendPairs::of_skin(scene, s))
        .filter(|p| !p.pairs.is_empty())
        .collect();
    let none = JointOverrides::new();
    let joints: usize = scene.skins.iter().map(|s| s.joints.len()).sum();
    let mut findings = Vec::new();
    let mut collapses = Collapses::default();
    let clips = scene.animations.len();
    for (c, animation) in scene.animations.iter().enumerate() {
        if Instant::now() > deadline {
            findings.push(incomplete(c, clips, options));
            break;
        }
        let name = animation.name.as_str();
        let duration = clip_duration_s(animation);
        let dense = even_times(duration, dense_count(duration, options.samples, joints));
        let mut pose = Pose::rest(scene);
        for &t in &dense {
            pose.sample(scene, Some(c), t, &none);
            scan.scan(scene, &pose, Some(name), t);
        }
        if Instant::now() > deadline {
            findings.push(incomplete(c, clips, options));
            break;
        }
        findings.extend(first_flip(scene, &pairs, c, &dense));
        if let Some(regions) = &regions {
            let times = even_times(duration, options.samples);
            if collapses
                .sample_clip(scene, regions, options, c, &times, deadline)
                .is_err()
            {
                findings.push(incomplete(c, clips, options));
                break;
            }
        }
    }
    let notes = regions
        .as_ref()
        .map(|r| r.notes().to_vec())
        .unwrap_or_default();
    if let Some(regions) = &regions {
        findings.extend(collapses.findings(scene, regions, options, centers, deadline));
    }
    findings.extend(scan.findings());
    (findings, notes)
}

/// `check_incomplete`: the budget ran out at clip `c` of `clips`.
fn incomplete(c: usize, clips: usize, options: &CheckOptions) -> Finding {
    Finding::new(
        Rule::CheckIncomplete,
        format!(
            "the per-file budget of {:.0} s ran out at clip {} of {clips}; the clips from there on were not checked",
            options.time_budget.as_secs_f32(),
            c + 1
        ),
    )
}

/// Palette-only samples for a clip of `duration` seconds of a rig with `joints` joints:
/// [`DENSE_RATE_HZ`], at least `samples`, at most [`MAX_DENSE_SAMPLES`] and [`MAX_DENSE_WORK`].
fn dense_count(duration: f32, samples: usize, joints: usize) -> usize {
    let per_rate = (duration.max(0.0) * DENSE_RATE_HZ).ceil();
    let per_rate = if per_rate.is_finite() {
        per_rate as usize + 1
    } else {
        MAX_DENSE_SAMPLES
    };
    let work_limit = (MAX_DENSE_WORK / joints.max(1)).max(2);
    per_rate.max(samples).min(MAX_DENSE_SAMPLES).min(work_limit)
}

/// `n` times evenly over `0..=duration`, both ends included; just 0 for an empty clip or `n` below 2.
fn even_times(duration: f32, n: usize) -> Vec<f32> {
    if n < 2 || !duration.is_finite() || duration <= 0.0 {
        return vec![0.0];
    }
    (0..n)
        .map(|k| duration * k as f32 / (n - 1) as f32)
        .collect()
}

/// `dqs_flip_in_clip`: the earliest sample of clip `c` at which some blended pair of joints,
/// followed continuously from the clip's start, has turned more than 180 degrees apart.
fn first_flip(scene: &Scene, pairs: &[BlendPairs], c: usize, times: &[f32]) -> Option<Finding> {
    let none = JointOverrides::new();
    let mut first: Option<(usize, usize, usize)> = None;
    for skin_pairs in pairs {
        let flipped = clip_flipped_pairs(scene, skin_pairs, c, &none, times);
        let Some((i, k)) = flipped
            .iter()
            .enumerate()
            .find_map(|(i, p)| p.map(|k| (i, k)))
        else {
            continue;
        };
        if first.is_none_or(|(best, _, _)| i < best) {
            first = Some((i, skin_pairs.skin, k));
        }
    }
    let (i, skin, k) = first?;
    let pair = pairs
        .iter()
        .find(|p| p.skin == skin)
        .and_then(|p| p.pairs.get(k))?;
    let joints = &scene.skins.get(skin)?.joints;
    let joint = node_name(scene, *joints.get(pair.other)?);
    let pivot = node_name(scene, *joints.get(pair.pivot)?);
    let clip = scene.animations.get(c)?.name.clone();
    let time = times.get(i).copied().unwrap_or(0.0);
    let mut f = Finding::new(
        Rule::DqsFlipInClip,
        format!(
            "clip \"{clip}\" at {time:.3} s: \"{joint}\" has turned more than 180 degrees from \"{pivot}\" since the clip's start ({} blend the two); DQS takes the short arc and the skin flips",
            plural(pair.vertices, "vertex")
        ),
    );
    f.joint = Some(joint);
    f.pivot_joint = Some(pivot);
    f.clip = Some(clip);
    f.time = Some(time);
    Some(f)
}

/// `n` and `noun`, plural unless `n` is 1 (`vertex` becomes `vertices`).
fn plural(n: usize, noun: &str) -> String {
    match (n, noun) {
        (1, _) => format!("1 {noun}"),
        (_, "vertex") => format!("{n} vertices"),
        _ => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_counts_follow_the_rate_within_bounds() {
        assert_eq!(dense_count(1.0, 10, 20), 31);
        assert_eq!(dense_count(0.1, 10, 20), 10);
        assert_eq!(dense_count(1e9, 10, 20), MAX_DENSE_SAMPLES);
        assert_eq!(dense_count(f32::INFINITY, 10, 20), MAX_DENSE_SAMPLES);
        assert_eq!(dense_count(100.0, 10, 100_000), 50);
        assert_eq!(dense_count(100.0, 10, 10_000_000), 2);
        assert_eq!(even_times(2.0, 3), vec![0.0, 1.0, 2.0]);
        assert_eq!(even_times(0.0, 3), vec![0.0]);
        assert_eq!(even_times(f32::NAN, 3), vec![0.0]);
    }
}
