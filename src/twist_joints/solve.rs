//! One vertex's weights: a small convex QP, min ½ wᵀHw − gᵀw with w ≥ 0 and the weights of
//! each rest class summing to that class's original total, solved by a primal active set.
//!
//! Hand-written rather than through a QP crate: each problem has 2 to about 16 unknowns and
//! there are tens of thousands of them per fit, so a general solver's set-up (sparse matrices,
//! allocations, an interior-point or ADMM iteration to a tolerance) costs more than the solve,
//! and its answer is only feasible to that tolerance. The active set ends on an exact vertex of
//! the feasible set: weights that are zero are exactly zero (so the influence budget is
//! exact), and each class sums to its total up to one rounding, which keeps the rest pose.

/// Most active-set steps before the current (feasible) point is returned.
const MAX_STEPS: usize = 200;
/// A bound multiplier above this (relative to the gradient's size) counts as optimal.
const OPTIMAL_TOL: f64 = 1e-12;

/// A dense symmetric problem over `n` unknowns.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Problem {
    /// Unknowns.
    pub n: usize,
    /// The Hessian, row-major `n x n`, symmetric positive definite.
    pub h: Vec<f64>,
    /// The linear term.
    pub g: Vec<f64>,
    /// Each unknown's class.
    pub class: Vec<usize>,
    /// Each class's total (classes index this).
    pub total: Vec<f64>,
}

impl Problem {
    /// The minimiser from the feasible start `w0` (each class's members sum to its total,
    /// all non-negative; members of a class with a zero total stay zero).
    pub fn solve(&self, w0: &[f64]) -> Vec<f64> {
        let n = self.n;
        let mut w = w0.to_vec();
        let mut free: Vec<bool> = w.iter().map(|&x| x > 0.0).collect();
        let scale = self.g.iter().fold(1e-300, |m: f64, x| m.max(x.abs()));
        for _ in 0..MAX_STEPS {
            let Some((z, nu)) = self.on_free(&free) else {
                return w;
            };
            let blocked = (0..n).filter(|&j| free[j] && z[j] <= 0.0);
            let step = blocked
                .map(|j| (w[j] / (w[j] - z[j]), j))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((alpha, hit)) = step {
                let alpha = alpha.clamp(0.0, 1.0);
                for j in 0..n {
                    if free[j] {
                        w[j] += alpha * (z[j] - w[j]);
                    }
                }
                w[hit] = 0.0;
                free[hit] = false;
                for j in 0..n {
                    if free[j] && w[j] <= 0.0 {
                        w[j] = 0.0;
                        free[j] = false;
                    }
                }
                continue;
            }
            w.copy_from_slice(&z);
            // The bound with the most negative multiplier is released; none: optimal.
            let gradient = self.gradient(&w);
            let release = (0..n)
                .filter(|&j| !free[j] && self.total[self.class[j]] > 0.0)
                .map(|j| (gradient[j] + nu[self.class[j]], j))
                .filter(|&(lambda, _)| lambda < -OPTIMAL_TOL * scale)
                .min_by(|a, b| a.0.total_cmp(&b.0));
            match release {
                Some((_, j)) => free[j] = true,
                None => break,
            }
        }
        w
    }

    /// Hw − g.
    fn gradient(&self, w: &[f64]) -> Vec<f64> {
        (0..self.n)
            .map(|i| {
                let row = &self.h[i * self.n..(i + 1) * self.n];
                row.iter().zip(w).map(|(a, b)| a * b).sum::<f64>() - self.g[i]
            })
            .collect()
    }

    /// The equality-constrained minimiser over the free unknowns (the others zero) and the
    /// class multipliers ν (Hw − g + Eᵀν = 0 on the free set); `None` when singular.
    fn on_free(&self, free: &[bool]) -> Option<(Vec<f64>, Vec<f64>)> {
        let vars: Vec<usize> = (0..self.n).filter(|&j| free[j]).collect();
        let classes = self.total.len();
        let size = vars.len() + classes;
        // KKT: [H_FF  E_Fᵀ; E_F  0] [w; ν] = [g; t]. A class without a free member gets the
        // row ν_c = 0 (its total is then zero: its members are all fixed at zero).
        let mut m = vec![0.0; size * size];
        let mut rhs = vec![0.0; size];
        for (a, &i) in vars.iter().enumerate() {
            for (b, &j) in vars.iter().enumerate() {
                m[a * size + b] = self.h[i * self.n + j];
            }
            let c = vars.len() + self.class[i];
            m[a * size + c] = 1.0;
            m[c * size + a] = 1.0;
            rhs[a] = self.g[i];
        }
        for c in 0..classes {
            let row = vars.len() + c;
            if vars.iter().any(|&i| self.class[i] == c) {
                rhs[row] = self.total[c];
            } else {
                m[row * size + row] = 1.0;
            }
        }
        let x = solve_dense(&mut m, &mut rhs, size)?;
        let mut z = vec![0.0; self.n];
        for (a, &i) in vars.iter().enumerate() {
            z[i] = x[a];
        }
        Some((z, x[vars.len()..].to_vec()))
    }
}

/// Solves `m x = rhs` (`size x size`, row-major) by Gaussian elimination with partial
/// pivoting; `None` when a pivot vanishes.
fn solve_dense(m: &mut [f64], rhs: &mut [f64], size: usize) -> Option<Vec<f64>> {
    let largest = m.iter().fold(0.0f64, |a, b| a.max(b.abs()));
    for col in 0..size {
        let pivot = (col..size)
            .max_by(|&a, &b| m[a * size + col].abs().total_cmp(&m[b * size + col].abs()))?;
        if m[pivot * size + col].abs() <= 1e-300_f64.max(largest * 1e-15) {
            return None;
        }
        if pivot != col {
            for k in 0..size {
                m.swap(col * size + k, pivot * size + k);
            }
            rhs.swap(col, pivot);
        }
        for row in col + 1..size {
            let f = m[row * size + col] / m[col * size + col];
            if f == 0.0 {
                continue;
            }
            for k in col..size {
                m[row * size + k] -= f * m[col * size + k];
            }
            rhs[row] -= f * rhs[col];
        }
    }
    let mut x = vec![0.0; size];
    for row in (0..size).rev() {
        let s: f64 = (row + 1..size).map(|k| m[row * size + k] * x[k]).sum();
        x[row] = (rhs[row] - s) / m[row * size + row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(h: &[f64], g: &[f64], class: &[usize], total: &[f64]) -> Problem {
        Problem {
            n: g.len(),
            h: h.to_vec(),
            g: g.to_vec(),
            class: class.to_vec(),
            total: total.to_vec(),
        }
    }

    #[test]
    fn an_interior_minimum_is_found_exactly() {
        // min (w0 - 0.3)² + (w1 - 0.7)² with w0 + w1 = 1: the unconstrained minimum fits.
        let p = problem(&[2.0, 0.0, 0.0, 2.0], &[0.6, 1.4], &[0, 0], &[1.0]);
        let w = p.solve(&[1.0, 0.0]);
        assert!(
            (w[0] - 0.3).abs() < 1e-12 && (w[1] - 0.7).abs() < 1e-12,
            "{w:?}"
        );
    }

    #[test]
    fn a_bound_holds_and_the_total_is_kept() {
        // The unconstrained optimum (-0.5, 1.5) lies outside: the answer is (0, 1).
        let p = problem(&[2.0, 0.0, 0.0, 2.0], &[-1.0, 3.0], &[0, 0], &[1.0]);
        let w = p.solve(&[0.5, 0.5]);
        assert_eq!(w[0], 0.0);
        assert!((w[1] - 1.0).abs() < 1e-12, "{w:?}");
    }

    #[test]
    fn classes_keep_their_own_totals() {
        // Three unknowns pulled to (1, 1, 1); classes {0, 1} sum 0.4 and {2} sums 0.6.
        let h = [2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0];
        let p = problem(&h, &[2.0, 2.0, 2.0], &[0, 0, 1], &[0.4, 0.6]);
        let w = p.solve(&[0.4, 0.0, 0.6]);
        assert!(
            (w[0] - 0.2).abs() < 1e-12 && (w[1] - 0.2).abs() < 1e-12,
            "{w:?}"
        );
        assert!((w[2] - 0.6).abs() < 1e-12, "{w:?}");
    }

    #[test]
    fn a_brute_force_search_finds_nothing_better() {
        // A correlated 3-unknown problem on the simplex, against a fine grid.
        let h = [3.0, 1.0, 0.5, 1.0, 2.0, 0.2, 0.5, 0.2, 1.0];
        let g = [0.1, 1.5, -0.4];
        let p = problem(&h, &g, &[0, 0, 0], &[1.0]);
        let w = p.solve(&[1.0, 0.0, 0.0]);
        let f = |w: &[f64]| {
            let hw = p.gradient(w);
            (0..3)
                .map(|i| 0.5 * w[i] * (hw[i] + g[i]) - g[i] * w[i])
                .sum::<f64>()
        };
        assert!(w.iter().all(|&x| x >= 0.0) && (w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let best = f(&w);
        for a in 0..=100 {
            for b in 0..=(100 - a) {
                let x = [
                    a as f64 / 100.0,
                    b as f64 / 100.0,
                    (100 - a - b) as f64 / 100.0,
                ];
                assert!(f(&x) >= best - 1e-12, "{x:?} beats {w:?}");
            }
        }
    }
}
