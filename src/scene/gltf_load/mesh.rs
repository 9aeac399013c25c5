//! Meshes: triangle primitives with positions, normals, tangents, UVs, indices and joint influences.

use glam::{Vec2, Vec3, Vec4};
use gltf::json::mesh::Primitive as JsonPrimitive;
use gltf::json::validation::Checked;
use gltf::mesh::{Mode, Semantic};

use super::accessor::{self, Format, Valid};
use super::colors::load_colors;
use super::morph::load_targets;
use super::normals::{repair_normals, smooth_normals};
use super::source::{Compression, DRACO_EXTENSION, Data, meshopt_extension};
use super::topology::triangle_list;
use super::uv_transform::{UvSource, apply_transform};
use crate::influences::Influences;
use crate::scene::{DataFault, FaultKind, Mesh, Primitive, SceneError};

/// The largest weighted joint index of one JOINTS_n accessor, checked against skins once nodes are known.
#[derive(Clone, Copy, Debug)]
pub(super) struct JointUse {
    /// Primitive index within the mesh, as in the file.
    pub primitive: usize,
    /// The JOINTS_n accessor.
    pub accessor: usize,
    /// Largest joint index with a positive weight.
    pub max_joint: u16,
}

/// Converts every mesh; returns the meshes and, per mesh, the joint indices its primitives use.
pub(super) fn load_meshes(
    data: &Data<'_>,
    warnings: &mut Vec<String>,
) -> Result<(Vec<Mesh>, Vec<Vec<JointUse>>), SceneError> {
    let mut meshes = Vec::with_capacity(data.json.meshes.len());
    let mut joint_uses = Vec::with_capacity(data.json.meshes.len());
    for (m, mesh) in data.json.meshes.iter().enumerate() {
        let mut primitives = Vec::with_capacity(mesh.primitives.len());
        let mut uses = Vec::new();
        let compression = mesh
            .primitives
            .iter()
            .fold(Compression::default(), |c, prim| {
                c.union(compression_of(data, prim))
            });
        if compression != Compression::default() {
            let name = mesh.name.clone().unwrap_or_else(|| format!("mesh {m}"));
            data.compression.borrow_mut().push((m, name, compression));
        }
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if let Some((primitive, prim_uses)) = load_primitive(data, m, p, prim, warnings)? {
                primitives.push(primitive);
                uses.extend(prim_uses);
            }
        }
        let names = target_names(mesh);
        for prim in &mut primitives {
            for (target, name) in prim.morph_targets.iter_mut().zip(&names) {
                target.name.clone_from(name);
            }
        }
        let targets = morph_target_count(mesh);
        let morph_weights = match &mesh.weights {
            Some(w) => {
                if w.len() != targets {
                    warnings.push(format!(
                        "mesh {m}: {} default morph weights for {targets} morph targets",
                        w.len()
                    ));
                }
                let bad = w.iter().filter(|x| !x.is_finite()).count();
                if bad > 0 {
                    let first = w.iter().position(|x| !x.is_finite());
                    let kind = FaultKind::NonFiniteMorphWeights;
                    data.fault(DataFault::new(
                        kind,
                        format!("mesh {m}"),
                        bad,
                        first,
                        "set to 0",
                    ));
                }
                w.iter()
                    .map(|&x| if x.is_finite() { x } else { 0.0 })
                    .collect()
            }
            None => vec![0.0; targets],
        };
        meshes.push(Mesh {
            name: mesh.name.clone().unwrap_or_else(|| format!("mesh {m}")),
            primitives,
            morph_weights,
        });
        joint_uses.push(uses);
    }
    Ok((meshes, joint_uses))
}

/// How a primitive's geometry is stored: Draco, meshopt views, integer (quantised) attributes.
fn compression_of(data: &Data<'_>, prim: &JsonPrimitive) -> Compression {
    let json = data.json;
    let accessor = |i: usize| json.accessors.get(i);
    let meshopt_view = |i: usize| {
        accessor(i)
            .and_then(|a| a.buffer_view)
            .and_then(|v| json.buffer_views.get(v.value()))
            .and_then(|v| v.extensions.as_ref())
            .is_some_and(|e| meshopt_extension(&e.others).is_some())
    };
    let used = prim
        .attributes
        .values()
        .map(|i| i.value())
        .chain(prim.indices.map(|i| i.value()));
    let quantized = prim.attributes.iter().any(|(semantic, i)| {
        let geometry = matches!(
            semantic,
            Checked::Valid(
                Semantic::Positions
                    | Semantic::Normals
                    | Semantic::Tangents
                    | Semantic::TexCoords(_)
            )
        );
        let integer = accessor(i.value()).is_some_and(|a| {
            !matches!(&a.component_type, Checked::Valid(c) if c.0 == gltf::accessor::DataType::F32)
        });
        geometry && integer
    });
    Compression {
        draco: prim
            .extensions
            .as_ref()
            .is_some_and(|e| e.others.contains_key(DRACO_EXTENSION)),
        meshopt: used.into_iter().any(meshopt_view),
        quantized,
    }
}

/// Target names from `extras.targetNames` (a convention of Blender's and three.js's exporters), or none.
fn target_names(mesh: &gltf::json::Mesh) -> Vec<String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Extras {
        target_names: Vec<String>,
    }
    mesh.extras
        .as_ref()
        .and_then(|raw| serde_json::from_str::<Extras>(raw.get()).ok())
        .map(|e| e.target_names)
        .unwrap_or_default()
}

/// Morph targets of a mesh (glTF requires every primitive to have the same number; the largest is taken).
pub(super) fn morph_target_count(mesh: &gltf::json::Mesh) -> usize {
    mesh.primitives
        .iter()
        .map(|p| p.targets.as_ref().map_or(0, Vec::len))
        .max()
        .unwrap_or(0)
}

/// Converts one primitive, or returns `None` (with a warning) for one that is not drawn.
fn load_primitive(
    data: &Data<'_>,
    m: usize,
    p: usize,
    prim: &JsonPrimitive,
    warnings: &mut Vec<String>,
) -> Result<Option<(Primitive, Vec<JointUse>)>, SceneError> {
    let here = format!("mesh {m} primitive {p}");
    let Checked::Valid(mode) = prim.mode else {
        return Err(SceneError::UnknownEnumValue {
            referrer: here,
            field: "mode",
        });
    };
    if matches!(
        mode,
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
    ) {
        warnings.push(format!(
            "{here}: {mode:?} primitives are not drawn; dropped"
        ));
        return Ok(None);
    }
    let Some(position) = prim.attributes.get(&Checked::Valid(Semantic::Positions)) else {
        warnings.push(format!("{here}: no POSITION attribute; dropped"));
        return Ok(None);
    };
    let position = position.value();
    let acc = data.accessor(position, &accessor::POSITIONS, &|| {
        format!("POSITION of {here}")
    })?;
    data.charge_vertices(acc.count as u64)?;
    let mut positions: Vec<Vec3> = data
        .read_floats(&acc)?
        .into_iter()
        .map(Vec3::from_array)
        .collect();
    let vertices = positions.len();
    // Held at the origin until the end, where they become twins of finite vertices; no
    // element uses them from here on, so normals and measures never see them.
    let unplaced = crate::scene::unplaced::non_finite_vertices(&positions);
    for &v in &unplaced {
        positions[v as usize] = Vec3::ZERO;
    }
    let mut indices = load_indices(data, m, p, prim, mode, vertices, warnings)?;
    let dropped = crate::scene::unplaced::drop_elements_using(&mut indices, 3, &unplaced);
    let attribute = |semantic: Semantic, format: &Format| {
        vertex_attribute(data, m, p, prim, vertices, semantic, format)
    };

    let normals = match attribute(Semantic::Normals, &accessor::NORMALS)? {
        Some(acc) => {
            let mut normals: Vec<Vec3> = data
                .read_floats(&acc)?
                .into_iter()
                .map(Vec3::from_array)
                .collect();
            let (non_finite, first) = tally_non_finite(&normals);
            let repaired = repair_normals(&mut normals, &positions, &indices);
            if non_finite > 0 {
                let kind = FaultKind::NonFiniteNormals;
                let action = "recomputed smooth from the triangles";
                data.fault(DataFault::new(kind, &here, non_finite, first, action));
            }
            if repaired > non_finite {
                data.count_sanitized(repaired - non_finite);
                warnings.push(format!(
                    "{here}: {} normals were zero; recomputed",
                    repaired - non_finite
                ));
            }
            normals
        }
        None => smooth_normals(&positions, &indices),
    };
    let tangents = match attribute(Semantic::Tangents, &accessor::TANGENTS)? {
        Some(acc) => {
            let mut tangents: Vec<Vec4> = data
                .read_floats(&acc)?
                .into_iter()
                .map(Vec4::from_array)
                .collect();
            let (bad, first) = tally_non_finite(&tangents);
            replace_non_finite(&mut tangents, Vec4::X);
            if bad > 0 {
                let kind = FaultKind::NonFiniteTangents;
                data.fault(DataFault::new(kind, &here, bad, first, "set to +X"));
            }
            Some(tangents)
        }
        None => None,
    };
    // The set the base colour texture reads (TEXCOORD_1 included), with its transform baked in.
    let uv_source = UvSource::of(data.json, prim.material.map(|i| i.value()));
    let uv_accessor = match attribute(Semantic::TexCoords(uv_source.set), &accessor::TEX_COORDS)? {
        None if uv_source.set != 0 => {
            warnings.push(format!(
                "{here}: the base colour texture reads TEXCOORD_{}, which is missing; TEXCOORD_0 used",
                uv_source.set
            ));
            attribute(Semantic::TexCoords(0), &accessor::TEX_COORDS)?
        }
        other => other,
    };
    let uvs = match uv_accessor {
        Some(acc) => {
            let mut uvs: Vec<Vec2> = data
                .read_floats(&acc)?
                .into_iter()
                .map(Vec2::from_array)
                .collect();
            let (bad, first) = tally_non_finite(&uvs);
            replace_non_finite(&mut uvs, Vec2::ZERO);
            if bad > 0 {
                let kind = FaultKind::NonFiniteTexCoords;
                data.fault(DataFault::new(kind, &here, bad, first, "set to 0"));
            }
            if let Some(transform) = uv_source.transform
                && !apply_transform(&mut uvs, transform)
            {
                data.count_sanitized(1);
                warnings.push(format!(
                    "{here}: KHR_texture_transform has non-finite numbers; ignored"
                ));
            }
            Some(uvs)
        }
        None => None,
    };
    let colors = load_colors(data, (m, p), prim, vertices, warnings)?;
    // dqview's own hybrid attribute: per-vertex beta, clamped; NaN counts as DQS like elsewhere.
    let dqs_blend = match attribute(Semantic::Extras("DQS_BLEND".into()), &accessor::SCALAR_F32)? {
        Some(acc) => Some(
            data.read::<f32>(&acc)?
                .into_iter()
                .map(|b| if b.is_nan() { 1.0 } else { b.clamp(0.0, 1.0) })
                .collect(),
        ),
        None => None,
    };
    let morph_targets = match &prim.targets {
        Some(targets) => match load_targets(data, m, p, targets, vertices) {
            Ok(targets) => targets,
            // Limits still refuse the file; a broken target only loses the morphs.
            Err(e @ SceneError::LimitExceeded { .. }) => return Err(e),
            Err(e) => {
                warnings.push(format!("{here}: morph targets dropped: {e}"));
                Vec::new()
            }
        },
        None => Vec::new(),
    };
    let (influences, joint_uses) = load_influences(data, m, p, prim, vertices, warnings)?;
    let material = match prim.material.map(|i| i.value()) {
        Some(i) if i >= data.json.materials.len() => {
            return Err(SceneError::IndexOutOfRange {
                referrer: format!("{here} (material)"),
                kind: "material",
                index: i,
                count: data.json.materials.len(),
            });
        }
        other => other,
    };
    let mut primitive = Primitive {
        positions,
        normals,
        tangents,
        uvs,
        colors,
        dqs_blend,
        indices,
        topology: crate::scene::Topology::Triangles,
        influences,
        material,
        morph_targets,
        skinning_method: None,
        control_points: None,
    };
    if !unplaced.is_empty() {
        crate::scene::unplaced::twin_unplaced(&mut primitive, &unplaced);
        let element = "triangles";
        data.fault(crate::scene::unplaced::unplaced_fault(
            &here, &unplaced, dropped, element,
        ));
    }
    Ok(Some((primitive, joint_uses)))
}

/// How many of `values` have a non-finite component, and the first index of one.
fn tally_non_finite<V: NonFinite>(values: &[V]) -> (usize, Option<usize>) {
    let first = values.iter().position(|v| !v.all_finite());
    let count = first.map_or(0, |f| {
        values[f..].iter().filter(|v| !v.all_finite()).count()
    });
    (count, first)
}

/// Replaces every non-finite vector by `fallback`; returns how many changed.
fn replace_non_finite<V: Copy + NonFinite>(values: &mut [V], fallback: V) -> usize {
    let mut changed = 0;
    for v in values.iter_mut().filter(|v| !v.all_finite()) {
        *v = fallback;
        changed += 1;
    }
    changed
}

/// Vectors that can say whether every component is finite.
trait NonFinite {
    /// Whether every component is finite.
    fn all_finite(&self) -> bool;
}

impl NonFinite for Vec2 {
    fn all_finite(&self) -> bool {
        self.is_finite()
    }
}

impl NonFinite for Vec4 {
    fn all_finite(&self) -> bool {
        self.is_finite()
    }
}

impl NonFinite for Vec3 {
    fn all_finite(&self) -> bool {
        self.is_finite()
    }
}

/// Reads (or generates) indices, checks them against the vertex count and makes a triangle list.
fn load_indices(
    data: &Data<'_>,
    m: usize,
    p: usize,
    prim: &JsonPrimitive,
    mode: Mode,
    vertices: usize,
    warnings: &mut Vec<String>,
) -> Result<Vec<u32>, SceneError> {
    let mut indices = match prim.indices.map(|i| i.value()) {
        Some(index) => {
            let acc = data.accessor(index, &accessor::INDICES, &|| {
                format!("indices of mesh {m} primitive {p}")
            })?;
            let indices = data.read_indices(&acc)?;
            if let Some(&bad) = indices.iter().find(|&&i| i as usize >= vertices) {
                return Err(SceneError::VertexIndexOutOfRange {
                    mesh: m,
                    primitive: p,
                    accessor: index,
                    index: bad,
                    vertices,
                });
            }
            indices
        }
        None => {
            let count = u32::try_from(vertices).map_err(|_| {
                SceneError::Invalid(format!(
                    "mesh {m} primitive {p}: too many vertices ({vertices})"
                ))
            })?;
            (0..count).collect()
        }
    };
    if mode == Mode::Triangles && !indices.len().is_multiple_of(3) {
        warnings.push(format!(
            "mesh {m} primitive {p}: {} indices is not a whole number of triangles; the last {} dropped",
            indices.len(),
            indices.len() % 3
        ));
        indices.truncate(indices.len() - indices.len() % 3);
    }
    Ok(triangle_list(mode, indices))
}

/// Checks the accessor of a per-vertex attribute, if present: its format and its count.
pub(super) fn vertex_attribute<'a>(
    data: &Data<'a>,
    m: usize,
    p: usize,
    prim: &JsonPrimitive,
    vertices: usize,
    semantic: Semantic,
    format: &Format,
) -> Result<Option<Valid<'a>>, SceneError> {
    let name = semantic.to_string();
    let Some(index) = prim.attributes.get(&Checked::Valid(semantic)) else {
        return Ok(None);
    };
    let acc = data.accessor(index.value(), format, &|| {
        format!("{name} of mesh {m} primitive {p}")
    })?;
    if acc.count != vertices {
        return Err(SceneError::AttributeCountMismatch {
            mesh: m,
            primitive: p,
            attribute: name,
            accessor: acc.index,
            count: acc.count,
            vertices,
        });
    }
    Ok(Some(acc))
}

/// Reads every JOINTS_n/WEIGHTS_n pair (n = 0, 1, ... while both exist) into sorted, normalised influences.
fn load_influences(
    data: &Data<'_>,
    m: usize,
    p: usize,
    prim: &JsonPrimitive,
    vertices: usize,
    warnings: &mut Vec<String>,
) -> Result<(Option<Influences>, Vec<JointUse>), SceneError> {
    let mut sets = Vec::new();
    let mut uses = Vec::new();
    // Each set needs its own attribute keys, so this ends after at most `attributes.len()` rounds.
    for set in 0u32.. {
        let joints = vertex_attribute(
            data,
            m,
            p,
            prim,
            vertices,
            Semantic::Joints(set),
            &accessor::JOINTS,
        )?;
        let weights = vertex_attribute(
            data,
            m,
            p,
            prim,
            vertices,
            Semantic::Weights(set),
            &accessor::WEIGHTS,
        )?;
        let (joints_acc, weights_acc) = match (joints, weights) {
            (Some(j), Some(w)) => (j, w),
            (None, None) => break,
            _ => {
                warnings.push(format!(
                    "mesh {m} primitive {p}: JOINTS_{set} and WEIGHTS_{set} do not come as a pair; sets from {set} on ignored"
                ));
                break;
            }
        };
        let joints = data.read_joints(&joints_acc)?;
        let weights = data.read_weights(&weights_acc)?;
        let max_joint = joints
            .iter()
            .zip(&weights)
            .flat_map(|(j, w)| j.iter().zip(w))
            // The same test `Influences` keeps a weight by: lighter ones are dropped, not errors.
            .filter(|(_, w)| w.is_finite() && **w >= crate::influences::MIN_WEIGHT)
            .map(|(j, _)| *j)
            .max();
        if let Some(max_joint) = max_joint {
            uses.push(JointUse {
                primitive: p,
                accessor: joints_acc.index,
                max_joint,
            });
        }
        sets.push((joints, weights));
    }
    if sets.is_empty() {
        return Ok((None, uses));
    }
    let influences = Influences::from_sets(&sets).ok_or_else(|| {
        SceneError::Invalid(format!(
            "mesh {m} primitive {p}: JOINTS/WEIGHTS sets differ in length"
        ))
    })?;
    let (non_finite, first) = influences.non_finite_weights();
    if non_finite > 0 {
        let kind = FaultKind::NonFiniteWeights;
        let place = format!("mesh {m} primitive {p}");
        let first = first.map(|v| v as usize);
        let action = "ignored (counted as 0; the vertex's other weights renormalised)";
        data.fault(DataFault::new(kind, place, non_finite, first, action));
    }
    let negative = influences.invalid_weights() - non_finite;
    if negative > 0 {
        data.count_sanitized(negative);
        warnings.push(format!(
            "mesh {m} primitive {p}: {negative} weights were negative; ignored"
        ));
    }
    if influences.unweighted_vertices() > 0 {
        warnings.push(format!(
            "mesh {m} primitive {p}: {} vertices have no positive weight; they stay in bind pose",
            influences.unweighted_vertices()
        ));
    }
    Ok((Some(influences), uses))
}

#[cfg(test)]
mod tests {
    use super::super::source::{self, Data};
    use crate::scene::LoadOptions;

    #[test]
    fn integer_positions_are_noted_as_quantized() {
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},
            "buffers":[{{"uri":"data:application/octet-stream;base64,{}","byteLength":24}}],
            "bufferViews":[{{"buffer":0,"byteLength":24}}],
            "accessors":[{{"bufferView":0,"componentType":5122,"normalized":true,"count":3,"type":"VEC3"}}],
            "meshes":[{{"name":"tri","primitives":[{{"attributes":{{"POSITION":0}}}}]}},
                      {{"primitives":[{{"attributes":{{}}}}]}}]}}"#,
            "A".repeat(32)
        );
        let (gltf, _) = source::parse(json.as_bytes()).unwrap();
        let options = LoadOptions::DEFAULT;
        let buffers = source::load_buffers(&gltf.document, None, None, &options).unwrap();
        let data = Data::new(&gltf.document, &buffers, None, &options);
        let mut warnings = Vec::new();
        super::load_meshes(&data, &mut warnings).unwrap();
        assert_eq!(data.compression_notes(), [r#"mesh 0 "tri": quantized"#]);
    }
}
