//! A welded surface made ready for Delta Mush: its edge graph, smoothing steps and the rest
//! pose's deltas per face corner.

use glam::{DMat3, DVec3};

use super::{DmParams, WeldedSurface, corner_frame};

/// One face corner of a welded vertex: its face neighbours and the rest delta in its frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DmCorner {
    /// The welded vertex before this corner in its face.
    pub prev: u32,
    /// The welded vertex after this corner in its face.
    pub next: u32,
    /// Rest position minus smoothed rest position, in the corner's smoothed rest frame.
    pub delta: DVec3,
    /// The corner's frame on the smoothed rest surface (identity where it has none).
    pub rest_frame: DMat3,
    /// Whether the smoothed rest corner stands clear of rounding ([`corner_height`]).
    pub rest_stable: bool,
}

/// How many single-precision roundings of the surface's size a smoothed corner's height must
/// exceed for its frame to count.
///
/// Strong smoothing collapses thin parts (straps, fingers) into lines and points; there a
/// corner's edges are rounding noise of the f32 input and its frame points anywhere: the
/// Adventurer's body at 40 iterations of 0.9 moves 2.4% of the diagonal between single and
/// double precision, in Blender as here. A corner lower than this adds nothing; a vertex left
/// with no corner stays at LBS. Corners above it are untouched, and so are the vertices all of
/// whose corners are. With it the same case moves 1.3e-4 of the diagonal.
pub const MIN_CORNER_HEIGHT_ROUNDINGS: f64 = 100.0;

/// The height of the triangle at corner `curr` over its longer edge: `|(prev - curr) x
/// (curr - next)|` over the longer of the two (0 for a corner collapsed to a point).
#[must_use]
pub fn corner_height(prev: DVec3, curr: DVec3, next: DVec3) -> f64 {
    let (a, b) = (prev - curr, curr - next);
    let longer = a.length().max(b.length());
    if longer > 0.0 {
        a.cross(b).length() / longer
    } else {
        0.0
    }
}

/// The precomputed Delta Mush data of one welded surface.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DmSurface {
    /// `neighbour_offsets[v]..neighbour_offsets[v + 1]` index `neighbours`: vertex `v`'s edges.
    pub neighbour_offsets: Vec<u32>,
    /// Welded vertices sharing an edge with each vertex, each edge once per end.
    pub neighbours: Vec<u32>,
    /// `corner_offsets[v]..corner_offsets[v + 1]` index `corners`: vertex `v`'s face corners.
    pub corner_offsets: Vec<u32>,
    /// Face corners grouped by vertex.
    pub corners: Vec<DmCorner>,
    /// The least [`corner_height`] a corner's frame counts at: [`MIN_CORNER_HEIGHT_ROUNDINGS`]
    /// f32 roundings of the rest surface's bounding-box diagonal.
    pub min_corner_height: f64,
    /// The parameters the deltas were made with.
    pub params: DmParams,
}

impl DmSurface {
    /// The edge graph and rest deltas of `surface` at `params`.
    #[must_use]
    pub fn new(surface: &WeldedSurface, params: DmParams) -> Self {
        let n = surface.len();
        let (neighbour_offsets, neighbours) = edge_graph(n, &surface.triangles);
        let (lo, hi) = surface.positions.iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        let diagonal = if n > 0 { (hi - lo).length() } else { 0.0 };
        let mut out = Self {
            neighbour_offsets,
            neighbours,
            corner_offsets: Vec::new(),
            corners: Vec::new(),
            min_corner_height: MIN_CORNER_HEIGHT_ROUNDINGS * f64::from(f32::EPSILON) * diagonal,
            params,
        };
        let smoothed = smooth_positions(&out, &surface.positions);
        let mut by_vertex: Vec<Vec<DmCorner>> = vec![Vec::new(); n];
        for t in &surface.triangles {
            for k in 0..3 {
                let (prev, curr, next) = (t[(k + 2) % 3], t[k], t[(k + 1) % 3]);
                let at = |v: u32, of: &[DVec3]| of[v as usize];
                let rest = &surface.positions;
                let (a, b, c) = (
                    at(prev, &smoothed),
                    at(curr, &smoothed),
                    at(next, &smoothed),
                );
                let rest_frame = corner_frame(a, b, c).map_or(DMat3::IDENTITY, |f| f.basis);
                let delta = at(curr, rest) - b;
                by_vertex[curr as usize].push(DmCorner {
                    prev,
                    next,
                    delta: rest_frame.transpose() * delta,
                    rest_frame,
                    rest_stable: corner_height(a, b, c) >= out.min_corner_height,
                });
            }
        }
        out.corner_offsets.push(0);
        for corners in by_vertex {
            out.corners.extend(corners);
            out.corner_offsets.push(out.corners.len() as u32);
        }
        out
    }

    /// Number of welded vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.neighbour_offsets.len().saturating_sub(1)
    }

    /// Whether the surface has no vertex.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The welded vertices sharing an edge with `v`.
    #[must_use]
    pub fn neighbours_of(&self, v: usize) -> &[u32] {
        let (a, b) = (self.neighbour_offsets[v], self.neighbour_offsets[v + 1]);
        &self.neighbours[a as usize..b as usize]
    }

    /// The face corners of `v`.
    #[must_use]
    pub fn corners_of(&self, v: usize) -> &[DmCorner] {
        let (a, b) = (self.corner_offsets[v], self.corner_offsets[v + 1]);
        &self.corners[a as usize..b as usize]
    }
}

/// Each vertex's distinct edge neighbours (CSR), from `triangles` over `n` vertices.
fn edge_graph(n: usize, triangles: &[[u32; 3]]) -> (Vec<u32>, Vec<u32>) {
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
    for t in triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            lists[a as usize].push(b);
            lists[b as usize].push(a);
        }
    }
    let mut offsets = Vec::with_capacity(n + 1);
    let mut flat = Vec::new();
    offsets.push(0);
    for mut list in lists {
        list.sort_unstable();
        list.dedup();
        flat.extend(list);
        offsets.push(flat.len() as u32);
    }
    (offsets, flat)
}

/// `positions` after `surface.params.iterations` simple Laplacian steps of its factor: each
/// step moves every vertex `factor` of the way to its edge neighbours' mean, all from the
/// previous step's positions (Blender's `smooth_iter__simple`).
#[must_use]
pub fn smooth_positions(surface: &DmSurface, positions: &[DVec3]) -> Vec<DVec3> {
    let factor = f64::from(surface.params.factor);
    let mut current = positions.to_vec();
    let mut next = positions.to_vec();
    for _ in 0..surface.params.iterations {
        for (v, out) in next.iter_mut().enumerate() {
            let p = current[v];
            let around = surface.neighbours_of(v);
            if around.is_empty() {
                *out = p;
                continue;
            }
            let sum: DVec3 = around.iter().map(|&u| current[u as usize] - p).sum();
            *out = p + sum * (factor / around.len() as f64);
        }
        std::mem::swap(&mut current, &mut next);
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit square in the xy plane as two triangles, and a fifth vertex above its centre
    /// joined to all four corners.
    fn pyramid() -> WeldedSurface {
        WeldedSurface {
            positions: vec![
                DVec3::new(0.0, 0.0, 0.0),
                DVec3::new(1.0, 0.0, 0.0),
                DVec3::new(1.0, 1.0, 0.0),
                DVec3::new(0.0, 1.0, 0.0),
                DVec3::new(0.5, 0.5, 1.0),
            ],
            triangles: vec![
                [0, 2, 1],
                [0, 3, 2],
                [0, 1, 4],
                [1, 2, 4],
                [2, 3, 4],
                [3, 0, 4],
            ],
            ..WeldedSurface::default()
        }
    }

    #[test]
    fn each_edge_counts_once_per_end() {
        let s = DmSurface::new(&pyramid(), DmParams::DEFAULT);
        // Vertex 0 touches 1, 2 (the square's diagonal), 3 and the apex.
        assert_eq!(s.neighbours_of(0), &[1, 2, 3, 4]);
        assert_eq!(s.neighbours_of(4), &[0, 1, 2, 3]);
        assert_eq!(s.corners_of(4).len(), 4);
        assert_eq!(s.corners.len(), 18);
    }

    #[test]
    fn one_step_moves_a_vertex_factor_of_the_way_to_its_neighbours_mean() {
        let surface = pyramid();
        let params = DmParams {
            iterations: 1,
            factor: 0.25,
        };
        let s = DmSurface::new(&surface, params);
        let out = smooth_positions(&s, &surface.positions);
        // The apex's neighbours average to the square's centre at height 0.
        let apex = DVec3::new(0.5, 0.5, 0.75);
        assert!(out[4].abs_diff_eq(apex, 1e-12), "{}", out[4]);
        // Vertex 1 (neighbours 0, 2, 4; mean (0.5, 0.5, 1/3)) moves a quarter of the way.
        let mean = DVec3::new(0.5, 0.5, 1.0 / 3.0);
        let expected = DVec3::X + (mean - DVec3::X) * 0.25;
        assert!(out[1].abs_diff_eq(expected, 1e-12), "{}", out[1]);
    }

    #[test]
    fn rest_deltas_rebuild_the_rest_pose_in_every_corner() {
        let surface = pyramid();
        let s = DmSurface::new(&surface, DmParams::DEFAULT);
        let smoothed = smooth_positions(&s, &surface.positions);
        for (v, at) in smoothed.iter().enumerate() {
            for c in s.corners_of(v) {
                let back = *at + c.rest_frame * c.delta;
                assert!(back.abs_diff_eq(surface.positions[v], 1e-12), "vertex {v}");
            }
        }
    }
}
