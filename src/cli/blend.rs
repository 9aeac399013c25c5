//! `dqview blend`: fit per-vertex DQS blend weights to CoR skinning and write them into the file.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, anyhow, bail};

use super::{CorArgs, LoadArgs};
use crate::blend_file::{MapSource, OutKind, write_output};
use crate::output_files::{InputKind, WriteReport};
use crate::scene::Scene;
use crate::scene::names;
use crate::skin::{BlendFit, FitError, FitOptions, FitPose, JointSweep, SweepKind, fit_blend};

/// Most samples per clip or sweep.
const MAX_SAMPLES: usize = 100_000;
/// Most smoothing iterations.
const MAX_SMOOTH: usize = 10_000;

/// Options of `dqview blend`.
#[derive(Clone, Debug, clap::Args)]
pub struct BlendArgs {
    /// A .gltf/.glb/.vrm, .fbx or USD path, or builtin:NAME.
    #[arg(value_name = "MODEL")]
    pub model: String,
    /// Output: .glb or .gltf (the input amended; FBX and built-in rigs: a .glb of the whole rig),
    /// or .json (the map alone).
    #[arg(long, value_name = "OUT.glb|OUT.gltf|OUT.json")]
    pub out: PathBuf,
    /// Clip to sample (name or index), or `all` for every clip.
    #[arg(long, value_name = "NAME|INDEX|all")]
    pub clip: Option<String>,
    /// Samples per clip and per sweep, both ends included.
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub samples: usize,
    /// Twist sweep of a joint on the rest pose, in degrees: JOINT=FROM:TO; repeatable.
    #[arg(long, value_name = "JOINT=FROM:TO")]
    pub sweep: Vec<String>,
    /// Bend sweep of a joint on the rest pose, in degrees: JOINT=FROM:TO; repeatable.
    #[arg(long, value_name = "JOINT=FROM:TO")]
    pub bend_sweep: Vec<String>,
    /// The pose under review: twist a joint, JOINT=DEG; repeatable. The fit includes this pose
    /// (weighted as one sweep), the sweeps run on top of it, and before/after is printed for it.
    #[arg(long, value_name = "JOINT=DEG")]
    pub twist: Vec<String>,
    /// The pose under review: bend a joint, JOINT=DEG; repeatable.
    #[arg(long, value_name = "JOINT=DEG")]
    pub bend: Vec<String>,
    /// The pose under review: roll a joint, JOINT=DEG; repeatable.
    #[arg(long, value_name = "JOINT=DEG")]
    pub roll: Vec<String>,
    /// Iterations of neighbour averaging over the mesh edges after the fit.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub smooth: usize,
    /// Output format: gltf (the default for .glb/.gltf) or json (the map alone; --out must end in .json).
    #[arg(long, value_name = "gltf|json")]
    pub format: Option<String>,
    /// CoR precompute options (`--bulge-compensation` does not apply).
    #[command(flatten)]
    pub cor: CorArgs,
    /// Load limits and URI policy.
    #[command(flatten)]
    pub load: LoadArgs,
}

/// Fits the map over the poses `args` names and writes it to `args.out`.
pub fn run(args: &BlendArgs) -> Result<()> {
    let interrupt = super::interrupt_on_ctrl_c();
    let out_kind = OutKind::of(&args.out, args.format.as_deref())?;
    if args.samples == 0 || args.samples > MAX_SAMPLES {
        bail!(
            "--samples must be from 1 to {MAX_SAMPLES}, got {}",
            args.samples
        );
    }
    if args.smooth > MAX_SMOOTH {
        bail!(
            "--smooth must be from 0 to {MAX_SMOOTH}, got {}",
            args.smooth
        );
    }
    if args.cor.bulge_amount()? != 0.0 {
        bail!("--bulge-compensation has no effect on blend (the fit targets CoR); drop it");
    }
    let posed = !(args.twist.is_empty() && args.bend.is_empty() && args.roll.is_empty());
    if args.clip.is_none() && args.sweep.is_empty() && args.bend_sweep.is_empty() && !posed {
        bail!(
            "no poses to fit over: give --clip NAME|INDEX|all, --sweep / --bend-sweep JOINT=FROM:TO \
             and/or a pose under review (--twist / --bend / --roll JOINT=DEG)"
        );
    }
    out_kind.check_input(InputKind::of(&args.model), crate::blend_file::BLEND_MAP)?;
    let scene = super::load(&args.model, &args.load)?;
    if out_kind != OutKind::Json {
        // Refused before the fit; `write_output` refuses too (the viewer's path).
        crate::output_files::refuse_faulty_gltf(&scene, &args.model)?;
    }
    let review = super::blend_review::Review::of(&scene, args)?;
    let poses = fit_poses(&scene, args, &review)?;
    if !has_skinned_primitive(&scene) {
        bail!(
            "{} has no skinned primitives (no node with a skin draws a mesh with JOINTS_0/WEIGHTS_0): nothing to fit",
            args.model
        );
    }
    let centers = args.cor.centers_or_cancelled(&scene, interrupt)?;
    let started = Instant::now();
    let fit = fit_with_progress(&scene, &centers, &poses, args.smooth, interrupt)?;
    let fit_s = started.elapsed().as_secs_f64();
    let source = MapSource {
        model: &args.model,
        out: &args.out,
        poses: fit.poses,
        smooth: args.smooth,
    };
    let report = write_output(&scene, &source, out_kind, &fit.betas, interrupt)?;
    print_summary(args, &fit, fit_s, &report);
    review.print(&scene, &centers, &poses, &fit.betas);
    Ok(())
}

/// Runs the fit with a progress line on a terminal.
fn fit_with_progress(
    scene: &Scene,
    centers: &crate::skin::SceneCenters,
    poses: &[FitPose],
    smooth: usize,
    interrupt: &crate::interrupt::Interrupt,
) -> Result<BlendFit> {
    let terminal = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if terminal {
            let mut err = std::io::stderr();
            let _ = write!(err, "\rfitting: {done}/{total} poses");
            if done == total {
                let _ = writeln!(err);
            }
        }
    };
    let options = FitOptions {
        smooth_iterations: smooth,
    };
    fit_blend(scene, centers, poses, &options, &progress, interrupt.flag()).map_err(|e| match e {
        FitError::Cancelled => anyhow!("cancelled: no file written"),
        other => anyhow!("{other}"),
    })
}

/// The poses of `--clip`, the pose under review (repeated `--samples` times, as much as one
/// sweep) and the sweeps (on top of that pose's joint angles), in that order.
fn fit_poses(
    scene: &Scene,
    args: &BlendArgs,
    review: &super::blend_review::Review,
) -> Result<Vec<FitPose>> {
    let mut poses = Vec::new();
    if let Some(clip) = &args.clip {
        for c in clip_indices(scene, clip)? {
            poses.extend(FitPose::clip_samples(scene, c, args.samples));
        }
    }
    if let Some(pose) = &review.pose {
        poses.extend(std::iter::repeat_n(pose.clone(), args.samples));
    }
    for (list, kind, flag) in [
        (&args.sweep, SweepKind::Twist, "--sweep"),
        (&args.bend_sweep, SweepKind::Bend, "--bend-sweep"),
    ] {
        for spec in list {
            let sweep = parse_sweep(scene, spec, kind, flag)?;
            poses.extend(
                FitPose::sweep_samples(&sweep, args.samples)
                    .into_iter()
                    .map(|p| p.over(&review.overrides, &sweep)),
            );
        }
    }
    Ok(poses)
}

/// The clips `--clip` names: one by name or index ([`names::clip`]'s rule), or every clip for `all`.
pub(super) fn clip_indices(scene: &Scene, clip: &str) -> Result<Vec<usize>> {
    if scene.animations.is_empty() {
        bail!("--clip {clip}: the model has no clips (use --sweep or --bend-sweep)");
    }
    // A clip really named `all` wins over the keyword.
    if let Some(c) = scene.animations.iter().position(|a| a.name == clip) {
        return Ok(vec![c]);
    }
    if clip.trim().eq_ignore_ascii_case("all") {
        return Ok((0..scene.animations.len()).collect());
    }
    let c =
        names::clip(scene, clip).map_err(|e| anyhow!("--clip: {e}; or `all` for every clip"))?;
    Ok(vec![c])
}

/// Parses `JOINT=FROM:TO` (degrees) into a sweep of a joint of some skin.
pub(super) fn parse_sweep(
    scene: &Scene,
    spec: &str,
    kind: SweepKind,
    flag: &str,
) -> Result<JointSweep> {
    let (joint, range) = spec
        .rsplit_once('=')
        .ok_or_else(|| anyhow!("{flag} expects JOINT=FROM:TO (degrees), got `{spec}`"))?;
    let (from, to) = range.split_once(':').ok_or_else(|| {
        anyhow!("{flag} `{spec}`: the range must be FROM:TO in degrees, e.g. 0:180")
    })?;
    let degrees = |text: &str| -> Result<f32> {
        text.trim()
            .parse::<f32>()
            .ok()
            .filter(|d| d.is_finite())
            .ok_or_else(|| anyhow!("{flag} `{spec}`: `{text}` is not a finite number of degrees"))
    };
    let (from_deg, to_deg) = (degrees(from)?, degrees(to)?);
    if from_deg == to_deg {
        bail!("{flag} `{spec}`: FROM and TO are equal, so nothing is swept");
    }
    let node = names::joint(scene, joint).map_err(|e| anyhow!("{flag}: {e}"))?;
    Ok(JointSweep {
        node,
        kind,
        from_deg,
        to_deg,
    })
}

/// Whether some node with a skin draws a primitive with influences.
fn has_skinned_primitive(scene: &Scene) -> bool {
    scene.nodes.iter().any(|n| {
        let (Some(m), Some(s)) = (n.mesh, n.skin) else {
            return false;
        };
        s < scene.skins.len()
            && scene
                .meshes
                .get(m)
                .is_some_and(|mesh| mesh.primitives.iter().any(|p| p.influences.is_some()))
    })
}

/// Prints what was fitted and written.
fn print_summary(args: &BlendArgs, fit: &BlendFit, fit_s: f64, report: &WriteReport) {
    let all: Vec<f32> = fit
        .betas
        .per_primitive
        .iter()
        .flatten()
        .flatten()
        .copied()
        .collect();
    let primitives = fit
        .betas
        .per_primitive
        .iter()
        .flatten()
        .filter(|p| !p.is_empty())
        .count();
    let mean = fit.betas.mean();
    let lbs = all.iter().filter(|&&b| b == 0.0).count();
    let dqs = all.iter().filter(|&&b| b == 1.0).count();
    println!("wrote       {}", report.file_list());
    println!(
        "fitted      {} vertices in {primitives} skinned primitives over {} poses in {fit_s:.2} s (smooth {})",
        fit.vertices, fit.poses, args.smooth
    );
    println!(
        "beta        mean {mean:.3}; {lbs} vertices at 0 (LBS), {dqs} at 1 (DQS), {} where LBS and DQS agree (0.5 before smoothing)",
        fit.degenerate_vertices
    );
    for note in &report.notes {
        println!("note        {note}");
    }
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
}
