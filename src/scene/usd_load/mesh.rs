//! `Mesh` prims as dqview meshes: points kept one vertex per point (so the point order is
//! the vertex order), polygons fanned into triangles, display colour as the material.

use std::collections::HashMap;

use glam::{Vec2, Vec3, Vec4};
use openusd::usd::Stage;

use super::read;
use crate::scene::gltf_load::smooth_normals;
use crate::scene::{LoadOptions, Material, Mesh, Primitive, SceneError, USD_DQS_BLEND_PRIMVAR};

/// Bytes of vertex and blend shape data decoded so far, against `--max-buffer-bytes`,
/// and vertices against `--max-vertices`.
pub(super) struct MeshBudget {
    vertices: u64,
    bytes: u64,
}

impl MeshBudget {
    /// Nothing decoded yet.
    pub fn new() -> Self {
        Self {
            vertices: 0,
            bytes: 0,
        }
    }

    /// Counts `n` more vertices.
    pub fn vertices(&mut self, n: usize, options: &LoadOptions) -> Result<(), SceneError> {
        self.vertices += n as u64;
        if self.vertices > options.max_vertices {
            return Err(SceneError::LimitExceeded {
                what: "vertices",
                found: self.vertices,
                limit: options.max_vertices,
                flag: "--max-vertices",
                field: "max_vertices",
            });
        }
        self.bytes(n as u64 * 64, options)
    }

    /// Counts `n` more bytes of decoded data.
    pub fn bytes(&mut self, n: u64, options: &LoadOptions) -> Result<(), SceneError> {
        self.bytes += n;
        if self.bytes > options.max_buffer_bytes {
            return Err(SceneError::LimitExceeded {
                what: "bytes of decoded vertex and blend shape data",
                found: self.bytes,
                limit: options.max_buffer_bytes,
                flag: "--max-buffer-bytes",
                field: "max_buffer_bytes",
            });
        }
        Ok(())
    }
}

/// One mesh prim's geometry: a single primitive (GeomSubsets are not split out).
pub(super) fn load_mesh(
    stage: &Stage,
    path: &str,
    budget: &mut MeshBudget,
    options: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<Mesh, SceneError> {
    let positions = read::vec3s(read::value(stage, path, "points")?);
    budget.vertices(positions.len(), options)?;
    let counts = read::ints(read::value(stage, path, "faceVertexCounts")?);
    let corners = read::ints(read::value(stage, path, "faceVertexIndices")?);
    let left_handed =
        read::token(read::value(stage, path, "orientation")?).as_deref() == Some("leftHanded");
    let indices = triangulate(path, &counts, &corners, positions.len(), left_handed)?;
    let normals = vertex_primvar(stage, path, &["primvars:normals", "normals"], warnings)?
        .map(|v| read::vec3s(Some(v)))
        .filter(|n| n.len() == positions.len())
        .map(|n| {
            n.into_iter()
                .map(|v| v.try_normalize().unwrap_or(Vec3::Y))
                .collect()
        })
        .unwrap_or_else(|| smooth_normals(&positions, &indices));
    let uvs = vertex_primvar(stage, path, &["primvars:st", "primvars:UVMap"], warnings)?
        .map(|v| read::vec2s(Some(v)))
        .filter(|uv| uv.len() == positions.len())
        // USD's t runs up the image, glTF's v down it.
        .map(|uv| uv.into_iter().map(|p| Vec2::new(p.x, 1.0 - p.y)).collect());
    // A map `dqview blend` wrote in a layer over the file (one beta per point).
    let dqs_blend = Some(read::floats(read::value(
        stage,
        path,
        USD_DQS_BLEND_PRIMVAR,
    )?))
    .filter(|b| !b.is_empty());
    if let Some(b) = &dqs_blend
        && b.len() != positions.len()
    {
        return Err(SceneError::Usd(format!(
            "Mesh {path}: {USD_DQS_BLEND_PRIMVAR} has {} values for {} points",
            b.len(),
            positions.len()
        )));
    }
    Ok(Mesh {
        name: path.to_owned(),
        primitives: vec![Primitive {
            positions,
            normals,
            uvs,
            indices,
            dqs_blend,
            ..Primitive::default()
        }],
        morph_weights: Vec::new(),
    })
}

/// Polygons fanned into triangles, every index checked against the point count.
fn triangulate(
    path: &str,
    counts: &[i32],
    corners: &[i32],
    points: usize,
    left_handed: bool,
) -> Result<Vec<u32>, SceneError> {
    let mut out = Vec::with_capacity(corners.len().saturating_mul(2));
    let mut start = 0usize;
    for &count in counts {
        let n = usize::try_from(count).map_err(|_| {
            SceneError::Usd(format!(
                "Mesh {path}: negative faceVertexCounts entry {count}"
            ))
        })?;
        let face = corners.get(start..start.saturating_add(n)).ok_or_else(|| {
            SceneError::Usd(format!(
                "Mesh {path}: faceVertexCounts sum past the {} faceVertexIndices",
                corners.len()
            ))
        })?;
        start += n;
        let mut ids = Vec::with_capacity(n);
        for &c in face {
            match usize::try_from(c) {
                Ok(i) if i < points => ids.push(i as u32),
                _ => {
                    return Err(SceneError::Usd(format!(
                        "Mesh {path}: faceVertexIndices entry {c} is not one of its {points} points"
                    )));
                }
            }
        }
        for k in 1..n.saturating_sub(1) {
            let (a, b, c) = (ids[0], ids[k], ids[k + 1]);
            if left_handed {
                out.extend([a, c, b]);
            } else {
                out.extend([a, b, c]);
            }
        }
    }
    Ok(out)
}

/// The first of `names` authored with vertex (or varying) interpolation; a face-varying one is
/// noted in a warning, since dqview keeps one vertex per point.
fn vertex_primvar(
    stage: &Stage,
    path: &str,
    names: &[&str],
    warnings: &mut Vec<String>,
) -> Result<Option<openusd::sdf::Value>, SceneError> {
    for name in names {
        let Some(value) = read::value(stage, path, name)? else {
            continue;
        };
        let interpolation =
            read::token(read::metadata(stage, path, name, "interpolation")?).unwrap_or_default();
        let indexed = read::value(stage, path, &format!("{name}:indices"))?.is_some();
        if matches!(interpolation.as_str(), "vertex" | "varying" | "") && !indexed {
            return Ok(Some(value));
        }
        warnings.push(format!(
            "Mesh {path}: {name} is {}{interpolation}; dqview keeps one vertex per point, so it is not used",
            if indexed { "indexed " } else { "" }
        ));
    }
    Ok(None)
}

/// The mesh's colour: its bound UsdPreviewSurface's `diffuseColor`, else `primvars:displayColor`.
pub(super) fn mesh_material(
    stage: &Stage,
    path: &str,
    materials: &mut Vec<Material>,
    by_color: &mut HashMap<[u32; 3], usize>,
) -> Result<Option<usize>, SceneError> {
    let mut color = None;
    if let Some(material) = read::inherited_target(stage, path, "material:binding")? {
        let prim = stage.prim(material.as_str());
        let children = prim
            .children()
            .map_err(|e| read::usd_error(&material, &e))?;
        for child in children {
            let child = child.path().as_str().to_owned();
            if read::token(read::value(stage, &child, "info:id")?).as_deref()
                == Some("UsdPreviewSurface")
            {
                color = read::color(read::value(stage, &child, "inputs:diffuseColor")?);
                break;
            }
        }
    }
    if color.is_none() {
        color = read::color(read::value(stage, path, "primvars:displayColor")?);
    }
    let Some(c) = color.filter(|c| c.is_finite()) else {
        return Ok(None);
    };
    let key = c.to_array().map(f32::to_bits);
    let next = materials.len();
    let index = *by_color.entry(key).or_insert(next);
    if index == next {
        materials.push(Material {
            name: format!("displayColor {:.3} {:.3} {:.3}", c.x, c.y, c.z),
            base_color_factor: Vec4::new(c.x, c.y, c.z, 1.0),
            ..Material::default()
        });
    }
    Ok(Some(index))
}
