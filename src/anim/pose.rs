//! Poses: local TRS per node, global matrices, joint skinning matrices.

use glam::Mat4;

use super::overrides::JointOverrides;
use super::sample::{sample_channel, unit_quat_from, vec3_from};
use crate::scene::{NodeTransform, Property, Scene, Trs};

/// A pose of every node of a scene.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pose {
    /// Local transform of each node, `parent_from_local`; animated nodes are TRS.
    pub local: Vec<NodeTransform>,
    /// Global matrix of each node, `world_from_local`; valid after [`Pose::update_globals`].
    pub global: Vec<Mat4>,
    /// Sampled morph weights per node (empty for nodes no channel drives).
    pub morph_weights: Vec<Vec<f32>>,
    /// Node indices, parents before children.
    order: Vec<usize>,
    /// Scratch for channel values, kept to avoid per-sample allocation.
    scratch: Vec<f32>,
}

impl Pose {
    /// The rest pose: every node at its file transform, globals computed.
    #[must_use]
    pub fn rest(scene: &Scene) -> Self {
        let mut pose = Self {
            local: scene.nodes.iter().map(|n| n.transform).collect(),
            global: vec![Mat4::IDENTITY; scene.nodes.len()],
            morph_weights: vec![Vec::new(); scene.nodes.len()],
            order: parent_first_order(scene),
            scratch: Vec::with_capacity(16),
        };
        pose.update_globals(scene);
        pose
    }

    /// Resets to rest, applies clip `clip` at `time_s` and the overrides, and updates globals.
    ///
    /// A clip index out of range leaves the rest pose.
    pub fn sample(
        &mut self,
        scene: &Scene,
        clip: Option<usize>,
        time_s: f32,
        overrides: &JointOverrides,
    ) {
        if self.local.len() != scene.nodes.len() {
            *self = Self::rest(scene);
        }
        for (local, node) in self.local.iter_mut().zip(&scene.nodes) {
            *local = node.transform;
        }
        for w in &mut self.morph_weights {
            w.clear();
        }
        if let Some(animation) = clip.and_then(|c| scene.animations.get(c)) {
            for channel in &animation.channels {
                if !sample_channel(channel, time_s, &mut self.scratch) {
                    continue;
                }
                let Some(local) = self.local.get_mut(channel.node) else {
                    continue;
                };
                let mut trs = to_trs(*local);
                match channel.property {
                    Property::Translation => trs.translation = vec3_from(&self.scratch),
                    Property::Rotation => trs.rotation = unit_quat_from(&self.scratch),
                    Property::Scale => trs.scale = vec3_from(&self.scratch),
                    Property::MorphWeights(_) => {
                        if let Some(w) = self.morph_weights.get_mut(channel.node) {
                            w.clone_from(&self.scratch);
                        }
                        continue;
                    }
                }
                *local = NodeTransform::Trs(trs);
            }
        }
        overrides.apply(scene, &mut self.local);
        self.update_globals(scene);
    }

    /// Recomputes every global matrix from the local transforms, parents first.
    pub fn update_globals(&mut self, scene: &Scene) {
        for &n in &self.order {
            let local = self
                .local
                .get(n)
                .map_or(Mat4::IDENTITY, NodeTransform::to_mat4);
            let parent = scene
                .nodes
                .get(n)
                .and_then(|node| node.parent)
                .and_then(|p| self.global.get(p).copied())
                .unwrap_or(Mat4::IDENTITY);
            if let Some(g) = self.global.get_mut(n) {
                *g = parent * local;
            }
        }
    }

    /// Skinning matrices of skin `skin`: `world_from_joint * joint_from_bind` per joint, into `out`.
    pub fn skinning_matrices(&self, scene: &Scene, skin: usize, out: &mut Vec<Mat4>) {
        out.clear();
        let Some(skin) = scene.skins.get(skin) else {
            return;
        };
        out.extend(skin.joints.iter().enumerate().map(|(j, &node)| {
            let world_from_joint = self.global.get(node).copied().unwrap_or(Mat4::IDENTITY);
            let joint_from_bind = skin.inverse_bind.get(j).copied().unwrap_or(Mat4::IDENTITY);
            world_from_joint * joint_from_bind
        }));
    }
}

/// A TRS view of a local transform; matrices (which animations should not target) are decomposed.
pub(crate) fn to_trs(t: NodeTransform) -> Trs {
    match t {
        NodeTransform::Trs(trs) => trs,
        NodeTransform::Matrix(m) => {
            let (scale, rotation, translation) = m.to_scale_rotation_translation();
            Trs {
                translation,
                rotation: if rotation.is_finite() {
                    rotation.normalize()
                } else {
                    glam::Quat::IDENTITY
                },
                scale,
            }
        }
    }
}

/// Node indices ordered so every parent comes before its children; nodes in a cycle are left out.
fn parent_first_order(scene: &Scene) -> Vec<usize> {
    let mut order = Vec::with_capacity(scene.nodes.len());
    let mut seen = vec![false; scene.nodes.len()];
    let mut stack: Vec<usize> = (0..scene.nodes.len())
        .filter(|&n| scene.nodes[n].parent.is_none())
        .rev()
        .collect();
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n], true) {
            continue;
        }
        order.push(n);
        if let Some(node) = scene.nodes.get(n) {
            stack.extend(
                node.children
                    .iter()
                    .rev()
                    .filter(|&&c| c < seen.len() && !seen[c]),
            );
        }
    }
    order
}
