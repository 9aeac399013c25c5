//! Taking out a previous run's roll joints, so running twist-joints on its own output
//! replaces them instead of adding more.

use super::TwistError;
use crate::influences::Influences;
use crate::scene::{ConstraintKind, Scene};

/// Whether node `n` of `scene` is one of the nodes twist-joints adds, by its name (`X_twist_NN`,
/// `X_twist_parent_NN`, `X_twist_aim`, `X_twist_frame`) and, for the weighted ones, its roll
/// or rotation constraint; meshless.
pub(super) fn is_roll_joint(scene: &Scene, n: usize) -> bool {
    let node = &scene.nodes[n];
    let Some((_, tail)) = node.name.rsplit_once("_twist_") else {
        return false;
    };
    // `NN`, or `NN_k` / `NN_p` for a twin bound like the other end of the junction.
    let numbered = |t: &str| {
        let t = t
            .strip_suffix("_k")
            .or_else(|| t.strip_suffix("_p"))
            .unwrap_or(t);
        t.len() == 2 && t.bytes().all(|b| b.is_ascii_digit())
    };
    let rolls = || {
        scene.constraints.iter().any(|c| {
            c.destination == n
                && matches!(
                    c.kind,
                    ConstraintKind::Roll { .. } | ConstraintKind::Rotation
                )
        })
    };
    let kind_ok = match tail {
        "aim" | "frame" => true,
        t => numbered(t.strip_prefix("parent_").unwrap_or(t)) && rolls(),
    };
    kind_ok && node.mesh.is_none()
}

/// The junctions an earlier run fixed in `scene` (its trailing roll joints), as requests: the
/// joint named before `_twist_` and its helpers per family (the larger family's count, twins
/// not counted), in the order the earlier run added them; a junction joint missing from the
/// file is left out.
pub(super) fn earlier_requests(scene: &Scene) -> Vec<super::TwistRequest> {
    let mut out: Vec<(String, usize, usize)> = Vec::new();
    let first = (0..scene.nodes.len())
        .rev()
        .take_while(|&n| is_roll_joint(scene, n))
        .last()
        .unwrap_or(scene.nodes.len());
    for node in &scene.nodes[first..] {
        let Some((joint, tail)) = node.name.rsplit_once("_twist_") else {
            continue;
        };
        let (parent_family, number) = match tail.strip_prefix("parent_") {
            Some(t) => (true, t),
            None => (false, tail),
        };
        if number.len() != 2 || !number.bytes().all(|b| b.is_ascii_digit()) {
            continue; // aim, frame and twins
        }
        let slot = match out.iter().position(|(j, _, _)| j == joint) {
            Some(i) => i,
            None => {
                out.push((joint.to_owned(), 0, 0));
                out.len() - 1
            }
        };
        if parent_family {
            out[slot].2 += 1;
        } else {
            out[slot].1 += 1;
        }
    }
    out.into_iter()
        .filter_map(|(name, own, parent)| {
            let joint = scene.nodes.iter().position(|n| n.name == name)?;
            Some(super::TwistRequest {
                joint,
                count: own.max(parent),
            })
        })
        .collect()
}

/// `scene` without its trailing roll joints (their weight given back to their parents),
/// and how many were taken out.
pub(super) fn strip_roll_joints(scene: &Scene) -> Result<(Scene, usize), TwistError> {
    let count = scene.nodes.len();
    let first = (0..count)
        .rev()
        .take_while(|&n| is_roll_joint(scene, n))
        .last()
        .unwrap_or(count);
    if let Some(stray) = (0..first).find(|&n| is_roll_joint(scene, n)) {
        return Err(TwistError::Strip(format!(
            "{} looks like a roll joint of an earlier run, but it is not among the file's last \
             nodes, where dqview puts them; remove it by hand or start from the original file",
            scene.nodes[stray].name
        )));
    }
    let mut out = scene.clone();
    if first == count {
        return Ok((out, 0));
    }
    for s in 0..out.skins.len() {
        fold_skin(&mut out, s, first)?;
    }
    for node in &mut out.nodes {
        node.children.retain(|&c| c < first);
    }
    out.nodes.truncate(first);
    out.constraints
        .retain(|c| c.destination < first && c.source < first);
    for animation in &mut out.animations {
        animation.channels.retain(|c| c.node < first);
    }
    Ok((out, count - first))
}

/// The nearest ancestor of `node` below index `first` that is one of `joints`.
fn kept_joint_above(scene: &Scene, joints: &[usize], node: usize, first: usize) -> Option<usize> {
    let mut at = scene.nodes.get(node)?.parent;
    for _ in 0..scene.nodes.len() {
        let n = at?;
        if n < first && joints.contains(&n) {
            return Some(n);
        }
        at = scene.nodes[n].parent;
    }
    None
}

/// Removes nodes `first..` from skin `s`, their weight moved to their parents.
fn fold_skin(scene: &mut Scene, s: usize, first: usize) -> Result<(), TwistError> {
    let skin = &scene.skins[s];
    if skin.joints.iter().all(|&n| n < first) {
        return Ok(());
    }
    let kept: Vec<usize> = (0..skin.joints.len())
        .filter(|&j| skin.joints[j] < first)
        .collect();
    let new_index = |node: usize| kept.iter().position(|&j| skin.joints[j] == node);
    let mut remap = Vec::with_capacity(skin.joints.len());
    for &node in &skin.joints {
        // A parent-family joint gives its weight back to its parent (P); a joint-family one,
        // hung under helper nodes, to the joint its roll reads (K).
        let parent = scene.nodes[node]
            .parent
            .filter(|&p| p < first && skin.joints.contains(&p));
        let source = scene
            .constraints
            .iter()
            .find(|c| c.destination == node)
            .map(|c| c.source);
        let name = &scene.nodes[node].name;
        let target = if node < first {
            Some(node)
        } else if name.ends_with("_k") {
            // A twin bound like K (under P) gives its weight to K, and one bound like P
            // (under K's helpers) to P: the joints their skinning matrices equal at rest.
            source
        } else if name.ends_with("_p") {
            source.and_then(|k| scene.nodes.get(k)?.parent)
        } else {
            // The helper nodes carry no weight: any kept ancestor that is a joint will do.
            parent
                .or(source)
                .or_else(|| kept_joint_above(scene, &skin.joints, node, first))
        }
        .unwrap_or(node);
        let index = new_index(target).ok_or_else(|| {
            TwistError::Strip(format!(
                "roll joint {} has a parent that is not a joint of skin {s}",
                scene.nodes[node].name
            ))
        })?;
        remap.push(u16::try_from(index).unwrap_or(u16::MAX));
    }
    let joints: Vec<usize> = kept.iter().map(|&j| skin.joints[j]).collect();
    let inverse_bind = kept
        .iter()
        .map(|&j| {
            skin.inverse_bind
                .get(j)
                .copied()
                .unwrap_or(glam::Mat4::IDENTITY)
        })
        .collect();
    let skinned: Vec<usize> = scene
        .nodes
        .iter()
        .filter(|n| n.skin == Some(s))
        .filter_map(|n| n.mesh)
        .collect();
    for m in skinned {
        for prim in &mut scene.meshes[m].primitives {
            let Some(inf) = prim.influences.as_ref() else {
                continue;
            };
            let rows: Vec<Vec<(u16, f32)>> = inf
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|i| (remap[usize::from(i.joint)], i.weight))
                        .collect()
                })
                .collect();
            prim.influences = Some(Influences::from_rows(rows));
        }
    }
    let skin = &mut scene.skins[s];
    skin.joints = joints;
    skin.inverse_bind = inverse_bind;
    Ok(())
}
