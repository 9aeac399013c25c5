//! `dqview cor`: precompute each skinned vertex's centre of rotation and write it into the
//! model as `_COR_CENTER` (or a USD layer), for engines that skin with CoR.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};

use super::{CorArgs, LoadArgs};
use crate::cor_file::{cor_out_kind, has_centers, write_cor_centers};

/// Options of `dqview cor`.
#[derive(Clone, Debug, clap::Args)]
pub struct CorWriteArgs {
    /// A .gltf/.glb/.vrm, .fbx or USD path, or builtin:NAME.
    #[arg(value_name = "MODEL")]
    pub model: String,
    /// Output: .glb/.vrm or .gltf (the input amended; FBX and built-in rigs: a .glb of the whole
    /// rig), or .usda (a layer over a USD input).
    #[arg(long, value_name = "OUT.glb|OUT.gltf|OUT.usda")]
    pub out: PathBuf,
    /// CoR precompute options (`--bulge-compensation` does not apply).
    #[command(flatten)]
    pub cor: CorArgs,
    /// Load limits and URI policy.
    #[command(flatten)]
    pub load: LoadArgs,
}

/// Computes the centres of `args.model` and writes them to `args.out`.
pub fn run(args: &CorWriteArgs) -> Result<()> {
    let interrupt = super::interrupt_on_ctrl_c();
    let kind = cor_out_kind(&args.out, &args.model)?;
    if args.cor.bulge_amount()? != 0.0 {
        bail!(
            "--bulge-compensation has no effect on cor (it changes DQS, not the centres); drop it"
        );
    }
    let options = args.cor.options()?;
    let scene = super::load(&args.model, &args.load)?;
    if matches!(
        kind,
        crate::blend_file::OutKind::Glb | crate::blend_file::OutKind::Gltf
    ) {
        crate::output_files::refuse_faulty_gltf(&scene, &args.model)?;
    }
    let started = Instant::now();
    let centers = args.cor.centers_or_cancelled(&scene, interrupt)?;
    let compute_s = started.elapsed().as_secs_f64();
    if !has_centers(&centers) {
        bail!(
            "{} has no skinned primitives (no node with a skin draws a mesh with JOINTS_0/WEIGHTS_0): no centres to write",
            args.model
        );
    }
    let report = write_cor_centers(&scene, &args.model, &args.out, kind, &centers, interrupt)?;
    let primitives: Vec<&Vec<glam::Vec3>> = centers
        .per_primitive
        .iter()
        .flatten()
        .filter(|c| !c.is_empty())
        .collect();
    let vertices: usize = primitives.iter().map(|c| c.len()).sum();
    println!("wrote       {}", report.file_list());
    println!(
        "centres     {vertices} vertices in {} skinned primitives in {compute_s:.2} s (--cor-sigma {}, --cor-method {}{})",
        primitives.len(),
        options.sigma,
        args.cor.cor_method,
        if options.subdivide {
            ", subdivided"
        } else {
            ""
        }
    );
    for note in report.notes.iter().chain(&report.warnings) {
        println!("note        {note}");
    }
    Ok(())
}
