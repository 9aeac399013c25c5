//! Checking many models in parallel: a work queue over std threads, reports in input order.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

use super::{CheckInput, CheckOptions, FileReport, Finding, Rule, Severity, check_model};

/// Totals over every file of a check.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CheckSummary {
    /// Files checked.
    pub files: usize,
    /// Files that pass.
    pub passed: usize,
    /// Files that fail.
    pub failed: usize,
    /// Files with at least one warning.
    pub with_warnings: usize,
    /// Error findings over all files.
    pub errors: usize,
    /// Warning findings over all files.
    pub warnings: usize,
    /// Info findings over all files (they never fail a file).
    pub infos: usize,
    /// Findings per rule name, over all files (rules with none left out).
    pub rules: BTreeMap<&'static str, usize>,
}

/// Totals of `reports`.
#[must_use]
pub fn summarize(reports: &[FileReport]) -> CheckSummary {
    let mut s = CheckSummary {
        files: reports.len(),
        ..CheckSummary::default()
    };
    for r in reports {
        if r.ok {
            s.passed += 1;
        } else {
            s.failed += 1;
        }
        let warned = r.findings.iter().any(|f| f.severity == Severity::Warning);
        s.with_warnings += usize::from(warned);
        for f in &r.findings {
            match f.severity {
                Severity::Error => s.errors += 1,
                Severity::Warning => s.warnings += 1,
                Severity::Info => s.infos += 1,
            }
            *s.rules.entry(f.rule.name()).or_insert(0) += 1;
        }
    }
    s
}

/// Checks every input with `jobs` worker threads (at least 1), reports in input order.
///
/// Workers take the next input off a shared counter, so a slow file holds up only its own
/// worker. Each worker runs its files in a one-thread rayon pool, so `jobs` bounds the cores
/// used (the skinning inside a file would otherwise spread over rayon's global pool), and
/// each file under [`catch_unwind`]: a panic becomes that file's `internal_error`.
/// `progress(done, total)` is called after each file, from the worker threads.
#[must_use]
pub fn check_models(
    inputs: &[CheckInput],
    options: &CheckOptions,
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<FileReport> {
    let jobs = jobs.clamp(1, inputs.len().max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let worker = || {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().ok();
        let mut mine: Vec<(usize, FileReport)> = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(input) = inputs.get(i) else {
                break;
            };
            mine.push((i, check_isolated(input, options, pool.as_ref())));
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, inputs.len());
        }
        mine
    };
    let mut all: Vec<(usize, FileReport)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs).map(|_| s.spawn(worker)).collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    all.sort_by_key(|(i, _)| *i);
    // A worker that died (it cannot: every file is isolated) would leave gaps; fill them.
    let mut reports: Vec<FileReport> = Vec::with_capacity(inputs.len());
    let mut found = all.into_iter().peekable();
    for (i, input) in inputs.iter().enumerate() {
        match found.next_if(|(j, _)| *j == i) {
            Some((_, report)) => reports.push(report),
            None => reports.push(internal_error(input.name(), "no report", options.strict)),
        }
    }
    reports
}

/// Checks one input on this thread (inside `pool` when given), a panic caught and reported.
fn check_isolated(
    input: &CheckInput,
    options: &CheckOptions,
    pool: Option<&rayon::ThreadPool>,
) -> FileReport {
    let (spec, reason) = match input {
        CheckInput::Model(spec) => (spec, None),
        CheckInput::Unreadable { path, reason } => (path, Some(reason)),
    };
    if let Some(reason) = reason {
        let finding = Finding::new(Rule::LoadError, format!("cannot read folder: {reason}"));
        return FileReport::new(spec.clone(), vec![finding], options.strict);
    }
    let run = || match pool {
        Some(pool) => pool.install(|| check_model(spec, options)),
        None => check_model(spec, options),
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(report) => without_non_finite(report, options.strict),
        Err(payload) => {
            let message = crate::scene::panic_text(&*payload).unwrap_or("unknown panic");
            internal_error(spec, message, options.strict)
        }
    }
}

/// `report` with each finding holding a NaN or infinite number replaced by an `internal_error`
/// naming it: printed, the number would read `null` in the JSON. Values are range-checked at
/// load, so this is a dqview bug, reported as one.
fn without_non_finite(report: FileReport, strict: bool) -> FileReport {
    let bad = |f: &Finding| -> Option<(&'static str, f64)> {
        let floats = [
            ("worst_sum", f.worst_sum),
            ("largest_dropped_weight", f.largest_dropped_weight),
            ("time", f.time),
        ];
        let floats = floats
            .into_iter()
            .filter_map(|(n, v)| v.map(|v| (n, f64::from(v))));
        let joint_times = f
            .joints
            .iter()
            .filter_map(|j| j.time.map(|t| ("joints time", f64::from(t))));
        let ratios = [("ratio", f.ratio), ("dqs_ratio", f.dqs_ratio)]
            .into_iter()
            .filter_map(|(n, v)| v.map(|v| (n, v)));
        floats
            .chain(joint_times)
            .chain(ratios)
            .find(|(_, v)| !v.is_finite())
    };
    if !report.findings.iter().any(|f| bad(f).is_some()) {
        return report;
    }
    let findings = report
        .findings
        .into_iter()
        .map(|f| match bad(&f) {
            Some((field, value)) => Finding::new(
                Rule::InternalError,
                format!(
                    "dqview failed while checking this file ({} gave a {field} of {value}); please report it",
                    f.rule.name()
                ),
            ),
            None => f,
        })
        .collect();
    FileReport::new(report.file, findings, strict)
}

/// A report of one `internal_error` finding: dqview failed on `file`.
fn internal_error(file: &str, message: &str, strict: bool) -> FileReport {
    let finding = Finding::new(
        Rule::InternalError,
        format!("dqview failed while checking this file ({message}); please report it"),
    );
    FileReport::new(file.to_owned(), vec![finding], strict)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_finite_number_becomes_an_internal_error() {
        let mut finding = Finding::new(Rule::LbsCollapse, "collapses");
        finding.time = Some(f32::INFINITY);
        let kept = Finding::new(Rule::InfluencesOver8, "many");
        let report = FileReport::new("x.glb".into(), vec![finding, kept.clone()], false);
        let guarded = without_non_finite(report, false);
        assert!(!guarded.ok);
        assert_eq!(guarded.findings.len(), 2);
        assert_eq!(guarded.findings[0].rule, Rule::InternalError);
        assert!(
            guarded.findings[0]
                .detail
                .contains("lbs_collapse gave a time of inf"),
            "{}",
            guarded.findings[0].detail
        );
        assert_eq!(guarded.findings[1], kept);
    }

    #[test]
    fn order_is_the_inputs_whatever_the_jobs() {
        let inputs: Vec<CheckInput> = ["builtin:arm", "/nonexistent/x.glb", "builtin:twist"]
            .iter()
            .map(|s| CheckInput::Model((*s).to_owned()))
            .collect();
        let options = CheckOptions {
            samples: 3,
            ..CheckOptions::DEFAULT
        };
        let one = check_models(&inputs, &options, 1, &|_, _| {});
        let three = check_models(&inputs, &options, 3, &|_, _| {});
        assert_eq!(one, three);
        let files: Vec<&str> = one.iter().map(|r| r.file.as_str()).collect();
        assert_eq!(
            files,
            ["builtin:arm", "/nonexistent/x.glb", "builtin:twist"]
        );
        assert_eq!(one[1].findings[0].rule, Rule::LoadError);
        let s = summarize(&one);
        assert_eq!((s.files, s.failed), (3, 1));
        assert_eq!(s.rules.get("load_error"), Some(&1));
    }
}
