//! Pose options as the user gives them (mode, beta, clip, time, joint angles), checked against a scene.
//!
//! Both the command line (`cli`, which parses the flags) and the viewer's start
//! options (`app`) resolve a [`PoseRequest`] here, so the rules (what `--time`
//! without `--clip` means, which names are valid) are written once.

use thiserror::Error;

use crate::anim::JointOverrides;
use crate::scene::names::{self, NameError};
use crate::scene::{Scene, SkinningMethod};
use crate::skin::{BetaChoice, BetaSources, HybridBetas, SkinningMode, hybrid_betas};

/// How to pose a model: the pose options as given, before they are checked against a scene.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PoseRequest {
    /// Skinning mode name (`lbs`, `dqs`, `hybrid`, `cor`); `None`: the file's stored method, else DQS.
    pub mode: Option<String>,
    /// One hybrid beta for every vertex (0 LBS, 1 DQS), over any stored map; `None`: the
    /// betas as stored (see [`crate::skin::hybrid_betas`]).
    pub beta: Option<f32>,
    /// Clip name or index; `None`: the rest pose (or, with `time_s`, the model's only clip).
    pub clip: Option<String>,
    /// Time in the clip in seconds, when given; `None` means 0 and implies no clip.
    pub time_s: Option<f32>,
    /// Twists `JOINT=DEG` (joint name or node index), about the bone axis.
    pub twist: Vec<String>,
    /// Bends `JOINT=DEG`.
    pub bend: Vec<String>,
    /// Rolls `JOINT=DEG`.
    pub roll: Vec<String>,
}

/// Pose options resolved against a scene.
#[derive(Clone, Debug)]
pub struct ResolvedPose {
    /// Skinning mode.
    pub mode: SkinningMode,
    /// The uniform hybrid beta in [0, 1] given, if any (`None`: the betas as stored).
    pub beta: Option<f32>,
    /// Clip index, if any.
    pub clip: Option<usize>,
    /// Time in seconds.
    pub time_s: f32,
    /// Joint angle overrides.
    pub overrides: JointOverrides,
    /// A choice made for the user that they should hear about (one line, for stderr), e.g. the
    /// clip `--time` implied.
    pub notice: Option<String>,
}

impl ResolvedPose {
    /// The hybrid's betas for these options: `--beta` uniform when given, else the file's map as
    /// stored (joint flags where there is none; everywhere with `joint_flags`), for this pose's
    /// clip and overrides. The one rule every command uses ([`hybrid_betas`]).
    #[must_use]
    pub fn hybrid_betas(&self, scene: &Scene, joint_flags: bool) -> HybridBetas {
        let choice = match (self.beta, joint_flags) {
            (Some(b), _) => BetaChoice::Uniform(b),
            (None, true) => BetaChoice::JointFlags,
            (None, false) => BetaChoice::Stored,
        };
        let sources = BetaSources {
            choice,
            ..BetaSources::stored(self.clip, &self.overrides)
        };
        hybrid_betas(scene, &sources)
    }
}

/// Why pose options do not fit a scene; each message lists the valid choices.
#[derive(Debug, Error, PartialEq)]
pub enum PoseError {
    /// No skinning mode has this name.
    #[error("unknown mode `{name}` (valid: {valid})")]
    UnknownMode {
        /// The name given.
        name: String,
        /// The valid names, comma separated.
        valid: String,
    },
    /// Beta outside [0, 1] or not a number.
    #[error("--beta must be a number from 0 to 1, got {0}")]
    Beta(f32),
    /// Time NaN or infinite.
    #[error("--time must be a finite number of seconds, got {0}")]
    Time(f32),
    /// `--clip` names no clip, or several.
    #[error("--clip: {0}")]
    Clip(NameError),
    /// `--time` without `--clip` on a model with several clips.
    #[error(
        "--time without --clip: the model has {count} clips, pick one with --clip NAME|INDEX (valid: {valid})"
    )]
    TimeNeedsClip {
        /// How many clips the model has.
        count: usize,
        /// The valid clips as `index: name`, comma separated.
        valid: String,
    },
    /// `--time` without `--clip` on a model with no clips.
    #[error("--time without --clip: the model has no clips, only its rest pose")]
    TimeWithoutClips,
    /// A joint angle not written `JOINT=DEG`.
    #[error("expected JOINT=DEG, got `{0}`")]
    JointAngleSyntax(String),
    /// The degrees of a joint angle are not a finite number.
    #[error("`{deg}` in `{spec}` is not a finite number of degrees")]
    Degrees {
        /// The degrees as written.
        deg: String,
        /// The whole `JOINT=DEG`.
        spec: String,
    },
    /// A joint angle names no joint, or several.
    #[error("{flag}: {error}")]
    Joint {
        /// The flag, e.g. `--twist`.
        flag: &'static str,
        /// Why the name fits no joint.
        error: NameError,
    },
}

impl PoseRequest {
    /// Checks every option against `scene`; errors list the valid choices.
    ///
    /// `time_s` without `clip` picks the model's only clip (and says so in
    /// [`ResolvedPose::notice`]); with several clips or none it is an error,
    /// never a silent rest pose.
    pub fn resolve(&self, scene: &Scene) -> Result<ResolvedPose, PoseError> {
        let mode = match &self.mode {
            Some(name) => SkinningMode::from_name(name).ok_or_else(|| PoseError::UnknownMode {
                name: name.clone(),
                valid: mode_names().join(", "),
            })?,
            None => file_mode(scene).unwrap_or(SkinningMode::Dqs),
        };
        if let Some(beta) = self.beta
            && (!beta.is_finite() || !(0.0..=1.0).contains(&beta))
        {
            return Err(PoseError::Beta(beta));
        }
        let time_s = self.time_s.unwrap_or(0.0);
        if !time_s.is_finite() {
            return Err(PoseError::Time(time_s));
        }
        let (clip, notice) = self.clip_of(scene)?;
        Ok(ResolvedPose {
            mode,
            beta: self.beta,
            clip,
            time_s,
            overrides: self.overrides(scene)?,
            notice,
        })
    }

    /// The clip to sample, and a notice when `--time` chose it.
    fn clip_of(&self, scene: &Scene) -> Result<(Option<usize>, Option<String>), PoseError> {
        let clips = &scene.animations;
        match (&self.clip, self.time_s) {
            (Some(c), _) => names::clip(scene, c)
                .map(|index| (Some(index), None))
                .map_err(PoseError::Clip),
            (None, None) => Ok((None, None)),
            (None, Some(_)) => match clips.as_slice() {
                [] => Err(PoseError::TimeWithoutClips),
                [only] => Ok((
                    Some(0),
                    Some(format!(
                        "--time without --clip: using the model's only clip 0 \"{}\"",
                        only.name
                    )),
                )),
                several => Err(PoseError::TimeNeedsClip {
                    count: several.len(),
                    valid: clip_list(scene),
                }),
            },
        }
    }

    /// The twist, bend and roll overrides, summed per joint.
    fn overrides(&self, scene: &Scene) -> Result<JointOverrides, PoseError> {
        let mut overrides = JointOverrides::new();
        let flags = [
            (&self.twist, 0, "--twist"),
            (&self.bend, 1, "--bend"),
            (&self.roll, 2, "--roll"),
        ];
        for (list, kind, flag) in flags {
            for spec in list {
                let (node, deg) = parse_joint_angle(scene, spec, flag)?;
                let mut a = overrides.get(node);
                match kind {
                    0 => a.twist_deg += deg,
                    1 => a.bend_deg += deg,
                    _ => a.roll_deg += deg,
                }
                overrides.set(node, a);
            }
        }
        Ok(overrides)
    }
}

/// The skinning mode the file asks for: that of its first skinned primitive with a stored method.
#[must_use]
pub fn file_mode(scene: &Scene) -> Option<SkinningMode> {
    let method = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .find_map(|p| p.influences.as_ref().and(p.skinning_method))?;
    Some(match method {
        SkinningMethod::Linear => SkinningMode::Lbs,
        SkinningMethod::DualQuaternion => SkinningMode::Dqs,
        SkinningMethod::Blended => SkinningMode::Hybrid,
    })
}

/// The valid mode names.
fn mode_names() -> Vec<&'static str> {
    SkinningMode::ALL.iter().map(|m| m.name()).collect()
}

/// The model's clips as `index: name`, comma separated.
fn clip_list(scene: &Scene) -> String {
    let names: Vec<String> = scene
        .animations
        .iter()
        .enumerate()
        .map(|(i, a)| format!("{i}: {}", a.name))
        .collect();
    names.join(", ")
}

/// Parses `JOINT=DEG` where JOINT is a joint name or node index ([`names::pose_node`]'s rule).
fn parse_joint_angle(
    scene: &Scene,
    spec: &str,
    flag: &'static str,
) -> Result<(usize, f32), PoseError> {
    let (joint, deg) = spec
        .rsplit_once('=')
        .ok_or_else(|| PoseError::JointAngleSyntax(spec.to_string()))?;
    let degrees: f32 = deg
        .trim()
        .parse()
        .ok()
        .filter(|d: &f32| d.is_finite())
        .ok_or_else(|| PoseError::Degrees {
            deg: deg.to_string(),
            spec: spec.to_string(),
        })?;
    let node = names::pose_node(scene, joint).map_err(|error| PoseError::Joint { flag, error })?;
    Ok((node, degrees))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::builtin_scene;

    fn twist_with_clips(count: usize) -> Scene {
        let mut scene = builtin_scene("twist").expect("builtin");
        let clip = scene.animations.first().cloned().expect("twist has a clip");
        scene.animations = (0..count)
            .map(|i| crate::scene::Animation {
                name: format!("take{i}"),
                ..clip.clone()
            })
            .collect();
        scene
    }

    fn at_time(time_s: f32) -> PoseRequest {
        PoseRequest {
            time_s: Some(time_s),
            ..PoseRequest::default()
        }
    }

    #[test]
    fn time_without_clip_uses_the_only_clip_and_says_so() {
        let pose = at_time(0.42)
            .resolve(&twist_with_clips(1))
            .expect("one clip");
        assert_eq!((pose.clip, pose.time_s), (Some(0), 0.42));
        assert_eq!(
            pose.notice.as_deref(),
            Some("--time without --clip: using the model's only clip 0 \"take0\"")
        );
        // An explicit 0 is a given time too.
        assert_eq!(
            at_time(0.0).resolve(&twist_with_clips(1)).expect("ok").clip,
            Some(0)
        );
    }

    #[test]
    fn time_without_clip_on_several_or_no_clips_is_an_error() {
        let err = at_time(1.0)
            .resolve(&twist_with_clips(3))
            .expect_err("3 clips");
        assert_eq!(
            err.to_string(),
            "--time without --clip: the model has 3 clips, pick one with --clip NAME|INDEX \
             (valid: 0: take0, 1: take1, 2: take2)"
        );
        let err = at_time(1.0)
            .resolve(&twist_with_clips(0))
            .expect_err("no clips");
        assert_eq!(err, PoseError::TimeWithoutClips);
    }

    #[test]
    fn no_time_and_no_clip_is_the_rest_pose_and_a_named_clip_needs_no_notice() {
        let scene = twist_with_clips(3);
        let rest = PoseRequest::default().resolve(&scene).expect("rest");
        assert_eq!((rest.clip, rest.time_s, rest.notice), (None, 0.0, None));
        let named = PoseRequest {
            clip: Some("take2".into()),
            ..at_time(0.5)
        };
        let pose = named.resolve(&scene).expect("named clip");
        assert_eq!((pose.clip, pose.notice), (Some(2), None));
    }

    #[test]
    fn bad_options_list_the_valid_choices() {
        let scene = twist_with_clips(1);
        let bad = |r: PoseRequest| r.resolve(&scene).expect_err("bad").to_string();
        let mode = PoseRequest {
            mode: Some("nope".into()),
            ..PoseRequest::default()
        };
        assert_eq!(
            bad(mode),
            "unknown mode `nope` (valid: lbs, dqs, hybrid, cor, ddm, dm)"
        );
        let twist = PoseRequest {
            twist: vec!["elbow=30".into()],
            ..PoseRequest::default()
        };
        assert_eq!(
            bad(twist),
            "--twist: unknown joint `elbow`; did you mean `base` or `tip`? \
             (`dqview inspect` lists all 2 joints)"
        );
        assert_eq!(
            bad(at_time(f32::NAN)),
            "--time must be a finite number of seconds, got NaN"
        );
        // A joint by name and by node index: the angles add up.
        let tip = crate::anim::find_node(&scene, "tip").expect("tip");
        let summed = PoseRequest {
            twist: vec!["tip=30".into(), format!("{tip}=15")],
            bend: vec!["tip = -10".into()],
            ..PoseRequest::default()
        };
        let angles = summed.resolve(&scene).expect("twists").overrides.get(tip);
        assert_eq!(
            (angles.twist_deg, angles.bend_deg, angles.roll_deg),
            (45.0, -10.0, 0.0)
        );
    }
}
