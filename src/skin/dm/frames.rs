//! The tangent frame of one face corner, as Blender's Corrective Smooth builds it.

use glam::{DMat3, DVec3};

/// Two edge directions closer than this in every component make no frame (Blender's
/// `FLT_EPSILON * 10`).
const SAME_DIRECTION: f64 = 10.0 * f32::EPSILON as f64;

/// An orthonormal frame at a face corner and the corner's share of its vertex.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CornerFrame {
    /// Columns: the bisector of the two edge directions, its in-plane normal, the face normal.
    pub basis: DMat3,
    /// `acos` of the dot of the two edge directions: the supplement of the corner's angle.
    pub weight: f64,
}

/// The frame at corner `curr` of a face whose corners run `prev`, `curr`, `next`; `None` for
/// a corner whose edges are parallel (a face of no area there), which has no share.
///
/// Both directions point along the face's order (from `prev` to `curr`, reversed, and from
/// `next` to `curr`), as Blender's `calc_tangent_loop` takes them, so the weight is
/// `pi - angle`. Where the directions are opposite the frame is all zero, as Blender's
/// normalisation of a zero vector leaves it, and the corner adds nothing but its weight.
#[must_use]
pub fn corner_frame(prev: DVec3, curr: DVec3, next: DVec3) -> Option<CornerFrame> {
    let dir_prev = (prev - curr).normalize_or_zero();
    let dir_next = (curr - next).normalize_or_zero();
    if (dir_prev - dir_next).abs().max_element() <= SAME_DIRECTION {
        return None;
    }
    let z = dir_prev.cross(dir_next).normalize_or_zero();
    let x = (dir_prev + dir_next).normalize_or_zero();
    let y = z.cross(x);
    Some(CornerFrame {
        basis: DMat3::from_cols(x, y, z),
        weight: dir_next.dot(dir_prev).clamp(-1.0, 1.0).acos().abs(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_right_angle_corner_has_an_orthonormal_frame_and_weight_half_pi() {
        let f = corner_frame(DVec3::X, DVec3::ZERO, DVec3::Y).expect("a frame");
        // dir_prev = +x, dir_next = -y: their dot is 0, so the weight is pi / 2.
        assert!((f.weight - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        let b = f.basis;
        assert!((b.transpose() * b - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, 1e-12));
        // The face normal is dir_prev x dir_next = x cross -y = -z.
        assert!(b.z_axis.abs_diff_eq(-DVec3::Z, 1e-12));
        assert!(
            b.x_axis
                .abs_diff_eq(DVec3::new(1.0, -1.0, 0.0).normalize(), 1e-12)
        );
    }

    #[test]
    fn a_corner_on_a_straight_line_has_no_frame() {
        assert!(corner_frame(DVec3::X, DVec3::ZERO, -DVec3::X).is_none());
    }

    #[test]
    fn a_needle_corner_weighs_pi_with_a_zero_frame() {
        let f = corner_frame(DVec3::X, DVec3::ZERO, 2.0 * DVec3::X).expect("a frame");
        assert!((f.weight - std::f64::consts::PI).abs() < 1e-6);
        assert_eq!(f.basis * DVec3::ONE, DVec3::ZERO);
    }

    #[test]
    fn the_frame_turns_with_the_corner() {
        let (a, b, c) = (
            DVec3::new(1.0, 0.2, 0.0),
            DVec3::ZERO,
            DVec3::new(0.1, 1.0, 0.3),
        );
        let r = DMat3::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
        let f = corner_frame(a, b, c).expect("a frame");
        let g = corner_frame(r * a, r * b, r * c).expect("a frame");
        assert!((r * f.basis).abs_diff_eq(g.basis, 1e-12));
        assert!((f.weight - g.weight).abs() < 1e-12);
    }
}
