//! Pose options shared by the headless commands: mode, clip, time, joint angles.

use anyhow::{Result, anyhow, bail};
use clap::Args;

use crate::anim::{JointOverrides, find_clip, find_node};
use crate::scene::{Scene, SkinningMethod};
use crate::skin::SkinningMode;

/// How to pose a model: skinning mode, clip and time, joint angle overrides.
#[derive(Clone, Debug, Default, Args)]
pub struct PoseArgs {
    /// Skinning mode: lbs, dqs, hybrid or cor (render also takes split, split3). Default: the
    /// method the file stores for its skins (FBX), else dqs.
    #[arg(long)]
    pub mode: Option<String>,
    /// Hybrid blend factor: 0 is LBS, 1 is DQS.
    #[arg(long, default_value_t = 0.5)]
    pub beta: f32,
    /// Clip name or index; without it the rest pose is used.
    #[arg(long, value_name = "NAME|INDEX")]
    pub clip: Option<String>,
    /// Time in the clip, in seconds (default 0).
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub time: f32,
    /// Twist a joint about its bone axis: JOINT=DEG (name or node index); repeatable.
    #[arg(long, value_name = "JOINT=DEG")]
    pub twist: Vec<String>,
    /// Bend a joint: JOINT=DEG; repeatable.
    #[arg(long, value_name = "JOINT=DEG")]
    pub bend: Vec<String>,
    /// Roll a joint: JOINT=DEG; repeatable.
    #[arg(long, value_name = "JOINT=DEG")]
    pub roll: Vec<String>,
    /// CoR precompute and bulge compensation.
    #[command(flatten)]
    pub cor: super::CorArgs,
}

/// Pose options resolved against a scene.
#[derive(Clone, Debug)]
pub struct ResolvedPose {
    /// Skinning mode.
    pub mode: SkinningMode,
    /// Whether hybrid betas come per vertex from the file (an FBX "blended" skin and no `--mode`).
    pub file_betas: bool,
    /// Hybrid beta in [0, 1].
    pub beta: f32,
    /// Clip index, if any.
    pub clip: Option<usize>,
    /// Time in seconds.
    pub time_s: f32,
    /// Joint angle overrides.
    pub overrides: JointOverrides,
}

impl PoseArgs {
    /// Checks every option against `scene`; errors list the valid choices.
    pub fn resolve(&self, scene: &Scene) -> Result<ResolvedPose> {
        let (mode, file_betas) = match &self.mode {
            Some(name) => {
                let mode = SkinningMode::from_name(name).ok_or_else(|| {
                    anyhow!("unknown mode `{name}` (valid: {})", mode_names().join(", "))
                })?;
                (mode, false)
            }
            None => match file_mode(scene) {
                Some(mode) => (mode, mode == SkinningMode::Hybrid),
                None => (SkinningMode::Dqs, false),
            },
        };
        if !self.beta.is_finite() || !(0.0..=1.0).contains(&self.beta) {
            bail!("--beta must be a number from 0 to 1, got {}", self.beta);
        }
        if !self.time.is_finite() {
            bail!(
                "--time must be a finite number of seconds, got {}",
                self.time
            );
        }
        let clip = match &self.clip {
            None => None,
            Some(c) => Some(find_clip(scene, c).ok_or_else(|| {
                let names: Vec<String> = scene
                    .animations
                    .iter()
                    .enumerate()
                    .map(|(i, a)| format!("{i}: {}", a.name))
                    .collect();
                if names.is_empty() {
                    anyhow!("unknown clip `{c}`: the model has no clips")
                } else {
                    anyhow!("unknown clip `{c}` (valid: {})", names.join(", "))
                }
            })?),
        };
        let mut overrides = JointOverrides::new();
        for (list, kind) in [(&self.twist, 0), (&self.bend, 1), (&self.roll, 2)] {
            for spec in list {
                let (node, deg) = parse_joint_angle(scene, spec)?;
                let mut a = overrides.get(node);
                match kind {
                    0 => a.twist_deg += deg,
                    1 => a.bend_deg += deg,
                    _ => a.roll_deg += deg,
                }
                overrides.set(node, a);
            }
        }
        Ok(ResolvedPose {
            mode,
            file_betas,
            beta: self.beta,
            clip,
            time_s: self.time,
            overrides,
        })
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

/// Parses `JOINT=DEG` where JOINT is a joint name or node index.
fn parse_joint_angle(scene: &Scene, spec: &str) -> Result<(usize, f32)> {
    let (joint, deg) = spec
        .rsplit_once('=')
        .ok_or_else(|| anyhow!("expected JOINT=DEG, got `{spec}`"))?;
    let deg: f32 = deg
        .trim()
        .parse()
        .ok()
        .filter(|d: &f32| d.is_finite())
        .ok_or_else(|| anyhow!("`{deg}` in `{spec}` is not a finite number of degrees"))?;
    let node = find_node(scene, joint.trim()).ok_or_else(|| {
        anyhow!(
            "unknown joint `{joint}` (valid: {})",
            joint_names(scene).join(", ")
        )
    })?;
    Ok((node, deg))
}

/// Names of every joint of every skin, in skin order, without repeats.
fn joint_names(scene: &Scene) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for skin in &scene.skins {
        for &j in &skin.joints {
            if let Some(n) = scene.nodes.get(j)
                && !names.contains(&n.name)
            {
                names.push(n.name.clone());
            }
        }
    }
    if names.is_empty() {
        names.push("(the model has no joints)".into());
    }
    names
}
