//! Which nodes a junction fix makes: parents, rest transforms, constraints and inverse bind
//! matrices. See the module docs of `twist_joints` for the rule.

use glam::{Mat4, Quat, Vec3};

use super::{TwistError, TwistRequest};
use crate::anim::{Pose, first_child_joint, to_trs};
use crate::scene::constraint::evaluation_order;
use crate::scene::{ConstraintKind, Node, NodeConstraint, NodeTransform, Scene, Trs};

/// What an added node is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `K_twist_NN`: follows K's swing with a share of K's twist; takes K's weight.
    Joint,
    /// `K_twist_parent_NN`: follows P and a share of K's rotation from rest; takes P's weight.
    Parent,
    /// `K_twist_aim`: follows K's swing without its twist (aims at K's child); no weight.
    Aim,
    /// `K_twist_frame`: a fixed turn under the aim node, so the twist shares read right; no weight.
    Frame,
}

/// One added node.
#[derive(Clone, Debug, PartialEq)]
pub struct RollJoint {
    /// Its node index in the output.
    pub node: usize,
    /// Its name.
    pub name: String,
    /// Its parent node.
    pub parent: usize,
    /// The twisting joint K whose junction it serves.
    pub joint: usize,
    /// What it is for.
    pub family: Family,
    /// The share of K's twist it carries (its constraint's weight); 0 for aim and frame.
    pub share: f32,
    /// The joint whose weight it takes over (K or P), for the two weighted families.
    pub takes_from: Option<usize>,
    /// Its constraint.
    pub constraint: Option<(usize, ConstraintKind)>,
    /// Rest transform, relative to `parent`.
    pub trs: Trs,
}

/// One junction: the joint K that twists, its parent P, and the nodes added for it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Junction {
    /// K.
    pub joint: usize,
    /// P.
    pub parent: usize,
    /// `(share, index into Plan::roll_joints)` of the Joint family, K itself last at 1.
    pub joint_stations: Vec<(f32, usize)>,
    /// `(share, index)` of the Parent family, P itself first at 0.
    pub parent_stations: Vec<(f32, usize)>,
}

/// Every node to add, and the junctions they belong to.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Plan {
    /// The nodes, in the order they are added.
    pub roll_joints: Vec<RollJoint>,
    /// One junction per request.
    pub junctions: Vec<Junction>,
}

/// A station's stand-in for "the joint itself" in [`Junction`] station lists.
pub(super) const ITSELF: usize = usize::MAX;

/// Lays out the nodes of `requests` on `scene` (numbered after its last node).
pub(super) fn plan(scene: &Scene, requests: &[TwistRequest]) -> Result<Plan, TwistError> {
    let mut plan = Plan {
        roll_joints: Vec::new(),
        junctions: Vec::new(),
    };
    let name = |n: usize| scene.nodes[n].name.clone();
    let classes = super::rest_class::rest_classes(scene);
    for (k, r) in requests.iter().enumerate() {
        if requests[..k].iter().any(|o| o.joint == r.joint) {
            return Err(TwistError::BadJoint(name(r.joint), "chosen twice".into()));
        }
        if !(1..=super::MAX_COUNT).contains(&r.count) {
            return Err(TwistError::Option(format!(
                "{}: {} twist joints; give 1 to {}",
                name(r.joint),
                r.count,
                super::MAX_COUNT
            )));
        }
        if !is_weighted(scene, r.joint) {
            return Err(TwistError::NotWeighted(name(r.joint)));
        }
        // Without a child joint (a knee whose foot hangs elsewhere) the bone has no direction
        // to twist about: the junction gets its bend helpers (P's family) only.
        let child = first_child_joint(scene, r.joint).filter(|&c| bone_vector(scene, c).is_some());
        let parent = scene.nodes[r.joint]
            .parent
            .filter(|&p| shares_skin(scene, p, r.joint))
            .ok_or_else(|| {
                TwistError::BadJoint(
                    name(r.joint),
                    "its parent is not a joint of its skin, so there is no junction to fix".into(),
                )
            })?;
        // Where P's and K's skinning matrices differ at rest, a weight can move only between
        // joints bound like the same one (or the rest mesh moves): each weighted helper then
        // gets a twin bound like the other end, so both sides of a blend can take every share.
        let twins = super::rest_class::classes_differ(scene, &classes, parent, r.joint);
        let ends = Ends {
            parent,
            child,
            twins,
        };
        let junction = add_junction(scene, &mut plan.roll_joints, r, &ends)?;
        plan.junctions.push(junction);
    }
    Ok(plan)
}

/// What a junction hangs between: K's parent P, its child (none: bend helpers only), and
/// whether each weighted helper gets a twin bound like the other end.
struct Ends {
    parent: usize,
    child: Option<usize>,
    twins: bool,
}

/// The nodes of one junction, appended to `out`; returns the junction.
fn add_junction(
    scene: &Scene,
    out: &mut Vec<RollJoint>,
    request: &TwistRequest,
    ends: &Ends,
) -> Result<Junction, TwistError> {
    let Ends {
        parent,
        child,
        twins,
    } = *ends;
    let k = request.joint;
    let n = request.count;
    let c = child.and_then(|c| bone_vector(scene, c)).unwrap_or(Vec3::Y);
    let (axis, signed, to_bone) = principal_frame(c.normalize());
    let rest = to_trs(scene.nodes[k].transform);
    // The bone's frame at K's head, under P: K's rest rotation, then the principal axis onto the bone.
    let bone_frame = Trs {
        translation: rest.translation,
        rotation: (rest.rotation * to_bone).normalize(),
        scale: Vec3::ONE,
    };
    let base = &scene.nodes[k].name;
    let add = |out: &mut Vec<RollJoint>,
               name: String,
               family,
               parent,
               share,
               takes_from,
               constraint,
               trs| {
        check_name(scene, &name)?;
        out.push(RollJoint {
            node: scene.nodes.len() + out.len(),
            name,
            parent,
            joint: k,
            family,
            share,
            takes_from,
            constraint,
            trs,
        });
        Ok::<usize, TwistError>(out.len() - 1)
    };
    let roll = |source| Some((source, ConstraintKind::Roll { axis }));
    let mut junction = Junction {
        joint: k,
        parent,
        joint_stations: Vec::new(),
        parent_stations: vec![(0.0, ITSELF)],
    };
    // Both families stand at shares k / (N + 1) of K's turn: P's weight blends P (0) up to
    // the last, K's the first up to K (1), so no two neighbours are more than 1 / (N + 1) apart.
    let share_of = |i: usize| i as f32 / (n + 1) as f32;
    for i in 1..=n {
        let share = share_of(i);
        for (from, suffix) in bound_like(parent, (k, "_k"), twins) {
            let at = add(
                out,
                format!("{base}_twist_parent_{i:02}{suffix}"),
                Family::Parent,
                parent,
                share,
                Some(from),
                Some((k, ConstraintKind::Rotation)),
                Trs {
                    rotation: rest.rotation,
                    ..bone_frame
                },
            )?;
            junction.parent_stations.push((share, at));
        }
    }
    if let Some(child) = child {
        let aim = add(
            out,
            format!("{base}_twist_aim"),
            Family::Aim,
            parent,
            0.0,
            None,
            Some((child, ConstraintKind::Aim { axis: signed })),
            bone_frame,
        )?;
        // Under the aim node, a turn back to P's orientation: there K's rotation from rest, as
        // the roll constraint reads it, is about the bone.
        let frame_trs = Trs {
            rotation: bone_frame.rotation.inverse().normalize(),
            ..Trs::IDENTITY
        };
        let frame = add(
            out,
            format!("{base}_twist_frame"),
            Family::Frame,
            out[aim].node,
            0.0,
            None,
            None,
            frame_trs,
        )?;
        let length = c.length();
        for i in 1..=n {
            let share = share_of(i);
            let trs = Trs {
                // On the bone, spread over its first half (where a joint's twist blends).
                translation: bone_frame.rotation * (signed * (0.5 * length * share)),
                rotation: bone_frame.rotation,
                scale: Vec3::ONE,
            };
            for (from, suffix) in bound_like(k, (parent, "_p"), twins) {
                let at = add(
                    out,
                    format!("{base}_twist_{i:02}{suffix}"),
                    Family::Joint,
                    out[frame].node,
                    share,
                    Some(from),
                    roll(k),
                    trs,
                )?;
                junction.joint_stations.push((share, at));
            }
        }
    }
    junction.joint_stations.push((1.0, ITSELF));
    Ok(junction)
}

/// Adds the plan's nodes, constraints and skin joints to `scene`.
pub(super) fn add_nodes(scene: &mut Scene, plan: &Plan) {
    for rj in &plan.roll_joints {
        debug_assert_eq!(rj.node, scene.nodes.len());
        scene.nodes.push(Node {
            name: rj.name.clone(),
            parent: Some(rj.parent),
            transform: NodeTransform::Trs(rj.trs),
            ..Node::default()
        });
        scene.nodes[rj.parent].children.push(rj.node);
    }
    let mut constraints = std::mem::take(&mut scene.constraints);
    constraints.extend(plan.roll_joints.iter().filter_map(|rj| {
        let (source, kind) = rj.constraint?;
        Some(NodeConstraint {
            destination: rj.node,
            source,
            kind,
            weight: if matches!(kind, ConstraintKind::Aim { .. }) {
                1.0
            } else {
                rj.share
            },
        })
    }));
    scene.constraints = evaluation_order(constraints, &scene.nodes, &mut scene.warnings);
    let rest = Pose::rest(scene);
    for skin in &mut scene.skins {
        for rj in &plan.roll_joints {
            // The helper nodes are joints too, without weight: importers that read a bone's
            // bind pose from the inverse bind matrices (Blender's) then bind the twist joints
            // under them right.
            let helper = matches!(rj.family, Family::Aim | Family::Frame);
            let Some(from_node) = rj.takes_from.or(helper.then_some(rj.joint)) else {
                continue;
            };
            let Some(from) = skin.joints.iter().position(|&n| n == from_node) else {
                continue;
            };
            let ibm_from = skin
                .inverse_bind
                .get(from)
                .copied()
                .unwrap_or(Mat4::IDENTITY);
            // At rest the new joint's skinning matrix equals the one it takes weight from.
            // In f64, so the rest pose holds to f32 rounding.
            let d = |m: Mat4| m.as_dmat4();
            let ibm = (d(rest.global[rj.node]).inverse() * d(rest.global[from_node]) * d(ibm_from))
                .as_mat4();
            skin.inverse_bind.resize(skin.joints.len(), Mat4::IDENTITY);
            skin.joints.push(rj.node);
            skin.inverse_bind.push(ibm);
        }
    }
}

/// The joints a helper family's node is bound like, with its name suffix: `own` (no suffix),
/// and with `twins` also `other`.
fn bound_like(own: usize, other: (usize, &str), twins: bool) -> Vec<(usize, &str)> {
    let mut out = vec![(own, "")];
    if twins {
        out.push(other);
    }
    out
}

/// The rest translation of `child` (the bone vector, in its parent's frame), when it has a length.
fn bone_vector(scene: &Scene, child: usize) -> Option<Vec3> {
    let t = to_trs(scene.nodes.get(child)?.transform).translation;
    (t.length() > 1e-8 && t.is_finite()).then_some(t)
}

/// The principal axis (`X`, `Y`, `Z`) nearest the unit bone direction `a`, that axis signed
/// like `a`, and the rotation that turns the signed axis onto `a` (identity when they agree).
fn principal_frame(a: Vec3) -> (Vec3, Vec3, Quat) {
    let abs = a.abs();
    let axis = if abs.x >= abs.y && abs.x >= abs.z {
        Vec3::X
    } else if abs.y >= abs.z {
        Vec3::Y
    } else {
        Vec3::Z
    };
    let signed = axis * a.dot(axis).signum();
    (axis, signed, Quat::from_rotation_arc(signed, a).normalize())
}

/// Whether some skin lists both `a` and `b` as joints.
pub(super) fn shares_skin(scene: &Scene, a: usize, b: usize) -> bool {
    scene
        .skins
        .iter()
        .any(|s| s.joints.contains(&a) && s.joints.contains(&b))
}

/// Whether some vertex of a mesh skinned by a skin holding `joint` has weight on it.
fn is_weighted(scene: &Scene, joint: usize) -> bool {
    scene.nodes.iter().any(|node| {
        let (Some(m), Some(s)) = (node.mesh, node.skin) else {
            return false;
        };
        let Some(j) = scene
            .skins
            .get(s)
            .and_then(|s| s.joints.iter().position(|&n| n == joint))
        else {
            return false;
        };
        scene.meshes.get(m).is_some_and(|mesh| {
            mesh.primitives.iter().any(|p| {
                p.influences
                    .as_ref()
                    .is_some_and(|inf| inf.entries().iter().any(|i| usize::from(i.joint) == j))
            })
        })
    })
}

/// Refuses a name some node already has.
fn check_name(scene: &Scene, name: &str) -> Result<(), TwistError> {
    if scene.nodes.iter().any(|n| n.name == name) {
        Err(TwistError::NameTaken(name.to_owned()))
    } else {
        Ok(())
    }
}
