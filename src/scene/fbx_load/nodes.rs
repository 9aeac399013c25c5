//! The node hierarchy: every ufbx node but its synthetic root, as TRS nodes.

use super::convert;
use crate::scene::{Node, NodeTransform, SceneError, Trs};

/// Converted nodes with the map from ufbx node ids to dqview node indices.
pub(super) struct Nodes {
    /// dqview nodes, in ufbx order without the root.
    pub nodes: Vec<Node>,
    /// Parentless nodes (the children of ufbx's root).
    pub roots: Vec<usize>,
    /// Per ufbx node (`typed_id`), its dqview index; `None` for the root.
    pub index_of: Vec<Option<usize>>,
}

/// Converts the hierarchy; each node's rest transform is ufbx's `local_transform`
/// (pivots, pre- and post-rotations folded in).
pub(super) fn load_nodes(fbx: &ufbx::Scene) -> Result<Nodes, SceneError> {
    let mut index_of = vec![None; fbx.nodes.len()];
    let mut next = 0;
    for node in &fbx.nodes {
        if node.is_root {
            continue;
        }
        let slot = index_of
            .get_mut(node.element.typed_id as usize)
            .ok_or_else(|| bad_id("node", node.element.typed_id))?;
        *slot = Some(next);
        next += 1;
    }
    let mut nodes = Vec::with_capacity(next);
    let mut roots = Vec::new();
    for node in fbx.nodes.iter().filter(|n| !n.is_root) {
        let parent = match &node.parent {
            Some(p) => lookup(&index_of, p.element.typed_id)?,
            None => None,
        };
        let children = node
            .children
            .iter()
            .map(|c| lookup(&index_of, c.element.typed_id))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect();
        if parent.is_none() {
            roots.push(nodes.len());
        }
        let t = &node.local_transform;
        nodes.push(Node {
            name: node_name(node, nodes.len()),
            parent,
            children,
            transform: NodeTransform::Trs(Trs {
                translation: convert::vec3(t.translation),
                rotation: convert::quat(t.rotation),
                scale: convert::vec3(t.scale),
            }),
            mesh: None,
            skin: None,
            morph_weights: Vec::new(),
        });
    }
    Ok(Nodes {
        nodes,
        roots,
        index_of,
    })
}

/// The dqview index of ufbx node `typed_id` (`None` for the root).
pub(super) fn lookup(
    index_of: &[Option<usize>],
    typed_id: u32,
) -> Result<Option<usize>, SceneError> {
    index_of
        .get(typed_id as usize)
        .copied()
        .ok_or_else(|| bad_id("node", typed_id))
}

/// The error for an id ufbx gave that is out of its own range (a ufbx bug, not a file error).
pub(super) fn bad_id(kind: &str, id: u32) -> SceneError {
    SceneError::Fbx(format!(
        "ufbx returned {kind} id {id}, which is out of range"
    ))
}

/// The node's name; a ufbx scale helper is named after its parent; else `node N`.
fn node_name(node: &ufbx::Node, index: usize) -> String {
    let parent_name = node.parent.as_ref().map(|p| p.element.name.to_string());
    if node.is_scale_helper
        && let Some(parent) = parent_name.filter(|p| !p.is_empty())
    {
        format!("{parent} (scale helper)")
    } else if node.element.name.is_empty() {
        format!("node {index}")
    } else {
        node.element.name.to_string()
    }
}
