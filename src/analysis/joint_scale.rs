//! What a joint's skinning matrix carries besides a rotation and a translation.

use glam::{Mat3, Mat4};

use crate::dq::{RIGID_TOLERANCE, split_rigid};

/// What kind of scale a skinning matrix carries, worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScaleKind {
    /// Negative determinant: a mirror.
    Mirrored,
    /// Axes scaled differently, or shear.
    NonUniform,
    /// The same scale on every axis, away from 1.
    Uniform,
    /// Rigid but for rounding beyond DQS's rigid tolerance: DQS takes its two-phase path.
    NearRigid,
}

impl ScaleKind {
    /// Words for a report.
    #[must_use]
    pub fn text(self) -> &'static str {
        match self {
            Self::Mirrored => "mirrored (negative determinant)",
            Self::NonUniform => "non-uniform scale",
            Self::Uniform => "uniform scale",
            Self::NearRigid => "near-rigid (within 0.1% of rigid, past the rigid tolerance)",
        }
    }
}

/// The kind of scale in skinning matrix `m`; `None` when rigid to rounding or not finite.
///
/// With A the upper 3x3 and k = cbrt(det A): mirrored when det A < 0; non-uniform when the
/// scale/shear S of A's polar split, over k, is off I by more than `tolerance` (a zero axis
/// counts); uniform when k is off 1 by more than `tolerance`; near-rigid when A^T A is off I
/// by more than [`RIGID_TOLERANCE`].
#[must_use]
pub fn classify_scale(m: Mat4, tolerance: f32) -> Option<ScaleKind> {
    if !m.is_finite() {
        return None;
    }
    let a = Mat3::from_mat4(m);
    let det = a.determinant();
    if det < 0.0 {
        return Some(ScaleKind::Mirrored);
    }
    let k = det.cbrt();
    if k.is_nan() || k <= 1e-12 {
        return Some(ScaleKind::NonUniform);
    }
    // S^2 = A^T A, so with k = cbrt(det A), A^T A / k^2 - I = (S/k - I)(S/k + I), about
    // 2 (S/k - I): a Gram matrix within `tolerance` of I leaves S/k within about half of it.
    // Most joints stop here, without the polar iteration.
    let gram = a.transpose() * a;
    if max_off_identity(gram * (1.0 / (k * k))) > tolerance {
        let split = split_rigid(m);
        if split.was_non_finite {
            return None;
        }
        let s = split.scale_shear;
        let ks = s.determinant().abs().cbrt();
        if max_off_identity(s * (1.0 / ks)) > tolerance {
            return Some(ScaleKind::NonUniform);
        }
    }
    if (k - 1.0).abs() > tolerance {
        return Some(ScaleKind::Uniform);
    }
    (max_off_identity(gram) > RIGID_TOLERANCE).then_some(ScaleKind::NearRigid)
}

/// The largest |entry| of `m - I`.
fn max_off_identity(m: Mat3) -> f32 {
    (m - Mat3::IDENTITY)
        .to_cols_array()
        .iter()
        .fold(0.0f32, |a, x| a.max(x.abs()))
}
