//! Writes a [`Scene`] as binary glTF 2.0 (GLB): one JSON chunk and one BIN chunk.
//!
//! Every accessor gets its own buffer view (except the shared all-zero view
//! used by morph targets), each starting on a 4-byte boundary, so no view
//! needs a stride and every component is aligned.

use glam::Vec3;
use image::ImageEncoder;
use serde_json::{Map, Value, json};

use super::{Interpolation, Material, Mesh, Node, NodeTransform, Primitive, Property, Scene, Skin};
use super::{SceneError, Texture};

/// The GLB header magic, `glTF` read as a little-endian u32.
const GLB_MAGIC: u32 = 0x4654_6C67;
/// The only GLB container version glTF 2.0 defines.
const GLB_VERSION: u32 = 2;
/// Chunk type of the JSON chunk (`JSON`).
const CHUNK_JSON: u32 = 0x4E4F_534A;
/// Chunk type of the binary chunk (`BIN\0`).
const CHUNK_BIN: u32 = 0x004E_4942;
/// Buffer view target for vertex attributes.
const ARRAY_BUFFER: u32 = 34962;
/// Buffer view target for indices.
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
/// Accessor component type `FLOAT`.
const FLOAT: u32 = 5126;
/// Accessor component type `UNSIGNED_SHORT`.
const UNSIGNED_SHORT: u32 = 5123;
/// Accessor component type `UNSIGNED_INT`.
const UNSIGNED_INT: u32 = 5125;

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
/// scene needs a node). `source` and `warnings` are not written.
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

/// Checks that `index` is below `len`, naming `what` refers to what.
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

/// The binary chunk under construction, with its buffer views and accessors.
#[derive(Default)]
struct Bin {
    /// Buffer 0's bytes.
    data: Vec<u8>,
    /// `bufferViews` JSON.
    views: Vec<Value>,
    /// `accessors` JSON.
    accessors: Vec<Value>,
    /// A view of zeros shared by all morph target accessors: (view index, its length in bytes).
    zeros: Option<(usize, usize)>,
}

/// The glTF accessor type and its component count.
#[derive(Clone, Copy)]
enum Kind {
    /// One component.
    Scalar,
    /// Two components.
    Vec2,
    /// Three components.
    Vec3,
    /// Four components.
    Vec4,
    /// Sixteen components, column-major.
    Mat4,
}

impl Kind {
    /// Components per element.
    fn components(self) -> usize {
        match self {
            Self::Scalar => 1,
            Self::Vec2 => 2,
            Self::Vec3 => 3,
            Self::Vec4 => 4,
            Self::Mat4 => 16,
        }
    }

    /// The glTF `type` string.
    fn name(self) -> &'static str {
        match self {
            Self::Scalar => "SCALAR",
            Self::Vec2 => "VEC2",
            Self::Vec3 => "VEC3",
            Self::Vec4 => "VEC4",
            Self::Mat4 => "MAT4",
        }
    }
}

impl Bin {
    /// Appends `bytes` as a new buffer view starting on a 4-byte boundary; returns its index.
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        self.align();
        let mut view = json!({
            "buffer": 0,
            "byteOffset": self.data.len(),
            "byteLength": bytes.len(),
        });
        if let (Some(target), Some(obj)) = (target, view.as_object_mut()) {
            obj.insert("target".into(), json!(target));
        }
        self.data.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    /// Pads the data with zeros to a multiple of 4 bytes.
    fn align(&mut self) {
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
    }

    /// Adds an accessor; returns its index.
    fn accessor(&mut self, view: usize, component_type: u32, count: usize, kind: Kind) -> usize {
        self.accessors.push(json!({
            "bufferView": view,
            "componentType": component_type,
            "count": count,
            "type": kind.name(),
        }));
        self.accessors.len() - 1
    }

    /// Adds f32 data as a view plus accessor, with per-component min/max when `bounds` is set.
    ///
    /// The caller guarantees `values` is non-empty and a multiple of the component count.
    fn floats(
        &mut self,
        values: &[f32],
        kind: Kind,
        target: Option<u32>,
        bounds: bool,
        what: impl Fn() -> String,
    ) -> Result<usize, SceneError> {
        let n = kind.components();
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, target);
        let index = self.accessor(view, FLOAT, values.len() / n, kind);
        if bounds {
            let mut min = vec![f32::INFINITY; n];
            let mut max = vec![f32::NEG_INFINITY; n];
            for element in values.chunks_exact(n) {
                for (k, &v) in element.iter().enumerate() {
                    min[k] = min[k].min(v);
                    max[k] = max[k].max(v);
                }
            }
            // min/max land in the JSON, so a NaN or infinity anywhere is an error.
            if values.iter().any(|v| !v.is_finite()) {
                return Err(write_err(format!("{} is not finite", what())));
            }
            if let Some(obj) = self.accessors.last_mut().and_then(Value::as_object_mut) {
                obj.insert("min".into(), json!(min));
                obj.insert("max".into(), json!(max));
            }
        }
        Ok(index)
    }

    /// A POSITION accessor of `count` zeros, for a morph target that moves nothing.
    fn zero_positions(&mut self, count: usize) -> usize {
        let bytes = count * 12;
        let view = match self.zeros {
            Some((view, len)) if len >= bytes => view,
            _ => {
                let view = self.view(&vec![0; bytes], Some(ARRAY_BUFFER));
                // Several accessors share this view, so the spec wants an explicit stride.
                if let Some(obj) = self.views.get_mut(view).and_then(Value::as_object_mut) {
                    obj.insert("byteStride".into(), json!(12));
                }
                self.zeros = Some((view, bytes));
                view
            }
        };
        let index = self.accessor(view, FLOAT, count, Kind::Vec3);
        if let Some(obj) = self.accessors.last_mut().and_then(Value::as_object_mut) {
            obj.insert("min".into(), json!([0.0, 0.0, 0.0]));
            obj.insert("max".into(), json!([0.0, 0.0, 0.0]));
        }
        index
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
        root.insert("bufferViews".into(), Value::Array(bin.views.clone()));
        root.insert("accessors".into(), Value::Array(bin.accessors.clone()));
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
    }
    Ok(Value::Object(obj))
}

/// One mesh's JSON, or `None` when it has no primitive glTF can hold.
fn mesh_json(
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
    let targets = drawable.first().map_or(0, |(_, p)| p.morph_targets);
    if drawable.iter().any(|(_, p)| p.morph_targets != targets) {
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
    if let Some(m) = prim.material {
        check_index(m, material_count, || what("material"))?;
        obj.insert("material".into(), json!(m));
    }
    if prim.morph_targets > 0 {
        // dqview keeps only the target count, so each target moves nothing.
        let targets: Vec<Value> = (0..prim.morph_targets)
            .map(|_| json!({ "POSITION": bin.zero_positions(n) }))
            .collect();
        obj.insert("targets".into(), Value::Array(targets));
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

/// Wraps JSON and binary data in the GLB container: header, JSON chunk, BIN chunk.
fn glb_container(mut json: Vec<u8>, mut bin: Vec<u8>) -> Result<Vec<u8>, SceneError> {
    // Chunks must be 4-byte aligned: JSON pads with spaces, BIN with zeros.
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let bin_chunk = if bin.is_empty() { 0 } else { 8 + bin.len() };
    let total = 12 + 8 + json.len() + bin_chunk;
    let as_u32 = |n: usize| {
        u32::try_from(n).map_err(|_| write_err(format!("GLB of {n} bytes exceeds 4 GiB")))
    };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&GLB_MAGIC.to_le_bytes());
    out.extend_from_slice(&GLB_VERSION.to_le_bytes());
    out.extend_from_slice(&as_u32(total)?.to_le_bytes());
    out.extend_from_slice(&as_u32(json.len())?.to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(&json);
    if !bin.is_empty() {
        out.extend_from_slice(&as_u32(bin.len())?.to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(&bin);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn empty_scene_is_a_json_only_glb() {
        let glb = write_glb(&Scene::default()).unwrap();
        assert_eq!(u32_at(&glb, 0), GLB_MAGIC);
        assert_eq!(u32_at(&glb, 4), 2);
        assert_eq!(u32_at(&glb, 8) as usize, glb.len());
        let json_len = u32_at(&glb, 12) as usize;
        assert_eq!(json_len % 4, 0);
        assert_eq!(20 + json_len, glb.len());
        let gltf = gltf::Gltf::from_slice(&glb).unwrap();
        assert!(gltf.blob.is_none());
        assert_eq!(gltf.scenes().count(), 0);
    }

    #[test]
    fn container_pads_json_with_spaces_and_bin_with_zeros() {
        let glb = glb_container(b"{}".to_vec(), vec![7]).unwrap();
        assert_eq!(&glb[20..24], b"{}  ");
        assert_eq!(u32_at(&glb, 24), 4);
        assert_eq!(u32_at(&glb, 28), CHUNK_BIN);
        assert_eq!(&glb[32..36], &[7, 0, 0, 0]);
        assert_eq!(glb.len(), 36);
    }

    #[test]
    fn views_start_on_four_byte_boundaries() {
        let mut bin = Bin::default();
        bin.view(&[1, 2, 3], None);
        bin.view(&[4, 5], None);
        assert_eq!(bin.views[1]["byteOffset"], json!(4));
        assert_eq!(bin.data.len(), 6);
    }

    #[test]
    fn non_finite_bounds_are_refused() {
        let mut bin = Bin::default();
        let r = bin.floats(&[0.0, f32::NAN, 1.0], Kind::Vec3, None, true, || "x".into());
        assert!(matches!(r, Err(SceneError::Write(_))));
    }
}
