//! Animation: clip sampling, poses and joint overrides on top of them.

mod overrides;
mod pose;
mod sample;

pub use overrides::{BoneFrame, JointAngles, JointOverrides};
pub use pose::{Pose, default_morph_weights, items_per_worker};
pub use sample::{clip_duration_s, sample_channel};

use crate::scene::Scene;

/// Finds a clip by name or index, by the rule of [`crate::scene::names::clip`].
#[must_use]
pub fn find_clip(scene: &Scene, name_or_index: &str) -> Option<usize> {
    crate::scene::names::clip(scene, name_or_index).ok()
}

/// Finds a node by name or index, by the rule of [`crate::scene::names::node`].
#[must_use]
pub fn find_node(scene: &Scene, name_or_index: &str) -> Option<usize> {
    crate::scene::names::node(scene, name_or_index).ok()
}
