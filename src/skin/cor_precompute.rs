//! Optimized centers of rotation (Le and Hodgins 2016): the per-vertex precompute.
//!
//! For vertex i the center is p*_i = sum_t s(w_i, w_t) A_t c_t / sum_t s(w_i, w_t) A_t
//! over triangles t (area A_t, centroid c_t, weights w_t the mean of its
//! corners'), with the weight similarity
//! s(w_p, w_v) = sum_{j != k} w_pj w_pk w_vj w_vk exp(-(w_pj w_vk - w_pk w_vj)^2 / sigma^2).
//!
//! Every term needs both joints j and k on both the vertex and the triangle, so
//! the sum splits exactly by unordered joint pair: [`CorMethod::PairBuckets`]
//! visits only the triangles that carry both joints of each of the vertex's
//! pairs. [`CorMethod::Clustered`] also merges a bucket's triangles whose two
//! weights fall in the same cell of a `bins` x `bins` grid (area-weighted
//! means), which bounds the work per pair whatever the mesh size.
//! [`CorMethod::Naive`] is the formula as written, O(vertices x triangles).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use glam::Vec3;
use rayon::prelude::*;

use crate::influences::Influences;

/// Vertices per parallel work item (progress and cancellation granularity).
const CHUNK: usize = 256;
/// Largest weight difference allowed along an edge before the paper's subdivision splits it.
pub const SUBDIVIDE_WEIGHT_STEP: f32 = 0.1;
/// Subdivision levels at most (each splits a triangle in four), so a bad mesh cannot explode.
const MAX_SUBDIVISION_DEPTH: u32 = 3;
/// Terms whose exponent is below -PRUNE_EXPONENT (e^-36 ~ 2e-16) are dropped.
const PRUNE_EXPONENT: f32 = 36.0;

/// How the similarity sum over triangles is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CorMethod {
    /// Every triangle for every vertex: the formula as written (slow, the reference).
    Naive,
    /// Exact: per joint pair, only the triangles that carry both joints.
    PairBuckets,
    /// Per joint pair, triangles merged by their two weights on a `bins` x `bins` grid (approximate).
    Clustered {
        /// Grid cells per weight axis.
        bins: u16,
    },
}

/// Options of the center-of-rotation precompute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CorOptions {
    /// Width of the similarity kernel (the paper's sigma, 0.1).
    pub sigma: f32,
    /// Subdivide triangles whose edges change weight by more than [`SUBDIVIDE_WEIGHT_STEP`] first.
    pub subdivide: bool,
    /// Evaluation method.
    pub method: CorMethod,
}

impl Default for CorOptions {
    fn default() -> Self {
        Self {
            sigma: 0.1,
            subdivide: true,
            method: CorMethod::Clustered { bins: 64 },
        }
    }
}

/// Why a precompute stopped without centers.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CorError {
    /// [`CorProgress::cancel`] was called.
    #[error("center-of-rotation precompute cancelled")]
    Cancelled,
    /// Sigma must be finite and positive.
    #[error("sigma must be a finite positive number, got {0}")]
    BadSigma(f32),
    /// The influences do not cover every vertex.
    #[error("influences cover {influences} vertices, the mesh has {vertices}")]
    VertexCountMismatch {
        /// Vertices in the mesh.
        vertices: usize,
        /// Vertices with influences.
        influences: usize,
    },
}

/// Shared progress of a precompute: read from any thread, cancellable.
#[derive(Debug, Default)]
pub struct CorProgress {
    done: AtomicUsize,
    total: AtomicUsize,
    cancelled: AtomicBool,
}

impl CorProgress {
    /// A fresh progress with nothing done.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the precompute to stop at its next chunk.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether [`CorProgress::cancel`] was called.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// (vertices done, vertices in total) over every mesh this progress has been given.
    #[must_use]
    pub fn counts(&self) -> (usize, usize) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    /// Fraction done in [0, 1] (1 when there is nothing to do).
    #[must_use]
    pub fn fraction(&self) -> f32 {
        let (done, total) = self.counts();
        if total == 0 {
            1.0
        } else {
            (done as f32 / total as f32).min(1.0)
        }
    }

    /// Adds `vertices` to the total (a scene adds every primitive before starting).
    pub fn add_total(&self, vertices: usize) {
        self.total.fetch_add(vertices, Ordering::Relaxed);
    }

    /// Records `vertices` more as done.
    pub fn add_done(&self, vertices: usize) {
        self.done.fetch_add(vertices, Ordering::Relaxed);
    }
}

/// A sparse weight row, sorted by joint.
type Weights = Vec<(u16, f32)>;

/// The center of a vertex with the given weights; `None` when no triangle is similar.
type CenterOf = dyn Fn(&Weights) -> Option<Vec3> + Sync;

/// One triangle of the integration: area, centroid, mean weights.
#[derive(Clone, Debug)]
struct Patch {
    area: f32,
    centroid: Vec3,
    weights: Weights,
}

/// Computes one center of rotation per vertex of a triangle list.
///
/// A vertex with no similar triangle (one influence, or none) gets its own
/// position: CoR about the vertex itself is LBS, which is what the paper does
/// for such vertices. `progress` must have had this mesh's vertex count added
/// (see [`CorProgress::add_total`]); this function only adds to `done`.
pub fn cor_centers(
    positions: &[Vec3],
    indices: &[u32],
    influences: &Influences,
    options: &CorOptions,
    progress: &CorProgress,
) -> Result<Vec<Vec3>, CorError> {
    if !(options.sigma.is_finite() && options.sigma > 0.0) {
        return Err(CorError::BadSigma(options.sigma));
    }
    if influences.vertex_count() != positions.len() {
        return Err(CorError::VertexCountMismatch {
            vertices: positions.len(),
            influences: influences.vertex_count(),
        });
    }
    let rows: Vec<Weights> = influences.iter().map(sorted_row).collect();
    let patches = patches(positions, indices, &rows, options.subdivide);
    let sigma = options.sigma;
    let evaluate: Box<CenterOf> = match options.method {
        CorMethod::Naive => Box::new(move |w: &Weights| naive_center(w, &patches, sigma)),
        CorMethod::PairBuckets => {
            let buckets = PairBuckets::new(&patches, None);
            Box::new(move |w: &Weights| buckets.center(w, sigma))
        }
        CorMethod::Clustered { bins } => {
            let buckets = PairBuckets::new(&patches, Some(bins.max(1)));
            Box::new(move |w: &Weights| buckets.center(w, sigma))
        }
    };
    let mut centers = positions.to_vec();
    centers
        .par_chunks_mut(CHUNK)
        .zip(rows.par_chunks(CHUNK))
        .try_for_each(|(out, rows)| {
            if progress.is_cancelled() {
                return Err(CorError::Cancelled);
            }
            for (c, w) in out.iter_mut().zip(rows) {
                if let Some(center) = evaluate(w).filter(|c| c.is_finite()) {
                    *c = center;
                }
            }
            progress.add_done(out.len());
            Ok(())
        })?;
    Ok(centers)
}

/// A vertex's influences as a joint-sorted sparse row.
fn sorted_row(row: &[crate::influences::Influence]) -> Weights {
    let mut w: Weights = row.iter().map(|i| (i.joint, i.weight)).collect();
    w.sort_by_key(|&(j, _)| j);
    w
}

/// `a * (1 - t) + b * t` of two sparse rows.
fn lerp_rows(a: &Weights, b: &Weights, t: f32) -> Weights {
    let mut out = Weights::with_capacity(a.len() + b.len());
    let (mut i, mut k) = (0, 0);
    while i < a.len() || k < b.len() {
        match (a.get(i), b.get(k)) {
            (Some(&(ja, wa)), Some(&(jb, wb))) if ja == jb => {
                out.push((ja, wa * (1.0 - t) + wb * t));
                i += 1;
                k += 1;
            }
            (Some(&(ja, wa)), Some(&(jb, _))) if ja < jb => {
                out.push((ja, wa * (1.0 - t)));
                i += 1;
            }
            (Some(&(ja, wa)), None) => {
                out.push((ja, wa * (1.0 - t)));
                i += 1;
            }
            (_, Some(&(jb, wb))) => {
                out.push((jb, wb * t));
                k += 1;
            }
            (None, None) => break,
        }
    }
    out.retain(|&(_, w)| w > 0.0);
    out
}

/// Largest per-joint weight difference of two sparse rows.
fn row_distance(a: &Weights, b: &Weights) -> f32 {
    let mut d = 0.0f32;
    for &(j, w) in a {
        let other = b.iter().find(|(k, _)| *k == j).map_or(0.0, |x| x.1);
        d = d.max((w - other).abs());
    }
    for &(j, w) in b {
        if !a.iter().any(|(k, _)| *k == j) {
            d = d.max(w);
        }
    }
    d
}

/// The integration patches: one per triangle, or more where the weights change fast.
fn patches(positions: &[Vec3], indices: &[u32], rows: &[Weights], subdivide: bool) -> Vec<Patch> {
    let mut out = Vec::with_capacity(indices.len() / 3);
    for tri in indices.chunks_exact(3) {
        let corner = |k: usize| {
            let v = tri[k] as usize;
            positions.get(v).copied().zip(rows.get(v))
        };
        let (Some(a), Some(b), Some(c)) = (corner(0), corner(1), corner(2)) else {
            continue;
        };
        let depth = if subdivide { MAX_SUBDIVISION_DEPTH } else { 0 };
        split(
            [(a.0, a.1.clone()), (b.0, b.1.clone()), (c.0, c.1.clone())],
            depth,
            &mut out,
        );
    }
    out
}

/// Splits a triangle into four while an edge's weights differ by more than the step.
fn split(corners: [(Vec3, Weights); 3], depth: u32, out: &mut Vec<Patch>) {
    let [(pa, wa), (pb, wb), (pc, wc)] = &corners;
    let steep = row_distance(wa, wb)
        .max(row_distance(wb, wc))
        .max(row_distance(wc, wa))
        > SUBDIVIDE_WEIGHT_STEP;
    if depth > 0 && steep {
        let mid =
            |p: Vec3, w: &Weights, q: Vec3, v: &Weights| ((p + q) * 0.5, lerp_rows(w, v, 0.5));
        let ab = mid(*pa, wa, *pb, wb);
        let bc = mid(*pb, wb, *pc, wc);
        let ca = mid(*pc, wc, *pa, wa);
        split([(*pa, wa.clone()), ab.clone(), ca.clone()], depth - 1, out);
        split([ab.clone(), (*pb, wb.clone()), bc.clone()], depth - 1, out);
        split([ca.clone(), bc.clone(), (*pc, wc.clone())], depth - 1, out);
        split([ab, bc, ca], depth - 1, out);
        return;
    }
    let area = 0.5 * (*pb - *pa).cross(*pc - *pa).length();
    if !(area.is_finite() && area > 0.0) {
        return;
    }
    let sum = lerp_rows(&lerp_rows(wa, wb, 0.5), wc, 1.0 / 3.0);
    out.push(Patch {
        area,
        centroid: (*pa + *pb + *pc) / 3.0,
        weights: sum,
    });
}

/// One similarity term for the pair (j, k): vertex weights (p_j, p_k), triangle weights (v_j, v_k).
///
/// Symmetric in the order of the pair, so the ordered sum is twice the unordered one.
#[inline]
fn pair_term(pj: f32, pk: f32, vj: f32, vk: f32, inv_sigma2: f32) -> f32 {
    let d = pj * vk - pk * vj;
    let e = d * d * inv_sigma2;
    if e > PRUNE_EXPONENT {
        return 0.0;
    }
    pj * pk * vj * vk * (-e).exp()
}

/// The formula as written: every triangle, every ordered pair j != k.
fn naive_center(w: &Weights, patches: &[Patch], sigma: f32) -> Option<Vec3> {
    if w.len() < 2 {
        return None;
    }
    let inv_sigma2 = 1.0 / (sigma * sigma);
    let mut num = glam::DVec3::ZERO;
    let mut den = 0.0f64;
    for patch in patches {
        let mut s = 0.0f32;
        for &(j, pj) in w {
            let Some(vj) = weight_of(&patch.weights, j) else {
                continue;
            };
            for &(k, pk) in w {
                if k == j {
                    continue;
                }
                if let Some(vk) = weight_of(&patch.weights, k) {
                    s += pair_term(pj, pk, vj, vk, inv_sigma2);
                }
            }
        }
        if s > 0.0 {
            let sa = f64::from(s * patch.area);
            num += patch.centroid.as_dvec3() * sa;
            den += sa;
        }
    }
    (den > 0.0).then(|| (num / den).as_vec3())
}

/// Weight of joint `j` in a joint-sorted row.
fn weight_of(row: &Weights, j: u16) -> Option<f32> {
    row.binary_search_by_key(&j, |&(k, _)| k)
        .ok()
        .and_then(|i| row.get(i))
        .map(|x| x.1)
}

/// Triangles (or merged cells of them) that carry both joints of a pair.
#[derive(Clone, Copy, Debug)]
struct Cell {
    /// Weight of the pair's lower joint.
    a: f32,
    /// Weight of the pair's higher joint.
    b: f32,
    /// Summed area.
    area: f32,
    /// Summed area times centroid.
    moment: Vec3,
}

/// Cells per unordered joint pair (lower joint first).
struct PairBuckets {
    pairs: HashMap<(u16, u16), Vec<Cell>>,
}

impl PairBuckets {
    /// Buckets `patches` by joint pair; `bins` merges cells on a grid, `None` keeps every triangle.
    fn new(patches: &[Patch], bins: Option<u16>) -> Self {
        let mut pairs: HashMap<(u16, u16), Vec<Cell>> = HashMap::new();
        // Ordered, so the merged cells sum in the same order on every run (a HashMap's order
        // changes per process and moved the centers in the 5th decimal).
        let mut grid: BTreeMap<(u16, u16, u16, u16), Cell> = BTreeMap::new();
        for patch in patches {
            let w = &patch.weights;
            for (x, &(j, a)) in w.iter().enumerate() {
                for &(k, b) in w.iter().skip(x + 1) {
                    let cell = Cell {
                        a: a * patch.area,
                        b: b * patch.area,
                        area: patch.area,
                        moment: patch.centroid * patch.area,
                    };
                    match bins {
                        None => pairs.entry((j, k)).or_default().push(Cell { a, b, ..cell }),
                        Some(n) => {
                            let bin = |x: f32| ((x * f32::from(n)) as u16).min(n - 1);
                            let slot = grid.entry((j, k, bin(a), bin(b))).or_insert(Cell {
                                a: 0.0,
                                b: 0.0,
                                area: 0.0,
                                moment: Vec3::ZERO,
                            });
                            slot.a += cell.a;
                            slot.b += cell.b;
                            slot.area += cell.area;
                            slot.moment += cell.moment;
                        }
                    }
                }
            }
        }
        // Merged cells carry area-weighted mean weights.
        for ((j, k, _, _), c) in grid {
            pairs.entry((j, k)).or_default().push(Cell {
                a: c.a / c.area,
                b: c.b / c.area,
                ..c
            });
        }
        Self { pairs }
    }

    /// The center of a vertex with joint-sorted weights `w`; `None` with no similar triangle.
    fn center(&self, w: &Weights, sigma: f32) -> Option<Vec3> {
        if w.len() < 2 {
            return None;
        }
        let inv_sigma2 = 1.0 / (sigma * sigma);
        let mut num = glam::DVec3::ZERO;
        let mut den = 0.0f64;
        for (x, &(j, pj)) in w.iter().enumerate() {
            for &(k, pk) in w.iter().skip(x + 1) {
                let Some(cells) = self.pairs.get(&(j, k)) else {
                    continue;
                };
                let mut pair_num = Vec3::ZERO;
                let mut pair_den = 0.0f32;
                for c in cells {
                    let s = pair_term(pj, pk, c.a, c.b, inv_sigma2);
                    pair_num += c.moment * s;
                    pair_den += c.area * s;
                }
                num += pair_num.as_dvec3();
                den += f64::from(pair_den);
            }
        }
        (den > 0.0).then(|| (num / den).as_vec3())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A strip of quads along +X whose weights move from joint 0 to joint 1.
    fn strip(n: usize) -> (Vec<Vec3>, Vec<u32>, Influences) {
        let mut positions = Vec::new();
        let mut rows = Vec::new();
        for i in 0..=n {
            let x = i as f32 / n as f32;
            for y in [-1.0, 1.0] {
                positions.push(Vec3::new(x, y, 0.0));
                rows.push(vec![(0u16, 1.0 - x), (1, x)]);
            }
        }
        let mut indices = Vec::new();
        for i in 0..n as u32 {
            let a = 2 * i;
            indices.extend_from_slice(&[a, a + 2, a + 1, a + 1, a + 2, a + 3]);
        }
        (positions, indices, Influences::from_rows(rows))
    }

    fn run(method: CorMethod, subdivide: bool) -> Vec<Vec3> {
        let (p, i, w) = strip(20);
        let progress = CorProgress::new();
        progress.add_total(p.len());
        let options = CorOptions {
            method,
            subdivide,
            ..CorOptions::default()
        };
        let out = cor_centers(&p, &i, &w, &options, &progress).unwrap();
        assert_eq!(progress.counts(), (p.len(), p.len()));
        out
    }

    #[test]
    fn centers_lie_on_the_midline_where_weights_match() {
        // Weights depend on x only: the center of a vertex at x sits near (x, 0, 0).
        let (p, _, _) = strip(20);
        for (v, c) in p.iter().zip(run(CorMethod::Naive, false)) {
            if v.x > 0.2 && v.x < 0.8 {
                // Away from the strip's ends the similar triangles sit on both sides of x.
                assert!(c.y.abs() < 2e-3, "{v} -> {c}");
                assert!((c.x - v.x).abs() < 0.05, "{v} -> {c}");
            } else if v.x == 0.0 || v.x == 1.0 {
                // One influence: no similar triangle, the vertex is its own center.
                assert_eq!(c, *v);
            }
        }
    }

    #[test]
    fn pair_buckets_equal_naive_and_clusters_are_close() {
        let naive = run(CorMethod::Naive, true);
        let exact = run(CorMethod::PairBuckets, true);
        let clustered = run(CorMethod::Clustered { bins: 64 }, true);
        for ((a, b), c) in naive.iter().zip(&exact).zip(&clustered) {
            assert!(a.abs_diff_eq(*b, 1e-5), "{a} {b}");
            assert!(a.abs_diff_eq(*c, 1e-2), "{a} {c}");
        }
    }

    #[test]
    fn subdivision_splits_steep_edges_only() {
        let (p, i, w) = strip(2);
        let rows: Vec<Weights> = w.iter().map(sorted_row).collect();
        assert_eq!(patches(&p, &i, &rows, false).len(), 4);
        // A 0.5 weight step per edge needs three levels to get under 0.1: 4 * 64 patches.
        assert_eq!(patches(&p, &i, &rows, true).len(), 4 * 64);
        let area: f32 = patches(&p, &i, &rows, true).iter().map(|t| t.area).sum();
        assert!((area - 2.0).abs() < 1e-4, "{area}");
    }

    #[test]
    fn cancel_and_bad_input_are_errors() {
        let (p, i, w) = strip(4);
        let progress = CorProgress::new();
        progress.cancel();
        let options = CorOptions::default();
        assert_eq!(
            cor_centers(&p, &i, &w, &options, &progress),
            Err(CorError::Cancelled)
        );
        let fresh = CorProgress::new();
        let bad = CorOptions {
            sigma: 0.0,
            ..options
        };
        assert_eq!(
            cor_centers(&p, &i, &w, &bad, &fresh),
            Err(CorError::BadSigma(0.0))
        );
        assert!(matches!(
            cor_centers(&p[1..], &i, &w, &options, &fresh),
            Err(CorError::VertexCountMismatch { .. })
        ));
    }
}
