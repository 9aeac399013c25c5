//! Fast CPU skinning: eight vertices at a time in structure-of-arrays form.
//!
//! The same math as the reference in `cpu.rs` (which stays the specification),
//! laid out so the compiler vectorises it: every operation runs on `[f32; 8]`
//! lanes. Covers the common case: at most four influences per vertex and a
//! rigid palette (no scale/shear phase); [`PackedMesh::supports`] says when.

// Lane loops index several arrays by the same lane on purpose: that is what vectorises.
#![allow(clippy::needless_range_loop)]

use glam::{Mat4, Vec3};
use rayon::prelude::*;

use super::{JointPalette, SkinMesh, SkinnedVertices, SkinningMode};

/// Lanes per chunk.
const LANES: usize = 8;
/// Chunks per parallel work item.
const CHUNKS_PER_TASK: usize = 512;

type Lane = [f32; LANES];

/// Eight vertices: bind positions and normals, four (joint, weight) pairs each.
#[derive(Clone, Copy, Debug, Default)]
struct Chunk {
    p: [Lane; 3],
    n: [Lane; 3],
    joints: [[u16; LANES]; 4],
    weights: [Lane; 4],
}

/// A mesh packed for [`skin_packed`]; build once, skin every frame without allocating.
#[derive(Clone, Debug, Default)]
pub struct PackedMesh {
    chunks: Vec<Chunk>,
    vertices: usize,
}

impl PackedMesh {
    /// Whether the fast path covers `mesh`: at most 4 influences a vertex.
    #[must_use]
    pub fn supports(mesh: &SkinMesh<'_>) -> bool {
        mesh.influences.max_influences() <= 4
            && mesh.influences.vertex_count() == mesh.positions.len()
    }

    /// Packs positions, normals (+Y when missing) and up to 4 influences per vertex.
    #[must_use]
    pub fn new(mesh: &SkinMesh<'_>) -> Self {
        let n = mesh.positions.len();
        let mut chunks = vec![Chunk::default(); n.div_ceil(LANES)];
        for (v, row) in mesh.influences.iter().enumerate().take(n) {
            let (c, l) = (v / LANES, v % LANES);
            let chunk = &mut chunks[c];
            let p = mesh.positions[v];
            let nrm = mesh.normal(v);
            for k in 0..3 {
                chunk.p[k][l] = p[k];
                chunk.n[k][l] = nrm[k];
            }
            if row.is_empty() {
                // No influence: the identity, as joint u16::MAX (the palette maps it to identity).
                chunk.joints[0][l] = u16::MAX;
                chunk.weights[0][l] = 1.0;
            }
            for (k, i) in row.iter().take(4).enumerate() {
                chunk.joints[k][l] = i.joint;
                chunk.weights[k][l] = i.weight;
            }
        }
        Self {
            chunks,
            vertices: n,
        }
    }

    /// Number of vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.vertices
    }

    /// Whether there are no vertices.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.vertices == 0
    }
}

/// Joint transforms for the fast path: dual quaternions (8 floats) and LBS matrices (12 floats).
#[derive(Clone, Debug, Default)]
pub struct PackedPalette {
    dq: Vec<[f32; 8]>,
    m: Vec<[f32; 12]>,
}

impl PackedPalette {
    /// Copies a palette, plus one identity at the end for vertices without influences.
    pub fn update(&mut self, palette: &JointPalette) {
        self.dq.clear();
        self.m.clear();
        self.dq
            .extend(palette.dual_quats.iter().map(|q| q.to_array()));
        self.m.extend(palette.matrices.iter().map(|m| rows_of(*m)));
        self.dq.push([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
        self.m.push(rows_of(Mat4::IDENTITY));
    }

    /// Index of the identity entry used for unknown joints.
    fn identity(&self) -> usize {
        self.dq.len() - 1
    }
}

/// The top three rows of a matrix, row-major.
fn rows_of(m: Mat4) -> [f32; 12] {
    let r = m.transpose().to_cols_array();
    [
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11],
    ]
}

/// Skins a packed mesh with a rigid palette (LBS or DQS) into `out` (positions and normals).
///
/// Hybrid and CoR are not covered: use [`super::skin_vertices`]. Returns false, writing nothing, then.
pub fn skin_packed(
    mesh: &PackedMesh,
    palette: &PackedPalette,
    mode: SkinningMode,
    out: &mut SkinnedVertices,
) -> bool {
    if matches!(mode, SkinningMode::Hybrid | SkinningMode::Cor) || palette.dq.is_empty() {
        return false;
    }
    out.positions.resize(mesh.vertices, Vec3::ZERO);
    out.normals.resize(mesh.vertices, Vec3::ZERO);
    out.tangents.clear();
    let task = CHUNKS_PER_TASK * LANES;
    out.positions
        .par_chunks_mut(task)
        .zip(out.normals.par_chunks_mut(task))
        .zip(mesh.chunks.par_chunks(CHUNKS_PER_TASK))
        .for_each(|((pos, nrm), chunks)| {
            for (c, chunk) in chunks.iter().enumerate() {
                let (p, n) = match mode {
                    SkinningMode::Lbs => lbs8(chunk, palette),
                    _ => dqs8(chunk, palette),
                };
                let base = c * LANES;
                for l in 0..LANES {
                    if let (Some(po), Some(no)) = (pos.get_mut(base + l), nrm.get_mut(base + l)) {
                        *po = Vec3::new(p[0][l], p[1][l], p[2][l]);
                        *no = Vec3::new(n[0][l], n[1][l], n[2][l]);
                    }
                }
            }
        });
    true
}

/// Linear blend of eight vertices: M = sum w_i M_i, normals by the cofactor matrix of M's 3x3.
fn lbs8(c: &Chunk, pal: &PackedPalette) -> ([Lane; 3], [Lane; 3]) {
    let mut m = [[0.0f32; LANES]; 12];
    for k in 0..4 {
        for l in 0..LANES {
            let j = c.joints[k][l] as usize;
            let row = pal.m.get(j).unwrap_or(&pal.m[pal.identity()]);
            let w = c.weights[k][l];
            for e in 0..12 {
                m[e][l] += w * row[e];
            }
        }
    }
    let mut p = [[0.0f32; LANES]; 3];
    let mut n = [[0.0f32; LANES]; 3];
    for r in 0..3 {
        for l in 0..LANES {
            p[r][l] = m[4 * r][l] * c.p[0][l]
                + m[4 * r + 1][l] * c.p[1][l]
                + m[4 * r + 2][l] * c.p[2][l]
                + m[4 * r + 3][l];
        }
    }
    // Normals by the cofactor matrix (inverse transpose times det), as the reference does.
    for l in 0..LANES {
        let a = Vec3::new(m[0][l], m[4][l], m[8][l]);
        let b = Vec3::new(m[1][l], m[5][l], m[9][l]);
        let cc = Vec3::new(m[2][l], m[6][l], m[10][l]);
        let bc = b.cross(cc);
        let sign = if a.dot(bc) < 0.0 { -1.0 } else { 1.0 };
        let nn = (bc * c.n[0][l] + cc.cross(a) * c.n[1][l] + a.cross(b) * c.n[2][l]) * sign;
        for e in 0..3 {
            n[e][l] = nn[e];
        }
    }
    normalize8(&mut n, &c.n);
    (p, n)
}

/// Dual quaternion blend of eight vertices, pivot = influence 0, then rotate + translate.
fn dqs8(c: &Chunk, pal: &PackedPalette) -> ([Lane; 3], [Lane; 3]) {
    let mut q = [[0.0f32; LANES]; 8];
    let mut pivot = [[0.0f32; LANES]; 4];
    for k in 0..4 {
        let mut g = [[0.0f32; LANES]; 8];
        for l in 0..LANES {
            let j = c.joints[k][l] as usize;
            let d = pal.dq.get(j).unwrap_or(&pal.dq[pal.identity()]);
            for e in 0..8 {
                g[e][l] = d[e];
            }
        }
        if k == 0 {
            pivot.copy_from_slice(&g[..4]);
        }
        for l in 0..LANES {
            let dot = g[0][l] * pivot[0][l]
                + g[1][l] * pivot[1][l]
                + g[2][l] * pivot[2][l]
                + g[3][l] * pivot[3][l];
            let w = if dot < 0.0 {
                -c.weights[k][l]
            } else {
                c.weights[k][l]
            };
            for e in 0..8 {
                q[e][l] += w * g[e][l];
            }
        }
    }
    let mut p = [[0.0f32; LANES]; 3];
    let mut n = [[0.0f32; LANES]; 3];
    for l in 0..LANES {
        let len =
            (q[0][l] * q[0][l] + q[1][l] * q[1][l] + q[2][l] * q[2][l] + q[3][l] * q[3][l]).sqrt();
        // Degenerate blends fall back to the pivot, as the reference does.
        let (r, d) = if len > 1e-6 && len.is_finite() {
            let inv = 1.0 / len;
            (
                [q[0][l] * inv, q[1][l] * inv, q[2][l] * inv, q[3][l] * inv],
                [q[4][l] * inv, q[5][l] * inv, q[6][l] * inv, q[7][l] * inv],
            )
        } else {
            (
                [pivot[0][l], pivot[1][l], pivot[2][l], pivot[3][l]],
                [0.0; 4],
            )
        };
        let rv = Vec3::new(r[0], r[1], r[2]);
        let dv = Vec3::new(d[0], d[1], d[2]);
        let t = 2.0 * (r[3] * dv - d[3] * rv + rv.cross(dv));
        let rotate = |v: Vec3| v + 2.0 * rv.cross(rv.cross(v) + r[3] * v);
        let pp = rotate(Vec3::new(c.p[0][l], c.p[1][l], c.p[2][l])) + t;
        let nn = rotate(Vec3::new(c.n[0][l], c.n[1][l], c.n[2][l]));
        for e in 0..3 {
            p[e][l] = pp[e];
            n[e][l] = nn[e];
        }
    }
    normalize8(&mut n, &c.n);
    (p, n)
}

/// Normalises eight normals; a zero or non-finite one falls back to the bind normal
/// (the reference tries the plain matrix first: the two differ only for degenerate joints).
fn normalize8(n: &mut [Lane; 3], bind: &[Lane; 3]) {
    for l in 0..LANES {
        let len2 = n[0][l] * n[0][l] + n[1][l] * n[1][l] + n[2][l] * n[2][l];
        let inv = 1.0 / len2.sqrt();
        let ok = inv.is_finite() && inv > 0.0;
        for e in 0..3 {
            n[e][l] = if ok { n[e][l] * inv } else { bind[e][l] };
        }
    }
}
