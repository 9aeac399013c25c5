//! `lbs_collapse`: joint regions LBS shrinks clearly more than DQS and CoR, one finding per joint.
//!
//! Each clip is skinned at [`super::CheckOptions::samples`] times with LBS and DQS; a region
//! whose LBS ratio falls below the threshold and below the threshold times its DQS ratio is a
//! candidate there. Only candidates are skinned with CoR (its centers computed once, when some
//! exist), and a candidate stands when LBS is also clearly below CoR
//! ([`crate::analysis::lbs_loses_more`]): a region that loses as much under CoR is the pose,
//! not LBS. The standing samples of one joint make one finding: its worst, and every clip.

use std::collections::BTreeMap;
use std::time::Instant;

use super::region_volume::RegionVolumes;
use super::{CheckOptions, Finding, Rule, node_name};
use crate::analysis::{Measure, lbs_loses_more};
use crate::anim::{JointOverrides, Pose};
use crate::scene::Scene;
use crate::skin::{CorOptions, CorProgress, SceneCenters, SkinningMode};

/// Clips named in a finding's detail; the JSON lists them all.
const NAMED_CLIPS: usize = 5;

/// One sample at which LBS loses a region that DQS keeps.
#[derive(Clone, Copy, Debug)]
struct Sample {
    /// Clip index.
    clip: usize,
    /// Seconds into the clip.
    time_s: f32,
    /// LBS ratio to rest.
    lbs: f64,
    /// DQS ratio to rest.
    dqs: f64,
    /// CoR ratio to rest, once measured.
    cor: Option<f64>,
}

/// The candidates over every clip: per joint node, the samples where LBS loses what DQS keeps.
#[derive(Default)]
pub(super) struct Collapses {
    /// Per joint node, in clip and time order.
    by_joint: BTreeMap<usize, Vec<Sample>>,
}

impl Collapses {
    /// Samples clip `c` at `times` with LBS and DQS and keeps the candidates;
    /// `Err(())` when the deadline passed first.
    pub(super) fn sample_clip(
        &mut self,
        scene: &Scene,
        regions: &RegionVolumes,
        options: &CheckOptions,
        c: usize,
        times: &[f32],
        deadline: Instant,
    ) -> Result<(), ()> {
        let none = JointOverrides::new();
        let mut pose = Pose::rest(scene);
        for &t in times {
            if Instant::now() > deadline {
                return Err(());
            }
            pose.sample(scene, Some(c), t, &none);
            let dqs = regions.ratios(scene, &pose, SkinningMode::Dqs);
            for (joint, lbs) in regions.ratios(scene, &pose, SkinningMode::Lbs) {
                let dqs = dqs.iter().find(|(j, _)| *j == joint).map_or(1.0, |d| d.1);
                if lbs_loses_more(lbs, dqs, None, options.min_volume_ratio) {
                    self.by_joint.entry(joint).or_default().push(Sample {
                        clip: c,
                        time_s: t,
                        lbs,
                        dqs,
                        cor: None,
                    });
                }
            }
        }
        Ok(())
    }

    /// Compares every candidate with CoR (about `centers`, else centers computed here) and
    /// returns one finding per joint that stands, worst first, and a `check_incomplete` when the
    /// deadline passed or the centers could not be computed.
    pub(super) fn findings(
        mut self,
        scene: &Scene,
        regions: &RegionVolumes,
        options: &CheckOptions,
        centers: Option<&SceneCenters>,
        deadline: Instant,
    ) -> Vec<Finding> {
        if self.by_joint.is_empty() {
            return Vec::new();
        }
        let computed;
        let centers = match centers {
            Some(c) => c,
            None => match SceneCenters::compute(scene, &CorOptions::default(), &CorProgress::new())
            {
                Ok(c) => {
                    computed = c;
                    &computed
                }
                Err(e) => {
                    return vec![Finding::new(
                        Rule::CheckIncomplete,
                        format!(
                            "lbs_collapse not checked: the CoR centers could not be computed ({e})"
                        ),
                    )];
                }
            },
        };
        let mut out = Vec::new();
        if self.measure_cor(scene, regions, centers, deadline).is_err() {
            out.push(Finding::new(
                Rule::CheckIncomplete,
                format!(
                    "the per-file budget of {:.0} s ran out while comparing LBS with CoR; lbs_collapse lists the joints compared so far",
                    options.time_budget.as_secs_f32()
                ),
            ));
        }
        let mut found: Vec<(f64, Finding)> = self
            .by_joint
            .iter()
            .filter_map(|(&joint, samples)| finding(scene, regions, options, joint, samples))
            .collect();
        found.sort_by(|a, b| a.0.total_cmp(&b.0));
        out.extend(found.into_iter().map(|(_, f)| f));
        out
    }

    /// Skins each candidate sample with CoR once and records every candidate region's ratio.
    fn measure_cor(
        &mut self,
        scene: &Scene,
        regions: &RegionVolumes,
        centers: &SceneCenters,
        deadline: Instant,
    ) -> Result<(), ()> {
        let mut moments: Vec<(usize, f32)> = self
            .by_joint
            .values()
            .flatten()
            .map(|s| (s.clip, s.time_s))
            .collect();
        moments.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        moments.dedup();
        let none = JointOverrides::new();
        let mut pose = Pose::rest(scene);
        for (clip, time_s) in moments {
            if Instant::now() > deadline {
                return Err(());
            }
            pose.sample(scene, Some(clip), time_s, &none);
            let cor = regions.cor_ratios(scene, &pose, centers);
            for (joint, samples) in &mut self.by_joint {
                let ratio = cor.iter().find(|(j, _)| j == joint).map(|c| c.1);
                for s in samples
                    .iter_mut()
                    .filter(|s| s.clip == clip && s.time_s == time_s)
                {
                    s.cor = ratio;
                }
            }
        }
        Ok(())
    }
}

/// The finding of one joint, when some sample stands against CoR too: (its worst LBS ratio, finding).
fn finding(
    scene: &Scene,
    regions: &RegionVolumes,
    options: &CheckOptions,
    joint: usize,
    samples: &[Sample],
) -> Option<(f64, Finding)> {
    let min = options.min_volume_ratio;
    let standing: Vec<&Sample> = samples
        .iter()
        .filter(|s| {
            s.cor
                .is_some_and(|cor| lbs_loses_more(s.lbs, s.dqs, Some(cor), min))
        })
        .collect();
    let worst = *standing.iter().min_by(|a, b| a.lbs.total_cmp(&b.lbs))?;
    let mut clips: Vec<String> = Vec::new();
    for s in &standing {
        let name = clip_name(scene, s.clip);
        if !clips.contains(&name) {
            clips.push(name);
        }
    }
    let what = match regions.measure(joint) {
        Measure::Volume => "volume",
        Measure::Area => "area (not measured by volume, see regions_not_by_volume)",
    };
    let name = node_name(scene, joint);
    let clip = clip_name(scene, worst.clip);
    let cor = worst.cor.unwrap_or(f64::NAN);
    let mut listed: Vec<String> = clips
        .iter()
        .take(NAMED_CLIPS)
        .map(|c| format!("\"{c}\""))
        .collect();
    if clips.len() > NAMED_CLIPS {
        listed.push(format!("and {} more", clips.len() - NAMED_CLIPS));
    }
    let mut f = Finding::new(
        Rule::LbsCollapse,
        format!(
            "LBS keeps {:.3} of joint \"{name}\"'s region {what} (DQS {:.3}, CoR {cor:.3}) in clip \"{clip}\" at {:.3} s, below {min} and clearly below DQS and CoR; in {} clip{}: {}",
            worst.lbs,
            worst.dqs,
            worst.time_s,
            clips.len(),
            if clips.len() == 1 { "" } else { "s" },
            listed.join(", ")
        ),
    );
    f.joint = Some(name);
    f.clip = Some(clip);
    f.time = Some(worst.time_s);
    f.ratio = Some(worst.lbs);
    f.dqs_ratio = Some(worst.dqs);
    f.cor_ratio = worst.cor;
    f.clips = clips;
    Some((worst.lbs, f))
}

/// The name of clip `c` (empty when out of range).
fn clip_name(scene: &Scene, c: usize) -> String {
    scene
        .animations
        .get(c)
        .map_or_else(String::new, |a| a.name.clone())
}
