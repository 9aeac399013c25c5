//! Pose flags shared by the headless commands and the viewer: mode, clip, time, joint angles.
//!
//! The flags are parsed here; what they mean is [`PoseRequest::resolve`]'s job.

use anyhow::Result;
use clap::Args;

use crate::pose_request::{PoseRequest, ResolvedPose};
use crate::scene::Scene;

/// How to pose a model: skinning mode, clip and time, joint angle overrides, CoR options.
#[derive(Clone, Debug, Args)]
pub struct PoseArgs {
    /// Skinning mode: lbs, dqs, hybrid or cor (render also takes split, split3). Default: the
    /// method the file stores for its skins (FBX), else dqs.
    #[arg(long)]
    pub mode: Option<String>,
    /// One hybrid beta for every vertex (0 LBS, 1 DQS), over the file's blend map; says so on
    /// stderr. Default: the file's `_DQS_BLEND` as stored, joint flags where it has none.
    #[arg(long, value_name = "B")]
    pub beta: Option<f32>,
    /// Clip name or index; without it the rest pose is used (or, with --time, the only clip).
    #[arg(long, value_name = "NAME|INDEX")]
    pub clip: Option<String>,
    /// Time in the clip, in seconds (default 0). Without --clip: the model's only clip, an error
    /// when it has several or none.
    #[arg(long, value_name = "SECONDS")]
    pub time: Option<f32>,
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
    /// Direct Delta Mush parameters.
    #[command(flatten)]
    pub ddm: super::DdmArgs,
    /// Delta Mush parameters.
    #[command(flatten)]
    pub dm: super::DmArgs,
}

impl PoseArgs {
    /// The pose options as the library takes them (the CoR options stay here).
    #[must_use]
    pub fn request(&self) -> PoseRequest {
        PoseRequest {
            mode: self.mode.clone(),
            beta: self.beta,
            clip: self.clip.clone(),
            time_s: self.time,
            twist: self.twist.clone(),
            bend: self.bend.clone(),
            roll: self.roll.clone(),
        }
    }

    /// Checks every option against `scene` and prints any notice (the clip `--time` implied) on stderr.
    pub fn resolve(&self, scene: &Scene) -> Result<ResolvedPose> {
        let resolved = self.request().resolve(scene)?;
        if let Some(notice) = &resolved.notice {
            eprintln!("dqview: {notice}");
        }
        Ok(resolved)
    }
}
