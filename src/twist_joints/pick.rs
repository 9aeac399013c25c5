//! The joints where LBS collapses: `check`'s `lbs_collapse` over the clips, a 170 degree twist
//! and a bend sweep of each joint at rest, all by the rule of [`lbs_loses_more`]; left and
//! right alike where the rig is symmetric.

use std::time::{Duration, Instant};

use super::measure::MeasurePose;
use super::mirror::{Mirror, MirrorMap};
use crate::analysis::{Measure, NotMeasurable, RestReference, lbs_loses_more};
use crate::anim::{JointOverrides, Pose, first_child_joint};
use crate::check::{CheckOptions, Rule, check_scene_with};
use crate::scene::Scene;
use crate::scene::names::node_name;
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

/// What the picker chose, and what it could not judge or found lopsided.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Picks {
    /// The picked joints, clips' first, then the sweeps', then mirror partners.
    pub joints: Vec<PickedJoint>,
    /// One line each: regions not measurable (never picked on), joints with no mirror.
    pub notes: Vec<String>,
}

/// The bends the picker tries of each joint at rest, in degrees, in its main bending plane.
pub const SWEEP_BEND_DEG: [f32; 4] = [30.0, 60.0, 90.0, 120.0];

/// Every joint whose region LBS collapses in a clip, at a 170 degree twist or in a bend sweep
/// at rest, clips first; a picked joint's mirror partner is picked too, so both sides of a
/// symmetric rig are fixed alike. A region that is not measurable never makes a pick.
#[must_use]
pub fn pick_joints(
    scene: &Scene,
    reference: &RestReference,
    centers: &SceneCenters,
    time_budget: Duration,
) -> Picks {
    let options = CheckOptions {
        time_budget,
        ..CheckOptions::DEFAULT
    };
    let checked = check_scene_with(scene, &options, Some(centers), Instant::now() + time_budget);
    let mut unmeasured: Vec<String> = Vec::new();
    let mut picks = Picks {
        joints: Vec::new(),
        notes: Vec::new(),
    };
    // `lbs_collapse` measures a region that does not close by its area: not picked on here.
    for pick in clip_picks(scene, &checked.findings) {
        match reference.region(pick.joint).and_then(|r| r.area_reason) {
            Some(why) => unmeasured.push(format!(
                "{} (its volume: the region {}; in clips by area only)",
                node_name(scene, pick.joint),
                why.text()
            )),
            None => picks.joints.push(pick),
        }
    }
    for joint in sweep_candidates(scene, reference) {
        if picks.joints.iter().any(|p| p.joint == joint) {
            continue;
        }
        match sweep_pick(scene, reference, centers, joint, options.min_volume_ratio) {
            Ok(Some(pick)) => picks.joints.push(pick),
            Ok(None) => {}
            Err(why) => unmeasured.push(format!("{} ({})", node_name(scene, joint), why.text())),
        }
    }
    for (joint, why) in reference.not_measurable() {
        if has_junction(scene, joint) {
            unmeasured.push(format!("{} ({})", node_name(scene, joint), why.text()));
        }
    }
    if !unmeasured.is_empty() {
        picks.notes.push(format!(
            "not measurable, so not judged: {}",
            unmeasured.join("; ")
        ));
    }
    add_mirrors(scene, &mut picks);
    picks
}

/// The joints `check`'s `lbs_collapse` found in the clips (those with a junction to fix).
fn clip_picks(scene: &Scene, findings: &[crate::check::Finding]) -> Vec<PickedJoint> {
    findings
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
        .filter(|p| has_junction(scene, p.joint))
        .collect()
}

/// Joint `joint` picked by its twist at [`SWEEP_TWIST_DEG`] or, failing that, its worst bend of
/// [`SWEEP_BEND_DEG`] that collapses LBS ([`lbs_loses_more`]); `Err` when a pose leaves its
/// region not measurable.
fn sweep_pick(
    scene: &Scene,
    reference: &RestReference,
    centers: &SceneCenters,
    joint: usize,
    min_ratio: f64,
) -> Result<Option<PickedJoint>, NotMeasurable> {
    let pose = twist_pose(joint, SWEEP_TWIST_DEG);
    // A joint without a child joint has no bone to twist about: bends only.
    let twists = first_child_joint(scene, joint).is_some();
    let [lbs, dqs, cor] = if twists {
        region_ratios(scene, reference, centers, joint, &pose)?
    } else {
        [1.0; 3]
    };
    if twists && lbs_loses_more(lbs, dqs, Some(cor), min_ratio) {
        return Ok(Some(PickedJoint {
            joint,
            reason: format!(
                "twisted {SWEEP_TWIST_DEG:.0} degrees at rest its region keeps {lbs:.3} of its volume with LBS, {dqs:.3} with DQS, {cor:.3} with CoR"
            ),
            worst: pose,
        }));
    }
    let bend = super::poses::main_bend(scene, joint);
    let mut worst: Option<(f32, [f64; 3], MeasurePose)> = None;
    for deg in SWEEP_BEND_DEG {
        let pose = super::poses::turned(joint, bend.angles(deg));
        let [lbs, dqs, cor] = region_ratios(scene, reference, centers, joint, &pose)?;
        if lbs_loses_more(lbs, dqs, Some(cor), min_ratio)
            && worst.as_ref().is_none_or(|(_, r, _)| lbs < r[0])
        {
            worst = Some((deg, [lbs, dqs, cor], pose));
        }
    }
    Ok(worst.map(|(deg, [lbs, dqs, cor], pose)| PickedJoint {
        joint,
        reason: format!(
            "bent {deg:.0} degrees at rest (its main bending plane) its region keeps {lbs:.3} of its volume with LBS, {dqs:.3} with DQS, {cor:.3} with CoR"
        ),
        worst: pose,
    }))
}

/// Adds each picked joint's mirror partner (same count, the pick's reason mirrored) and notes
/// the picked joints off the mirror plane that have no partner.
fn add_mirrors(scene: &Scene, picks: &mut Picks) {
    let mirrors = MirrorMap::of(scene);
    let mut lopsided: Vec<String> = Vec::new();
    let mut k = 0;
    while k < picks.joints.len() {
        let p = &picks.joints[k];
        match mirrors.of_joint(p.joint) {
            Mirror::Partner(q) if !picks.joints.iter().any(|o| o.joint == q) => {
                let reason = format!(
                    "the mirror of {} (picked: {})",
                    node_name(scene, p.joint),
                    p.reason
                );
                let worst = p.worst.clone();
                picks.joints.push(PickedJoint {
                    joint: q,
                    reason,
                    worst: MeasurePose {
                        overrides: mirrored_overrides(&worst.overrides, p.joint, q),
                        ..worst
                    },
                });
            }
            Mirror::None => lopsided.push(node_name(scene, p.joint)),
            _ => {}
        }
        k += 1;
    }
    if !lopsided.is_empty() {
        picks.notes.push(format!(
            "no mirror joint across the skeleton's X = 0 plane for {}: the rig is not symmetric there, so only the picked side is fixed",
            lopsided.join(", ")
        ));
    }
}

/// `overrides` with joint `from`'s angles moved to `to` (a twist reads the same either side).
fn mirrored_overrides(overrides: &JointOverrides, from: usize, to: usize) -> JointOverrides {
    let mut out = JointOverrides::new();
    let angles = overrides.get(from);
    if !angles.is_zero() {
        out.set(to, angles);
    }
    out
}

/// The joints a sweep tries: weighted joints with a parent joint of their skin (a junction to
/// fix) whose region is measured by volume and measurable at rest.
fn sweep_candidates(scene: &Scene, reference: &RestReference) -> Vec<usize> {
    scene
        .joint_nodes()
        .into_iter()
        .filter(|&j| has_junction(scene, j))
        .filter(|&j| {
            reference
                .region(j)
                .is_some_and(|r| r.measure == Measure::Volume && r.is_measurable())
        })
        .collect()
}

/// Whether joint node `joint`'s parent is a joint of a skin `joint` is in: a junction.
fn has_junction(scene: &Scene, joint: usize) -> bool {
    scene
        .nodes
        .get(joint)
        .and_then(|n| n.parent)
        .is_some_and(|p| super::layout::shares_skin(scene, p, joint))
}

/// Joint `joint`'s region ratio to rest at `pose`: LBS, DQS, CoR; or why one is not measurable.
fn region_ratios(
    scene: &Scene,
    reference: &RestReference,
    centers: &SceneCenters,
    joint: usize,
    pose: &MeasurePose,
) -> Result<[f64; 3], NotMeasurable> {
    let Some(region) = reference.region(joint) else {
        return Ok([1.0; 3]);
    };
    let mut p = Pose::rest(scene);
    p.sample(scene, pose.clip, pose.time_s, &pose.overrides);
    let lbs = skin_scene(scene, &p, SkinningMode::Lbs, Betas::Uniform(0.0));
    let dqs = skin_scene(scene, &p, SkinningMode::Dqs, Betas::Uniform(0.0));
    let cor = skin_scene_cor(scene, &p, centers);
    Ok([
        region.ratio(&lbs)?,
        region.ratio(&dqs)?,
        region.ratio(&cor)?,
    ])
}
