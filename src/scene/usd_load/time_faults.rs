//! The stage's time metadata checked: a time code rate that gives no seconds, a frame rate
//! Pixar's USD refuses, a time range that runs backwards.

use super::source::UsdStage;

use super::read;
use crate::scene::{DataFault, FaultKind};

/// The time code rate dqview uses: the stage's when positive and finite, else UsdStage's 24.
#[must_use]
pub(super) fn usable_time_codes_per_second(stage: &UsdStage) -> f64 {
    let tcps = stage.time_codes_per_second();
    if tcps.is_finite() && tcps > 0.0 {
        tcps
    } else {
        24.0
    }
}

/// The faults of the stage's `timeCodesPerSecond`, `framesPerSecond` and time range.
#[must_use]
pub(super) fn time_faults(stage: &UsdStage) -> Vec<DataFault> {
    let number = |key: &str| read::stage_number(stage, key);
    let bad_rate = |v: &f64| !(v.is_finite() && *v > 0.0);
    let mut faults = Vec::new();
    if let Some(tcps) = number("timeCodesPerSecond").filter(bad_rate) {
        let action = format!("{tcps} gives no key times in seconds; 24 (UsdStage's fallback) used");
        faults.push(DataFault::new(
            FaultKind::TimeCodesPerSecond,
            "stage",
            1,
            None,
            action,
        ));
    }
    if let Some(fps) = number("framesPerSecond").filter(bad_rate) {
        let action =
            format!("{fps} ignored: playback uses the time code rate; not written to any layer");
        faults.push(DataFault::new(
            FaultKind::FramesPerSecond,
            "stage",
            1,
            None,
            action,
        ));
    }
    if let (Some(start), Some(end)) = (number("startTimeCode"), number("endTimeCode"))
        && start > end
    {
        let action = format!(
            "{start} to {end} ignored: clips run over their samples' times; not written to any layer"
        );
        faults.push(DataFault::new(
            FaultKind::InvertedTimeRange,
            "stage",
            1,
            None,
            action,
        ));
    }
    faults
}
