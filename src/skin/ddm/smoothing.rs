//! The implicit Laplacian smoothing of Direct Delta Mush: the system libigl 2.5.1 solves,
//! factored once and applied `p` times.
//!
//! libigl builds the cotangent Laplacian `L` (positive diagonal `D`), `Lbar = L D^-1`, and
//! hands `(I + step Lbar)^T` to Eigen's `SimplicialLDLT`, which reads only the lower triangle
//! and takes the matrix as symmetric. The system it solves is therefore
//! `S = I + step K` with `K_ik = L_ik / D_mm`, `m = max(i, k)`: that is the one built here,
//! so dqview's result equals libigl's where libigl's is stable.

use std::collections::HashMap;

use faer::Mat;
use faer::Side;
use faer::linalg::solvers::Solve;
use faer::sparse::linalg::solvers::{Llt, Lu};
use faer::sparse::{SparseColMat, Triplet};
use thiserror::Error;

use super::WeldedSurface;

/// Why a smoothing system could not be factored.
#[derive(Debug, Error, PartialEq)]
pub enum SmoothingError {
    /// The sparse factorisation failed (a singular system).
    #[error("the smoothing system (step {step}) cannot be factored: {reason}")]
    Factor {
        /// The smoothing step.
        step: f64,
        /// The solver's message.
        reason: String,
    },
    /// The precompute was cancelled.
    #[error("the Direct Delta Mush precompute was cancelled")]
    Cancelled,
}

/// Twice the area of a triangle with edge lengths `l`, by Kahan's formula as libigl's
/// `doublearea` computes it (0 for a degenerate or impossible triangle).
#[must_use]
pub(super) fn double_area(l: [f64; 3]) -> f64 {
    let mut s = l;
    s.sort_by(|a, b| b.total_cmp(a));
    let [a, b, c] = s;
    let arg = (a + (b + c)) * (c - (a - b)) * (c + (a - b)) * (a + (b - c));
    let area = 2.0 * 0.25 * arg.sqrt();
    if area.is_finite() { area } else { 0.0 }
}

/// The off-diagonal cotangent weights `(i, k, C_ik)` of `surface` (each pair once per
/// triangle side), as libigl's `cotmatrix` sums them.
fn cotangent_weights(surface: &WeldedSurface) -> HashMap<(u32, u32), f64> {
    let mut weights: HashMap<(u32, u32), f64> = HashMap::new();
    for t in &surface.triangles {
        let p = t.map(|v| surface.positions[v as usize]);
        // Edge e is opposite corner e: (1, 2), (2, 0), (0, 1).
        let sq = [
            p[1].distance_squared(p[2]),
            p[2].distance_squared(p[0]),
            p[0].distance_squared(p[1]),
        ];
        let dbl_a = double_area(sq.map(f64::sqrt));
        let c = [
            (sq[1] + sq[2] - sq[0]) / dbl_a / 4.0,
            (sq[2] + sq[0] - sq[1]) / dbl_a / 4.0,
            (sq[0] + sq[1] - sq[2]) / dbl_a / 4.0,
        ];
        for (e, (a, b)) in [(1, 2), (2, 0), (0, 1)].into_iter().enumerate() {
            let (i, k) = (t[a].min(t[b]), t[a].max(t[b]));
            *weights.entry((i, k)).or_insert(0.0) += c[e];
        }
    }
    weights
}

/// Which smoothing system: libigl's, or the one it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum System {
    /// `I + step K`, `K_ik = L_ik / D_mm`, `m = max(i, k)`: symmetric, what libigl solves.
    Libigl,
    /// `I + step D^-1 L`: each row's weights sum to 1, so smoothing keeps constants (LU, as it
    /// is not symmetric).
    KeepsConstants,
}

/// A factored smoothing system `S = I + step K`.
pub(super) struct Smoother {
    factor: Factor,
}

/// The factorisation: Cholesky when `S` is positive definite, else LU.
enum Factor {
    Llt(Llt<usize, f64>),
    Lu(Box<Lu<usize, f64>>),
}

impl Smoother {
    /// Builds and factors `system` of `surface` for `step` (libigl's lambda or kappa).
    pub fn new(surface: &WeldedSurface, step: f64, system: System) -> Result<Self, SmoothingError> {
        let n = surface.len();
        let weights = cotangent_weights(surface);
        // D: the Laplacian's diagonal, the sum of each vertex's weights.
        let mut diagonal = vec![0.0_f64; n];
        for (&(i, k), &c) in &weights {
            diagonal[i as usize] += c;
            diagonal[k as usize] += c;
        }
        let inverse = |m: usize| {
            if diagonal[m] != 0.0 {
                1.0 / diagonal[m]
            } else {
                0.0
            }
        };
        let mut triplets = Vec::with_capacity(n + 2 * weights.len());
        for (i, &d) in diagonal.iter().enumerate() {
            let k_ii = d * inverse(i);
            triplets.push(Triplet::new(i, i, 1.0 + step * k_ii));
        }
        for (&(i, k), &c) in &weights {
            let (i, k) = (i as usize, k as usize);
            // L_ik = -C_ik over a diagonal entry: libigl's takes the larger index's (the lower
            // triangle's row) for both; the constant-keeping system each row's own.
            let (ik, ki) = match system {
                System::Libigl => (inverse(k), inverse(k)),
                System::KeepsConstants => (inverse(i), inverse(k)),
            };
            triplets.push(Triplet::new(i, k, -step * c * ik));
            triplets.push(Triplet::new(k, i, -step * c * ki));
        }
        let fail = |reason: String| SmoothingError::Factor { step, reason };
        let matrix = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &triplets)
            .map_err(|e| fail(format!("{e:?}")))?;
        let cholesky = match system {
            System::Libigl => matrix.sp_cholesky(Side::Lower).ok(),
            System::KeepsConstants => None,
        };
        let factor = match cholesky {
            Some(llt) => Factor::Llt(llt),
            None => Factor::Lu(Box::new(
                matrix.sp_lu().map_err(|e| fail(format!("{e:?}")))?,
            )),
        };
        Ok(Self { factor })
    }

    /// Replaces each column `x` of `rhs` by `S^-p x`.
    pub fn apply(&self, rhs: &mut Mat<f64>, p: u32) {
        for _ in 0..p {
            match &self.factor {
                Factor::Llt(f) => f.solve_in_place(rhs.as_mut()),
                Factor::Lu(f) => f.solve_in_place(rhs.as_mut()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kahan_area_is_the_cross_product_area_and_zero_when_degenerate() {
        // A 3-4-5 right triangle: area 6, doubled 12.
        assert!((double_area([3.0, 4.0, 5.0]) - 12.0).abs() < 1e-12);
        assert_eq!(double_area([1.0, 2.0, 3.0]), 0.0);
        assert_eq!(double_area([1.0, 1.0, 3.0]), 0.0);
    }
}
