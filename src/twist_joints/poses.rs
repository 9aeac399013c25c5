//! The poses helper weights are fitted over, and the held-out poses they are judged at.
//!
//! Per junction joint K: a twist sweep (-165 to 165 in 30 degree steps; judged at 170, which
//! the fit never sees), a bend sweep in K's main bending plane (10 to the range in 20 degree
//! steps; judged at 120) and the clips' keys that move K, its parent or its child, alternately
//! fitted and held out.

use glam::Quat;

use super::measure::MeasurePose;
use super::mirror::{Mirror, MirrorMap, bind_matrix, mirror_axis};
use crate::anim::{BoneFrame, JointAngles, JointOverrides, first_child_joint, to_trs};
use crate::scene::{Property, Scene};

/// The twist the held-out twist pose turns by, in degrees: the picker's sweep angle.
pub const CHECK_TWIST_DEG: f32 = super::SWEEP_TWIST_DEG;
/// The bend the held-out bend pose turns by, in degrees.
pub const CHECK_BEND_DEG: f32 = 120.0;
/// The bend sweep's least range where no clip bends further, in degrees.
pub const DEFAULT_BEND_RANGE_DEG: f32 = 130.0;
/// Most fitted (and most held-out) moments of one clip.
const MAX_CLIP_MOMENTS: usize = 16;

/// The plane a joint bends in most: one of its bone frame's two bend axes, with a sign.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MainBend {
    /// Bend about the frame's roll axis instead of its bend axis.
    pub about_roll_axis: bool,
    /// +1 or -1: the side the clips bend to.
    pub sign: f32,
    /// The sweep's range: the clips' largest swing, at least [`DEFAULT_BEND_RANGE_DEG`].
    pub range_deg: f32,
    /// Whether a clip swings the joint (else the frame's bend axis, positive, is assumed).
    pub from_clips: bool,
}

impl MainBend {
    /// Joint angles for a bend of `deg` in this plane.
    #[must_use]
    pub fn angles(&self, deg: f32) -> JointAngles {
        let deg = deg * self.sign;
        if self.about_roll_axis {
            JointAngles {
                roll_deg: deg,
                ..JointAngles::default()
            }
        } else {
            JointAngles {
                bend_deg: deg,
                ..JointAngles::default()
            }
        }
    }
}

/// The plane joint `joint` bends in most: where the clips swing it furthest, else its mirror
/// joint's plane mirrored (so left and right bend alike), else its frame's bend axis.
#[must_use]
pub fn main_bend(scene: &Scene, joint: usize) -> MainBend {
    if let Some(bend) = clip_bend(scene, joint) {
        return bend;
    }
    if let Mirror::Partner(partner) = MirrorMap::of(scene).of_joint(joint) {
        // The lower node of a pair without clips keeps the default; the other mirrors it.
        let theirs = clip_bend(scene, partner).or((partner < joint).then(default_bend));
        if let Some(bend) = theirs.and_then(|b| mirrored_bend(scene, partner, b, joint)) {
            return bend;
        }
    }
    default_bend()
}

/// The bend about the frame's bend axis, positive, over the default range.
fn default_bend() -> MainBend {
    MainBend {
        about_roll_axis: false,
        sign: 1.0,
        range_deg: DEFAULT_BEND_RANGE_DEG,
        from_clips: false,
    }
}

/// `bend` of joint `from` mirrored onto joint `to`: the frame axis of `to` nearest the
/// mirror image of `from`'s bend axis (in bind space, where the rig is symmetric).
fn mirrored_bend(scene: &Scene, from: usize, bend: MainBend, to: usize) -> Option<MainBend> {
    let axis_of = |b: &MainBend, frame: &BoneFrame| {
        b.sign
            * if b.about_roll_axis {
                frame.roll_axis
            } else {
                frame.bend_axis
            }
    };
    let world =
        bind_matrix(scene, from).transform_vector3(axis_of(&bend, &BoneFrame::of(scene, from)));
    let local = bind_matrix(scene, to)
        .inverse()
        .transform_vector3(mirror_axis(world))
        .try_normalize()?;
    let frame = BoneFrame::of(scene, to);
    let (b, r) = (local.dot(frame.bend_axis), local.dot(frame.roll_axis));
    let about_roll_axis = r.abs() > b.abs();
    let along = if about_roll_axis { r } else { b };
    Some(MainBend {
        about_roll_axis,
        sign: if along < 0.0 { -1.0 } else { 1.0 },
        ..bend
    })
}

/// The plane joint `joint` swings in at the clips' key with the largest swing from rest;
/// `None` when no clip swings it.
fn clip_bend(scene: &Scene, joint: usize) -> Option<MainBend> {
    let frame = BoneFrame::of(scene, joint);
    let rest = scene
        .nodes
        .get(joint)
        .map_or(Quat::IDENTITY, |n| to_trs(n.transform).rotation);
    let mut best: Option<(f32, glam::Vec3)> = None;
    for channel in scene.animations.iter().flat_map(|a| &a.channels) {
        if channel.node != joint || channel.property != Property::Rotation {
            continue;
        }
        for key in channel.values.chunks_exact(4) {
            let q = Quat::from_slice(key);
            if !q.is_finite() || q.length_squared() < 1e-12 {
                continue;
            }
            let delta = (rest.inverse() * q.normalize()).normalize();
            let (angle, axis) = swing_of(delta, frame.twist_axis);
            if best.is_none_or(|(a, _)| angle > a) {
                best = Some((angle, axis));
            }
        }
    }
    let (angle, axis) = best.filter(|(angle, _)| *angle > 1e-3)?;
    let (b, r) = (axis.dot(frame.bend_axis), axis.dot(frame.roll_axis));
    let about_roll_axis = r.abs() > b.abs();
    let along = if about_roll_axis { r } else { b };
    Some(MainBend {
        about_roll_axis,
        sign: if along < 0.0 { -1.0 } else { 1.0 },
        range_deg: angle.to_degrees().clamp(DEFAULT_BEND_RANGE_DEG, 170.0),
        from_clips: true,
    })
}

/// The swing part of `delta` (its rotation without the twist about `axis`): angle, unit axis.
fn swing_of(delta: Quat, axis: glam::Vec3) -> (f32, glam::Vec3) {
    let (_, swing) = crate::skin::twist_swing(delta, axis);
    let swing = if swing.w < 0.0 { -swing } else { swing };
    let (axis, angle) = swing.normalize().to_axis_angle();
    (angle, axis)
}

/// The rest pose with `joint` turned by `angles`.
#[must_use]
pub fn turned(joint: usize, angles: JointAngles) -> MeasurePose {
    let mut overrides = JointOverrides::new();
    overrides.set(joint, angles);
    MeasurePose {
        clip: None,
        time_s: 0.0,
        overrides,
    }
}

/// The held-out twist pose of `joint`.
#[must_use]
pub fn check_twist(joint: usize) -> MeasurePose {
    super::twist_pose(joint, CHECK_TWIST_DEG)
}

/// The held-out bend pose of `joint`, in its main bending plane.
#[must_use]
pub fn check_bend(scene: &Scene, joint: usize) -> MeasurePose {
    turned(joint, main_bend(scene, joint).angles(CHECK_BEND_DEG))
}

/// The sweeps of each junction joint in `joints` that the fit sees.
fn sweeps(scene: &Scene, joints: &[usize]) -> Vec<MeasurePose> {
    let mut out = Vec::new();
    for &k in joints {
        for step in 0..12 {
            let twist_deg = -165.0 + 30.0 * step as f32;
            out.push(turned(
                k,
                JointAngles {
                    twist_deg,
                    ..JointAngles::default()
                },
            ));
        }
        let bend = main_bend(scene, k);
        let mut deg = 10.0;
        while deg <= bend.range_deg + 1e-3 {
            out.push(turned(k, bend.angles(deg)));
            deg += 20.0;
        }
    }
    out
}

/// Each clip's key times of the junctions' joints (K, K's parent, K's child), split into
/// alternate fitted and held-out moments: (fit, held out).
fn clip_moments(scene: &Scene, joints: &[usize]) -> (Vec<MeasurePose>, Vec<MeasurePose>) {
    let mut moving: Vec<usize> = Vec::new();
    for &k in joints {
        moving.push(k);
        moving.extend(scene.nodes.get(k).and_then(|n| n.parent));
        moving.extend(first_child_joint(scene, k));
    }
    let (mut fit, mut held_out) = (Vec::new(), Vec::new());
    for (clip, animation) in scene.animations.iter().enumerate() {
        let mut times: Vec<f32> = animation
            .channels
            .iter()
            .filter(|c| {
                moving.contains(&c.node) && !matches!(c.property, Property::MorphWeights(_))
            })
            .flat_map(|c| c.times_s.iter().copied())
            .filter(|t| t.is_finite())
            .collect();
        times.sort_by(f32::total_cmp);
        times.dedup();
        let at = |time_s: f32| MeasurePose {
            clip: Some(clip),
            time_s,
            overrides: JointOverrides::new(),
        };
        let stride = times.len().div_ceil(2 * MAX_CLIP_MOMENTS).max(1);
        for (i, &t) in times.iter().enumerate() {
            let pair = i / stride;
            if !i.is_multiple_of(stride) {
                continue;
            }
            if pair.is_multiple_of(2) {
                &mut fit
            } else {
                &mut held_out
            }
            .push(at(t));
        }
    }
    (fit, held_out)
}

/// The fit's poses and the held-out clip moments for the junction joints `joints`.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseSets {
    /// What the weights are fitted over.
    pub fit: Vec<MeasurePose>,
    /// Clip moments the fit never sees.
    pub held_out_moments: Vec<MeasurePose>,
}

impl PoseSets {
    /// The poses of the junctions of `joints`.
    #[must_use]
    pub fn of(scene: &Scene, joints: &[usize]) -> Self {
        let (clips_fit, held_out_moments) = clip_moments(scene, joints);
        let mut fit = sweeps(scene, joints);
        fit.extend(clips_fit);
        Self {
            fit,
            held_out_moments,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_swing_of_a_pure_twist_is_nothing_and_of_a_bend_is_the_bend() {
        let (a, _) = swing_of(Quat::from_rotation_y(1.0), glam::Vec3::Y);
        assert!(a.abs() < 1e-6);
        let (a, axis) = swing_of(
            Quat::from_rotation_z(0.8) * Quat::from_rotation_y(0.5),
            glam::Vec3::Y,
        );
        assert!((a - 0.8).abs() < 1e-5 && (axis - glam::Vec3::Z).length() < 1e-5);
    }

    #[test]
    fn held_out_poses_are_not_in_the_sweeps() {
        let scene = crate::builtin::builtin_scene("arm").expect("the built-in arm");
        let k = crate::anim::find_node(&scene, "elbow").expect("elbow");
        let sets = PoseSets::of(&scene, &[k]);
        let twist = check_twist(k);
        let bend = check_bend(&scene, k);
        assert!(!sets.fit.contains(&twist) && !sets.fit.contains(&bend));
        assert!(sets.fit.len() >= 12 + 7);
    }
}
