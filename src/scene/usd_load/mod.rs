//! OpenUSD loading through the `openusd` crate (0.6, pure Rust): `.usda`, `.usdc` and `.usdz`,
//! composed (sublayers, references, payloads, variants), converted into a [`Scene`] once.
//!
//! UsdSkel maps onto dqview's glTF-style skins: each `Skeleton` prim's joints become nodes
//! under the Skeleton's node with `restTransforms` as their rest pose; each skinned mesh
//! gets its own skin whose inverse bind matrices are `inverse(bindTransforms[j]) *
//! geomBindTransform`, so dqview's `global(joint) * inverse_bind` is Pixar's
//! `inverse(bind_j) · skelSpace_j` times the Skeleton's local-to-world, and the mesh's own
//! transform is ignored, as in UsdSkel. The stage's timeline is one clip: the bound
//! SkelAnimations, blend shape weights and time-sampled `xformOp`s, key times `code /
//! timeCodesPerSecond`. The stage keeps its own `upAxis` and `metersPerUnit` (reported in
//! [`Scene::source_info`]); nothing is converted.
//!
//! One job per file: [`read`] (values), [`nodes`] (prims and transforms), [`skel`]
//! (skeletons and animation), [`mesh`] (geometry, colour), [`curves`] (curves and points),
//! [`binding`] (skin bindings, blend shapes), [`inbetween`], [`primvars`] (face-varying
//! values), [`not_read`] (the notes), [`traverse`] (the prims visited). Failures are a one-line
//! [`SceneError::Usd`], never a panic. Every load runs on a thread whose stack holds
//! [`USD_MAX_NESTING`] levels of nesting ([`load_thread`]), and every layer the stage opens goes
//! through [`guard`] first, which refuses bytes that would make the crate allocate more than
//! they hold, or recurse deeper than that ([`crate_check`]).

mod binding;
mod crate_check;
mod curves;
mod flat;
#[cfg(test)]
mod flat_parity;
mod guard;
mod inbetween;
mod load_thread;
mod mesh;
mod nodes;
mod not_read;
mod primvars;
mod read;
mod sanitize;
mod skel;
mod source;
mod text_numbers;
mod time_faults;
mod traverse;
mod xform_ops;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use openusd::usd::Stage;
use source::UsdStage;
use traverse::PrimPath;

use crate::scene::{Animation, LoadOptions, Scene, SceneError, SourceInfo};

pub use load_thread::USD_MAX_NESTING;

/// File extensions the USD loader opens (`.usd` may be text or crate).
pub const USD_EXTENSIONS: &[&str] = &["usd", "usda", "usdc", "usdz"];

/// Whether `path` names a USD file by its extension.
#[must_use]
pub fn is_usd_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| USD_EXTENSIONS.iter().any(|u| e.eq_ignore_ascii_case(u)))
}

/// Loads a USD stage (`.usd`, `.usda`, `.usdc`, `.usdz`) within the limits of `options`.
///
/// Composition arcs resolve relative to the file; one that cannot be resolved is an error
/// naming it. [`Scene::source`] is `path` as given.
pub fn load_usd_path_with(path: &Path, options: &LoadOptions) -> Result<Scene, SceneError> {
    let io_error = |source: std::io::Error| SceneError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io_error)?;
    // The crate opens the path itself: refuse a FIFO, folder or device before it does.
    if let Some(kind) = crate::scene::file_read::NotAFile::of(&meta) {
        return Err(SceneError::NotAFile {
            path: path.to_owned(),
            kind,
        });
    }
    if meta.len() > options.max_buffer_bytes {
        return Err(SceneError::LimitExceeded {
            what: "bytes in the file",
            found: meta.len(),
            limit: options.max_buffer_bytes,
            flag: "--max-buffer-bytes",
            field: "max_buffer_bytes",
        });
    }
    let name = path
        .to_str()
        .ok_or_else(|| SceneError::Usd(format!("{}: the path is not UTF-8", path.display())))?;
    // On a thread of its own: the text parser recurses per nesting level (load_thread.rs), and
    // the crate is young, so a damaged file that trips one of its assertions is an error.
    load_thread::on_load_thread(|| {
        let stage = UsdStage::new(open_stage(name, options.max_buffer_bytes)?);
        convert(&stage, &path.display().to_string(), options)
    })
}

/// Opens the stage at `name` through [`guard::GuardedResolver`]: each layer at most `max_bytes`
/// bytes and checked before the crate parses it.
fn open_stage(name: &str, max_bytes: u64) -> Result<Stage, SceneError> {
    Stage::builder()
        .resolver(guard::GuardedResolver::new(max_bytes))
        .open(name)
        .map_err(|e| read::usd_error("cannot open the stage", &e))
}

/// The composed stage as a scene.
fn convert(stage: &UsdStage, source: &str, options: &LoadOptions) -> Result<Scene, SceneError> {
    let mut warnings = Vec::new();
    let paths = traverse::prim_paths(stage)?;
    let mut nodes = nodes::load_nodes(stage, &paths)?;
    composition_errors(stage)?;
    let skeletons = skel::load_skeletons(stage, &mut nodes, options, &mut warnings)?;
    let mut scene = Scene {
        source: source.to_owned(),
        source_info: source_info(stage, source),
        ..Scene::default()
    };
    load_meshes(
        stage,
        &mut nodes,
        &skeletons,
        &mut scene,
        options,
        &mut warnings,
    )?;
    let tcps = time_faults::usable_time_codes_per_second(stage);
    let channels: Vec<_> = std::mem::take(&mut nodes.channels)
        .into_iter()
        .map(|c| c.into_channel(tcps))
        .collect();
    if !channels.is_empty() {
        let animations: Vec<&str> = skeletons
            .iter()
            .filter_map(|s| s.animation.as_deref())
            .collect();
        let name = match animations.as_slice() {
            [one] => (*one).to_owned(),
            _ => String::from("stage"),
        };
        scene.animations.push(Animation { name, channels });
    }
    composition_errors(stage)?;
    scene.nodes = nodes.nodes;
    scene.roots = nodes.roots;
    scene.warnings = warnings;
    scene.faults = time_faults::time_faults(stage);
    scene
        .faults
        .extend(skeletons.iter().flat_map(|s| s.faults.iter().cloned()));
    scene.notes.extend(not_read::notes(stage, &paths)?);
    scene.sanitized = sanitize::sanitize(&mut scene);
    crate::scene::check_ranges(&scene)?;
    Ok(scene)
}

/// Every Mesh, BasisCurves and Points prim's geometry, colour, skin and blend shapes.
fn load_meshes(
    stage: &UsdStage,
    nodes: &mut nodes::StageNodes,
    skeletons: &[skel::SkelInfo],
    scene: &mut Scene,
    options: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<(), SceneError> {
    let mut budget = mesh::MeshBudget::new();
    let mut by_color = HashMap::new();
    let skel_roots: HashSet<PrimPath> = nodes
        .prims
        .iter()
        .filter(|p| p.type_name == "SkelRoot")
        .map(|p| p.path.clone())
        .collect();
    let is_skel_root = |p: &str| skel_roots.contains(p);
    let meshes: Vec<(usize, PrimPath, String)> = nodes
        .prims
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.type_name == "Mesh" || curves::POINT_BASED.contains(&p.type_name.as_str())
        })
        .map(|(i, p)| (i, p.path.clone(), p.type_name.clone()))
        .collect();
    for (node, path, type_name) in meshes {
        let (mut mesh, extra) = if type_name == "Mesh" {
            mesh::load_mesh(stage, &path, &mut budget, options, warnings)?
        } else {
            let limits = (&mut budget, options);
            let mesh = curves::load_point_based(stage, &path, &type_name, limits)?;
            (mesh, Vec::new())
        };
        let material = mesh::mesh_material(stage, &path, &mut scene.materials, &mut by_color)?;
        let points = mesh.primitives.first().map_or(0, |p| p.positions.len());
        if let Some(chain) = binding::skel_root_chain(&path, &is_skel_root) {
            let points = (points, &extra[..]);
            let bound =
                binding::load_binding(stage, &path, chain.clone(), skeletons, points, warnings)?;
            if let Some((skel, bound)) = bound {
                let channel = binding::load_blend_shapes(
                    stage,
                    &path,
                    chain,
                    (node, &mut mesh),
                    &skeletons[skel],
                    (&mut budget, options),
                    warnings,
                )?;
                nodes.channels.extend(channel);
                if let Some(prim) = mesh.primitives.first_mut() {
                    prim.influences = Some(bound.influences);
                    prim.skinning_method = bound.method;
                }
                nodes.nodes[node].skin = Some(scene.skins.len());
                scene.skins.push(bound.skin);
            }
        } else if read::inherited_target(stage, &path, "skel:skeleton")?.is_some() {
            warnings.push(format!(
                "Mesh {path}: bound to a skeleton outside any SkelRoot; not skinned (UsdSkel skins only inside a SkelRoot)"
            ));
        }
        for prim in &mut mesh.primitives {
            primvars::extend_points(prim, &extra);
            prim.material = material;
        }
        nodes.nodes[node].mesh = Some(scene.meshes.len());
        scene.meshes.push(mesh);
    }
    Ok(())
}

/// Refuses a stage whose composition left an arc unresolved (a missing reference, payload or sublayer).
fn composition_errors(stage: &UsdStage) -> Result<(), SceneError> {
    match stage.composition_errors().first() {
        Some(e) => Err(SceneError::Usd(format!("composition failed: {e}"))),
        None => Ok(()),
    }
}

/// Format, up axis, units and frame rate as the stage states them.
fn source_info(stage: &UsdStage, source: &str) -> SourceInfo {
    let metadata = stage_metadata(stage);
    let meters = metadata
        .meters_per_unit
        .filter(|m| m.is_finite() && *m > 0.0)
        // UsdGeom's fallback: centimetres.
        .unwrap_or(0.01);
    let extension = Path::new(source)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("usd")
        .to_ascii_lowercase();
    let tcps = stage.time_codes_per_second();
    let (up_axis, front_axis) = if metadata.up_axis.as_deref() == Some("Z") {
        ("+Z", "-Y")
    } else {
        ("+Y", "+Z")
    };
    SourceInfo {
        format: format!("USD ({extension})"),
        creator: None,
        unit_meters: meters as f32,
        up_axis,
        front_axis,
        right_axis: "+X",
        frames_per_second: (tcps.is_finite() && tcps > 0.0).then_some(tcps as f32),
        usd_metadata: Some(metadata),
    }
}

/// The stage metadata that a layer over the stage must repeat.
fn stage_metadata(stage: &UsdStage) -> crate::scene::UsdStageMetadata {
    let number = |key: &str| read::stage_number(stage, key);
    crate::scene::UsdStageMetadata {
        default_prim: stage.default_prim().map(|t| t.as_str().to_owned()),
        up_axis: stage
            .stage_metadata("upAxis")
            .ok()
            .flatten()
            .and_then(|v| read::token(Some(v))),
        meters_per_unit: number("metersPerUnit"),
        time_codes_per_second: number("timeCodesPerSecond"),
        frames_per_second: number("framesPerSecond"),
        start_time_code: number("startTimeCode"),
        end_time_code: number("endTimeCode"),
    }
}
