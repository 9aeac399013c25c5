//! Poses: local TRS per node, global matrices, joint skinning matrices.

use glam::Mat4;

use super::overrides::JointOverrides;
use super::sample::{sample_channel, unit_quat_from, vec3_from};
use crate::scene::{NodeTransform, Property, Scene, Trs};

/// A pose of every node of a scene.
///
/// Posing keeps only the nodes that drawing and skinning read up to date (meshes, joints,
/// skeleton roots and their ancestors, the "live" nodes), so a file with a million plain
/// nodes under a skeleton poses as fast as one without them; the other nodes keep their
/// rest globals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pose {
    /// Local transform of each node, `parent_from_local`; animated nodes are TRS.
    pub local: Vec<NodeTransform>,
    /// Global matrix of each node, `world_from_local`: every node's at rest, the live nodes'
    /// after [`Pose::sample`] and [`Pose::update_globals`].
    pub global: Vec<Mat4>,
    /// Morph weights per node, one per target of its mesh (empty for nodes without
    /// morph targets): the node's defaults, then the clip's, then the overrides.
    pub morph_weights: Vec<Vec<f32>>,
    /// The live nodes, parents before children.
    live: Vec<usize>,
    /// Per node, whether it is live.
    is_live: Vec<bool>,
    /// Nodes with morph targets.
    morph_nodes: Vec<usize>,
    /// Nodes with a mesh, ascending.
    mesh_nodes: Vec<usize>,
    /// Other nodes a clip channel set, reset to rest at the next sample.
    touched: Vec<usize>,
    /// Scratch for channel values, kept to avoid per-sample allocation.
    scratch: Vec<f32>,
}

impl Pose {
    /// The rest pose: every node at its file transform, every global computed.
    #[must_use]
    pub fn rest(scene: &Scene) -> Self {
        let order = parent_first_order(scene);
        let is_live = live_nodes(scene);
        let mut morph_weights: Vec<Vec<f32>> = vec![Vec::new(); scene.nodes.len()];
        let mesh_nodes: Vec<usize> = (0..scene.nodes.len())
            .filter(|&n| scene.nodes[n].mesh.is_some())
            .collect();
        for &n in &mesh_nodes {
            morph_weights[n] = default_morph_weights(scene, n);
        }
        let mut pose = Self {
            local: scene.nodes.iter().map(|n| n.transform).collect(),
            global: vec![Mat4::IDENTITY; scene.nodes.len()],
            morph_nodes: mesh_nodes
                .iter()
                .copied()
                .filter(|&n| !morph_weights[n].is_empty())
                .collect(),
            morph_weights,
            mesh_nodes,
            live: order.iter().copied().filter(|&n| is_live[n]).collect(),
            is_live,
            touched: Vec::new(),
            scratch: Vec::with_capacity(16),
        };
        pose.update_globals_of(scene, &order);
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
        self.reset_to_rest(scene);
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
                if !self.is_live.get(channel.node).copied().unwrap_or(true) {
                    self.touched.push(channel.node);
                }
            }
        }
        overrides.apply(scene, &mut self.local);
        overrides.apply_morph_weights(&mut self.morph_weights);
        self.settle(scene);
    }

    /// Evaluates the scene's node constraints on the current locals, then updates the globals:
    /// what every change of the locals ends with.
    pub fn settle(&mut self, scene: &Scene) {
        if scene.constraints.is_empty() {
            self.update_globals(scene);
        } else {
            super::constraint::apply_constraints(scene, self);
        }
    }

    /// Puts the locals and morph weights a sample may have changed back at rest: the live
    /// nodes', the nodes the last clip touched and the nodes with morph targets.
    fn reset_to_rest(&mut self, scene: &Scene) {
        for n in self.live.iter().chain(&self.touched) {
            if let (Some(local), Some(node)) = (self.local.get_mut(*n), scene.nodes.get(*n)) {
                *local = node.transform;
            }
        }
        self.touched.clear();
        for &n in &self.morph_nodes {
            self.morph_weights[n] = default_morph_weights(scene, n);
        }
    }

    /// The live nodes (meshes, joints, skeleton roots and their ancestors), parents first: the
    /// ones a sample poses.
    #[must_use]
    pub fn live_nodes(&self) -> &[usize] {
        &self.live
    }

    /// The nodes of `scene` that hold a mesh, ascending (so drawing and skinning need not walk
    /// every node); found anew when this pose was not made for `scene`.
    #[must_use]
    pub fn mesh_nodes(&self, scene: &Scene) -> std::borrow::Cow<'_, [usize]> {
        if self.local.len() == scene.nodes.len() {
            std::borrow::Cow::Borrowed(&self.mesh_nodes)
        } else {
            (0..scene.nodes.len())
                .filter(|&n| scene.nodes[n].mesh.is_some())
                .collect()
        }
    }

    /// The morph weights of node `node` (empty when it has no morph targets).
    #[must_use]
    pub fn morph_weights_of(&self, node: usize) -> &[f32] {
        self.morph_weights.get(node).map_or(&[], Vec::as_slice)
    }

    /// Recomputes the live nodes' global matrices from the local transforms, parents first.
    pub fn update_globals(&mut self, scene: &Scene) {
        let live = std::mem::take(&mut self.live);
        self.update_globals_of(scene, &live);
        self.live = live;
    }

    /// Recomputes the global matrices of `order` (parents before children).
    fn update_globals_of(&mut self, scene: &Scene, order: &[usize]) {
        for &n in order {
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
        crate::skin::count_visits(skin.joints.len());
        out.extend(skin.joints.iter().enumerate().map(|(j, &node)| {
            let world_from_joint = self.global.get(node).copied().unwrap_or(Mat4::IDENTITY);
            let joint_from_bind = skin.inverse_bind.get(j).copied().unwrap_or(Mat4::IDENTITY);
            world_from_joint * joint_from_bind
        }));
    }
}

/// The fewest items a parallel worker should take when it poses each, so each worker makes
/// one rest pose (a pass over every node) and re-poses it, instead of one per split.
#[must_use]
pub fn items_per_worker(items: usize) -> usize {
    items.div_ceil(rayon::current_num_threads().max(1)).max(1)
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

/// Per node, whether drawing or skinning reads its global: a mesh node, a joint, a skeleton
/// root, a constraint's node or source, or an ancestor of one.
fn live_nodes(scene: &Scene) -> Vec<bool> {
    let mut live = vec![false; scene.nodes.len()];
    let meshes = (0..scene.nodes.len()).filter(|&n| scene.nodes[n].mesh.is_some());
    let joints = scene
        .skins
        .iter()
        .flat_map(|s| s.joints.iter().copied().chain(s.skeleton));
    let constrained = scene
        .constraints
        .iter()
        .flat_map(|c| [c.destination, c.source]);
    for start in meshes.chain(joints).chain(constrained) {
        // Stops at the first node already marked, so every node is walked once (cycles too).
        let mut at = Some(start);
        while let Some(n) = at.filter(|&n| n < live.len() && !live[n]) {
            live[n] = true;
            at = scene.nodes[n].parent;
        }
    }
    live
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
