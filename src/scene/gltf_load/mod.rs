//! glTF 2.0 loading: converts a `.gltf` or `.glb` file into a [`Scene`] once, at load time.
//!
//! The file is parsed without gltf's validation (a file that requires an extension dqview
//! does not read is refused by [`extensions`], one line naming it). In exchange every
//! reference, enum value and byte range is checked here before gltf resolves or
//! reads it: bad files give a [`SceneError`] naming the object, never a panic
//! or an allocation sized by an unchecked count.
//!
//! One job per file: [`source`] (container, buffers, URIs), [`repair`]
//! (second-chance JSON parsing), [`accessor`] (bounds checks), [`read`] (typed
//! reads), [`nodes`], [`mesh`], [`morph`], [`normals`], [`topology`], [`skin`],
//! [`colors`], [`material`], [`texture`], [`animation`], [`vrm`] (VRM's humanoid map and facing).

mod accessor;
mod animation;
mod colors;
mod constraint;
mod extensions;
mod material;
mod mesh;
mod morph;
mod nodes;
mod normals;
mod read;
mod repair;
mod skin;
mod source;
mod texture;
mod topology;
mod uv_transform;
mod vrm;

pub(super) use normals::smooth_normals;
pub(super) use source::{external_reason, percent_decode};
pub(super) use texture::decode_rgba8;

#[cfg(test)]
mod tests;

use std::path::Path;

use mesh::JointUse;
use source::Data;

use crate::scene::{LoadOptions, Mesh, Node, Scene, SceneError, Skin};

/// Loads a `.gltf` file (external buffers and images resolved next to it) or a `.glb` file.
///
/// Uses [`LoadOptions::DEFAULT`]: see [`load_gltf_path_with`].
pub fn load_gltf_path(path: &Path) -> Result<Scene, SceneError> {
    load_gltf_path_with(path, &LoadOptions::DEFAULT)
}

/// Loads a `.gltf` or `.glb` file within the limits and URI policy of `options`.
///
/// The path must name a regular file (links followed; a folder, FIFO or device is refused
/// before it is opened), of at most [`LoadOptions::max_buffer_bytes`] plus 256 MiB (its
/// JSON); it is not read past that. [`Scene::source`] is `path` as given.
pub fn load_gltf_path_with(path: &Path, options: &LoadOptions) -> Result<Scene, SceneError> {
    let max_file = options.max_buffer_bytes.saturating_add(FILE_JSON_ALLOWANCE);
    let bytes = crate::scene::read_model_file(path, max_file)?;
    let base_dir = path.parent().unwrap_or_else(|| Path::new("."));
    load_gltf_slice_with(&bytes, Some(base_dir), &path.display().to_string(), options)
}

/// Bytes a file may hold beyond [`LoadOptions::max_buffer_bytes`]: room for its JSON.
const FILE_JSON_ALLOWANCE: u64 = 256 << 20;

/// Loads glTF (JSON or GLB) from bytes with [`LoadOptions::DEFAULT`]; see [`load_gltf_slice_with`].
pub fn load_gltf_slice(
    bytes: &[u8],
    base_dir: Option<&Path>,
    source: &str,
) -> Result<Scene, SceneError> {
    load_gltf_slice_with(bytes, base_dir, source, &LoadOptions::DEFAULT)
}

/// Loads glTF (JSON or GLB) from bytes within the limits and URI policy of `options`.
///
/// Relative URIs are resolved against `base_dir`; with `None` they are an
/// error (data URIs and the GLB BIN chunk always work). `source` becomes
/// [`Scene::source`].
pub fn load_gltf_slice_with(
    bytes: &[u8],
    base_dir: Option<&Path>,
    source: &str,
    options: &LoadOptions,
) -> Result<Scene, SceneError> {
    let (gltf::Gltf { document, blob }, mut warnings) = source::parse(bytes)?;
    let notes = extensions::check(document.extensions_required(), document.extensions_used())?;
    let buffers = source::load_buffers(&document, blob, base_dir, options)?;
    let data = Data::new(&document, &buffers, base_dir, options);
    let nodes = nodes::load_nodes(&data, &mut warnings)?;
    let roots = nodes::roots(data.json, &nodes, &mut warnings)?;
    let (meshes, joint_uses) = mesh::load_meshes(&data, &mut warnings)?;
    let compression = data.compression_notes();
    let skins = skin::load_skins(&data)?;
    check_skinned_meshes(&nodes, &meshes, &skins, &joint_uses, &mut warnings)?;
    let (materials, textures) = material::load_materials(&data, &mut warnings)?;
    let animations = animation::load_animations(&data, &mut warnings)?;
    let (constraints, constraint_faults) = constraint::load_constraints(data.json, &nodes);
    let (source_info, humanoid, vrm_faults) = vrm::load_vrm(data.json, &nodes, &mut warnings);
    for fault in constraint_faults.into_iter().chain(vrm_faults) {
        data.fault(fault);
    }
    let scene = Scene {
        source: source.to_owned(),
        source_info,
        nodes,
        roots,
        meshes,
        skins,
        materials,
        textures,
        animations,
        constraints,
        humanoid,
        faults: data.faults.take(),
        warnings,
        notes,
        compression,
        sanitized: data.sanitized.get(),
    };
    crate::scene::check_ranges(&scene)?;
    Ok(scene)
}

/// Checks that every node's skin has a joint for each weighted joint index of the node's mesh.
fn check_skinned_meshes(
    nodes: &[Node],
    meshes: &[Mesh],
    skins: &[Skin],
    joint_uses: &[Vec<JointUse>],
    warnings: &mut Vec<String>,
) -> Result<(), SceneError> {
    for (n, node) in nodes.iter().enumerate() {
        let (Some(m), Some(s)) = (node.mesh, node.skin) else {
            continue;
        };
        let joints = skins.get(s).map_or(0, |skin| skin.joints.len());
        let uses = joint_uses.get(m).map_or(&[][..], Vec::as_slice);
        if let Some(bad) = uses.iter().find(|u| usize::from(u.max_joint) >= joints) {
            return Err(SceneError::JointIndexOutOfRange {
                mesh: m,
                primitive: bad.primitive,
                accessor: bad.accessor,
                joint: bad.max_joint,
                joints,
                skin: s,
                node: n,
            });
        }
        let unskinned = meshes
            .get(m)
            .is_some_and(|mesh| mesh.primitives.iter().all(|p| p.influences.is_none()));
        if unskinned {
            warnings.push(format!(
                "node {n} has skin {s} but mesh {m} has no JOINTS_0/WEIGHTS_0; drawn rigid"
            ));
        }
    }
    Ok(())
}
