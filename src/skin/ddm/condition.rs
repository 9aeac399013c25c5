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

use super::apply::{fit_parts, symmetric, symmetric_eigen};

/// The smallest eigenvalue of a vertex's bind covariance, as a share of its largest, that the
/// vertex keeps as it is.
pub const MIN_CONDITION: f64 = 1e-2;

/// Lifts the bind covariance of a vertex with pairs `omega` and smoothed weights `w` to
/// [`MIN_CONDITION`]; whether it had to.
pub(super) fn condition(omega: &mut [[f64; 10]], w: &[f64]) -> bool {
    let mut q = [0.0; 10];
    for o in omega.iter() {
        for (t, v) in q.iter_mut().zip(o) {
            *t += v;
        }
    }
    // At bind every skinning matrix is the identity: Q is the pairs' sum.
    let Some((a, _, _)) = fit_parts(symmetric(&q)) else {
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
