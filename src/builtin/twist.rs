//! `builtin:twist`: the candy-wrapper test.
//!
//! A capped tube along +Y from y = 0 to y = 2, radius 0.25, 48 segments x 49
//! rings (2,501 vertices). Joint `base` sits at the origin, its child `tip` at
//! y = 1, the middle of the tube. `tip`'s weight is smoothstep over y in
//! [0.5, 1.5], `base` has the rest. Twisting `tip` 180 degrees about +Y makes
//! LBS collapse the ring at y = 1 to the axis; DQS keeps its radius.

use glam::{Vec3, Vec4};

use super::{JointSpec, RigSpec, TubeSpec, assemble, keys, rotation_channel, smoothstep};
use crate::scene::{Animation, Scene};

/// Joint `base` at the origin and `tip` one metre up the tube.
const JOINTS: [JointSpec; 2] = [
    JointSpec {
        name: "base",
        parent: None,
        translation: Vec3::ZERO,
    },
    JointSpec {
        name: "tip",
        parent: Some(0),
        translation: Vec3::Y,
    },
];

/// Builds the rig, with the clip `twist_tip_180` (tip 0 to 180 degrees about +Y over 2 s).
pub(super) fn scene() -> Scene {
    let weights = |y: f32| {
        let tip = smoothstep(0.5, 1.5, y);
        vec![(0, 1.0 - tip), (1, tip)]
    };
    // 22.5 degrees per key keeps every slerp well short of the 180-degree ambiguity.
    let twist = rotation_channel(1, Vec3::Y, &keys(9, 2.0, |s| 180.0 * s));
    assemble(RigSpec {
        name: "twist",
        joints: &JOINTS,
        tube: TubeSpec {
            y_start: 0.0,
            y_end: 2.0,
            radius_start: 0.25,
            radius_end: 0.25,
            segments: 48,
            rings: 49,
        },
        weights: &weights,
        color: Vec4::new(0.10, 0.55, 0.60, 1.0),
        animations: vec![Animation {
            name: String::from("twist_tip_180"),
            channels: vec![twist],
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_ring_is_split_evenly() {
        let scene = scene();
        let prim = &scene.meshes[0].primitives[0];
        let inf = prim.influences.as_ref().unwrap();
        let mut middle = 0;
        for (p, row) in prim.positions.iter().zip(inf.iter()) {
            if (p.y - 1.0).abs() < 1e-5 {
                middle += 1;
                assert_eq!(row.len(), 2);
                assert!((row[0].weight - 0.5).abs() < 1e-6);
            }
            if p.y < 0.5 || p.y > 1.5 {
                assert_eq!(row.len(), 1, "vertex at y = {} has one joint", p.y);
            }
        }
        assert_eq!(middle, 49, "one ring of 48 segments plus the seam");
    }
}
