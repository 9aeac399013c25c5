//! `dqview inspect`: the facts of a model, as text or JSON.

use anyhow::Result;
use serde_json::{Value, json};

use crate::anim::{Pose, clip_duration_s};
use crate::dq::split_rigid;
use crate::scene::Scene;
use crate::skin::{Betas, SkinningMode, bounds, skin_scene};

/// Loads `model` within the limits of `load` and prints its facts.
pub fn run(model: &str, as_json: bool, load: &super::LoadArgs) -> Result<()> {
    // The faults are part of what inspect prints: not repeated on stderr.
    let scene = super::load_quiet(model, load)?;
    let facts = facts(&scene);
    if as_json {
        println!("{}", serde_json::to_string_pretty(&facts)?);
    } else {
        print!("{}", text(&scene, &facts));
    }
    Ok(())
}

/// Every fact `inspect` reports, as one JSON object.
#[must_use]
pub fn facts(scene: &Scene) -> Value {
    let primitives: Vec<_> = scene.meshes.iter().flat_map(|m| &m.primitives).collect();
    let vertices: usize = primitives.iter().map(|p| p.positions.len()).sum();
    let triangles: usize = primitives.iter().map(|p| p.triangles().len() / 3).sum();
    let influences: Vec<_> = primitives
        .iter()
        .filter_map(|p| p.influences.as_ref())
        .collect();
    let max_influences = influences
        .iter()
        .map(|i| i.max_influences())
        .max()
        .unwrap_or(0);
    let over_4: usize = influences
        .iter()
        .map(|i| i.vertices_with_more_than(4))
        .sum();
    let zero_weight: usize = influences.iter().map(|i| i.unweighted_vertices()).sum();

    let pose = Pose::rest(scene);
    let mut matrices = Vec::new();
    let mut non_rigid = Vec::new();
    let skins: Vec<Value> = scene
        .skins
        .iter()
        .enumerate()
        .map(|(s, skin)| {
            pose.skinning_matrices(scene, s, &mut matrices);
            for (j, m) in matrices.iter().enumerate() {
                let split = split_rigid(*m);
                if !split.is_rigid || split.was_non_finite {
                    let kind = if split.was_non_finite {
                        "non-finite"
                    } else if split.scale_shear.determinant() < 0.0 {
                        "mirror"
                    } else {
                        "scale/shear"
                    };
                    non_rigid.push(json!({"skin": s, "joint": j, "name": node_name(scene, skin.joints.get(j).copied()), "kind": kind}));
                }
            }
            json!({
                "name": skin.name,
                "joints": skin.joints.len(),
                "joint_tree": joint_tree(scene, &skin.joints),
            })
        })
        .collect();
    let clips: Vec<Value> = scene
        .animations
        .iter()
        .map(|a| {
            let mut kinds: Vec<&str> = a.channels.iter().map(|c| c.interpolation.name()).collect();
            kinds.sort_unstable();
            kinds.dedup();
            json!({"name": a.name, "duration": clip_duration_s(a), "channels": a.channels.len(), "interpolations": kinds})
        })
        .collect();
    let posed = skin_scene(scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let bbox = bounds(&posed).map_or(
        Value::Null,
        |(lo, hi)| json!({"min": lo.to_array(), "max": hi.to_array()}),
    );
    let info = &scene.source_info;
    let skinning_methods: Vec<&str> = {
        let mut m: Vec<&str> = primitives
            .iter()
            .filter_map(|p| p.skinning_method.map(|s| s.name()))
            .collect();
        m.sort_unstable();
        m.dedup();
        m
    };
    json!({
        "file": scene.source,
        "format": info.format,
        "creator": info.creator,
        "units": {"unit_meters": info.unit_meters},
        "axes": {"up": info.up_axis, "front": info.front_axis, "right": info.right_axis},
        "frames_per_second": info.frames_per_second,
        "skinning_methods": skinning_methods,
        "meshes": scene.meshes.len(),
        "primitives": primitives.len(),
        "primitive_list": super::inspect_surface::primitive_facts(scene),
        "materials": super::inspect_surface::material_facts(scene),
        "morph_targets": super::inspect_morphs::morph_facts(scene),
        "vertices": vertices,
        "triangles": triangles,
        "skins": skins,
        "max_influences": max_influences,
        "vertices_over_4_influences": over_4,
        "zero_weight_vertices": zero_weight,
        "non_rigid_joints": non_rigid,
        "rest_pose": rest_pose_facts(scene),
        "clips": clips,
        "vrm": vrm_facts(scene),
        "bbox": bbox,
        "sanitized": scene.sanitized,
        "faults": scene.faults.iter().map(|f| json!({
            "severity": f.severity(),
            "kind": f.kind,
            "place": f.place,
            "count": f.count,
            "first_index": f.first,
            "action": f.action,
            "message": f.message(),
        })).collect::<Vec<_>>(),
        "warnings": scene.warnings,
        "notes": scene.notes,
        "compression": scene.compression,
    })
}

/// The joint hierarchy of a skin as nested `{name, node, children}` objects.
///
/// A joint's parent is its nearest ancestor that is also a joint of the skin.
fn joint_tree(scene: &Scene, joints: &[usize]) -> Vec<Value> {
    let joint_parent = |j: usize| {
        let mut p = scene.nodes.get(j).and_then(|n| n.parent);
        let mut hops = 0;
        while let Some(n) = p {
            if joints.contains(&n) || hops > scene.nodes.len() {
                break;
            }
            p = scene.nodes.get(n).and_then(|n| n.parent);
            hops += 1;
        }
        p.filter(|n| joints.contains(n))
    };
    fn build(
        scene: &Scene,
        joints: &[usize],
        parents: &[Option<usize>],
        node: usize,
        depth: usize,
    ) -> Value {
        let children: Vec<Value> = if depth > 256 {
            Vec::new()
        } else {
            joints
                .iter()
                .zip(parents)
                .filter(|(_, p)| **p == Some(node))
                .map(|(&c, _)| build(scene, joints, parents, c, depth + 1))
                .collect()
        };
        json!({"name": node_name(scene, Some(node)), "node": node, "children": children})
    }
    let parents: Vec<Option<usize>> = joints.iter().map(|&j| joint_parent(j)).collect();
    joints
        .iter()
        .zip(&parents)
        .filter(|(_, p)| p.is_none())
        .map(|(&j, _)| build(scene, joints, &parents, j, 0))
        .collect()
}

/// A VRM file's version and humanoid map (`{version, humanoid: [{bone, node, name}]}`), else null.
fn vrm_facts(scene: &Scene) -> Value {
    let Some(version) = crate::scene::humanoid::vrm_version(&scene.source_info.format) else {
        return Value::Null;
    };
    let bones: Vec<Value> = (scene.humanoid.iter())
        .map(|b| json!({"bone": b.bone, "node": b.node, "name": node_name(scene, Some(b.node))}))
        .collect();
    json!({"version": version, "humanoid": bones})
}

/// Appends the `humanoid` lines of a VRM file: the version, then one bone a line.
fn humanoid_lines(s: &mut String, f: &Value) {
    use std::fmt::Write;
    let Some(version) = f["vrm"]["version"].as_str() else {
        return;
    };
    let bones = f["vrm"]["humanoid"].as_array().cloned().unwrap_or_default();
    let count = match bones.len() {
        0 => String::from("no humanoid bones (see the warnings)"),
        1 => String::from("1 humanoid bone"),
        n => format!("{n} humanoid bones"),
    };
    let _ = writeln!(s, "humanoid    VRM {version}, {count}");
    for b in &bones {
        let _ = writeln!(
            s,
            "  {} = {} (node {})",
            b["bone"].as_str().unwrap_or(""),
            b["name"].as_str().unwrap_or(""),
            b["node"]
        );
    }
}

/// A node's name, or `?` for a missing index.
fn node_name(scene: &Scene, node: Option<usize>) -> String {
    node.and_then(|n| scene.nodes.get(n))
        .map_or_else(|| "?".into(), |n| n.name.clone())
}

/// The human-readable report.
fn text(scene: &Scene, f: &Value) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let n = |k: &str| f[k].as_u64().unwrap_or(0);
    let _ = writeln!(s, "file        {}", scene.source);
    let info = &scene.source_info;
    let creator = info
        .creator
        .as_deref()
        .map_or_else(String::new, |c| format!(", written by {c}"));
    let _ = writeln!(s, "format      {}{creator}", info.format);
    let _ = writeln!(
        s,
        "units       1 unit = {} m; axes {}{}",
        info.unit_meters,
        info.axes_text(),
        info.frames_per_second
            .map_or_else(String::new, |fps| format!("; {fps} frames/s"))
    );
    let methods: Vec<&str> = f["skinning_methods"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !methods.is_empty() {
        let _ = writeln!(
            s,
            "skinning    stored method {} (the default --mode)",
            methods.join(", ")
        );
    }
    let plural = if n("primitives") == 1 { "" } else { "s" };
    let _ = writeln!(
        s,
        "meshes      {} ({} primitive{plural})",
        n("meshes"),
        n("primitives")
    );
    let _ = writeln!(s, "vertices    {}", n("vertices"));
    let _ = writeln!(s, "triangles   {}", n("triangles"));
    super::inspect_surface::text_lines(&mut s, f);
    super::inspect_morphs::text_lines(&mut s, f);
    let skins = f["skins"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(s, "skins       {}", skins.len());
    for (i, skin) in skins.iter().enumerate() {
        let _ = writeln!(
            s,
            "  skin {i} \"{}\": {} joints",
            skin["name"].as_str().unwrap_or(""),
            skin["joints"]
        );
        for root in skin["joint_tree"].as_array().into_iter().flatten() {
            tree_lines(&mut s, root, 2);
        }
    }
    humanoid_lines(&mut s, f);
    let _ = writeln!(
        s,
        "influences  max {} per vertex; {} vertices with more than 4; {} with zero weight (left at bind pose)",
        n("max_influences"),
        n("vertices_over_4_influences"),
        n("zero_weight_vertices")
    );
    let non_rigid = f["non_rigid_joints"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if non_rigid.is_empty() {
        let _ = writeln!(s, "non-rigid   none at rest (DQS fast path)");
    } else {
        let _ = writeln!(
            s,
            "non-rigid   {} joints at rest (DQS two-phase path):",
            non_rigid.len()
        );
        for j in &non_rigid {
            let _ = writeln!(
                s,
                "  skin {} joint {} \"{}\": {}",
                j["skin"],
                j["joint"],
                j["name"].as_str().unwrap_or(""),
                j["kind"].as_str().unwrap_or("")
            );
        }
    }
    rest_pose_lines(&mut s, f);
    let clips = f["clips"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(s, "clips       {}", clips.len());
    for (i, c) in clips.iter().enumerate() {
        let kinds: Vec<&str> = c["interpolations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let _ = writeln!(
            s,
            "  {i} \"{}\": {:.3} s, {} channels, {}",
            c["name"].as_str().unwrap_or(""),
            c["duration"].as_f64().unwrap_or(0.0),
            c["channels"],
            kinds.join("/")
        );
    }
    match (f["bbox"]["min"].as_array(), f["bbox"]["max"].as_array()) {
        (Some(lo), Some(hi)) => {
            let fmt = |v: &Vec<Value>| {
                v.iter()
                    .map(|x| format!("{:.4}", x.as_f64().unwrap_or(0.0)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let _ = writeln!(s, "bbox        min ({})  max ({})", fmt(lo), fmt(hi));
        }
        _ => {
            let _ = writeln!(s, "bbox        empty");
        }
    }
    if scene.sanitized > 0 {
        let _ = writeln!(
            s,
            "sanitized   {} values (non-finite or invalid; replaced or dropped, see the error and warning lines)",
            scene.sanitized
        );
    }
    for f in &scene.faults {
        let _ = writeln!(s, "{:<12}{}", f.severity().name(), f.message());
    }
    for w in &scene.warnings {
        let _ = writeln!(s, "warning     {w}");
    }
    for c in &scene.compression {
        let _ = writeln!(s, "compressed  {c}");
    }
    for n in &scene.notes {
        let _ = writeln!(s, "note        {n}");
    }
    s
}

/// `facts`' `rest_pose`: whether the rest pose is the bind pose, the line `inspect` prints,
/// and the joints that differ ([`crate::analysis::rest_bind`]).
fn rest_pose_facts(scene: &Scene) -> Value {
    let rest_bind = crate::analysis::rest_bind(scene);
    let joints: Vec<Value> = (rest_bind.joints.iter())
        .map(|j| {
            json!({"skin": j.skin, "node": j.node, "name": j.name, "angle_deg": j.angle_deg, "offset": j.offset})
        })
        .collect();
    json!({
        "is_bind_pose": rest_bind.is_bind_pose(),
        "text": rest_bind.text(),
        "joints_not_at_bind": joints,
    })
}

/// Most joints listed under the `rest pose` line.
const REST_POSE_LISTED: usize = 8;

/// Appends the `rest pose` line where the rest pose is not the bind pose (nothing where it is):
/// the joints it moves, farthest first, and what that does to the heat views.
fn rest_pose_lines(s: &mut String, f: &Value) {
    use std::fmt::Write;
    let joints = f["rest_pose"]["joints_not_at_bind"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let Some(text) = f["rest_pose"]["text"].as_str() else {
        return;
    };
    let _ = writeln!(
        s,
        "rest pose   {}; the heat views (displacement, collapse) show colour there with no clip",
        text.strip_prefix("rest pose is ").unwrap_or(text)
    );
    for j in joints.iter().take(REST_POSE_LISTED) {
        let _ = writeln!(
            s,
            "  skin {} \"{}\" (node {}): {:.1} deg, moves its vertices up to {:.2}% of the diagonal",
            j["skin"],
            j["name"].as_str().unwrap_or(""),
            j["node"],
            j["angle_deg"].as_f64().unwrap_or(0.0),
            100.0 * j["offset"].as_f64().unwrap_or(0.0)
        );
    }
    if joints.len() > REST_POSE_LISTED {
        let _ = writeln!(s, "  ... {} more", joints.len() - REST_POSE_LISTED);
    }
}

/// Appends one joint and its children, indented by depth.
fn tree_lines(s: &mut String, node: &Value, depth: usize) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "{}{} (node {})",
        "  ".repeat(depth),
        node["name"].as_str().unwrap_or(""),
        node["node"]
    );
    for c in node["children"].as_array().into_iter().flatten() {
        tree_lines(s, c, depth + 1);
    }
}
