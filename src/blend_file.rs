//! Writing a DQS blend map into a model's file: the amended glTF, a GLB of the whole rig, or
//! the map alone as JSON. `dqview blend` and the viewer's "Save blend map" both write here,
//! all files or none ([`crate::output_files`]). An edge module (anyhow errors), like
//! `report`: the CLI and the viewer call it, nothing below them does.

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

use crate::interrupt::Interrupt;
use crate::output_files::{InputKind, Staged, WriteReport, commit, copy_external_files, folder_of};
use crate::scene::{
    AmendTarget, AttributeSpec, DQS_BLEND_ATTRIBUTE, DQS_BLEND_SPEC, DQS_METHOD_MEAN_BETA,
    PrimitiveValues, Scene, USD_DQS_BLEND_PRIMVAR, UsdMeshBlend, amend_attribute,
    file_primitive_indices, usd_blend_layer, write_glb,
};
use crate::skin::{NEGLIGIBLE_GAP_RELATIVE, SceneBetas};

/// Where a map comes from and goes to.
#[derive(Clone, Copy, Debug)]
pub struct MapSource<'a> {
    /// The model as opened: a path or `builtin:NAME`.
    pub model: &'a str,
    /// The file to write.
    pub out: &'a Path,
    /// Poses the map was fitted over (0 for a painted map), for the JSON.
    pub poses: usize,
    /// Smoothing iterations after the fit, for the JSON.
    pub smooth: usize,
}

/// What `--out` (and `--format`) ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutKind {
    /// The map alone as JSON.
    Json,
    /// A `.glb`.
    Glb,
    /// A `.gltf`.
    Gltf,
    /// A `.usda` layer over a USD input.
    Usda,
}

/// What a command writes into a model, for its messages: what it calls the values, and whether
/// they may go alone into a `.json`.
#[derive(Clone, Copy, Debug)]
pub struct Written {
    /// "map", "centres".
    pub noun: &'static str,
    /// Whether `--out FILE.json` writes the values alone.
    pub json: bool,
}

/// `dqview blend`'s map: a `.json` holds it alone.
pub const BLEND_MAP: Written = Written {
    noun: "map",
    json: true,
};

impl Written {
    /// `alt` (", or --out FILE.json for the map alone"-style tail, given the whole text) where
    /// the values may go alone into a `.json`, else nothing.
    fn or_json(self, alt: &str) -> String {
        if self.json {
            alt.replace("NOUN", self.noun)
        } else {
            String::new()
        }
    }
}

impl OutKind {
    /// The output kind from the extension of `out`, checked against `--format`.
    pub fn of(out: &Path, format: Option<&str>) -> Result<Self> {
        let ext = out
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        let kind = match ext.as_str() {
            "json" => Self::Json,
            // A .vrm is a GLB with VRM's extensions, which amending keeps.
            "glb" | "vrm" => Self::Glb,
            "gltf" => Self::Gltf,
            "usda" => Self::Usda,
            _ => bail!(
                "--out must end in .glb, .vrm, .gltf or .json (.usda for a USD input), got {}",
                out.display()
            ),
        };
        match format.map(str::to_ascii_lowercase).as_deref() {
            None => {}
            Some("json") if kind != Self::Json => {
                bail!(
                    "--format json writes the map as JSON: --out must end in .json, got {}",
                    out.display()
                )
            }
            Some("gltf") if kind == Self::Json => {
                bail!("--format gltf writes a .glb or .gltf: --out ends in .json")
            }
            Some("json" | "gltf") => {}
            Some(other) => bail!("unknown --format `{other}` (valid: gltf, json)"),
        }
        Ok(kind)
    }

    /// Refuses combinations that cannot be written (the amend keeps the input's container),
    /// saying what `written` allows.
    pub fn check_input(self, input: InputKind, written: Written) -> Result<()> {
        let noun = written.noun;
        let alone = written.or_json(", or --out FILE.json for the NOUN alone");
        match (self, input) {
            (Self::Gltf, InputKind::Glb) => bail!(
                "the input is a .glb: the output amends it, so --out must end in .glb{}",
                written.or_json(" (or .json for the NOUN alone)")
            ),
            (Self::Glb, InputKind::Gltf) => bail!(
                "the input is a .gltf: the output amends it, so --out must end in .gltf{}",
                written.or_json(" (or .json for the NOUN alone)")
            ),
            (Self::Usda, i) if i != InputKind::Usd => bail!(
                "--out .usda writes a layer over a USD input; this input is not USD: use .glb{}",
                if written.json {
                    ", .gltf or .json"
                } else {
                    " or .gltf"
                }
            ),
            (Self::Glb | Self::Gltf, InputKind::Usd) => {
                bail!("a USD input gets the {noun} as a layer over it: use --out FILE.usda{alone}")
            }
            (Self::Gltf, InputKind::Fbx | InputKind::Builtin) => bail!(
                "{} input is written as a .glb of the whole rig with the {noun}: use --out FILE.glb{alone}",
                if input == InputKind::Fbx {
                    "an FBX"
                } else {
                    "a built-in rig"
                }
            ),
            _ => Ok(()),
        }
    }
}

/// Writes the fitted map as `kind` says, all files or none.
pub fn write_output(
    scene: &Scene,
    source: &MapSource<'_>,
    kind: OutKind,
    betas: &SceneBetas,
    interrupt: &Interrupt,
) -> Result<WriteReport> {
    let mut staged = Vec::new();
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let input = InputKind::of(source.model);
    match (kind, input) {
        (OutKind::Json, _) => {
            let map = map_json(scene, source, betas, input)?;
            let mut text = serde_json::to_vec_pretty(&map)?;
            text.push(b'\n');
            staged.push(Staged::write(source.out, &text)?);
        }
        (_, InputKind::Builtin | InputKind::Fbx) => {
            let mut rig = scene.clone();
            for (m, prims) in betas.per_primitive.iter().enumerate() {
                for (p, betas) in prims.iter().enumerate() {
                    if let Some(prim) = rig.meshes.get_mut(m).and_then(|x| x.primitives.get_mut(p))
                        && !betas.is_empty()
                    {
                        prim.dqs_blend = Some(betas.clone());
                    }
                }
            }
            let bytes = write_glb(&rig).context("cannot write the rig as GLB")?;
            if input == InputKind::Fbx {
                notes.push(fbx_note(scene, DQS_BLEND_ATTRIBUTE));
            }
            staged.push(Staged::write(source.out, &bytes)?);
        }
        (_, InputKind::Usd) => {
            let text = usd_layer(scene, source, betas, &mut warnings)?;
            notes.push(format!(
                "the layer sublayers {} and adds `{USD_DQS_BLEND_PRIMVAR}` per skinned mesh; skinningMethod = dualQuaternion where a mesh's mean beta is {DQS_METHOD_MEAN_BETA} or more",
                source.model
            ));
            staged.push(Staged::write(source.out, text.as_bytes())?);
        }
        (_, InputKind::Glb | InputKind::Gltf) => {
            crate::output_files::refuse_faulty_gltf(scene, source.model)?;
            let values = primitive_values(&betas.per_primitive, |b: &Vec<f32>| b.as_slice());
            let target = AmendOut {
                model: source.model,
                out: source.out,
                kind,
                spec: DQS_BLEND_SPEC,
                bin_tag: "dqs_blend",
            };
            amend(&target, &values, &mut staged, &mut notes)?;
        }
    }
    let mut report = commit(staged, interrupt, notes)?;
    report.warnings = warnings;
    Ok(report)
}

/// What a GLB written from an FBX file does not carry (`attribute`: what it adds).
pub(crate) fn fbx_note(scene: &Scene, attribute: &str) -> String {
    let info = &scene.source_info;
    format!(
        "the GLB is the rig as dqview loaded the FBX: its units and axes are kept (1 unit = {} m, {}), not converted to glTF's metres and +Y up; \
         cameras, lights, constraints, in-between shapes, texture sets other than the base colour's and the FBX SkinningType are not in it (the values are `{attribute}`)",
        info.unit_meters,
        info.axes_text()
    )
}

/// Where an attribute is amended into: the input, the output and its kind, the attribute,
/// and the tag of a new `.bin` (`STEM.TAG.bin`).
pub(crate) struct AmendOut<'a> {
    /// The input glTF or GLB path.
    pub model: &'a str,
    /// The file to write.
    pub out: &'a Path,
    /// `.glb` or `.gltf`.
    pub kind: OutKind,
    /// The attribute written.
    pub spec: AttributeSpec,
    /// The new `.bin`'s middle name.
    pub bin_tag: &'a str,
}

/// Per non-empty primitive of `per_primitive[mesh][primitive]`, its values as floats.
pub(crate) fn primitive_values<'a, T>(
    per_primitive: &'a [Vec<T>],
    floats: impl Fn(&'a T) -> &'a [f32],
) -> Vec<PrimitiveValues<'a>> {
    let mut out = Vec::new();
    for (m, prims) in per_primitive.iter().enumerate() {
        for (p, values) in prims.iter().enumerate() {
            let values = floats(values);
            if !values.is_empty() {
                out.push(PrimitiveValues {
                    mesh: m,
                    primitive: p,
                    values,
                });
            }
        }
    }
    out
}

/// Amends the input glTF or GLB: the main file, a `.bin` for `.gltf`, copies of its external files.
pub(crate) fn amend(
    to: &AmendOut<'_>,
    values: &[PrimitiveValues<'_>],
    staged: &mut Vec<Staged>,
    notes: &mut Vec<String>,
) -> Result<()> {
    let in_path = Path::new(to.model);
    let input = std::fs::read(in_path).with_context(|| format!("cannot read {}", to.model))?;
    let out_dir = folder_of(to.out);
    let stem = to
        .out
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| anyhow!("--out {} has no UTF-8 file name", to.out.display()))?;
    let mut attempt = 0;
    let amended = loop {
        let bin_name = match attempt {
            0 => format!("{stem}.{}.bin", to.bin_tag),
            n => format!("{stem}.{}.{n}.bin", to.bin_tag),
        };
        let target = match to.kind {
            OutKind::Glb => AmendTarget::Glb,
            _ => AmendTarget::Gltf {
                bin_name: &bin_name,
            },
        };
        let amended = amend_attribute(&input, target, to.spec, values)?;
        // The input may already use that name (run on its own output): pick another.
        let taken = amended
            .external_files
            .iter()
            .any(|f| f.relative_path.as_deref() == Some(bin_name.as_str()));
        if to.kind == OutKind::Glb || !taken || attempt >= 1000 {
            break amended;
        }
        attempt += 1;
    };
    if let Some((name, bytes)) = &amended.bin {
        staged.push(Staged::write(&to.out.with_file_name(name), bytes)?);
    }
    copy_external_files(
        &folder_of(in_path),
        &out_dir,
        &amended.external_files,
        staged,
        notes,
    )?;
    let name = to.spec.name;
    for (m, p) in &amended.overwritten {
        notes.push(format!(
            "mesh {m} primitive {p} had a `{name}` attribute: its values were replaced in place"
        ));
    }
    for (m, p) in &amended.replaced {
        notes.push(format!(
            "mesh {m} primitive {p} had a `{name}` attribute: it now points at the new accessor (the old one stays in the file, unused)"
        ));
    }
    staged.push(Staged::write(to.out, &amended.file)?);
    Ok(())
}

/// The map alone: per skinned primitive, one beta per vertex in the file's order (and per FBX control point).
fn map_json(
    scene: &Scene,
    source: &MapSource<'_>,
    betas: &SceneBetas,
    input: InputKind,
) -> Result<Value> {
    let file_prims = match input {
        InputKind::Glb | InputKind::Gltf => {
            let bytes = std::fs::read(source.model)
                .with_context(|| format!("cannot read {}", source.model))?;
            Some(file_primitive_indices(&bytes)?)
        }
        InputKind::Fbx | InputKind::Builtin | InputKind::Usd => None,
    };
    let mut meshes = Vec::new();
    for (m, prims) in betas.per_primitive.iter().enumerate() {
        let Some(mesh) = scene.meshes.get(m) else {
            continue;
        };
        let mut primitives = Vec::new();
        for (p, betas) in prims.iter().enumerate().filter(|(_, b)| !b.is_empty()) {
            let mut entry = json!({ "primitive": p });
            if let Some(f) = file_prims.as_ref().and_then(|f| f.get(m)?.get(p)) {
                entry["file_primitive"] = json!(f);
            }
            entry["vertices"] = json!(betas.len());
            entry["betas"] = json!(betas);
            primitives.push(entry);
        }
        if primitives.is_empty() {
            continue;
        }
        let mut entry = json!({ "mesh": m, "name": mesh.name, "primitives": primitives });
        if let Some(points) = control_point_betas(scene, m, prims) {
            entry["control_points"] = json!(points);
        }
        meshes.push(entry);
    }
    Ok(json!({
        "dqview_blend_map": 1,
        "source": source.model,
        "attribute": DQS_BLEND_ATTRIBUTE,
        "formula": "beta = clamp(sum_t (q - l) . (c - l) / sum_t |q - l|^2, 0, 1); l, q, c: LBS, DQS, CoR positions at pose t",
        "negligible_gap_relative": NEGLIGIBLE_GAP_RELATIVE,
        "poses": source.poses,
        "smooth_iterations": source.smooth,
        "meshes": meshes,
    }))
}

/// FBX: per control point of mesh `m`, the mean beta of its vertices (`None` where no vertex has one).
fn control_point_betas(scene: &Scene, m: usize, prims: &[Vec<f32>]) -> Option<Vec<Option<f32>>> {
    let mesh = scene.meshes.get(m)?;
    let mut sums: Vec<(f64, u32)> = Vec::new();
    let mut any = false;
    for (prim, betas) in mesh.primitives.iter().zip(prims) {
        let Some(points) = &prim.control_points else {
            continue;
        };
        any = true;
        for (&cp, &b) in points.iter().zip(betas) {
            let cp = cp as usize;
            if sums.len() <= cp {
                sums.resize(cp + 1, (0.0, 0));
            }
            sums[cp].0 += f64::from(b);
            sums[cp].1 += 1;
        }
    }
    any.then(|| {
        sums.iter()
            .map(|&(s, n)| (n > 0).then(|| (s / f64::from(n)) as f32))
            .collect()
    })
}

/// The `.usda` layer over the USD input: its stage metadata, the input as a sublayer, the maps.
/// Metadata that would make the layer unreadable is left out, with a line in `warnings`.
fn usd_layer(
    scene: &Scene,
    source: &MapSource<'_>,
    betas: &SceneBetas,
    warnings: &mut Vec<String>,
) -> Result<String> {
    let Some(metadata) = &scene.source_info.usd_metadata else {
        bail!(
            "{}: a layer goes over a USD stage, and this is not one",
            source.model
        );
    };
    let (meta, dropped) = metadata.readable();
    warnings.extend(dropped);
    let mut meshes = Vec::new();
    for (m, prims) in betas.per_primitive.iter().enumerate() {
        let (Some(mesh), Some(b)) = (scene.meshes.get(m), prims.first()) else {
            continue;
        };
        let points = usd_point_count(mesh, b.len());
        if !b.is_empty() {
            // The USD loader names each mesh by its prim path.
            meshes.push(UsdMeshBlend {
                prim_path: &mesh.name,
                betas: &b[..points],
            });
        }
    }
    Ok(usd_blend_layer(
        &sublayer_path(Path::new(source.model), source.out)?,
        &meta,
        &meshes,
    ))
}

/// How many of a USD mesh's `values` (one per vertex) are its points': the USD loader puts the
/// vertices split for face-varying values after the points, and those repeat their point's.
pub(crate) fn usd_point_count(mesh: &crate::scene::Mesh, values: usize) -> usize {
    mesh.primitives
        .first()
        .and_then(|p| p.control_points.as_ref())
        .and_then(|c| c.iter().max())
        .map_or(values, |&last| (last as usize + 1).min(values))
}

/// The input as an asset path from the output's folder: relative where both lie under one
/// folder, else absolute.
pub(crate) fn sublayer_path(input: &Path, out: &Path) -> Result<String> {
    let input = input
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", input.display()))?;
    let out_dir = folder_of(out)
        .canonicalize()
        .with_context(|| format!("cannot resolve the folder of {}", out.display()))?;
    let text = match input.strip_prefix(&out_dir) {
        Ok(rel) => format!("./{}", rel.display()),
        Err(_) => {
            let common = out_dir
                .ancestors()
                .find(|a| input.starts_with(a))
                .unwrap_or(Path::new("/"));
            let ups = out_dir
                .strip_prefix(common)
                .map(|r| r.components().count())
                .unwrap_or(0);
            let rest = input.strip_prefix(common).unwrap_or(&input);
            format!("{}{}", "../".repeat(ups), rest.display())
        }
    };
    Ok(text)
}
