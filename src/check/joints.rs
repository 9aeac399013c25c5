//! Joint and node rules: `non_uniform_scale`, `mirrored_joint`, `ignored_node_transform`.

use std::collections::HashSet;

use glam::Mat4;

use super::{Finding, JointAt, Rule, node_name};
use crate::analysis::{ScaleKind, classify_scale};
use crate::anim::Pose;
use crate::scene::Scene;

/// How far a skinned mesh node's own matrix may be from the identity, per entry, and still count as none.
const IDENTITY_TOLERANCE: f32 = 1e-5;
/// Joints named in a finding's detail; the JSON lists them all.
const NAMED_JOINTS: usize = 5;

/// The fault `check` reports in skinning matrix `m`, if any: a mirror or uneven scale/shear
/// ([`classify_scale`]); uniform scale and near-rigid matrices pass.
fn classify(m: Mat4, tolerance: f32) -> Option<ScaleKind> {
    classify_scale(m, tolerance)
        .filter(|k| matches!(k, ScaleKind::Mirrored | ScaleKind::NonUniform))
}

/// Scans poses for non-uniformly scaled and mirrored joints, keeping where each was first seen.
pub(super) struct JointScan {
    /// `CheckOptions::scale_tolerance`.
    tolerance: f32,
    /// Each faulty joint once per fault, in the order found.
    found: Vec<(ScaleKind, JointAt)>,
    /// (node, fault) pairs already in `found`.
    seen: HashSet<(usize, ScaleKind)>,
    /// Scratch skinning matrices.
    matrices: Vec<Mat4>,
}

impl JointScan {
    /// An empty scan with the given scale tolerance.
    pub(super) fn new(tolerance: f32) -> Self {
        Self {
            tolerance,
            found: Vec::new(),
            seen: HashSet::new(),
            matrices: Vec::new(),
        }
    }

    /// Checks every joint of every skin at `pose`: the rest pose (`clip` `None`) or `clip` at `time_s`.
    pub(super) fn scan(&mut self, scene: &Scene, pose: &Pose, clip: Option<&str>, time_s: f32) {
        for (s, skin) in scene.skins.iter().enumerate() {
            pose.skinning_matrices(scene, s, &mut self.matrices);
            for (&node, &m) in skin.joints.iter().zip(&self.matrices) {
                let Some(fault) = classify(m, self.tolerance) else {
                    continue;
                };
                if self.seen.insert((node, fault)) {
                    let at = JointAt {
                        joint: node_name(scene, node),
                        node,
                        clip: clip.map(str::to_owned),
                        time: clip.map(|_| time_s),
                    };
                    self.found.push((fault, at));
                }
            }
        }
    }

    /// One `non_uniform_scale` and one `mirrored_joint` finding, each when some joint has the fault.
    pub(super) fn findings(self) -> Vec<Finding> {
        let tolerance = self.tolerance;
        [ScaleKind::NonUniform, ScaleKind::Mirrored]
            .into_iter()
            .filter_map(|fault| {
                let joints: Vec<JointAt> = self
                    .found
                    .iter()
                    .filter(|(f, _)| *f == fault)
                    .map(|(_, at)| at.clone())
                    .collect();
                let (rule, what) = match fault {
                    ScaleKind::Mirrored => (Rule::MirroredJoint, String::from("mirror")),
                    // `classify` keeps only mirrors and uneven scale.
                    _ => (
                        Rule::NonUniformScale,
                        format!("scale unevenly or shear (by more than {tolerance})"),
                    ),
                };
                (!joints.is_empty()).then(|| {
                    let mut f = Finding::new(
                        rule,
                        format!(
                            "{} joints' skinning matrices {what}, which DQS cannot blend as rotations: {}",
                            joints.len(),
                            joint_list(&joints)
                        ),
                    );
                    f.count = Some(joints.len());
                    f.joints = joints;
                    f
                })
            })
            .collect()
    }
}

/// The first few joints and where each was seen, e.g. `arm (rest), hand (clip "Run" at 0.50 s)`.
fn joint_list(joints: &[JointAt]) -> String {
    let mut parts: Vec<String> = joints
        .iter()
        .take(NAMED_JOINTS)
        .map(|j| match (&j.clip, j.time) {
            (Some(clip), Some(t)) => format!("{} (clip \"{clip}\" at {t:.2} s)", j.joint),
            _ => format!("{} (rest)", j.joint),
        })
        .collect();
    if joints.len() > NAMED_JOINTS {
        parts.push(format!("and {} more", joints.len() - NAMED_JOINTS));
    }
    parts.join(", ")
}

/// `ignored_node_transform`: glTF skinned mesh nodes with a transform of their own.
///
/// glTF skins in world space and ignores the mesh node's transform. dqview does the same,
/// but tools have not always, so such a rig can look different elsewhere. Transforms the
/// node only inherits (a Y-up root above it, the validator's `NODE_SKINNED_MESH_NON_ROOT`)
/// are not reported: exporters put them there routinely. FBX files are skipped: their mesh
/// node's bind transform is part of the clusters' matrices, so nothing is ignored.
#[must_use]
pub(super) fn ignored_node_transforms(scene: &Scene) -> Vec<Finding> {
    if scene.source_info.format.starts_with("FBX") {
        return Vec::new();
    }
    let mut findings = Vec::new();
    for (n, node) in scene.nodes.iter().enumerate() {
        if node.mesh.is_none() || node.skin.is_none() {
            continue;
        }
        let own = node.transform.to_mat4();
        if own.abs_diff_eq(Mat4::IDENTITY, IDENTITY_TOLERANCE) {
            continue;
        }
        let mut f = Finding::new(
            Rule::IgnoredNodeTransform,
            format!(
                "skinned mesh node \"{}\" (node {n}) has its own transform ({}), which glTF ignores",
                node.name,
                describe(own)
            ),
        );
        f.mesh_node = Some(node.name.clone());
        findings.push(f);
    }
    findings
}

/// A matrix as translation, rotation angle and scale, for a person.
fn describe(m: Mat4) -> String {
    let (scale, rotation, translation) = m.to_scale_rotation_translation();
    let angle = rotation.to_axis_angle().1.to_degrees();
    let angle = if angle > 180.0 { 360.0 - angle } else { angle };
    format!(
        "translation ({:.4}, {:.4}, {:.4}), rotation {angle:.1} deg, scale ({:.4}, {:.4}, {:.4})",
        translation.x, translation.y, translation.z, scale.x, scale.y, scale.z
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    #[test]
    fn uniform_scale_passes_uneven_scale_and_mirrors_do_not() {
        let rot = Mat4::from_quat(Quat::from_rotation_y(0.7));
        assert_eq!(classify(rot, 1e-3), None);
        assert_eq!(
            classify(rot * Mat4::from_scale(Vec3::splat(3.0)), 1e-3),
            None
        );
        let uneven = rot * Mat4::from_scale(Vec3::new(1.0, 1.01, 1.0));
        assert_eq!(classify(uneven, 1e-3), Some(ScaleKind::NonUniform));
        assert_eq!(classify(uneven, 0.02), None);
        let mirror = rot * Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        assert_eq!(classify(mirror, 1e-3), Some(ScaleKind::Mirrored));
        let flat = Mat4::from_scale(Vec3::new(1.0, 0.0, 1.0));
        assert_eq!(classify(flat, 1e-3), Some(ScaleKind::NonUniform));
        assert_eq!(classify(Mat4::from_cols_array(&[f32::NAN; 16]), 1e-3), None);
    }
}
