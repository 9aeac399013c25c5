//! Helper weights solved, not partitioned (Kavan, Collins and O'Sullivan 2009, "Automatic
//! Linearization of Nonlinear Skinning"): for every vertex weighted on a junction's joint P or
//! K, its at most `max_influences` weights among its own joints and the junction's helpers
//! that bring its LBS position closest to the target (CoR or DQS of the input rig) over a pose
//! set, non-negative, each rest class keeping its original total, with a smoothness term over
//! mesh neighbours.
//!
//! A rest class is the joints whose skinning matrices at rest are equal: a helper's inverse
//! bind makes it equal to the joint it stands for, and on a rig whose rest pose is its bind
//! pose every joint is in one class. Moving weight only within a class leaves the rest mesh
//! exactly where it was, also where the rest pose is not the bind pose (the Adventurer's arms).

use std::collections::HashMap;

use glam::{DMat4, Vec3, Vec4};
use rayon::prelude::*;

use super::fit_unit::{DdmPairs, Unit, VertexIn};
use super::layout::{ITSELF, Plan};
use super::measure::MeasurePose;
use super::rest_class;
use crate::anim::Pose;
use crate::influences::Influences;
use crate::scene::Scene;
use crate::skin::ddm::SceneDdm;
use crate::skin::dm::{SceneDm, skin_scene_dm};
use crate::skin::{JointPalette, Neighbours, PosedPrimitive, SceneCenters};

/// What the helper weights are fitted to: the input rig skinned by one of these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FitTarget {
    /// Centre-of-rotation skinning (the default: it neither collapses nor bulges).
    #[default]
    Cor,
    /// Dual quaternion skinning.
    Dqs,
    /// Direct Delta Mush (at [`super::TwistOptions::ddm`]'s parameters).
    Ddm,
    /// Delta Mush (at [`super::TwistOptions::dm`]'s parameters): the whole mesh per pose.
    Dm,
}

impl FitTarget {
    /// The flag value.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Cor => "cor",
            Self::Dqs => "dqs",
            Self::Ddm => "ddm",
            Self::Dm => "dm",
        }
    }
}

/// Jacobi passes of the smoothness term after the influences are chosen.
const SMOOTH_PASSES: usize = 4;

/// What the fit did, for the command's report.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FitSummary {
    /// Vertices whose weights were solved.
    pub vertices: usize,
    /// Vertices weighted on a junction left as they were: more rest classes than influences.
    pub kept: usize,
    /// Poses fitted over.
    pub poses: usize,
    /// Mean over the vertices of the RMS distance from the target over the fit poses, over the
    /// rest diagonal: with the input's weights on the new rig (helpers unweighted).
    pub rms_before: f64,
    /// The same with the solved weights.
    pub rms_after: f64,
}

/// A junction's joints and helpers as skin joint indices of one skin.
pub(super) struct SkinJunction {
    /// P and K.
    pub ends: [u16; 2],
    /// Every helper that takes weight (both families).
    pub helpers: Vec<u16>,
}

/// What a target needs precomputed on the input rig: CoR's centres, DDM's matrices, DM's
/// rest deltas.
pub(super) struct TargetData<'a> {
    /// CoR centres (the CoR target; any other reads none of them).
    pub centers: &'a SceneCenters,
    /// DDM's matrices (the DDM target).
    pub ddm: Option<&'a SceneDdm>,
    /// DM's welded surfaces and rest deltas (the DM target).
    pub dm: Option<&'a SceneDm>,
}

/// Solves the weights of every vertex weighted on a junction of `plan` in `out` (the input
/// `base` with the plan's nodes added, its influences still the input's).
pub(super) fn fit_weights(
    base: &Scene,
    out: &mut Scene,
    plan: &Plan,
    max_influences: usize,
    target: FitTarget,
    data: &TargetData<'_>,
) -> FitSummary {
    let (centers, ddm) = (data.centers, data.ddm);
    let diagonal =
        f64::from(crate::skin::rest_bounds(base).map_or(1.0, |(lo, hi)| lo.distance(hi).max(1e-6)));
    let classes = rest_class::with_helpers(base, out, plan, rest_class::rest_classes(base));
    let mut units = Vec::new();
    let mut kept = 0;
    for (mesh, skin) in skinned_meshes(out) {
        let junctions = skin_junctions(out, plan, skin);
        if junctions.is_empty() {
            continue;
        }
        for (p, prim) in out.meshes[mesh].primitives.iter().enumerate() {
            let Some(influences) = prim.influences.as_ref() else {
                continue;
            };
            let centers = centers.of(mesh, p);
            let mesh_ddm = ddm.and_then(|d| d.per_mesh.get(mesh)?.as_ref());
            let welded = mesh_ddm.and_then(|d| d.surface.vertex_of.get(p));
            for (v, row) in influences.iter().enumerate() {
                let bind = (
                    prim.positions[v],
                    prim.normals.get(v).copied().unwrap_or(Vec3::Y),
                    prim.tangents
                        .as_ref()
                        .and_then(|t| t.get(v).copied())
                        .unwrap_or(Vec4::X),
                );
                let center = centers.get(v).copied().unwrap_or(bind.0);
                let ddm_pairs = mesh_ddm.zip(welded.and_then(|w| w.get(v))).map(|(d, &w)| {
                    let (joints, omega) = d.weights.of(w as usize);
                    DdmPairs {
                        rest: d.surface.positions[w as usize],
                        joints: joints.to_vec(),
                        omega: omega.to_vec(),
                    }
                });
                let vertex = VertexIn {
                    at: (mesh, p, v as u32),
                    skin,
                    bind,
                    center,
                    ddm: ddm_pairs,
                    row,
                };
                match Unit::of(&vertex, &junctions, &classes[skin], max_influences) {
                    Some(Ok(unit)) => units.push(unit),
                    Some(Err(())) => kept += 1,
                    None => {}
                }
            }
        }
    }
    let joints: Vec<usize> = plan.junctions.iter().map(|j| j.joint).collect();
    let poses = super::poses::PoseSets::of(base, &joints).fit;
    let aim = Aim {
        target,
        dm: data.dm,
        inv_diagonal: 1.0 / diagonal,
    };
    accumulate(base, out, &mut units, &poses, &aim);
    let rms_before = mean_rms(&units, |u| &u.w0);
    solve_all(out, &mut units, max_influences);
    let rms_after = mean_rms(&units, |u| &u.w);
    write_rows(out, &units, max_influences);
    FitSummary {
        vertices: units.len(),
        kept,
        poses: poses.len(),
        rms_before,
        rms_after,
    }
}

/// Each mesh skinned in `scene` (the first node that draws it), with its skin.
fn skinned_meshes(scene: &Scene) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for node in &scene.nodes {
        if let (Some(m), Some(s)) = (node.mesh, node.skin)
            && m < scene.meshes.len()
            && s < scene.skins.len()
            && !out.iter().any(|&(o, _)| o == m)
        {
            out.push((m, s));
        }
    }
    out
}

/// The plan's junctions whose joints and helpers skin `skin` holds.
fn skin_junctions(scene: &Scene, plan: &Plan, skin: usize) -> Vec<SkinJunction> {
    let joints = &scene.skins[skin].joints;
    let index = |node: usize| {
        joints
            .iter()
            .position(|&n| n == node)
            .and_then(|i| u16::try_from(i).ok())
    };
    plan.junctions
        .iter()
        .filter_map(|j| {
            let helpers = j
                .parent_stations
                .iter()
                .chain(&j.joint_stations)
                .filter(|&&(_, at)| at != ITSELF)
                .map(|&(_, at)| index(plan.roll_joints[at].node))
                .collect::<Option<Vec<u16>>>()?;
            Some(SkinJunction {
                ends: [index(j.parent)?, index(j.joint)?],
                helpers,
            })
        })
        .collect()
}

/// What every unit is fitted to, and the scale its distances are measured in.
struct Aim<'a> {
    /// The target method.
    target: FitTarget,
    /// DM's data (the DM target): the input posed by DM once per pose, every unit reads it.
    dm: Option<&'a SceneDm>,
    /// One over the rest diagonal.
    inv_diagonal: f64,
}

/// Adds every fit pose's normal equations to every unit.
fn accumulate(base: &Scene, out: &Scene, units: &mut [Unit], poses: &[MeasurePose], aim: &Aim) {
    let mut used: Vec<usize> = units.iter().map(|u| u.skin).collect();
    used.sort_unstable();
    used.dedup();
    let (mut pose_base, mut pose_out) = (Pose::rest(base), Pose::rest(out));
    let mut scratch = Vec::new();
    for pose in poses {
        pose_base.sample(base, pose.clip, pose.time_s, &pose.overrides);
        pose_out.sample(out, pose.clip, pose.time_s, &pose.overrides);
        let mut palettes: Vec<Option<JointPalette>> = vec![None; base.skins.len()];
        let mut matrices: Vec<Vec<DMat4>> = vec![Vec::new(); out.skins.len()];
        for &s in &used {
            pose_base.skinning_matrices(base, s, &mut scratch);
            palettes[s] = Some(JointPalette::from_matrices(&scratch));
            pose_out.skinning_matrices(out, s, &mut scratch);
            matrices[s] = scratch.iter().map(|m| m.as_dmat4()).collect();
        }
        // Delta Mush moves a vertex with its whole mesh: pose every mesh once, then look up.
        let mushed = aim
            .dm
            .map(|dm| MeshLookup::of(skin_scene_dm(base, &pose_base, dm)));
        units.par_iter_mut().for_each(|u| {
            let Some(palette) = palettes.get(u.skin).and_then(Option::as_ref) else {
                return;
            };
            let given = mushed.as_ref().and_then(|m| m.position(u.at));
            if aim.target == FitTarget::Dm && given.is_none() {
                return;
            }
            u.add_pose(
                palette,
                &matrices[u.skin],
                (aim.target, given),
                aim.inv_diagonal,
            );
        });
    }
    let per_pose = 1.0 / poses.len().max(1) as f64;
    units.par_iter_mut().for_each(|u| u.scale(per_pose));
}

/// A posed scene's primitives by mesh and primitive (the first node drawing each, as
/// [`skinned_meshes`] picks it).
struct MeshLookup {
    /// The posed primitives.
    posed: Vec<PosedPrimitive>,
    /// `(mesh, primitive)` to an index into `posed`.
    index: HashMap<(usize, usize), usize>,
}

impl MeshLookup {
    /// Indexes `posed`.
    fn of(posed: Vec<PosedPrimitive>) -> Self {
        let mut index = HashMap::new();
        for (i, p) in posed.iter().enumerate() {
            index.entry((p.mesh, p.primitive)).or_insert(i);
        }
        Self { posed, index }
    }

    /// Where vertex `(mesh, primitive, vertex)` was posed.
    fn position(&self, (mesh, primitive, vertex): (usize, usize, u32)) -> Option<Vec3> {
        let i = *self.index.get(&(mesh, primitive))?;
        self.posed[i]
            .vertices
            .positions
            .get(vertex as usize)
            .copied()
    }
}

/// A mesh neighbour of a unit: another unit, or a vertex that keeps its input weights.
enum Neighbour {
    /// Index into the units.
    Unit(usize),
    /// Mesh, primitive and vertex.
    Fixed(usize, usize, u32),
}

/// Each unit's mesh neighbours (vertices sharing a triangle edge with it).
fn neighbours(scene: &Scene, units: &[Unit]) -> Vec<Vec<Neighbour>> {
    let mut unit_at: HashMap<(usize, usize, u32), usize> = HashMap::new();
    let mut edges: HashMap<(usize, usize), Neighbours> = HashMap::new();
    for (i, u) in units.iter().enumerate() {
        unit_at.insert(u.at, i);
        let (m, p, _) = u.at;
        edges.entry((m, p)).or_insert_with(|| {
            scene.meshes[m]
                .primitives
                .get(p)
                .map_or_else(Neighbours::default, |prim| {
                    Neighbours::of_triangles(prim.triangles(), prim.positions.len())
                })
        });
    }
    units
        .iter()
        .map(|u| {
            let (m, p, v) = u.at;
            edges[&(m, p)]
                .around(v as usize)
                .iter()
                .map(|&y| match unit_at.get(&(m, p, y)) {
                    Some(&j) => Neighbour::Unit(j),
                    None => Neighbour::Fixed(m, p, y),
                })
                .collect()
        })
        .collect()
}

/// Solves every unit: once over all its candidates, then over its chosen influences with the
/// smoothness term (Jacobi passes: each pass pulls towards the neighbours' last weights).
fn solve_all(scene: &Scene, units: &mut [Unit], max_influences: usize) {
    units.par_iter_mut().for_each(|u| {
        u.w = u.problem(None).solve(&u.w0);
        u.restrict(max_influences);
    });
    let neighbours = neighbours(scene, units);
    let fixed_weight = |m: usize, p: usize, v: u32, joint: u16| -> f64 {
        scene.meshes[m].primitives[p]
            .influences
            .as_ref()
            .map_or(0.0, |inf| {
                inf.of(v as usize)
                    .iter()
                    .filter(|i| i.joint == joint)
                    .map(|i| f64::from(i.weight))
                    .sum()
            })
    };
    for _ in 0..SMOOTH_PASSES {
        let pulls: Vec<(Vec<f64>, f64)> = units
            .par_iter()
            .zip(&neighbours)
            .map(|(u, near)| {
                let pull = u
                    .joints
                    .iter()
                    .map(|&j| {
                        near.iter()
                            .map(|n| match *n {
                                Neighbour::Unit(k) => units[k].weight_of(j),
                                Neighbour::Fixed(m, p, v) => fixed_weight(m, p, v, j),
                            })
                            .sum()
                    })
                    .collect();
                (pull, near.len() as f64)
            })
            .collect();
        units.par_iter_mut().zip(pulls).for_each(|(u, pull)| {
            let start = u.w.clone();
            u.w = u.problem(Some(&pull)).solve(&start);
        });
    }
}

/// The mean over `units` of the RMS distance from the target with the weights `w` picks.
fn mean_rms(units: &[Unit], w: impl Fn(&Unit) -> &Vec<f64>) -> f64 {
    if units.is_empty() {
        return 0.0;
    }
    units.iter().map(|u| u.data_error(w(u)).sqrt()).sum::<f64>() / units.len() as f64
}

/// Writes the solved rows into the meshes of skins with junctions; every other row of those
/// meshes keeps its input weights, pruned to `max_influences`.
fn write_rows(scene: &mut Scene, units: &[Unit], max_influences: usize) {
    let mut solved: HashMap<(usize, usize, u32), &Unit> = HashMap::new();
    for u in units {
        solved.insert(u.at, u);
    }
    let meshes: Vec<usize> = skinned_meshes(scene)
        .into_iter()
        .filter(|&(m, _)| units.iter().any(|u| u.at.0 == m))
        .map(|(m, _)| m)
        .collect();
    for m in meshes {
        for (p, prim) in scene.meshes[m].primitives.iter_mut().enumerate() {
            let Some(influences) = prim.influences.as_ref() else {
                continue;
            };
            let rows: Vec<Vec<(u16, f32)>> = influences
                .iter()
                .enumerate()
                .map(|(v, row)| match solved.get(&(m, p, v as u32)) {
                    Some(u) => prune(u.rows(), max_influences),
                    None => prune(
                        row.iter().map(|i| (i.joint, i.weight)).collect(),
                        max_influences,
                    ),
                })
                .collect();
            prim.influences = Some(Influences::from_rows(rows));
        }
    }
}

/// The row's heaviest `max` influences (duplicates merged), as the loader keeps them.
fn prune(mut row: Vec<(u16, f32)>, max: usize) -> Vec<(u16, f32)> {
    row.sort_by_key(|(j, _)| *j);
    row.dedup_by(|b, a| {
        if a.0 == b.0 {
            a.1 += b.1;
            true
        } else {
            false
        }
    });
    row.retain(|(_, w)| *w > 0.0);
    row.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    row.truncate(max);
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prune_merges_keeps_the_heaviest() {
        let row = vec![(1, 0.1), (2, 0.2), (1, 0.3), (3, 0.05), (4, 0.35)];
        assert_eq!(
            prune(row.clone(), 8),
            vec![(1, 0.4), (4, 0.35), (2, 0.2), (3, 0.05)]
        );
        assert_eq!(prune(row, 2), vec![(1, 0.4), (4, 0.35)]);
    }
}
