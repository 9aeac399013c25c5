//! Hybrid skinning weights a rigger would use: DQS on twist joints, LBS on hinges.
//!
//! Each joint of a skin carries a "DQS" flag; a vertex's beta (0 LBS, 1 DQS) is
//! the summed weight of its flagged joints, unless the mesh carries its own
//! `_DQS_BLEND` attribute. Which source a hybrid uses is decided in `beta_rule`.

use glam::Quat;

use crate::anim::{BoneFrame, JointOverrides, Pose, clip_duration_s};
use crate::influences::Influences;
use crate::scene::{NodeTransform, Scene};

/// Per-joint DQS flags of one skin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HybridFlags {
    /// One flag per joint of the skin, in skin order.
    pub dqs: Vec<bool>,
}

/// Samples over a clip used to decide whether a joint mostly twists.
const TWIST_SAMPLES: usize = 32;

impl HybridFlags {
    /// Default flags: joints named like twist or roll joints, and joints whose animated
    /// rotation in `clip` is mostly about their own bone axis.
    ///
    /// Joints whose `overrides` twist them more than twice as much as they bend
    /// and roll them count as twisting too.
    #[must_use]
    pub fn defaults(
        scene: &Scene,
        skin: usize,
        clip: Option<usize>,
        overrides: &JointOverrides,
    ) -> Self {
        let Some(skin) = scene.skins.get(skin) else {
            return Self::default();
        };
        let twisting = clip.map(|c| mostly_twisting(scene, c)).unwrap_or_default();
        let dqs = skin
            .joints
            .iter()
            .map(|&node| {
                let name = scene
                    .nodes
                    .get(node)
                    .map(|n| n.name.to_ascii_lowercase())
                    .unwrap_or_default();
                let a = overrides.get(node);
                let twisted = a.twist_deg.abs() > 2.0 * (a.bend_deg.abs() + a.roll_deg.abs());
                name.contains("twist")
                    || name.contains("roll")
                    || twisted
                    || twisting.get(node).copied().unwrap_or(false)
            })
            .collect();
        Self { dqs }
    }

    /// Per-vertex betas: the summed weight of flagged joints, or `dqs_blend` when given.
    #[must_use]
    pub fn betas(&self, influences: &Influences, dqs_blend: Option<&[f32]>) -> Vec<f32> {
        if let Some(blend) = dqs_blend.filter(|b| b.len() == influences.vertex_count()) {
            return blend
                .iter()
                .map(|b| if b.is_nan() { 1.0 } else { b.clamp(0.0, 1.0) })
                .collect();
        }
        influences
            .iter()
            .map(|row| {
                row.iter()
                    .filter(|i| self.dqs.get(i.joint as usize).copied().unwrap_or(false))
                    .map(|i| i.weight)
                    .sum::<f32>()
                    .clamp(0.0, 1.0)
            })
            .collect()
    }
}

/// Per node: whether clip `clip` rotates it mostly about its bone axis (twist more than twice the swing).
fn mostly_twisting(scene: &Scene, clip: usize) -> Vec<bool> {
    let Some(anim) = scene.animations.get(clip) else {
        return Vec::new();
    };
    let duration = clip_duration_s(anim);
    // Only joints can be flagged: the other nodes (a file may have millions) are not measured.
    let joints = scene.joint_nodes();
    let rest: Vec<Quat> = joints
        .iter()
        .map(|&n| rotation_of(scene.nodes[n].transform))
        .collect();
    let frames = BoneFrame::of_joints(scene, &joints);
    let mut twist = vec![0.0f32; scene.nodes.len()];
    let mut swing = vec![0.0f32; scene.nodes.len()];
    let mut pose = Pose::rest(scene);
    let none = JointOverrides::new();
    for k in 0..TWIST_SAMPLES {
        let t = duration * k as f32 / (TWIST_SAMPLES - 1) as f32;
        pose.sample(scene, Some(clip), t, &none);
        for (j, &n) in joints.iter().enumerate() {
            let delta = (rest[j].inverse() * rotation_of(pose.local[n])).normalize();
            let (tw, sw) = twist_swing_angles(delta, frames[j].twist_axis);
            twist[n] = twist[n].max(tw);
            swing[n] = swing[n].max(sw);
        }
    }
    twist
        .iter()
        .zip(&swing)
        .map(|(&tw, &sw)| tw > 5f32.to_radians() && tw > 2.0 * sw)
        .collect()
}

/// Rotation `q` split into its twist about the unit `axis` and the swing left: `q = swing * twist`.
#[must_use]
pub fn twist_swing(q: Quat, axis: glam::Vec3) -> (Quat, Quat) {
    let v = glam::Vec3::new(q.x, q.y, q.z);
    let projected = axis * v.dot(axis);
    let twist = Quat::from_xyzw(projected.x, projected.y, projected.z, q.w);
    let twist = if twist.length() > 1e-9 {
        twist.normalize()
    } else {
        Quat::IDENTITY
    };
    (twist, q * twist.conjugate())
}

/// Angles (radians) of the twist about `axis` and of the remaining swing in rotation `q`.
#[must_use]
pub fn twist_swing_angles(q: Quat, axis: glam::Vec3) -> (f32, f32) {
    let (twist, swing) = twist_swing(q, axis);
    let angle = |r: Quat| 2.0 * r.w.abs().clamp(0.0, 1.0).acos();
    (angle(twist), angle(swing))
}

/// The rotation of a local transform (matrix transforms are decomposed).
fn rotation_of(t: NodeTransform) -> Quat {
    match t {
        NodeTransform::Trs(trs) => trs.rotation,
        NodeTransform::Matrix(m) => {
            let (_, r, _) = m.to_scale_rotation_translation();
            if r.is_finite() {
                r.normalize()
            } else {
                Quat::IDENTITY
            }
        }
    }
}

/// Per-vertex betas of every primitive of a scene, by mesh and primitive index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SceneBetas {
    /// `per_primitive[mesh][primitive]`: one beta per vertex (empty: every vertex 1).
    pub per_primitive: Vec<Vec<Vec<f32>>>,
}

impl SceneBetas {
    /// The mean of every stored beta (0 with none stored).
    #[must_use]
    pub fn mean(&self) -> f32 {
        let all = self.per_primitive.iter().flatten().flatten();
        let (sum, n) = all.fold((0.0f64, 0usize), |(s, n), &b| (s + f64::from(b), n + 1));
        if n == 0 { 0.0 } else { (sum / n as f64) as f32 }
    }

    /// Betas from each skin's flags (`flags[skin]`), for every skinned mesh of `scene`.
    #[must_use]
    pub fn from_flags(scene: &Scene, flags: &[HybridFlags]) -> Self {
        let mut per_primitive: Vec<Vec<Vec<f32>>> = scene
            .meshes
            .iter()
            .map(|m| vec![Vec::new(); m.primitives.len()])
            .collect();
        for node in &scene.nodes {
            let (Some(mesh), Some(skin)) = (node.mesh, node.skin) else {
                continue;
            };
            let (Some(m), Some(f)) = (scene.meshes.get(mesh), flags.get(skin)) else {
                continue;
            };
            for (p, prim) in m.primitives.iter().enumerate() {
                if let Some(influences) = &prim.influences {
                    per_primitive[mesh][p] = f.betas(influences, prim.dqs_blend.as_deref());
                }
            }
        }
        Self { per_primitive }
    }

    /// The betas as stored: the file's map where a primitive has one, default flags
    /// elsewhere (see [`HybridFlags::defaults`]); [`super::hybrid_betas`] with
    /// [`super::BetaSources::stored`].
    #[must_use]
    pub fn defaults(scene: &Scene, clip: Option<usize>, overrides: &JointOverrides) -> Self {
        super::hybrid_betas(scene, &super::BetaSources::stored(clip, overrides)).betas
    }

    /// The betas of one primitive (empty when none were computed).
    #[must_use]
    pub fn of(&self, mesh: usize, primitive: usize) -> &[f32] {
        self.per_primitive
            .get(mesh)
            .and_then(|m| m.get(primitive))
            .map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn twist_swing_split() {
        let twist = Quat::from_rotation_y(1.0);
        let swing = Quat::from_rotation_z(0.3);
        let (tw, sw) = twist_swing_angles(swing * twist, Vec3::Y);
        assert!(
            (tw - 1.0).abs() < 1e-4 && (sw - 0.3).abs() < 1e-4,
            "{tw} {sw}"
        );
        let (tw, sw) = twist_swing_angles(Quat::from_rotation_x(0.5), Vec3::Y);
        assert!(tw < 1e-5 && (sw - 0.5).abs() < 1e-4);
    }

    #[test]
    fn betas_sum_flagged_weights_or_take_the_attribute() {
        let influences =
            Influences::from_rows([vec![(0u16, 0.75f32), (1, 0.25)], vec![(1, 1.0)], vec![]]);
        let flags = HybridFlags {
            dqs: vec![false, true],
        };
        assert_eq!(flags.betas(&influences, None), vec![0.25, 1.0, 0.0]);
        assert_eq!(
            flags.betas(&influences, Some(&[0.5, f32::NAN, 2.0])),
            vec![0.5, 1.0, 1.0]
        );
        // A wrong-length attribute is ignored.
        assert_eq!(flags.betas(&influences, Some(&[0.5])), vec![0.25, 1.0, 0.0]);
    }
}
