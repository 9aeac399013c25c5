//! Dual quaternion linear blending (DLB), Kavan et al. 2008.

use glam::Quat;

use super::DualQuat;

/// Blends weighted dual quaternions into one unit dual quaternion (DLB).
///
/// The first item is the pivot: every other item whose real part points away
/// from the pivot's (negative dot product) is negated before it is added.
/// q and -q are the same rigid motion, but summing them with mixed signs takes
/// the long way round the rotation sphere and collapses the mesh. dqview sorts
/// influences heaviest first at load, so the pivot is the heaviest influence.
/// The sum is divided by the length of its real part and its dual part made
/// orthogonal to the real part. With no items, or a sum with no rotation left,
/// the pivot itself (normalised) or the identity is returned, never NaN.
#[must_use]
pub fn blend(items: impl IntoIterator<Item = (DualQuat, f32)>) -> DualQuat {
    let mut iter = items.into_iter();
    let Some((pivot, w0)) = iter.next() else {
        return DualQuat::IDENTITY;
    };
    let mut real = pivot.real * w0;
    let mut dual = pivot.dual * w0;
    for (q, w) in iter {
        let w = if q.real.dot(pivot.real) < 0.0 { -w } else { w };
        real += q.real * w;
        dual += q.dual * w;
    }
    let len = real.length();
    if !(len.is_finite() && len > 1e-6 && dual.is_finite()) {
        return pivot.normalize();
    }
    DualQuat::from_parts(real, dual).normalize()
}

/// Blends weighted rotations with the same pivot sign rule as [`blend`], then normalises.
#[must_use]
pub fn blend_rotation(items: impl IntoIterator<Item = (Quat, f32)>) -> Quat {
    let mut iter = items.into_iter();
    let Some((pivot, w0)) = iter.next() else {
        return Quat::IDENTITY;
    };
    let mut sum = pivot * w0;
    for (q, w) in iter {
        let w = if q.dot(pivot) < 0.0 { -w } else { w };
        sum += q * w;
    }
    let len = sum.length();
    if !(len.is_finite() && len > 1e-6) {
        let p = pivot.length();
        return if p.is_finite() && p > 1e-6 {
            pivot / p
        } else {
            Quat::IDENTITY
        };
    }
    sum / len
}

#[cfg(test)]
mod tests {
    use super::super::QUAT_ZERO;
    use super::*;
    use glam::Vec3;

    #[test]
    fn antipodal_inputs_blend_like_aligned_ones() {
        let a = DualQuat::from_rotation_translation(Quat::from_rotation_y(0.3), Vec3::X);
        let b = DualQuat::from_rotation_translation(Quat::from_rotation_y(1.2), Vec3::Z);
        let neg_b = DualQuat::from_parts(-b.real, -b.dual);
        let x = blend([(a, 0.6), (b, 0.4)]);
        let y = blend([(a, 0.6), (neg_b, 0.4)]);
        assert!(x.abs_diff_eq(y, 1e-6), "{x:?} vs {y:?}");
    }

    #[test]
    fn half_way_between_rotations_is_half_angle() {
        let a = DualQuat::IDENTITY;
        let b = DualQuat::from_rotation(Quat::from_rotation_y(170f32.to_radians()));
        let m = blend([(a, 0.5), (b, 0.5)]);
        let p = m.transform_point3(Vec3::X);
        // 85 degrees about +Y takes +X towards -Z.
        let angle = 85f32.to_radians();
        let expected = Vec3::new(angle.cos(), 0.0, -angle.sin());
        assert!(p.abs_diff_eq(expected, 1e-5), "{p}");
    }

    #[test]
    fn empty_and_degenerate_blends_are_finite() {
        assert_eq!(blend([]), DualQuat::IDENTITY);
        let zero = blend([(DualQuat::ZERO, 1.0)]);
        assert!(zero.is_finite());
        let nan = DualQuat::from_parts(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0), QUAT_ZERO);
        assert!(blend([(nan, 1.0)]).is_finite());
        assert_eq!(blend_rotation([]), Quat::IDENTITY);
        assert!(blend_rotation([(QUAT_ZERO, 1.0)]).is_finite());
    }
}
