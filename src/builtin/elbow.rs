//! `builtin:elbow`: the hinge, where DQS bulges and LBS pinches.
//!
//! A capped tube along +Y from y = 0 to y = 2, radius 0.2, 48 segments x 81
//! rings (4,069 vertices). Joint `upper` sits at the origin, its child `lower`
//! at y = 1. `lower`'s weight is smoothstep over y in [0.8, 1.2], `upper` has
//! the rest: a tight blend, so bending `lower` about +Z or +X shows the joint
//! artifacts clearly.

use glam::{Vec3, Vec4};

use super::{JointSpec, RigSpec, TubeSpec, assemble, keys, rotation_channel, smoothstep};
use crate::scene::{Animation, Scene};

/// Joint `upper` at the origin and `lower` (the hinge) one metre up.
const JOINTS: [JointSpec; 2] = [
    JointSpec {
        name: "upper",
        parent: None,
        translation: Vec3::ZERO,
    },
    JointSpec {
        name: "lower",
        parent: Some(0),
        translation: Vec3::Y,
    },
];

/// Builds the rig, with the clip `bend_lower_120` (lower 0 to 120 degrees about +Z over 2 s).
pub(super) fn scene() -> Scene {
    let weights = |y: f32| {
        let lower = smoothstep(0.8, 1.2, y);
        vec![(0, 1.0 - lower), (1, lower)]
    };
    let bend = rotation_channel(1, Vec3::Z, &keys(9, 2.0, |s| 120.0 * s));
    assemble(RigSpec {
        name: "elbow",
        joints: &JOINTS,
        // Denser rings than `twist`, so the 0.4 m blend zone gets 16 of them.
        tube: TubeSpec {
            y_start: 0.0,
            y_end: 2.0,
            radius_start: 0.2,
            radius_end: 0.2,
            segments: 48,
            rings: 81,
        },
        weights: &weights,
        color: Vec4::new(0.85, 0.45, 0.20, 1.0),
        animations: vec![Animation {
            name: String::from("bend_lower_120"),
            channels: vec![bend],
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_zone_is_narrow() {
        let scene = scene();
        let prim = &scene.meshes[0].primitives[0];
        let inf = prim.influences.as_ref().unwrap();
        for (p, row) in prim.positions.iter().zip(inf.iter()) {
            let blended = row.len() == 2;
            assert_eq!(blended, p.y > 0.8 + 1e-4 && p.y < 1.2 - 1e-4, "y = {}", p.y);
        }
    }
}
