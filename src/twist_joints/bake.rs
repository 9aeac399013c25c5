//! Baked rotation channels of the roll joints, one set per clip, so a plain glTF player
//! (no constraints) plays the clip as dqview poses it.

use glam::Quat;

use super::layout::Plan;
use crate::anim::{JointOverrides, Pose, to_trs};
use crate::scene::{Channel, Interpolation, Property, Scene};

/// Largest angle (radians) between a baked channel's slerp and the constrained rotation at
/// the middle of a key interval before the interval is split.
const TOLERANCE_RAD: f32 = 1e-3;
/// Most halvings of one key interval.
const MAX_DEPTH: u32 = 8;

/// Adds a rotation channel per constrained node to every clip of `clips` that moves a
/// junction's joint or its child; returns (clip, key times) per clip baked.
pub(super) fn bake_clips(
    scene: &mut Scene,
    plan: &Plan,
    clips: &[usize],
    first_new_node: usize,
) -> Vec<(usize, usize)> {
    // Constrained nodes get channels; their results move when K turns or K's child moves.
    let nodes: Vec<usize> = plan
        .roll_joints
        .iter()
        .filter(|rj| rj.constraint.is_some())
        .map(|rj| rj.node)
        .collect();
    let sources: Vec<usize> = plan
        .roll_joints
        .iter()
        .flat_map(|rj| [Some(rj.joint), rj.constraint.map(|c| c.0)])
        .flatten()
        .collect();
    let mut baked = Vec::new();
    let mut pose = Pose::rest(scene);
    for &clip in clips {
        let Some(animation) = scene.animations.get(clip) else {
            continue;
        };
        let mut times: Vec<f32> = animation
            .channels
            .iter()
            .filter(|c| {
                !matches!(c.property, Property::MorphWeights(_)) && sources.contains(&c.node)
            })
            .flat_map(|c| c.times_s.iter().copied())
            .filter(|t| t.is_finite())
            .collect();
        if times.is_empty() {
            continue;
        }
        times.sort_by(f32::total_cmp);
        times.dedup();
        let mut sampler = Sampler {
            scene,
            pose: &mut pose,
            clip,
            nodes: &nodes,
        };
        let (times, rotations) = sampler.refined(&times);
        let channels = channels(&nodes, &times, &rotations);
        baked.push((clip, times.len()));
        debug_assert!(nodes.iter().all(|&n| n >= first_new_node));
        scene.animations[clip].channels.extend(channels);
    }
    baked
}

/// Samples the roll joints' constrained rotations of one clip.
struct Sampler<'a> {
    scene: &'a Scene,
    pose: &'a mut Pose,
    clip: usize,
    nodes: &'a [usize],
}

impl Sampler<'_> {
    /// The roll joints' local rotations at `time_s`.
    fn at(&mut self, time_s: f32) -> Vec<Quat> {
        self.pose
            .sample(self.scene, Some(self.clip), time_s, &JointOverrides::new());
        self.nodes
            .iter()
            .map(|&n| to_trs(self.pose.local[n]).rotation)
            .collect()
    }

    /// `times` with intervals halved until slerping the keys stays within the tolerance, and
    /// the rotations at each.
    fn refined(&mut self, times: &[f32]) -> (Vec<f32>, Vec<Vec<Quat>>) {
        let mut out_t = vec![times[0]];
        let mut out_q = vec![self.at(times[0])];
        for pair in times.windows(2) {
            let end = self.at(pair[1]);
            self.split(pair[0], pair[1], &end, 0, &mut out_t, &mut out_q);
            out_t.push(pair[1]);
            out_q.push(end);
        }
        (out_t, out_q)
    }

    /// Adds the keys inside (t0, t1) that the tolerance needs, in time order.
    fn split(
        &mut self,
        t0: f32,
        t1: f32,
        end: &[Quat],
        depth: u32,
        out_t: &mut Vec<f32>,
        out_q: &mut Vec<Vec<Quat>>,
    ) {
        let mid_t = 0.5 * (t0 + t1);
        if depth >= MAX_DEPTH || !(mid_t > t0 && mid_t < t1) {
            return;
        }
        let start = out_q.last().cloned().unwrap_or_default();
        let mid = self.at(mid_t);
        let off = start
            .iter()
            .zip(end)
            .zip(&mid)
            .map(|((a, b), m)| a.slerp(*b, 0.5).angle_between(*m))
            .fold(0.0, f32::max);
        if off <= TOLERANCE_RAD {
            return;
        }
        self.split(t0, mid_t, &mid, depth + 1, out_t, out_q);
        out_t.push(mid_t);
        out_q.push(mid.clone());
        self.split(mid_t, t1, end, depth + 1, out_t, out_q);
    }
}

/// One LINEAR rotation channel per node, keys kept in one hemisphere so any interpolation
/// (slerp or Blender's per-component) takes the short way.
fn channels(nodes: &[usize], times: &[f32], rotations: &[Vec<Quat>]) -> Vec<Channel> {
    nodes
        .iter()
        .enumerate()
        .map(|(k, &node)| {
            let mut values = Vec::with_capacity(times.len() * 4);
            let mut previous: Option<Quat> = None;
            for keys in rotations {
                let mut q = keys[k];
                if previous.is_some_and(|p| p.dot(q) < 0.0) {
                    q = -q;
                }
                previous = Some(q);
                values.extend_from_slice(&q.to_array());
            }
            Channel {
                node,
                property: Property::Rotation,
                interpolation: Interpolation::Linear,
                times_s: times.to_vec(),
                values,
            }
        })
        .collect()
}
