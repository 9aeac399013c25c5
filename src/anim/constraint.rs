//! Evaluating node constraints (`VRMC_node_constraint` 1.0) on a pose, as the specification's
//! reference formulas and three-vrm do: roll and rotation read local rotations, aim world positions.

use glam::{Mat4, Quat, Vec3};

use super::pose::{Pose, to_trs};
use crate::scene::{ConstraintKind, NodeConstraint, NodeTransform, Scene};

/// Applies every constraint of `scene` to `pose`'s locals, in the scene's evaluation order,
/// then updates the globals.
pub(super) fn apply_constraints(scene: &Scene, pose: &mut Pose) {
    for c in &scene.constraints {
        let rotation = match c.kind {
            ConstraintKind::Roll { axis } => roll(scene, pose, c, axis),
            ConstraintKind::Rotation => rotation(scene, pose, c),
            ConstraintKind::Aim { axis } => {
                // Aim reads world positions: bring the globals up to date first.
                pose.update_globals(scene);
                aim(scene, pose, c, axis)
            }
        };
        if let (Some(q), Some(local)) = (rotation, pose.local.get_mut(c.destination)) {
            let mut trs = to_trs(*local);
            trs.rotation = q;
            *local = NodeTransform::Trs(trs);
        }
    }
    pose.update_globals(scene);
}

/// The rest rotation of node `n` (its file transform's).
fn rest_rotation(scene: &Scene, n: usize) -> Quat {
    scene
        .nodes
        .get(n)
        .map_or(Quat::IDENTITY, |node| to_trs(node.transform).rotation)
}

/// The current local rotation of node `n`.
fn local_rotation(pose: &Pose, n: usize) -> Quat {
    pose.local
        .get(n)
        .map_or(Quat::IDENTITY, |&t| to_trs(t).rotation)
}

/// Roll: the source's rotation from rest, seen in the destination's rest frame, its twist
/// about `axis` (swing removed by the smallest rotation), slerped from rest by the weight.
fn roll(scene: &Scene, pose: &Pose, c: &NodeConstraint, axis: Vec3) -> Option<Quat> {
    let dst_rest = rest_rotation(scene, c.destination);
    let src_rest = rest_rotation(scene, c.source);
    let delta = dst_rest.inverse() * local_rotation(pose, c.source) * src_rest.inverse() * dst_rest;
    let turned = (delta * axis).try_normalize()?;
    let twist = Quat::from_rotation_arc(turned, axis) * delta;
    finite(dst_rest.slerp(dst_rest * twist, c.weight))
}

/// Rotation: the source's rotation from rest in its own frame, applied after the destination's rest.
fn rotation(scene: &Scene, pose: &Pose, c: &NodeConstraint) -> Option<Quat> {
    let dst_rest = rest_rotation(scene, c.destination);
    let delta = rest_rotation(scene, c.source).inverse() * local_rotation(pose, c.source);
    finite(dst_rest.slerp(dst_rest * delta, c.weight))
}

/// Aim: the smallest turn (in world space) of the destination's rest `axis` onto the
/// direction from the destination to the source, slerped from rest by the weight.
fn aim(scene: &Scene, pose: &Pose, c: &NodeConstraint, axis: Vec3) -> Option<Quat> {
    let dst_rest = rest_rotation(scene, c.destination);
    let parent = scene.nodes.get(c.destination)?.parent;
    let parent_rotation = parent
        .and_then(|p| pose.global.get(p))
        .map_or(Quat::IDENTITY, world_rotation);
    let from = parent_rotation * (dst_rest * axis);
    let position = |n: usize| pose.global.get(n).map(|g| g.w_axis.truncate());
    let to = (position(c.source)? - position(c.destination)?).try_normalize()?;
    let turn = Quat::from_rotation_arc(from.try_normalize()?, to);
    let target = parent_rotation.inverse() * turn * parent_rotation * dst_rest;
    finite(dst_rest.slerp(target, c.weight))
}

/// The rotation of a world matrix, its scale taken out (a mirror goes into the scale, as three.js does).
fn world_rotation(m: &Mat4) -> Quat {
    let (_, rotation, _) = m.to_scale_rotation_translation();
    rotation.try_normalize_or_identity()
}

/// `q`, normalised, when it is finite.
fn finite(q: Quat) -> Option<Quat> {
    let q = q.normalize();
    q.is_finite().then_some(q)
}

/// Normalising a quaternion that may be degenerate.
trait TryNormalize {
    /// The unit quaternion, or identity when it has no length.
    fn try_normalize_or_identity(self) -> Quat;
}

impl TryNormalize for Quat {
    fn try_normalize_or_identity(self) -> Quat {
        let len = self.length();
        if len > 1e-12 && len.is_finite() {
            self / len
        } else {
            Quat::IDENTITY
        }
    }
}
