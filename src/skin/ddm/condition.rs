//! Conditioning of Direct Delta Mush: vertices whose smoothed neighbourhood is flat or turned
//! inside out at bind get an isotropic term, so the rotation fit has three axes to go by.
//!
//! At bind every skinning matrix is the identity and the fitted matrix `A_i` is the smoothed,
//! weighted covariance of the vertex's neighbourhood. The implicit smoothing has negative
//! weights wherever the cotangent Laplacian does (obtuse triangles), so on thin or flat parts
//! (finger tips, ear rims, boundaries) that covariance can lose an axis or get a negative
//! eigenvalue: libigl's `U V^T` then mirrors the vertex, at bind already. Adding `e I`, shared
//! by the vertex's joints in proportion to their smoothed weights, lifts the smallest
//! eigenvalue to [`MIN_CONDITION`] of the largest; the vertices already past it are left
//! exactly as they were.

use glam::{DMat3, DVec3};

use super::apply::symmetric_eigen;

/// The smallest eigenvalue of a vertex's bind covariance, as a share of its largest, that the
/// vertex keeps as it is.
pub const MIN_CONDITION: f64 = 1e-2;

/// The fitted matrix at bind of a vertex whose pairs sum to `q` (upper triangle, about the
/// vertex): `Q3 / s - (q / s)(p / s)^T`, `s` the corner; `None` without weight.
fn bind_covariance(q: &[f64; 10]) -> Option<DMat3> {
    let s = q[9];
    if !(s.is_finite() && s.abs() > f64::EPSILON) {
        return None;
    }
    let col = DVec3::new(q[3], q[6], q[8]) / s;
    let q3 = DMat3::from_cols(
        DVec3::new(q[0], q[1], q[2]),
        DVec3::new(q[1], q[4], q[5]),
        DVec3::new(q[2], q[5], q[7]),
    ) * (1.0 / s);
    Some(q3 - DMat3::from_cols(col * col.x, col * col.y, col * col.z))
}

/// Lifts the bind covariance of a vertex with pairs `omega` and smoothed weights `w` to
/// [`MIN_CONDITION`]; whether it had to.
pub(super) fn condition(omega: &mut [[f64; 10]], w: &[f64]) -> bool {
    let mut q = [0.0; 10];
    for o in omega.iter() {
        for (t, v) in q.iter_mut().zip(o) {
            *t += v;
        }
    }
    let Some(a) = bind_covariance(&q) else {
        return false;
    };
    let (values, _) = symmetric_eigen(a);
    let largest = values.x.max(values.z.abs());
    if !largest.is_finite() || values.z >= MIN_CONDITION * largest {
        return false;
    }
    let w_sum: f64 = w.iter().sum();
    if !(w_sum.is_finite() && w_sum.abs() > f64::EPSILON) {
        return false;
    }
    // `e I` in the normalised matrix is `e s / w_sum` per unit of smoothed weight.
    let e = (MIN_CONDITION * largest - values.z) * q[9] / w_sum;
    for (o, wj) in omega.iter_mut().zip(w) {
        for k in [0, 4, 7] {
            o[k] += e * wj;
        }
    }
    true
}
