//! Joint palettes: per-joint transforms in the forms each skinning mode needs.

use bytemuck::{Pod, Zeroable};
use glam::{Mat3, Mat4};

use super::rigid_split::split;
use crate::dq::DualQuat;

/// One joint's dual quaternion as the GPU reads it: WGSL `mat2x4<f32>`, 32 bytes.
///
/// Keep in sync with `shaders/dq.wgsl`: column 0 is the rotation (x, y, z, w),
/// column 1 the dual part.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuDualQuat {
    /// Real part (rotation quaternion x, y, z, w).
    pub real: [f32; 4],
    /// Dual part.
    pub dual: [f32; 4],
}

impl From<DualQuat> for GpuDualQuat {
    fn from(dq: DualQuat) -> Self {
        let a = dq.to_array();
        Self {
            real: [a[0], a[1], a[2], a[3]],
            dual: [a[4], a[5], a[6], a[7]],
        }
    }
}

/// Per-joint transforms for one skin at one pose.
///
/// Built from the joint skinning matrices `M_j = world_from_joint_j * joint_from_bind_j`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointPalette {
    /// Skinning matrices for LBS (non-finite input replaced by the identity).
    pub matrices: Vec<Mat4>,
    /// Rigid part of each matrix as a unit dual quaternion, for DQS.
    pub dual_quats: Vec<DualQuat>,
    /// Scale/shear part S of each matrix; `None` when every joint is rigid (fast path).
    pub scale_shear: Option<Vec<Mat3>>,
    /// Joints whose matrices had NaN or infinite entries and were replaced by the identity.
    pub non_finite_joints: usize,
}

impl JointPalette {
    /// Builds a palette from skinning matrices, splitting each into rigid and scale/shear parts.
    #[must_use]
    pub fn from_matrices(skinning: &[Mat4]) -> Self {
        let mut palette = Self::default();
        palette.rebuild(skinning);
        palette
    }

    /// Rebuilds in place, reusing the allocations (for the per-frame path).
    ///
    /// Rigid matrices (the usual case) skip the polar iteration; see `rigid_split.rs`.
    pub fn rebuild(&mut self, skinning: &[Mat4]) {
        self.matrices.clear();
        self.dual_quats.clear();
        self.non_finite_joints = 0;
        let mut scales = self.scale_shear.take().unwrap_or_default();
        scales.clear();
        let mut all_rigid = true;
        super::count_visits(skinning.len());
        for &m in skinning {
            let split = split(m);
            if split.was_non_finite {
                self.non_finite_joints += 1;
                self.matrices.push(Mat4::IDENTITY);
            } else {
                self.matrices.push(m);
            }
            all_rigid &= split.is_rigid;
            self.dual_quats.push(DualQuat::from_rotation_translation(
                split.rotation,
                split.translation,
            ));
            scales.push(split.scale_shear);
        }
        self.scale_shear = if all_rigid { None } else { Some(scales) };
    }

    /// Number of joints.
    #[must_use]
    pub fn len(&self) -> usize {
        self.matrices.len()
    }

    /// Whether the palette has no joints.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.matrices.is_empty()
    }

    /// Whether every joint is rigid, so DQS skips the scale/shear phase.
    #[must_use]
    pub fn is_rigid(&self) -> bool {
        self.scale_shear.is_none()
    }

    /// The dual quaternions in GPU layout (`array<mat2x4<f32>>`).
    #[must_use]
    pub fn to_gpu_dual_quats(&self) -> Vec<GpuDualQuat> {
        self.dual_quats.iter().map(|&dq| dq.into()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    #[test]
    fn rigid_palette_takes_fast_path() {
        let p = JointPalette::from_matrices(&[
            Mat4::IDENTITY,
            Mat4::from_rotation_translation(Quat::from_rotation_z(1.0), Vec3::X),
        ]);
        assert!(p.is_rigid());
        assert_eq!(p.len(), 2);
        let t = p.dual_quats[1].transform_point3(Vec3::Y);
        let m = p.matrices[1].transform_point3(Vec3::Y);
        assert!(t.abs_diff_eq(m, 1e-6));
    }

    #[test]
    fn scaled_joint_needs_two_phases_and_nan_is_counted() {
        let mut bad = Mat4::IDENTITY;
        bad.w_axis.y = f32::NAN;
        let p = JointPalette::from_matrices(&[Mat4::from_scale(Vec3::splat(2.0)), bad]);
        assert!(!p.is_rigid());
        assert_eq!(p.non_finite_joints, 1);
        assert_eq!(p.matrices[1], Mat4::IDENTITY);
    }

    #[test]
    fn gpu_dual_quat_is_32_bytes() {
        assert_eq!(std::mem::size_of::<GpuDualQuat>(), 32);
    }
}
