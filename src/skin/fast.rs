//! Fast CPU skinning: the mesh packed four vertices to a group, rayon over runs of groups.
//!
//! The same math as the reference in `cpu.rs` (which stays the specification);
//! the lane math lives in `fast_kernel.rs`. Covers the common case: at most four
//! influences per vertex, positions and normals (no tangents), and for DQS and
//! hybrid a rigid palette (no scale/shear phase); [`PackedMesh::supports`] and
//! the `bool` the skinning functions return say when.

use glam::{Mat4, Vec3, Vec4};
use rayon::prelude::*;

use super::fast_kernel::{
    Clamped, GROUP, Group, JointDq, JointRows, Lanes3, Skinned, Small, dqs_group, lbs_group,
};
use super::{Betas, JointPalette, SkinMesh, SkinnedVertices, SkinningMode};

/// Groups per parallel work item (4,096 vertices: ~50 items for 200k vertices on 2 cores).
const GROUPS_PER_TASK: usize = 1024;

/// Entries of the bounds-check-free palette table ([`Small`]): joints 0..=254, 255 is the identity.
const SMALL_TABLE: usize = 256;

/// Joint index of "no influence": past every palette, so it reads the identity.
const NO_JOINT: u16 = u16::MAX;

/// A mesh packed for [`skin_packed`]; build once, skin every frame without allocating.
#[derive(Clone, Debug, Default)]
pub struct PackedMesh {
    groups: Vec<Group>,
    vertices: usize,
    /// Largest joint index a vertex uses (`None` when no vertex has an influence).
    max_joint: Option<u16>,
    has_normals: bool,
}

impl PackedMesh {
    /// Whether the fast path covers `mesh`: at most 4 influences a vertex, one row per vertex.
    #[must_use]
    pub fn supports(mesh: &SkinMesh<'_>) -> bool {
        mesh.influences.max_influences() <= 4
            && mesh.influences.vertex_count() == mesh.positions.len()
    }

    /// Packs positions, normals (+Y when missing) and up to 4 influences per vertex.
    ///
    /// Influences past the fourth are dropped (check [`PackedMesh::supports`] first).
    #[must_use]
    pub fn new(mesh: &SkinMesh<'_>) -> Self {
        let n = mesh.positions.len();
        let mut max_joint = None;
        let groups = (0..n.div_ceil(GROUP))
            .map(|gi| {
                let range = gi * GROUP..((gi + 1) * GROUP).min(n);
                let normals: Vec<Vec3> = range.clone().map(|v| mesh.normal(v)).collect();
                let mut g = Group {
                    p: Lanes3::from_vectors(&mesh.positions[range.clone()]),
                    n: Lanes3::from_vectors(&normals),
                    ..Group::default()
                };
                for (l, v) in range.enumerate() {
                    let row = mesh.influences.of(v);
                    if row.is_empty() {
                        // No influence: the identity, so the vertex keeps its bind pose.
                        g.j[l] = [NO_JOINT, 0, 0, 0];
                        g.w[l] = Vec4::X;
                        continue;
                    }
                    let mut w = [0.0; 4];
                    for (k, i) in row.iter().take(4).enumerate() {
                        g.j[l][k] = i.joint;
                        w[k] = i.weight;
                        max_joint = max_joint.max(Some(i.joint));
                    }
                    g.w[l] = Vec4::from_array(w);
                }
                g
            })
            .collect();
        Self {
            groups,
            vertices: n,
            max_joint,
            has_normals: mesh.has_normals(),
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

    /// Whether every joint the mesh uses indexes the 256-entry table (below its identity slot).
    fn fits_small_table(&self) -> bool {
        self.max_joint
            .is_none_or(|j| usize::from(j) < SMALL_TABLE - 1)
    }
}

/// Joint transforms for the fast path: dual quaternions and LBS matrix rows, SIMD-aligned.
///
/// Both tables hold the palette's joints, then identities up to at least 256 entries, so
/// meshes with fewer than 255 joints index them with no bounds check.
#[derive(Clone, Debug, Default)]
pub struct PackedPalette {
    dq: Vec<JointDq>,
    rows: Vec<JointRows>,
    joints: usize,
    rigid: bool,
}

impl PackedPalette {
    /// Copies a palette (reusing this one's allocations).
    pub fn update(&mut self, palette: &JointPalette) {
        let identity_dq = identity_dq();
        let identity_rows = JointRows::from_mat4(Mat4::IDENTITY);
        self.joints = palette.len();
        self.rigid = palette.is_rigid();
        let padded = self.joints.max(SMALL_TABLE);
        self.dq.clear();
        self.dq.extend(palette.dual_quats.iter().map(|q| JointDq {
            real: Vec4::from(q.real),
            dual: Vec4::from(q.dual),
        }));
        self.dq.resize(padded, identity_dq);
        self.rows.clear();
        self.rows
            .extend(palette.matrices.iter().map(|m| JointRows::from_mat4(*m)));
        self.rows.resize(padded, identity_rows);
    }

    /// Number of joints copied from the palette.
    #[must_use]
    pub fn len(&self) -> usize {
        self.joints
    }

    /// Whether the palette has no joints.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.joints == 0
    }

    /// Whether every joint is rigid (DQS and hybrid need that on the fast path).
    #[must_use]
    pub fn is_rigid(&self) -> bool {
        self.rigid
    }

    /// Lookup into `table` for any mesh: joints past the palette read `identity`.
    fn clamped<'a, T: Copy>(&self, table: &'a [T], identity: T) -> Clamped<'a, T> {
        // Keep the "no influence" index past the end, whatever the palette's size.
        let joints = self.joints.min(usize::from(NO_JOINT));
        Clamped {
            entries: table.get(..joints).unwrap_or(&[]),
            identity,
        }
    }

    /// The 256-entry table view, when the palette has fewer than 256 joints.
    fn small<'a, T: Copy>(&self, table: &'a [T]) -> Option<&'a [T; SMALL_TABLE]> {
        if self.joints < SMALL_TABLE {
            table.get(..SMALL_TABLE)?.try_into().ok()
        } else {
            None
        }
    }
}

/// The identity dual quaternion.
fn identity_dq() -> JointDq {
    JointDq {
        real: Vec4::W,
        dual: Vec4::ZERO,
    }
}

/// Skins a packed mesh with LBS or DQS into `out` (positions and normals; tangents cleared).
///
/// Returns false, writing nothing, for hybrid (use [`skin_packed_hybrid`]) and for
/// DQS with a palette that has scale or shear (use [`super::skin_vertices`]).
pub fn skin_packed(
    mesh: &PackedMesh,
    palette: &PackedPalette,
    mode: SkinningMode,
    out: &mut SkinnedVertices,
) -> bool {
    let small = mesh.fits_small_table();
    match mode {
        SkinningMode::Lbs => match palette.small(&palette.rows).filter(|_| small) {
            Some(rows) => run(mesh, out, |g, _| lbs_group(g, &Small(rows))),
            None => {
                let rows = palette.clamped(&palette.rows, JointRows::from_mat4(Mat4::IDENTITY));
                run(mesh, out, |g, _| lbs_group(g, &rows));
            }
        },
        SkinningMode::Dqs if palette.rigid => match palette.small(&palette.dq).filter(|_| small) {
            Some(dq) => run(mesh, out, |g, _| dqs_group(g, &Small(dq))),
            None => {
                let dq = palette.clamped(&palette.dq, identity_dq());
                run(mesh, out, |g, _| dqs_group(g, &dq));
            }
        },
        SkinningMode::Dqs
        | SkinningMode::Hybrid
        | SkinningMode::Cor
        | SkinningMode::Ddm
        | SkinningMode::Dm => {
            return false;
        }
    }
    true
}

/// Hybrid skinning of a packed mesh: per vertex lerp(LBS, DQS, beta), as the reference does.
///
/// Returns false, writing nothing, when the palette has scale or shear (use [`super::skin_vertices`]).
pub fn skin_packed_hybrid(
    mesh: &PackedMesh,
    palette: &PackedPalette,
    betas: Betas<'_>,
    out: &mut SkinnedVertices,
) -> bool {
    if !palette.rigid {
        return false;
    }
    let beta_of = |first: usize| Vec4::from_array(std::array::from_fn(|l| betas.of(first + l)));
    let small = (palette.small(&palette.rows), palette.small(&palette.dq));
    match small {
        (Some(rows), Some(dq)) if mesh.fits_small_table() => {
            let (rows, dq) = (Small(rows), Small(dq));
            run(mesh, out, |g, first| {
                Skinned::lerp(&lbs_group(g, &rows), &dqs_group(g, &dq), beta_of(first))
            });
        }
        _ => {
            let rows = palette.clamped(&palette.rows, JointRows::from_mat4(Mat4::IDENTITY));
            let dq = palette.clamped(&palette.dq, identity_dq());
            run(mesh, out, |g, first| {
                Skinned::lerp(&lbs_group(g, &rows), &dqs_group(g, &dq), beta_of(first))
            });
        }
    }
    true
}

/// Runs `skin_group(group, index of its first vertex)` over every group in parallel, into `out`.
fn run(
    mesh: &PackedMesh,
    out: &mut SkinnedVertices,
    skin_group: impl Fn(&Group, usize) -> Skinned + Sync,
) {
    out.positions.resize(mesh.vertices, Vec3::ZERO);
    out.normals.resize(mesh.vertices, Vec3::ZERO);
    out.tangents.clear();
    let task = GROUPS_PER_TASK * GROUP;
    out.positions
        .par_chunks_mut(task)
        .zip(out.normals.par_chunks_mut(task))
        .zip(mesh.groups.par_chunks(GROUPS_PER_TASK))
        .enumerate()
        .for_each(|(t, ((positions, normals), groups))| {
            let first = t * task;
            for (i, ((p, n), g)) in positions
                .chunks_mut(GROUP)
                .zip(normals.chunks_mut(GROUP))
                .zip(groups)
                .enumerate()
            {
                let mut skinned = skin_group(g, first + i * GROUP);
                skinned.finite_or_bind(g);
                skinned.store(p, n);
            }
        });
    if !mesh.has_normals {
        // The reference returns no normals for a mesh without them.
        out.normals.clear();
    }
}
