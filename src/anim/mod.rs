//! Animation: clip sampling, poses and joint overrides on top of them.

mod overrides;
mod pose;
mod sample;

pub use overrides::{BoneFrame, JointAngles, JointOverrides};
pub use pose::{Pose, default_morph_weights};
pub use sample::{clip_duration_s, sample_channel};

use crate::scene::Scene;

/// Finds a clip by name (exact, then case-insensitive) or by index.
#[must_use]
pub fn find_clip(scene: &Scene, name_or_index: &str) -> Option<usize> {
    let anims = &scene.animations;
    anims
        .iter()
        .position(|a| a.name == name_or_index)
        .or_else(|| {
            anims
                .iter()
                .position(|a| a.name.eq_ignore_ascii_case(name_or_index))
        })
        .or_else(|| {
            name_or_index
                .parse::<usize>()
                .ok()
                .filter(|&i| i < anims.len())
        })
}

/// Finds a node by name (exact, then case-insensitive) or by index.
#[must_use]
pub fn find_node(scene: &Scene, name_or_index: &str) -> Option<usize> {
    let nodes = &scene.nodes;
    nodes
        .iter()
        .position(|n| n.name == name_or_index)
        .or_else(|| {
            nodes
                .iter()
                .position(|n| n.name.eq_ignore_ascii_case(name_or_index))
        })
        .or_else(|| {
            name_or_index
                .parse::<usize>()
                .ok()
                .filter(|&i| i < nodes.len())
        })
}
