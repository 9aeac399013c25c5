//! Meshes: one dqview mesh per FBX mesh instance, one primitive per material part.
//!
//! Vertices follow the FBX control points: a primitive's first vertices are its
//! control points in file order (every control point when the mesh has one
//! material), each with the normal and UV of its first polygon corner. Corners
//! whose normal or UV differ (seams, hard edges) get extra vertices after them.
//! So vertex `i < control points` of a one-material mesh is control point `i`,
//! which is how the authoring tools' OBJ exports number them.

use crate::scene::unplaced::{
    drop_elements_using, non_finite_vertices, twin_unplaced, unplaced_fault,
};
use std::collections::HashMap;

use glam::{Mat3, Mat4, Vec2, Vec3};

use super::blend::{self, MorphBinding, MorphBudget};
use super::convert;
use super::skin;
use crate::scene::gltf_load::smooth_normals;
use crate::scene::{Mesh, Primitive, Scene, SceneError};

/// Converts the mesh of every node that has one; sets the nodes' `mesh` and `skin`.
///
/// Returns, per node whose mesh has blend shapes, the channels its morph weights follow.
pub(super) fn load_meshes(
    fbx: &ufbx::Scene,
    index_of: &[Option<usize>],
    scene: &mut Scene,
    morph_budget: &mut MorphBudget,
    warnings: &mut Vec<String>,
) -> Result<Vec<MorphBinding>, SceneError> {
    let mut bindings = Vec::new();
    for node in &fbx.nodes {
        let Some(mesh) = &node.mesh else {
            continue;
        };
        let Some(n) = super::nodes::lookup(index_of, node.element.typed_id)? else {
            continue;
        };
        let here = format!(
            "mesh `{}` of node `{}`",
            mesh.element.name, node.element.name
        );
        let mesh_blend = blend::load_blend(mesh, &here, warnings);
        let mesh_skin = skin::load_skin(mesh, node, n, index_of, &here, warnings)?;
        let mut primitives = Vec::new();
        let parts: Vec<(Option<u32>, Vec<u32>)> = if mesh.material_parts.is_empty() {
            vec![(None, (0..mesh.num_faces as u32).collect())]
        } else {
            mesh.material_parts
                .iter()
                .map(|p| (Some(p.index), p.face_indices.to_vec()))
                .collect()
        };
        let whole_mesh = parts.len() == 1;
        for (slot, faces) in &parts {
            if faces.is_empty() {
                continue;
            }
            let material = slot.and_then(|s| material_of(node, mesh, s));
            let (mut prim, control_points, unplaced) =
                build_primitive(mesh, faces, whole_mesh, &here)?;
            prim.material = material;
            if let Some(b) = &mesh_blend {
                prim.morph_targets = b.targets(&control_points, morph_budget)?;
            }
            match &mesh_skin {
                Some(ms) => ms.attach(&mut prim, &control_points, &here, warnings),
                // Unskinned meshes carry their geometric transform in the positions.
                None if node.has_geometry_transform => {
                    apply_matrix(&mut prim, convert::mat4(&node.geometry_to_node));
                }
                None => {}
            }
            if !unplaced.vertices.is_empty() {
                // After the skin and morphs: a twin copies every attribute of its source.
                twin_unplaced(&mut prim, &unplaced.vertices);
                let place = format!("{here} primitive {}", primitives.len());
                let fault =
                    unplaced_fault(&place, &unplaced.vertices, unplaced.dropped, "triangles");
                scene.sanitized += fault.count;
                scene.faults.push(fault);
            }
            primitives.push(prim);
        }
        if primitives.is_empty() {
            warnings.push(format!("{here}: no polygons; not drawn"));
            continue;
        }
        let m = scene.meshes.len();
        scene.meshes.push(Mesh {
            name: if mesh.element.name.is_empty() {
                node.element.name.to_string()
            } else {
                mesh.element.name.to_string()
            },
            primitives,
            morph_weights: mesh_blend
                .as_ref()
                .map_or_else(Vec::new, blend::MeshBlend::default_weights),
        });
        if let Some(b) = &mesh_blend {
            bindings.push(MorphBinding {
                node: n,
                channels: b.channel_ids(),
                defaults: b.default_weights(),
            });
        }
        if let Some(ms) = mesh_skin {
            let s = scene.skins.len();
            scene.skins.push(ms.skin);
            if let Some(dst) = scene.nodes.get_mut(n) {
                dst.skin = Some(s);
            }
        }
        if let Some(dst) = scene.nodes.get_mut(n) {
            dst.mesh = Some(m);
        }
    }
    Ok(bindings)
}

/// The dqview material of material slot `slot` (per-instance materials first, as ufbx advises).
fn material_of(node: &ufbx::Node, mesh: &ufbx::Mesh, slot: u32) -> Option<usize> {
    let list = if node.materials.is_empty() {
        &mesh.materials
    } else {
        &node.materials
    };
    list.get(slot as usize).map(|m| m.element.typed_id as usize)
}

/// The vertices of a primitive whose file position is not a finite f32, and how many
/// triangles used them (dropped).
struct Unplaced {
    vertices: Vec<u32>,
    dropped: usize,
}

/// What makes two corners of one control point the same vertex: normal and UV bits.
type CornerKey = (u32, [u32; 5]);

/// Builds the primitive of the faces `faces` (see the module comment for the vertex order),
/// with the control point of each of its vertices.
fn build_primitive(
    mesh: &ufbx::Mesh,
    faces: &[u32],
    whole_mesh: bool,
    here: &str,
) -> Result<(Primitive, Vec<usize>, Unplaced), SceneError> {
    let control_points = mesh.vertices.len();
    let corner_point = |index: usize| -> Result<usize, SceneError> {
        mesh.vertex_indices
            .get(index)
            .map(|&v| v as usize)
            .filter(|&v| v < control_points)
            .ok_or_else(|| SceneError::Fbx(format!("{here}: corner {index} has no control point")))
    };
    // Corners of every face, triangulated, in polygon-index space.
    let mut corners: Vec<u32> = Vec::new();
    let mut tri = Vec::new();
    for &f in faces {
        let Some(&face) = mesh.faces.get(f as usize) else {
            return Err(SceneError::Fbx(format!("{here}: face {f} out of range")));
        };
        if face.num_indices < 3 {
            continue;
        }
        ufbx::triangulate_face_vec(&mut tri, mesh, face);
        corners.extend_from_slice(&tri);
    }
    // Control points in this primitive, in file order, then their local numbers.
    let mut local_of: Vec<Option<u32>> = vec![None; control_points];
    let mut used: Vec<usize> = if whole_mesh {
        (0..control_points).collect()
    } else {
        let mut seen = vec![false; control_points];
        for &c in &corners {
            seen[corner_point(c as usize)?] = true;
        }
        (0..control_points).filter(|&v| seen[v]).collect()
    };
    used.shrink_to_fit();
    for (local, &cp) in used.iter().enumerate() {
        local_of[cp] = Some(local as u32);
    }
    let normal_at = |i: usize| attribute3(&mesh.vertex_normal, i);
    let uv_at = |i: usize| attribute2(&mesh.vertex_uv, i);
    let mut positions: Vec<Vec3> = used
        .iter()
        .map(|&cp| {
            // As read: a position that is no finite f32 is unplaced below, not moved.
            mesh.vertices.get(cp).map_or(Vec3::ZERO, |&p| {
                Vec3::new(p.x as f32, p.y as f32, p.z as f32)
            })
        })
        .collect();
    let mut normals: Vec<Option<Vec3>> = vec![None; used.len()];
    let mut uvs: Vec<Vec2> = vec![Vec2::ZERO; used.len()];
    let mut first_key: Vec<Option<[u32; 5]>> = vec![None; used.len()];
    let mut control_point: Vec<usize> = used.clone();
    let mut extra: HashMap<CornerKey, u32> = HashMap::new();
    let mut indices = Vec::with_capacity(corners.len());
    for &c in &corners {
        let c = c as usize;
        let cp = corner_point(c)?;
        let Some(local) = local_of[cp] else {
            return Err(SceneError::Fbx(format!(
                "{here}: corner {c} outside its part"
            )));
        };
        let normal = normal_at(c);
        let uv = uv_at(c);
        let key = corner_key(normal, uv);
        let slot = local as usize;
        let vertex = match first_key[slot] {
            None => {
                first_key[slot] = Some(key);
                normals[slot] = normal;
                uvs[slot] = uv.unwrap_or(Vec2::ZERO);
                local
            }
            Some(k) if k == key => local,
            Some(_) => *extra.entry((local, key)).or_insert_with(|| {
                positions.push(positions[slot]);
                normals.push(normal);
                uvs.push(uv.unwrap_or(Vec2::ZERO));
                control_point.push(cp);
                (positions.len() - 1) as u32
            }),
        };
        indices.push(vertex);
    }
    if mesh.reversed_winding {
        for t in indices.chunks_exact_mut(3) {
            t.swap(1, 2);
        }
    }
    let unplaced = non_finite_vertices(&positions);
    for &v in &unplaced {
        // Held at the origin until twinned; no triangle uses them from here on.
        positions[v as usize] = Vec3::ZERO;
    }
    let dropped = drop_elements_using(&mut indices, 3, &unplaced);
    let smooth = smooth_normals(&positions, &indices);
    let normals = normals
        .into_iter()
        .zip(smooth)
        .map(|(n, s)| n.and_then(Vec3::try_normalize).unwrap_or(s))
        .collect();
    let prim = Primitive {
        positions,
        normals,
        // FBX stores V up from the bottom of the image; dqview samples from the top.
        uvs: mesh.vertex_uv.exists.then(|| {
            uvs.into_iter()
                .map(|uv| Vec2::new(uv.x, 1.0 - uv.y))
                .collect()
        }),
        indices,
        control_points: Some(control_point.iter().map(|&cp| cp as u32).collect()),
        ..Primitive::default()
    };
    let unplaced = Unplaced {
        vertices: unplaced,
        dropped,
    };
    Ok((prim, control_point, unplaced))
}

/// Normal and UV bit patterns of a corner (absent ones as all-ones).
fn corner_key(normal: Option<Vec3>, uv: Option<Vec2>) -> [u32; 5] {
    let n = normal.map_or([u32::MAX; 3], |n| n.to_array().map(f32::to_bits));
    let u = uv.map_or([u32::MAX; 2], |u| u.to_array().map(f32::to_bits));
    [n[0], n[1], n[2], u[0], u[1]]
}

/// The value of a per-corner vec3 attribute at corner `index`, if the file has it there.
fn attribute3(attr: &ufbx::VertexVec3, index: usize) -> Option<Vec3> {
    if !attr.exists {
        return None;
    }
    let i = *attr.indices.get(index)? as usize;
    attr.values.get(i).map(|&v| convert::vec3(v))
}

/// The value of a per-corner vec2 attribute at corner `index`, if the file has it there.
fn attribute2(attr: &ufbx::VertexVec2, index: usize) -> Option<Vec2> {
    if !attr.exists {
        return None;
    }
    let i = *attr.indices.get(index)? as usize;
    attr.values.get(i).map(|&v| convert::vec2(v))
}

/// Moves positions by `m` and normals by its inverse transpose; morph target
/// displacements by the same matrices without translation or renormalisation.
fn apply_matrix(prim: &mut Primitive, m: Mat4) {
    let linear = Mat3::from_mat4(m);
    let normal_matrix = linear.inverse().transpose();
    let normal_matrix = if normal_matrix.is_finite() {
        normal_matrix
    } else {
        Mat3::IDENTITY
    };
    for p in &mut prim.positions {
        *p = m.transform_point3(*p);
    }
    for n in &mut prim.normals {
        *n = (normal_matrix * *n).try_normalize().unwrap_or(*n);
    }
    for target in &mut prim.morph_targets {
        for d in &mut target.positions {
            *d = linear * *d;
        }
        for d in &mut target.normals {
            *d = normal_matrix * *d;
        }
    }
}
