//! Writing each skinned vertex's precomputed centre of rotation into a model's file, so CoR
//! skinning ships: `_COR_CENTER` (VEC3, in POSITION's space) amended into a glTF or GLB, a GLB
//! of the whole rig for FBX and built-in inputs, or a `.usda` layer with
//! `primvars:dqview:corCenter` over a USD input. `dqview cor` and the viewer's "Save CoR
//! centres" both write here, all files or none. An edge module, like `blend_file`.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::blend_file::{
    AmendOut, OutKind, Written, amend, fbx_note, primitive_values, sublayer_path, usd_point_count,
};
use crate::interrupt::Interrupt;
use crate::output_files::{InputKind, Staged, WriteReport, commit};
use crate::scene::{
    AmendTarget, COR_CENTER_ATTRIBUTE, COR_CENTER_SPEC, Scene, USD_COR_CENTER_PRIMVAR, UsdMeshCor,
    amend_attribute, usd_cor_layer, write_glb,
};
use crate::skin::SceneCenters;

/// `dqview cor`'s centres: they go into the model only.
const COR_CENTRES: Written = Written {
    noun: "centres",
    json: false,
};

/// The output kind of `out` for CoR centres: a `.glb`/`.vrm`, `.gltf` or `.usda`, checked
/// against the input's kind.
pub fn cor_out_kind(out: &Path, model: &str) -> Result<OutKind> {
    let kind = OutKind::of(out, None).map_err(|_| {
        anyhow::anyhow!(
            "--out must end in .glb, .vrm or .gltf (.usda for a USD input), got {}",
            out.display()
        )
    })?;
    if kind == OutKind::Json {
        bail!(
            "--out {}: the centres go into the model as `{COR_CENTER_ATTRIBUTE}`: use .glb, .vrm or .gltf (.usda for a USD input)",
            out.display()
        );
    }
    kind.check_input(InputKind::of(model), COR_CENTRES)?;
    Ok(kind)
}

/// Whether some primitive has centres to write.
#[must_use]
pub fn has_centers(centers: &SceneCenters) -> bool {
    centers
        .per_primitive
        .iter()
        .flatten()
        .any(|c| !c.is_empty())
}

/// Writes `scene` (opened from `model`) with `centers` to `out` as `kind` says, all files or none.
pub fn write_cor_centers(
    scene: &Scene,
    model: &str,
    out: &Path,
    kind: OutKind,
    centers: &SceneCenters,
    interrupt: &Interrupt,
) -> Result<WriteReport> {
    if !has_centers(centers) {
        bail!("{model} has no skinned primitives: no centres of rotation to write");
    }
    let mut staged = Vec::new();
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let input = InputKind::of(model);
    let values = primitive_values(&centers.per_primitive, |c: &Vec<glam::Vec3>| {
        bytemuck::cast_slice(c.as_slice())
    });
    match input {
        InputKind::Builtin | InputKind::Fbx => {
            let rig = write_glb(scene).context("cannot write the rig as GLB")?;
            let amended = amend_attribute(&rig, AmendTarget::Glb, COR_CENTER_SPEC, &values)?;
            if input == InputKind::Fbx {
                notes.push(fbx_note(scene, COR_CENTER_ATTRIBUTE));
            }
            staged.push(Staged::write(out, &amended.file)?);
        }
        InputKind::Usd => {
            let text = usd_layer(scene, model, out, centers, &mut warnings)?;
            notes.push(format!(
                "the layer sublayers {model} and adds `{USD_COR_CENTER_PRIMVAR}` per skinned mesh"
            ));
            staged.push(Staged::write(out, text.as_bytes())?);
        }
        InputKind::Glb | InputKind::Gltf => {
            crate::output_files::refuse_faulty_gltf(scene, model)?;
            let to = AmendOut {
                model,
                out,
                kind,
                spec: COR_CENTER_SPEC,
                bin_tag: "cor_center",
            };
            amend(&to, &values, &mut staged, &mut notes)?;
        }
    }
    let mut report = commit(staged, interrupt, notes)?;
    report.warnings = warnings;
    Ok(report)
}

/// The `.usda` layer over the USD input: the input as a sublayer, each skinned mesh's centres.
fn usd_layer(
    scene: &Scene,
    model: &str,
    out: &Path,
    centers: &SceneCenters,
    warnings: &mut Vec<String>,
) -> Result<String> {
    let Some(metadata) = &scene.source_info.usd_metadata else {
        bail!("{model}: a layer goes over a USD stage, and this is not one");
    };
    let (meta, dropped) = metadata.readable();
    warnings.extend(dropped);
    let mut meshes = Vec::new();
    for (m, prims) in centers.per_primitive.iter().enumerate() {
        let (Some(mesh), Some(c)) = (scene.meshes.get(m), prims.first()) else {
            continue;
        };
        let points = usd_point_count(mesh, c.len());
        if !c.is_empty() {
            meshes.push(UsdMeshCor {
                prim_path: &mesh.name,
                centers: bytemuck::cast_slice(&c[..points]),
            });
        }
    }
    Ok(usd_cor_layer(
        &sublayer_path(Path::new(model), out)?,
        &meta,
        &meshes,
    ))
}
