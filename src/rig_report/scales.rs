//! Scale in joints' skinning matrices: mirrored, non-uniform, uniform, or near-rigid ones.

use glam::{Mat3, Mat4, Vec3};

use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::dq::RIGID_TOLERANCE;
use crate::scene::Scene;

/// Samples per clip when looking for scale.
const SCALE_SAMPLES: usize = 8;
/// Scale this far from 1 (or axes this far apart) is reported as scale; below, near-rigid.
const SCALE_TOLERANCE: f32 = 1e-3;

/// What kind of scale a joint's skinning matrix carries, mildest last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ScaleKind {
    /// Negative determinant: a mirror.
    Mirrored,
    /// Axes scaled differently.
    NonUniform,
    /// The same scale on every axis, away from 1.
    Uniform,
    /// Rigid but for rounding beyond DQS's rigid tolerance: DQS takes its two-phase path.
    NearRigid,
}

impl ScaleKind {
    /// Words for the report.
    #[must_use]
    pub fn text(self) -> &'static str {
        match self {
            Self::Mirrored => "mirrored (negative determinant)",
            Self::NonUniform => "non-uniform scale",
            Self::Uniform => "uniform scale",
            Self::NearRigid => "near-rigid (within 0.1% of rigid, past the rigid tolerance)",
        }
    }
}

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
                let Some((kind, scale)) = classify(Mat3::from_mat4(*m)) else {
                    continue;
                };
                match found.iter_mut().find(|f| f.joint == joint) {
                    Some(f) if kind < f.kind => {
                        (f.kind, f.scale, f.at) = (kind, scale, at.clone());
                    }
                    Some(_) => {}
                    None => found.push(JointScale {
                        joint,
                        name: super::clips::node_name(scene, joint),
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

/// The kind of scale in `a` and its axis lengths; `None` when rigid (or not finite).
fn classify(a: Mat3) -> Option<(ScaleKind, Vec3)> {
    let scale = Vec3::new(a.x_axis.length(), a.y_axis.length(), a.z_axis.length());
    if !scale.is_finite() || scale.min_element() <= 0.0 {
        return None;
    }
    let det = a.determinant();
    if det < 0.0 {
        return Some((ScaleKind::Mirrored, scale));
    }
    if scale.max_element() / scale.min_element() > 1.0 + SCALE_TOLERANCE {
        return Some((ScaleKind::NonUniform, scale));
    }
    if (scale - Vec3::ONE).abs().max_element() > SCALE_TOLERANCE {
        return Some((ScaleKind::Uniform, scale));
    }
    let gram = a.transpose() * a - Mat3::IDENTITY;
    let off = gram
        .to_cols_array()
        .iter()
        .fold(0.0f32, |m, x| m.max(x.abs()));
    (off > RIGID_TOLERANCE).then_some((ScaleKind::NearRigid, scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_told_apart() {
        assert_eq!(classify(Mat3::IDENTITY), None);
        let k = |m: Mat3| classify(m).map(|c| c.0);
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
