//! Splitting a skinning matrix into a rigid part and a scale/shear part.

use glam::{Mat3, Mat3A, Mat4, Quat, Vec3};

/// A matrix M split as M = [R | t] * [S | 0]: rotation, translation and scale/shear.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidSplit {
    /// Proper rotation R (determinant +1).
    pub rotation: Quat,
    /// Translation t (the matrix's last column).
    pub translation: Vec3,
    /// S = R^T A, symmetric when the polar decomposition exists; a mirror lives here.
    pub scale_shear: Mat3,
    /// Whether S is the identity within [`RIGID_TOLERANCE`] (and det A > 0), as `is_rigid_gram` tests it.
    pub is_rigid: bool,
    /// Whether the input had NaN or infinite entries and was replaced by the identity.
    pub was_non_finite: bool,
}

/// Largest |S - I| entry for which a joint still counts as rigid: 32 ulps of 1 (3.8e-6).
///
/// S is dimensionless: for a rigid joint it is I whatever the rig's size or the
/// matrix's translation, and a product of factors scaled by s and 1/s rounds like
/// one of unit scale. So f32 rounding moves S from I by a multiple of
/// `f32::EPSILON`, a few ulps for each quaternion-to-matrix conversion and 3x3
/// product along the joint chain. Measured on the sample rigs posed by their clips
/// (CesiumMan, RiggedFigure, the Adventurer's 14-deep fingers): at most 16 ulps,
/// so 32 leaves a factor 2. Scales a file stores are larger and keep their two
/// phases: Adventurer's UpperLeg 1 + 8.9e-6 (75 ulps), the 1 + 4e-5 of inverse
/// binds written in single precision (335 ulps). Treating S as I moves a vertex at
/// distance r by up to |S - I| r, within this tolerance 32 ulps of r: the size of
/// the rounding LBS makes on the same matrices.
pub const RIGID_TOLERANCE: f32 = 32.0 * f32::EPSILON;

/// Whether a 3x3 part A with Gram matrix `ata` = A^T A and determinant `det` counts as rigid.
///
/// Tests S without computing it: S^2 = A^T A, so A^T A - I = (S - I)(S + I), which
/// is 2 (S - I) to first order. Both splits call this on the same `Mat3A`
/// arithmetic, so they agree on every matrix. A mirror (det <= 0) is never rigid.
#[must_use]
pub(crate) fn is_rigid_gram(ata: Mat3A, det: f32) -> bool {
    det > 0.0 && ata.abs_diff_eq(Mat3A::IDENTITY, 2.0 * RIGID_TOLERANCE)
}

/// The Gram matrix A^T A and the determinant of the upper 3x3 part A of `m`.
#[must_use]
pub(crate) fn gram_and_det(m: Mat4) -> (Mat3A, f32) {
    let a = Mat3A::from_mat4(m);
    (a.transpose() * a, a.determinant())
}

/// Largest |entry| a skinning matrix may have; a bigger one is treated like a non-finite one.
///
/// S = R^T A and the dual part of the rigid transform are sums of three or four
/// products of an entry with a unit rotation's, so below 1e36 they cannot
/// overflow `f32::MAX` (3.4e38). No real rig puts a joint 1e36 units away.
pub const MAX_MATRIX_ENTRY: f32 = 1e36;

/// Splits `m` by polar decomposition of its upper 3x3, A = R S.
///
/// R is the closest proper rotation to A; a mirror (det A < 0) is moved into
/// S (R = -Q, S = -P for A = Q P), since no rotation can mirror. The split is
/// exact: R * S reproduces A whatever R is. Fallbacks, so no NaN comes out:
/// a matrix with NaN or infinite entries, or entries beyond [`MAX_MATRIX_ENTRY`],
/// becomes the identity (`was_non_finite`); a singular A (zero scale on some axis) gets R from
/// Gram-Schmidt on its largest columns, or the identity when A is zero.
#[must_use]
pub fn split_rigid(m: Mat4) -> RigidSplit {
    const NON_FINITE: RigidSplit = RigidSplit {
        rotation: Quat::IDENTITY,
        translation: Vec3::ZERO,
        scale_shear: Mat3::IDENTITY,
        is_rigid: true,
        was_non_finite: true,
    };
    if m.to_cols_array()
        .iter()
        .any(|x| !x.is_finite() || x.abs() > MAX_MATRIX_ENTRY)
    {
        return NON_FINITE;
    }
    let a = Mat3::from_mat4(m);
    let translation = m.w_axis.truncate();
    let r = rotation_of(a);
    let rotation = Quat::from_mat3(&r).normalize();
    // Recompute R from the quaternion so that S absorbs its rounding.
    let r = Mat3::from_quat(rotation);
    let scale_shear = r.transpose() * a;
    if !(rotation.is_finite() && scale_shear.is_finite()) {
        // Unreachable within MAX_MATRIX_ENTRY; kept so no NaN can ever leave the split.
        return NON_FINITE;
    }
    let (ata, det) = gram_and_det(m);
    let is_rigid = is_rigid_gram(ata, det);
    RigidSplit {
        rotation,
        translation,
        scale_shear,
        is_rigid,
        was_non_finite: false,
    }
}

/// The proper rotation nearest to `a` (polar factor with the sign of det moved out).
fn rotation_of(a: Mat3) -> Mat3 {
    // The polar factor does not depend on scale; bring huge or tiny matrices near 1 so
    // the norm and determinant below do not overflow or underflow.
    let largest = [a.x_axis, a.y_axis, a.z_axis]
        .iter()
        .map(|c| c.abs().max_element())
        .fold(0.0f32, f32::max);
    let a = if largest > 1e15 || (largest > 0.0 && largest < 1e-15) {
        a * (1.0 / largest)
    } else {
        a
    };
    let norm = frobenius(a);
    if norm.is_nan() || norm <= 1e-20 {
        return Mat3::IDENTITY;
    }
    let det = a.determinant();
    // Relative determinant: |det| / (norm/sqrt3)^3 is 1 for a rotation, 0 when singular.
    let rel_det = det.abs() / (norm / 3f32.sqrt()).powi(3);
    let q = if rel_det > 1e-5 {
        polar_iteration(a)
    } else {
        gram_schmidt(a)
    };
    if q.determinant() < 0.0 { -q } else { q }
}

/// Higham's scaled Newton iteration X <- (g X + X^-T / g) / 2, which converges to the orthogonal polar factor.
fn polar_iteration(a: Mat3) -> Mat3 {
    let mut x = a;
    for _ in 0..30 {
        let inv_t = x.inverse().transpose();
        let g = (frobenius(inv_t) / frobenius(x)).sqrt();
        let next = (x * g + inv_t * (1.0 / g)) * 0.5;
        let diff = frobenius(next - x);
        x = next;
        if !x.is_finite() {
            return gram_schmidt(a);
        }
        if diff < 1e-7 {
            break;
        }
    }
    x
}

/// An orthonormal frame from a (possibly singular) matrix's columns, largest first.
fn gram_schmidt(a: Mat3) -> Mat3 {
    let cols = [a.x_axis, a.y_axis, a.z_axis];
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| {
        cols[j]
            .length_squared()
            .total_cmp(&cols[i].length_squared())
    });
    let mut basis = [Vec3::ZERO; 3];
    let first = cols[order[0]].try_normalize().unwrap_or(Vec3::X);
    basis[order[0]] = first;
    let second_raw = cols[order[1]] - first * first.dot(cols[order[1]]);
    let second = second_raw
        .try_normalize()
        .unwrap_or_else(|| first.any_orthonormal_vector());
    basis[order[1]] = second;
    // The third axis follows from the other two; its sign is fixed later by det.
    let third = first.cross(second);
    basis[order[2]] = if cols[order[2]].dot(third) < 0.0 {
        -third
    } else {
        third
    };
    Mat3::from_cols(basis[0], basis[1], basis[2])
}

/// Frobenius norm of a 3x3 matrix.
fn frobenius(m: Mat3) -> f32 {
    (m.x_axis.length_squared() + m.y_axis.length_squared() + m.z_axis.length_squared()).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_exact(m: Mat4, s: &RigidSplit) {
        let r = Mat3::from_quat(s.rotation);
        let a = r * s.scale_shear;
        assert!(a.abs_diff_eq(Mat3::from_mat4(m), 1e-4), "{a} vs {m}");
        assert!((r.determinant() - 1.0).abs() < 1e-4);
    }

    #[test]
    fn rigid_matrix_is_rigid() {
        let m =
            Mat4::from_rotation_translation(Quat::from_rotation_x(1.0), Vec3::new(1.0, 2.0, 3.0));
        let s = split_rigid(m);
        assert!(s.is_rigid);
        assert!(
            s.rotation.abs_diff_eq(Quat::from_rotation_x(1.0), 1e-5)
                || s.rotation.abs_diff_eq(-Quat::from_rotation_x(1.0), 1e-5)
        );
        assert_eq!(s.translation, Vec3::new(1.0, 2.0, 3.0));
        check_exact(m, &s);
    }

    #[test]
    fn scale_and_shear_go_into_s() {
        let rot = Quat::from_rotation_y(0.8);
        let shear = Mat4::from_cols_array(&[
            1.0, 0.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ]);
        let m = Mat4::from_rotation_translation(rot, Vec3::ONE)
            * Mat4::from_scale(Vec3::new(2.0, 0.5, 3.0))
            * shear;
        let s = split_rigid(m);
        assert!(!s.is_rigid);
        check_exact(m, &s);
        // For pure scale after rotation the rotation is recovered.
        let m2 = Mat4::from_rotation_translation(rot, Vec3::ZERO)
            * Mat4::from_scale(Vec3::new(2.0, 0.5, 3.0));
        let s2 = split_rigid(m2);
        assert!(
            s2.rotation.abs_diff_eq(rot, 1e-4) || s2.rotation.abs_diff_eq(-rot, 1e-4),
            "{}",
            s2.rotation
        );
        assert!(
            s2.scale_shear
                .abs_diff_eq(Mat3::from_diagonal(Vec3::new(2.0, 0.5, 3.0)), 1e-4)
        );
    }

    #[test]
    fn mirror_goes_into_s() {
        let m = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        let s = split_rigid(m);
        assert!(!s.is_rigid);
        assert!(s.scale_shear.determinant() < 0.0);
        check_exact(m, &s);
    }

    #[test]
    fn huge_entries_count_as_non_finite() {
        // Found by the `skinning` fuzz target: entries near f32::MAX overflowed S = R^T A to infinity.
        let huge = Mat4::from_cols_array(&[f32::from_bits(0x7f7f_7f7f); 16]);
        let s = split_rigid(huge);
        assert!(s.was_non_finite && s.scale_shear.is_finite() && s.rotation.is_finite());
        let big = Mat4::from_cols_array(&[MAX_MATRIX_ENTRY; 16]);
        let s = split_rigid(big);
        assert!(!s.was_non_finite && s.scale_shear.is_finite() && s.rotation.is_finite());
        let dq = crate::dq::DualQuat::from_rotation_translation(s.rotation, s.translation);
        assert!(dq.is_finite());
        let turned = Mat4::from_rotation_translation(
            Quat::from_rotation_y(0.7),
            Vec3::splat(-MAX_MATRIX_ENTRY),
        ) * Mat4::from_scale(Vec3::new(MAX_MATRIX_ENTRY, 1e30, 1e20));
        let s = split_rigid(turned);
        let a = Mat3::from_quat(s.rotation) * s.scale_shear;
        let error = frobenius(
            a * (1.0 / MAX_MATRIX_ENTRY) - Mat3::from_mat4(turned) * (1.0 / MAX_MATRIX_ENTRY),
        );
        assert!(error < 1e-5, "relative error {error}");
        assert!(
            s.rotation.abs_diff_eq(Quat::from_rotation_y(0.7), 1e-5),
            "{s:?}"
        );
        assert!(split_rigid(big * 10.0).was_non_finite);
    }

    #[test]
    fn degenerate_inputs_stay_finite() {
        for m in [
            Mat4::ZERO,
            Mat4::from_scale(Vec3::new(0.0, 1.0, 1.0)),
            Mat4::from_scale(Vec3::new(0.0, 0.0, 2.0)),
            Mat4::from_scale(Vec3::splat(1e-30)),
            Mat4::from_scale(Vec3::splat(1e30)),
        ] {
            let s = split_rigid(m);
            assert!(s.rotation.is_finite() && s.scale_shear.is_finite(), "{m}");
            assert!(s.rotation.is_normalized());
            check_exact(m, &s);
        }
        let mut bad = Mat4::IDENTITY;
        bad.x_axis.x = f32::NAN;
        let s = split_rigid(bad);
        assert!(s.was_non_finite);
        assert_eq!(s.rotation, Quat::IDENTITY);
        bad.x_axis.x = f32::INFINITY;
        assert!(split_rigid(bad).was_non_finite);
    }
}
