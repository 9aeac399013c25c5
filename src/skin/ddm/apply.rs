//! Direct Delta Mush at run time: `Q_i = sum_j M_j Omega_ij`, the rigid transform fitted from
//! `Q_i`, applied to the rest vertex.

use glam::{DMat3, DMat4, DQuat, DVec3, DVec4, Mat3, Mat4};

use super::precompute::Sym4;
use crate::skin::JointPalette;

/// Jacobi sweeps the eigen decomposition may take; each squares the off-diagonal's size.
const JACOBI_SWEEPS: usize = 16;

/// The eigenvalues of symmetric `s`, decreasing, and their eigenvectors as columns.
pub(super) fn symmetric_eigen(s: DMat3) -> (DVec3, DMat3) {
    let mut a = s.to_cols_array_2d();
    let mut v = DMat3::IDENTITY.to_cols_array_2d();
    for _ in 0..JACOBI_SWEEPS {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let scale = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        if off <= 1e-30 * scale.max(f64::MIN_POSITIVE) {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            // The rotation in the (p, q) plane that zeroes a[p][q].
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let sn = t * c;
            // Rows p and q of `a` (entry p and q of each column), then its columns p and q.
            for col in &mut a {
                (col[p], col[q]) = (c * col[p] - sn * col[q], sn * col[p] + c * col[q]);
            }
            let (ap, aq) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * ap[k] - sn * aq[k]);
            a[q] = std::array::from_fn(|k| sn * ap[k] + c * aq[k]);
            let (vp, vq) = (v[p], v[q]);
            v[p] = std::array::from_fn(|k| c * vp[k] - sn * vq[k]);
            v[q] = std::array::from_fn(|k| sn * vp[k] + c * vq[k]);
        }
    }
    // `a` and `v` are `[column][row]`, glam's layout: `v`'s columns, sorted by eigenvalue.
    let cols = DMat3::from_cols_array_2d(&v);
    let mut order = [0, 1, 2];
    order.sort_by(|&x, &y| a[y][y].total_cmp(&a[x][x]));
    let values = DVec3::new(
        a[order[0]][order[0]],
        a[order[1]][order[1]],
        a[order[2]][order[2]],
    );
    let vectors = DMat3::from_cols(cols.col(order[0]), cols.col(order[1]), cols.col(order[2]));
    (values, vectors)
}

/// One-sided Jacobi sweeps of the polar fit; each squares the columns' remaining overlap.
const SVD_SWEEPS: usize = 16;

/// A fit whose second singular value is below this share of the largest has no rotation: the
/// smoothed neighbourhood has collapsed onto a line (opposite twists of about 180 degrees),
/// and the rotation about that line would be rounding noise. (At bind the conditioning keeps
/// every share at 1e-2 or more.)
pub const MIN_SECOND_SINGULAR: f64 = 1e-3;

/// Columns whose overlap is below this share of their lengths' product count as orthogonal.
const SVD_ORTHOGONAL: f64 = 1e-15;

/// `a`'s columns made orthogonal by plane rotations from the right (Hestenes' one-sided
/// Jacobi): `(W, V)` with `a V = W`, `V` orthogonal, `W`'s columns `u_i sigma_i`.
///
/// Working on `a` itself, not `a^T a`, keeps the small singular direction's accuracy at
/// `eps sigma_1 / sigma_2` rather than its square, which f32 (the shaders) cannot spare.
fn one_sided_jacobi(a: DMat3) -> (DMat3, DMat3) {
    let mut w = a.to_cols_array_2d().map(DVec3::from_array);
    let mut v = DMat3::IDENTITY.to_cols_array_2d().map(DVec3::from_array);
    for _ in 0..SVD_SWEEPS {
        let mut rotated = false;
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            let alpha = w[p].length_squared();
            let beta = w[q].length_squared();
            let gamma = w[p].dot(w[q]);
            if gamma.abs() <= SVD_ORTHOGONAL * (alpha * beta).sqrt() {
                continue;
            }
            rotated = true;
            let zeta = (beta - alpha) / (2.0 * gamma);
            let t = zeta.signum() / (zeta.abs() + (zeta * zeta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = c * t;
            (w[p], w[q]) = (c * w[p] - s * w[q], s * w[p] + c * w[q]);
            (v[p], v[q]) = (c * v[p] - s * v[q], s * v[p] + c * v[q]);
        }
        if !rotated {
            break;
        }
    }
    (
        DMat3::from_cols(w[0], w[1], w[2]),
        DMat3::from_cols(v[0], v[1], v[2]),
    )
}

/// The indices of the largest and the second largest of `x` (ties: the earlier index first).
fn two_largest(x: [f64; 3]) -> (usize, usize) {
    let mut first = 0;
    for k in 1..3 {
        if x[k] > x[first] {
            first = k;
        }
    }
    let mut second = usize::from(first == 0);
    for k in 0..3 {
        if k != first && x[k] > x[second] {
            second = k;
        }
    }
    (first, second)
}

/// The rotation nearest to `a`: `U diag(1, 1, det(U V^T)) V^T` from its SVD (Kabsch), the
/// polar decomposition's orthogonal factor wherever `a` is not singular and does not mirror.
/// `None` when `a` has rank below 2 (its second singular value under [`MIN_SECOND_SINGULAR`] of
/// its first) or is not finite.
///
/// libigl takes `U V^T` unconditioned: where the smoothed neighbourhood of a vertex is nearly
/// flat and the smoothing's negative weights tip it, `det(a) < 0` and `U V^T` mirrors the
/// vertex through its neighbourhood, the explosions of libigl issue #2346. A proper rotation
/// there leaves every other vertex's result as it was.
#[must_use]
pub fn polar_rotation(a: DMat3) -> Option<DMat3> {
    if !a.is_finite() {
        return None;
    }
    let (w, v) = one_sided_jacobi(a);
    let lengths = [w.x_axis.length(), w.y_axis.length(), w.z_axis.length()];
    let (first, second) = two_largest(lengths);
    if lengths[second] <= MIN_SECOND_SINGULAR * lengths[first] {
        return None;
    }
    let u1 = w.col(first).try_normalize()?;
    let w2 = w.col(second);
    let u2 = (w2 - u1 * u1.dot(w2)).try_normalize()?;
    let (v1, v2) = (v.col(first), v.col(second));
    // Rank 2 is enough: both third axes follow as cross products, and the result never mirrors.
    let r = outer(u1, v1) + outer(u2, v2) + outer(u1.cross(u2), v1.cross(v2));
    r.is_finite().then_some(r)
}

/// The outer product `a b^T`.
fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// `m` (a symmetric 4x4 from its upper triangle, libigl's order) as a matrix.
pub(super) fn symmetric(m: &[f64; 10]) -> DMat4 {
    DMat4::from_cols(
        DVec4::new(m[0], m[1], m[2], m[3]),
        DVec4::new(m[1], m[4], m[5], m[6]),
        DVec4::new(m[2], m[5], m[7], m[8]),
        DVec4::new(m[3], m[6], m[8], m[9]),
    )
}

/// What the rotation is fitted from in `q` (the sum of `M_j Omega_ij`): `Q3 - q p^T` of `q`
/// normalised by its corner, with `q` (its right column) and `p` (its bottom row); `None`
/// without weight.
pub(super) fn fit_parts(q: DMat4) -> Option<(DMat3, DVec3, DVec3)> {
    let scale = q.w_axis.w;
    if !(scale.is_finite() && scale.abs() > f64::EPSILON) {
        return None;
    }
    let q = q * (1.0 / scale);
    let t_col = q.w_axis.truncate();
    let p_row = DVec3::new(q.x_axis.w, q.y_axis.w, q.z_axis.w);
    // The outer product q p^T's columns are q scaled by p's components.
    let outer = DMat3::from_cols(t_col * p_row.x, t_col * p_row.y, t_col * p_row.z);
    Some((DMat3::from_mat4(q) - outer, t_col, p_row))
}

/// The rigid transform Direct Delta Mush fits for one vertex: the vertex moves to
/// `rotation (v - rest) + translation`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DdmFit {
    /// The fitted rotation.
    pub rotation: DMat3,
    /// Where the rest position goes.
    pub translation: DVec3,
    /// Where the centre of the vertex's smoothed rest neighbourhood lies from its rest
    /// position, in bind space (`p` of the fit, `Q`'s bottom row).
    pub smoothed_offset: DVec3,
    /// Whether the fit was corrected to a proper rotation (libigl would have mirrored).
    pub corrected: bool,
}

/// Direct Delta Mush's fit for the vertex at rest position `rest` whose pairs are `joints` and
/// `omega` (stored about `rest`), at skinning matrices `matrices`; `None` when `Q_i` has no
/// rotation to fit (rank below 2, or no weight), and the caller falls back.
#[must_use]
pub fn skin_vertex_ddm(
    matrices: &[Mat4],
    rest: DVec3,
    joints: &[u16],
    omega: &[Sym4],
) -> Option<DdmFit> {
    let matrix = |j: u16| {
        matrices
            .get(usize::from(j))
            .copied()
            .unwrap_or(Mat4::IDENTITY)
    };
    fit_pairs(rest, joints.iter().map(|&j| matrix(j)).zip(omega))
}

/// Like [`skin_vertex_ddm`] at `palette`, where some joint scales and the vertex's joints'
/// scale/shear parts blend to `scale_shear` (Enhanced DDM's case). A scale in `Q` tips the fitted
/// rotation, so the rotation is fitted between the rest neighbourhood scaled by `scale_shear`
/// and each joint's rotation of it, moved to where the joint's full matrix puts `rest`; the
/// smoothed centre still moves with the full matrices. A lone joint's fit is its rotation
/// exactly; with every joint's scale the same uniform one it is the plain fit.
#[must_use]
pub fn skin_vertex_ddm_scaled(
    palette: &JointPalette,
    scale_shear: Mat3,
    rest: DVec3,
    joints: &[u16],
    omega: &[Sym4],
) -> Option<DdmFit> {
    let s = scale_shear.as_dmat3();
    let (mut q, mut q_turn) = (DMat4::ZERO, DMat4::ZERO);
    // The rotation's sum takes its translations from the first pair's: the fit is the same
    // from any origin, and a near one keeps the GPU's f32 from cancelling.
    let mut anchor = None;
    for (&j, o) in joints.iter().zip(omega) {
        let j = usize::from(j);
        let m = palette.matrices.get(j).copied().unwrap_or(Mat4::IDENTITY);
        let o = symmetric(&o.map(f64::from));
        let (m, at_rest) = at_origin(m, rest);
        q += m * o;
        let anchor = *anchor.get_or_insert(at_rest.truncate());
        let turn = palette
            .dual_quats
            .get(j)
            .map_or(DQuat::IDENTITY, |d| d.real.as_dquat());
        let mut n = DMat4::from_mat3(DMat3::from_quat(turn) * s);
        n.w_axis = (at_rest.truncate() - anchor).extend(1.0);
        q_turn += n * o;
    }
    let (_, t_col, p_row) = fit_parts(q)?;
    let (a, _, _) = fit_parts(q_turn)?;
    fit_of(a * s.transpose(), t_col, p_row)
}

/// `m` with the origin moved to `rest` (`M C^-1`, `C` the translation by `-rest`), and where it
/// puts `rest` (its last column).
fn at_origin(m: Mat4, rest: DVec3) -> (DMat4, DVec4) {
    let mut m = m.as_dmat4();
    m.w_axis = m * rest.extend(1.0);
    (m, m.w_axis)
}

/// The fit from each pair's joint matrix and `Omega`.
fn fit_pairs<'a>(rest: DVec3, pairs: impl Iterator<Item = (Mat4, &'a Sym4)>) -> Option<DdmFit> {
    let mut q = DMat4::ZERO;
    for (m, o) in pairs {
        q += at_origin(m, rest).0 * symmetric(&o.map(f64::from));
    }
    let (a, t_col, p_row) = fit_parts(q)?;
    fit_of(a, t_col, p_row)
}

/// The fit whose rotation is `a`'s nearest, moving the smoothed centre `p_row` to `t_col`.
fn fit_of(a: DMat3, t_col: DVec3, p_row: DVec3) -> Option<DdmFit> {
    let rotation = polar_rotation(a)?;
    Some(DdmFit {
        rotation,
        translation: t_col - rotation * p_row,
        smoothed_offset: p_row,
        corrected: a.determinant() <= 0.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    #[test]
    fn the_polar_rotation_of_a_rotated_stretch_is_the_rotation() {
        let r = DMat3::from_quat(DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0));
        // A symmetric positive definite stretch after the rotation: A = R S.
        let s = DMat3::from_cols(
            DVec3::new(2.0, 0.3, 0.0),
            DVec3::new(0.3, 0.5, 0.1),
            DVec3::new(0.0, 0.1, 1.5),
        );
        let found = polar_rotation(r * s).expect("a rotation");
        let off = (found - r)
            .to_cols_array()
            .iter()
            .fold(0.0_f64, |a, b| a.max(b.abs()));
        assert!(off < 1e-12, "{found} vs {r}");
        // A mirror gets the nearest proper rotation, never a mirror; rank 1 gets none.
        let mirrored = polar_rotation(DMat3::from_diagonal(DVec3::new(3.0, 2.0, -1.0))).unwrap();
        assert!((mirrored.determinant() - 1.0).abs() < 1e-12);
        assert!(mirrored.abs_diff_eq(DMat3::IDENTITY, 1e-12), "{mirrored}");
        let flat = DMat3::from_diagonal(DVec3::new(3.0, 2.0, 0.0));
        assert!(polar_rotation(r * flat).unwrap().abs_diff_eq(r, 1e-12));
        assert!(polar_rotation(DMat3::from_diagonal(DVec3::new(1.0, 0.0, 0.0))).is_none());
        assert!(polar_rotation(DMat3::ZERO).is_none());
    }
}
