//! `Mesh` prims as dqview meshes: one vertex per point (so the point order is the first
//! vertices' order), more where face-varying normals or coordinates differ ([`primvars`]),
//! polygons fanned into triangles, display colour as the material.

use std::collections::HashMap;

use super::source::UsdStage;
use glam::{Vec2, Vec3, Vec4};

use super::{primvars, read};
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

/// One mesh prim's geometry: a single primitive (GeomSubsets are not split out), its
/// positions one per point, and the point of each vertex after the points, which
/// [`primvars::extend_points`] gives a position once the per-point binding is read.
pub(super) fn load_mesh(
    stage: &UsdStage,
    path: &str,
    budget: &mut MeshBudget,
    options: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<(Mesh, Vec<u32>), SceneError> {
    let positions = read::vec3s(read::value(stage, path, "points")?);
    budget.vertices(positions.len(), options)?;
    let counts = read::ints(read::value(stage, path, "faceVertexCounts")?);
    let corners = read::ints(read::value(stage, path, "faceVertexIndices")?);
    let left_handed =
        read::token(read::value(stage, path, "orientation")?).as_deref() == Some("leftHanded");
    let n = positions.len();
    if n.saturating_add(corners.len()) > u32::MAX as usize {
        return Err(SceneError::Usd(format!(
            "Mesh {path}: {n} points and {} corners, more than 2^32 vertices",
            corners.len()
        )));
    }
    let (corner_points, triangles) = triangulate(path, &counts, &corners, n, left_handed)?;
    let faces = primvars::Faces {
        counts: &counts,
        corners: corners.len(),
        points: n,
    };
    let normal_names = ["primvars:normals", "normals"];
    let normals = primvars::resolve(stage, path, &normal_names, &faces, read::vec3s, warnings)?;
    let uv_names = ["primvars:st", "primvars:UVMap"];
    let uvs = primvars::resolve(stage, path, &uv_names, &faces, read::vec2s, warnings)?;
    let split = primvars::split(&corner_points, n, normals, uvs);
    budget.vertices(split.extra.len(), options)?;
    let indices: Vec<u32> = triangles
        .iter()
        .map(|&c| split.vertex_of_corner[c as usize])
        .collect();
    let normals = match split.normals {
        Some(normals) => normals
            .into_iter()
            .map(|v| v.try_normalize().unwrap_or(Vec3::Y))
            .collect(),
        None => {
            // Smooth per point, so a vertex split for its coordinates keeps its point's normal.
            let by_point: Vec<u32> = triangles
                .iter()
                .map(|&c| corner_points[c as usize])
                .collect();
            let mut smooth = smooth_normals(&positions, &by_point);
            let repeated: Vec<Vec3> = split.extra.iter().map(|&p| smooth[p as usize]).collect();
            smooth.extend(repeated);
            smooth
        }
    };
    // USD's t runs up the image, glTF's v down it.
    let uvs = split
        .uvs
        .map(|uv| uv.into_iter().map(|p| Vec2::new(p.x, 1.0 - p.y)).collect());
    let dqs_blend = dqs_blend(stage, path, n)?;
    let mesh = Mesh {
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
    };
    Ok((mesh, split.extra))
}

/// The map `dqview blend` wrote in a layer over the file (one beta per point), when there is one.
pub(super) fn dqs_blend(
    stage: &UsdStage,
    path: &str,
    points: usize,
) -> Result<Option<Vec<f32>>, SceneError> {
    let betas = read::floats(read::value(stage, path, USD_DQS_BLEND_PRIMVAR)?);
    if betas.is_empty() {
        return Ok(None);
    }
    if betas.len() != points {
        return Err(SceneError::Usd(format!(
            "{path}: {USD_DQS_BLEND_PRIMVAR} has {} values for {points} points",
            betas.len()
        )));
    }
    Ok(Some(betas))
}

/// Polygons fanned into triangles: each corner's point (checked against the point count), and
/// the triangles as corner numbers.
fn triangulate(
    path: &str,
    counts: &[i32],
    corners: &[i32],
    points: usize,
    left_handed: bool,
) -> Result<(Vec<u32>, Vec<u32>), SceneError> {
    let mut corner_points = Vec::with_capacity(corners.len());
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
        for &c in face {
            match usize::try_from(c) {
                Ok(i) if i < points => corner_points.push(i as u32),
                _ => {
                    return Err(SceneError::Usd(format!(
                        "Mesh {path}: faceVertexIndices entry {c} is not one of its {points} points"
                    )));
                }
            }
        }
        // Corner numbers fit u32: the caller checked points + corners.
        let first = start as u32;
        for k in 1..n.saturating_sub(1) {
            let (a, b, c) = (first, first + k as u32, first + k as u32 + 1);
            if left_handed {
                out.extend([a, c, b]);
            } else {
                out.extend([a, b, c]);
            }
        }
        start += n;
    }
    Ok((corner_points, out))
}

/// The mesh's colour: its bound UsdPreviewSurface's `diffuseColor`, else `primvars:displayColor`.
pub(super) fn mesh_material(
    stage: &UsdStage,
    path: &str,
    materials: &mut Vec<Material>,
    by_color: &mut HashMap<[u32; 3], usize>,
) -> Result<Option<usize>, SceneError> {
    let mut color = None;
    if let Some(material) = read::inherited_target(stage, path, "material:binding")? {
        for child in stage.children(&material)? {
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
