//! Nodes: names, transforms, references, the parent/child hierarchy and the shown roots.

use glam::{Mat4, Quat, Vec3};
use gltf::json::Root;

use super::source::Data;
use crate::scene::{DataFault, FaultKind, Node, NodeTransform, SceneError, Trs};

/// A node's `weights` (its mesh instance's default morph weights), non-finite ones set to 0
/// (counted in `bad`: how many, and the first node).
fn node_morph_weights(index: usize, weights: Option<&[f32]>, bad: &mut Tally) -> Vec<f32> {
    let Some(weights) = weights else {
        return Vec::new();
    };
    bad.add(index, weights.iter().filter(|w| !w.is_finite()).count());
    weights
        .iter()
        .map(|&w| if w.is_finite() { w } else { 0.0 })
        .collect()
}

/// How many bad values, and the first index that had one.
#[derive(Default)]
struct Tally(usize, Option<usize>);

impl Tally {
    /// Counts `n` bad values at `index`.
    fn add(&mut self, index: usize, n: usize) {
        if n > 0 {
            self.0 += n;
            self.1.get_or_insert(index);
        }
    }

    /// The fault of `kind` at `place` when anything was counted.
    fn fault(&self, kind: FaultKind, action: &str) -> Option<DataFault> {
        (self.0 > 0).then(|| DataFault::new(kind, "nodes", self.0, self.1, action))
    }
}

/// Converts every node, checking its references and that the hierarchy is a forest; bad
/// transforms and morph weights become faults of `data`.
pub(super) fn load_nodes(
    data: &Data<'_>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Node>, SceneError> {
    let json = data.json;
    let mut nodes = Vec::with_capacity(json.nodes.len());
    let (mut non_finite, mut zero_rotation, mut weights) =
        (Tally::default(), Tally::default(), Tally::default());
    for (index, node) in json.nodes.iter().enumerate() {
        let mesh = check_ref(
            node.mesh.map(|m| m.value()),
            json.meshes.len(),
            index,
            "mesh",
        )?;
        let skin = check_ref(
            node.skin.map(|s| s.value()),
            json.skins.len(),
            index,
            "skin",
        )?;
        let (transform, repaired) = match node.matrix {
            Some(m) => matrix_transform(m),
            None => trs_transform(
                node.translation.unwrap_or([0.0; 3]),
                node.rotation.map_or([0.0, 0.0, 0.0, 1.0], |r| r.0),
                node.scale.unwrap_or([1.0; 3]),
            ),
        };
        non_finite.add(index, usize::from(repaired.non_finite));
        zero_rotation.add(index, usize::from(repaired.zero_rotation));
        nodes.push(Node {
            name: node.name.clone().unwrap_or_else(|| format!("node {index}")),
            parent: None,
            children: Vec::new(),
            transform,
            mesh,
            skin,
            morph_weights: node_morph_weights(index, node.weights.as_deref(), &mut weights),
        });
    }
    let faults = [
        non_finite.fault(
            FaultKind::NonFiniteNodeTransforms,
            "the non-finite parts are replaced by identity parts (a matrix by the identity)",
        ),
        zero_rotation.fault(
            FaultKind::ZeroRotationKeys,
            "replaced by the identity rotation",
        ),
        weights.fault(FaultKind::NonFiniteMorphWeights, "set to 0"),
    ];
    faults.into_iter().flatten().for_each(|f| data.fault(f));
    link_children(json, &mut nodes, warnings)?;
    check_acyclic(&nodes)?;
    Ok(nodes)
}

/// Checks an optional reference from node `node` to a `kind` list of length `count`.
fn check_ref(
    index: Option<usize>,
    count: usize,
    node: usize,
    kind: &'static str,
) -> Result<Option<usize>, SceneError> {
    match index {
        Some(i) if i >= count => Err(SceneError::IndexOutOfRange {
            referrer: format!("node {node}"),
            kind,
            index: i,
            count,
        }),
        other => Ok(other),
    }
}

/// What a node transform needed repaired.
#[derive(Clone, Copy, Default)]
struct Repaired {
    /// A NaN or infinite value was replaced.
    non_finite: bool,
    /// A zero-length rotation was replaced by the identity.
    zero_rotation: bool,
}

/// A matrix transform; a matrix with a non-finite entry becomes identity.
fn matrix_transform(m: [f32; 16]) -> (NodeTransform, Repaired) {
    if m.iter().all(|v| v.is_finite()) {
        let matrix = NodeTransform::Matrix(Mat4::from_cols_array(&m));
        (matrix, Repaired::default())
    } else {
        let repaired = Repaired {
            non_finite: true,
            zero_rotation: false,
        };
        (NodeTransform::Matrix(Mat4::IDENTITY), repaired)
    }
}

/// A TRS transform with non-finite parts reset and the rotation normalised.
fn trs_transform(t: [f32; 3], r: [f32; 4], s: [f32; 3]) -> (NodeTransform, Repaired) {
    let mut repaired = Repaired::default();
    let mut finite_or = |v: f32, default: f32| {
        if v.is_finite() {
            v
        } else {
            repaired.non_finite = true;
            default
        }
    };
    let translation = Vec3::from_array(t.map(|v| finite_or(v, 0.0)));
    let scale = Vec3::from_array(s.map(|v| finite_or(v, 1.0)));
    let q = Quat::from_array(r);
    // Files store unit quaternions to float precision; normalising keeps downstream maths exact.
    let rotation = if q.is_finite() && q.length_squared() > 1e-12 {
        q.normalize()
    } else {
        if q.is_finite() {
            repaired.zero_rotation = true;
        } else {
            repaired.non_finite = true;
        }
        Quat::IDENTITY
    };
    let trs = Trs {
        translation,
        rotation,
        scale,
    };
    (NodeTransform::Trs(trs), repaired)
}

/// Fills `parent`/`children`; a node listed under two parents is an error.
fn link_children(
    json: &Root,
    nodes: &mut [Node],
    warnings: &mut Vec<String>,
) -> Result<(), SceneError> {
    let count = nodes.len();
    for (parent, node) in json.nodes.iter().enumerate() {
        for child in node.children.iter().flatten().map(|c| c.value()) {
            let Some(child_node) = nodes.get_mut(child) else {
                return Err(SceneError::IndexOutOfRange {
                    referrer: format!("node {parent} (children)"),
                    kind: "node",
                    index: child,
                    count,
                });
            };
            match child_node.parent {
                Some(p) if p == parent => {
                    warnings.push(format!(
                        "node {parent} lists child {child} twice; kept once"
                    ));
                    continue;
                }
                Some(first_parent) => {
                    return Err(SceneError::NodeSharedChild {
                        node: child,
                        first_parent,
                        second_parent: parent,
                    });
                }
                None => child_node.parent = Some(parent),
            }
            if let Some(p) = nodes.get_mut(parent) {
                p.children.push(child);
            }
        }
    }
    Ok(())
}

/// Walks up from every node; with one parent per node, a cycle shows as meeting the current walk again.
fn check_acyclic(nodes: &[Node]) -> Result<(), SceneError> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnWalk,
        Done,
    }
    let mut marks = vec![Mark::New; nodes.len()];
    let mut walk = Vec::new();
    for start in 0..nodes.len() {
        let mut at = Some(start);
        while let Some(i) = at {
            match marks.get_mut(i) {
                Some(mark @ Mark::New) => {
                    *mark = Mark::OnWalk;
                    walk.push(i);
                    at = nodes.get(i).and_then(|n| n.parent);
                }
                Some(Mark::OnWalk) => return Err(SceneError::NodeCycle { node: i }),
                Some(Mark::Done) | None => at = None,
            }
        }
        for i in walk.drain(..) {
            if let Some(mark) = marks.get_mut(i) {
                *mark = Mark::Done;
            }
        }
    }
    Ok(())
}

/// Root nodes shown: the default scene's, else scene 0's, else every parentless node.
pub(super) fn roots(
    json: &Root,
    nodes: &[Node],
    warnings: &mut Vec<String>,
) -> Result<Vec<usize>, SceneError> {
    let mut chosen = json.scene.map(|s| s.value());
    if let Some(s) = chosen.filter(|&s| s >= json.scenes.len()) {
        let fallback = if json.scenes.is_empty() {
            "every parentless node"
        } else {
            "scene 0"
        };
        warnings.push(format!(
            "default scene {s} does not exist ({} scenes); showing {fallback}",
            json.scenes.len()
        ));
        chosen = None;
    }
    let Some(scene) = chosen.or((!json.scenes.is_empty()).then_some(0)) else {
        let parentless = nodes.iter().enumerate().filter(|(_, n)| n.parent.is_none());
        return Ok(parentless.map(|(i, _)| i).collect());
    };
    let mut roots: Vec<usize> = Vec::new();
    let mut listed = vec![false; nodes.len()];
    for node in json
        .scenes
        .get(scene)
        .into_iter()
        .flat_map(|s| &s.nodes)
        .map(|n| n.value())
    {
        let Some(n) = nodes.get(node) else {
            return Err(SceneError::IndexOutOfRange {
                referrer: format!("scene {scene}"),
                kind: "node",
                index: node,
                count: nodes.len(),
            });
        };
        if n.parent.is_some() {
            warnings.push(format!(
                "scene {scene} lists node {node}, which has a parent; skipped"
            ));
        } else if let Some(seen) = listed.get_mut(node).filter(|seen| !**seen) {
            *seen = true;
            roots.push(node);
        }
    }
    Ok(roots)
}
