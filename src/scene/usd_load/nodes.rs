//! The prim hierarchy as dqview nodes: each transformable prim one node, its `xformOp`s
//! composed into a local transform, and time-sampled ops into keyframe channels.

use std::collections::HashMap;

use super::read;
use super::source::UsdStage;
use super::traverse::PrimPath;
use super::xform_ops;
use crate::scene::{Channel, Interpolation, Node, NodeTransform, Property, SceneError, Trs};
use glam::{DMat4, Mat4, Quat, Vec3};

/// Prim types that are data, not places in the hierarchy: they get no node, nor do their children.
const NOT_NODES: &[&str] = &[
    "SkelAnimation",
    "BlendShape",
    "Material",
    "Shader",
    "NodeGraph",
    "GeomSubset",
];

/// One prim that became a node.
pub(super) struct PrimNode {
    /// The prim's path.
    pub path: PrimPath,
    /// The prim's type name (`Mesh`, `Skeleton`, ...; empty when untyped).
    pub type_name: String,
}

/// The nodes of the stage, with the prim each came from.
#[derive(Default)]
pub(super) struct StageNodes {
    /// Nodes in traversal order (parents first).
    pub nodes: Vec<Node>,
    /// Root node indices.
    pub roots: Vec<usize>,
    /// The prim of each node.
    pub prims: Vec<PrimNode>,
    /// Node index of each prim path.
    pub index_of: HashMap<PrimPath, usize>,
    /// Keyframe channels of time-sampled transforms, times in time codes.
    pub channels: Vec<TimedChannel>,
}

/// A channel whose key times are still USD time codes.
pub(super) struct TimedChannel {
    /// Target node.
    pub node: usize,
    /// Animated property.
    pub property: Property,
    /// Key times in time codes.
    pub codes: Vec<f64>,
    /// Flat values, `components` per key.
    pub values: Vec<f32>,
}

impl TimedChannel {
    /// The channel with key times in seconds (`code / tcps`), linear interpolation.
    pub fn into_channel(self, time_codes_per_second: f64) -> Channel {
        Channel {
            node: self.node,
            property: self.property,
            interpolation: Interpolation::Linear,
            times_s: self
                .codes
                .iter()
                .map(|c| (c / time_codes_per_second) as f32)
                .collect(),
            values: self.values,
        }
    }
}

/// Every prim of `paths` (the default traversal, parents first) that is a place in the
/// hierarchy, as a node.
pub(super) fn load_nodes(stage: &UsdStage, paths: &[PrimPath]) -> Result<StageNodes, SceneError> {
    let mut out = StageNodes::default();
    for path in paths {
        let parent = read::parent_path(path);
        let parent_node = match &parent {
            Some(p) => match out.index_of.get(*p) {
                Some(&n) => Some(n),
                None => continue, // under a prim that is not a node
            },
            None => None,
        };
        let type_name = stage.type_name(path)?;
        if NOT_NODES.contains(&type_name.as_str()) {
            continue;
        }
        let index = out.nodes.len();
        let order = xform_ops::op_order(stage, path)?;
        let parent_node = if xform_ops::resets_stack(&order) {
            None
        } else {
            parent_node
        };
        let transform = load_transform(stage, &order, path, index, &mut out.channels)?;
        out.nodes.push(Node {
            name: read::leaf(path).to_owned(),
            parent: parent_node,
            transform,
            ..Node::default()
        });
        match parent_node {
            Some(p) => out.nodes[p].children.push(index),
            None => out.roots.push(index),
        }
        out.index_of.insert(path.clone(), index);
        out.prims.push(PrimNode {
            path: path.clone(),
            type_name,
        });
    }
    Ok(out)
}

/// The prim's local transform at its first sample (or its default), plus channels when it is time-sampled.
fn load_transform(
    stage: &UsdStage,
    order: &[String],
    path: &str,
    node: usize,
    channels: &mut Vec<TimedChannel>,
) -> Result<NodeTransform, SceneError> {
    let mut codes: Vec<f64> = Vec::new();
    for name in xform_ops::op_attributes(order) {
        codes.extend(read::sample_times(stage, path, name)?);
    }
    codes.sort_by(f64::total_cmp);
    codes.dedup();
    let at = |code: f64| xform_ops::local_transform(stage, path, order, code);
    let first = codes.first().copied().unwrap_or(0.0);
    let rest = at(first)?;
    if codes.len() > 1 {
        let mut t = TimedChannel {
            node,
            property: Property::Translation,
            codes: codes.clone(),
            values: Vec::new(),
        };
        let mut r = TimedChannel {
            node,
            property: Property::Rotation,
            codes: codes.clone(),
            values: Vec::new(),
        };
        let mut s = TimedChannel {
            node,
            property: Property::Scale,
            codes: codes.clone(),
            values: Vec::new(),
        };
        let mut previous = Quat::IDENTITY;
        for &code in &codes {
            let trs = decompose(at(code)?.as_mat4());
            // Keep neighbouring keys on one hemisphere so interpolation takes the short way.
            let q = if trs.rotation.dot(previous) < 0.0 {
                -trs.rotation
            } else {
                trs.rotation
            };
            previous = q;
            t.values.extend(trs.translation.to_array());
            r.values.extend(q.to_array());
            s.values.extend(trs.scale.to_array());
        }
        channels.extend([t, r, s]);
    }
    Ok(node_transform(rest))
}

/// A matrix as TRS when it is one (to 1e-5 of its largest entry), else as the matrix itself.
pub(super) fn node_transform(m: DMat4) -> NodeTransform {
    let m32 = m.as_mat4();
    let trs = decompose(m32);
    let back = trs.to_mat4();
    let size = m32
        .to_cols_array()
        .iter()
        .fold(1e-30_f32, |a, v| a.max(v.abs()));
    let off = (back - m32)
        .to_cols_array()
        .iter()
        .fold(0.0_f32, |a, v| a.max(v.abs()));
    if off <= 1e-5 * size && trs.translation.is_finite() && trs.rotation.is_finite() {
        NodeTransform::Trs(trs)
    } else {
        NodeTransform::Matrix(m32)
    }
}

/// Translation, rotation and scale of a matrix (a mirror becomes a negative x scale).
pub(super) fn decompose(m: Mat4) -> Trs {
    let (scale, rotation, translation) = m.to_scale_rotation_translation();
    let ok = scale.is_finite() && rotation.is_finite() && translation.is_finite();
    Trs {
        translation: if ok { translation } else { Vec3::ZERO },
        rotation: if ok {
            rotation.normalize()
        } else {
            Quat::IDENTITY
        },
        scale: if ok { scale } else { Vec3::ONE },
    }
}
