//! Joint overrides: twist, bend and roll angles applied on top of the sampled pose.

use std::collections::BTreeMap;

use glam::{Quat, Vec3};

use super::pose::to_trs;
use crate::scene::{NodeTransform, Scene};

/// Extra rotation of one joint, in degrees, in the joint's local frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JointAngles {
    /// About the bone's own axis (joint to first child joint; local +Y for leaves).
    pub twist_deg: f32,
    /// About the axis perpendicular to the bone nearest to local +Z.
    pub bend_deg: f32,
    /// About the third axis, bone axis x bend axis.
    pub roll_deg: f32,
}

impl JointAngles {
    /// Whether all three angles are zero.
    #[must_use]
    pub fn is_zero(&self) -> bool {
        self.twist_deg == 0.0 && self.bend_deg == 0.0 && self.roll_deg == 0.0
    }
}

/// Per-joint angle overrides, keyed by node index, and morph weight overrides.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointOverrides {
    /// Angles per node index; zero entries may be present and do nothing.
    pub angles: BTreeMap<usize, JointAngles>,
    /// Morph target weights set by hand, keyed by (mesh node, target); they replace the clip's.
    pub morph_weights: BTreeMap<(usize, usize), f32>,
}

impl JointOverrides {
    /// No overrides.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Overrides that twist node `node` by `twist_deg` and do nothing else.
    #[must_use]
    pub fn twist(node: usize, twist_deg: f32) -> Self {
        let mut out = Self::new();
        out.set(
            node,
            JointAngles {
                twist_deg,
                ..JointAngles::default()
            },
        );
        out
    }

    /// Sets the angles of node `node`, removing the entry when all are zero.
    pub fn set(&mut self, node: usize, angles: JointAngles) {
        if angles.is_zero() {
            self.angles.remove(&node);
        } else {
            self.angles.insert(node, angles);
        }
    }

    /// The angles of node `node` (zero when none).
    #[must_use]
    pub fn get(&self, node: usize) -> JointAngles {
        self.angles.get(&node).copied().unwrap_or_default()
    }

    /// Removes every override.
    pub fn clear(&mut self) {
        self.angles.clear();
        self.morph_weights.clear();
    }

    /// Sets the weight of morph target `target` of mesh node `node` (replacing the animated one).
    pub fn set_morph_weight(&mut self, node: usize, target: usize, weight: f32) {
        self.morph_weights.insert((node, target), weight);
    }

    /// The hand-set weight of morph target `target` of node `node`, if any.
    #[must_use]
    pub fn morph_weight(&self, node: usize, target: usize) -> Option<f32> {
        self.morph_weights.get(&(node, target)).copied()
    }

    /// Hands morph target `target` of node `node` back to the clip (or the default weight).
    pub fn clear_morph_weight(&mut self, node: usize, target: usize) {
        self.morph_weights.remove(&(node, target));
    }

    /// Writes the morph weight overrides into per-node weights; non-finite ones are ignored.
    pub fn apply_morph_weights(&self, weights: &mut [Vec<f32>]) {
        for (&(node, target), &w) in &self.morph_weights {
            let Some(node_weights) = weights.get_mut(node) else {
                continue;
            };
            if !w.is_finite() || target >= node_weights.len() {
                continue;
            }
            node_weights[target] = w;
        }
    }

    /// Applies the overrides to local transforms: rotation <- rotation * bend * roll * twist.
    ///
    /// Non-finite angles are ignored.
    pub fn apply(&self, scene: &Scene, local: &mut [NodeTransform]) {
        for (&node, angles) in &self.angles {
            if angles.is_zero() {
                continue;
            }
            let Some(current) = local.get(node).copied() else {
                continue;
            };
            let frame = BoneFrame::of(scene, node);
            let delta = frame.rotation(angles);
            let mut trs = to_trs(current);
            trs.rotation = (trs.rotation * delta).normalize();
            if let Some(slot) = local.get_mut(node) {
                *slot = NodeTransform::Trs(trs);
            }
        }
    }
}

/// A joint's twist, bend and roll axes in its own local frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoneFrame {
    /// The bone axis (twist).
    pub twist_axis: Vec3,
    /// Perpendicular to the bone, nearest to local +Z (bend).
    pub bend_axis: Vec3,
    /// `twist_axis x bend_axis` (roll).
    pub roll_axis: Vec3,
}

impl BoneFrame {
    /// The frame of node `node`: twist towards its first child joint, else local +Y.
    #[must_use]
    pub fn of(scene: &Scene, node: usize) -> Self {
        Self::toward(scene, first_child_joint(scene, node))
    }

    /// The frames of `joints`, which must be every skin's joints sorted and deduplicated (as
    /// [`Scene::joint_nodes`] lists them): the same as [`BoneFrame::of`] on each.
    ///
    /// A child is looked up in `joints` by binary search instead of in every skin's joint list,
    /// which made one frame per joint cost joints squared (10^10 steps on a 100,000-joint chain).
    #[must_use]
    pub fn of_joints(scene: &Scene, joints: &[usize]) -> Vec<Self> {
        crate::skin::count_visits(joints.len());
        let is_joint = |c: usize| joints.binary_search(&c).is_ok();
        joints
            .iter()
            .map(|&node| Self::toward(scene, first_child_where(scene, node, is_joint, 1)))
            .collect()
    }

    /// The frame whose twist axis points at `child`'s rest translation (local +Y without one).
    fn toward(scene: &Scene, child: Option<usize>) -> Self {
        let twist_axis = child
            .and_then(|c| scene.nodes.get(c))
            .map(|c| to_trs(c.transform).translation)
            .and_then(Vec3::try_normalize)
            .unwrap_or(Vec3::Y);
        let bend_axis = (Vec3::Z - twist_axis * twist_axis.dot(Vec3::Z))
            .try_normalize()
            .unwrap_or_else(|| {
                (Vec3::X - twist_axis * twist_axis.dot(Vec3::X)).normalize_or(Vec3::X)
            });
        Self {
            twist_axis,
            bend_axis,
            roll_axis: twist_axis.cross(bend_axis),
        }
    }

    /// The combined rotation bend * roll * twist for `angles`; identity for non-finite angles.
    #[must_use]
    pub fn rotation(&self, angles: &JointAngles) -> Quat {
        let rot = |axis: Vec3, deg: f32| {
            if deg.is_finite() {
                Quat::from_axis_angle(axis, deg.to_radians())
            } else {
                Quat::IDENTITY
            }
        };
        rot(self.bend_axis, angles.bend_deg)
            * rot(self.roll_axis, angles.roll_deg)
            * rot(self.twist_axis, angles.twist_deg)
    }
}

/// The first child of `node` that is a joint of some skin (else its first child at all).
///
/// It searches every skin's joint list per child: for one node, not for each joint of a big
/// skin (see [`BoneFrame::of_joints`]).
pub(crate) fn first_child_joint(scene: &Scene, node: usize) -> Option<usize> {
    let is_joint = |c: usize| scene.skins.iter().any(|s| s.joints.contains(&c));
    // Counted as the most each test reads, so a per-joint use of this shows in the work count.
    let cost = scene.skins.iter().map(|s| s.joints.len()).sum();
    first_child_where(scene, node, is_joint, cost)
}

/// The first child of `node` for which `is_joint` holds, else its first child at all; each
/// test counts as `cost` visits in [`crate::skin::work_visits`].
fn first_child_where(
    scene: &Scene,
    node: usize,
    is_joint: impl Fn(usize) -> bool,
    cost: usize,
) -> Option<usize> {
    let children = &scene.nodes.get(node)?.children;
    let found = children.iter().position(|&c| is_joint(c));
    crate::skin::count_visits(cost * found.map_or(children.len(), |i| i + 1));
    found
        .map(|i| children[i])
        .or_else(|| children.first().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_of_all_joints_match_each_joints_own_frame() {
        for name in ["twist", "elbow", "arm"] {
            let scene = crate::builtin::builtin_scene(name).expect("builtin");
            let joints = scene.joint_nodes();
            let each: Vec<BoneFrame> = joints.iter().map(|&n| BoneFrame::of(&scene, n)).collect();
            assert_eq!(BoneFrame::of_joints(&scene, &joints), each, "{name}");
        }
    }
}
