//! `non_finite_data`, `degenerate_rig` and `data_fallback`: the loader's [`DataFault`]s as
//! findings. Which rule (and so which severity) a fault gets follows [`FaultKind::severity`],
//! the one rule `inspect` and the viewer print by too.

use super::{Finding, Rule};
use crate::scene::{DataFault, FaultKind, FaultSeverity, Scene};

/// One finding per fault of `scene`, in the loader's order.
pub(super) fn findings(scene: &Scene) -> Vec<Finding> {
    scene.faults.iter().map(finding).collect()
}

/// The rule a fault of `kind` is reported under.
#[must_use]
pub(super) fn rule_of(kind: FaultKind) -> Rule {
    match (kind.severity(), kind.is_non_finite()) {
        (FaultSeverity::Warning, _) => Rule::DataFallback,
        (FaultSeverity::Error, true) => Rule::NonFiniteData,
        (FaultSeverity::Error, false) => Rule::DegenerateRig,
    }
}

/// `fault` as a finding: its message as the detail, its kind, place, count and first index.
fn finding(fault: &DataFault) -> Finding {
    let mut f = Finding::new(rule_of(fault.kind), fault.message());
    f.count = Some(fault.count);
    f.data = Some(fault.kind);
    f.place = Some(fault.place.clone());
    f.first_index = fault.first;
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Severity;

    #[test]
    fn each_kind_is_reported_at_the_severity_the_loader_gives_it() {
        let kinds = [
            FaultKind::NonFinitePositions,
            FaultKind::NonFiniteKeyTimes,
            FaultKind::ZeroRotationKeys,
            FaultKind::SingularBindMatrices,
            FaultKind::FramesPerSecond,
            FaultKind::InvertedTimeRange,
            FaultKind::AnimationWithoutSamples,
        ];
        for kind in kinds {
            let rule = rule_of(kind);
            let expected = match kind.severity() {
                FaultSeverity::Error => Severity::Error,
                FaultSeverity::Warning => Severity::Warning,
            };
            assert_eq!(rule.severity(), expected, "{kind:?} as {rule:?}");
        }
        assert_eq!(rule_of(FaultKind::NonFinitePositions), Rule::NonFiniteData);
        assert_eq!(
            rule_of(FaultKind::SingularBindMatrices),
            Rule::DegenerateRig
        );
        assert_eq!(rule_of(FaultKind::InvertedTimeRange), Rule::DataFallback);
    }

    #[test]
    fn a_finding_carries_the_place_count_and_first_index() {
        let mut scene = Scene::default();
        scene.faults.push(DataFault::new(
            FaultKind::NonFinitePositions,
            "mesh 0 \"Body\" primitive 1",
            3,
            Some(17),
            "drawn nowhere",
        ));
        let [f] = findings(&scene).try_into().expect("one finding");
        assert_eq!(f.rule, Rule::NonFiniteData);
        assert_eq!(f.severity, Severity::Error);
        assert_eq!(f.count, Some(3));
        assert_eq!(f.first_index, Some(17));
        assert_eq!(f.place.as_deref(), Some("mesh 0 \"Body\" primitive 1"));
        assert!(
            f.detail
                .contains("3 vertex positions were not finite (first at index 17)")
        );
    }
}
