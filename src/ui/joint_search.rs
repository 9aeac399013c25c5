//! Finding joints: the tree's search filter and Left/Right mirror names.

use std::collections::BTreeSet;

use super::joints::JointTree;
use crate::scene::names::{self, NameKind, Named};

/// Rows of `tree` whose names or humanoid bone names contain `query` (case-insensitive), in tree order.
#[must_use]
pub fn matching_rows(tree: &JointTree, query: &str) -> Vec<usize> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return Vec::new();
    }
    tree.rows
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            let bone = r.humanoid.as_deref().unwrap_or("");
            r.name.to_lowercase().contains(&query) || bone.to_lowercase().contains(&query)
        })
        .map(|(i, _)| i)
        .collect()
}

/// The rows the tree shows for `query`: every match and its ancestors, in tree order; with
/// an empty query, the rows not folded away by `collapsed`.
#[must_use]
pub fn shown_rows(tree: &JointTree, query: &str, collapsed: &BTreeSet<usize>) -> Vec<usize> {
    if query.trim().is_empty() {
        return tree.visible_rows(collapsed);
    }
    let mut keep = BTreeSet::new();
    for i in matching_rows(tree, query) {
        keep.insert(i);
        keep.extend(ancestor_rows(tree, i));
    }
    keep.into_iter().collect()
}

/// Rows of the ancestors of row `i` (nearest first), following `JointRow::parent`.
#[must_use]
pub fn ancestor_rows(tree: &JointTree, i: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut parent = tree.rows.get(i).and_then(|r| r.parent);
    // At most one hop per row: a malformed tree cannot loop forever.
    for _ in 0..tree.rows.len() {
        let Some(node) = parent else { break };
        let Some(row) = tree.rows.iter().position(|r| r.node == node) else {
            break;
        };
        out.push(row);
        parent = tree.rows[row].parent;
    }
    out
}

/// Left/Right pairs of name parts, each as (left, right); matched case-insensitively.
const SIDES: [(&str, &str); 2] = [("left", "right"), ("l", "r")];

/// The name of the joint on the other side: `LeftForeArm` <-> `RightForeArm`, `hand.L` <->
/// `hand.R`, `arm_l` <-> `arm_r`, `L_arm` <-> `R_arm`, `Arm.l` <-> `Arm.r`; `None` when
/// the name has no side.
///
/// Whole words (`Left`, `Right`) may stand anywhere; single letters only as a separated
/// part at the start or end (so `Leg` and `Hull` are not mirrored).
#[must_use]
pub fn mirror_name(name: &str) -> Option<String> {
    let lower = name.to_lowercase();
    for (left, right) in SIDES {
        for (from, to) in [(left, right), (right, left)] {
            if from.len() > 1 {
                if let Some(at) = lower.find(from) {
                    return Some(splice(name, at, from.len(), to));
                }
                continue;
            }
            let len = name.len();
            let separated = |c: char| matches!(c, '.' | '_' | '-' | ' ' | ':');
            // A one-letter side at the end after a separator, or at the start before one.
            if len >= 3 && lower.ends_with(from) && name[..len - 1].ends_with(separated) {
                return Some(splice(name, len - 1, 1, to));
            }
            if len >= 3 && lower.starts_with(from) && name[1..].starts_with(separated) {
                return Some(splice(name, 0, 1, to));
            }
        }
    }
    None
}

/// `name` with `len` bytes at `at` replaced by `to`, keeping the replaced part's case style.
fn splice(name: &str, at: usize, len: usize, to: &str) -> String {
    let old = &name[at..at + len];
    let styled: String = if old.chars().all(|c| c.is_uppercase()) {
        to.to_uppercase()
    } else if old.chars().next().is_some_and(char::is_uppercase) {
        let mut c = to.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    } else {
        to.to_owned()
    };
    format!("{}{styled}{}", &name[..at], &name[at + len..])
}

/// The node of the joint mirroring `node` in `tree`, if its mirrored name is a joint there
/// (by the typed-name rule, so its mirrored humanoid bone name counts too: `leftHand` <->
/// `rightHand` where the node names have no side a name can swap).
#[must_use]
pub fn mirror_joint(tree: &JointTree, node: usize) -> Option<usize> {
    let row = tree.rows.iter().find(|r| r.node == node)?;
    let rows: Vec<Named<'_>> = tree
        .rows
        .iter()
        .map(|r| Named {
            index: r.node,
            name: &r.name,
        })
        .collect();
    let bones: Vec<Named<'_>> = (tree.rows.iter())
        .filter_map(|r| {
            Some(Named {
                index: r.node,
                name: r.humanoid.as_deref()?,
            })
        })
        .collect();
    let by = |name: Option<&str>| {
        let mirrored = mirror_name(name?)?;
        names::resolve_with_aliases(NameKind::Joint, &rows, &bones, &mirrored).ok()
    };
    by(Some(&row.name)).or_else(|| by(row.humanoid.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::JointRow;

    fn tree(names: &[(&str, Option<usize>)]) -> JointTree {
        let rows = names
            .iter()
            .enumerate()
            .map(|(i, &(name, parent))| JointRow {
                node: i + 10,
                index: i,
                name: name.into(),
                humanoid: None,
                depth: 0,
                parent: parent.map(|p| p + 10),
            })
            .collect();
        JointTree {
            skin_name: "s".into(),
            rows,
        }
    }

    #[test]
    fn mirror_names_swap_sides_in_every_convention() {
        let cases = [
            ("LeftForeArm", "RightForeArm"),
            ("mixamorig:RightHand", "mixamorig:LeftHand"),
            ("hand.L", "hand.R"),
            ("UpperArm.r", "UpperArm.l"),
            ("arm_l", "arm_r"),
            ("L_Clavicle", "R_Clavicle"),
            ("LEFT_EYE", "RIGHT_EYE"),
            ("shoulder-R", "shoulder-L"),
        ];
        for (a, b) in cases {
            assert_eq!(mirror_name(a).as_deref(), Some(b), "{a}");
            assert_eq!(mirror_name(b).as_deref(), Some(a), "{b}");
        }
        for none in ["Spine", "Leg", "Hull", "neck_1", "Hips", "l", "Rl"] {
            assert_eq!(mirror_name(none), None, "{none}");
        }
    }

    #[test]
    fn search_keeps_matches_and_their_ancestors() {
        // 0 Hips, 1 Spine (0), 2 LeftArm (1), 3 LeftForeArm (2), 4 RightArm (1), 5 Neck (1).
        let t = tree(&[
            ("Hips", None),
            ("Spine", Some(0)),
            ("LeftArm", Some(1)),
            ("LeftForeArm", Some(2)),
            ("RightArm", Some(1)),
            ("Neck", Some(1)),
        ]);
        assert_eq!(matching_rows(&t, "forearm"), [3]);
        assert_eq!(shown_rows(&t, "FOREARM", &BTreeSet::new()), [0, 1, 2, 3]);
        assert_eq!(matching_rows(&t, "arm"), [2, 3, 4]);
        assert_eq!(shown_rows(&t, " arm ", &BTreeSet::new()), [0, 1, 2, 3, 4]);
        assert!(shown_rows(&t, "tail", &BTreeSet::new()).is_empty());
        assert_eq!(shown_rows(&t, "", &BTreeSet::new()).len(), 6);
        assert_eq!(mirror_joint(&t, 12), Some(14));
        assert_eq!(mirror_joint(&t, 13), None, "no RightForeArm in this tree");
        assert_eq!(mirror_joint(&t, 15), None);
    }

    #[test]
    fn humanoid_bone_names_are_searched_and_mirrored() {
        let mut t = tree(&[
            ("J_Bip_C_Hips", None),
            ("J_Bip_L_LowerArm", Some(0)),
            ("J_Bip_R_LowerArm", Some(0)),
            ("J_Sec_Hair", Some(0)),
        ]);
        for (row, bone) in t
            .rows
            .iter_mut()
            .zip(["hips", "leftLowerArm", "rightLowerArm"])
        {
            row.humanoid = Some(bone.into());
        }
        assert_eq!(matching_rows(&t, "LOWERARM"), [1, 2]);
        assert_eq!(matching_rows(&t, "leftlower"), [1]);
        assert_eq!(matching_rows(&t, "hair"), [3]);
        assert_eq!(t.rows[1].label(), "J_Bip_L_LowerArm (leftLowerArm)");
        assert_eq!(mirror_joint(&t, 11), Some(12), "by the bone names");
        assert_eq!(mirror_joint(&t, 12), Some(11));
        assert_eq!(mirror_joint(&t, 10), None);
    }
}
