//! Meshes and primitives: vertex attributes, indices, influences and morph targets.

use serde_json::{Map, Value, json};

use super::bin::{ARRAY_BUFFER, Bin, ELEMENT_ARRAY_BUFFER, Kind, UNSIGNED_INT, UNSIGNED_SHORT};
use super::{check_index, floats_json, write_err};
use crate::scene::{Mesh, MorphTarget, Primitive, SceneError, Topology};

/// One mesh's JSON, or `None` when it has no primitive glTF can hold.
pub(super) fn mesh_json(
    i: usize,
    mesh: &Mesh,
    material_count: usize,
    bin: &mut Bin,
) -> Result<Option<Value>, SceneError> {
    let drawable: Vec<(usize, &Primitive)> = mesh
        .primitives
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.positions.is_empty() && !p.indices.is_empty())
        .collect();
    if drawable.is_empty() {
        return Ok(None);
    }
    // glTF requires every primitive of a mesh to have as many targets as `weights` has entries.
    let targets = drawable.first().map_or(0, |(_, p)| p.morph_targets.len());
    if drawable
        .iter()
        .any(|(_, p)| p.morph_targets.len() != targets)
    {
        return Err(write_err(format!(
            "mesh {i}: primitives have different morph target counts"
        )));
    }
    let mut primitives = Vec::with_capacity(drawable.len());
    for (p, prim) in drawable {
        primitives.push(primitive_json(i, p, prim, material_count, bin)?);
    }
    let mut obj = Map::new();
    obj.insert("name".into(), json!(mesh.name));
    obj.insert("primitives".into(), Value::Array(primitives));
    // Target names go where Blender and three.js put them.
    let names: Vec<&str> = mesh
        .primitives
        .iter()
        .find(|p| !p.morph_targets.is_empty())
        .map(|p| p.morph_targets.iter().map(|t| t.name.as_str()).collect())
        .unwrap_or_default();
    if names.iter().any(|n| !n.is_empty()) {
        obj.insert("extras".into(), json!({ "targetNames": names }));
    }
    if !mesh.morph_weights.is_empty() {
        if mesh.morph_weights.len() != targets {
            return Err(write_err(format!(
                "mesh {i}: {} morph weights for {targets} targets",
                mesh.morph_weights.len()
            )));
        }
        obj.insert(
            "weights".into(),
            floats_json(&mesh.morph_weights, || format!("mesh {i} morph weights"))?,
        );
    }
    Ok(Some(Value::Object(obj)))
}

/// One primitive's JSON and its vertex data.
fn primitive_json(
    mesh: usize,
    p: usize,
    prim: &Primitive,
    material_count: usize,
    bin: &mut Bin,
) -> Result<Value, SceneError> {
    let n = prim.positions.len();
    let what = |attr: &str| format!("mesh {mesh} primitive {p} {attr}");
    // An attribute is written when it has one entry per vertex, skipped when empty.
    let present = |len: usize, attr: &str| -> Result<bool, SceneError> {
        match len {
            0 => Ok(false),
            l if l == n => Ok(true),
            l => Err(write_err(format!(
                "{}: {l} entries for {n} positions",
                what(attr)
            ))),
        }
    };
    let mut attributes = Map::new();
    let flat: Vec<f32> = prim.positions.iter().flat_map(|v| v.to_array()).collect();
    let pos = bin.floats(&flat, Kind::Vec3, Some(ARRAY_BUFFER), true, || {
        what("POSITION")
    })?;
    attributes.insert("POSITION".into(), json!(pos));
    if present(prim.normals.len(), "NORMAL")? {
        let flat: Vec<f32> = prim.normals.iter().flat_map(|v| v.to_array()).collect();
        let a = bin.floats(&flat, Kind::Vec3, Some(ARRAY_BUFFER), false, || {
            what("NORMAL")
        })?;
        attributes.insert("NORMAL".into(), json!(a));
    }
    if let Some(tangents) = &prim.tangents
        && present(tangents.len(), "TANGENT")?
    {
        let flat: Vec<f32> = tangents.iter().flat_map(|v| v.to_array()).collect();
        let a = bin.floats(&flat, Kind::Vec4, Some(ARRAY_BUFFER), false, || {
            what("TANGENT")
        })?;
        attributes.insert("TANGENT".into(), json!(a));
    }
    if let Some(uvs) = &prim.uvs
        && present(uvs.len(), "TEXCOORD_0")?
    {
        let flat: Vec<f32> = uvs.iter().flat_map(|v| v.to_array()).collect();
        let a = bin.floats(&flat, Kind::Vec2, Some(ARRAY_BUFFER), false, || {
            what("TEXCOORD_0")
        })?;
        attributes.insert("TEXCOORD_0".into(), json!(a));
    }
    if let Some(colors) = &prim.colors
        && present(colors.len(), "COLOR_0")?
    {
        // Float RGBA: exact, and glTF's VEC4 form keeps the alpha.
        let flat: Vec<f32> = colors.iter().flat_map(|v| v.to_array()).collect();
        let a = bin.floats(&flat, Kind::Vec4, Some(ARRAY_BUFFER), false, || {
            what("COLOR_0")
        })?;
        attributes.insert("COLOR_0".into(), json!(a));
    }
    if let Some(blend) = &prim.dqs_blend
        && present(blend.len(), "_DQS_BLEND")?
    {
        let a = bin.floats(blend, Kind::Scalar, Some(ARRAY_BUFFER), false, || {
            what("_DQS_BLEND")
        })?;
        attributes.insert("_DQS_BLEND".into(), json!(a));
    }
    if let Some(influences) = &prim.influences
        && present(influences.vertex_count(), "influences")?
    {
        // At least one set: glTF requires JOINTS_0/WEIGHTS_0 on skinned primitives.
        let sets = influences.max_influences().div_ceil(4).max(1);
        for (s, (joints, weights)) in influences.to_fixed_sets(sets).iter().enumerate() {
            let bytes: Vec<u8> = joints
                .iter()
                .flatten()
                .flat_map(|j| j.to_le_bytes())
                .collect();
            let view = bin.view(&bytes, Some(ARRAY_BUFFER));
            let a = bin.accessor(view, UNSIGNED_SHORT, n, Kind::Vec4);
            attributes.insert(format!("JOINTS_{s}"), json!(a));
            let flat: Vec<f32> = weights.iter().flatten().copied().collect();
            let a = bin.floats(&flat, Kind::Vec4, Some(ARRAY_BUFFER), false, || {
                what("WEIGHTS")
            })?;
            attributes.insert(format!("WEIGHTS_{s}"), json!(a));
        }
    }

    if let Some(&bad) = prim.indices.iter().find(|&&i| i as usize >= n) {
        return Err(write_err(format!(
            "{}: index {bad} past {n} vertices",
            what("indices")
        )));
    }
    let bytes: Vec<u8> = prim.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    let view = bin.view(&bytes, Some(ELEMENT_ARRAY_BUFFER));
    let indices = bin.accessor(view, UNSIGNED_INT, prim.indices.len(), Kind::Scalar);

    let mut obj = Map::new();
    obj.insert("attributes".into(), Value::Object(attributes));
    obj.insert("indices".into(), json!(indices));
    // glTF's modes: 0 points, 1 lines (4, triangles, is the default).
    let mode = match prim.topology {
        Topology::Triangles => None,
        Topology::Lines => Some(1),
        Topology::Points => Some(0),
    };
    if let Some(mode) = mode {
        obj.insert("mode".into(), json!(mode));
    }
    if let Some(m) = prim.material {
        check_index(m, material_count, || what("material"))?;
        obj.insert("material".into(), json!(m));
    }
    if !prim.morph_targets.is_empty() {
        let mut targets = Vec::with_capacity(prim.morph_targets.len());
        for (t, target) in prim.morph_targets.iter().enumerate() {
            targets.push(target_json(t, target, n, bin, &what)?);
        }
        obj.insert("targets".into(), Value::Array(targets));
    }
    Ok(Value::Object(obj))
}

/// One morph target's JSON: its displacement accessors (POSITION bounds are required by glTF).
///
/// A target that displaces nothing becomes a POSITION target of zeros, as a
/// target needs at least one attribute.
fn target_json(
    t: usize,
    target: &MorphTarget,
    n: usize,
    bin: &mut Bin,
    what: &dyn Fn(&str) -> String,
) -> Result<Value, SceneError> {
    let mut obj = Map::new();
    for (name, deltas, bounds) in [
        ("POSITION", &target.positions, true),
        ("NORMAL", &target.normals, false),
        ("TANGENT", &target.tangents, false),
    ] {
        if deltas.is_empty() {
            continue;
        }
        let label = || what(&format!("morph target {t} {name}"));
        if deltas.len() != n {
            return Err(write_err(format!(
                "{}: {} entries for {n} positions",
                label(),
                deltas.len()
            )));
        }
        let flat: Vec<f32> = deltas.iter().flat_map(|v| v.to_array()).collect();
        let a = bin.floats(&flat, Kind::Vec3, Some(ARRAY_BUFFER), bounds, label)?;
        obj.insert(name.into(), json!(a));
    }
    if obj.is_empty() {
        obj.insert("POSITION".into(), json!(bin.zero_positions(n)));
    }
    Ok(Value::Object(obj))
}
