//! Unit dual quaternions for rigid transforms, on glam.
//!
//! A dual quaternion `real + eps * dual` (eps^2 = 0) with a unit `real` part
//! encodes the rigid motion "rotate by `real`, then translate by t", where
//! `dual = 0.5 * t * real` and t is the pure quaternion (tx, ty, tz, 0).
//! Component order is (x, y, z, w), like `glam::Quat` and the seed GLSL.

mod blend;
mod polar;

pub use blend::{blend, blend_rotation};
pub use polar::{MAX_MATRIX_ENTRY, RIGID_TOLERANCE, RigidSplit, split_rigid};
pub(crate) use polar::{gram_and_det, is_rigid_gram};

use glam::{Mat3, Mat4, Quat, Vec3, Vec4};

/// A dual quaternion: rotation in `real`, translation encoded in `dual`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DualQuat {
    /// Real part: the rotation quaternion (x, y, z, w).
    pub real: Quat,
    /// Dual part: `0.5 * t * real` for translation t.
    pub dual: Quat,
}

impl Default for DualQuat {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// Quaternion with all four components zero (not a rotation; an accumulator).
const QUAT_ZERO: Quat = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);

impl DualQuat {
    /// The identity transform.
    pub const IDENTITY: Self = Self {
        real: Quat::IDENTITY,
        dual: QUAT_ZERO,
    };

    /// All eight components zero: the starting value of a blend sum.
    pub const ZERO: Self = Self {
        real: QUAT_ZERO,
        dual: QUAT_ZERO,
    };

    /// Builds from raw parts without normalising.
    #[must_use]
    pub const fn from_parts(real: Quat, dual: Quat) -> Self {
        Self { real, dual }
    }

    /// The transform "rotate by `rotation`, then translate by `translation`".
    #[must_use]
    pub fn from_rotation_translation(rotation: Quat, translation: Vec3) -> Self {
        let t = Quat::from_xyzw(translation.x, translation.y, translation.z, 0.0);
        Self {
            real: rotation,
            dual: (t * rotation) * 0.5,
        }
    }

    /// A pure translation.
    #[must_use]
    pub fn from_translation(translation: Vec3) -> Self {
        Self::from_rotation_translation(Quat::IDENTITY, translation)
    }

    /// A pure rotation about the origin.
    #[must_use]
    pub fn from_rotation(rotation: Quat) -> Self {
        Self::from_rotation_translation(rotation, Vec3::ZERO)
    }

    /// From a rigid matrix (proper rotation + translation).
    ///
    /// The upper 3x3 is re-orthonormalised by polar decomposition, so a matrix
    /// with small drift still gives a unit rotation; for matrices with real
    /// scale, shear or a mirror, use [`split_rigid`] and keep the scale part.
    #[must_use]
    pub fn from_rigid_mat4(m: Mat4) -> Self {
        let split = split_rigid(m);
        Self::from_rotation_translation(split.rotation, split.translation)
    }

    /// The rotation part (the normalised real part).
    #[must_use]
    pub fn rotation(self) -> Quat {
        self.real.normalize()
    }

    /// The translation t encoded in a unit dual quaternion: t = 2 * dual * conj(real).
    #[must_use]
    pub fn translation(self) -> Vec3 {
        let r = Vec3::new(self.real.x, self.real.y, self.real.z);
        let d = Vec3::new(self.dual.x, self.dual.y, self.dual.z);
        2.0 * (self.real.w * d - self.dual.w * r + r.cross(d))
    }

    /// The rigid matrix of a unit dual quaternion.
    #[must_use]
    pub fn to_mat4(self) -> Mat4 {
        Mat4::from_rotation_translation(self.rotation(), self.translation())
    }

    /// The rotation as a 3x3 matrix.
    #[must_use]
    pub fn to_mat3(self) -> Mat3 {
        Mat3::from_quat(self.rotation())
    }

    /// Composition: `(self * rhs)` applies `rhs` first, then `self`.
    #[must_use]
    pub fn mul_dq(self, rhs: Self) -> Self {
        Self {
            real: self.real * rhs.real,
            dual: self.real * rhs.dual + self.dual * rhs.real,
        }
    }

    /// Quaternion conjugate of both parts; the inverse of a unit dual quaternion.
    #[must_use]
    pub fn conjugate(self) -> Self {
        Self {
            real: self.real.conjugate(),
            dual: self.dual.conjugate(),
        }
    }

    /// Divides both parts by |real| and makes `dual` orthogonal to `real`.
    ///
    /// Orthogonality (real . dual = 0) is the second unit condition; it only
    /// changes the scalar part of `2 dual conj(real)`, so positions are kept,
    /// but it matters where the result becomes a matrix. A (near) zero real
    /// part has no rotation to keep: the identity is returned.
    #[must_use]
    pub fn normalize(self) -> Self {
        let len = self.real.length();
        if !len.is_finite() || len <= 1e-12 || !self.dual.is_finite() {
            return Self::IDENTITY;
        }
        let inv = 1.0 / len;
        let real = self.real * inv;
        let dual = self.dual * inv;
        let dual = dual - real * real.dot(dual);
        Self { real, dual }
    }

    /// Whether |real| = 1 and real . dual = 0, within 1e-4.
    #[must_use]
    pub fn is_normalized(self) -> bool {
        (self.real.length() - 1.0).abs() < 1e-4 && self.real.dot(self.dual).abs() < 1e-4
    }

    /// Whether all eight components are finite.
    #[must_use]
    pub fn is_finite(self) -> bool {
        self.real.is_finite() && self.dual.is_finite()
    }

    /// Transforms a point: rotate, then translate (for unit dual quaternions).
    #[must_use]
    pub fn transform_point3(self, p: Vec3) -> Vec3 {
        self.transform_vector3(p) + self.translation()
    }

    /// Transforms a direction (normal, tangent): rotation only.
    #[must_use]
    pub fn transform_vector3(self, v: Vec3) -> Vec3 {
        rotate_vector(self.real, v)
    }

    /// Component-wise comparison of both parts with an absolute tolerance.
    #[must_use]
    pub fn abs_diff_eq(self, rhs: Self, max_abs_diff: f32) -> bool {
        self.real.abs_diff_eq(rhs.real, max_abs_diff)
            && self.dual.abs_diff_eq(rhs.dual, max_abs_diff)
    }

    /// The eight components as the GPU's `mat2x4<f32>`: column 0 real, column 1 dual.
    #[must_use]
    pub fn to_array(self) -> [f32; 8] {
        let r = Vec4::from(self.real).to_array();
        let d = Vec4::from(self.dual).to_array();
        [r[0], r[1], r[2], r[3], d[0], d[1], d[2], d[3]]
    }

    /// Inverse of [`DualQuat::to_array`].
    #[must_use]
    pub fn from_array(a: [f32; 8]) -> Self {
        Self {
            real: Quat::from_xyzw(a[0], a[1], a[2], a[3]),
            dual: Quat::from_xyzw(a[4], a[5], a[6], a[7]),
        }
    }
}

impl std::ops::Mul for DualQuat {
    type Output = Self;
    /// Composition: `a * b` applies `b` first.
    fn mul(self, rhs: Self) -> Self {
        self.mul_dq(rhs)
    }
}

/// Rotates `v` by the unit quaternion `q`: v + 2 q.xyz x (q.xyz x v + q.w v).
///
/// The same expression as the seed shader, so CPU and GPU round alike.
#[must_use]
pub fn rotate_vector(q: Quat, v: Vec3) -> Vec3 {
    let u = Vec3::new(q.x, q.y, q.z);
    v + 2.0 * u.cross(u.cross(v) + q.w * v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_round_trips() {
        let r = Quat::from_rotation_z(0.7);
        let t = Vec3::new(1.0, -2.0, 3.0);
        let dq = DualQuat::from_rotation_translation(r, t);
        assert!(dq.translation().abs_diff_eq(t, 1e-6));
        assert!(dq.is_normalized());
        // rotate (1,0,0) by 0.7 rad about z then translate
        let p = dq.transform_point3(Vec3::X);
        let expected = Vec3::new(0.7f32.cos(), 0.7f32.sin(), 0.0) + t;
        assert!(p.abs_diff_eq(expected, 1e-6), "{p} vs {expected}");
    }

    #[test]
    fn product_applies_right_first() {
        let a = DualQuat::from_translation(Vec3::X);
        let b = DualQuat::from_rotation(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        // rotate first: X -> Y, then translate by X: (1, 1, 0)
        let p = (a * b).transform_point3(Vec3::X);
        assert!(p.abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-6), "{p}");
        // translate first: X -> 2X, then rotate: (0, 2, 0)
        let p = (b * a).transform_point3(Vec3::X);
        assert!(p.abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-6), "{p}");
    }

    #[test]
    fn conjugate_is_inverse() {
        let dq = DualQuat::from_rotation_translation(
            Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 1.1),
            Vec3::new(4.0, 5.0, -6.0),
        );
        let id = dq * dq.conjugate();
        assert!(id.abs_diff_eq(DualQuat::IDENTITY, 1e-5), "{id:?}");
    }

    #[test]
    fn normalize_makes_dual_orthogonal_and_keeps_points() {
        let dq = DualQuat::from_rotation_translation(Quat::from_rotation_x(0.4), Vec3::ONE);
        let skewed = DualQuat::from_parts(dq.real * 3.0, dq.dual * 3.0 + dq.real * 0.5);
        let n = skewed.normalize();
        assert!(n.is_normalized());
        let p = Vec3::new(0.3, -0.2, 0.9);
        assert!(
            n.transform_point3(p)
                .abs_diff_eq(dq.transform_point3(p), 1e-5)
        );
    }

    #[test]
    fn degenerate_normalize_is_identity() {
        assert_eq!(DualQuat::ZERO.normalize(), DualQuat::IDENTITY);
        let nan = DualQuat::from_parts(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0), QUAT_ZERO);
        assert_eq!(nan.normalize(), DualQuat::IDENTITY);
    }

    #[test]
    fn gpu_array_layout() {
        let dq = DualQuat::from_parts(
            Quat::from_xyzw(1.0, 2.0, 3.0, 4.0),
            Quat::from_xyzw(5.0, 6.0, 7.0, 8.0),
        );
        assert_eq!(dq.to_array(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        assert_eq!(DualQuat::from_array(dq.to_array()), dq);
    }
}
