//! DQS bulge on bends: the hinge geometry of a vertex, the bulge measure and its compensation.
//!
//! DQS turns the vertices of a blend zone rigidly about the joint, so on the
//! outside of a bend they keep their distance from the joint point but end up
//! farther from the bent limb's axis than they were: the "bulge". Here a
//! vertex's hinge is the joint shared by its two heaviest influences (one the
//! parent of the other); the limb axis near it is the polyline of two rays
//! from the hinge point, up the child bone and down the parent bone. The
//! compensation, like the published DQS bulge fixes (Kavan et al.'s "bulging"
//! discussion; the radial correction of the DQ-skinning-for-Unity project),
//! pushes a vertex that sits farther from the posed axis than its rest
//! distance back towards it, by `amount` of the excess, on the bend's outside
//! only (vertices closer than their rest distance are left alone).

use std::collections::HashMap;

use glam::{Mat4, Vec3};

use crate::influences::Influence;
use crate::scene::Scene;

/// Bind-space skeleton of one skin: joint positions, parents and bone directions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkinSkeleton {
    /// Bind-space position of each joint (from its inverse bind matrix).
    pub bind_positions: Vec<Vec3>,
    /// Parent of each joint within the skin, if the parent is a joint of the skin.
    pub parents: Vec<Option<usize>>,
    /// Unit bind-space direction of each joint's bone: towards its first child joint, else its parent's.
    pub directions: Vec<Option<Vec3>>,
}

/// The limb axis near one vertex's hinge, in some space: hinge point and the two bone directions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HingeAxis {
    /// The hinge (child joint) position.
    pub point: Vec3,
    /// Unit direction of the child bone, away from the hinge.
    pub child: Vec3,
    /// Unit direction of the parent bone, towards the hinge.
    pub parent: Vec3,
}

impl HingeAxis {
    /// The point of the two rays (child ray from the hinge, parent ray back from it) closest to `p`.
    #[must_use]
    pub fn closest_point(&self, p: Vec3) -> Vec3 {
        let d = p - self.point;
        let along_child = d.dot(self.child);
        let along_parent = -d.dot(self.parent);
        if along_child <= 0.0 && along_parent <= 0.0 {
            return self.point;
        }
        let on_child = self.point + self.child * along_child.max(0.0);
        let on_parent = self.point - self.parent * along_parent.max(0.0);
        if (p - on_child).length_squared() <= (p - on_parent).length_squared() {
            on_child
        } else {
            on_parent
        }
    }

    /// Distance of `p` from the axis.
    #[must_use]
    pub fn distance(&self, p: Vec3) -> f32 {
        (p - self.closest_point(p)).length()
    }

    /// The axis moved by the parent's and child's skinning matrices.
    #[must_use]
    pub fn posed(&self, parent: Mat4, child: Mat4) -> Self {
        let dir = |m: Mat4, d: Vec3| m.transform_vector3(d).try_normalize().unwrap_or(d);
        Self {
            point: child.transform_point3(self.point),
            child: dir(child, self.child),
            parent: dir(parent, self.parent),
        }
    }
}

impl SkinSkeleton {
    /// The skeleton of skin `skin` of `scene` (empty when there is no such skin).
    #[must_use]
    pub fn of(scene: &Scene, skin: usize) -> Self {
        let Some(skin) = scene.skins.get(skin) else {
            return Self::default();
        };
        super::count_visits(skin.joints.len());
        let bind_positions: Vec<Vec3> = (0..skin.joints.len())
            .map(|j| {
                let ibm = skin.inverse_bind.get(j).copied().unwrap_or(Mat4::IDENTITY);
                let p = ibm.inverse().w_axis.truncate();
                if p.is_finite() { p } else { Vec3::ZERO }
            })
            .collect();
        let parents = joint_parents(scene, &skin.joints);
        let first_child = first_children(&parents);
        let towards =
            |from: usize, to: usize| (bind_positions[to] - bind_positions[from]).try_normalize();
        let directions = (0..bind_positions.len())
            .map(|j| {
                let to_child = first_child[j].and_then(|c| towards(j, c));
                to_child.or_else(|| parents[j].and_then(|p| towards(p, j)))
            })
            .collect();
        Self {
            bind_positions,
            parents,
            directions,
        }
    }

    /// The hinge of a vertex: (parent joint, child joint, bind-space axis), when its two
    /// heaviest influences are a parent and its child with usable bone directions.
    #[must_use]
    pub fn hinge(&self, influences: &[Influence]) -> Option<(usize, usize, HingeAxis)> {
        let (a, b) = match influences {
            [a, b, ..] => (a.joint as usize, b.joint as usize),
            _ => return None,
        };
        let (parent, child) = if self.parents.get(b).copied().flatten() == Some(a) {
            (a, b)
        } else if self.parents.get(a).copied().flatten() == Some(b) {
            (b, a)
        } else {
            return None;
        };
        let point = *self.bind_positions.get(child)?;
        let parent_dir = (point - *self.bind_positions.get(parent)?).try_normalize()?;
        let child_dir = self
            .directions
            .get(child)
            .copied()
            .flatten()
            .unwrap_or(parent_dir);
        Some((
            parent,
            child,
            HingeAxis {
                point,
                child: child_dir,
                parent: parent_dir,
            },
        ))
    }
}

/// Each joint's parent as a joint index (the first entry of `joints` naming the parent node).
///
/// One map from node to joint, not a search of the joint list per joint: a skin of 100,000
/// joints made this 10^10 steps per call, and `analyze` calls it per mode and sample.
fn joint_parents(scene: &Scene, joints: &[usize]) -> Vec<Option<usize>> {
    super::count_visits(2 * joints.len());
    let mut index_of: HashMap<usize, usize> = HashMap::with_capacity(joints.len());
    for (j, &node) in joints.iter().enumerate() {
        index_of.entry(node).or_insert(j);
    }
    joints
        .iter()
        .map(|&node| {
            let parent = scene.nodes.get(node).and_then(|n| n.parent)?;
            index_of.get(&parent).copied()
        })
        .collect()
}

/// Each joint's first child joint (the lowest joint index whose parent it is), in one pass.
fn first_children(parents: &[Option<usize>]) -> Vec<Option<usize>> {
    super::count_visits(parents.len());
    let mut first = vec![None; parents.len()];
    for (c, parent) in parents.iter().enumerate() {
        if let Some(slot) = parent.and_then(|p| first.get_mut(p))
            && slot.is_none()
        {
            *slot = Some(c);
        }
    }
    first
}

/// Moves a skinned position back towards its rest distance from the posed limb axis.
///
/// `bind` is the vertex's bind position, `skinned` its skinned one, `matrices`
/// the skinning matrices of the skin; `amount` in [0, 1] is the fraction of the
/// excess distance removed (0 leaves the vertex, 1 restores the rest distance).
/// Vertices without a hinge, or not farther out than at rest, are unchanged.
#[must_use]
pub fn compensate_bulge(
    skeleton: &SkinSkeleton,
    matrices: &[Mat4],
    influences: &[Influence],
    bind: Vec3,
    skinned: Vec3,
    amount: f32,
) -> Vec3 {
    let amount = if amount.is_finite() {
        amount.clamp(0.0, 1.0)
    } else {
        0.0
    };
    if amount == 0.0 {
        return skinned;
    }
    let Some((parent, child, axis)) = skeleton.hinge(influences) else {
        return skinned;
    };
    let (Some(&mp), Some(&mc)) = (matrices.get(parent), matrices.get(child)) else {
        return skinned;
    };
    let rest = axis.distance(bind);
    let posed = axis.posed(mp, mc);
    let foot = posed.closest_point(skinned);
    let offset = skinned - foot;
    let d = offset.length();
    if !(d > rest && d.is_finite()) {
        return skinned;
    }
    let out = foot + offset * ((d - amount * (d - rest)) / d);
    if out.is_finite() { out } else { skinned }
}

/// DQS with bulge compensation `amount` (see [`compensate_bulge`]) for every skinned primitive;
/// the rest distances are those of the morphed bind pose, which is what DQS skinned.
#[must_use]
pub fn skin_scene_dqs_compensated(
    scene: &Scene,
    pose: &crate::anim::Pose,
    amount: f32,
) -> Vec<super::PosedPrimitive> {
    let mut skeletons: Vec<Option<SkinSkeleton>> = vec![None; scene.skins.len()];
    super::posed::skin_scene_with(scene, pose, |job, out| {
        let dqs = super::SkinningMode::Dqs;
        super::skin_vertices(job.palette, job.bind, dqs, super::Betas::Uniform(1.0), out);
        let Some(slot) = skeletons.get_mut(job.skin) else {
            return;
        };
        let skeleton = slot.get_or_insert_with(|| SkinSkeleton::of(scene, job.skin));
        let matrices = &job.palette.matrices;
        for (v, p) in out.positions.iter_mut().enumerate() {
            if let Some(&bind) = job.bind.positions.get(v) {
                let influences = job.bind.influences.of(v);
                *p = compensate_bulge(skeleton, matrices, influences, bind, *p, amount);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    fn axis() -> HingeAxis {
        HingeAxis {
            point: Vec3::Y,
            child: Vec3::Y,
            parent: Vec3::Y,
        }
    }

    /// The skeleton as it was built before the node-to-joint map: a search per joint.
    fn searched_skeleton(scene: &Scene, skin: usize) -> SkinSkeleton {
        let built = SkinSkeleton::of(scene, skin);
        let joints = &scene.skins[skin].joints;
        let parents: Vec<Option<usize>> = joints
            .iter()
            .map(|&node| {
                let parent = scene.nodes[node].parent?;
                joints.iter().position(|&j| j == parent)
            })
            .collect();
        let p = &built.bind_positions;
        let towards = |from: usize, to: usize| (p[to] - p[from]).try_normalize();
        let directions = (0..joints.len())
            .map(|j| {
                let child = parents.iter().position(|&q| q == Some(j));
                let to_child = child.and_then(|c| towards(j, c));
                to_child.or_else(|| parents[j].and_then(|q| towards(q, j)))
            })
            .collect();
        SkinSkeleton {
            bind_positions: built.bind_positions.clone(),
            parents,
            directions,
        }
    }

    #[test]
    fn skeleton_matches_a_search_per_joint_in_any_joint_order_and_with_repeats() {
        for name in ["twist", "elbow", "arm"] {
            let mut scene = crate::builtin::builtin_scene(name).expect("builtin");
            assert_eq!(SkinSkeleton::of(&scene, 0), searched_skeleton(&scene, 0));
            // Children listed before their parents, and a joint named twice: the first wins.
            let skin = &mut scene.skins[0];
            skin.joints.reverse();
            skin.inverse_bind.reverse();
            let (first, ibm) = (skin.joints[0], skin.inverse_bind[0]);
            skin.joints.push(first);
            skin.inverse_bind.push(ibm);
            assert_eq!(
                SkinSkeleton::of(&scene, 0),
                searched_skeleton(&scene, 0),
                "{name}"
            );
        }
    }

    #[test]
    fn distance_to_the_bent_axis() {
        let a = axis();
        assert!((a.distance(Vec3::new(0.2, 1.5, 0.0)) - 0.2).abs() < 1e-6);
        assert!((a.distance(Vec3::new(0.2, 0.5, 0.0)) - 0.2).abs() < 1e-6);
        // Bent 90 degrees about +Z at the hinge: a point in the outer corner is as far as the hinge.
        let bent = a.posed(
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::Y)
                * Mat4::from_quat(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2))
                * Mat4::from_translation(-Vec3::Y),
        );
        let corner = Vec3::new(0.3, 1.2, 0.0);
        assert!((bent.distance(corner) - (0.3f32.hypot(0.2))).abs() < 1e-5);
    }

    #[test]
    fn compensation_restores_the_rest_distance_on_the_outside_only() {
        let skeleton = SkinSkeleton {
            bind_positions: vec![Vec3::ZERO, Vec3::Y],
            parents: vec![None, Some(0)],
            directions: vec![Some(Vec3::Y), Some(Vec3::Y)],
        };
        let inf = [
            Influence {
                joint: 0,
                weight: 0.5,
            },
            Influence {
                joint: 1,
                weight: 0.5,
            },
        ];
        let m = [Mat4::IDENTITY, Mat4::IDENTITY];
        let bind = Vec3::new(0.2, 1.0, 0.0);
        // Pushed out to 0.3 from the axis: half the excess goes with amount 0.5, all with 1.
        let out = Vec3::new(0.3, 1.0, 0.0);
        let half = compensate_bulge(&skeleton, &m, &inf, bind, out, 0.5);
        assert!(half.abs_diff_eq(Vec3::new(0.25, 1.0, 0.0), 1e-6), "{half}");
        let full = compensate_bulge(&skeleton, &m, &inf, bind, out, 1.0);
        assert!(full.abs_diff_eq(bind, 1e-6), "{full}");
        // Inside its rest distance: untouched.
        let inside = Vec3::new(0.1, 1.0, 0.0);
        assert_eq!(
            compensate_bulge(&skeleton, &m, &inf, bind, inside, 1.0),
            inside
        );
        // Unrelated joints: no hinge.
        let single = [inf[0]];
        assert_eq!(
            compensate_bulge(&skeleton, &m, &single, bind, out, 1.0),
            out
        );
    }
}
