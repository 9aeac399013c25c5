//! Direct Delta Mush over a whole scene: each skinned mesh's welded surface and precompute,
//! and the scene posed through the one scene-skinning core.

use glam::{DVec3, Mat3, Vec3, Vec4};

use super::{
    DdmParams, DdmProgress, DdmWeights, SmoothingError, Sym4, WeldedSurface, ddm_precompute_with,
    skin_vertex_ddm, skin_vertex_ddm_scaled,
};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{JointPalette, PosedPrimitive, SkinMesh, SkinnedVertices, SkinningMode};

/// One skinned mesh's welded surface and its `Omega` matrices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshDdm {
    /// The welded surface the smoothing ran over.
    pub surface: WeldedSurface,
    /// The precomputed matrices, by welded vertex.
    pub weights: DdmWeights,
}

/// The Direct Delta Mush precompute of every mesh of a scene with influences.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SceneDdm {
    /// `per_mesh[mesh]`: `None` for a mesh without influences.
    pub per_mesh: Vec<Option<MeshDdm>>,
    /// The parameters it was computed with.
    pub params: DdmParams,
}

impl SceneDdm {
    /// Welds and precomputes every mesh of `scene` that has influences.
    pub fn compute(scene: &Scene, params: DdmParams) -> Result<Self, SmoothingError> {
        Self::compute_with(scene, params, &DdmProgress::new())
    }

    /// Like [`SceneDdm::compute`], with progress and cancellation.
    pub fn compute_with(
        scene: &Scene,
        params: DdmParams,
        progress: &DdmProgress,
    ) -> Result<Self, SmoothingError> {
        Self::compute_in(scene, params, progress, None)
    }

    /// Like [`SceneDdm::compute_with`], reading each mesh's matrices from the cache in `dir`
    /// (or [`crate::skin::cor_cache_dir`]) when there, else computing and caching them; also
    /// returns how many meshes came from the cache.
    pub fn compute_cached(
        scene: &Scene,
        params: DdmParams,
        progress: &DdmProgress,
        dir: Option<&std::path::Path>,
    ) -> Result<(Self, usize), SmoothingError> {
        let dir = dir
            .map(std::path::Path::to_path_buf)
            .or_else(crate::skin::cor_cache_dir);
        let hits = std::sync::atomic::AtomicUsize::new(0);
        let cache = dir.as_deref().map(|d| (d, &hits));
        let ddm = Self::compute_in(scene, params, progress, cache)?;
        Ok((ddm, hits.into_inner()))
    }

    /// Welds and precomputes every mesh, through the cache in `cache`'s folder when given
    /// (counting its hits).
    fn compute_in(
        scene: &Scene,
        params: DdmParams,
        progress: &DdmProgress,
        cache: Option<(&std::path::Path, &std::sync::atomic::AtomicUsize)>,
    ) -> Result<Self, SmoothingError> {
        let per_mesh = scene
            .meshes
            .iter()
            .map(|mesh| {
                let surface = WeldedSurface::of_mesh(mesh);
                if surface.is_empty() {
                    return Ok(None);
                }
                if let Some((dir, hits)) = cache
                    && let Some(weights) = super::cache::read_cached(dir, &surface, params)
                {
                    hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    return Ok(Some(MeshDdm { surface, weights }));
                }
                let weights = ddm_precompute_with(&surface, params, progress)?;
                if let Some((dir, _)) = cache {
                    super::cache::write_cached(dir, &surface, params, &weights);
                }
                Ok(Some(MeshDdm { surface, weights }))
            })
            .collect::<Result<_, SmoothingError>>()?;
        Ok(Self { per_mesh, params })
    }

    /// Vertex-joint pairs kept, all meshes together.
    #[must_use]
    pub fn pair_count(&self) -> usize {
        self.per_mesh
            .iter()
            .flatten()
            .map(|m| m.weights.joints.len())
            .sum()
    }

    /// Welded vertices, all meshes together (the smoothing graph's vertices).
    #[must_use]
    pub fn welded_vertex_count(&self) -> usize {
        WeldedSurface::total_len(self.per_mesh.iter().flatten().map(|m| &m.surface))
    }

    /// Bytes the matrices hold, all meshes together.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.per_mesh
            .iter()
            .flatten()
            .map(|m| m.weights.bytes())
            .sum()
    }
}

/// Skins every vertex of one primitive (`vertex_of`: its welded vertices) by Direct Delta
/// Mush: the morphed bind vertex moved by its welded vertex's fit; a vertex without a fit
/// (no rotation to fit) by LBS.
pub fn skin_vertices_ddm(
    palette: &JointPalette,
    mesh: &SkinMesh<'_>,
    ddm: &MeshDdm,
    vertex_of: &[u32],
    out: &mut SkinnedVertices,
) {
    crate::skin::cpu::fill_skinned(mesh, out, |v| skin_one(palette, mesh, ddm, vertex_of, v));
}

/// Vertex `v` of `mesh` by Direct Delta Mush, else LBS.
fn skin_one(
    palette: &JointPalette,
    mesh: &SkinMesh<'_>,
    ddm: &MeshDdm,
    vertex_of: &[u32],
    v: usize,
) -> (Vec3, Vec3, Vec4) {
    let bind = (mesh.positions[v], mesh.normal(v), mesh.tangent(v));
    let influences = mesh.influences.of(v);
    let lbs = || {
        let (p, n, t) = bind;
        crate::skin::skin_vertex(palette, SkinningMode::Lbs, 0.0, p, n, t, influences)
    };
    let Some(&w) = vertex_of.get(v) else {
        return lbs();
    };
    let w = w as usize;
    let (joints, omega) = ddm.weights.of(w);
    let pairs = DdmPairsRef {
        rest: ddm.surface.positions[w],
        joints,
        omega,
    };
    ddm_vertex(palette, &pairs, bind, influences).unwrap_or_else(lbs)
}

/// One vertex's Direct Delta Mush data: its welded vertex's rest position and pairs.
#[derive(Clone, Copy, Debug)]
pub struct DdmPairsRef<'a> {
    /// The welded vertex's rest (bind-space) position.
    pub rest: DVec3,
    /// The joints of its pairs.
    pub joints: &'a [u16],
    /// Their `Omega` matrices, about `rest`.
    pub omega: &'a [Sym4],
}

/// The vertex `bind` (position, normal, tangent; `influences` its weights) moved by Direct Delta
/// Mush at `palette`; `None` where the fit finds no rotation or the result is not finite (the
/// caller takes LBS).
///
/// The fit keeps only a rotation, so where some joint scales (Enhanced DDM's case) the
/// vertex's offset from its smoothed rest neighbourhood's centre is scaled by its joints'
/// scale/shear parts blended by its weights (DQS's first phase, on an offset) before it is
/// turned, and the rotation is fitted without the scale ([`skin_vertex_ddm_scaled`]); the
/// centre itself moves with the joints' full matrices. With every joint rigid it is the plain
/// fit; a lone joint's vertices move exactly as that joint does.
#[must_use]
pub fn ddm_vertex(
    palette: &JointPalette,
    pairs: &DdmPairsRef<'_>,
    bind: (Vec3, Vec3, Vec4),
    influences: &[crate::influences::Influence],
) -> Option<(Vec3, Vec3, Vec4)> {
    let (p, n, t) = bind;
    let scale = crate::skin::cpu::blended_scale_shear(palette, influences);
    let (rest, joints, omega) = (pairs.rest, pairs.joints, pairs.omega);
    let fit = match scale {
        None => skin_vertex_ddm(&palette.matrices, rest, joints, omega)?,
        Some(s) => skin_vertex_ddm_scaled(palette, s, rest, joints, omega)?,
    };
    // The offset the fit turns, and the normal and tangent it turns.
    let (offset, n1, t1) = match scale {
        None => (p.as_dvec3() - rest, n, t),
        Some(s) => (
            s.as_dmat3() * (p.as_dvec3() - rest - fit.smoothed_offset) + fit.smoothed_offset,
            crate::skin::cpu::transform_normal(s, n),
            crate::skin::cpu::transform_tangent(s, t),
        ),
    };
    let position = (fit.rotation * offset + fit.translation).as_vec3();
    let r = fit.rotation.as_mat3();
    let normal = (r * n1).try_normalize().unwrap_or(n);
    position
        .is_finite()
        .then(|| (position, normal, rotate_tangent(r, t1)))
}

/// A tangent (handedness in w) turned by `r`.
fn rotate_tangent(r: Mat3, t: Vec4) -> Vec4 {
    (r * t.truncate())
        .try_normalize()
        .unwrap_or(t.truncate())
        .extend(t.w)
}

/// Poses every primitive like [`crate::skin::skin_scene`], skinned ones by Direct Delta Mush
/// with `ddm`'s matrices (primitives it has none for by LBS).
#[must_use]
pub fn skin_scene_ddm(scene: &Scene, pose: &Pose, ddm: &SceneDdm) -> Vec<PosedPrimitive> {
    super::super::posed::skin_scene_with(scene, pose, |job, out| {
        let mesh = ddm.per_mesh.get(job.mesh).and_then(Option::as_ref);
        let vertex_of = mesh.and_then(|m| m.surface.vertex_of.get(job.primitive));
        match (mesh, vertex_of) {
            (Some(mesh), Some(vertex_of)) if !vertex_of.is_empty() => {
                skin_vertices_ddm(job.palette, job.bind, mesh, vertex_of, out);
            }
            _ => crate::skin::skin_vertices(
                job.palette,
                job.bind,
                SkinningMode::Lbs,
                crate::skin::Betas::Uniform(0.0),
                out,
            ),
        }
    })
}
