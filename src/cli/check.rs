//! `dqview check`: pipeline rules over many files in parallel, one line per file and a summary.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Serialize;

use super::{Exit, LoadArgs};
use crate::check::{
    CheckOptions, CheckSummary, FileReport, Severity, SkippedEntry, check_models, collect_inputs,
    summarize,
};

/// `dqview check` arguments.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Model files, folders (searched for .glb, .gltf, .vrm, .fbx and .usd/.usda/.usdc/.usdz) and builtin:NAMEs.
    #[arg(value_name = "FILE_OR_DIR", required = true)]
    pub inputs: Vec<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Files checked at once (default: the available cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub jobs: Option<u16>,
    /// lbs_collapse: the smallest LBS volume ratio to rest a joint region may reach in a clip.
    #[arg(long, value_name = "R", default_value_t = CheckOptions::DEFAULT.min_volume_ratio, value_parser = parse_ratio)]
    pub min_volume_ratio: f64,
    /// weights_not_normalized: the largest |weight sum - 1| a vertex may have.
    #[arg(long, value_name = "T", default_value_t = CheckOptions::DEFAULT.weight_tolerance, value_parser = parse_tolerance)]
    pub weight_tolerance: f32,
    /// non_uniform_scale: the largest unevenness max |S / cbrt(det S) - I| of a joint's scale/shear S.
    #[arg(long, value_name = "T", default_value_t = CheckOptions::DEFAULT.scale_tolerance, value_parser = parse_tolerance)]
    pub scale_tolerance: f32,
    /// lbs_collapse: LBS volume samples per clip, both ends included.
    #[arg(long, value_name = "N", default_value_t = CheckOptions::DEFAULT.samples, value_parser = parse_samples)]
    pub samples: usize,
    /// Seconds one file's clips may take; clips left are skipped with a check_incomplete warning.
    #[arg(long, value_name = "S", default_value_t = 60.0, value_parser = parse_seconds)]
    pub max_seconds: f64,
    /// Warnings fail a file too (exit status 1); info findings never do.
    #[arg(long)]
    pub strict: bool,
    /// Load limits and URI policy for every file.
    #[command(flatten)]
    pub load: LoadArgs,
}

impl CheckArgs {
    /// The library options these flags give.
    fn to_options(&self) -> CheckOptions {
        CheckOptions {
            load: self.load.to_options(),
            weight_tolerance: self.weight_tolerance,
            scale_tolerance: self.scale_tolerance,
            min_volume_ratio: self.min_volume_ratio,
            samples: self.samples,
            time_budget: Duration::from_secs_f64(self.max_seconds),
            strict: self.strict,
        }
    }
}

/// The `--json` output, fields in this order: `{"files": [...], "skipped": [...], "summary": {...}}`.
#[derive(Serialize)]
struct JsonReport<'a> {
    /// One entry per file, in input order.
    files: &'a [FileReport],
    /// Folder entries not checked (FIFOs, devices, dangling or looping links, links to folders), with why.
    skipped: &'a [SkippedEntry],
    /// Totals.
    summary: &'a CheckSummary,
}

/// Runs the check; exit status 1 (through [`Exit`]) when a file fails, 2 for bad inputs.
pub fn run(args: &CheckArgs) -> Result<()> {
    let inputs = collect_inputs(&args.inputs).map_err(|e| Exit {
        code: 2,
        message: format!("check: {e}"),
    })?;
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let terminal = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if terminal {
            let mut err = std::io::stderr();
            let _ = write!(err, "\rchecking: {done}/{total} files");
            if done == total {
                let _ = write!(err, "\r\x1b[K");
            }
        }
    };
    let started = Instant::now();
    let reports = check_models(&inputs.models, &args.to_options(), jobs, &progress);
    let elapsed = started.elapsed();
    let summary = summarize(&reports);
    if args.json {
        let out = JsonReport {
            files: &reports,
            skipped: &inputs.skipped,
            summary: &summary,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(&reports, &summary, &inputs.skipped);
    }
    // Said with an explicit --jobs too: it changes no finding, only how the work is spread.
    if terminal || args.jobs.is_some() {
        eprintln!(
            "checked {} files in {:.2} s with {jobs} jobs",
            reports.len(),
            elapsed.as_secs_f64()
        );
    }
    if summary.failed > 0 {
        return Err(Exit {
            code: 1,
            message: String::new(),
        }
        .into());
    }
    Ok(())
}

/// One line per file (`ok`, `WARN` or `FAIL`, the file, each finding), an `info` line per
/// skipped folder entry, then the summary.
fn print_text(reports: &[FileReport], summary: &CheckSummary, skipped: &[SkippedEntry]) {
    for r in reports {
        let warned = r.findings.iter().any(|f| f.severity == Severity::Warning);
        let status = match (r.ok, warned) {
            (false, _) => "FAIL",
            (true, true) => "WARN",
            (true, false) => "ok",
        };
        let findings: Vec<String> = r
            .findings
            .iter()
            .map(|f| format!("{} {}: {}", f.severity.name(), f.rule.name(), f.detail))
            .collect();
        if findings.is_empty() {
            println!("{status:<4}  {}", r.file);
        } else {
            println!("{status:<4}  {}: {}", r.file, findings.join("; "));
        }
        let unmeasured: Vec<String> = r
            .regions_not_by_volume
            .iter()
            .filter(|n| n.measure == "not measurable")
            .map(|n| format!("{} ({})", n.joint, n.reason))
            .collect();
        if !unmeasured.is_empty() {
            println!(
                "info  {}: joint regions not measurable, so not judged by lbs_collapse: {}",
                r.file,
                unmeasured.join("; ")
            );
        }
    }
    for s in skipped {
        println!("info  {}: skipped, it {}", s.path, s.reason);
    }
    let rules: Vec<String> = summary
        .rules
        .iter()
        .map(|(rule, n)| format!("{rule} {n}"))
        .collect();
    let rules = if rules.is_empty() {
        String::new()
    } else {
        format!("; findings: {}", rules.join(", "))
    };
    let warned = reports
        .iter()
        .filter(|r| r.ok && r.findings.iter().any(|f| f.severity == Severity::Warning))
        .count();
    println!(
        "{} files: {} pass ({warned} of them with warnings), {} fail; {} errors, {} warnings, {} info{rules}",
        summary.files,
        summary.passed,
        summary.failed,
        summary.errors,
        summary.warnings,
        summary.infos
    );
}

/// `--min-volume-ratio`: a ratio from 0 to 1.
fn parse_ratio(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err(format!("expected a ratio from 0 to 1, got `{text}`")),
    }
}

/// `--weight-tolerance`, `--scale-tolerance`: a finite number from 1e-5 to 1.
fn parse_tolerance(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(t) if (1e-5..=1.0).contains(&t) => Ok(t),
        _ => Err(format!("expected a tolerance from 1e-5 to 1, got `{text}`")),
    }
}

/// `--samples`: 2 to 10,000.
fn parse_samples(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (2..=10_000).contains(&n) => Ok(n),
        _ => Err(format!("expected 2 to 10000 samples, got `{text}`")),
    }
}

/// `--max-seconds`: more than 0, at most a day.
fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!("expected seconds from 0 to 86400, got `{text}`")),
    }
}
