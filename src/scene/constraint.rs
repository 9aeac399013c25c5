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
///
/// Linear in nodes and constraints, with no recursion: a file can chain a million constrained
/// nodes. "Every constrained ancestor of node n" is one graph node per constraint k, `P(k)`:
/// k itself and `P` of the nearest constrained ancestor above k's destination; a constraint
/// reads `P` of the nearest constrained node at or above its source (a chain of 10^5 nodes
/// each reading its parent has 10^5 edges, not 10^10).
pub fn evaluation_order(
    constraints: Vec<NodeConstraint>,
    nodes: &[Node],
    warnings: &mut Vec<String>,
) -> Vec<NodeConstraint> {
    let (order, cyclic) = order_and_cycles(constraints, nodes);
    for c in cyclic {
        warnings.push(format!(
            "node {}: {NODE_CONSTRAINT_EXTENSION} ignored: its sources depend on it in a cycle",
            c.destination
        ));
    }
    order
}

/// [`evaluation_order`]'s order, and the constraints it drops (in or behind a cycle).
#[must_use]
pub fn order_and_cycles(
    constraints: Vec<NodeConstraint>,
    nodes: &[Node],
) -> (Vec<NodeConstraint>, Vec<NodeConstraint>) {
    let m = constraints.len();
    let mut by_destination = vec![None; nodes.len()];
    for (k, c) in constraints.iter().enumerate() {
        if let Some(slot) = by_destination.get_mut(c.destination) {
            *slot = Some(k);
        }
    }
    let up = nearest_constrained(nodes, &by_destination);
    let up_of = |n: Option<usize>| n.and_then(|n| up.get(n).copied().flatten());
    let parent = |n: usize| nodes.get(n).and_then(|node| node.parent);
    // Graph nodes 0..m are the constraints, m..2m their `P`.
    let deps: Vec<Vec<usize>> = (0..2 * m)
        .map(|g| {
            if g < m {
                let c = &constraints[g];
                let mut d: Vec<usize> = up_of(Some(c.source)).map(|k| m + k).into_iter().collect();
                if matches!(c.kind, ConstraintKind::Aim { .. }) {
                    d.extend(up_of(parent(c.destination)).map(|k| m + k));
                }
                d
            } else {
                let k = g - m;
                std::iter::once(k)
                    .chain(up_of(parent(constraints[k].destination)).map(|a| m + a))
                    .collect()
            }
        })
        .collect();
    let (order, state) = depth_first_order(&deps);
    let cyclic = (0..m)
        .filter(|&k| state[k] == CYCLE)
        .map(|k| constraints[k])
        .collect();
    let order = order
        .into_iter()
        .filter(|&g| g < m)
        .map(|k| constraints[k])
        .collect();
    (order, cyclic)
}

/// Per node, the constraint (index) of the nearest node at or above it that has one.
fn nearest_constrained(nodes: &[Node], by_destination: &[Option<usize>]) -> Vec<Option<usize>> {
    let mut up: Vec<Option<Option<usize>>> = vec![None; nodes.len()];
    let mut path = Vec::new();
    for start in 0..nodes.len() {
        // Climb to a node already known (or the root), then fill the path back down.
        let mut at = Some(start);
        let mut found = None;
        while let Some(n) = at.filter(|&n| n < nodes.len()) {
            if let Some(known) = up[n] {
                found = known;
                break;
            }
            if path.len() > nodes.len() {
                break; // a parent cycle: the loader refuses those; stop rather than spin
            }
            path.push(n);
            at = nodes[n].parent;
        }
        while let Some(n) = path.pop() {
            found = by_destination[n].or(found);
            up[n] = Some(found);
        }
    }
    up.into_iter().map(Option::flatten).collect()
}

/// A graph node's state in [`depth_first_order`].
const UNVISITED: u8 = 0;
/// On the walk's stack.
const ON_STACK: u8 = 1;
/// Placed in the order.
const PLACED: u8 = 2;
/// In a cycle, or depending on one.
const CYCLE: u8 = 3;

/// Every graph node after its dependencies, by a depth-first walk on an explicit stack; the
/// order and each node's final state (a node in or behind a cycle is [`CYCLE`] and left out).
fn depth_first_order(deps: &[Vec<usize>]) -> (Vec<usize>, Vec<u8>) {
    let mut state = vec![UNVISITED; deps.len()];
    let mut order = Vec::with_capacity(deps.len());
    // (node, next dependency to visit, every dependency so far placed)
    let mut stack: Vec<(usize, usize, bool)> = Vec::new();
    for start in 0..deps.len() {
        if state[start] != UNVISITED {
            continue;
        }
        state[start] = ON_STACK;
        stack.push((start, 0, true));
        while let Some(top) = stack.last_mut() {
            let (node, next) = (top.0, top.1);
            if let Some(&d) = deps[node].get(next) {
                top.1 += 1;
                match state[d] {
                    PLACED => {}
                    ON_STACK | CYCLE => {
                        state[d] = CYCLE;
                        top.2 = false;
                    }
                    _ => {
                        state[d] = ON_STACK;
                        stack.push((d, 0, true));
                    }
                }
                continue;
            }
            let ok = top.2 && state[node] == ON_STACK;
            state[node] = if ok { PLACED } else { CYCLE };
            if ok {
                order.push(node);
            }
            stack.pop();
            if let Some(parent) = stack.last_mut() {
                parent.2 &= ok;
            }
        }
    }
    (order, state)
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

    /// A chain of `n` nodes, each the child of the one before.
    fn chain(n: usize) -> Vec<Node> {
        (0..n)
            .map(|i| Node {
                parent: i.checked_sub(1),
                children: if i + 1 < n { vec![i + 1] } else { Vec::new() },
                ..Default::default()
            })
            .collect()
    }

    fn rotation(destination: usize, source: usize) -> NodeConstraint {
        NodeConstraint {
            destination,
            source,
            kind: ConstraintKind::Rotation,
            weight: 1.0,
        }
    }

    #[test]
    fn a_chain_of_200000_constraints_is_ordered_top_down_without_recursion() {
        // Each node reads its parent, listed bottom-up: every one must wait for all above it.
        let n = 200_000;
        let nodes = chain(n);
        let constraints: Vec<NodeConstraint> = (1..n).rev().map(|i| rotation(i, i - 1)).collect();
        let mut warnings = Vec::new();
        let order = evaluation_order(constraints, &nodes, &mut warnings);
        assert!(warnings.is_empty(), "{:?}", &warnings[..1]);
        let destinations: Vec<usize> = order.iter().map(|c| c.destination).collect();
        assert_eq!(destinations, (1..n).collect::<Vec<_>>());
    }

    #[test]
    fn a_reader_waits_for_every_constrained_ancestor_of_its_source() {
        // Node 4 reads node 3, below constrained nodes 1 and 2 (listed after it).
        let nodes = chain(5);
        let constraints = vec![rotation(4, 3), rotation(2, 0), rotation(1, 0)];
        let order = evaluation_order(constraints, &nodes, &mut Vec::new());
        let at = |d: usize| {
            order
                .iter()
                .position(|c| c.destination == d)
                .expect("placed")
        };
        assert!(at(4) > at(2) && at(4) > at(1), "{order:?}");
    }

    #[test]
    fn cycles_and_self_reads_are_dropped_with_a_warning_and_the_rest_kept() {
        let nodes = chain(6);
        // 2 reads 4 (below it, so it reads itself), 5 reads 5, 1 reads 0.
        let constraints = vec![rotation(2, 4), rotation(5, 5), rotation(1, 0)];
        let mut warnings = Vec::new();
        let order = evaluation_order(constraints, &nodes, &mut warnings);
        assert_eq!(order, vec![rotation(1, 0)]);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings.iter().all(|w| w.contains("in a cycle")));
    }
}
