//! CPU reference skinning: the specification the GPU shaders are tested against.

use glam::{Mat3, Mat4, Vec3, Vec4};
use rayon::prelude::*;

use std::sync::atomic::{AtomicU64, Ordering};

use super::{JointPalette, SkinningMode};
use crate::dq::{DualQuat, blend};
use crate::influences::{Influence, Influences};

/// Vertices per parallel work item.
const CHUNK: usize = 4096;

/// Bind-pose vertex data of one skinned primitive.
#[derive(Clone, Copy, Debug)]
pub struct SkinMesh<'a> {
    /// Bind-pose positions.
    pub positions: &'a [Vec3],
    /// Bind-pose unit normals (same length as positions, or empty).
    pub normals: &'a [Vec3],
    /// Bind-pose tangents with handedness in w (same length as positions, or empty).
    pub tangents: &'a [Vec4],
    /// Joint influences per vertex (same length as positions).
    pub influences: &'a Influences,
}

impl SkinMesh<'_> {
    /// Whether every vertex has a normal.
    #[must_use]
    pub fn has_normals(&self) -> bool {
        self.normals.len() == self.positions.len()
    }

    /// Whether every vertex has a tangent.
    #[must_use]
    pub fn has_tangents(&self) -> bool {
        self.tangents.len() == self.positions.len()
    }

    /// Normal of vertex `v`; +Y when the mesh has none (every skinning path uses this stand-in).
    #[must_use]
    pub fn normal(&self, v: usize) -> Vec3 {
        self.normals.get(v).copied().unwrap_or(Vec3::Y)
    }

    /// Tangent of vertex `v`; +X, right-handed, when the mesh has none.
    #[must_use]
    pub fn tangent(&self, v: usize) -> Vec4 {
        self.tangents.get(v).copied().unwrap_or(Vec4::X)
    }
}

/// Hybrid blend factors: 0 is pure LBS, 1 pure DQS.
#[derive(Clone, Copy, Debug)]
pub enum Betas<'a> {
    /// One beta for every vertex.
    Uniform(f32),
    /// One beta per vertex (missing entries count as 1).
    PerVertex(&'a [f32]),
    /// One beta per vertex (missing entries count as 1) times a global scale.
    Scaled(&'a [f32], f32),
}

impl Betas<'_> {
    /// Beta of vertex `v`, clamped to [0, 1]; NaN counts as 1 (DQS).
    #[must_use]
    pub fn of(&self, v: usize) -> f32 {
        let b = match self {
            Self::Uniform(b) => *b,
            Self::PerVertex(all) => all.get(v).copied().unwrap_or(1.0),
            Self::Scaled(all, scale) => all.get(v).copied().unwrap_or(1.0) * scale,
        };
        if b.is_nan() { 1.0 } else { b.clamp(0.0, 1.0) }
    }
}

/// Skinned output of one primitive; buffers are reused across frames.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkinnedVertices {
    /// Skinned positions.
    pub positions: Vec<Vec3>,
    /// Skinned unit normals (empty when the mesh has none).
    pub normals: Vec<Vec3>,
    /// Skinned tangents, handedness in w (empty when the mesh has none).
    pub tangents: Vec<Vec4>,
}

/// Vertices the CPU reference functions have skinned in this process.
static CPU_SKINNED_VERTICES: AtomicU64 = AtomicU64::new(0);

/// How many vertices the CPU reference ([`skin_vertices`], `skin_vertices_cor`) has skinned
/// in this process: lets a test check that a path (a GPU export) skins each vertex once.
#[must_use]
pub fn cpu_skinned_vertices() -> u64 {
    CPU_SKINNED_VERTICES.load(Ordering::Relaxed)
}

/// Adds `n` to [`cpu_skinned_vertices`].
pub(crate) fn count_cpu_skinned(n: usize) {
    CPU_SKINNED_VERTICES.fetch_add(n as u64, Ordering::Relaxed);
}

/// Skins every vertex of `mesh` with `mode`, in parallel, into `out` (resized to fit).
pub fn skin_vertices(
    palette: &JointPalette,
    mesh: &SkinMesh<'_>,
    mode: SkinningMode,
    betas: Betas<'_>,
    out: &mut SkinnedVertices,
) {
    fill_skinned(mesh, out, |v| {
        let (n, t) = (mesh.normal(v), mesh.tangent(v));
        let infl = mesh.influences.of(v);
        skin_vertex(palette, mode, betas.of(v), mesh.positions[v], n, t, infl)
    });
}

/// Fills `out` (resized to fit) with `skin(v)` for every vertex of `mesh`, in parallel chunks;
/// the normal and tangent streams the mesh lacks are left empty. Counted as CPU-skinned.
pub(super) fn fill_skinned(
    mesh: &SkinMesh<'_>,
    out: &mut SkinnedVertices,
    skin: impl Fn(usize) -> (Vec3, Vec3, Vec4) + Sync,
) {
    let n = mesh.positions.len();
    count_cpu_skinned(n);
    // Always fill all three streams so the chunks line up; drop the ones the mesh lacks after.
    out.positions.resize(n, Vec3::ZERO);
    out.normals.resize(n, Vec3::ZERO);
    out.tangents.resize(n, Vec4::ZERO);
    out.positions
        .par_chunks_mut(CHUNK)
        .zip(out.normals.par_chunks_mut(CHUNK))
        .zip(out.tangents.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(chunk, ((pos_out, nrm_out), tan_out))| {
            let start = chunk * CHUNK;
            for k in 0..pos_out.len() {
                (pos_out[k], nrm_out[k], tan_out[k]) = skin(start + k);
            }
        });
    if !mesh.has_normals() {
        out.normals.clear();
    }
    if !mesh.has_tangents() {
        out.tangents.clear();
    }
}

/// Skins one vertex: position, unit normal and tangent (handedness in w).
///
/// A vertex with no influences stays at its bind position. Joint indices past
/// the palette count as the identity. The result is always finite: a
/// non-finite position falls back to the bind position (or the origin).
#[must_use]
pub fn skin_vertex(
    palette: &JointPalette,
    mode: SkinningMode,
    beta: f32,
    position: Vec3,
    normal: Vec3,
    tangent: Vec4,
    influences: &[Influence],
) -> (Vec3, Vec3, Vec4) {
    if influences.is_empty() {
        return finite_or(position, normal, tangent, (position, normal, tangent));
    }
    let out = match mode {
        SkinningMode::Lbs => lbs(palette, position, normal, tangent, influences),
        SkinningMode::Dqs => dqs(palette, position, normal, tangent, influences),
        // Without a precomputed center the vertex is its own center, which is LBS;
        // `skin_vertex_cor` takes the center.
        SkinningMode::Cor => {
            super::cor::skin_vertex_cor(palette, position, normal, tangent, influences, position)
        }
        // Without its precomputed matrices DDM has no smoothing to fit: LBS, as the shaders
        // draw it; `skin_vertices_ddm` takes the matrices.
        SkinningMode::Ddm => lbs(palette, position, normal, tangent, influences),
        // Delta Mush smooths the whole mesh, not one vertex: LBS, the surface it smooths;
        // `skin_scene_dm` does the rest.
        SkinningMode::Dm => lbs(palette, position, normal, tangent, influences),
        SkinningMode::Hybrid => {
            let (pl, nl, tl) = lbs(palette, position, normal, tangent, influences);
            let (pd, nd, td) = dqs(palette, position, normal, tangent, influences);
            let n = nl.lerp(nd, beta).try_normalize().unwrap_or(nd);
            let t = tl
                .truncate()
                .lerp(td.truncate(), beta)
                .try_normalize()
                .unwrap_or(td.truncate());
            (pl.lerp(pd, beta), n, t.extend(td.w))
        }
    };
    finite_or(out.0, out.1, out.2, (position, normal, tangent))
}

/// Linear blend skinning of one vertex: M = sum w_i M_i.
fn lbs(
    palette: &JointPalette,
    position: Vec3,
    normal: Vec3,
    tangent: Vec4,
    influences: &[Influence],
) -> (Vec3, Vec3, Vec4) {
    let mut m = Mat4::ZERO;
    for i in influences {
        let joint = palette
            .matrices
            .get(i.joint as usize)
            .copied()
            .unwrap_or(Mat4::IDENTITY);
        m += joint * i.weight;
    }
    let a = Mat3::from_mat4(m);
    let p = m.transform_point3(position);
    let n = transform_normal(a, normal);
    let t = transform_tangent(a, tangent);
    (p, n, t)
}

/// The two-phase split's first phase: the vertex's scale/shear blended linearly and applied in
/// bind space; the vertex as it is when every joint is rigid.
fn scale_phase(
    palette: &JointPalette,
    position: Vec3,
    normal: Vec3,
    tangent: Vec4,
    influences: &[Influence],
) -> (Vec3, Vec3, Vec4) {
    let Some(s) = blended_scale_shear(palette, influences) else {
        return (position, normal, tangent);
    };
    (
        s * position,
        transform_normal(s, normal),
        transform_tangent(s, tangent),
    )
}

/// The joints' scale/shear parts blended by `influences`' weights; `None` when every joint of
/// the palette is rigid.
pub(crate) fn blended_scale_shear(
    palette: &JointPalette,
    influences: &[Influence],
) -> Option<Mat3> {
    let scales = palette.scale_shear.as_ref()?;
    let mut s = Mat3::ZERO;
    for i in influences {
        s += scales
            .get(i.joint as usize)
            .copied()
            .unwrap_or(Mat3::IDENTITY)
            * i.weight;
    }
    Some(s)
}

/// Dual quaternion skinning of one vertex, with the scale/shear phase when the palette has one.
fn dqs(
    palette: &JointPalette,
    position: Vec3,
    normal: Vec3,
    tangent: Vec4,
    influences: &[Influence],
) -> (Vec3, Vec3, Vec4) {
    let (p1, n1, t1) = scale_phase(palette, position, normal, tangent, influences);
    // Phase 2: rigid blend. Influence 0 is the heaviest and serves as the pivot.
    let dq = blend(influences.iter().map(|i| {
        let q = palette
            .dual_quats
            .get(i.joint as usize)
            .copied()
            .unwrap_or(DualQuat::IDENTITY);
        (q, i.weight)
    }));
    let n = dq.transform_vector3(n1).try_normalize().unwrap_or(n1);
    let t = dq
        .transform_vector3(t1.truncate())
        .try_normalize()
        .unwrap_or(t1.truncate());
    (dq.transform_point3(p1), n, t.extend(t1.w))
}

/// Transforms a normal by the cofactor matrix of `a` (the inverse transpose times det), then normalises.
///
/// The cofactor form needs no inverse, so it stays finite for singular `a`; a
/// normal it collapses to zero falls back to `a * n`, then to `n`.
pub(super) fn transform_normal(a: Mat3, n: Vec3) -> Vec3 {
    let cof = Mat3::from_cols(
        a.y_axis.cross(a.z_axis),
        a.z_axis.cross(a.x_axis),
        a.x_axis.cross(a.y_axis),
    );
    let sign = if a.determinant() < 0.0 { -1.0 } else { 1.0 };
    (cof * n * sign)
        .try_normalize()
        .or_else(|| (a * n).try_normalize())
        .unwrap_or(n)
}

/// Transforms a tangent's direction by `a` and flips its handedness when `a` mirrors.
pub(super) fn transform_tangent(a: Mat3, t: Vec4) -> Vec4 {
    let dir = (a * t.truncate()).try_normalize().unwrap_or(t.truncate());
    let w = if a.determinant() < 0.0 { -t.w } else { t.w };
    dir.extend(w)
}

/// Returns the skinned triple when all finite, else the fallback (itself made finite).
pub(super) fn finite_or(
    p: Vec3,
    n: Vec3,
    t: Vec4,
    fallback: (Vec3, Vec3, Vec4),
) -> (Vec3, Vec3, Vec4) {
    let p = if p.is_finite() {
        p
    } else if fallback.0.is_finite() {
        fallback.0
    } else {
        Vec3::ZERO
    };
    let n = if n.is_finite() {
        n
    } else if fallback.1.is_finite() {
        fallback.1
    } else {
        Vec3::Y
    };
    let t = if t.is_finite() {
        t
    } else if fallback.2.is_finite() {
        fallback.2
    } else {
        Vec4::X
    };
    (p, n, t)
}
