//! Amending a glTF file's rig in place: nodes appended (with their node constraints), skins'
//! joint lists, primitives' JOINTS/WEIGHTS and clips' rotation channels replaced or added,
//! and a previous run's trailing nodes dropped; every other member keeps its text.
//!
//! New bytes go where `amend_dqs_blend` puts them (the GLB's BIN chunk, or a new `.bin`
//! beside a `.gltf`), each in its own buffer view, with one accessor each.

use glam::Mat4;
use serde_json::{Value, json};

use super::container::amend_err;
use super::raw::{Raw, RawObject, parse_array, to_raw};
use super::rig_data::{NewData, number};
use super::{AmendTarget, Amended, file_primitive_indices_of};
use crate::influences::Influences;
use crate::scene::constraint::{NODE_CONSTRAINT_EXTENSION, aim_axis_name, roll_axis_name};
use crate::scene::{Channel, ConstraintKind, NodeConstraint, SceneError, Trs};

/// Accessor component type `UNSIGNED_SHORT`.
const UNSIGNED_SHORT: u32 = 5123;
/// Buffer view target for vertex attributes.
const ARRAY_BUFFER: u32 = 34962;

/// A node to append.
#[derive(Clone, Debug, PartialEq)]
pub struct RigNode {
    /// Its name.
    pub name: String,
    /// Its parent (an input node that is kept, or an earlier appended one).
    pub parent: usize,
    /// Its rest transform.
    pub trs: Trs,
    /// Its constraint, if any (`destination` is this node and is not read).
    pub constraint: Option<NodeConstraint>,
}

/// A skin's new joint list.
#[derive(Clone, Copy, Debug)]
pub struct RigSkin<'a> {
    /// The skin's index.
    pub skin: usize,
    /// Its joints' node indices.
    pub joints: &'a [usize],
    /// One inverse bind matrix per joint.
    pub inverse_bind: &'a [Mat4],
}

/// A primitive's new influences.
#[derive(Clone, Copy, Debug)]
pub struct RigInfluences<'a> {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index in dqview's mesh (the loader's, see `file_primitive_indices`).
    pub primitive: usize,
    /// One row per vertex, in the file's vertex order.
    pub influences: &'a Influences,
}

/// A channel to add to a clip.
#[derive(Clone, Copy, Debug)]
pub struct RigChannel<'a> {
    /// The animation's index.
    pub animation: usize,
    /// The channel (a rotation channel of an appended node).
    pub channel: &'a Channel,
}

/// Everything [`amend_rig`] changes.
#[derive(Clone, Copy, Debug)]
pub struct RigEdit<'a> {
    /// How many of the input's nodes stay (the rest are a previous run's, dropped).
    pub keep_nodes: usize,
    /// Nodes appended after them.
    pub nodes: &'a [RigNode],
    /// Skins whose joint lists are replaced.
    pub skins: &'a [RigSkin<'a>],
    /// Primitives whose influences are replaced.
    pub influences: &'a [RigInfluences<'a>],
    /// JOINTS_n/WEIGHTS_n sets written per primitive (1: four influences, 2: eight).
    pub influence_sets: usize,
    /// Channels added (a dropped node's channels are removed first).
    pub channels: &'a [RigChannel<'a>],
}

/// Amends the glTF or GLB `input` by `edit`.
pub fn amend_rig(
    input: &[u8],
    target: AmendTarget<'_>,
    edit: &RigEdit<'_>,
) -> Result<Amended, SceneError> {
    let (mut glb_parts, view, mut root) = super::open(input, target)?;
    let mut data = NewData::new(&view);
    edit_nodes(&view, &mut root, edit)?;
    for skin in edit.skins {
        edit_skin(&mut root, &mut data, skin)?;
    }
    let file_primitives = file_primitive_indices_of(&view)?;
    for inf in edit.influences {
        let file_primitive = file_primitives
            .get(inf.mesh)
            .and_then(|m| m.get(inf.primitive))
            .copied()
            .ok_or_else(|| {
                amend_err(format!(
                    "mesh {} has no primitive {}",
                    inf.mesh, inf.primitive
                ))
            })?;
        edit_influences(
            &mut root,
            &mut data,
            inf,
            file_primitive,
            edit.influence_sets,
        )?;
    }
    edit_animations(&view, &mut root, &mut data, edit)?;
    if edit.nodes.iter().any(|n| n.constraint.is_some()) {
        add_extension_used(&mut root, NODE_CONSTRAINT_EXTENSION)?;
    }
    let mut out = Amended::of(&view);
    data.append(&view, &mut root, &mut glb_parts, target, &mut out)?;
    out.file = super::file_bytes(glb_parts, &root)?;
    Ok(out)
}

/// Drops the nodes past `keep_nodes`, appends the new ones and links them to their parents.
fn edit_nodes(view: &Value, root: &mut RawObject, edit: &RigEdit<'_>) -> Result<(), SceneError> {
    let mut nodes = root.array("nodes")?;
    if edit.keep_nodes > nodes.len() {
        return Err(amend_err("internal: more nodes kept than the file has"));
    }
    let dropped = nodes.len() > edit.keep_nodes;
    nodes.truncate(edit.keep_nodes);
    let listed = |n: usize| -> Vec<usize> {
        let children = view
            .get("nodes")
            .and_then(|a| a.get(n))
            .and_then(|n| n.get("children"));
        children
            .and_then(Value::as_array)
            .map(|c| {
                c.iter()
                    .filter_map(Value::as_u64)
                    .map(|c| c as usize)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut wanted: Vec<Vec<usize>> = (0..edit.keep_nodes)
        .map(|n| {
            listed(n)
                .into_iter()
                .filter(|&c| c < edit.keep_nodes)
                .collect()
        })
        .collect();
    for (k, node) in edit.nodes.iter().enumerate() {
        let index = edit.keep_nodes + k;
        if node.parent >= index {
            return Err(amend_err(format!(
                "node {} (node {index}) must hang from a node before it",
                node.name
            )));
        }
        if let Some(list) = wanted.get_mut(node.parent) {
            list.push(index);
        }
    }
    for (k, node) in edit.nodes.iter().enumerate() {
        let index = edit.keep_nodes + k;
        let children: Vec<usize> = (0..edit.nodes.len())
            .filter(|&c| edit.nodes[c].parent == index)
            .map(|c| edit.keep_nodes + c)
            .collect();
        let mut json = node_json(node, index)?;
        if !children.is_empty() {
            json["children"] = json!(children);
        }
        nodes.push(to_raw(&json)?);
    }
    for (n, raw) in nodes.iter_mut().enumerate().take(edit.keep_nodes) {
        if wanted[n] == listed(n) {
            continue;
        }
        let mut obj = RawObject::parse(raw.get(), "a node")?;
        if wanted[n].is_empty() {
            obj.remove("children");
        } else {
            obj.set("children", to_raw(&wanted[n])?);
        }
        *raw = obj.to_raw()?;
    }
    root.set("nodes", to_raw(&nodes)?);
    if dropped {
        drop_scene_roots(root, edit.keep_nodes)?;
    }
    Ok(())
}

/// Removes dropped nodes from every scene's root list.
fn drop_scene_roots(root: &mut RawObject, keep_nodes: usize) -> Result<(), SceneError> {
    let mut scenes = root.array("scenes")?;
    for raw in &mut scenes {
        let mut obj = RawObject::parse(raw.get(), "a scene")?;
        let Some(list) = obj.get("nodes") else {
            continue;
        };
        let roots: Vec<u64> = serde_json::from_str(list.get()).unwrap_or_default();
        if roots.iter().all(|&r| (r as usize) < keep_nodes) {
            continue;
        }
        let kept: Vec<u64> = roots
            .into_iter()
            .filter(|&r| (r as usize) < keep_nodes)
            .collect();
        obj.set("nodes", to_raw(&kept)?);
        *raw = obj.to_raw()?;
    }
    if root.get("scenes").is_some() {
        root.set("scenes", to_raw(&scenes)?);
    }
    Ok(())
}

/// The JSON of an appended node.
fn node_json(node: &RigNode, index: usize) -> Result<Value, SceneError> {
    let t = node.trs;
    let finite = t.translation.is_finite() && t.rotation.is_finite() && t.scale.is_finite();
    if !finite {
        return Err(amend_err(format!(
            "node {} has a non-finite transform",
            node.name
        )));
    }
    let mut out = json!({ "name": node.name });
    if t.translation != glam::Vec3::ZERO {
        out["translation"] = json!(t.translation.to_array().map(number));
    }
    if t.rotation != glam::Quat::IDENTITY {
        out["rotation"] = json!(t.rotation.to_array().map(number));
    }
    if t.scale != glam::Vec3::ONE {
        out["scale"] = json!(t.scale.to_array().map(number));
    }
    if let Some(c) = node.constraint {
        out["extensions"] = json!({ NODE_CONSTRAINT_EXTENSION: constraint_json(&c, index)? });
    }
    Ok(out)
}

/// A `VRMC_node_constraint` object for `c` on node `index`.
fn constraint_json(c: &NodeConstraint, index: usize) -> Result<Value, SceneError> {
    if c.source == index || !(0.0..=1.0).contains(&c.weight) {
        return Err(amend_err(format!(
            "node {index}: a constraint must read another node, weight in [0, 1]"
        )));
    }
    let body = match c.kind {
        ConstraintKind::Roll { axis } => json!({ "roll": {
            "source": c.source,
            "rollAxis": roll_axis_name(axis).ok_or_else(|| amend_err("a roll axis must be X, Y or Z"))?,
            "weight": number(c.weight),
        }}),
        ConstraintKind::Aim { axis } => json!({ "aim": {
            "source": c.source,
            "aimAxis": aim_axis_name(axis).ok_or_else(|| amend_err("an aim axis must be ±X, ±Y or ±Z"))?,
            "weight": number(c.weight),
        }}),
        ConstraintKind::Rotation => {
            json!({ "rotation": { "source": c.source, "weight": number(c.weight) }})
        }
    };
    Ok(json!({ "specVersion": "1.0", "constraint": body }))
}

/// Replaces a skin's joints and inverse bind matrices (a new accessor).
fn edit_skin(
    root: &mut RawObject,
    data: &mut NewData,
    skin: &RigSkin<'_>,
) -> Result<(), SceneError> {
    if skin.joints.len() != skin.inverse_bind.len() || skin.joints.is_empty() {
        return Err(amend_err(format!(
            "skin {}: one inverse bind matrix per joint",
            skin.skin
        )));
    }
    // glTF wants an affine matrix: its last row exactly (0, 0, 0, 1).
    let values: Vec<f32> = skin
        .inverse_bind
        .iter()
        .flat_map(|m| {
            let mut c = m.to_cols_array();
            (c[3], c[7], c[11], c[15]) = (0.0, 0.0, 0.0, 1.0);
            c
        })
        .collect();
    if values.iter().any(|v| !v.is_finite()) {
        return Err(amend_err(format!(
            "skin {}: a non-finite inverse bind matrix",
            skin.skin
        )));
    }
    let mut skins = root.array("skins")?;
    let old: Option<usize> = skins
        .get(skin.skin)
        .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
        .and_then(|v| v.get("inverseBindMatrices")?.as_u64())
        .map(|a| a as usize);
    let accessor = data.floats(&values, ("MAT4", 16), None, false, old);
    let raw = skins
        .get_mut(skin.skin)
        .ok_or_else(|| amend_err(format!("the file has no skin {}", skin.skin)))?;
    let mut obj = RawObject::parse(raw.get(), "a skin")?;
    obj.set("joints", to_raw(skin.joints)?);
    obj.set("inverseBindMatrices", to_raw(&accessor)?);
    *raw = obj.to_raw()?;
    root.set("skins", to_raw(&skins)?);
    Ok(())
}

/// Replaces a primitive's JOINTS_n/WEIGHTS_n by `sets` new sets (u16 joints, float weights).
fn edit_influences(
    root: &mut RawObject,
    data: &mut NewData,
    inf: &RigInfluences<'_>,
    file_primitive: usize,
    sets: usize,
) -> Result<(), SceneError> {
    let mut attributes_of = AttributeEdit::open(root, inf.mesh, file_primitive)?;
    let old = |attributes: &RawObject, name: &str| -> Option<usize> {
        serde_json::from_str::<u64>(attributes.get(name)?.get())
            .ok()
            .map(|a| a as usize)
    };
    let olds: Vec<(Option<usize>, Option<usize>)> = (0..sets)
        .map(|k| {
            (
                old(&attributes_of.attributes, &format!("JOINTS_{k}")),
                old(&attributes_of.attributes, &format!("WEIGHTS_{k}")),
            )
        })
        .collect();
    for k in 0..8 {
        attributes_of.attributes.remove(&format!("JOINTS_{k}"));
        attributes_of.attributes.remove(&format!("WEIGHTS_{k}"));
    }
    for (k, (joints, weights)) in inf.influences.to_fixed_sets(sets).iter().enumerate() {
        let joint_bytes: Vec<u8> = joints
            .iter()
            .flatten()
            .flat_map(|j| j.to_le_bytes())
            .collect();
        let accessor =
            json!({ "componentType": UNSIGNED_SHORT, "count": joints.len(), "type": "VEC4" });
        let j = data.add(&joint_bytes, Some(ARRAY_BUFFER), accessor, olds[k].0);
        let flat: Vec<f32> = weights.iter().flatten().copied().collect();
        let w = data.floats(&flat, ("VEC4", 4), Some(ARRAY_BUFFER), false, olds[k].1);
        attributes_of
            .attributes
            .set(&format!("JOINTS_{k}"), to_raw(&j)?);
        attributes_of
            .attributes
            .set(&format!("WEIGHTS_{k}"), to_raw(&w)?);
    }
    attributes_of.close(root)
}

/// One primitive's `attributes` object opened for editing.
struct AttributeEdit {
    mesh: usize,
    primitive: usize,
    attributes: RawObject,
}

impl AttributeEdit {
    /// Opens mesh `mesh`'s file primitive `primitive`'s attributes.
    fn open(root: &RawObject, mesh: usize, primitive: usize) -> Result<Self, SceneError> {
        let missing = || amend_err(format!("mesh {mesh} primitive {primitive} does not exist"));
        let meshes = root.array("meshes")?;
        let mesh_obj = RawObject::parse(meshes.get(mesh).ok_or_else(missing)?.get(), "a mesh")?;
        let prims = parse_array(
            mesh_obj.get("primitives").ok_or_else(missing)?,
            "primitives",
        )?;
        let prim = RawObject::parse(
            prims.get(primitive).ok_or_else(missing)?.get(),
            "a primitive",
        )?;
        let attributes = RawObject::parse(
            prim.get("attributes").ok_or_else(missing)?.get(),
            "attributes",
        )?;
        Ok(Self {
            mesh,
            primitive,
            attributes,
        })
    }

    /// Writes the attributes back into the primitive.
    fn close(self, root: &mut RawObject) -> Result<(), SceneError> {
        let mut meshes = root.array("meshes")?;
        let mesh_raw = &mut meshes[self.mesh];
        let mut mesh_obj = RawObject::parse(mesh_raw.get(), "a mesh")?;
        let mut prims = mesh_obj.array("primitives")?;
        let prim_raw = &mut prims[self.primitive];
        let mut prim = RawObject::parse(prim_raw.get(), "a primitive")?;
        prim.set("attributes", self.attributes.to_raw()?);
        drop_draco_influences(&mut prim)?;
        *prim_raw = prim.to_raw()?;
        mesh_obj.set("primitives", to_raw(&prims)?);
        *mesh_raw = mesh_obj.to_raw()?;
        root.set("meshes", to_raw(&meshes)?);
        Ok(())
    }
}

/// Drops JOINTS_n/WEIGHTS_n from a Draco primitive's compressed attributes: the new
/// uncompressed accessors replace them (in the decoded vertex order), and a Draco loader
/// must not take the old ones from the stream instead.
fn drop_draco_influences(prim: &mut RawObject) -> Result<(), SceneError> {
    const DRACO: &str = "KHR_draco_mesh_compression";
    let Some(raw) = prim.get("extensions") else {
        return Ok(());
    };
    let mut extensions: Value = serde_json::from_str(raw.get())
        .map_err(|e| amend_err(format!("a primitive's extensions: {e}")))?;
    let Some(attributes) = extensions
        .get_mut(DRACO)
        .and_then(|d| d.get_mut("attributes"))
        .and_then(Value::as_object_mut)
    else {
        return Ok(());
    };
    attributes.retain(|name, _| !name.starts_with("JOINTS_") && !name.starts_with("WEIGHTS_"));
    prim.set("extensions", to_raw(&extensions)?);
    Ok(())
}

/// Removes dropped nodes' channels (and samplers no channel uses) and adds the new channels.
fn edit_animations(
    view: &Value,
    root: &mut RawObject,
    data: &mut NewData,
    edit: &RigEdit<'_>,
) -> Result<(), SceneError> {
    let count = view
        .get("animations")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let dropped = view
        .get("nodes")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
        > edit.keep_nodes;
    // Nothing to add, or no animation to edit: an `animations` array left empty (a re-run
    // on a file with no clips) is a glTF-Validator error, so none is written.
    if edit.channels.is_empty() && (!dropped || count == 0) {
        return Ok(());
    }
    let mut animations = root.array("animations")?;
    for (a, raw) in animations.iter_mut().enumerate().take(count) {
        let added: Vec<&Channel> = edit
            .channels
            .iter()
            .filter(|c| c.animation == a)
            .map(|c| c.channel)
            .collect();
        if added.is_empty() && !dropped {
            continue;
        }
        *raw = edit_animation(raw.get(), data, &added, edit.keep_nodes)?;
    }
    if let Some(bad) = edit.channels.iter().find(|c| c.animation >= count) {
        return Err(amend_err(format!(
            "the file has no animation {}",
            bad.animation
        )));
    }
    root.set("animations", to_raw(&animations)?);
    Ok(())
}

/// One animation with dropped nodes' channels taken out and `added` appended.
fn edit_animation(
    text: &str,
    data: &mut NewData,
    added: &[&Channel],
    keep_nodes: usize,
) -> Result<Raw, SceneError> {
    let mut obj = RawObject::parse(text, "an animation")?;
    let channels: Vec<Value> = serde_json::from_str(obj.get("channels").map_or("[]", |r| r.get()))
        .map_err(|e| amend_err(format!("animation channels: {e}")))?;
    let samplers_raw = obj.array("samplers")?;
    let target_node = |c: &Value| {
        c.get("target")
            .and_then(|t| t.get("node"))
            .and_then(Value::as_u64)
    };
    let kept: Vec<Value> = channels
        .into_iter()
        .filter(|c| target_node(c).is_none_or(|n| (n as usize) < keep_nodes))
        .collect();
    // Samplers stay in order; those no kept channel uses are dropped and the rest renumbered.
    let used: Vec<bool> = (0..samplers_raw.len())
        .map(|s| {
            kept.iter()
                .any(|c| c.get("sampler").and_then(Value::as_u64) == Some(s as u64))
        })
        .collect();
    let renumber: Vec<usize> = used
        .iter()
        .scan(0, |n, &u| {
            let at = *n;
            *n += usize::from(u);
            Some(at)
        })
        .collect();
    let mut samplers: Vec<Raw> = samplers_raw
        .into_iter()
        .zip(&used)
        .filter(|(_, u)| **u)
        .map(|(s, _)| s)
        .collect();
    let mut channels_out: Vec<Value> = kept
        .into_iter()
        .map(|mut c| {
            if let Some(s) = c.get("sampler").and_then(Value::as_u64) {
                c["sampler"] = json!(renumber.get(s as usize).copied().unwrap_or(0));
            }
            c
        })
        .collect();
    let mut last_times: Option<(&[f32], usize)> = None;
    for channel in added {
        let input = match last_times {
            Some((t, a)) if t == channel.times_s.as_slice() => a,
            _ => {
                let a = data.floats(&channel.times_s, ("SCALAR", 1), None, true, None);
                last_times = Some((&channel.times_s, a));
                a
            }
        };
        if channel.values.iter().any(|v| !v.is_finite()) {
            return Err(amend_err(format!(
                "channel of node {}: a non-finite value",
                channel.node
            )));
        }
        let output = data.floats(&channel.values, ("VEC4", 4), None, false, None);
        samplers.push(to_raw(&json!({ "input": input, "output": output, "interpolation": channel.interpolation.name() }))?);
        channels_out.push(json!({ "sampler": samplers.len() - 1, "target": { "node": channel.node, "path": "rotation" } }));
    }
    obj.set("channels", to_raw(&channels_out)?);
    obj.set("samplers", to_raw(&samplers)?);
    obj.to_raw()
}

/// Adds `name` to `extensionsUsed` (made when absent) unless it is there.
fn add_extension_used(root: &mut RawObject, name: &str) -> Result<(), SceneError> {
    let mut used: Vec<String> = match root.get("extensionsUsed") {
        Some(raw) => serde_json::from_str(raw.get())
            .map_err(|e| amend_err(format!("extensionsUsed: {e}")))?,
        None => Vec::new(),
    };
    if !used.iter().any(|u| u == name) {
        used.push(name.to_owned());
        root.set("extensionsUsed", to_raw(&used)?);
    }
    Ok(())
}
