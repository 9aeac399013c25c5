//! `VRMC_node_constraint` on nodes: read, checked, and put in evaluation order.

use gltf::json::{Root, Value};

use crate::scene::Node;
use crate::scene::constraint::{
    ConstraintKind, NODE_CONSTRAINT_EXTENSION, NodeConstraint, aim_axis, roll_axis,
};

/// Every node's constraint, sources before the constraints that read them; bad ones are
/// dropped with a warning (a file with a broken constraint still opens, as three-vrm's does).
pub(super) fn load_constraints(
    json: &Root,
    nodes: &[Node],
    warnings: &mut Vec<String>,
) -> Vec<NodeConstraint> {
    let mut found = Vec::new();
    for (index, node) in json.nodes.iter().enumerate() {
        let ext = node.extensions.as_ref();
        let Some(value) = ext.and_then(|e| e.others.get(NODE_CONSTRAINT_EXTENSION)) else {
            continue;
        };
        match parse(value, index, nodes.len()) {
            Ok(c) => found.push(c),
            Err(why) => warnings.push(format!(
                "node {index}: {NODE_CONSTRAINT_EXTENSION} ignored: {why}"
            )),
        }
    }
    crate::scene::constraint::evaluation_order(found, nodes, warnings)
}

/// One node's extension object as a constraint, or why not.
fn parse(value: &Value, destination: usize, nodes: usize) -> Result<NodeConstraint, String> {
    let version = value.get("specVersion").and_then(Value::as_str);
    if !matches!(version, Some("1.0" | "1.0-beta")) {
        return Err(format!("specVersion {version:?} is not 1.0"));
    }
    let body = value.get("constraint").ok_or("it has no `constraint`")?;
    let (name, def) = ["roll", "aim", "rotation"]
        .into_iter()
        .find_map(|k| body.get(k).map(|d| (k, d)))
        .ok_or("`constraint` has none of roll, aim, rotation")?;
    let source = def
        .get("source")
        .and_then(Value::as_u64)
        .and_then(|s| usize::try_from(s).ok())
        .ok_or(format!("{name}: `source` is not a node index"))?;
    if source >= nodes {
        return Err(format!(
            "{name}: source {source} is not a node ({nodes} nodes)"
        ));
    }
    if source == destination {
        return Err(format!("{name}: the source is the node itself"));
    }
    let weight = match def.get("weight") {
        None => 1.0,
        Some(w) => w
            .as_f64()
            .filter(|w| (0.0..=1.0).contains(w))
            .ok_or(format!("{name}: weight {w} is not in [0, 1]"))? as f32,
    };
    let kind = match name {
        "roll" => {
            let axis = def.get("rollAxis").and_then(Value::as_str).unwrap_or("");
            ConstraintKind::Roll {
                axis: roll_axis(axis).ok_or(format!("roll: rollAxis {axis:?} is not X, Y or Z"))?,
            }
        }
        "aim" => {
            let axis = def.get("aimAxis").and_then(Value::as_str).unwrap_or("");
            ConstraintKind::Aim {
                axis: aim_axis(axis).ok_or(format!(
                    "aim: aimAxis {axis:?} is not PositiveX ... NegativeZ"
                ))?,
            }
        }
        _ => ConstraintKind::Rotation,
    };
    Ok(NodeConstraint {
        destination,
        source,
        kind,
        weight,
    })
}
