//! Direct Delta Mush's precompute: the per vertex-joint matrices `Omega_ij`, pruned to the
//! joints that matter and stored as their 10 upper-triangle entries.

use faer::Mat;
use glam::DVec3;
use rayon::prelude::*;

use super::condition::condition;
use super::smoothing::{Smoother, SmoothingError, System};
use super::{DdmParams, WeldedSurface};

/// A vertex-joint pair is kept when its smoothed weight, in the rotation or the translation
/// smoothing, reaches this: the implicit solves spread every weight over the whole connected
/// surface, mostly in amounts far below what moves a vertex.
const KEEP_WEIGHT: f64 = 1e-6;

/// Progress of the precompute, in joint solves (each smooths one joint's weights over the
/// whole welded surface): shared with the thread that shows it, cancellable.
pub type DdmProgress = crate::skin::CorProgress;

/// The upper triangle of a symmetric 4x4 matrix, row by row: (0,0) (0,1) (0,2) (0,3) (1,1)
/// (1,2) (1,3) (2,2) (2,3) (3,3), libigl's order.
pub type Sym4 = [f32; 10];

/// The precomputed `Omega_ij` of every welded vertex, for the joints kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DdmWeights {
    /// Vertex `i`'s pairs are `offsets[i]..offsets[i + 1]` of `joints` and `omega`.
    pub offsets: Vec<u32>,
    /// The skin joint (palette index) of each pair.
    pub joints: Vec<u16>,
    /// `Omega_ij`'s upper triangle for each pair, about the vertex's rest position (the origin
    /// moved there; see `about`).
    pub omega: Vec<Sym4>,
    /// The vertices whose bind covariance was lifted to [`super::MIN_CONDITION`], ascending.
    pub conditioned: Vec<u32>,
    /// Whether the mesh took the constant-keeping smoothing system, libigl's having taken some
    /// vertex's weight sum farther than [`MAX_DRIFT`] from 1.
    pub keeps_constants: bool,
}

impl DdmWeights {
    /// Vertex `i`'s joints and matrices.
    #[must_use]
    pub fn of(&self, i: usize) -> (&[u16], &[Sym4]) {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => {
                let range = a as usize..b as usize;
                (&self.joints[range.clone()], &self.omega[range])
            }
            _ => (&[], &[]),
        }
    }

    /// Bytes held by the matrices and their joint indices.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.offsets.len() * 4 + self.joints.len() * 2 + self.omega.len() * 40
    }
}

/// The upper triangle of `u u^T`, `u = (p, 1)`.
fn outer(p: DVec3) -> [f64; 10] {
    let u = [p.x, p.y, p.z, 1.0];
    let mut out = [0.0; 10];
    let mut k = 0;
    for a in 0..4 {
        for b in a..4 {
            out[k] = u[a] * u[b];
            k += 1;
        }
    }
    out
}

/// `m` (a symmetric 4x4 of homogeneous outer products) with the origin moved to `c`:
/// `C m C^T`, `C` the translation by `-c`.
///
/// Stored about the vertex itself, `Omega_ij` holds the spread of the vertex's neighbourhood
/// rather than its square distance from the model's origin, so f32 keeps it: in absolute
/// coordinates the rotation is fitted from `Q3 - q p^T`, a difference of terms thousands of
/// times larger than it (f32 storage moved the Adventurer 7e-4 of its diagonal off libigl).
fn about(m: &[f64; 10], c: DVec3) -> [f64; 10] {
    let a = [[m[0], m[1], m[2]], [m[1], m[4], m[5]], [m[2], m[5], m[7]]];
    let b = [m[3], m[6], m[8]];
    let s = m[9];
    let c = [c.x, c.y, c.z];
    // Top left A - c b^T - b c^T + s c c^T, right column b - s c, corner s.
    let tl = |r: usize, k: usize| a[r][k] - c[r] * b[k] - b[r] * c[k] + s * c[r] * c[k];
    let tr = |r: usize| b[r] - s * c[r];
    [
        tl(0, 0),
        tl(0, 1),
        tl(0, 2),
        tr(0),
        tl(1, 1),
        tl(1, 2),
        tr(1),
        tl(2, 2),
        tr(2),
        s,
    ]
}

/// How far from 1 libigl's system may take any vertex's smoothed weight sum before the whole
/// mesh takes the constant-keeping system: the Adventurer's largest mesh drifts up to 1.6 at
/// libigl's stable setting (p 5, lambda 0.5) and to 3.4e7 at its tutorial's (p 20, lambda 3).
pub const MAX_DRIFT: f64 = 2.0;

/// One joint's smoothed pairs: (vertex, smoothed `w u u^T`, smoothed `w`).
type JointPairs = Vec<(u32, [f64; 10], f64)>;

/// Per vertex: the smoothed translation terms (entries 3, 6, 8, 9 of `w u u^T`) and the
/// smoothed weight, summed over joints.
type Sums = [f64; 5];

/// Smooths joint `joint`'s weights and weighted outer products; returns the pairs kept and
/// each vertex's [`Sums`] of this joint.
fn smooth_joint(
    surface: &WeldedSurface,
    joint: u16,
    (rotation, translation): (&Smoother, &Smoother),
    p: u32,
) -> (JointPairs, Vec<Sums>) {
    let n = surface.len();
    let weight = |i: usize| {
        surface.influences[i]
            .iter()
            .filter(|inf| inf.joint == joint)
            .map(|inf| f64::from(inf.weight))
            .sum::<f64>()
    };
    let mut psi = Mat::<f64>::zeros(n, 10);
    let mut w = Mat::<f64>::zeros(n, 1);
    for i in 0..n {
        let wi = weight(i);
        if wi != 0.0 {
            let uu = outer(surface.positions[i]);
            for (x, value) in uu.iter().enumerate() {
                psi[(i, x)] = wi * value;
            }
            w[(i, 0)] = wi;
        }
    }
    rotation.apply(&mut psi, p);
    translation.apply(&mut w, p);
    let mut kept = Vec::new();
    let mut sums = vec![[0.0; 5]; n];
    for (i, sum) in sums.iter_mut().enumerate() {
        let row: [f64; 10] = std::array::from_fn(|x| psi[(i, x)]);
        *sum = [row[3], row[6], row[8], row[9], w[(i, 0)]];
        if row[9].abs() >= KEEP_WEIGHT || w[(i, 0)].abs() >= KEEP_WEIGHT {
            kept.push((i as u32, row, w[(i, 0)]));
        }
    }
    (kept, sums)
}

/// Every vertex's pairs from one smoothing system, vertex-major, before conditioning.
struct Smoothed {
    /// Vertex `i`'s pairs are `offsets[i]..offsets[i + 1]`.
    offsets: Vec<u32>,
    /// Each pair's joint.
    joints: Vec<u16>,
    /// Each pair's `Omega_ij` about the vertex, in f64.
    omega: Vec<[f64; 10]>,
    /// Each pair's smoothed weight `W'_ij`.
    weights: Vec<f64>,
    /// Whether some vertex's smoothed weights (either smoothing) sum farther than
    /// [`MAX_DRIFT`] from 1, or not to a number.
    drifted: bool,
}

/// Smooths every joint that weights `surface` with `system` and assembles the pairs.
fn smooth_all(
    surface: &WeldedSurface,
    params: DdmParams,
    system: System,
    progress: &DdmProgress,
) -> Result<Smoothed, SmoothingError> {
    let n = surface.len();
    let rotation = Smoother::new(surface, params.lambda, system)?;
    let translation = Smoother::new(surface, params.kappa, system)?;
    let mut joints: Vec<u16> = surface
        .influences
        .iter()
        .flatten()
        .map(|inf| inf.joint)
        .collect();
    joints.sort_unstable();
    joints.dedup();
    progress.add_total(joints.len());
    let mut sums = vec![[0.0_f64; 5]; n];
    let mut pairs: Vec<(u16, JointPairs)> = Vec::with_capacity(joints.len());
    // A batch of joints at a time: every joint at once would hold n x 11 numbers per joint.
    for batch in joints.chunks(rayon::current_num_threads().max(1)) {
        if progress.is_cancelled() {
            return Err(SmoothingError::Cancelled);
        }
        let done: Vec<(u16, JointPairs, Vec<Sums>)> = batch
            .par_iter()
            .map(|&j| {
                let (kept, s) = smooth_joint(surface, j, (&rotation, &translation), params.p);
                (j, kept, s)
            })
            .collect();
        for (j, kept, s) in done {
            for (total, one) in sums.iter_mut().zip(&s) {
                for k in 0..5 {
                    total[k] += one[k];
                }
            }
            pairs.push((j, kept));
        }
        progress.add_done(batch.len());
    }
    Ok(assemble(&surface.positions, &pairs, &sums, params.alpha))
}

/// Vertex-major `Omega_ij = (1 - alpha) Psi_ij + alpha W'_ij P_i` about each vertex, with
/// `P_i` the outer product of `(p_i, 1)`, `p_i` the vertex's smoothed translation terms over
/// their weight.
fn assemble(rest: &[DVec3], pairs: &[(u16, JointPairs)], sums: &[Sums], alpha: f64) -> Smoothed {
    let n = rest.len();
    let mut offsets = vec![0u32; n + 1];
    for (_, kept) in pairs {
        for (i, _, _) in kept {
            offsets[*i as usize + 1] += 1;
        }
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let total = offsets[n] as usize;
    let mut out = Smoothed {
        offsets: offsets.clone(),
        joints: vec![0; total],
        omega: vec![[0.0; 10]; total],
        weights: vec![0.0; total],
        drifted: sums.iter().flat_map(|s| [s[3], s[4]]).any(|sum| {
            let drift = (sum - 1.0).abs();
            drift.is_nan() || drift > MAX_DRIFT
        }),
    };
    let mut next = offsets;
    for (j, kept) in pairs {
        for (i, psi, w) in kept {
            let i = *i as usize;
            let slot = next[i] as usize;
            next[i] += 1;
            let s = sums[i];
            let p = outer(DVec3::new(s[0], s[1], s[2]) / s[3]);
            let o: [f64; 10] = std::array::from_fn(|x| (1.0 - alpha) * psi[x] + alpha * w * p[x]);
            out.joints[slot] = *j;
            out.omega[slot] = about(&o, rest[i]);
            out.weights[slot] = *w;
        }
    }
    out
}

/// `Omega_ij` for every welded vertex of `surface` and every joint that weights it, as
/// libigl 2.5.1's `direct_delta_mush_precomputation` computes it (see [`super::smoothing`])
/// unless libigl's smoothing drifts; then conditioned ([`super::condition`]).
///
/// libigl's symmetrised system does not keep constants: with strong smoothing (its tutorial's
/// p 20, lambda 3) the weights of some vertices sum to millions, the smoothed neighbourhoods
/// drift off their vertices and the mesh explodes. When any vertex's sum drifts past
/// [`MAX_DRIFT`], the whole mesh (so no seam opens) takes the system libigl means,
/// `I + step D^-1 L`, whose rows sum to 1.
pub fn ddm_precompute(
    surface: &WeldedSurface,
    params: DdmParams,
) -> Result<DdmWeights, SmoothingError> {
    ddm_precompute_with(surface, params, &DdmProgress::new())
}

/// Like [`ddm_precompute`], counting joint solves in `progress` and stopping with
/// [`SmoothingError::Cancelled`] between batches once it is cancelled.
pub fn ddm_precompute_with(
    surface: &WeldedSurface,
    params: DdmParams,
    progress: &DdmProgress,
) -> Result<DdmWeights, SmoothingError> {
    let libigl = smooth_all(surface, params, System::Libigl, progress)?;
    let keeps_constants = libigl.drifted;
    let mut smoothed = if keeps_constants {
        smooth_all(surface, params, System::KeepsConstants, progress)?
    } else {
        libigl
    };
    let n = surface.len();
    let mut conditioned = Vec::new();
    for i in 0..n {
        let range = smoothed.offsets[i] as usize..smoothed.offsets[i + 1] as usize;
        if condition(&mut smoothed.omega[range.clone()], &smoothed.weights[range]) {
            conditioned.push(i as u32);
        }
    }
    Ok(DdmWeights {
        offsets: smoothed.offsets,
        joints: smoothed.joints,
        omega: smoothed.omega.iter().map(|o| o.map(|v| v as f32)).collect(),
        conditioned,
        keeps_constants,
    })
}
