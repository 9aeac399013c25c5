//! Writes a [`Scene`] as binary glTF 2.0 (GLB): one JSON chunk and one BIN chunk.
//!
//! Every accessor gets its own buffer view (except the shared all-zero view
//! used by morph targets), each starting on a 4-byte boundary, so no view
//! needs a stride and every component is aligned.
//! - `bin`: the binary chunk, buffer views, accessors and the GLB container.
//! - `mesh`: meshes and their vertex attributes.
//! - here: the document, nodes, skins, materials, textures and animations.

mod bin;
mod mesh;

use glam::Vec3;
use image::ImageEncoder;
use serde_json::{Map, Value, json};

use super::{AlphaMode, Interpolation, Material, Node, NodeTransform, Property, Scene, Skin};
use super::{SceneError, Texture};
pub use bin::glb_container;
use bin::{Bin, Kind};
use mesh::mesh_json;

/// Most joints one skin can have in a GLB from dqview: JOINTS_n are written as u16.
pub const MAX_SKIN_JOINTS: usize = u16::MAX as usize + 1;

/// Serialises `scene` as a binary glTF 2.0 file.
///
/// Influences are written as `ceil(max_influences / 4)` JOINTS_n (u16) /
/// WEIGHTS_n (f32) sets, textures as embedded PNG. Parts glTF cannot express
/// empty are left out: a primitive without vertices or indices, a mesh left
/// without primitives (and the mesh/skin reference of nodes using it), a skin
/// without joints, an animation channel without keys and an animation left
/// without channels, and the `scenes` entry when there are no roots (a glTF
/// scene needs a node). `source` and `warnings` are not written. Morph targets
/// keep their position, normal and tangent displacements (a target with none
/// becomes a POSITION target of zeros); node morph weights go to `weights`.
/// Materials get `metallicFactor` 0 (dqview has none; glTF's default 1 looks like chrome).
///
/// Fails with [`SceneError::Write`] on dangling indices, attribute lengths that
/// disagree with the positions, non-finite numbers the JSON must hold, or a
/// skin with more than [`MAX_SKIN_JOINTS`] joints.
pub fn write_glb(scene: &Scene) -> Result<Vec<u8>, SceneError> {
    let mut bin = Bin::default();
    let root = root_json(scene, &mut bin)?;
    let json = serde_json::to_vec(&root).map_err(|e| write_err(format!("JSON: {e}")))?;
    glb_container(json, bin.data)
}

/// Shorthand for a [`SceneError::Write`].
fn write_err(msg: impl Into<String>) -> SceneError {
    SceneError::Write(msg.into())
}

/// Checks that `index` is below `len`; `what` names the referrer for the message.
fn check_index(index: usize, len: usize, what: impl FnOnce() -> String) -> Result<(), SceneError> {
    if index < len {
        Ok(())
    } else {
        Err(write_err(format!(
            "{} refers to index {index}, but there are {len}",
            what()
        )))
    }
}

/// A JSON array of finite floats; JSON has no NaN or infinity.
fn floats_json(values: &[f32], what: impl FnOnce() -> String) -> Result<Value, SceneError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(json!(values))
    } else {
        Err(write_err(format!("{} is not finite", what())))
    }
}

/// Builds the whole glTF JSON document, filling `bin` along the way.
fn root_json(scene: &Scene, bin: &mut Bin) -> Result<Value, SceneError> {
    let textures = scene
        .textures
        .iter()
        .enumerate()
        .map(|(i, t)| texture_png(i, t))
        .collect::<Result<Vec<_>, _>>()?;
    let mut images = Vec::new();
    for png in &textures {
        let view = bin.view(png, None);
        images.push(json!({ "bufferView": view, "mimeType": "image/png" }));
    }
    let texture_json: Vec<Value> = (0..textures.len())
        .map(|i| json!({ "source": i }))
        .collect();

    let materials = scene
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| material_json(i, m, scene.textures.len()))
        .collect::<Result<Vec<_>, _>>()?;

    // Meshes and skins that glTF cannot hold are dropped, so indices are remapped.
    let mut meshes = Vec::new();
    let mut mesh_map = Vec::with_capacity(scene.meshes.len());
    for (i, mesh) in scene.meshes.iter().enumerate() {
        let written = mesh_json(i, mesh, scene.materials.len(), bin)?;
        mesh_map.push(written.map(|m| {
            meshes.push(m);
            meshes.len() - 1
        }));
    }
    let mut skins = Vec::new();
    let mut skin_map = Vec::with_capacity(scene.skins.len());
    for (i, skin) in scene.skins.iter().enumerate() {
        let written = skin_json(i, skin, scene.nodes.len(), bin)?;
        skin_map.push(written.map(|s| {
            skins.push(s);
            skins.len() - 1
        }));
    }

    let nodes = scene
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| node_json(i, n, scene.nodes.len(), &mesh_map, &skin_map))
        .collect::<Result<Vec<_>, _>>()?;

    let mut animations = Vec::new();
    for (i, anim) in scene.animations.iter().enumerate() {
        if let Some(a) = animation_json(i, anim, scene.nodes.len(), bin)? {
            animations.push(a);
        }
    }

    for &r in &scene.roots {
        check_index(r, scene.nodes.len(), || String::from("scene root"))?;
    }

    let mut root = Map::new();
    root.insert(
        "asset".into(),
        json!({ "version": "2.0", "generator": concat!("dqview ", env!("CARGO_PKG_VERSION")) }),
    );
    // A glTF scene needs at least one node, so a scene without roots writes no `scenes`.
    if !scene.roots.is_empty() {
        root.insert("scene".into(), json!(0));
        root.insert("scenes".into(), json!([{ "nodes": scene.roots }]));
    }
    // glTF wants every top-level array non-empty when present.
    let arrays = [
        ("nodes", nodes),
        ("meshes", meshes),
        ("skins", skins),
        ("materials", materials),
        ("textures", texture_json),
        ("images", images),
        ("animations", animations),
    ];
    for (key, items) in arrays {
        if !items.is_empty() {
            root.insert(key.into(), Value::Array(items));
        }
    }
    bin.align();
    if !bin.data.is_empty() {
        root.insert("buffers".into(), json!([{ "byteLength": bin.data.len() }]));
        root.insert(
            "bufferViews".into(),
            Value::Array(std::mem::take(&mut bin.views)),
        );
        root.insert(
            "accessors".into(),
            Value::Array(std::mem::take(&mut bin.accessors)),
        );
    }
    Ok(Value::Object(root))
}

/// One node's JSON; `mesh_map`/`skin_map` give the written index of each scene mesh/skin.
fn node_json(
    i: usize,
    node: &Node,
    node_count: usize,
    mesh_map: &[Option<usize>],
    skin_map: &[Option<usize>],
) -> Result<Value, SceneError> {
    let mut obj = Map::new();
    obj.insert("name".into(), json!(node.name));
    for &c in &node.children {
        check_index(c, node_count, || format!("node {i} child"))?;
    }
    if !node.children.is_empty() {
        obj.insert("children".into(), json!(node.children));
    }
    match &node.transform {
        NodeTransform::Trs(trs) => {
            let what = || format!("node {i} transform");
            if trs.translation != Vec3::ZERO {
                obj.insert(
                    "translation".into(),
                    floats_json(&trs.translation.to_array(), what)?,
                );
            }
            if trs.rotation != glam::Quat::IDENTITY {
                obj.insert(
                    "rotation".into(),
                    floats_json(&trs.rotation.to_array(), what)?,
                );
            }
            if trs.scale != Vec3::ONE {
                obj.insert("scale".into(), floats_json(&trs.scale.to_array(), what)?);
            }
        }
        // Written even when it is the identity, so a reader gets a matrix back.
        NodeTransform::Matrix(m) => {
            obj.insert(
                "matrix".into(),
                floats_json(&m.to_cols_array(), || format!("node {i} matrix"))?,
            );
        }
    }
    let mesh = match node.mesh {
        Some(m) => {
            check_index(m, mesh_map.len(), || format!("node {i} mesh"))?;
            mesh_map.get(m).copied().flatten()
        }
        None => None,
    };
    if let Some(m) = mesh {
        obj.insert("mesh".into(), json!(m));
        // glTF only allows a skin on a node that has a mesh.
        if let Some(s) = node.skin {
            check_index(s, skin_map.len(), || format!("node {i} skin"))?;
            if let Some(s) = skin_map.get(s).copied().flatten() {
                obj.insert("skin".into(), json!(s));
            }
        }
        // glTF only allows node weights on a node that has a mesh.
        if !node.morph_weights.is_empty() {
            obj.insert(
                "weights".into(),
                floats_json(&node.morph_weights, || format!("node {i} morph weights"))?,
            );
        }
    }
    Ok(Value::Object(obj))
}

/// One skin's JSON, or `None` when it has no joints.
fn skin_json(
    i: usize,
    skin: &Skin,
    node_count: usize,
    bin: &mut Bin,
) -> Result<Option<Value>, SceneError> {
    if skin.joints.is_empty() {
        return Ok(None);
    }
    if skin.joints.len() > MAX_SKIN_JOINTS {
        return Err(write_err(format!(
            "skin {i} has {} joints; JOINTS_n are u16, so at most {MAX_SKIN_JOINTS}",
            skin.joints.len()
        )));
    }
    for &j in &skin.joints {
        check_index(j, node_count, || format!("skin {i} joint"))?;
    }
    let mut obj = Map::new();
    obj.insert("name".into(), json!(skin.name));
    obj.insert("joints".into(), json!(skin.joints));
    if let Some(s) = skin.skeleton {
        check_index(s, node_count, || format!("skin {i} skeleton"))?;
        obj.insert("skeleton".into(), json!(s));
    }
    match skin.inverse_bind.len() {
        0 => {}
        l if l == skin.joints.len() => {
            let flat: Vec<f32> = skin
                .inverse_bind
                .iter()
                .flat_map(|m| m.to_cols_array())
                .collect();
            let a = bin.floats(&flat, Kind::Mat4, None, false, || {
                format!("skin {i} inverse bind matrices")
            })?;
            obj.insert("inverseBindMatrices".into(), json!(a));
        }
        l => {
            return Err(write_err(format!(
                "skin {i}: {l} inverse bind matrices for {} joints",
                skin.joints.len()
            )));
        }
    }
    Ok(Some(Value::Object(obj)))
}

/// One material's JSON.
fn material_json(i: usize, m: &Material, texture_count: usize) -> Result<Value, SceneError> {
    let mut pbr = Map::new();
    pbr.insert(
        "baseColorFactor".into(),
        floats_json(&m.base_color_factor.to_array(), || {
            format!("material {i} base colour")
        })?,
    );
    if let Some(t) = m.base_color_texture {
        check_index(t, texture_count, || format!("material {i} texture"))?;
        pbr.insert("baseColorTexture".into(), json!({ "index": t }));
    }
    // dqview's model has no metallic factor; glTF's default of 1 would turn every
    // exported rig into chrome in other viewers, so write a dielectric.
    pbr.insert("metallicFactor".into(), json!(0.0));
    let mut obj = Map::new();
    obj.insert("name".into(), json!(m.name));
    obj.insert("pbrMetallicRoughness".into(), Value::Object(pbr));
    if m.double_sided {
        obj.insert("doubleSided".into(), json!(true));
    }
    match m.alpha_mode {
        AlphaMode::Opaque => {}
        AlphaMode::Blend => {
            obj.insert("alphaMode".into(), json!("BLEND"));
        }
        AlphaMode::Mask { cutoff } => {
            obj.insert("alphaMode".into(), json!("MASK"));
            if !cutoff.is_finite() {
                return Err(write_err(format!(
                    "material {i} alpha cutoff is not finite"
                )));
            }
            obj.insert("alphaCutoff".into(), json!(cutoff));
        }
    }
    Ok(Value::Object(obj))
}

/// Encodes a texture as PNG bytes.
fn texture_png(i: usize, t: &Texture) -> Result<Vec<u8>, SceneError> {
    let expected = t.width as usize * t.height as usize * 4;
    // The encoder panics on a size mismatch, so check first.
    if t.rgba8.len() != expected || expected == 0 {
        return Err(write_err(format!(
            "texture {i}: {} bytes for {}x{} RGBA8",
            t.rgba8.len(),
            t.width,
            t.height
        )));
    }
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(&t.rgba8, t.width, t.height, image::ExtendedColorType::Rgba8)
        .map_err(|e| write_err(format!("texture {i}: {e}")))?;
    Ok(png)
}

/// One animation's JSON, or `None` when no channel has keys.
fn animation_json(
    i: usize,
    anim: &super::Animation,
    node_count: usize,
    bin: &mut Bin,
) -> Result<Option<Value>, SceneError> {
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for (c, ch) in anim.channels.iter().enumerate() {
        let what = |part: &str| format!("animation {i} channel {c} {part}");
        let comps = ch.components();
        if ch.times_s.is_empty() || comps == 0 {
            continue;
        }
        check_index(ch.node, node_count, || what("node"))?;
        let per_key = match ch.interpolation {
            Interpolation::CubicSpline => 3 * comps,
            Interpolation::Step | Interpolation::Linear => comps,
        };
        if ch.values.len() != ch.times_s.len() * per_key {
            return Err(write_err(format!(
                "{}: {} values for {} keys of {per_key}",
                what("output"),
                ch.values.len(),
                ch.times_s.len()
            )));
        }
        // The spec requires min/max on sampler inputs.
        let input = bin.floats(&ch.times_s, Kind::Scalar, None, true, || what("times"))?;
        let (kind, path) = match ch.property {
            Property::Translation => (Kind::Vec3, "translation"),
            Property::Rotation => (Kind::Vec4, "rotation"),
            Property::Scale => (Kind::Vec3, "scale"),
            Property::MorphWeights(_) => (Kind::Scalar, "weights"),
        };
        let output = bin.floats(&ch.values, kind, None, false, || what("output"))?;
        channels.push(json!({
            "sampler": samplers.len(),
            "target": { "node": ch.node, "path": path },
        }));
        samplers.push(json!({
            "input": input,
            "output": output,
            "interpolation": ch.interpolation.name(),
        }));
    }
    if channels.is_empty() {
        return Ok(None);
    }
    Ok(Some(json!({
        "name": anim.name,
        "channels": channels,
        "samplers": samplers,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_scene_is_a_json_only_glb() {
        let glb = write_glb(&Scene::default()).unwrap();
        assert_eq!(&glb[0..4], b"glTF");
        let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        assert_eq!(20 + json_len, glb.len());
        let gltf = gltf::Gltf::from_slice(&glb).unwrap();
        assert!(gltf.blob.is_none());
        assert_eq!(gltf.scenes().count(), 0);
    }
}
