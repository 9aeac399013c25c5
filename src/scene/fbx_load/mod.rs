//! FBX loading through ufbx: converts a `.fbx` file into a [`Scene`] once, at load time.
//!
//! The file keeps its own units and axes (no conversion is asked of ufbx), so
//! exports compare with the authoring tool's own output; [`Scene::source_info`]
//! records them. Non-standard FBX scale inheritance becomes ufbx scale helper
//! nodes, so every node is a plain TRS child of its parent as dqview's pose
//! code expects. Geometric transforms (3ds Max pivots) are folded into the skin
//! clusters' `geometry_to_bone` matrices by ufbx, and into the positions of
//! unskinned meshes here.
//!
//! One job per file: [`convert`] (ufbx values to glam), [`nodes`], [`mesh`],
//! [`blend`] (blend shapes as morph targets), [`skin`], [`material`], [`anim`].
//! ufbx checks the file's structure; any failure is a [`SceneError::Fbx`],
//! never a panic.

mod anim;
mod blend;
mod convert;
mod material;
mod mesh;
mod nodes;
mod skin;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::scene::{LoadOptions, Scene, SceneError, SourceInfo};

/// Loads an `.fbx` file (binary or ASCII) within the limits and URI policy of `options`.
///
/// Texture files are looked up next to the file. The path must name a regular file of at most
/// [`LoadOptions::max_buffer_bytes`] (see [`crate::scene::read_model_file`]). [`Scene::source`] is `path` as given.
pub fn load_fbx_path_with(path: &Path, options: &LoadOptions) -> Result<Scene, SceneError> {
    let bytes = crate::scene::read_model_file(path, options.max_buffer_bytes)?;
    let base_dir = path.parent().unwrap_or_else(|| Path::new("."));
    load_fbx_slice_with(&bytes, Some(base_dir), &path.display().to_string(), options)
}

/// The least memory each of ufbx's allocators gets, whatever `max_buffer_bytes` says: parsing
/// has a fixed cost of its own (the 585 KB barbarian needs about 3 MB), and a byte limit set to
/// check dqview's own buffers (a few KB in tests) must not refuse the parse first.
pub const MIN_PARSE_MEMORY: u64 = 16 << 20;

/// Loads FBX from bytes within the limits and URI policy of `options`.
///
/// Relative texture paths are resolved against `base_dir`; with `None` only
/// textures embedded in the file load. `source` becomes [`Scene::source`].
pub fn load_fbx_slice_with(
    bytes: &[u8],
    base_dir: Option<&Path>,
    source: &str,
    options: &LoadOptions,
) -> Result<Scene, SceneError> {
    let limit = options.max_buffer_bytes.max(MIN_PARSE_MEMORY);
    let memory_limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let opts = ufbx::LoadOpts {
        // Keep what the file says: no unit or axis conversion, no geometry changes.
        inherit_mode_handling: ufbx::InheritModeHandling::HelperNodes,
        geometry_transform_handling: ufbx::GeometryTransformHandling::Preserve,
        generate_missing_normals: true,
        load_external_files: false,
        // ufbx checks each request against these before allocating, so a count a damaged
        // file inflates (one 7.7 GB array block) fails cleanly instead of being allocated.
        temp_allocator: memory_budget(memory_limit),
        result_allocator: memory_budget(memory_limit),
        ..Default::default()
    };
    let fbx = ufbx::load_memory(bytes, opts).map_err(|e| match e.type_ {
        ufbx::ErrorType::MemoryLimit => SceneError::MemoryLimit {
            limit,
            reason: error_text(&e),
        },
        _ => SceneError::Fbx(error_text(&e)),
    })?;
    check_limits(&fbx, options)?;
    let mut warnings: Vec<String> = fbx
        .metadata
        .warnings
        .iter()
        .map(|w| format!("ufbx: {}", w.description))
        .collect();
    let nodes = nodes::load_nodes(&fbx)?;
    let (materials, textures) = material::load_materials(&fbx, base_dir, options, &mut warnings);
    let mut scene = Scene {
        source: source.to_owned(),
        source_info: source_info(&fbx),
        roots: nodes.roots,
        nodes: nodes.nodes,
        materials,
        textures,
        ..Scene::default()
    };
    let mut morph_budget = blend::MorphBudget::new(options.max_buffer_bytes);
    let morphs = mesh::load_meshes(
        &fbx,
        &nodes.index_of,
        &mut scene,
        &mut morph_budget,
        &mut warnings,
    )?;
    scene.animations = anim::load_animations(&fbx, &nodes.index_of, &morphs, &mut warnings)?;
    scene.warnings = warnings;
    crate::scene::check_ranges(&scene)?;
    Ok(scene)
}

/// ufbx allocator options that fail the load once `limit` bytes are in use (0 means no limit to ufbx).
fn memory_budget(limit: usize) -> ufbx::AllocatorOpts {
    ufbx::AllocatorOpts {
        memory_limit: limit.max(1),
        ..Default::default()
    }
}

/// ufbx's formatted error (description, details and where in the file), on one line.
fn error_text(e: &ufbx::Error) -> String {
    // `Error::info` unwraps UTF-8 decoding; the formatted message is decoded lossily instead.
    let mut buf = vec![0u8; 2048];
    let len = ufbx::format_error(&mut buf, e).min(buf.len());
    let text = String::from_utf8_lossy(buf.get(..len).unwrap_or(&[]));
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        e.description.to_string()
    } else {
        lines.join("; ")
    }
}

/// Refuses files whose vertex or joint counts exceed `options`.
fn check_limits(fbx: &ufbx::Scene, options: &LoadOptions) -> Result<(), SceneError> {
    let vertices: u64 = fbx.meshes.iter().map(|m| m.num_vertices as u64).sum();
    if vertices > options.max_vertices {
        return Err(SceneError::LimitExceeded {
            what: "vertices",
            found: vertices,
            limit: options.max_vertices,
            flag: "--max-vertices",
            field: "max_vertices",
        });
    }
    let joints = fbx.skin_clusters.len() as u64;
    if joints > options.max_joints {
        return Err(SceneError::LimitExceeded {
            what: "joints",
            found: joints,
            limit: options.max_joints,
            flag: "--max-joints",
            field: "max_joints",
        });
    }
    Ok(())
}

/// Format, creator, units, axes and frame rate as the file states them.
fn source_info(fbx: &ufbx::Scene) -> SourceInfo {
    let meta = &fbx.metadata;
    let encoding = if meta.ascii { "ASCII" } else { "binary" };
    let settings = &fbx.settings;
    let creator = meta.creator.to_string();
    let unit = settings.unit_meters as f32;
    let fps = settings.frames_per_second as f32;
    SourceInfo {
        format: format!("FBX {} {encoding}", meta.version),
        creator: (!creator.is_empty()).then_some(creator),
        unit_meters: if unit.is_finite() && unit > 0.0 {
            unit
        } else {
            1.0
        },
        up_axis: convert::axis_name(settings.axes.up),
        front_axis: convert::axis_name(settings.axes.front),
        right_axis: convert::axis_name(settings.axes.right),
        frames_per_second: (fps.is_finite() && fps > 0.0).then_some(fps),
        usd_metadata: None,
    }
}
