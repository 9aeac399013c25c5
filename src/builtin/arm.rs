//! `builtin:arm`: a five-joint arm along +Y with a forearm twist joint.
//!
//! Joints, all on the Y axis with no rest rotation (heights in metres):
//! `shoulder` 0 -> `upper_arm` 0.3 -> `elbow` 1.3 -> `forearm_twist` 1.8 ->
//! `wrist` 2.3. The tube runs from y = 0 to y = 2.5 and tapers from radius
//! 0.2 to 0.13, 48 segments x 101 rings (5,049 vertices).
//!
//! Weights hand over from one joint to the next with smoothsteps (see
//! [`HANDOVERS`]); the forearm twist ramp is broad, as a real twist bone's is,
//! and overlaps the elbow's, so some vertices have three influences.
//!
//! Clip `twist_and_bend`: 2 s, LINEAR, 9 keys every 0.25 s, eased with a
//! smoothstep: `elbow` bends 0 to 120 degrees about +Z (the forearm swings
//! towards -X) while `forearm_twist` twists 0 to 170 degrees about +Y.

use glam::{Vec3, Vec4};

use super::{JointSpec, RigSpec, TubeSpec, assemble, keys, rotation_channel, smoothstep};
use crate::scene::{Animation, Scene};

/// The joint chain; each is the parent of the next.
const JOINTS: [JointSpec; 5] = [
    JointSpec {
        name: "shoulder",
        parent: None,
        translation: Vec3::ZERO,
    },
    JointSpec {
        name: "upper_arm",
        parent: Some(0),
        translation: Vec3::new(0.0, 0.3, 0.0),
    },
    JointSpec {
        name: "elbow",
        parent: Some(1),
        translation: Vec3::new(0.0, 1.0, 0.0),
    },
    JointSpec {
        name: "forearm_twist",
        parent: Some(2),
        translation: Vec3::new(0.0, 0.5, 0.0),
    },
    JointSpec {
        name: "wrist",
        parent: Some(3),
        translation: Vec3::new(0.0, 0.5, 0.0),
    },
];

/// Per joint after the first, the height range (m) over which the weight hands over to it.
const HANDOVERS: [(f32, f32); 4] = [(0.15, 0.45), (1.15, 1.45), (1.4, 2.2), (2.2, 2.4)];

/// Raw weights at height `y`.
///
/// `reach[k]` is how far joint `k`'s handover has progressed; joint `k` gets
/// `reach[k] - reach[k + 1]`, so the weights telescope to exactly 1. Clamping
/// each reach by the previous one keeps every weight non-negative where ramps overlap.
fn weights(y: f32) -> Vec<(u16, f32)> {
    let mut reach = [1.0f32; 6];
    reach[5] = 0.0;
    for (k, &(a, b)) in HANDOVERS.iter().enumerate() {
        reach[k + 1] = smoothstep(a, b, y).min(reach[k]);
    }
    (0..5u16)
        .map(|j| (j, reach[j as usize] - reach[j as usize + 1]))
        .collect()
}

/// Builds the rig and its clip.
pub(super) fn scene() -> Scene {
    let ease = |s: f32| smoothstep(0.0, 1.0, s);
    let bend = rotation_channel(2, Vec3::Z, &keys(9, 2.0, |s| 120.0 * ease(s)));
    let twist = rotation_channel(3, Vec3::Y, &keys(9, 2.0, |s| 170.0 * ease(s)));
    assemble(RigSpec {
        name: "arm",
        joints: &JOINTS,
        tube: TubeSpec {
            y_start: 0.0,
            y_end: 2.5,
            radius_start: 0.2,
            radius_end: 0.13,
            segments: 48,
            rings: 101,
        },
        weights: &weights,
        color: Vec4::new(0.35, 0.50, 0.85, 1.0),
        animations: vec![Animation {
            name: String::from("twist_and_bend"),
            channels: vec![bend, twist],
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_telescope_to_one_and_stay_non_negative() {
        for k in 0..=1000 {
            let y = k as f32 * 0.0025;
            let w = weights(y);
            let sum: f32 = w.iter().map(|&(_, w)| w).sum();
            assert!((sum - 1.0).abs() < 1e-6, "sum {sum} at y = {y}");
            assert!(w.iter().all(|&(_, w)| w >= 0.0));
            assert!(w.iter().filter(|&&(_, w)| w > 0.0).count() <= 4);
        }
    }

    #[test]
    fn segments_belong_to_their_joints() {
        let heaviest = |y: f32| {
            weights(y)
                .into_iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap()
                .0
        };
        assert_eq!(heaviest(0.05), 0);
        assert_eq!(heaviest(0.8), 1);
        assert_eq!(heaviest(1.5), 2);
        assert_eq!(heaviest(2.1), 3);
        assert_eq!(heaviest(2.45), 4);
    }

    #[test]
    fn some_vertices_have_three_influences() {
        let scene = scene();
        let inf = scene.meshes[0].primitives[0].influences.as_ref().unwrap();
        assert_eq!(inf.max_influences(), 3);
    }
}
