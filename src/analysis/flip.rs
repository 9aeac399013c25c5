//! The DQS flip: where a joint's twist (or a clip) makes dual quaternion blending jump arcs.
//!
//! DQS blends the rotation quaternions of a vertex's joints after flipping each
//! one into the pivot's hemisphere (see [`crate::dq::blend`]). Follow a joint's
//! quaternion continuously while it twists: once its relative rotation to a
//! joint it shares vertices with passes 180 degrees, the continuous quaternion
//! leaves the pivot's hemisphere, the sign rule negates it, and the blend jumps
//! to the other (shorter) arc: the skin flips. On `builtin:twist` that is at
//! a `tip` twist of plus or minus 180 degrees.

use glam::{Mat4, Quat};

use crate::anim::{JointAngles, JointOverrides, Pose};
use crate::scene::Scene;
use crate::skin::JointPalette;

/// Step of the coarse twist sweep, degrees; a crossing is then refined by bisection.
const SWEEP_STEP_DEG: f32 = 4.0;
/// Bisection steps after the coarse sweep: 4 degrees / 2^12 is about 0.001 degrees.
const BISECTION_STEPS: usize = 12;
/// The sweep's extent each way, degrees (the twist slider's range).
pub const SWEEP_LIMIT_DEG: f32 = 360.0;
/// A continuous pair dot product this far below zero counts as flipped (exactly 180 degrees is not).
const FLIP_TOLERANCE: f32 = 1e-4;

/// Two joints that DQS blends together in at least one vertex.
#[derive(Clone, Debug, PartialEq)]
pub struct BlendPair {
    /// The vertices' pivot (heaviest influence), index into the skin's joints.
    pub pivot: usize,
    /// Another influence of those vertices, index into the skin's joints.
    pub other: usize,
    /// Vertices with this pivot and this other joint.
    pub vertices: usize,
    /// Largest weight of `other` in those vertices.
    pub max_weight: f32,
}

/// Every (pivot, other joint) pair of one skin's vertices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlendPairs {
    /// The skin.
    pub skin: usize,
    /// The pairs, sorted by (pivot, other).
    pub pairs: Vec<BlendPair>,
}

impl BlendPairs {
    /// Scans the influences of every primitive skinned by skin `skin`.
    #[must_use]
    pub fn of_skin(scene: &Scene, skin: usize) -> Self {
        let mut pairs: Vec<BlendPair> = Vec::new();
        for node in scene.nodes.iter().filter(|n| n.skin == Some(skin)) {
            let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
                continue;
            };
            for influences in mesh.primitives.iter().filter_map(|p| p.influences.as_ref()) {
                for row in influences.iter() {
                    let Some(pivot) = row.first() else { continue };
                    for other in row.iter().skip(1).filter(|i| i.weight > 0.0) {
                        let key = (usize::from(pivot.joint), usize::from(other.joint));
                        if key.0 == key.1 {
                            continue;
                        }
                        match pairs.binary_search_by(|p| (p.pivot, p.other).cmp(&key)) {
                            Ok(i) => {
                                if let Some(p) = pairs.get_mut(i) {
                                    p.vertices += 1;
                                    p.max_weight = p.max_weight.max(other.weight);
                                }
                            }
                            Err(i) => pairs.insert(
                                i,
                                BlendPair {
                                    pivot: key.0,
                                    other: key.1,
                                    vertices: 1,
                                    max_weight: other.weight,
                                },
                            ),
                        }
                    }
                }
            }
        }
        Self { skin, pairs }
    }
}

/// Where twisting one joint flips DQS, for one pair of blended joints.
#[derive(Clone, Debug, PartialEq)]
pub struct PairFlip {
    /// Pivot joint, node index.
    pub pivot_node: usize,
    /// The other joint, node index.
    pub other_node: usize,
    /// Vertices blending the two.
    pub vertices: usize,
    /// First flip at a positive twist, degrees (within the sweep).
    pub above_deg: Option<f32>,
    /// First flip at a negative twist, degrees (within the sweep).
    pub below_deg: Option<f32>,
}

/// Where twisting a joint flips DQS: the twist range around 0 in which the skin is continuous.
#[derive(Clone, Debug, PartialEq)]
pub struct TwistFlips {
    /// The twisted joint, node index.
    pub joint: usize,
    /// The nearest flip above 0 over all pairs, degrees.
    pub above_deg: Option<f32>,
    /// The nearest flip below 0 over all pairs, degrees.
    pub below_deg: Option<f32>,
    /// The pairs that flip within the sweep.
    pub pairs: Vec<PairFlip>,
}

impl TwistFlips {
    /// Whether a twist of `twist_deg` lies past a flip (outside `below_deg..above_deg`).
    #[must_use]
    pub fn is_flipped_at(&self, twist_deg: f32) -> bool {
        self.above_deg.is_some_and(|a| twist_deg > a)
            || self.below_deg.is_some_and(|b| twist_deg < b)
    }

    /// The flip `twist_deg` has passed, if any (the bound it lies beyond).
    #[must_use]
    pub fn passed_flip_deg(&self, twist_deg: f32) -> Option<f32> {
        match (self.above_deg, self.below_deg) {
            (Some(a), _) if twist_deg > a => Some(a),
            (_, Some(b)) if twist_deg < b => Some(b),
            _ => None,
        }
    }
}

/// Finds where a twist of joint `joint` (a node) flips DQS, sweeping the twist over
/// -360..360 degrees on top of clip `clip` at `time_s` and `overrides` (whose twist
/// of `joint` is replaced by the sweep; its bend and roll stay).
///
/// Twist 0 is taken as unflipped: each pair's DQS sign choice there is the reference.
#[must_use]
pub fn twist_flips(
    scene: &Scene,
    pairs: &BlendPairs,
    joint: usize,
    clip: Option<usize>,
    time_s: f32,
    overrides: &JointOverrides,
) -> TwistFlips {
    let mut others = overrides.clone();
    let angles = others.get(joint);
    others.set(joint, JointAngles::default());
    let mut pose = Pose::rest(scene);
    pose.sample(scene, clip, time_s, &others);
    let base_local = pose.local.get(joint).copied().unwrap_or_default();
    let mut sweep = Sweep {
        scene,
        skin: pairs.skin,
        pose,
        base_local,
        joint,
        angles,
        matrices: Vec::new(),
        palette: JointPalette::default(),
    };
    let start = sweep.rotations(0.0);
    let reference: Vec<f32> = pairs
        .pairs
        .iter()
        .map(|p| pair_dot(&start, p).signum())
        .collect();
    let above = sweep.first_flips(pairs, &start, &reference, SWEEP_STEP_DEG);
    let below = sweep.first_flips(pairs, &start, &reference, -SWEEP_STEP_DEG);
    let skin_joints = scene
        .skins
        .get(pairs.skin)
        .map(|s| s.joints.as_slice())
        .unwrap_or(&[]);
    let node_of = |j: usize| skin_joints.get(j).copied().unwrap_or(j);
    let flips: Vec<PairFlip> = pairs
        .pairs
        .iter()
        .zip(above.iter().zip(&below))
        .filter(|(_, (a, b))| a.is_some() || b.is_some())
        .map(|(p, (a, b))| PairFlip {
            pivot_node: node_of(p.pivot),
            other_node: node_of(p.other),
            vertices: p.vertices,
            above_deg: *a,
            below_deg: *b,
        })
        .collect();
    TwistFlips {
        joint,
        above_deg: flips.iter().filter_map(|f| f.above_deg).reduce(f32::min),
        below_deg: flips.iter().filter_map(|f| f.below_deg).reduce(f32::max),
        pairs: flips,
    }
}

/// A twist sweep of one joint over a fixed base pose.
struct Sweep<'s> {
    scene: &'s Scene,
    skin: usize,
    pose: Pose,
    /// The swept joint's local transform in the base pose, without its override (the
    /// override changes no other node).
    base_local: crate::scene::NodeTransform,
    joint: usize,
    /// The swept joint's override (bend and roll kept, twist replaced).
    angles: JointAngles,
    matrices: Vec<Mat4>,
    palette: JointPalette,
}

impl Sweep<'_> {
    /// The DQS rotation of every joint of the skin at twist `twist_deg`.
    fn rotations(&mut self, twist_deg: f32) -> Vec<Quat> {
        if let Some(local) = self.pose.local.get_mut(self.joint) {
            *local = self.base_local;
        }
        let mut one = JointOverrides::new();
        one.set(
            self.joint,
            JointAngles {
                twist_deg,
                ..self.angles
            },
        );
        one.apply(self.scene, &mut self.pose.local);
        self.pose.settle(self.scene);
        self.pose
            .skinning_matrices(self.scene, self.skin, &mut self.matrices);
        self.palette.rebuild(&self.matrices);
        self.palette.dual_quats.iter().map(|dq| dq.real).collect()
    }

    /// Per pair, the first twist from 0 in steps of `step_deg` where the continuous dot
    /// product leaves the reference sign, refined by bisection.
    fn first_flips(
        &mut self,
        pairs: &BlendPairs,
        start: &[Quat],
        reference: &[f32],
        step_deg: f32,
    ) -> Vec<Option<f32>> {
        let mut found: Vec<Option<f32>> = vec![None; pairs.pairs.len()];
        let mut prev = start.to_vec();
        let steps = (SWEEP_LIMIT_DEG / step_deg.abs()).round() as usize;
        for k in 1..=steps {
            let t0 = step_deg * (k - 1) as f32;
            let t1 = step_deg * k as f32;
            let now = aligned(self.rotations(t1), &prev);
            for (i, p) in pairs.pairs.iter().enumerate() {
                let flipped = |r: &[Quat]| pair_dot(r, p) * reference[i] < -FLIP_TOLERANCE;
                if found[i].is_none() && flipped(&now) {
                    found[i] = Some(self.bisect(p, reference[i], (t0, &prev), t1));
                }
            }
            prev = now;
            if found.iter().all(Option::is_some) {
                break;
            }
        }
        found
    }

    /// The twist in `lo.0..hi` where pair `p`'s continuous dot product changes sign.
    fn bisect(&mut self, p: &BlendPair, reference: f32, lo: (f32, &[Quat]), hi: f32) -> f32 {
        let (mut a, mut b) = (lo.0, hi);
        let anchor = lo.1.to_vec();
        for _ in 0..BISECTION_STEPS {
            let mid = 0.5 * (a + b);
            // The interval is one sweep step: aligning to its start keeps the branch.
            let r = aligned(self.rotations(mid), &anchor);
            if pair_dot(&r, p) * reference < -FLIP_TOLERANCE {
                b = mid;
            } else {
                a = mid;
            }
        }
        0.5 * (a + b)
    }
}

/// `now` with each quaternion negated where that keeps it in the hemisphere of `prev`.
fn aligned(mut now: Vec<Quat>, prev: &[Quat]) -> Vec<Quat> {
    for (q, p) in now.iter_mut().zip(prev) {
        if q.dot(*p) < 0.0 {
            *q = -*q;
        }
    }
    now
}

/// The dot product of a pair's two rotations.
fn pair_dot(rotations: &[Quat], p: &BlendPair) -> f32 {
    match (rotations.get(p.pivot), rotations.get(p.other)) {
        (Some(a), Some(b)) => a.dot(*b),
        _ => 1.0,
    }
}

/// Per sample time of clip `clip`: whether some blended pair of skin `pairs.skin`
/// has passed a flip since the first sample (quaternions followed continuously).
///
/// Samples must be dense enough that no joint turns 180 degrees between two.
#[must_use]
pub fn clip_flips(
    scene: &Scene,
    pairs: &BlendPairs,
    clip: usize,
    overrides: &JointOverrides,
    times_s: &[f32],
) -> Vec<bool> {
    clip_flipped_pairs(scene, pairs, clip, overrides, times_s)
        .into_iter()
        .map(|p| p.is_some())
        .collect()
}

/// Per sample time of clip `clip`: the first pair of `pairs.pairs` (an index into it) that has
/// passed a flip since the first sample, as [`clip_flips`] finds them; `None` where none has.
#[must_use]
pub fn clip_flipped_pairs(
    scene: &Scene,
    pairs: &BlendPairs,
    clip: usize,
    overrides: &JointOverrides,
    times_s: &[f32],
) -> Vec<Option<usize>> {
    let mut pose = Pose::rest(scene);
    let mut matrices = Vec::new();
    let mut palette = JointPalette::default();
    let mut rotations_at = |t: f32| {
        pose.sample(scene, Some(clip), t, overrides);
        pose.skinning_matrices(scene, pairs.skin, &mut matrices);
        palette.rebuild(&matrices);
        palette
            .dual_quats
            .iter()
            .map(|dq| dq.real)
            .collect::<Vec<Quat>>()
    };
    let Some(&first) = times_s.first() else {
        return Vec::new();
    };
    let mut prev = rotations_at(first);
    let reference: Vec<f32> = pairs
        .pairs
        .iter()
        .map(|p| pair_dot(&prev, p).signum())
        .collect();
    let mut out = Vec::with_capacity(times_s.len());
    out.push(None);
    for &t in times_s.iter().skip(1) {
        let now = aligned(rotations_at(t), &prev);
        out.push(
            pairs
                .pairs
                .iter()
                .zip(&reference)
                .position(|(p, s)| pair_dot(&now, p) * s < -FLIP_TOLERANCE),
        );
        prev = now;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_keeps_the_hemisphere() {
        let prev = [Quat::from_rotation_y(3.0)];
        let now = aligned(vec![-Quat::from_rotation_y(3.1)], &prev);
        assert!(now[0].dot(prev[0]) > 0.99);
    }

    #[test]
    fn flipped_range_is_outside_the_bounds() {
        let f = TwistFlips {
            joint: 0,
            above_deg: Some(180.0),
            below_deg: Some(-150.0),
            pairs: Vec::new(),
        };
        assert!(!f.is_flipped_at(170.0) && !f.is_flipped_at(-140.0));
        assert!(f.is_flipped_at(190.0) && f.is_flipped_at(-160.0));
        assert_eq!(f.passed_flip_deg(200.0), Some(180.0));
        assert_eq!(f.passed_flip_deg(-200.0), Some(-150.0));
        assert_eq!(f.passed_flip_deg(0.0), None);
    }
}
