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
    /// Morph weights per node, one per target of its mesh (empty for nodes without
    /// morph targets): the node's defaults, then the clip's, then the overrides.
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
            morph_weights: (0..scene.nodes.len())
                .map(|n| default_morph_weights(scene, n))
                .collect(),
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
        for (n, w) in self.morph_weights.iter_mut().enumerate() {
            *w = default_morph_weights(scene, n);
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
                            // Keep one weight per target even if the channel has another count.
                            for (dst, &src) in w.iter_mut().zip(&self.scratch) {
                                *dst = src;
                            }
                        }
                        continue;
                    }
                }
                *local = NodeTransform::Trs(trs);
            }
        }
        overrides.apply(scene, &mut self.local);
        overrides.apply_morph_weights(&mut self.morph_weights);
        self.update_globals(scene);
    }

    /// The morph weights of node `node` (empty when it has no morph targets).
    #[must_use]
    pub fn morph_weights_of(&self, node: usize) -> &[f32] {
        self.morph_weights.get(node).map_or(&[], Vec::as_slice)
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

/// Node `node`'s default morph weights, one per target of its mesh: the node's
/// `weights`, else the mesh's, missing entries 0 (empty for nodes without targets).
#[must_use]
pub fn default_morph_weights(scene: &Scene, node: usize) -> Vec<f32> {
    let Some(node) = scene.nodes.get(node) else {
        return Vec::new();
    };
    let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
        return Vec::new();
    };
    let targets = mesh
        .primitives
        .iter()
        .map(|p| p.morph_targets.len())
        .max()
        .unwrap_or(0);
    let source = if node.morph_weights.is_empty() {
        &mesh.morph_weights
    } else {
        &node.morph_weights
    };
    (0..targets)
        .map(|t| source.get(t).copied().unwrap_or(0.0))
        .collect()
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
