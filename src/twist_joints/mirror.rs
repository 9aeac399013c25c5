//! Left and right: each joint's mirror image across the skeleton's X = 0 plane, so both sides of
//! a symmetric rig are picked alike and bent in mirrored planes.
//!
//! Joints are compared where the skin binds them (their inverse bind matrices inverted), not
//! at rest: a rig's rest pose may be a lopsided pose (the Adventurer's torso turns) while the
//! bind pose is the symmetric T or A pose it was modelled in. The plane is the one through the
//! skeleton's root joint with normal X (glTF's and VRM's characters stand in Y up with X to one
//! side). A joint whose bind position mirrored lands on another joint's, within
//! [`MIRROR_TOLERANCE`] of the skeleton's extent, is its partner; one on the plane is its own.
//! A joint with neither is where the rig is not symmetric.

use glam::{Mat4, Vec3};

use crate::anim::Pose;
use crate::scene::Scene;

/// How far a mirrored joint may land from its partner, as a share of the skeleton's extent.
pub const MIRROR_TOLERANCE: f32 = 1e-3;

/// A joint's mirror image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mirror {
    /// The joint lies on the plane: it is its own mirror.
    OnPlane,
    /// This joint (node index) is its mirror image.
    Partner(usize),
    /// No joint lies at its mirror image: the rig is not symmetric there.
    None,
}

/// Every joint's bind position and the mirror plane, to look partners up in.
pub struct MirrorMap {
    /// (joint node, bind position in the skin's bind space).
    joints: Vec<(usize, Vec3)>,
    /// The plane's X.
    plane_x: f32,
    /// Largest distance that still counts as the same position.
    tolerance: f32,
}

impl MirrorMap {
    /// The bind positions of `scene`'s joints and the plane through its first root joint.
    #[must_use]
    pub fn of(scene: &Scene) -> Self {
        let joints: Vec<(usize, Vec3)> = scene
            .joint_nodes()
            .into_iter()
            .map(|j| (j, bind_matrix(scene, j).transform_point3(Vec3::ZERO)))
            .filter(|(_, p)| p.is_finite())
            .collect();
        let is_joint = |n: usize| joints.iter().any(|(j, _)| *j == n);
        // The root: the joint with no joint above it (the first, when a skin has several).
        let root = joints.iter().find(|(j, _)| {
            let mut up = scene.nodes.get(*j).and_then(|n| n.parent);
            let mut steps = 0usize;
            while let Some(p) = up {
                if is_joint(p) || steps > scene.nodes.len() {
                    return false;
                }
                up = scene.nodes.get(p).and_then(|n| n.parent);
                steps += 1;
            }
            true
        });
        let (lo, hi) = joints.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), (_, p)| (lo.min(*p), hi.max(*p)),
        );
        let extent = if joints.is_empty() {
            0.0
        } else {
            lo.distance(hi)
        };
        Self {
            plane_x: root.map_or(0.0, |(_, p)| p.x),
            tolerance: MIRROR_TOLERANCE * extent,
            joints,
        }
    }

    /// The mirror image of joint node `joint`.
    #[must_use]
    pub fn of_joint(&self, joint: usize) -> Mirror {
        let Some(&(_, p)) = self.joints.iter().find(|(j, _)| *j == joint) else {
            return Mirror::None;
        };
        if (p.x - self.plane_x).abs() <= self.tolerance {
            return Mirror::OnPlane;
        }
        let image = Vec3::new(2.0 * self.plane_x - p.x, p.y, p.z);
        self.joints
            .iter()
            .filter(|(j, _)| *j != joint)
            .map(|(j, q)| (*j, q.distance(image)))
            .filter(|(_, d)| *d <= self.tolerance)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map_or(Mirror::None, |(j, _)| Mirror::Partner(j))
    }
}

/// Joint node `joint`'s bind matrix (model from joint) in the first skin that lists it: its
/// inverse bind matrix inverted; the rest global matrix for a node no skin lists.
#[must_use]
pub fn bind_matrix(scene: &Scene, joint: usize) -> Mat4 {
    scene
        .skins
        .iter()
        .find_map(|s| {
            let k = s.joints.iter().position(|&j| j == joint)?;
            s.inverse_bind.get(k).map(|m| m.inverse())
        })
        .filter(|m| m.is_finite())
        .unwrap_or_else(|| {
            Pose::rest(scene)
                .global
                .get(joint)
                .copied()
                .unwrap_or(Mat4::IDENTITY)
        })
}

/// The mirror image of a rotation axis (an axial vector) across the X = 0 plane.
#[must_use]
pub fn mirror_axis(axis: Vec3) -> Vec3 {
    Vec3::new(axis.x, -axis.y, -axis.z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Node, NodeTransform, Skin};

    /// A root at x = 1 with two arms at x = 0 and x = 2, and one lopsided joint at x = 3, bound
    /// where they stand.
    fn rig() -> Scene {
        let node = |name: &str, x: f32, parent: Option<usize>| Node {
            name: name.into(),
            parent,
            transform: NodeTransform::Trs(crate::scene::Trs {
                translation: Vec3::new(x, 1.0, 0.0),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut scene = Scene {
            nodes: vec![
                node("root", 1.0, None),
                node("arm.L", -1.0, Some(0)),
                node("arm.R", 1.0, Some(0)),
                node("odd", 2.0, Some(0)),
            ],
            ..Default::default()
        };
        scene.nodes[0].children = vec![1, 2, 3];
        let pose = Pose::rest(&scene);
        scene.skins.push(Skin {
            joints: vec![0, 1, 2, 3],
            inverse_bind: (0..4).map(|j| pose.global[j].inverse()).collect(),
            ..Default::default()
        });
        scene
    }

    #[test]
    fn arms_mirror_each_other_the_root_itself_and_a_lopsided_joint_nothing() {
        let map = MirrorMap::of(&rig());
        assert_eq!(map.of_joint(0), Mirror::OnPlane);
        assert_eq!(map.of_joint(1), Mirror::Partner(2));
        assert_eq!(map.of_joint(2), Mirror::Partner(1));
        assert_eq!(map.of_joint(3), Mirror::None);
    }

    #[test]
    fn a_mirrored_axis_turns_the_mirror_image_the_same_way() {
        // Turning p about a, mirrored, equals turning the mirrored p about the mirrored axis.
        let a = Vec3::new(0.3, 0.5, -0.8).normalize();
        let p = Vec3::new(0.7, -0.2, 0.4);
        let m = |v: Vec3| Vec3::new(-v.x, v.y, v.z);
        let turned = glam::Quat::from_axis_angle(a, 1.1) * p;
        let mirrored = glam::Quat::from_axis_angle(mirror_axis(a), 1.1) * m(p);
        assert!(m(turned).distance(mirrored) < 1e-6);
    }
}
