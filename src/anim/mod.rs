//! Animation: clip sampling, poses and joint overrides on top of them.

mod constraint;
mod overrides;
mod pose;
mod sample;

pub(crate) use overrides::first_child_joint;
pub use overrides::{BoneFrame, JointAngles, JointOverrides};
pub(crate) use pose::to_trs;
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

/// The rest pose of `scene` with node `joint` twisted by `twist_deg` (a test fixture).
#[cfg(test)]
pub(crate) fn twisted_pose(scene: &Scene, joint: &str, twist_deg: f32) -> Pose {
    let node = find_node(scene, joint).expect("the joint is in the scene");
    let overrides = JointOverrides::twist(node, twist_deg);
    let mut pose = Pose::rest(scene);
    pose.sample(scene, None, 0.0, &overrides);
    pose
}
