//! One vertex of the helper-weight fit: its candidates, rest classes and normal equations.

use glam::{DMat4, DVec3, Vec3, Vec4};

use super::fit::{FitTarget, SkinJunction};
use super::solve::Problem;
use crate::influences::Influence;
use crate::skin::ddm::{DdmPairsRef, Sym4, ddm_vertex};
use crate::skin::{JointPalette, SkinningMode, skin_vertex, skin_vertex_cor};

/// The smoothness term's strength relative to a vertex's own data term (its mean curvature).
const SMOOTHNESS: f64 = 0.01;
/// A small pull towards the starting weights, relative to the data term, so ties resolve.
const RIDGE: f64 = 1e-4;

/// A vertex of the input as the fit reads it.
pub(super) struct VertexIn<'a> {
    /// Mesh, primitive and vertex.
    pub at: (usize, usize, u32),
    /// Skin index of its mesh.
    pub skin: usize,
    /// Bind position, normal and tangent.
    pub bind: (Vec3, Vec3, Vec4),
    /// Its CoR centre.
    pub center: Vec3,
    /// Its Direct Delta Mush pairs (the DDM target only).
    pub ddm: Option<DdmPairs>,
    /// Its input influences.
    pub row: &'a [Influence],
}

/// One vertex's Direct Delta Mush matrices, as the fit reads them.
#[derive(Clone, Debug)]
pub(super) struct DdmPairs {
    /// Its welded vertex's rest position.
    pub rest: DVec3,
    /// The joints of its pairs.
    pub joints: Vec<u16>,
    /// Their `Omega` matrices.
    pub omega: Vec<Sym4>,
}

/// One vertex being fitted.
pub(super) struct Unit {
    /// Mesh, primitive and vertex.
    pub at: (usize, usize, u32),
    /// Skin index of its mesh.
    pub skin: usize,
    /// Bind position, normal and tangent.
    bind: (Vec3, Vec3, Vec4),
    /// Its input influences (the target's skinning).
    row: Vec<Influence>,
    /// Its CoR centre.
    center: Vec3,
    /// Its DDM pairs (the DDM target only).
    ddm: Option<DdmPairs>,
    /// Candidate skin joints.
    pub joints: Vec<u16>,
    /// Each candidate's class (index into `total`).
    class: Vec<usize>,
    /// Each class's total weight.
    total: Vec<f64>,
    /// Each class's reference candidate (its heaviest input joint).
    reference: Vec<usize>,
    /// Starting (input) weights per candidate.
    pub w0: Vec<f64>,
    /// Normal equations of the data term: Hessian (row-major) and linear term.
    h: Vec<f64>,
    g: Vec<f64>,
    /// Mean squared target offset (the data term's constant).
    bb: f64,
    /// Current weights per candidate.
    pub w: Vec<f64>,
}

impl Unit {
    /// The unit of a vertex weighted on a junction's P or K (`None` otherwise), or `Err` when
    /// its input joints span more rest classes than `max` influences can keep.
    pub fn of(
        vertex: &VertexIn<'_>,
        junctions: &[SkinJunction],
        classes: &[usize],
        max: usize,
    ) -> Option<Result<Self, ()>> {
        let own = |j: u16| vertex.row.iter().any(|i| i.joint == j && i.weight > 0.0);
        let touched: Vec<&SkinJunction> = junctions
            .iter()
            .filter(|s| s.ends.iter().any(|&e| own(e)))
            .collect();
        if touched.is_empty() {
            return None;
        }
        let class_of = |j: u16| classes.get(usize::from(j)).copied().unwrap_or(usize::MAX);
        let mut global_class: Vec<usize> = Vec::new();
        let mut total: Vec<f64> = Vec::new();
        let mut reference: Vec<usize> = Vec::new();
        let mut joints: Vec<u16> = Vec::new();
        let mut w0: Vec<f64> = Vec::new();
        let mut class: Vec<usize> = Vec::new();
        for i in vertex.row.iter().filter(|i| i.weight > 0.0) {
            let g = class_of(i.joint);
            let c = global_class
                .iter()
                .position(|&x| x == g)
                .unwrap_or_else(|| {
                    global_class.push(g);
                    total.push(0.0);
                    reference.push(joints.len());
                    global_class.len() - 1
                });
            total[c] += f64::from(i.weight);
            joints.push(i.joint);
            w0.push(f64::from(i.weight));
            class.push(c);
        }
        if total.len() > max {
            return Some(Err(()));
        }
        for &h in touched.iter().flat_map(|s| &s.helpers) {
            // A helper stands in for P or K at rest: only its own class may take its weight.
            let Some(c) = global_class.iter().position(|&x| x == class_of(h)) else {
                continue;
            };
            if !joints.contains(&h) {
                joints.push(h);
                w0.push(0.0);
                class.push(c);
            }
        }
        let n = joints.len();
        Some(Ok(Self {
            at: vertex.at,
            skin: vertex.skin,
            bind: vertex.bind,
            row: vertex.row.to_vec(),
            center: vertex.center,
            ddm: vertex.ddm.clone(),
            joints,
            class,
            total,
            reference,
            w: w0.clone(),
            w0,
            h: vec![0.0; n * n],
            g: vec![0.0; n],
            bb: 0.0,
        }))
    }

    /// Where Direct Delta Mush puts the vertex at `palette` (LBS where it fits no rotation, as
    /// `skin_scene_ddm` does).
    fn ddm_aim(&self, palette: &JointPalette) -> Vec3 {
        let (p, n, t) = self.bind;
        let lbs = || skin_vertex(palette, SkinningMode::Lbs, 0.0, p, n, t, &self.row).0;
        let Some(d) = &self.ddm else {
            return lbs();
        };
        let pairs = DdmPairsRef {
            rest: d.rest,
            joints: &d.joints,
            omega: &d.omega,
        };
        ddm_vertex(palette, &pairs, self.bind, &self.row).map_or_else(lbs, |(at, _, _)| at)
    }

    /// Adds one pose: each candidate's LBS column (relative to its class reference, so the
    /// motion all candidates share drops out of the normal equations) against the target
    /// (`given`: the vertex's target position where it was computed for the whole mesh, DM's).
    pub fn add_pose(
        &mut self,
        palette: &JointPalette,
        matrices: &[DMat4],
        (target, given): (FitTarget, Option<Vec3>),
        inv_diagonal: f64,
    ) {
        let (p, n, t) = self.bind;
        let aim = match (target, given) {
            (_, Some(at)) => at,
            (FitTarget::Cor, None) => skin_vertex_cor(palette, p, n, t, &self.row, self.center).0,
            (FitTarget::Dqs, None) => {
                skin_vertex(palette, SkinningMode::Dqs, 1.0, p, n, t, &self.row).0
            }
            (FitTarget::Ddm, None) => self.ddm_aim(palette),
            // The caller gives DM's positions; without one the vertex stays where LBS puts it.
            (FitTarget::Dm, None) => {
                skin_vertex(palette, SkinningMode::Lbs, 0.0, p, n, t, &self.row).0
            }
        };
        let pd = p.as_dvec3();
        let cols: Vec<DVec3> = self
            .joints
            .iter()
            .map(|&j| {
                matrices
                    .get(usize::from(j))
                    .map_or(pd, |m| m.transform_point3(pd))
                    * inv_diagonal
            })
            .collect();
        let refs: Vec<DVec3> = self.reference.iter().map(|&r| cols[r]).collect();
        let mut b = aim.as_dvec3() * inv_diagonal;
        for (r, t) in refs.iter().zip(&self.total) {
            b -= *r * *t;
        }
        let a: Vec<DVec3> = cols
            .iter()
            .zip(&self.class)
            .map(|(c, &k)| *c - refs[k])
            .collect();
        let n = a.len();
        for i in 0..n {
            for j in i..n {
                let d = a[i].dot(a[j]);
                self.h[i * n + j] += d;
                if j != i {
                    self.h[j * n + i] += d;
                }
            }
            self.g[i] += a[i].dot(b);
        }
        self.bb += b.length_squared();
    }

    /// Scales the normal equations (to a mean over poses).
    pub fn scale(&mut self, by: f64) {
        self.h.iter_mut().for_each(|x| *x *= by);
        self.g.iter_mut().for_each(|x| *x *= by);
        self.bb *= by;
    }

    /// The data term's value (mean squared distance over diagonal²) at `w`.
    pub fn data_error(&self, w: &[f64]) -> f64 {
        let n = self.joints.len();
        let mut e = self.bb;
        for i in 0..n {
            let hw: f64 = (0..n).map(|j| self.h[i * n + j] * w[j]).sum();
            e += w[i] * hw - 2.0 * self.g[i] * w[i];
        }
        e.max(0.0)
    }

    /// Weight of skin joint `joint` in the current solution.
    pub fn weight_of(&self, joint: u16) -> f64 {
        self.joints
            .iter()
            .zip(&self.w)
            .filter(|(j, _)| **j == joint)
            .map(|(_, w)| w)
            .sum()
    }

    /// The problem: the data term, a ridge towards the input weights and, given the
    /// neighbours' summed weights per candidate and their count, the smoothness term.
    pub fn problem(&self, smooth: Option<&(Vec<f64>, f64)>) -> Problem {
        let n = self.joints.len();
        let curvature = (0..n).map(|i| self.h[i * n + i]).sum::<f64>() / n.max(1) as f64;
        let scale = curvature.max(1e-30);
        let mut h = self.h.clone();
        let mut g = self.g.clone();
        for i in 0..n {
            h[i * n + i] += RIDGE * scale;
            g[i] += RIDGE * scale * self.w0[i];
        }
        if let Some((pull, count)) = smooth {
            let lambda = SMOOTHNESS * scale;
            for i in 0..n {
                h[i * n + i] += lambda * count;
                g[i] += lambda * pull[i];
            }
        }
        Problem {
            n,
            h,
            g,
            class: self.class.clone(),
            total: self.total.clone(),
        }
    }

    /// Keeps at most `max` candidates: each class's heaviest, then the heaviest others; the
    /// weights kept are scaled back to each class's total.
    pub fn restrict(&mut self, max: usize) {
        let n = self.joints.len();
        let mut keep = vec![false; n];
        for c in 0..self.total.len() {
            let best = (0..n)
                .filter(|&i| self.class[i] == c)
                .max_by(|&a, &b| self.w[a].total_cmp(&self.w[b]));
            if let Some(i) = best {
                keep[i] = true;
            }
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| self.w[b].total_cmp(&self.w[a]));
        for i in order {
            if keep.iter().filter(|&&k| k).count() >= max {
                break;
            }
            keep[i] |= self.w[i] > 1e-12;
        }
        let kept: Vec<usize> = (0..n).filter(|&i| keep[i]).collect();
        let pick = |v: &[f64]| kept.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        let mut w = pick(&self.w);
        let class: Vec<usize> = kept.iter().map(|&i| self.class[i]).collect();
        for c in 0..self.total.len() {
            let sum: f64 = (0..kept.len())
                .filter(|&k| class[k] == c)
                .map(|k| w[k])
                .sum();
            for k in (0..kept.len()).filter(|&k| class[k] == c) {
                w[k] = if sum > 0.0 {
                    w[k] * self.total[c] / sum
                } else {
                    self.total[c] / kept.iter().filter(|&&i| self.class[i] == c).count() as f64
                };
            }
        }
        self.h = kept
            .iter()
            .flat_map(|&i| kept.iter().map(move |&j| (i, j)))
            .map(|(i, j)| self.h[i * n + j])
            .collect();
        self.g = pick(&self.g);
        self.w0 = pick(&self.w0);
        self.joints = kept.iter().map(|&i| self.joints[i]).collect();
        self.class = class;
        self.w = w;
    }

    /// The solved row as (skin joint, weight) pairs.
    pub fn rows(&self) -> Vec<(u16, f32)> {
        self.joints
            .iter()
            .zip(&self.w)
            .filter(|(_, w)| **w > 0.0)
            .map(|(&j, &w)| (j, w as f32))
            .collect()
    }
}
