//! `VRMC_node_constraint` on nodes: read, checked, and put in evaluation order.

use gltf::json::{Root, Value};

use crate::scene::constraint::{
    ConstraintKind, NODE_CONSTRAINT_EXTENSION, NodeConstraint, aim_axis, order_and_cycles,
    roll_axis,
};
use crate::scene::{DataFault, FaultKind, Node};

/// What the node keeps when its constraint is ignored.
const IGNORED: &str = "ignored: the node keeps its own rotation";

/// Every node's constraint, sources before the constraints that read them, and a fault for
/// each one no runtime can evaluate (dropped: a file with a broken constraint still opens, as
/// three-vrm's does) or that names several kinds (the first is used).
pub(super) fn load_constraints(
    json: &Root,
    nodes: &[Node],
) -> (Vec<NodeConstraint>, Vec<DataFault>) {
    let mut found = Vec::new();
    let mut faults = Vec::new();
    let place = |index: usize| match nodes.get(index).map(|n| n.name.as_str()) {
        Some(name) if !name.is_empty() => format!("node {index} \"{name}\""),
        _ => format!("node {index}"),
    };
    for (index, node) in json.nodes.iter().enumerate() {
        let ext = node.extensions.as_ref();
        let Some(value) = ext.and_then(|e| e.others.get(NODE_CONSTRAINT_EXTENSION)) else {
            continue;
        };
        match parse(value, index, nodes.len()) {
            Ok((c, extra)) => {
                found.push(c);
                if !extra.is_empty() {
                    let action = format!(
                        "{} used, {} ignored (one kind a node)",
                        c.kind.name(),
                        extra.join(" and ")
                    );
                    faults.push(DataFault::new(
                        FaultKind::ConstraintKinds,
                        place(index),
                        1,
                        None,
                        action,
                    ));
                }
            }
            Err(why) => faults.push(DataFault::new(
                FaultKind::IgnoredConstraints,
                place(index),
                1,
                None,
                format!("{why}: {IGNORED}"),
            )),
        }
    }
    let (order, cyclic) = order_and_cycles(found, nodes);
    if let Some(first) = cyclic.first() {
        faults.push(DataFault::new(
            FaultKind::IgnoredConstraints,
            place(first.destination),
            cyclic.len(),
            None,
            format!(
                "their sources depend on them in a cycle (this node and {} more): {IGNORED}",
                cyclic.len() - 1
            ),
        ));
    }
    (order, faults)
}

/// One node's extension object as a constraint and the other kinds it names too, or why not.
fn parse(
    value: &Value,
    destination: usize,
    nodes: usize,
) -> Result<(NodeConstraint, Vec<&'static str>), String> {
    let version = value.get("specVersion").and_then(Value::as_str);
    if !matches!(version, Some("1.0" | "1.0-beta")) {
        return Err(format!("specVersion {version:?} is not 1.0"));
    }
    let body = value.get("constraint").ok_or("it has no `constraint`")?;
    let mut kinds = ["roll", "aim", "rotation"]
        .into_iter()
        .filter_map(|k| body.get(k).map(|d| (k, d)));
    let (name, def) = kinds
        .next()
        .ok_or("`constraint` has none of roll, aim, rotation")?;
    let extra: Vec<&'static str> = kinds.map(|(k, _)| k).collect();
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
    Ok((
        NodeConstraint {
            destination,
            source,
            kind,
            weight,
        },
        extra,
    ))
}
