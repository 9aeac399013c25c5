//! `dqview analyze`: per skinning mode, how much a rig's volume changes over a clip.

use std::io::{IsTerminal, Write};

use anyhow::{Result, bail};
use serde_json::{Value, json};

use super::PoseArgs;
use crate::analysis::{
    AnalyzeOptions, Measure, RestReference, analyze, analyze_region, find_joint,
};

/// What `analyze` reports and how.
pub struct What<'a> {
    /// Samples over the clip.
    pub samples: usize,
    /// One JSON object instead of text.
    pub as_json: bool,
    /// Only this joint's region (name or node index).
    pub joint: Option<&'a str>,
}

/// `--samples` when not given.
pub const DEFAULT_SAMPLES: usize = 60;

/// Analyses `model` over its clip, at one `--time` of it, or at the single pose, and prints a
/// report or JSON.
pub fn run(model: &str, args: &PoseArgs, what: &What<'_>, load: &super::LoadArgs) -> Result<()> {
    let (samples, as_json) = (what.samples, what.as_json);
    if samples == 0 || samples > 100_000 {
        bail!("--samples must be from 1 to 100000, got {samples}");
    }
    if let Some(mode) = &args.mode {
        bail!("--mode {mode} does not apply to analyze: every mode is measured");
    }
    let scene = super::load(model, load)?;
    if crate::skin::skinned_primitives(&scene).is_empty() {
        bail!(
            "{model}: no skinned mesh (no node with a skin draws a mesh with weights), so there is nothing to analyze"
        );
    }
    let pose = args.resolve(&scene)?;
    refuse_unused(args, what, pose.clip.is_some())?;
    // Checked before the CoR precompute, so a mistyped joint fails at once.
    let joint = what.joint.map(|j| find_joint(&scene, j)).transpose()?;
    if let Some(joint) = joint {
        RestReference::at_rest(&scene).region_of(&scene, joint)?;
    }
    let bulge_compensation = args.cor.bulge_amount()?;
    let cor_centers = Some(args.cor.centers(&scene)?);
    let ddm = Some(args.ddm.compute(&scene)?);
    let dm = Some(args.dm.compute(&scene)?);
    let hybrid = pose.hybrid_betas(&scene, false);
    if let Some(notice) = &hybrid.notice {
        eprintln!("dqview: {notice}");
    }
    let source = hybrid.source.clone();
    let options = AnalyzeOptions {
        clip: pose.clip,
        samples,
        time_s: args.time.map(|_| pose.time_s),
        hybrid: hybrid.betas,
        hybrid_scale: 1.0,
        focus_joint: pose.overrides.angles.keys().next().copied(),
        overrides: pose.overrides,
        cor_centers,
        ddm,
        dm,
        bulge_compensation,
    };
    let terminal = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if terminal && total > 1 {
            let mut err = std::io::stderr();
            let _ = write!(err, "\ranalyzing: {done}/{total} samples");
            if done == total {
                let _ = writeln!(err);
            }
        }
    };
    if let Some(joint) = joint {
        let region = analyze_region(&scene, &options, joint, &progress)?;
        refuse_non_finite(&scene, region.first_non_finite())?;
        return super::analyze_joint::print(&scene, &region, as_json);
    }
    let analysis = analyze(&scene, &options, &progress);
    refuse_non_finite(&scene, analysis.first_non_finite())?;
    let what = match analysis.measure {
        Measure::Volume => "volume",
        Measure::Area => "area",
    };
    let modes: serde_json::Map<String, Value> = analysis
        .modes
        .iter()
        .map(|m| {
            let joints: Vec<Value> = m
                .worst_joints
                .iter()
                .map(|(node, name, ratio)| json!({"node": node, "name": name, "ratio": ratio}))
                .collect();
            (
                m.mode.name().to_string(),
                json!({
                    "min_volume_ratio": m.min_ratio,
                    "max_volume_ratio": m.max_ratio,
                    "worst_time": m.worst_time_s,
                    "worst_joints": joints,
                    "min_radius": m.min_radius,
                    "bulge": m.bulge,
                    "cor_distance": m.cor_distance,
                    "ratios": m.ratios,
                }),
            )
        })
        .collect();
    let report = json!({
        "file": scene.source,
        "measure": what,
        "times": analysis.times_s,
        "modes": modes,
        "hybrid_betas": source,
        "dqs_compensated": analysis.dqs_compensated.as_ref().map(|c| json!({
            "amount": c.amount,
            "min_volume_ratio": c.min_ratio,
            "max_volume_ratio": c.max_ratio,
            "bulge": c.bulge,
        })),
        "max_lbs_dqs_displacement": analysis.max_lbs_dqs_displacement,
        "max_lbs_dqs_displacement_relative": analysis.max_lbs_dqs_displacement_relative,
        "max_displacement_time": analysis.max_displacement_time_s,
        "regions_not_measurable": analysis.not_measurable.iter().map(|(node, why)| json!({
            "node": node,
            "name": scene.nodes.get(*node).map_or("", |n| n.name.as_str()),
            "reason": why.text(),
        })).collect::<Vec<_>>(),
    });
    if as_json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!("file        {}", scene.source);
    println!(
        "samples     {} ({} ratio to rest; volume for closed meshes, area for open ones)",
        analysis.times_s.len(),
        what
    );
    for m in &analysis.modes {
        let joints: Vec<String> = m
            .worst_joints
            .iter()
            .map(|(_, name, r)| format!("{name} {r:.3}"))
            .collect();
        let radius = m
            .min_radius
            .map_or(String::new(), |r| format!(", min radius {r:.4}"));
        let radius = match m.bulge {
            Some(b) => format!("{radius}, bulge {b:.4}"),
            None => radius,
        };
        let radius = match m.cor_distance {
            Some(d) => format!("{radius}, cor distance {d:.5}"),
            None => radius,
        };
        println!(
            "{:<11} {what} ratio {:.4} .. {:.4}, worst at {:.3} s{radius}; worst joints: {}",
            m.mode.name(),
            m.min_ratio,
            m.max_ratio,
            m.worst_time_s,
            joints.join(", ")
        );
    }
    if !analysis.not_measurable.is_empty() {
        let regions: Vec<String> = analysis
            .not_measurable
            .iter()
            .map(|(node, why)| {
                let name = scene.nodes.get(*node).map_or("", |n| n.name.as_str());
                format!("{name} ({})", why.text())
            })
            .collect();
        println!(
            "not measurable (never among the worst joints): {}",
            regions.join("; ")
        );
    }
    println!("hybrid      betas: {source}");
    if let Some(c) = &analysis.dqs_compensated {
        let bulge = c.bulge.map_or(String::new(), |b| format!(", bulge {b:.4}"));
        println!(
            "dqs+comp    {what} ratio {:.4} .. {:.4} (compensation {:.2}){bulge}",
            c.min_ratio, c.max_ratio, c.amount
        );
    }
    println!(
        "lbs vs dqs  largest displacement {:.5} ({:.2}% of the bounding-box diagonal) at {:.3} s",
        analysis.max_lbs_dqs_displacement,
        100.0 * analysis.max_lbs_dqs_displacement_relative,
        analysis.max_displacement_time_s
    );
    Ok(())
}

/// Refuses the flags this analyze would not use: `--samples` without a clip or with `--time`
/// (one moment), `--bulge-compensation` with `--joint` (a region is measured uncorrected).
fn refuse_unused(args: &PoseArgs, what: &What<'_>, clip: bool) -> Result<()> {
    if what.samples != DEFAULT_SAMPLES {
        if args.time.is_some() {
            bail!(
                "--samples spreads samples over the clip, but --time measures one moment of it; drop one"
            );
        }
        if !clip {
            bail!(
                "--samples spreads samples over a clip, but without --clip analyze measures one pose; add --clip NAME|INDEX"
            );
        }
    }
    if what.joint.is_some() && args.cor.bulge_amount()? != 0.0 {
        bail!(
            "--bulge-compensation does not apply to analyze --joint: the region is measured as each mode leaves it"
        );
    }
    Ok(())
}

/// Fails, naming the field, when a measure came out NaN or infinite: printed, it would lie.
fn refuse_non_finite(scene: &crate::scene::Scene, bad: Option<(String, f64)>) -> Result<()> {
    match bad {
        Some((field, value)) => bail!(
            "analyze: {field} of {} came out {value} (the posed mesh overflows f32); nothing printed",
            scene.source
        ),
        None => Ok(()),
    }
}
