//! Writing a rig with twist joints into a model's file: the input glTF/GLB/VRM amended in
//! place (its other members kept as written), all files or none, as `blend_file` does.
//! An edge module (anyhow errors): the CLI and the viewer call it.

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};

use crate::interrupt::Interrupt;
use crate::output_files::{
    InputKind, Staged, WriteReport, commit, copy_external_files, folder_of, refuse_faulty_gltf,
};
use crate::scene::{
    AmendTarget, Amended, RigChannel, RigEdit, RigInfluences, RigNode, RigSkin, amend_rig,
};
use crate::twist_joints::TwistRig;

/// Writes `rig` (made from the file `model`) to `out`: `.glb`/`.vrm` for a binary input,
/// `.gltf` for a JSON one.
pub fn write_twist_rig(
    model: &str,
    out: &Path,
    rig: &TwistRig,
    max_influences: usize,
    interrupt: &Interrupt,
) -> Result<WriteReport> {
    let binary = output_is_binary(model, out)?;
    refuse_faulty_gltf(&rig.scene, model)?;
    let input = std::fs::read(model).with_context(|| format!("cannot read {model}"))?;
    let stem = out
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| anyhow!("--out {} has no UTF-8 file name", out.display()))?;
    let bin_name = format!("{stem}.twist.bin");
    let target = if binary {
        AmendTarget::Glb
    } else {
        AmendTarget::Gltf {
            bin_name: &bin_name,
        }
    };
    let amended = amend(&input, target, rig, max_influences)?;
    if amended
        .external_files
        .iter()
        .any(|f| f.relative_path.as_deref() == Some(bin_name.as_str()))
    {
        bail!("the input already names {bin_name}; write to another --out name");
    }
    let mut staged = Vec::new();
    let mut notes = Vec::new();
    if let Some((name, bytes)) = &amended.bin {
        staged.push(Staged::write(&out.with_file_name(name), bytes)?);
    }
    copy_external_files(
        &folder_of(Path::new(model)),
        &folder_of(out),
        &amended.external_files,
        &mut staged,
        &mut notes,
    )?;
    staged.push(Staged::write(out, &amended.file)?);
    commit(staged, interrupt, notes)
}

/// Whether `out` is a binary glTF (`.glb`, `.vrm`) for the input `model`, or an error when
/// twist-joints cannot write it (the amend keeps the input's container): checked before any work.
pub fn output_is_binary(model: &str, out: &Path) -> Result<bool> {
    let input_kind = InputKind::of(model);
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let binary = match (ext.as_str(), input_kind) {
        ("glb" | "vrm", InputKind::Glb) => true,
        ("gltf", InputKind::Gltf) => false,
        ("glb" | "vrm", InputKind::Gltf) => bail!(
            "the input is a .gltf: twist-joints amends it in place, so --out must end in .gltf"
        ),
        ("gltf", InputKind::Glb) => bail!(
            "the input is binary (.glb/.vrm): twist-joints amends it in place, so --out must end in .glb or .vrm"
        ),
        ("glb" | "gltf" | "vrm", _) => {
            bail!("twist-joints amends glTF files (.gltf, .glb, .vrm); {model} is not one")
        }
        _ => bail!(
            "--out must end in .glb, .gltf or .vrm, got {}",
            out.display()
        ),
    };
    Ok(binary)
}

/// The amended file's bytes for `rig`.
fn amend(
    input: &[u8],
    target: AmendTarget<'_>,
    rig: &TwistRig,
    max_influences: usize,
) -> Result<Amended> {
    let scene = &rig.scene;
    let nodes: Vec<RigNode> = rig
        .roll_joints
        .iter()
        .map(|rj| RigNode {
            name: rj.name.clone(),
            parent: rj.parent,
            trs: rj.trs,
            constraint: scene
                .constraints
                .iter()
                .find(|c| c.destination == rj.node)
                .copied(),
        })
        .collect();
    let skins: Vec<RigSkin<'_>> = rig
        .changed_skins
        .iter()
        .map(|&s| RigSkin {
            skin: s,
            joints: &scene.skins[s].joints,
            inverse_bind: &scene.skins[s].inverse_bind,
        })
        .collect();
    let influences: Vec<RigInfluences<'_>> = rig
        .changed_meshes
        .iter()
        .flat_map(|&m| {
            scene.meshes[m]
                .primitives
                .iter()
                .enumerate()
                .filter_map(move |(p, prim)| {
                    prim.influences.as_ref().map(|inf| RigInfluences {
                        mesh: m,
                        primitive: p,
                        influences: inf,
                    })
                })
        })
        .collect();
    let channels: Vec<RigChannel<'_>> = scene
        .animations
        .iter()
        .enumerate()
        .flat_map(|(a, anim)| {
            anim.channels
                .iter()
                .filter(|c| c.node >= rig.first_new_node)
                .map(move |channel| RigChannel {
                    animation: a,
                    channel,
                })
        })
        .collect();
    let edit = RigEdit {
        keep_nodes: rig.first_new_node,
        nodes: &nodes,
        skins: &skins,
        influences: &influences,
        influence_sets: max_influences.div_ceil(4),
        channels: &channels,
    };
    Ok(amend_rig(input, target, &edit)?)
}
