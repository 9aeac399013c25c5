//! Scale in joints' skinning matrices: mirrored, non-uniform, uniform, or near-rigid ones.

use glam::{Mat4, Vec3};

use crate::analysis::{ScaleKind, classify_scale};
use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::scene::Scene;
use crate::scene::names::node_name;

/// Samples per clip when looking for scale.
const SCALE_SAMPLES: usize = 8;
/// Scale this far from 1 (or axes this far apart) is reported as scale; below, near-rigid.
const SCALE_TOLERANCE: f32 = 1e-3;

/// A joint whose skinning matrix is not a rotation and translation.
#[derive(Clone, Debug, PartialEq)]
pub struct JointScale {
    /// The joint (node index).
    pub joint: usize,
    /// Its name.
    pub name: String,
    /// The worst kind seen.
    pub kind: ScaleKind,
    /// The matrix's axis lengths then.
    pub scale: Vec3,
    /// Where: `rest` or `CLIP at T s`.
    pub at: String,
}

/// Every joint with scale at rest or at [`SCALE_SAMPLES`] times of each clip, worst kind first.
#[must_use]
pub fn joint_scales(scene: &Scene, clips: &[usize], overrides: &JointOverrides) -> Vec<JointScale> {
    let mut found: Vec<JointScale> = Vec::new();
    let mut moments: Vec<(Option<usize>, f32)> = vec![(None, 0.0)];
    for &c in clips {
        let duration = scene.animations.get(c).map_or(0.0, clip_duration_s);
        let n = SCALE_SAMPLES;
        moments.extend((0..n).map(|k| (Some(c), duration * k as f32 / (n - 1) as f32)));
    }
    let mut matrices: Vec<Mat4> = Vec::new();
    for (clip, t) in moments {
        let mut pose = Pose::rest(scene);
        pose.sample(scene, clip, t, overrides);
        let at = match clip.and_then(|c| scene.animations.get(c)) {
            Some(a) => format!("{} at {t:.2} s", a.name),
            None => "rest".to_string(),
        };
        for (s, skin) in scene.skins.iter().enumerate() {
            pose.skinning_matrices(scene, s, &mut matrices);
            for (&joint, m) in skin.joints.iter().zip(&matrices) {
                let Some(kind) = classify_scale(*m, SCALE_TOLERANCE) else {
                    continue;
                };
                let axis = |c: glam::Vec4| c.truncate().length();
                let scale = Vec3::new(axis(m.x_axis), axis(m.y_axis), axis(m.z_axis));
                match found.iter_mut().find(|f| f.joint == joint) {
                    Some(f) if kind < f.kind => {
                        (f.kind, f.scale, f.at) = (kind, scale, at.clone());
                    }
                    Some(_) => {}
                    None => found.push(JointScale {
                        joint,
                        name: node_name(scene, joint),
                        kind,
                        scale,
                        at: at.clone(),
                    }),
                }
            }
        }
    }
    found.sort_by_key(|f| (f.kind, f.joint));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat3;

    #[test]
    fn kinds_are_told_apart() {
        let k = |m: Mat3| classify_scale(Mat4::from_mat3(m), SCALE_TOLERANCE);
        assert_eq!(k(Mat3::IDENTITY), None);
        assert_eq!(
            k(Mat3::from_diagonal(Vec3::new(-1.0, 1.0, 1.0))),
            Some(ScaleKind::Mirrored)
        );
        assert_eq!(
            k(Mat3::from_diagonal(Vec3::new(1.0, 2.0, 1.0))),
            Some(ScaleKind::NonUniform)
        );
        assert_eq!(
            k(Mat3::from_diagonal(Vec3::splat(2.0))),
            Some(ScaleKind::Uniform)
        );
        assert_eq!(
            k(Mat3::from_diagonal(Vec3::splat(1.0 + 1e-4))),
            Some(ScaleKind::NearRigid)
        );
    }
}
