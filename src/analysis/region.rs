//! A joint's region: the part of a skinned mesh one joint mostly moves, and its volume at a pose.
//!
//! Whole-mesh ratios hide local collapse: a forearm twisted half a turn pinches the
//! elbow under LBS while the character's total volume moves by a tenth of a percent.
//! A region's ratio to rest shows it. These are the regions of `analyze`'s worst joints.

use std::collections::{BTreeMap, HashMap};

use glam::Vec3;
use thiserror::Error;

use super::measure::{area, signed_volume};
use super::metrics::Measure;
pub use super::region_reason::{
    AreaReason, MAX_CAP_SHARE, MIN_REST_SHARE, MIN_ROUNDNESS, MIN_TRIANGLES, NotMeasurable,
};
use crate::scene::Scene;
use crate::scene::names::{self, NameError, Named};
use crate::skin::PosedPrimitive;

/// Vertices closer than this fraction of the rest bounding-box diagonal are one vertex when
/// the region's edges are matched up (UV and normal seams split vertices, not the surface).
pub const WELD_TOLERANCE: f32 = 1e-5;

/// One triangle edge as the triangle runs it: posed primitive (index into the posed list), from, to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Edge {
    /// Index into the posed list.
    prim: usize,
    /// Vertex the edge leaves.
    from: u32,
    /// Vertex the edge reaches.
    to: u32,
}

/// The part of a skinned mesh that belongs to one joint, and how it is measured.
///
/// **Weights.** A triangle belongs to the joint that is the heaviest influence of its first
/// corner; a region is every such triangle of every skinned primitive (the regions of
/// [`super::ModeReport::worst_joints`]). A joint that no triangle's first corner has as its
/// heaviest influence (a root, an IK target) has no region.
///
/// **Closure.** A region is a patch with openings where it meets its neighbours. Its vertices
/// are welded at equal rest positions (within [`WELD_TOLERANCE`] of the rest diagonal, so UV
/// and normal seams do not count as holes). The region is *closed* when every edge is shared
/// by exactly two triangles that run it in opposite directions, except the edges of its
/// openings, which one triangle uses and which chain into loops. Each opening (a connected set
/// of such edges) is capped by a fan from the centroid of its vertices at the pose measured,
/// and the region's measure is the volume of that solid by the divergence theorem, in model
/// units cubed, signed like its rest volume (a ratio below 0 means the region turned inside out).
///
/// **Not closed.** A region that fails the test (an edge used three or more times, as
/// double-sided copies or flaps do; triangles wound both ways; an opening that does not chain),
/// whose caps are most of its surface ([`MAX_CAP_SHARE`]), or that encloses too little at rest
/// for its size (its roundness, the rest volume over a ball's of the same surface with caps,
/// below [`MIN_ROUNDNESS`]) is measured by its surface area instead, in model units squared;
/// [`JointRegion::area_reason`] says which.
#[derive(Clone, Debug)]
pub struct JointRegion {
    /// The joint (node index).
    pub joint: usize,
    /// [`Measure::Volume`] for a closed region (openings capped), else [`Measure::Area`].
    pub measure: Measure,
    /// Mesh vertices its triangles use (seam copies counted apiece, as `inspect` counts them).
    pub vertices: usize,
    /// Triangles in the region.
    pub triangles: usize,
    /// Openings capped for the volume (0 for an area region, or a region that is closed on its own).
    pub openings: usize,
    /// The rest measure: volume (model units cubed) or area (squared).
    pub rest: f64,
    /// Why the region is measured by area; `None` for a volume region.
    pub area_reason: Option<AreaReason>,
    /// Why the region is not measured at all; `None` when its ratio means something at rest.
    pub not_measurable: Option<NotMeasurable>,
    /// Per posed primitive (index into the posed list): the region's triangle indices.
    parts: Vec<(usize, Vec<u32>)>,
    /// Per opening: its edges, as the region's triangles run them.
    cap_edges: Vec<Vec<Edge>>,
}

impl JointRegion {
    /// The region's measure on `posed` (skinned from the same scene, primitives in the same order).
    #[must_use]
    pub fn measure_at(&self, posed: &[PosedPrimitive]) -> f64 {
        let positions = |prim: usize| posed.get(prim).map_or(&[][..], |p| &p.vertices.positions);
        match self.measure {
            Measure::Area => self
                .parts
                .iter()
                .map(|(prim, idx)| area(positions(*prim), idx))
                .sum(),
            Measure::Volume => {
                // Any origin gives the volume of a closed surface; one inside keeps rounding small.
                let origin = self.centroid(posed);
                let mut volume: f64 = self
                    .parts
                    .iter()
                    .map(|(prim, idx)| signed_volume(positions(*prim), idx, origin))
                    .sum();
                for edges in &self.cap_edges {
                    let at = |prim: usize, v: u32| positions(prim).get(v as usize).copied();
                    let corners: Vec<Vec3> =
                        edges.iter().filter_map(|e| at(e.prim, e.from)).collect();
                    let apex = corners.iter().copied().sum::<Vec3>() / corners.len().max(1) as f32;
                    for e in edges {
                        // The cap triangle runs the opening edge backwards: (to, from, apex).
                        if let (Some(a), Some(b)) = (at(e.prim, e.to), at(e.prim, e.from)) {
                            volume += tetrahedron(a, b, apex, origin);
                        }
                    }
                }
                volume
            }
        }
    }

    /// The region's measure on `posed` over its rest measure, or why it has none.
    pub fn ratio(&self, posed: &[PosedPrimitive]) -> Result<f64, NotMeasurable> {
        if let Some(reason) = self.not_measurable {
            return Err(reason);
        }
        let ratio = self.measure_at(posed) / self.rest;
        if ratio < 0.0 {
            return Err(NotMeasurable::InsideOut(ratio));
        }
        Ok(ratio)
    }

    /// Whether the region's ratio means something at rest (see [`Self::not_measurable`]).
    #[must_use]
    pub fn is_measurable(&self) -> bool {
        self.not_measurable.is_none()
    }

    /// Per posed primitive (index into the posed list), the vertices the region's triangles
    /// use, each once, ascending.
    #[must_use]
    pub fn vertices_by_primitive(&self) -> Vec<(usize, Vec<u32>)> {
        self.parts
            .iter()
            .map(|(prim, idx)| {
                let mut v = idx.clone();
                v.sort_unstable();
                v.dedup();
                (*prim, v)
            })
            .collect()
    }

    /// Area of the fans that cap the region's openings on `posed` (0 for an area region).
    fn cap_area(&self, posed: &[PosedPrimitive]) -> f64 {
        let positions = |prim: usize| posed.get(prim).map_or(&[][..], |p| &p.vertices.positions);
        let at = |prim: usize, v: u32| positions(prim).get(v as usize).copied();
        let mut total = 0.0;
        for edges in &self.cap_edges {
            let corners: Vec<Vec3> = edges.iter().filter_map(|e| at(e.prim, e.from)).collect();
            let apex = corners.iter().copied().sum::<Vec3>() / corners.len().max(1) as f32;
            for e in edges {
                if let (Some(a), Some(b)) = (at(e.prim, e.to), at(e.prim, e.from)) {
                    total += 0.5 * f64::from((b - a).cross(apex - a).length());
                }
            }
        }
        total
    }

    /// Mean position of the region's triangle corners on `posed`.
    fn centroid(&self, posed: &[PosedPrimitive]) -> Vec3 {
        let (sum, n) = self
            .parts
            .iter()
            .filter_map(|(prim, idx)| Some((&posed.get(*prim)?.vertices.positions, idx)))
            .flat_map(|(positions, idx)| idx.iter().filter_map(|&i| positions.get(i as usize)))
            .fold((Vec3::ZERO, 0u32), |(s, n), p| (s + *p, n + 1));
        if n == 0 { Vec3::ZERO } else { sum / n as f32 }
    }
}

/// Every joint's region of a scene posed at rest by [`crate::skin::skin_scene`], by joint node.
#[must_use]
pub fn joint_regions(scene: &Scene, rest: &[PosedPrimitive]) -> Vec<JointRegion> {
    let diagonal = crate::skin::bounds(rest).map_or(1.0, |(lo, hi)| (hi - lo).length());
    let mut by_joint: BTreeMap<usize, Vec<(usize, Vec<u32>)>> = BTreeMap::new();
    for (prim, p) in rest.iter().enumerate() {
        let Some((skin, src, influences)) = p.skinned_source(scene) else {
            continue;
        };
        let Some(skin) = scene.skins.get(skin) else {
            continue;
        };
        for tri in src.triangles().chunks_exact(3) {
            let Some(joint) = influences
                .of(tri[0] as usize)
                .first()
                .and_then(|i| skin.joints.get(i.joint as usize).copied())
            else {
                continue;
            };
            let parts = by_joint.entry(joint).or_default();
            match parts.last_mut() {
                Some((last, idx)) if *last == prim => idx.extend_from_slice(tri),
                _ => parts.push((prim, tri.to_vec())),
            }
        }
    }
    by_joint
        .into_iter()
        .map(|(joint, parts)| JointRegion::build(joint, parts, rest, diagonal))
        .collect()
}

impl JointRegion {
    /// Welds, checks closure, finds the openings and measures the rest pose.
    fn build(
        joint: usize,
        parts: Vec<(usize, Vec<u32>)>,
        rest: &[PosedPrimitive],
        diagonal: f32,
    ) -> Self {
        let welded = weld_parts(&parts, rest, WELD_TOLERANCE * diagonal);
        let vertices = welded
            .iter()
            .map(|w| w.iter().filter(|&&id| id != u32::MAX).count())
            .sum();
        let triangles = parts.iter().map(|(_, idx)| idx.len() / 3).sum();
        let mut region = Self {
            joint,
            measure: Measure::Area,
            vertices,
            triangles,
            openings: 0,
            rest: 0.0,
            area_reason: Some(AreaReason::NotClosed),
            not_measurable: None,
            parts,
            cap_edges: Vec::new(),
        };
        let area_rest = region.measure_at(rest);
        if let Some(cap_edges) = openings(&region.parts, &welded) {
            region.measure = Measure::Volume;
            region.cap_edges = cap_edges;
            let volume = region.measure_at(rest);
            let caps = region.cap_area(rest);
            let surface = area_rest + caps;
            let cap_share = if surface > 0.0 { caps / surface } else { 1.0 };
            let roundness = ball_share(volume, surface);
            let reason = if cap_share > MAX_CAP_SHARE {
                Some(AreaReason::MostlyCaps(cap_share))
            } else if roundness.is_nan() || roundness < MIN_ROUNDNESS {
                Some(AreaReason::Flat(if roundness.is_nan() {
                    0.0
                } else {
                    roundness
                }))
            } else {
                None
            };
            if reason.is_none() {
                region.openings = region.cap_edges.len();
                region.rest = volume;
                region.area_reason = None;
                region.not_measurable = region.why_not_measurable(f64::from(diagonal).powi(3));
                return region;
            }
            region.area_reason = reason;
            region.measure = Measure::Area;
            region.cap_edges = Vec::new();
        }
        region.rest = area_rest;
        region.not_measurable = region.why_not_measurable(f64::from(diagonal).powi(2));
        region
    }

    /// Why the region, measured at rest, says nothing: too few triangles, or no rest size
    /// against `scale` (the rest diagonal squared for an area, cubed for a volume).
    fn why_not_measurable(&self, scale: f64) -> Option<NotMeasurable> {
        if self.triangles < MIN_TRIANGLES {
            Some(NotMeasurable::FewTriangles(self.triangles))
        } else if self.rest.is_nan() || self.rest.abs() <= MIN_REST_SHARE * scale {
            Some(NotMeasurable::RestNearZero)
        } else {
            None
        }
    }
}

/// `volume` over the volume of a ball whose surface is `surface`: 1 for a ball, near 0 for a flat shape.
fn ball_share(volume: f64, surface: f64) -> f64 {
    // A ball of surface A holds A^1.5 / (6 sqrt(pi)).
    let ball = surface.max(0.0).powf(1.5) / (6.0 * std::f64::consts::PI.sqrt());
    if ball > 0.0 { volume.abs() / ball } else { 0.0 }
}

/// Per part, a welded id for each vertex the part uses (`u32::MAX` for the ones it does not).
fn weld_parts(parts: &[(usize, Vec<u32>)], rest: &[PosedPrimitive], weld: f32) -> Vec<Vec<u32>> {
    let cell = weld.max(1e-12);
    let mut ids: HashMap<[i64; 3], u32> = HashMap::new();
    parts
        .iter()
        .map(|(prim, idx)| {
            let positions = rest.get(*prim).map_or(&[][..], |p| &p.vertices.positions);
            let mut welded = vec![u32::MAX; positions.len()];
            for &v in idx {
                let (Some(slot), Some(p)) = (welded.get_mut(v as usize), positions.get(v as usize))
                else {
                    continue;
                };
                if *slot == u32::MAX {
                    let key = (*p / cell).round().as_i64vec3().to_array();
                    let next = ids.len() as u32;
                    *slot = *ids.entry(key).or_insert(next);
                }
            }
            welded
        })
        .collect()
}

/// How often a welded edge is used, and by which triangle edge first.
struct EdgeUse {
    /// Triangles that use it.
    count: u32,
    /// Welded id of the vertex the first use leaves.
    first_from: u32,
    /// The first use.
    edge: Edge,
}

/// The openings of a closed region, each as its edges; `None` when the region is not closed.
fn openings(parts: &[(usize, Vec<u32>)], welded: &[Vec<u32>]) -> Option<Vec<Vec<Edge>>> {
    let mut edges: HashMap<(u32, u32), EdgeUse> = HashMap::new();
    for ((prim, idx), ids) in parts.iter().zip(welded) {
        for tri in idx.chunks_exact(3) {
            let w =
                [tri[0], tri[1], tri[2]].map(|v| ids.get(v as usize).copied().unwrap_or(u32::MAX));
            if w.contains(&u32::MAX) || w[0] == w[1] || w[1] == w[2] || w[0] == w[2] {
                continue; // Out of range or collapsed by the weld: no edges to match.
            }
            for (k, l) in [(0, 1), (1, 2), (2, 0)] {
                let (a, b) = (w[k], w[l]);
                let edge = Edge {
                    prim: *prim,
                    from: tri[k],
                    to: tri[l],
                };
                let slot = edges.entry((a.min(b), a.max(b))).or_insert(EdgeUse {
                    count: 0,
                    first_from: a,
                    edge,
                });
                slot.count += 1;
                // Two uses must run the edge in opposite directions; three never close.
                if slot.count > 2 || (slot.count == 2 && slot.first_from == a) {
                    return None;
                }
            }
        }
    }
    if edges.is_empty() {
        return None;
    }
    let mut open: Vec<(u32, u32, Edge)> = edges
        .iter()
        .filter(|(_, u)| u.count == 1)
        .map(|(&(lo, hi), u)| {
            let to = if u.first_from == lo { hi } else { lo };
            (u.first_from, to, u.edge)
        })
        .collect();
    // In mesh order, not hash order: the caps then sum the same way on every run.
    open.sort_unstable_by_key(|&(_, _, e)| (e.prim, e.from, e.to));
    chain_openings(&open)
}

/// Groups opening edges (welded from, welded to, edge) into openings; `None` unless every
/// vertex on an opening leaves it as often as it reaches it (so each one chains into loops).
fn chain_openings(open: &[(u32, u32, Edge)]) -> Option<Vec<Vec<Edge>>> {
    let mut balance: HashMap<u32, i64> = HashMap::new();
    let mut parent: HashMap<u32, u32> = HashMap::new();
    for &(a, b, _) in open {
        *balance.entry(a).or_insert(0) += 1;
        *balance.entry(b).or_insert(0) -= 1;
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        if ra != rb {
            parent.insert(ra.max(rb), ra.min(rb));
        }
    }
    if balance.values().any(|&d| d != 0) {
        return None;
    }
    let mut groups: BTreeMap<u32, Vec<Edge>> = BTreeMap::new();
    for &(a, _, edge) in open {
        groups.entry(root(&mut parent, a)).or_default().push(edge);
    }
    Some(groups.into_values().collect())
}

/// The root of `x` in a union-find forest stored as child-to-parent links (absent: a root).
fn root(parent: &mut HashMap<u32, u32>, x: u32) -> u32 {
    let mut r = x;
    while let Some(&p) = parent.get(&r) {
        r = p;
    }
    // Path compression: point every node on the way straight at the root.
    let mut y = x;
    while let Some(&p) = parent.get(&y) {
        if p == r {
            break;
        }
        parent.insert(y, r);
        y = p;
    }
    r
}

/// Signed volume of the tetrahedron (`origin`, a, b, c), as one triangle's term of the divergence theorem.
fn tetrahedron(a: Vec3, b: Vec3, c: Vec3, origin: Vec3) -> f64 {
    f64::from((a - origin).dot((b - origin).cross(c - origin))) / 6.0
}

/// Why a joint's region cannot be measured; the messages list the valid joints.
#[derive(Debug, Error, PartialEq)]
pub enum RegionError {
    /// No joint of any skin has this name or node index, or several do.
    #[error("{0}")]
    UnknownJoint(NameError),
    /// The joint owns no triangle, so it has no region to measure.
    #[error(
        "joint `{name}` (node {node}) has no region: no triangle has it as the heaviest influence of its first corner (nearest joints with a region: {valid})"
    )]
    NoRegion {
        /// The joint's name.
        name: String,
        /// The joint's node index.
        node: usize,
        /// The nearest joints by name that have a region, and how many have one.
        valid: String,
    },
}

/// The joint node `name_or_index` names among every skin's joints ([`names::joint`]'s rule).
pub fn find_joint(scene: &Scene, name_or_index: &str) -> Result<usize, RegionError> {
    names::joint(scene, name_or_index).map_err(RegionError::UnknownJoint)
}

/// The names of `nodes` nearest to `to` (unnamed ones as `node N`), and how many there are:
/// `a, b, c; 40 in all`, never the whole list.
pub(super) fn nearest_names(scene: &Scene, nodes: impl Iterator<Item = usize>, to: &str) -> String {
    let mut labels: Vec<(usize, String)> = Vec::new();
    for node in nodes {
        let label = scene
            .nodes
            .get(node)
            .map(|n| n.name.clone())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| format!("node {node}"));
        if !labels.iter().any(|(_, l)| *l == label) {
            labels.push((node, label));
        }
    }
    if labels.is_empty() {
        return String::from("none");
    }
    let entries: Vec<Named<'_>> = labels
        .iter()
        .map(|(index, name)| Named {
            index: *index,
            name,
        })
        .collect();
    let nearest = names::nearest(&entries, to, names::SUGGESTIONS).join(", ");
    format!("{nearest}; {} in all", labels.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::RestReference;
    use crate::builtin::builtin_scene;
    use crate::skin::{Betas, SkinningMode, skin_scene};

    /// `builtin:twist` with `tip` twisted by `deg`, skinned in `mode`.
    fn twisted(scene: &Scene, deg: f32, mode: SkinningMode) -> Vec<PosedPrimitive> {
        let pose = crate::anim::twisted_pose(scene, "tip", deg);
        skin_scene(scene, &pose, mode, Betas::Uniform(0.0))
    }

    #[test]
    fn twist_tube_regions_are_closed_and_their_volumes_add_up_to_the_tube() {
        let scene = builtin_scene("twist").expect("builtin");
        let reference = RestReference::at_rest(&scene);
        let regions = reference.regions();
        assert_eq!(regions.len(), 2, "base and tip");
        for r in regions {
            assert_eq!(r.measure, Measure::Volume, "joint {}", r.joint);
            assert_eq!(r.openings, 1, "one ring where base meets tip");
        }
        // 48 x 48 side quads and two 48-triangle end caps, split between the two regions.
        let triangles: usize = regions.iter().map(|r| r.triangles).sum();
        assert_eq!(triangles, 48 * 48 * 2 + 2 * 48);
        // The caps of the shared opening cancel: the regions partition the tube's volume at any pose.
        for (deg, mode) in [
            (0.0, SkinningMode::Lbs),
            (130.0, SkinningMode::Lbs),
            (130.0, SkinningMode::Dqs),
        ] {
            let posed = twisted(&scene, deg, mode);
            let sum: f64 = regions.iter().map(|r| r.measure_at(&posed)).sum();
            let whole = reference.whole_ratio(&scene, &posed) * reference.total;
            assert!(
                (sum - whole).abs() < 1e-5 * whole,
                "{deg} {mode:?}: {sum} vs {whole}"
            );
        }
    }

    #[test]
    fn twist_tip_180_collapses_its_region_under_lbs_and_dqs_keeps_it() {
        let scene = builtin_scene("twist").expect("builtin");
        let reference = RestReference::at_rest(&scene);
        let tip = reference
            .region_of(&scene, find_joint(&scene, "tip").expect("tip"))
            .expect("tip has a region");
        let ratio = |deg: f32, mode: SkinningMode| {
            tip.ratio(&twisted(&scene, deg, mode)).expect("measurable")
        };
        assert!((ratio(0.0, SkinningMode::Lbs) - 1.0).abs() < 1e-9);
        let lbs: Vec<f64> = [0.0, 45.0, 90.0, 135.0, 180.0]
            .map(|d| ratio(d, SkinningMode::Lbs))
            .to_vec();
        assert!(
            lbs.windows(2).all(|w| w[1] < w[0]),
            "LBS shrinks as the twist grows: {lbs:?}"
        );
        // LBS pinches the ring at y = 1 onto the axis: the tip half loses over a fifth.
        assert!(lbs[4] < 0.8, "LBS at 180: {}", lbs[4]);
        let dqs = ratio(180.0, SkinningMode::Dqs);
        assert!((dqs - 1.0).abs() < 2e-3, "DQS at 180: {dqs}");
    }

    #[test]
    fn a_triangle_wound_the_wrong_way_leaves_its_region_measured_by_area() {
        let mut scene = builtin_scene("twist").expect("builtin");
        let tip = find_joint(&scene, "tip").expect("tip");
        let last = scene.meshes[0].primitives[0].indices.len() - 3;
        // The last triangle is on the end cap at y = 2, in tip's region; flip its winding.
        scene.meshes[0].primitives[0].indices.swap(last, last + 1);
        let reference = RestReference::at_rest(&scene);
        let tip_region = reference.region(tip).expect("tip region");
        assert_eq!(tip_region.measure, Measure::Area);
        assert_eq!(tip_region.openings, 0);
        let base = find_joint(&scene, "base").expect("base");
        assert_eq!(
            reference.region(base).map(|r| r.measure),
            Some(Measure::Volume)
        );
        // An area ratio still falls under an LBS twist: the pinched ring is shorter.
        let lbs = tip_region
            .ratio(&twisted(&scene, 180.0, SkinningMode::Lbs))
            .expect("measurable");
        assert!(lbs < 0.95, "{lbs}");
    }

    #[test]
    fn joints_are_found_by_name_or_node_and_errors_list_the_valid_ones() {
        let scene = builtin_scene("twist").expect("builtin");
        let tip = find_joint(&scene, "tip").expect("tip");
        assert_eq!(find_joint(&scene, &tip.to_string()), Ok(tip));
        let Err(RegionError::UnknownJoint(NameError::Unknown { typed, nearest, .. })) =
            find_joint(&scene, "elbow")
        else {
            panic!("elbow is no joint of builtin:twist");
        };
        assert_eq!((typed.as_str(), nearest.len()), ("elbow", 2));
        let reference = RestReference::at_rest(&scene);
        let err = reference
            .region_of(&scene, 99)
            .expect_err("node 99 has no region");
        assert!(
            err.to_string()
                .contains("with a region: base, tip; 2 in all"),
            "{err}"
        );
    }
}
