//! Bad data in a UsdSkel stage is a finding (issue 35, items 1 to 3): each case is the shared
//! `tube_lbs.usda` with one value broken in the test (the campaign's cases: NaN points, zero and
//! NaN rotation keys, all-zero and singular bindTransforms, a time rate of 0 or -24,
//! framesPerSecond 0, an inverted time range), and `check` fails it with a finding that names
//! the problem; the original passes. A layer `blend` writes over a stage with bad metadata opens
//! in Pixar's USD.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use dqview::check::{CheckOptions, Rule, Severity, check_model};
use dqview::scene::FaultKind;

/// One broken copy: its name, the text replaced, and the finding it must get.
struct Case {
    name: &'static str,
    from: &'static str,
    to: &'static str,
    rule: Rule,
    kind: FaultKind,
    place: &'static str,
    first: Option<usize>,
}

/// The tube's skeleton's rest and bind matrices of joint 1 (`root/tip`, one unit up).
const TIP_BIND: &str =
    "( (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 1, 0, 1) )]\n        uniform token[] joints";

/// The campaign's USD cases, each one replacement in `tube_lbs.usda`.
fn cases() -> Vec<Case> {
    let case = |name, from, to, rule, kind, place, first| Case {
        name,
        from,
        to,
        rule,
        kind,
        place,
        first,
    };
    vec![
        case(
            "nan_points",
            "point3f[] points = [(0.25, -1, -0), (0.23096988, -1, -0.09567086)",
            "point3f[] points = [(0.25, -1, -0), (nan, -1, -0.09567086)",
            Rule::NonFiniteData,
            FaultKind::NonFinitePositions,
            "/Tube/Geom/Tube",
            Some(1),
        ),
        case(
            "zero_rotation",
            "2: [(1, 0, 0, 0), (0.9914449, 0, 0.13052619, 0)]",
            "2: [(1, 0, 0, 0), (0, 0, 0, 0)]",
            Rule::DegenerateRig,
            FaultKind::ZeroRotationKeys,
            "SkelAnimation",
            Some(2),
        ),
        case(
            "nan_rotation",
            "2: [(1, 0, 0, 0), (0.9914449, 0, 0.13052619, 0)]",
            "2: [(1, 0, 0, 0), (nan, 0, 0.13052619, 0)]",
            Rule::NonFiniteData,
            FaultKind::NonFiniteKeyValues,
            "channel",
            Some(2),
        ),
        case(
            "zero_bind",
            TIP_BIND,
            "( (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0) )]\n        uniform token[] joints",
            Rule::DegenerateRig,
            FaultKind::SingularBindMatrices,
            "bindTransforms",
            Some(1),
        ),
        case(
            "singular_bind",
            TIP_BIND,
            "( (1, 0, 0, 0), (0, 0, 0, 0), (0, 0, 1, 0), (0, 1, 0, 1) )]\n        uniform token[] joints",
            Rule::DegenerateRig,
            FaultKind::SingularBindMatrices,
            "bindTransforms",
            Some(1),
        ),
        case(
            "zero_time_rate",
            "timeCodesPerSecond = 24",
            "timeCodesPerSecond = 0",
            Rule::DegenerateRig,
            FaultKind::TimeCodesPerSecond,
            "stage",
            None,
        ),
        case(
            "negative_time_rate",
            "timeCodesPerSecond = 24",
            "timeCodesPerSecond = -24",
            Rule::DegenerateRig,
            FaultKind::TimeCodesPerSecond,
            "stage",
            None,
        ),
        case(
            "zero_frame_rate",
            "framesPerSecond = 24",
            "framesPerSecond = 0",
            Rule::DegenerateRig,
            FaultKind::FramesPerSecond,
            "stage",
            None,
        ),
        case(
            "inverted_range",
            "startTimeCode = 0",
            "startTimeCode = 30",
            Rule::DataFallback,
            FaultKind::InvertedTimeRange,
            "stage",
            None,
        ),
    ]
}

/// The tube with `case`'s replacement, written to `dir`.
fn broken_copy(tube: &str, case: &Case, dir: &Path) -> PathBuf {
    assert_eq!(
        tube.matches(case.from).count(),
        1,
        "{}: the text to replace",
        case.name
    );
    let file = dir.join(format!("{}.usda", case.name));
    std::fs::write(&file, tube.replacen(case.from, case.to, 1)).expect("write");
    file
}

/// A quick check: every rule, two samples a clip; the LBS collapse threshold below what the
/// tube's 180-degree twist loses, so a strict check of the original passes.
fn check_options(strict: bool) -> CheckOptions {
    CheckOptions {
        samples: 2,
        strict,
        min_volume_ratio: 0.5,
        ..CheckOptions::DEFAULT
    }
}

#[test]
fn check_fails_each_broken_stage_with_a_finding_that_names_it_and_passes_the_original() {
    let test = "check_fails_each_broken_stage_with_a_finding_that_names_it";
    let Some(usd) = support::data_dir("DQVIEW_USD", test) else {
        return;
    };
    let original = usd.join("tube_lbs.usda");
    let tube = std::fs::read_to_string(&original).expect("tube");
    for strict in [false, true] {
        let report = check_model(original.to_str().expect("utf-8"), &check_options(strict));
        assert!(
            report.ok,
            "the original passes (strict {strict}): {:?}",
            report.findings
        );
    }
    let dir = support::scratch_dir("bad_data_usd_check");
    for case in cases() {
        let file = broken_copy(&tube, &case, &dir);
        let file = file.to_str().expect("utf-8");
        // A documented fallback is a warning: it fails the file under --strict only.
        let strict = case.rule.severity() == Severity::Warning;
        let report = check_model(file, &check_options(strict));
        let f = support::one_data_finding(&report, case.name, case.kind, |_| true);
        assert_eq!(f.rule, case.rule, "{}", case.name);
        let place = f.place.as_deref().unwrap_or_default();
        assert!(place.contains(case.place), "{}: place {place}", case.name);
        assert_eq!(f.first_index, case.first, "{}: {}", case.name, f.detail);
        assert!(
            f.detail.contains(case.kind.what()),
            "{}: {}",
            case.name,
            f.detail
        );
    }
}

/// Pixar's USD opens `layer` and reads its frame and time code rates (`None` when it refuses).
fn pixar_rates(layer: &Path) -> Option<(f64, f64)> {
    let script = "import sys\nfrom pxr import Usd\ns = Usd.Stage.Open(sys.argv[1])\nprint(s.GetFramesPerSecond(), s.GetTimeCodesPerSecond())";
    let o = Command::new("python3")
        .args(["-c", script, layer.to_str().expect("utf-8")])
        .output()
        .expect("python3");
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let mut numbers = text.split_whitespace().map(|x| x.parse::<f64>().ok());
    match (
        o.status.success(),
        numbers.next().flatten(),
        numbers.next().flatten(),
    ) {
        (true, Some(fps), Some(tcps)) => Some((fps, tcps)),
        _ => None,
    }
}

#[test]
fn a_blend_layer_over_bad_metadata_opens_in_pixars_usd() {
    let test = "a_blend_layer_over_bad_metadata_opens_in_pixars_usd";
    let Some(usd) = support::data_dir("DQVIEW_USD", test) else {
        return;
    };
    if !support::pxr_available(test) {
        return;
    }
    let tube = std::fs::read_to_string(usd.join("tube_lbs.usda")).expect("tube");
    let dir = support::scratch_dir("bad_data_usd_blend");
    for name in ["zero_frame_rate", "negative_time_rate"] {
        let case = cases().into_iter().find(|c| c.name == name).expect("case");
        let model = broken_copy(&tube, &case, &dir);
        let layer = dir.join(format!("{name}_fix.usda"));
        let o = support::dqview_in(
            &[
                "blend",
                model.to_str().expect("utf-8"),
                "--clip",
                "0",
                "--samples",
                "3",
                "--out",
                layer.to_str().expect("utf-8"),
            ],
            &dir,
        );
        let err = support::stderr_of(&o);
        assert!(o.status.success(), "{name}: {err}");
        assert!(
            err.contains(case.kind.what()),
            "{name}: the fault on stderr: {err}"
        );
        let key = name.strip_suffix("_rate").map_or("", |k| {
            if k == "zero_frame" {
                "framesPerSecond"
            } else {
                "timeCodesPerSecond"
            }
        });
        assert!(
            err.contains(&format!("the input's {key} = ")) && err.contains("is not written ("),
            "{name}: {err}"
        );
        let text = std::fs::read_to_string(&layer).expect("layer");
        assert!(!text.contains(key), "{name}: {key} is left out: {text}");
        let (fps, tcps) =
            pixar_rates(&layer).unwrap_or_else(|| panic!("{name}: Pixar opens {text}"));
        assert!(fps > 0.0 && tcps > 0.0, "{name}: rates {fps} {tcps}");
    }
}
