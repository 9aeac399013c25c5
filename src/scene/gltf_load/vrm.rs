//! VRM (a `.vrm` is a GLB): the version and humanoid bone map of the root extension
//! (`VRMC_vrm` for VRM 1.0, `VRM` for VRM 0.x), and a VRM 0.x model's facing.
//!
//! VRM 1.0 faces +Z like glTF; VRM 0.x models face -Z, so their [`SourceInfo`] says front -Z
//! and right -X (the camera's right when it looks at the front), and every camera that frames
//! by the file's axes sees the character's face. Bad humanoid entries are dropped with a
//! warning; the file still opens.

use gltf::json::{Root, Value};

use crate::scene::humanoid::{HumanoidBone, vrm_bone_order, vrm_format};
use crate::scene::{DataFault, FaultKind, Node, SourceInfo};

/// The VRM 1.0 root extension.
const VRM1: &str = "VRMC_vrm";
/// The VRM 0.x root extension.
const VRM0: &str = "VRM";

/// The file's [`SourceInfo`] (glTF's, with the VRM version in `format` and VRM 0.x's facing),
/// its humanoid bones in VRM's order (empty for a plain glTF file), and the faults of its VRM
/// data that runtimes refuse or read another way ([`humanoid_faults`], an unknown version).
pub(super) fn load_vrm(
    json: &Root,
    node_list: &[Node],
    warnings: &mut Vec<String>,
) -> (SourceInfo, Vec<HumanoidBone>, Vec<DataFault>) {
    let nodes = node_list.len();
    let mut faults = Vec::new();
    let unknown = |ext: &str, version: &str, read_as: &str| {
        DataFault::new(
            FaultKind::UnknownVrmVersion,
            format!("{ext} specVersion \"{version}\""),
            1,
            None,
            format!("read as {read_as}"),
        )
    };
    let others = json.extensions.as_ref().map(|e| &e.others);
    let vrm1 = others.and_then(|o| o.get(VRM1));
    let vrm0 = others.and_then(|o| o.get(VRM0));
    match (vrm1, vrm0) {
        (Some(ext), other) => {
            if other.is_some() {
                warnings.push(format!(
                    "the file has both {VRM1} (VRM 1.0) and {VRM0} (VRM 0.x); read as VRM 1.0"
                ));
            }
            let version = match ext.get("specVersion").and_then(Value::as_str) {
                Some(v) if matches!(v, "1.0" | "1.0-beta") => v.to_owned(),
                Some(v) => {
                    faults.push(unknown(VRM1, v, "VRM 1.0"));
                    String::from("1.0")
                }
                None => {
                    warnings.push(format!("{VRM1} has no specVersion; read as VRM 1.0"));
                    String::from("1.0")
                }
            };
            let raw = humanoid(VRM1, ext, warnings).map_or_else(Vec::new, raw_bones_1);
            let info = SourceInfo {
                format: vrm_format(&version),
                ..SourceInfo::default()
            };
            let bones = checked(VRM1, raw, nodes, warnings);
            faults.extend(humanoid_faults(VRM1, &bones, node_list));
            (info, bones, faults)
        }
        (None, Some(ext)) => {
            let given = ext.get("specVersion").and_then(Value::as_str);
            if let Some(v) = given.filter(|v| !v.starts_with("0.")) {
                faults.push(unknown(VRM0, v, "VRM 0.x"));
            }
            let version = given.filter(|v| v.starts_with("0.")).unwrap_or("0.x");
            let raw = humanoid(VRM0, ext, warnings).map_or_else(Vec::new, raw_bones_0);
            let info = SourceInfo {
                format: vrm_format(version),
                front_axis: "-Z",
                right_axis: "-X",
                ..SourceInfo::default()
            };
            let bones = checked(VRM0, raw, nodes, warnings);
            faults.extend(humanoid_faults(VRM0, &bones, node_list));
            (info, bones, faults)
        }
        (None, None) => (SourceInfo::default(), Vec::new(), Vec::new()),
    }
}

/// What VRM runtimes refuse in a humanoid (three-vrm and UniVRM need `hips` to build one):
/// no bones at all, no `hips`, and each bone on a node that draws a mesh (a bone is a joint).
fn humanoid_faults(ext: &str, bones: &[HumanoidBone], nodes: &[Node]) -> Vec<DataFault> {
    let place = format!("{ext} humanoid");
    let fault = |count: usize, first: Option<usize>, what: String| {
        DataFault::new(
            FaultKind::InvalidHumanoid,
            place.clone(),
            count,
            first,
            what,
        )
    };
    if bones.is_empty() {
        return vec![fault(
            1,
            None,
            String::from("humanBones names no bone: the model has no humanoid"),
        )];
    }
    let mut out = Vec::new();
    if !bones.iter().any(|b| b.bone == "hips") {
        out.push(fault(
            1,
            None,
            String::from("no `hips` bone, which every VRM humanoid needs: runtimes refuse it"),
        ));
    }
    let on_mesh: Vec<&HumanoidBone> = bones
        .iter()
        .filter(|b| nodes.get(b.node).is_some_and(|n| n.mesh.is_some()))
        .collect();
    if let Some(first) = on_mesh.first() {
        out.push(fault(
            on_mesh.len(),
            Some(first.node),
            format!(
                "`{}` (and {} more) is a node that draws a mesh, not a joint",
                first.bone,
                on_mesh.len() - 1
            ),
        ));
    }
    out
}

/// The extension's `humanoid.humanBones` value, or `None` after a warning.
fn humanoid<'a>(name: &str, ext: &'a Value, warnings: &mut Vec<String>) -> Option<&'a Value> {
    let bones = ext.get("humanoid").and_then(|h| h.get("humanBones"));
    if bones.is_none() {
        warnings.push(format!(
            "{name} has no humanoid.humanBones; the model has no humanoid bone names"
        ));
    }
    bones
}

/// One `humanBones` entry as the file has it.
struct RawBone<'a> {
    /// Where it is, for messages: `humanBones.leftHand`, `humanBones[3]`.
    at: String,
    /// Its bone name, when it has one.
    bone: Option<&'a str>,
    /// Its `node` value, when it has one.
    node: Option<&'a Value>,
}

/// VRM 1.0's `humanBones`: an object from bone name to `{node}`.
fn raw_bones_1(bones: &Value) -> Vec<RawBone<'_>> {
    let Some(map) = bones.as_object() else {
        return vec![RawBone {
            at: String::from("humanBones"),
            bone: None,
            node: None,
        }];
    };
    map.iter()
        .map(|(bone, v)| RawBone {
            at: format!("humanBones.{bone}"),
            bone: Some(bone.as_str()),
            node: v.get("node"),
        })
        .collect()
}

/// VRM 0.x's `humanBones`: an array of `{bone, node}`.
fn raw_bones_0(bones: &Value) -> Vec<RawBone<'_>> {
    let Some(list) = bones.as_array() else {
        return vec![RawBone {
            at: String::from("humanBones"),
            bone: None,
            node: None,
        }];
    };
    list.iter()
        .enumerate()
        .map(|(k, v)| RawBone {
            at: format!("humanBones[{k}]"),
            bone: v.get("bone").and_then(Value::as_str),
            node: v.get("node"),
        })
        .collect()
}

/// The entries that name a VRM bone and a node of the file's `nodes`, each bone and each node
/// once (the first wins), in VRM's bone order; the others are dropped with a warning.
fn checked(
    ext: &str,
    raw: Vec<RawBone<'_>>,
    nodes: usize,
    warnings: &mut Vec<String>,
) -> Vec<HumanoidBone> {
    let mut out: Vec<HumanoidBone> = Vec::with_capacity(raw.len());
    for r in raw {
        match check_one(&r, nodes, &out) {
            Ok(bone) => out.push(bone),
            Err(why) => warnings.push(format!("{ext} humanoid {}: {why}; ignored", r.at)),
        }
    }
    out.sort_by_key(|b| vrm_bone_order(&b.bone));
    out
}

/// One entry as a bone, or why not (`so_far` holds the bones accepted before it).
fn check_one(
    r: &RawBone<'_>,
    nodes: usize,
    so_far: &[HumanoidBone],
) -> Result<HumanoidBone, String> {
    let Some(bone) = r.bone else {
        return Err(if r.at == "humanBones" {
            String::from("is not an object (VRM 1.0) or array (VRM 0.x) of bones")
        } else {
            String::from("has no `bone` name")
        });
    };
    if vrm_bone_order(bone).is_none() {
        return Err(format!("`{bone}` is not a VRM humanoid bone name"));
    }
    let node = r
        .node
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| format!("`{bone}` has no node index"))?;
    if node >= nodes {
        return Err(format!(
            "`{bone}`: node {node} is not a node ({nodes} nodes)"
        ));
    }
    if let Some(first) = so_far.iter().find(|b| b.bone == bone) {
        return Err(format!(
            "`{bone}` is mapped twice (first to node {})",
            first.node
        ));
    }
    if let Some(first) = so_far.iter().find(|b| b.node == node) {
        return Err(format!("`{bone}`: node {node} is already `{}`", first.bone));
    }
    Ok(HumanoidBone {
        bone: bone.to_owned(),
        node,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(extensions: &str) -> Root {
        let text = format!(r#"{{"asset": {{"version": "2.0"}}, "extensions": {extensions}}}"#);
        serde_json::from_str(&text).expect("root JSON")
    }

    fn bones(list: &[HumanoidBone]) -> Vec<(&str, usize)> {
        list.iter().map(|b| (b.bone.as_str(), b.node)).collect()
    }

    #[test]
    fn vrm_1_0_reads_the_bone_object_and_faces_plus_z() {
        let json = root(
            r#"{"VRMC_vrm": {"specVersion": "1.0", "humanoid": {"humanBones": {
                "leftLowerArm": {"node": 4}, "hips": {"node": 0}, "head": {"node": 2}}}}}"#,
        );
        let mut warnings = Vec::new();
        let (info, found, _) = load_vrm(&json, &vec![Node::default(); 5], &mut warnings);
        assert_eq!(info.format, "glTF (VRM 1.0)");
        assert_eq!((info.front_axis, info.right_axis), ("+Z", "+X"));
        assert_eq!(
            bones(&found),
            [("hips", 0), ("head", 2), ("leftLowerArm", 4)]
        );
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn vrm_0_x_reads_the_bone_array_and_faces_minus_z() {
        let json = root(
            r#"{"VRM": {"specVersion": "0.0", "humanoid": {"humanBones": [
                {"bone": "rightHand", "node": 3, "useDefaultValues": true},
                {"bone": "hips", "node": 1}]}}}"#,
        );
        let mut warnings = Vec::new();
        let (info, found, _) = load_vrm(&json, &vec![Node::default(); 4], &mut warnings);
        assert_eq!(info.format, "glTF (VRM 0.0)");
        assert_eq!(
            (info.up_axis, info.front_axis, info.right_axis),
            ("+Y", "-Z", "-X")
        );
        assert_eq!(bones(&found), [("hips", 1), ("rightHand", 3)]);
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn bad_entries_are_dropped_with_a_warning_each() {
        let json = root(
            r#"{"VRM": {"humanoid": {"humanBones": [
                {"bone": "hips", "node": 0}, {"bone": "tail", "node": 1}, {"node": 1},
                {"bone": "spine", "node": 99}, {"bone": "chest", "node": -1},
                {"bone": "hips", "node": 2}, {"bone": "neck", "node": 0}, 7,
                {"bone": "head", "node": 3}]}}}"#,
        );
        let mut warnings = Vec::new();
        let (info, found, _) = load_vrm(&json, &vec![Node::default(); 4], &mut warnings);
        assert_eq!(info.format, "glTF (VRM 0.x)", "no specVersion");
        assert_eq!(bones(&found), [("hips", 0), ("head", 3)]);
        let expected = [
            "VRM humanoid humanBones[1]: `tail` is not a VRM humanoid bone name; ignored",
            "VRM humanoid humanBones[2]: has no `bone` name; ignored",
            "VRM humanoid humanBones[3]: `spine`: node 99 is not a node (4 nodes); ignored",
            "VRM humanoid humanBones[4]: `chest` has no node index; ignored",
            "VRM humanoid humanBones[5]: `hips` is mapped twice (first to node 0); ignored",
            "VRM humanoid humanBones[6]: `neck`: node 0 is already `hips`; ignored",
            "VRM humanoid humanBones[7]: has no `bone` name; ignored",
        ];
        assert_eq!(warnings, expected);
    }

    #[test]
    fn a_broken_humanoid_still_gives_the_version() {
        let mut warnings = Vec::new();
        let json = root(r#"{"VRMC_vrm": {"humanoid": {"humanBones": [1, 2]}}, "VRM": {}}"#);
        let (info, found, _) = load_vrm(&json, &vec![Node::default(); 4], &mut warnings);
        assert_eq!(info.format, "glTF (VRM 1.0)");
        assert!(found.is_empty());
        assert_eq!(
            warnings,
            [
                "the file has both VRMC_vrm (VRM 1.0) and VRM (VRM 0.x); read as VRM 1.0",
                "VRMC_vrm has no specVersion; read as VRM 1.0",
                "VRMC_vrm humanoid humanBones: is not an object (VRM 1.0) or array (VRM 0.x) \
                 of bones; ignored",
            ]
        );
        warnings.clear();
        let (info, found, _) = load_vrm(
            &root(r#"{"VRM": 3}"#),
            &vec![Node::default(); 4],
            &mut warnings,
        );
        assert_eq!(
            (info.format.as_str(), info.front_axis),
            ("glTF (VRM 0.x)", "-Z")
        );
        assert!(found.is_empty());
        assert_eq!(
            warnings,
            ["VRM has no humanoid.humanBones; the model has no humanoid bone names"]
        );
        let plain: Root = serde_json::from_str(r#"{"asset": {"version": "2.0"}}"#).expect("root");
        let (info, found, _) = load_vrm(&plain, &vec![Node::default(); 4], &mut warnings);
        assert_eq!(info, SourceInfo::default());
        assert!(found.is_empty());
    }
}
