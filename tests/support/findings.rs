//! Reading `dqview check`'s data findings in tests.

use dqview::check::{FileReport, Finding};
use dqview::scene::FaultKind;

/// The one finding of `kind` in `report` whose place `at` accepts; panics (naming `case`) when
/// the file passed or there is not exactly one.
pub fn one_data_finding<'r>(
    report: &'r FileReport,
    case: &str,
    kind: FaultKind,
    at: impl Fn(&str) -> bool,
) -> &'r Finding {
    assert!(!report.ok, "{case}: check fails it: {:?}", report.findings);
    let found: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.data == Some(kind) && at(f.place.as_deref().unwrap_or_default()))
        .collect();
    match found.as_slice() {
        [f] => f,
        _ => panic!(
            "{case}: one {kind:?} finding at its place, got {:?}",
            report.findings
        ),
    }
}
