//! The ratio plot's legend, as a strip above the data (it can fold away) instead of a box over
//! the curves, and which curves lie exactly under another one.

use egui::{Color32, Stroke};

use super::plot::mode_color;
use crate::analysis::RatioSeries;
use crate::skin::SkinningMode;

/// Two curves closer than this (relative to the ratio, at every sample) draw as one line.
pub const IDENTICAL_TOLERANCE: f64 = 1e-6;

/// One line of the plot as the legend lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct LegendEntry {
    /// The line's name, as the plot names it.
    pub name: String,
    /// Its colour.
    pub color: Color32,
    /// Whether it is drawn dashed (the selected joint's region).
    pub dashed: bool,
    /// The name of a line drawn later that covers this one exactly, if any.
    pub under: Option<String>,
}

/// Whether `a` and `b` have the same samples within [`IDENTICAL_TOLERANCE`].
#[must_use]
pub fn identical(a: &[f64], b: &[f64]) -> bool {
    !a.is_empty()
        && a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= IDENTICAL_TOLERANCE * x.abs().max(y.abs()).max(1.0))
}

/// The lines of `series` in drawing order (whole mesh, then the region dashed), each with the
/// later line that hides it when their samples are identical (LBS under a hybrid whose betas
/// are all 0, say).
#[must_use]
pub fn legend_entries(series: &RatioSeries) -> Vec<LegendEntry> {
    let mut lines: Vec<(String, Color32, bool, &[f64])> = SkinningMode::ALL
        .into_iter()
        .filter(|&m| !series.of(m).is_empty())
        .map(|m| {
            (
                m.short_label().to_owned(),
                mode_color(m),
                false,
                series.of(m),
            )
        })
        .collect();
    if let Some(region) = &series.region {
        lines.extend(
            SkinningMode::ALL
                .into_iter()
                .filter(|&m| !series.region_of(m).is_empty())
                .map(|m| {
                    let name = format!("{} {}", m.short_label(), region.name);
                    (name, mode_color(m), true, series.region_of(m))
                }),
        );
    }
    lines
        .iter()
        .enumerate()
        .map(|(i, (name, color, dashed, values))| LegendEntry {
            name: name.clone(),
            color: *color,
            dashed: *dashed,
            // The last identical line drawn after this one is the one on top.
            under: lines[i + 1..]
                .iter()
                .rev()
                .find(|(_, _, d, other)| d == dashed && identical(values, other))
                .map(|(n, ..)| n.clone()),
        })
        .collect()
}

/// The legend strip: a fold toggle, then each line's swatch and name; a line hidden under
/// another says so. Entries flow whole onto new rows and a name too long for the strip is cut
/// with an ellipsis (the full one on hover), so no name wraps under the strip. Returns the
/// strip's rectangle.
pub fn legend_strip_ui(
    ui: &mut egui::Ui,
    entries: &[LegendEntry],
    folded: &mut bool,
) -> egui::Rect {
    ui.horizontal_wrapped(|ui| {
        let label = if *folded {
            "show legend"
        } else {
            "hide legend"
        };
        if ui
            .small_button(label)
            .on_hover_text("show or hide the legend")
            .clicked()
        {
            *folded = !*folded;
        }
        if *folded {
            return;
        }
        for entry in entries {
            entry_ui(ui, entry);
            ui.add_space(6.0);
        }
    })
    .response
    .rect
}

/// The swatch's size in points.
const SWATCH: egui::Vec2 = egui::vec2(18.0, 10.0);

/// Points between the swatch and the name.
const SWATCH_GAP: f32 = 4.0;

/// One entry as a single widget (swatch and name never part), its name cut to the strip's width.
fn entry_ui(ui: &mut egui::Ui, entry: &LegendEntry) {
    let text = match &entry.under {
        Some(top) => format!("{} (under {top}: identical)", entry.name),
        None => entry.name.clone(),
    };
    let max_text = (ui.max_rect().width() - SWATCH.x - SWATCH_GAP).max(24.0);
    let galley = egui::WidgetText::from(egui::RichText::new(&text).small()).into_galley(
        ui,
        Some(egui::TextWrapMode::Truncate),
        max_text,
        egui::TextStyle::Small,
    );
    let size = egui::vec2(
        SWATCH.x + SWATCH_GAP + galley.size().x,
        galley.size().y.max(SWATCH.y),
    );
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::hover());
    let swatch_rect = egui::Rect::from_center_size(
        egui::pos2(rect.min.x + SWATCH.x * 0.5, rect.center().y),
        SWATCH,
    );
    swatch(ui, swatch_rect, entry.color, entry.dashed);
    let text_pos = egui::pos2(
        swatch_rect.max.x + SWATCH_GAP,
        rect.center().y - galley.size().y * 0.5,
    );
    let elided = galley.elided;
    ui.painter()
        .galley(text_pos, galley, ui.visuals().text_color());
    let hover = match &entry.under {
        Some(top) => Some(format!(
            "{} has the same values as {top} at every sample, so its line is hidden under it",
            entry.name
        )),
        None => elided.then(|| entry.name.clone()),
    };
    if let Some(hover) = hover {
        response.on_hover_text(hover);
    }
}

/// A short line in `color` across `rect`, solid or dashed, as the curve is drawn.
fn swatch(ui: &egui::Ui, rect: egui::Rect, color: Color32, dashed: bool) {
    let y = rect.center().y;
    let stroke = Stroke::new(2.0, color);
    if dashed {
        for k in 0..3 {
            let x0 = rect.min.x + k as f32 * 6.5;
            ui.painter()
                .line_segment([egui::pos2(x0, y), egui::pos2(x0 + 4.0, y)], stroke);
        }
    } else {
        ui.painter().line_segment(
            [egui::pos2(rect.min.x, y), egui::pos2(rect.max.x, y)],
            stroke,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Measure, RegionSeries, SeriesAxis};

    fn series(lbs: Vec<f64>, dqs: Vec<f64>, hybrid: Vec<f64>) -> RatioSeries {
        RatioSeries {
            measure: Measure::Volume,
            axis: SeriesAxis::ClipTime { clip: 0 },
            x: vec![0.0, 0.5, 1.0],
            ratios: [lbs, dqs, hybrid, Vec::new(), Vec::new(), Vec::new()],
            dqs_flipped: vec![false; 3],
            region: None,
        }
    }

    #[test]
    fn a_curve_under_an_identical_one_is_named() {
        let lbs = vec![1.0, 0.9, 0.8];
        let s = series(lbs.clone(), vec![1.0, 0.99, 0.98], lbs.clone());
        let entries = legend_entries(&s);
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        let lbs_entry = &entries[0];
        assert_eq!(lbs_entry.under.as_deref(), Some(entries[2].name.as_str()));
        assert!(entries[1].under.is_none() && entries[2].under.is_none());
        // A hair apart is still one line; a visible difference is two.
        let nudged = vec![1.0, 0.9 + 1e-8, 0.8];
        assert!(
            legend_entries(&series(lbs.clone(), lbs.clone(), nudged))[0]
                .under
                .is_some()
        );
        let apart = vec![1.0, 0.9, 0.801];
        let e = legend_entries(&series(lbs.clone(), vec![1.0; 3], apart));
        assert!(e.iter().all(|e| e.under.is_none()), "{e:?}");
    }

    #[test]
    fn region_lines_are_listed_dashed_and_compared_among_themselves() {
        let mut s = series(vec![1.0, 0.9, 0.8], vec![1.0; 3], vec![1.0, 0.95, 0.9]);
        s.region = Some(RegionSeries {
            joint: 3,
            name: "elbow".into(),
            vertices: 10,
            measure: Measure::Volume,
            ratios: [
                vec![1.0; 3],
                vec![1.0; 3],
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
            ],
        });
        let e = legend_entries(&s);
        assert_eq!(e.len(), 5);
        assert!(e[3].dashed && e[3].name.ends_with("elbow"), "{:?}", e[3]);
        assert_eq!(e[3].under.as_deref(), Some(e[4].name.as_str()));
        // DQS (solid, all 1) is not "under" the region's DQS (dashed, all 1): both show.
        assert!(e[1].under.is_none());
    }
}
