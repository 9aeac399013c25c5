//! `dqview report`: one self-contained HTML page about a rig: summary, volume per mode over
//! each clip, the worst joint regions with GPU renders, DQS flips, influences, a fitted blend
//! map, joint scales and advice.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::{LoadArgs, PoseArgs};
use crate::rig_report::{Change, ReportOptions, gather, write_html};

/// Most samples per clip.
const MAX_SAMPLES: usize = 1000;
/// Worst regions rendered per mode by default.
const DEFAULT_RENDERS: usize = 2;
/// Render size by default: six panes (one per mode) of 300x360.
const DEFAULT_SIZE: &str = "1800x360";

/// Options of `dqview report`.
#[derive(Clone, Debug, clap::Args)]
pub struct ReportArgs {
    /// A .gltf/.glb/.vrm, .fbx or USD path, or builtin:NAME (default builtin:twist).
    #[arg(value_name = "MODEL")]
    pub model: Option<String>,
    /// Output file (.html).
    #[arg(long, value_name = "FILE.html")]
    pub out: PathBuf,
    /// Samples over each clip, both ends included (2 to 1000).
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub samples: usize,
    /// Samples per clip for the blend fit (1 to 1000).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub fit_samples: usize,
    /// Size of each render (a pane per mode side by side).
    #[arg(long, value_name = "WxH", default_value = DEFAULT_SIZE)]
    pub size: String,
    /// Worst regions listed per mode (1 to 20).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub regions: usize,
    /// Worst regions rendered per mode (0 to 5; the same moment is rendered once).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RENDERS)]
    pub renders: usize,
    /// Leave the GPU renders out (plots and tables only).
    #[arg(long)]
    pub no_renders: bool,
    /// Pose options: `--clip NAME|INDEX|all` (default all), joint angles on top of every
    /// sample, CoR options; `--mode`, `--beta` and `--time` do not apply.
    #[command(flatten)]
    pub pose: PoseArgs,
    /// Load limits and URI policy.
    #[command(flatten)]
    pub load: LoadArgs,
}

/// Writes the report `args` asks for.
pub fn run(args: &ReportArgs) -> Result<()> {
    let started = Instant::now();
    check_flags(args)?;
    let size = super::render::parse_size(&args.size)?;
    let model = super::model_or_default(args.model.clone());
    let mut stages: Vec<(String, f64)> = Vec::new();
    let mut stage = Instant::now();
    let mut lap = |what: &str, stages: &mut Vec<(String, f64)>| {
        stages.push((what.to_string(), stage.elapsed().as_secs_f64()));
        stage = Instant::now();
    };
    let scene = super::load(&model, &args.load)?;
    let clips = match &args.pose.clip {
        None if scene.animations.is_empty() => Vec::new(),
        None => (0..scene.animations.len()).collect(),
        Some(c) => super::blend::clip_indices(&scene, c)?,
    };
    let mut pose_args = args.pose.clone();
    (pose_args.clip, pose_args.time, pose_args.mode) = (None, None, None);
    let overrides = pose_args.resolve(&scene)?.overrides;
    lap("load", &mut stages);
    let centers = args.pose.cor.centers(&scene)?;
    lap("CoR centers", &mut stages);
    let ddm = args.pose.ddm.compute(&scene)?;
    lap("DDM precompute", &mut stages);
    let dm = args.pose.dm.compute(&scene)?;
    let options = ReportOptions {
        clips,
        samples: args.samples,
        fit_samples: args.fit_samples,
        overrides,
        worst_regions: args.regions,
    };
    let cancel = AtomicBool::new(false);
    let report = gather(&scene, &centers, &ddm, &dm, &options, &progress, &cancel)?;
    end_progress();
    lap("measure (clips, flips, sweep, fit)", &mut stages);
    let pictures = if args.no_renders {
        crate::rig_report::Pictures {
            note: Some("Renders left out (--no-renders).".into()),
            ..Default::default()
        }
    } else {
        let what = (&scene, model.as_str());
        {
            let methods = super::report_pictures::ReportMethods {
                centers: &centers,
                ddm: &ddm,
                dm: &dm,
            };
            super::report_pictures::paint(what, methods, &report, &options, size, args.renders)
        }
    };
    lap("renders", &mut stages);
    stages.push(("total".into(), started.elapsed().as_secs_f64()));
    let html = write_html(&report, &pictures, &stages);
    if let Some(around) = crate::rig_report::non_finite_text(&html) {
        bail!(
            "report: a measure of {model} came out non-finite (`{around}`): the posed mesh overflows f32; no report written"
        );
    }
    std::fs::write(&args.out, &html)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    print_summary(args, &report, &pictures, html.len(), started);
    Ok(())
}

/// Refuses what cannot be checked later and says which pose flags do not apply.
fn check_flags(args: &ReportArgs) -> Result<()> {
    let ext = args
        .out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("html" | "htm")) {
        bail!("--out must end in .html, got {}", args.out.display());
    }
    if !(2..=MAX_SAMPLES).contains(&args.samples) {
        bail!(
            "--samples must be from 2 to {MAX_SAMPLES}, got {}",
            args.samples
        );
    }
    if !(1..=MAX_SAMPLES).contains(&args.fit_samples) {
        bail!(
            "--fit-samples must be from 1 to {MAX_SAMPLES}, got {}",
            args.fit_samples
        );
    }
    if !(1..=20).contains(&args.regions) {
        bail!("--regions must be from 1 to 20, got {}", args.regions);
    }
    if args.renders > 5 {
        bail!("--renders must be from 0 to 5, got {}", args.renders);
    }
    if args.no_renders && (args.renders != DEFAULT_RENDERS || args.size != DEFAULT_SIZE) {
        bail!("--renders and --size have no effect with --no-renders (no picture is made)");
    }
    if let Some(mode) = &args.pose.mode {
        bail!(
            "--mode {mode} does not apply to report: every mode (LBS, DQS, hybrid, CoR) is measured and drawn"
        );
    }
    if let Some(t) = args.pose.time {
        bail!(
            "--time {t} does not apply to report: every clip is sampled over its whole length (--samples)"
        );
    }
    if let Some(beta) = args.pose.beta {
        bail!(
            "--beta {beta} does not apply to report: the hybrid uses the file's blend map as stored \
             (joint flags where it has none)"
        );
    }
    if args.pose.cor.bulge_amount()? != 0.0 {
        bail!("--bulge-compensation does not apply to report: DQS is measured as it is");
    }
    Ok(())
}

/// Progress on stderr when it is a terminal: a stage and a count.
fn progress(stage: &str, done: usize, total: usize) {
    if std::io::stderr().is_terminal() {
        let mut err = std::io::stderr();
        let _ = write!(err, "\rreport: {stage} {done}/{total}          ");
    }
}

/// Ends the progress line.
fn end_progress() {
    if std::io::stderr().is_terminal() {
        let _ = writeln!(std::io::stderr());
    }
}

/// The lines printed after writing.
fn print_summary(
    args: &ReportArgs,
    report: &crate::rig_report::RigReport,
    pictures: &crate::rig_report::Pictures,
    bytes: usize,
    started: Instant,
) {
    println!(
        "wrote {} ({} KiB): {} clips, {} renders, in {:.1} s",
        args.out.display(),
        bytes / 1024,
        report.clips.len(),
        pictures.regions.len() + usize::from(pictures.sweep.is_some()),
        started.elapsed().as_secs_f64()
    );
    for (change, lists) in [
        (Change::Loss, &report.loss),
        (Change::Growth, &report.growth),
    ] {
        for (mode, list) in crate::skin::SkinningMode::ALL.iter().zip(lists) {
            let names: Vec<String> = list
                .iter()
                .take(3)
                .map(|w| {
                    format!(
                        "{} {:.3} ({} {:.2} s)",
                        w.name,
                        w.ratio(),
                        w.clip_name,
                        w.time_s
                    )
                })
                .collect();
            let names = if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            };
            let what = format!("{} {}", change.name(), mode.short_label());
            println!("{what:<13} {names}");
        }
    }
    if let Some(detail) = report.rest_bind.detail() {
        println!("rest pose   not the bind pose: {detail}");
    }
    for f in report.flips.iter().take(3) {
        let deg = |d: Option<f32>| d.map_or("none".to_string(), |d| format!("{d:.1}"));
        println!(
            "flip        {}: {} / {} deg",
            f.name,
            deg(f.below_deg),
            deg(f.above_deg)
        );
    }
    if let Some(fit) = &report.fit {
        println!(
            "blend fit   hybrid cor distance {:.4}% -> {:.4}% of the diagonal (LBS {:.4}%, DQS {:.4}%)",
            100.0 * fit.distances[2].max,
            100.0 * fit.distances[3].max,
            100.0 * fit.distances[0].max,
            100.0 * fit.distances[1].max
        );
    }
    let inf = &report.influences;
    println!(
        "influences  max {}, over 4: {}, over 8: {}, stored sums not 1: {} (worst {})",
        inf.max_influences,
        inf.over_4,
        inf.over_8,
        inf.unnormalised,
        inf.worst_sum.map_or("-".into(), |w| format!("{w:.4}"))
    );
    if let Some(note) = &pictures.note {
        eprintln!("dqview: {note}");
    }
}
