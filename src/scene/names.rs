//! Names as riggers type them: the one rule that turns a typed joint, node, clip or morph
//! target name into an index.
//!
//! A name matches exactly, else case-insensitively, else as a node (clip, target) index,
//! else as the unique part after a namespace (`LeftForeArm` for `mixamorig:LeftForeArm`,
//! `Hips` for `Armature|Hips`). Two candidates at the first tier that matches are an error
//! naming both; an unknown name suggests the three nearest names, never the whole list
//! (`dqview inspect` prints that).
//!
//! Joints and nodes of a VRM file also answer to their humanoid bone names
//! ([`Scene::humanoid`]: `leftLowerArm`, `hips`), in any case. A node's exact name wins over a
//! humanoid name (a node named `leftLowerArm` is that node, whatever bone the map calls
//! `leftLowerArm`); a humanoid name wins over a node name in another case, an index and a
//! namespace suffix (the map is the file's own declaration; those are guesses).

use thiserror::Error;

use super::{MorphTarget, Scene};

/// Characters that end a namespace in a name: `mixamorig:Hips`, `Armature|Hips`, `rig/Hips`.
pub const NAMESPACE_SEPARATORS: [char; 3] = [':', '|', '/'];

/// How many of the nearest names an unknown name suggests.
pub const SUGGESTIONS: usize = 3;

/// What kind of thing a name names; it words the errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    /// A joint of some skin (indices are node indices).
    Joint,
    /// Any node.
    Node,
    /// An animation clip.
    Clip,
    /// A morph target of a mesh.
    MorphTarget,
}

impl NameKind {
    /// The kind in a sentence: `joint`, `node`, `clip`, `morph target`.
    #[must_use]
    pub fn noun(self) -> &'static str {
        match self {
            Self::Joint => "joint",
            Self::Node => "node",
            Self::Clip => "clip",
            Self::MorphTarget => "morph target",
        }
    }

    /// What an index of this kind is called: `node 3`, `clip 0`, `target 2`.
    fn index_word(self) -> &'static str {
        match self {
            Self::Joint | Self::Node => "node",
            Self::Clip => "clip",
            Self::MorphTarget => "target",
        }
    }
}

/// One thing that can be named: its index (node, clip or target) and its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Named<'a> {
    /// Node, clip or target index.
    pub index: usize,
    /// Its name (may be empty).
    pub name: &'a str,
}

/// Why a typed name names nothing, or more than one thing.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum NameError {
    /// No name matches; `nearest` holds up to [`SUGGESTIONS`] names by edit distance.
    #[error("{}", unknown_message(*kind, typed, nearest, *count))]
    Unknown {
        /// What was looked for.
        kind: NameKind,
        /// The name as typed.
        typed: String,
        /// The nearest names, nearest first.
        nearest: Vec<String>,
        /// How many things of this kind the model has.
        count: usize,
    },
    /// Several names match at the same tier.
    #[error(
        "{} `{typed}` is ambiguous: it matches {}; type more of the name, or the {} index",
        kind.noun(),
        candidates.join(", "),
        kind.index_word()
    )]
    Ambiguous {
        /// What was looked for.
        kind: NameKind,
        /// The name as typed.
        typed: String,
        /// The matching names with their indices, e.g. "`a:Hand` (node 3)".
        candidates: Vec<String>,
    },
}

/// The text of [`NameError::Unknown`].
fn unknown_message(kind: NameKind, typed: &str, nearest: &[String], count: usize) -> String {
    let noun = kind.noun();
    if count == 0 {
        return format!("unknown {noun} `{typed}`: the model has no {noun}s");
    }
    if nearest.is_empty() {
        return format!(
            "unknown {noun} `{typed}`: the model's {count} {noun}s are unnamed, give a {} index \
             (`dqview inspect` lists them)",
            kind.index_word()
        );
    }
    let quoted: Vec<String> = nearest.iter().map(|n| format!("`{n}`")).collect();
    let options = match quoted.as_slice() {
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
        [] => String::new(),
    };
    let all = if count == 1 {
        format!("its 1 {noun}")
    } else {
        format!("all {count} {noun}s")
    };
    format!("unknown {noun} `{typed}`; did you mean {options}? (`dqview inspect` lists {all})")
}

/// The index `typed` names among `entries`: exact name, else case-insensitive, else an index
/// among the entries, else a unique suffix after a namespace separator (exact case first).
///
/// Errors: several entries match at the first tier that matches anything
/// ([`NameError::Ambiguous`]), or none does ([`NameError::Unknown`], with the nearest names).
pub fn resolve(kind: NameKind, entries: &[Named<'_>], typed: &str) -> Result<usize, NameError> {
    resolve_with_aliases(kind, entries, &[], typed)
}

/// Like [`resolve`], where `aliases` are further names of the same indices (humanoid bone
/// names): an entry's exact name, else an alias (exact case first), else an entry's name in
/// any case, else an index, else a namespace suffix. Unknown names suggest aliases too.
pub fn resolve_with_aliases(
    kind: NameKind,
    entries: &[Named<'_>],
    aliases: &[Named<'_>],
    typed: &str,
) -> Result<usize, NameError> {
    let typed = typed.trim();
    let lower = typed.to_lowercase();
    // (names, in any case?) in order of precedence.
    let tiers = [
        (entries, false),
        (aliases, false),
        (aliases, true),
        (entries, true),
    ];
    for (among, any_case) in tiers {
        let test = |n: &str| {
            if any_case {
                n.to_lowercase() == lower
            } else {
                n == typed
            }
        };
        if let Some(found) = pick(kind, among, typed, test)? {
            return Ok(found);
        }
    }
    if let Ok(index) = typed.parse::<usize>()
        && entries.iter().any(|e| e.index == index)
    {
        return Ok(index);
    }
    let suffix_tiers: [&dyn Fn(&str) -> bool; 2] = [&|n| namespaced_suffix(n, typed), &|n| {
        namespaced_suffix(&n.to_lowercase(), &lower)
    }];
    for tier in suffix_tiers {
        if let Some(found) = pick(kind, entries, typed, |n| tier(n))? {
            return Ok(found);
        }
    }
    let everything: Vec<Named<'_>> = entries.iter().chain(aliases).copied().collect();
    Err(NameError::Unknown {
        kind,
        typed: typed.to_string(),
        nearest: nearest(&everything, typed, SUGGESTIONS),
        count: entries.len(),
    })
}

/// The one entry whose name passes `test`, `None` when none does, an error when several do.
fn pick(
    kind: NameKind,
    entries: &[Named<'_>],
    typed: &str,
    test: impl Fn(&str) -> bool,
) -> Result<Option<usize>, NameError> {
    let found: Vec<&Named<'_>> = entries
        .iter()
        .filter(|e| !e.name.is_empty() && test(e.name))
        .collect();
    match found.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one.index)),
        several => Err(NameError::Ambiguous {
            kind,
            typed: typed.to_string(),
            candidates: several
                .iter()
                .map(|e| format!("`{}` ({} {})", e.name, kind.index_word(), e.index))
                .collect(),
        }),
    }
}

/// Whether `name` is `typed` behind a namespace: `ns:typed`, `a|b:typed`, `rig/typed`.
fn namespaced_suffix(name: &str, typed: &str) -> bool {
    !typed.is_empty()
        && name.len() > typed.len()
        && name.ends_with(typed)
        && name[..name.len() - typed.len()].ends_with(NAMESPACE_SEPARATORS)
}

/// The part of `name` after its last namespace separator.
fn local_part(name: &str) -> &str {
    name.rsplit(NAMESPACE_SEPARATORS).next().unwrap_or(name)
}

/// Up to `how_many` distinct non-empty names nearest to `typed` (case-insensitive edit
/// distance to the whole name or to its part after the namespace, whichever is smaller).
#[must_use]
pub fn nearest(entries: &[Named<'_>], typed: &str, how_many: usize) -> Vec<String> {
    let typed = typed.trim().to_lowercase();
    let mut scored: Vec<(usize, usize, &str)> = Vec::new();
    for (order, e) in entries.iter().enumerate() {
        if e.name.is_empty() || scored.iter().any(|(_, _, n)| *n == e.name) {
            continue;
        }
        let lower = e.name.to_lowercase();
        let distance = edit_distance(&typed, &lower).min(edit_distance(&typed, local_part(&lower)));
        scored.push((distance, order, e.name));
    }
    scored.sort_unstable();
    scored
        .into_iter()
        .take(how_many)
        .map(|(_, _, n)| n.to_string())
        .collect()
}

/// Levenshtein distance between `a` and `b`, in characters.
#[must_use]
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// A node's name, or `node N` when it has none (or is out of range).
#[must_use]
pub fn node_name(scene: &Scene, node: usize) -> String {
    match scene.nodes.get(node) {
        Some(n) if !n.name.is_empty() => n.name.clone(),
        _ => format!("node {node}"),
    }
}

/// Every joint of every skin, in skin order, without repeats (indices are node indices).
#[must_use]
pub fn joints(scene: &Scene) -> Vec<Named<'_>> {
    let mut out: Vec<Named<'_>> = Vec::new();
    for &j in scene.skins.iter().flat_map(|s| &s.joints) {
        if let Some(node) = scene.nodes.get(j)
            && !out.iter().any(|e| e.index == j)
        {
            out.push(Named {
                index: j,
                name: &node.name,
            });
        }
    }
    out
}

/// Every node, in node order.
#[must_use]
pub fn nodes(scene: &Scene) -> Vec<Named<'_>> {
    (scene.nodes.iter().enumerate())
        .map(|(index, n)| Named {
            index,
            name: n.name.as_str(),
        })
        .collect()
}

/// Every VRM humanoid bone name with its node, in VRM's order ([`Scene::humanoid`]).
#[must_use]
pub fn humanoid(scene: &Scene) -> Vec<Named<'_>> {
    (scene.humanoid.iter())
        .map(|b| Named {
            index: b.node,
            name: b.bone.as_str(),
        })
        .collect()
}

/// The humanoid bone name of `node`, if the file maps one to it.
#[must_use]
pub fn humanoid_name(scene: &Scene, node: usize) -> Option<&str> {
    let bone = scene.humanoid.iter().find(|b| b.node == node)?;
    Some(bone.bone.as_str())
}

/// Every clip, in file order.
#[must_use]
pub fn clips(scene: &Scene) -> Vec<Named<'_>> {
    (scene.animations.iter().enumerate())
        .map(|(index, a)| Named {
            index,
            name: a.name.as_str(),
        })
        .collect()
}

/// The joint node `typed` names (a joint name, a humanoid bone name of a joint, or a node
/// index) among every skin's joints.
pub fn joint(scene: &Scene, typed: &str) -> Result<usize, NameError> {
    let joints = joints(scene);
    let mut bones = humanoid(scene);
    bones.retain(|b| joints.iter().any(|j| j.index == b.index));
    resolve_with_aliases(NameKind::Joint, &joints, &bones, typed)
}

/// The node `typed` names (a node name, a humanoid bone name, or a node index).
pub fn node(scene: &Scene, typed: &str) -> Result<usize, NameError> {
    resolve_with_aliases(NameKind::Node, &nodes(scene), &humanoid(scene), typed)
}

/// The node a joint angle turns: a joint by [`joint`]'s rule, else any node the name or
/// index names (a pose may turn a parent of the joints too); errors suggest joints.
pub fn pose_node(scene: &Scene, typed: &str) -> Result<usize, NameError> {
    match joint(scene, typed) {
        Ok(found) => Ok(found),
        Err(e @ NameError::Ambiguous { .. }) => Err(e),
        Err(e) => node(scene, typed).map_err(|_| e),
    }
}

/// The clip `typed` names (a clip name or index).
pub fn clip(scene: &Scene, typed: &str) -> Result<usize, NameError> {
    resolve(NameKind::Clip, &clips(scene), typed)
}

/// The target of `targets` that `typed` names (a target name or index).
pub fn morph_target(targets: &[MorphTarget], typed: &str) -> Result<usize, NameError> {
    let entries: Vec<Named<'_>> = targets
        .iter()
        .enumerate()
        .map(|(index, t)| Named {
            index,
            name: &t.name,
        })
        .collect();
    resolve(NameKind::MorphTarget, &entries, typed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries<'a>(names: &'a [&'a str]) -> Vec<Named<'a>> {
        names
            .iter()
            .enumerate()
            .map(|(index, &name)| Named { index, name })
            .collect()
    }

    fn joint_in(names: &[&str], typed: &str) -> Result<usize, NameError> {
        resolve(NameKind::Joint, &entries(names), typed)
    }

    #[test]
    fn exact_beats_case_insensitive_beats_index_beats_namespace_suffix() {
        let names = [
            "mixamorig:LeftForeArm",
            "hand",
            "Hand",
            "2",
            "Armature|Hips",
            "rig/Spine",
        ];
        assert_eq!(joint_in(&names, "Hand"), Ok(2));
        assert_eq!(joint_in(&names, "hand"), Ok(1));
        // Two names differ only in case: a third spelling is ambiguous.
        let err = joint_in(&names, "HAND").expect_err("ambiguous");
        assert_eq!(
            err.to_string(),
            "joint `HAND` is ambiguous: it matches `hand` (node 1), `Hand` (node 2); \
             type more of the name, or the node index"
        );
        // A name that looks like an index wins over the index.
        assert_eq!(joint_in(&names, "2"), Ok(3));
        assert_eq!(joint_in(&names, "4"), Ok(4));
        assert_eq!(joint_in(&names, "LeftForeArm"), Ok(0));
        assert_eq!(joint_in(&names, "leftforearm"), Ok(0));
        assert_eq!(joint_in(&names, " Hips "), Ok(4));
        assert_eq!(joint_in(&names, "spine"), Ok(5));
        // A suffix that is not after a separator is no match.
        assert!(joint_in(&names, "ForeArm").is_err());
        assert!(joint_in(&names, "").is_err());
    }

    #[test]
    fn a_suffix_shared_by_two_namespaces_is_ambiguous() {
        let names = ["a:Hand", "b:Hand", "b:hand_end"];
        let err = joint_in(&names, "Hand").expect_err("ambiguous");
        let NameError::Ambiguous { candidates, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(candidates, &["`a:Hand` (node 0)", "`b:Hand` (node 1)"]);
        assert_eq!(joint_in(&names, "b:Hand"), Ok(1));
        assert_eq!(joint_in(&names, "0"), Ok(0));
        // An exact-case suffix wins over a case-insensitive one.
        assert_eq!(joint_in(&["x:Arm", "y:arm"], "arm"), Ok(1));
    }

    #[test]
    fn unknown_names_suggest_the_three_nearest() {
        let names = [
            "mixamorig:Hips",
            "mixamorig:LeftArm",
            "mixamorig:LeftForeArm",
            "mixamorig:LeftHand",
            "mixamorig:RightForeArm",
            "mixamorig:Head",
        ];
        let err = joint_in(&names, "LeftForarm").expect_err("unknown");
        assert_eq!(
            err.to_string(),
            "unknown joint `LeftForarm`; did you mean `mixamorig:LeftForeArm`, \
             `mixamorig:LeftArm` or `mixamorig:LeftHand`? (`dqview inspect` lists all 6 joints)"
        );
        assert_eq!(
            joint_in(&[], "x").expect_err("none").to_string(),
            "unknown joint `x`: the model has no joints"
        );
        let unnamed = resolve(NameKind::Clip, &entries(&["", ""]), "walk").expect_err("unnamed");
        assert_eq!(
            unnamed.to_string(),
            "unknown clip `walk`: the model's 2 clips are unnamed, give a clip index \
             (`dqview inspect` lists them)"
        );
    }

    #[test]
    fn humanoid_names_come_after_exact_node_names_and_before_the_guesses() {
        let nodes = [
            "J_Bip_L_LowerArm",
            "leftHand",
            "Armature|hips",
            "Head",
            "Head",
            "J_Bip_L_Hand",
            "J_Bip_C_Hips",
        ];
        let bones = [
            (0, "leftLowerArm"),
            (5, "leftHand"),
            (4, "head"),
            (6, "hips"),
        ];
        let bones: Vec<Named<'_>> = (bones.iter())
            .map(|&(index, name)| Named { index, name })
            .collect();
        let find =
            |typed: &str| resolve_with_aliases(NameKind::Joint, &entries(&nodes), &bones, typed);
        assert_eq!(find("leftLowerArm"), Ok(0));
        assert_eq!(find(" LEFTLOWERARM "), Ok(0), "any case");
        assert_eq!(find("leftHand"), Ok(1), "a node's exact name wins");
        assert_eq!(
            find("LeftHand"),
            Ok(5),
            "the bone wins over a name in another case"
        );
        assert!(matches!(find("Head"), Err(NameError::Ambiguous { .. })));
        assert_eq!(find("head"), Ok(4), "the bone settles what any case cannot");
        assert_eq!(find("hips"), Ok(6), "the bone wins over a namespace suffix");
        assert_eq!(find("Armature|hips"), Ok(2));
        assert_eq!(find("5"), Ok(5));
        let err = find("leftLowerArn").expect_err("unknown");
        let NameError::Unknown { nearest, count, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!((nearest[0].as_str(), *count), ("leftLowerArm", 7));
    }

    #[test]
    fn a_humanoid_bone_of_a_node_that_is_no_joint_is_a_node_name_only() {
        use crate::scene::{HumanoidBone, Node, Skin};
        let named = |name: &str| Node {
            name: name.into(),
            ..Node::default()
        };
        let bone = |bone: &str, node: usize| HumanoidBone {
            bone: bone.into(),
            node,
        };
        let scene = Scene {
            nodes: vec![named("J_Hips"), named("J_Spine"), named("HeadMesh")],
            skins: vec![Skin {
                joints: vec![0, 1],
                ..Skin::default()
            }],
            humanoid: vec![bone("hips", 0), bone("spine", 1), bone("head", 2)],
            ..Scene::default()
        };
        assert_eq!(joint(&scene, "Hips"), Ok(0));
        assert_eq!(joint(&scene, "spine"), Ok(1));
        assert!(matches!(
            joint(&scene, "head"),
            Err(NameError::Unknown { .. })
        ));
        assert_eq!(node(&scene, "head"), Ok(2));
        assert_eq!(pose_node(&scene, "HEAD"), Ok(2));
        assert_eq!(humanoid_name(&scene, 1), Some("spine"));
        assert_eq!(humanoid_name(&scene, 5), None);
    }

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("forearm", "forarm"), 1);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
