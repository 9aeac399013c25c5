//! The ratio plot's axis ticks: at least three labelled, evenly spaced ticks over any range,
//! with labels that differ (egui_plot's own spacer can leave a narrow range with only "1").

use egui_plot::{AxisHints, GridInput, GridMark};

/// Fewest labelled ticks an axis shows.
pub const MIN_TICKS: usize = 3;

/// The plot's grid spacing in points (its minimum is what [`GridInput::base_step_size`] scales).
pub const GRID_SPACING: egui::Rangef = egui::Rangef {
    min: 8.0,
    max: 60.0,
};

/// Points wanted between y ticks (a row of small text and some air).
pub const Y_TICK_GAP: f64 = 28.0;

/// Points wanted between x ticks (a label like "-180.5" and some air).
pub const X_TICK_GAP: f64 = 80.0;

/// Evenly spaced ticks: multiples of `step` inside a range.
#[derive(Clone, Debug, PartialEq)]
pub struct Ticks {
    /// The tick positions, ascending.
    pub values: Vec<f64>,
    /// The distance between two ticks: 1, 2 or 5 times a power of ten.
    pub step: f64,
}

/// Ticks inside `lo..=hi` (either order): at least [`MIN_TICKS`], and at most `max_ticks` when a
/// 1-2-5 step allows both. A range narrower than 1e-12 of its magnitude is first widened
/// about its centre to 1% of it (to 1 at 0). No ticks for a non-finite bound.
#[must_use]
pub fn pick_ticks(lo: f64, hi: f64, max_ticks: usize) -> Ticks {
    let mut chosen = Ticks {
        values: Vec::new(),
        step: 0.0,
    };
    if !(lo.is_finite() && hi.is_finite()) {
        return chosen;
    }
    let (lo, hi) = padded(lo.min(hi), lo.max(hi));
    // Halves keep the width finite for ranges near f64::MAX.
    let decade = ((hi * 0.5 - lo * 0.5).log10() + 2f64.log10()).floor() as i32;
    // From a step near the width down: the largest step with enough ticks, then smaller ones
    // while they stay within `max_ticks`.
    for k in (decade - 3..=decade).rev() {
        for mantissa in [5.0, 2.0, 1.0] {
            let step = mantissa * 10f64.powi(k);
            if !(step.is_finite() && step > 0.0) {
                continue;
            }
            let values = multiples(step, lo, hi);
            if values.len() < MIN_TICKS {
                continue;
            }
            if !chosen.values.is_empty() && values.len() > max_ticks {
                return chosen;
            }
            chosen = Ticks { values, step };
        }
    }
    chosen
}

/// `lo..hi` widened when it is too narrow for distinct ticks.
fn padded(lo: f64, hi: f64) -> (f64, f64) {
    let magnitude = lo.abs().max(hi.abs());
    if hi - lo > magnitude * 1e-12 {
        return (lo, hi);
    }
    let centre = lo * 0.5 + hi * 0.5;
    let half = if magnitude > 0.0 {
        magnitude * 0.005
    } else {
        0.5
    };
    (centre - half, centre + half)
}

/// The multiples of `step` in `lo..=hi`, ascending.
fn multiples(step: f64, lo: f64, hi: f64) -> Vec<f64> {
    let first = (lo / step).ceil() - 1.0;
    let last = (hi / step).floor() + 1.0;
    if !(last - first).is_finite() || last - first > 10_000.0 {
        return Vec::new();
    }
    let count = (last - first) as usize + 1;
    (0..count)
        // `+ 0.0` turns -0 into 0, so no tick reads "-0".
        .map(|j| (first + j as f64) * step + 0.0)
        .filter(|v| (lo..=hi).contains(v))
        .collect()
}

/// A tick's label: just enough decimals for `step`, so neighbours never read the same
/// (scientific notation for steps below 1e-6 or from 1e6).
#[must_use]
pub fn tick_label(value: f64, step: f64) -> String {
    if value == 0.0 {
        return "0".to_owned();
    }
    let step_exponent = (step.abs().log10() + 1e-9).floor();
    if step.abs() < 1e-6 || step.abs() >= 1e6 {
        let value_exponent = value.abs().log10().floor();
        let digits = (value_exponent - step_exponent).max(0.0) as usize;
        return format!("{value:.digits$e}");
    }
    let decimals = (-step_exponent).max(0.0) as usize;
    format!("{value:.decimals$}")
}

/// The grid and tick marks of one axis for egui_plot, `gap` points apart where the range allows.
#[must_use]
pub fn grid_marks(input: &GridInput, gap: f64) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    let points_per_unit = f64::from(GRID_SPACING.min) / input.base_step_size.max(f64::MIN_POSITIVE);
    let length = (hi - lo) * points_per_unit;
    let max_ticks = if length.is_finite() {
        (length / gap).max(0.0) as usize + 1
    } else {
        MIN_TICKS
    };
    let ticks = pick_ticks(lo, hi, max_ticks);
    ticks
        .values
        .into_iter()
        .map(|value| GridMark {
            value,
            step_size: ticks.step,
        })
        .collect()
}

/// Axis hints that label every mark [`grid_marks`] gives (egui_plot hides labels closer than
/// its default spacing), in the small text style so three fit even in a short plot.
#[must_use]
pub fn axis_hints(axis: egui_plot::Axis, label: &str) -> AxisHints<'static> {
    let hints = match axis {
        egui_plot::Axis::X => AxisHints::new_x(),
        egui_plot::Axis::Y => AxisHints::new_y().min_thickness(36.0),
    };
    hints
        .label(label)
        .label_spacing(0.0..=1.0)
        .tick_label_font(egui::FontId::proportional(11.0))
        .formatter(|mark, _| tick_label(mark.value, mark.step_size))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ranges of every kind: narrow around 1 (the held-out character's clip), tiny, huge,
    /// negative, reversed and zero-width.
    const RANGES: [(f64, f64); 16] = [
        (0.995, 1.003),
        (0.9999, 1.0001),
        (0.95, 1.0),
        (0.0, 1e-6),
        (-3.0, 7.0),
        (1.79, 1.79),
        (0.0, 0.0),
        (-1e-300, 1e-300),
        (0.0, 1e12),
        (-1e308, 1e308),
        (-360.0, 360.0),
        (0.0, 1.333),
        (-0.02, 0.01),
        (-7.0, -3.0),
        (1.0, 0.98),
        (123_456.7, 123_456.8),
    ];

    fn check(lo: f64, hi: f64, max_ticks: usize) {
        let t = pick_ticks(lo, hi, max_ticks);
        let what = format!("{lo}..{hi} (at most {max_ticks}): {t:?}");
        assert!(t.values.len() >= MIN_TICKS, "{what}");
        let (plo, phi) = padded(lo.min(hi), lo.max(hi));
        assert!(t.values.iter().all(|v| (plo..=phi).contains(v)), "{what}");
        if lo != hi {
            assert_eq!((plo, phi), (lo.min(hi), lo.max(hi)), "{what}");
        }
        for pair in t.values.windows(2) {
            let gap = pair[1] - pair[0];
            assert!((gap - t.step).abs() <= t.step * 1e-6, "{what}: gap {gap}");
        }
        let labels: Vec<String> = t.values.iter().map(|&v| tick_label(v, t.step)).collect();
        let mut unique = labels.clone();
        unique.dedup();
        assert_eq!(unique, labels, "{what}: labels repeat");
        assert!(
            labels.iter().all(|l| l != "-0" && l.len() <= 12),
            "{labels:?}"
        );
    }

    #[test]
    fn every_range_gets_three_distinct_evenly_spaced_ticks() {
        for (lo, hi) in RANGES {
            for max_ticks in [0, 3, 5, 12] {
                check(lo, hi, max_ticks);
            }
        }
    }

    #[test]
    fn a_narrow_range_about_rest_reads_in_thousandths() {
        // The held-out character's clip: egui_plot's spacer labelled only "1" here.
        let t = pick_ticks(0.995, 1.003, 3);
        let labels: Vec<String> = t.values.iter().map(|&v| tick_label(v, t.step)).collect();
        assert_eq!(labels, ["0.996", "0.998", "1.000", "1.002"], "{t:?}");
    }

    #[test]
    fn more_room_gives_more_ticks_up_to_the_limit() {
        assert_eq!(pick_ticks(0.0, 1.0, 3).values.len(), 3);
        let t = pick_ticks(0.0, 1.0, 11);
        assert_eq!((t.values.len(), t.step), (11, 0.1));
        assert_eq!(pick_ticks(0.0, 1.0, 10).values.len(), 6);
        // Labels keep the step's decimals: 1.000 beside 0.995, not "1" beside "0.995".
        assert_eq!(tick_label(1.0, 0.005), "1.000");
        assert_eq!(tick_label(-2.5, 0.5), "-2.5");
        assert_eq!(tick_label(2e12, 5e11), "2.0e12");
        assert_eq!(tick_label(3e-7, 1e-7), "3e-7");
    }

    #[test]
    fn marks_follow_the_axis_length_in_points() {
        // 100 points over 0.995..1.003: three or four marks, never one.
        let input = GridInput {
            bounds: (0.995, 1.003),
            base_step_size: 0.008 / 100.0 * f64::from(GRID_SPACING.min),
        };
        let marks = grid_marks(&input, Y_TICK_GAP);
        assert!((3..=4).contains(&marks.len()), "{marks:?}");
        assert!(pick_ticks(f64::NAN, 1.0, 5).values.is_empty());
    }
}
