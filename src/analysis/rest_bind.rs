//! Whether a file's rest pose is its bind pose: one rule for `inspect`, `report`, `render`'s
//! heat views and the viewer's heat legend.
//!
//! The bind pose is the pose the mesh is stored in; the rest pose is the nodes' own transforms,
//! without a clip. Where the two agree, every skinning matrix `world_from_joint *
//! joint_from_bind` is at rest one and the same placement of the whole skin (the identity, or an
//! armature's axis turn or scale, which moves every vertex alike): LBS and DQS agree everywhere.
//! Where the rest pose turns or shifts a joint away from its bind pose (the Adventurer, stored
//! in a T-pose, rests with its upper arms lowered 66 and 71 degrees), that joint's matrix
//! differs from its parent joint's: the vertices the two share are blended from matrices
//! already apart, so LBS and DQS differ there at rest and the heat views show colour (the blue
//! patch at its shoulders) with no clip.
//!
//! So a joint counts when its rest matrix *relative to its parent joint's* (the nearest
//! ancestor in the same skin) is not the identity: a common placement is left out, and a turn
//! at the shoulder is named at the shoulder, not again at every joint below it. The joints are
//! ranked by how far LBS and DQS are apart on their vertices at rest, what a heat view shows.

use glam::{Mat4, Vec3};

use crate::anim::Pose;
use crate::dq::split_rigid;
use crate::scene::Scene;
use crate::skin::{Betas, SkinningMode, skin_scene};

/// A joint counts when its rest matrix relative to its parent joint's moves one of its vertices
/// by more than this fraction of the bind-pose (stored) bounding-box diagonal: 0.01% (0.2 mm on
/// a 2 m character), far above f32 rounding along a joint chain and far below anything a heat
/// view can show.
pub const REST_BIND_TOLERANCE: f32 = 1e-4;

/// One joint whose rest pose is not its bind pose.
#[derive(Clone, Debug, PartialEq)]
pub struct RestBindJoint {
    /// The skin.
    pub skin: usize,
    /// The joint's node index.
    pub node: usize,
    /// The joint's name.
    pub name: String,
    /// Its parent joint's node index.
    pub parent: usize,
    /// Rotation of its rest matrix relative to the parent joint's, degrees (0 where the rest
    /// pose only shifts it).
    pub angle_deg: f32,
    /// The farthest that relative matrix moves a vertex the joint influences, over the
    /// bind-pose bounding-box diagonal.
    pub offset: f32,
    /// The farthest LBS and DQS put one of the joint's vertices apart at rest, over the rest
    /// (LBS-posed) bounding-box diagonal: what the displacement heat view shows there with no
    /// clip (0 where the joint blends with no other).
    pub rest_gap: f32,
}

/// The joints (with weight on some vertex) whose rest pose is not their bind pose, those the
/// heat views show most first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RestBind {
    /// The joints beyond [`REST_BIND_TOLERANCE`], by `rest_gap`, then `offset`, largest first.
    pub joints: Vec<RestBindJoint>,
}

impl RestBind {
    /// Whether the rest pose is the bind pose for every weighted joint.
    #[must_use]
    pub fn is_bind_pose(&self) -> bool {
        self.joints.is_empty()
    }

    /// The joint where LBS and DQS are farthest apart at rest (the heat view's colour), else
    /// the one the rest pose moves farthest.
    #[must_use]
    pub fn largest(&self) -> Option<&RestBindJoint> {
        self.joints.first()
    }

    /// What differs: `N joints differ from their parent joints, largest at JOINT (X deg; LBS
    /// and DQS Y% of the diagonal apart there at rest)`; `None` when the rest pose is the bind pose.
    #[must_use]
    pub fn detail(&self) -> Option<String> {
        let j = self.largest()?;
        let n = self.joints.len();
        Some(format!(
            "{n} joint{} differ{} from {} parent joint{}, largest at {} ({:.1} deg; LBS and DQS {:.2}% of the diagonal apart there at rest)",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" },
            if n == 1 { "its" } else { "their" },
            if n == 1 { "" } else { "s" },
            j.name,
            j.angle_deg,
            100.0 * j.rest_gap
        ))
    }

    /// One line: `rest pose is not the bind pose: ` and [`RestBind::detail`]; `None` when the
    /// rest pose is the bind pose.
    #[must_use]
    pub fn text(&self) -> Option<String> {
        Some(format!(
            "rest pose is not the bind pose: {}",
            self.detail()?
        ))
    }

    /// Two short lines for a heat view's colour bar: `rest pose is not the bind pose` and
    /// `at JOINT (+N more): colour there at rest`; `None` when the rest pose is the bind pose.
    #[must_use]
    pub fn legend_lines(&self) -> Option<[String; 2]> {
        let j = self.largest()?;
        let more = match self.joints.len() {
            1 => String::new(),
            n => format!(" +{} more", n - 1),
        };
        Some([
            "rest pose is not the bind pose".to_owned(),
            format!("at {}{more}: colour there at rest", j.name),
        ])
    }
}

/// Compares `scene`'s rest pose with its bind pose, joint by joint.
///
/// For every skinned primitive (a node with a skin drawing a primitive with weights), each joint
/// that weighs on some vertex and has a parent joint in its skin is compared with that parent:
/// `parent_matrix^-1 * joint_matrix` at rest moves the joint's vertices (bind-space positions);
/// the joint differs when one moves farther than [`REST_BIND_TOLERANCE`] of the bind-pose
/// bounding-box diagonal. Root joints carry the skin's placement and are not compared. Morph
/// targets are left out: they do not change which pose the matrices hold.
#[must_use]
pub fn rest_bind(scene: &Scene) -> RestBind {
    let pose = Pose::rest(scene);
    let relative = relative_matrices(scene, &pose);
    let Some(moves) = joint_moves(scene, &pose, &relative) else {
        return RestBind::default();
    };
    let mut joints: Vec<RestBindJoint> = Vec::new();
    for (s, skin) in scene.skins.iter().enumerate() {
        for (j, &node) in skin.joints.iter().enumerate() {
            let Some((d, gap)) = moves.moved.get(s).and_then(|m| m.get(j)).copied().flatten()
            else {
                continue;
            };
            let Some(Some((r, parent))) = relative.get(s).and_then(|r| r.get(j)).copied() else {
                continue;
            };
            let offset = d / moves.diagonal;
            if offset <= REST_BIND_TOLERANCE
                || joints.iter().any(|o| o.node == node && o.offset >= offset)
            {
                continue;
            }
            joints.retain(|o| o.node != node);
            let (_, angle) = split_rigid(r).rotation.to_axis_angle();
            joints.push(RestBindJoint {
                skin: s,
                node,
                name: scene
                    .nodes
                    .get(node)
                    .map_or_else(String::new, |n| n.name.clone()),
                parent,
                angle_deg: wrap_degrees(angle.to_degrees()),
                offset,
                rest_gap: gap / moves.rest_diagonal,
            });
        }
    }
    joints.sort_by(|a, b| (b.rest_gap.total_cmp(&a.rest_gap)).then(b.offset.total_cmp(&a.offset)));
    RestBind { joints }
}

/// Per skin and joint index: the joint's rest matrix relative to its parent joint's, and that
/// parent's node (`None` for a root joint or a non-finite matrix).
type Relative = Vec<Vec<Option<(Mat4, usize)>>>;

/// [`Relative`] for every skin of `scene` at `pose`.
fn relative_matrices(scene: &Scene, pose: &Pose) -> Relative {
    (0..scene.skins.len())
        .map(|s| {
            let mut m = Vec::new();
            pose.skinning_matrices(scene, s, &mut m);
            let joints = &scene.skins[s].joints;
            (0..joints.len())
                .map(|j| {
                    let parent = parent_joint(scene, joints, j)?;
                    let (mj, mp) = (m.get(j)?, m.get(parent)?);
                    let r = mp.inverse() * *mj;
                    r.is_finite().then_some((r, joints[parent]))
                })
                .collect()
        })
        .collect()
}

/// What the relative matrices do to the skinned vertices at rest.
struct JointMoves {
    /// Per skin and joint index: the farthest move of one of its vertices and the widest
    /// LBS/DQS gap at rest (`None`: no weighted vertex, or a root joint).
    moved: Vec<Vec<Option<(f32, f32)>>>,
    /// The bind-pose (stored) bounding-box diagonal.
    diagonal: f32,
    /// The rest (LBS-posed) bounding-box diagonal.
    rest_diagonal: f32,
}

/// Skins `scene` at `pose` in LBS and DQS and measures every joint's vertices against
/// `relative`; `None` when either diagonal is zero or not finite (nothing to compare with).
fn joint_moves(scene: &Scene, pose: &Pose, relative: &Relative) -> Option<JointMoves> {
    let mut moved: Vec<Vec<Option<(f32, f32)>>> = scene
        .skins
        .iter()
        .map(|s| vec![None; s.joints.len()])
        .collect();
    let mut bounds: Option<(Vec3, Vec3)> = None;
    let mut rest_bounds: Option<(Vec3, Vec3)> = None;
    let grow = |b: Option<(Vec3, Vec3)>, p: Vec3| {
        Some(b.map_or((p, p), |(lo, hi)| (lo.min(p), hi.max(p))))
    };
    let lbs = skin_scene(scene, pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let dqs = skin_scene(scene, pose, SkinningMode::Dqs, Betas::Uniform(1.0));
    for (l, d) in lbs.iter().zip(&dqs) {
        let Some((skin, prim, influences)) = l.skinned_source(scene) else {
            continue;
        };
        let (Some(relative), Some(moved)) = (relative.get(skin), moved.get_mut(skin)) else {
            continue;
        };
        let posed = l.vertices.positions.iter().zip(&d.vertices.positions);
        for ((p, row), (pl, pd)) in prim.positions.iter().zip(influences.iter()).zip(posed) {
            bounds = grow(bounds, *p);
            rest_bounds = grow(rest_bounds, *pl);
            let gap = (*pl - *pd).length();
            for i in row.iter().filter(|i| i.weight > 0.0) {
                let j = usize::from(i.joint);
                let (Some(Some((r, _))), Some(slot)) = (relative.get(j), moved.get_mut(j)) else {
                    continue;
                };
                let d = (r.transform_point3(*p) - *p).length();
                if d.is_finite() && gap.is_finite() {
                    *slot = Some(slot.map_or((d, gap), |(s, g)| (s.max(d), g.max(gap))));
                }
            }
        }
    }
    let diagonal_of = |b: Option<(Vec3, Vec3)>| b.map_or(0.0, |(lo, hi)| (hi - lo).length());
    let (diagonal, rest_diagonal) = (diagonal_of(bounds), diagonal_of(rest_bounds));
    let usable = |d: f32| d.is_finite() && d > 0.0;
    (usable(diagonal) && usable(rest_diagonal)).then_some(JointMoves {
        moved,
        diagonal,
        rest_diagonal,
    })
}

/// The index in `joints` of joint `j`'s parent joint: its nearest ancestor node that is a joint
/// of the same skin; `None` for a root joint.
fn parent_joint(scene: &Scene, joints: &[usize], j: usize) -> Option<usize> {
    let mut node = scene.nodes.get(*joints.get(j)?)?.parent;
    // A parent chain longer than the node list is a cycle: give up.
    for _ in 0..=scene.nodes.len() {
        let n = node?;
        if let Some(k) = joints.iter().position(|&x| x == n) {
            return Some(k);
        }
        node = scene.nodes.get(n)?.parent;
    }
    None
}

/// An angle in degrees as the shorter turn, 0..=180.
fn wrap_degrees(deg: f32) -> f32 {
    let d = deg.rem_euclid(360.0);
    if d > 180.0 { 360.0 - d } else { d }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::builtin_scene;

    #[test]
    fn a_builtin_rests_in_its_bind_pose() {
        for name in ["twist", "elbow", "arm"] {
            let scene = builtin_scene(name).expect("builtin");
            let found = rest_bind(&scene);
            assert!(found.is_bind_pose(), "{name}: {found:?}");
            assert_eq!(found.text(), None);
            assert_eq!(found.legend_lines(), None);
        }
    }

    #[test]
    fn a_placement_every_joint_shares_is_not_a_departure() {
        // The whole skeleton turned and scaled at its root (an armature's axis turn): every
        // skinning matrix is the same, LBS and DQS agree everywhere at rest.
        let mut scene = builtin_scene("twist").expect("builtin");
        let base = scene.skins[0].joints[0];
        let crate::scene::NodeTransform::Trs(trs) = &mut scene.nodes[base].transform else {
            panic!("a TRS joint");
        };
        trs.rotation = glam::Quat::from_rotation_x(-90f32.to_radians()) * trs.rotation;
        trs.scale *= 100.0;
        let found = rest_bind(&scene);
        assert!(found.is_bind_pose(), "{found:?}");
    }

    #[test]
    fn a_joint_turned_at_rest_is_named_with_its_angle() {
        let mut scene = builtin_scene("twist").expect("builtin");
        // The tip joint turned 30 degrees about the tube's axis (Y) at rest.
        let tip = scene.skins[0].joints[1];
        let crate::scene::NodeTransform::Trs(trs) = &mut scene.nodes[tip].transform else {
            panic!("a TRS joint");
        };
        trs.rotation = glam::Quat::from_rotation_y(30f32.to_radians()) * trs.rotation;
        let found = rest_bind(&scene);
        assert_eq!(found.joints.len(), 1, "{found:?}");
        let j = &found.joints[0];
        assert_eq!((j.node, j.parent), (tip, scene.skins[0].joints[0]));
        assert!((j.angle_deg - 30.0).abs() < 1e-3, "{j:?}");
        assert!(j.offset > 0.01, "{j:?}");
        let text = found.text().expect("a line");
        assert!(
            text.starts_with("rest pose is not the bind pose: 1 joint differs from its parent joint, largest at tip (30.0 deg; LBS and DQS "),
            "{text}"
        );
        assert_eq!(
            found.legend_lines().expect("a legend"),
            [
                "rest pose is not the bind pose".to_owned(),
                "at tip: colour there at rest".to_owned()
            ]
        );
    }
}
