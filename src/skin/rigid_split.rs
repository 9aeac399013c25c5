//! The rigid/scale split of a skinning matrix, with a fast path for matrices that are already rigid.
//!
//! Most skinning matrices are rotations plus translations, up to float rounding.
//! For those, the polar iteration of [`split_rigid`] (several 3x3 inverses) is
//! replaced by a test (A^T A = I within 1e-4, det A > 0) and one Newton-Schulz
//! step, which lands on the same polar factor to second order in the deviation.
//! Whether the joint then counts as rigid is the tighter `dq::RIGID_TOLERANCE`.

use glam::{Mat3, Mat3A, Mat4, Quat, Vec4};

use crate::dq::{MAX_MATRIX_ENTRY, RigidSplit, gram_and_det, is_rigid_gram, split_rigid};

/// Largest |A^T A - I| entry for which A takes the fast path.
///
/// One Newton-Schulz step leaves an error of about |A^T A - I|^2, so below 1e-4 the
/// result matches the iterated polar factor to float precision (1e-8). This is
/// wider than `dq::RIGID_TOLERANCE`: a near-rigid joint (scale 1 + 4e-5) takes this
/// path too, and keeps its S for the two-phase blend.
const ORTHONORMAL_TOLERANCE: f32 = 1e-4;

/// Splits `m` into rotation, translation and scale/shear exactly as [`split_rigid`] does, faster when rigid.
#[must_use]
pub(crate) fn split(m: Mat4) -> RigidSplit {
    split_rotation(m).unwrap_or_else(|| split_rigid(m))
}

/// The split of a finite matrix whose 3x3 part is a proper rotation up to rounding; `None` otherwise.
fn split_rotation(m: Mat4) -> Option<RigidSplit> {
    // Finite and within MAX_MATRIX_ENTRY (NaN fails the comparison); split_rigid handles the rest.
    let limit = Vec4::splat(MAX_MATRIX_ENTRY);
    let in_range = m.x_axis.abs().cmple(limit)
        & m.y_axis.abs().cmple(limit)
        & m.z_axis.abs().cmple(limit)
        & m.w_axis.abs().cmple(limit);
    if !in_range.all() {
        return None;
    }
    let (ata, det) = gram_and_det(m);
    if !ata.abs_diff_eq(Mat3A::IDENTITY, ORTHONORMAL_TOLERANCE) || det <= 0.0 {
        return None;
    }
    let a = Mat3A::from_mat4(m);
    // Newton-Schulz: Q = A (3I - A^T A) / 2 converges quadratically to the polar factor.
    let q = a * (Mat3A::IDENTITY * 1.5 - ata * 0.5);
    let rotation = Quat::from_mat3a(&q).normalize();
    // S = R^T A is the symmetric square root of A^T A: (I + A^T A) / 2 to the same second order.
    let scale_shear = Mat3::from((Mat3A::IDENTITY + ata) * 0.5);
    Some(RigidSplit {
        rotation,
        translation: m.w_axis.truncate(),
        scale_shear,
        is_rigid: is_rigid_gram(ata, det),
        was_non_finite: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    /// Rigid, nearly rigid, scaled, mirrored, singular and non-finite matrices.
    fn cases() -> Vec<Mat4> {
        let mut out = Vec::new();
        for k in 0..64 {
            let f = k as f32;
            let axis =
                Vec3::new((f * 0.7).sin(), (f * 1.3).cos(), (f * 0.37).sin() + 0.1).normalize();
            let rot = Quat::from_axis_angle(axis, f * 0.41 - 12.0);
            let t = Vec3::new(f, -2.0 * f, 0.5) * 0.3;
            let rigid = Mat4::from_rotation_translation(rot, t);
            out.push(rigid);
            // A deep hierarchy's rounding: products of many rigid matrices.
            out.push((0..30).fold(Mat4::IDENTITY, |acc, _| acc * rigid));
            out.push(rigid * Mat4::from_scale(Vec3::splat(1.0 + 3e-5)));
            out.push(rigid * Mat4::from_scale(Vec3::new(1.2, 0.9, 1.0)));
            out.push(rigid * Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)));
        }
        out.push(Mat4::ZERO);
        out.push(Mat4::from_scale(Vec3::new(1.0, 0.0, 1.0)));
        let mut nan = Mat4::IDENTITY;
        nan.w_axis.x = f32::NAN;
        out.push(nan);
        let mut huge = Mat4::IDENTITY;
        huge.w_axis.y = 1e37;
        out.push(huge);
        out
    }

    #[test]
    fn fast_split_matches_the_polar_split() {
        let mut fast_taken = 0;
        for m in cases() {
            let slow = split_rigid(m);
            let fast = split(m);
            fast_taken += usize::from(split_rotation(m).is_some());
            assert_eq!(fast.is_rigid, slow.is_rigid, "{m}");
            assert_eq!(fast.was_non_finite, slow.was_non_finite, "{m}");
            // The same rotation (q and -q are one rotation), translation and scale/shear.
            let same_sign = if fast.rotation.dot(slow.rotation) < 0.0 {
                -fast.rotation
            } else {
                fast.rotation
            };
            assert!(
                same_sign.abs_diff_eq(slow.rotation, 2e-6),
                "{m}: {fast:?} vs {slow:?}"
            );
            assert_eq!(fast.translation, slow.translation);
            assert!(fast.scale_shear.abs_diff_eq(slow.scale_shear, 2e-6), "{m}");
        }
        // The rigid ones (two of every five cases, plus the slightly scaled one) take the fast path.
        assert!(fast_taken >= 64 * 3, "fast path taken {fast_taken} times");
    }

    /// `m` with every 3x3 entry moved by up to `ulps` units in the last place (a fixed pattern).
    fn nudged(m: Mat4, ulps: i32) -> Mat4 {
        let mut cols = m.to_cols_array();
        for (i, x) in cols.iter_mut().enumerate().take(11) {
            if i % 4 != 3 && *x != 0.0 {
                let step = (i as i32 * 7) % (2 * ulps + 1) - ulps;
                *x = f32::from_bits(x.to_bits().wrapping_add_signed(step));
            }
        }
        Mat4::from_cols_array(&cols)
    }

    #[test]
    fn rounding_noise_is_rigid_and_stored_scale_is_not() {
        for k in 0..32 {
            let f = k as f32;
            let rot = Quat::from_euler(glam::EulerRot::YXZ, f * 0.37, f * -0.61, f * 1.7 + 0.2);
            let rigid = Mat4::from_rotation_translation(rot, Vec3::new(f, 25.0, -3.0 * f));
            // A 30-deep hierarchy of f32 products (each level its own rotation, as in a
            // rig), and entries off by 4 ulps: rounding only.
            let chain = (0..30).fold(Mat4::IDENTITY, |acc, level| {
                let l = level as f32;
                let axis = Vec3::new((l * 1.1 + f).sin(), (l * 0.3).cos(), 0.4).normalize();
                acc * Mat4::from_rotation_translation(Quat::from_axis_angle(axis, l - f), Vec3::Y)
            });
            for m in [rigid, chain, nudged(rigid, 4)] {
                assert!(split(m).is_rigid && split_rigid(m).is_rigid, "{m}");
            }
            // Stored scales just above rounding: 1 + 8.9e-6 (Adventurer's leg), 1 + 4e-5.
            for (scale, rigid_expected) in [
                (1.0 + 2e-6, true),
                (1.0 + 8.9e-6, false),
                (1.0 + 4e-5, false),
            ] {
                let m = rigid * Mat4::from_scale(Vec3::new(1.0, scale, 1.0));
                let (fast, slow) = (split(m), split_rigid(m));
                assert_eq!(fast.is_rigid, rigid_expected, "{scale}: {m}");
                assert_eq!(slow.is_rigid, rigid_expected, "{scale}: {m}");
                // S keeps the scale along the scaled axis, to f32 rounding.
                let stretch = fast.scale_shear.y_axis.y - 1.0;
                assert!(
                    (stretch - (scale - 1.0)).abs() < 3e-7,
                    "{scale}: S {}",
                    fast.scale_shear
                );
            }
        }
    }

    #[test]
    fn mirrors_and_scales_take_the_polar_path() {
        let mirror = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        assert!(split_rotation(mirror).is_none());
        assert!(split_rotation(Mat4::from_scale(Vec3::splat(1.01))).is_none());
        assert!(split_rotation(Mat4::from_rotation_z(0.3)).is_some());
    }
}
