//! Node constraints (glTF `VRMC_node_constraint` 1.0): a node's rotation driven by another's.
//!
//! The loader reads them, `anim` evaluates them after every sample (clip, overrides), and the
//! twist-joint writer emits them; the formulas are the specification's (and three-vrm's).

use glam::Vec3;

use super::Node;

/// The glTF extension that holds node constraints.
pub const NODE_CONSTRAINT_EXTENSION: &str = "VRMC_node_constraint";

/// One constraint: `destination`'s local rotation follows `source` by `kind`, slerped by `weight`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeConstraint {
    /// The constrained node (the one whose `extensions` holds the constraint).
    pub destination: usize,
    /// The node it reads.
    pub source: usize,
    /// How the source's rotation becomes the destination's.
    pub kind: ConstraintKind,
    /// How far from the destination's rest rotation to the constrained one, in [0, 1].
    pub weight: f32,
}

/// The three constraint kinds of `VRMC_node_constraint` 1.0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstraintKind {
    /// The source's rotation from rest about one axis of the destination's rest frame.
    Roll {
        /// Unit `X`, `Y` or `Z` of the destination.
        axis: Vec3,
    },
    /// The destination turns (smallest rotation) so that `axis` points at the source.
    Aim {
        /// Unit `±X`, `±Y` or `±Z` of the destination.
        axis: Vec3,
    },
    /// The source's rotation from rest, in its own frame, applied in the destination's.
    Rotation,
}

impl ConstraintKind {
    /// The extension's name of the kind: `roll`, `aim` or `rotation`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Roll { .. } => "roll",
            Self::Aim { .. } => "aim",
            Self::Rotation => "rotation",
        }
    }
}

/// The roll axis named `X`, `Y` or `Z`.
#[must_use]
pub fn roll_axis(name: &str) -> Option<Vec3> {
    match name {
        "X" => Some(Vec3::X),
        "Y" => Some(Vec3::Y),
        "Z" => Some(Vec3::Z),
        _ => None,
    }
}

/// The name of a unit principal roll axis (`X`, `Y`, `Z`), if it is one.
#[must_use]
pub fn roll_axis_name(axis: Vec3) -> Option<&'static str> {
    [("X", Vec3::X), ("Y", Vec3::Y), ("Z", Vec3::Z)]
        .into_iter()
        .find(|(_, a)| *a == axis)
        .map(|(n, _)| n)
}

/// The aim axis named `PositiveX` ... `NegativeZ`.
#[must_use]
pub fn aim_axis(name: &str) -> Option<Vec3> {
    let (sign, letter) = if let Some(l) = name.strip_prefix("Positive") {
        (1.0, l)
    } else {
        (-1.0, name.strip_prefix("Negative")?)
    };
    roll_axis(letter).map(|a| a * sign)
}

/// The name of a unit principal aim axis (`PositiveX` ... `NegativeZ`), if it is one.
#[must_use]
pub fn aim_axis_name(axis: Vec3) -> Option<String> {
    let (sign, unit) = if axis.max_element() > 0.5 {
        ("Positive", axis)
    } else {
        ("Negative", -axis)
    };
    roll_axis_name(unit).map(|l| format!("{sign}{l}"))
}

/// The constraints ordered so that each comes after every constraint it reads (one whose
/// destination is its source or an ancestor of it, or for aim an ancestor of its own node);
/// those in a cycle are dropped with a warning.
pub fn evaluation_order(
    constraints: Vec<NodeConstraint>,
    nodes: &[Node],
    warnings: &mut Vec<String>,
) -> Vec<NodeConstraint> {
    let mut by_destination = vec![None; nodes.len()];
    for (k, c) in constraints.iter().enumerate() {
        by_destination[c.destination] = Some(k);
    }
    let ancestors_and_self = |start: Option<usize>| {
        let mut out = Vec::new();
        let mut at = start;
        while let Some(n) = at.filter(|&n| n < nodes.len() && out.len() <= nodes.len()) {
            out.push(n);
            at = nodes[n].parent;
        }
        out
    };
    let deps: Vec<Vec<usize>> = constraints
        .iter()
        .map(|c| {
            let mut reads = ancestors_and_self(Some(c.source));
            if matches!(c.kind, ConstraintKind::Aim { .. }) {
                reads.extend(ancestors_and_self(nodes[c.destination].parent));
            }
            reads.iter().filter_map(|&n| by_destination[n]).collect()
        })
        .collect();
    // 0 unvisited, 1 on the stack, 2 placed, 3 in a cycle.
    let mut state = vec![0u8; constraints.len()];
    let mut order = Vec::with_capacity(constraints.len());
    for start in 0..constraints.len() {
        visit(start, &deps, &mut state, &mut order);
    }
    for (k, c) in constraints.iter().enumerate() {
        if state[k] == 3 {
            warnings.push(format!(
                "node {}: {NODE_CONSTRAINT_EXTENSION} ignored: its sources depend on it in a cycle",
                c.destination
            ));
        }
    }
    order.into_iter().map(|k| constraints[k]).collect()
}

/// Depth-first placement of constraint `k` after its dependencies; marks cycles.
fn visit(k: usize, deps: &[Vec<usize>], state: &mut [u8], order: &mut Vec<usize>) -> bool {
    match state[k] {
        2 => return true,
        1 | 3 => {
            state[k] = 3;
            return false;
        }
        _ => {}
    }
    state[k] = 1;
    let mut ok = true;
    for &d in &deps[k] {
        ok &= visit(d, deps, state, order);
    }
    if ok && state[k] == 1 {
        state[k] = 2;
        order.push(k);
        true
    } else {
        state[k] = 3;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_names_round_trip() {
        for n in ["X", "Y", "Z"] {
            assert_eq!(roll_axis(n).and_then(roll_axis_name), Some(n));
        }
        for n in ["PositiveX", "NegativeY", "PositiveZ", "NegativeX"] {
            assert_eq!(aim_axis(n).and_then(aim_axis_name).as_deref(), Some(n));
        }
        assert_eq!(aim_axis("NegativeY"), Some(-Vec3::Y));
        assert_eq!(roll_axis("W"), None);
        assert_eq!(aim_axis("PositiveW"), None);
    }
}
