//! "Fit to CoR"'s before/after as a table: one row per skinning (LBS, the maps compared, DQS,
//! CoR), aligned columns of volume ratio and distance from CoR, the whole mesh's rows above
//! the selected joint's region's.
//!
//! The cells are [`FitTable`]'s, the very strings `dqview blend` prints, so the panel and the
//! command line cannot disagree.

use crate::analysis::{FIT_COLUMNS, FitCells, FitTable};

/// What each column's heading explains on hover, in [`FIT_COLUMNS`]' order.
const COLUMN_HOVER: [&str; 3] = [
    "volume (area for an open mesh) over the rest pose's",
    "mean vertex distance from the CoR skinning, % of the rest bounding-box diagonal",
    "largest vertex distance from the CoR skinning, % of the rest bounding-box diagonal",
];

/// The probe name of one cell: `fit <section> <row label> <column>` (section `whole` or
/// `region`, column one of [`FIT_COLUMNS`] or `label`).
#[must_use]
pub fn cell_probe(section: &str, row: &str, column: &str) -> String {
    format!("fit {section} {row} {column}")
}

/// The table at the panel's text size: a heading row, then the whole mesh's rows and, when
/// there is a region, its rows under its own heading, every number in its column.
pub fn fit_table_ui(ui: &mut egui::Ui, table: &FitTable) {
    if let Some(joint) = &table.joint {
        ui.label(format!("region: vertices weighted to {joint}"));
    }
    egui::Grid::new("dqview_fit_table")
        .num_columns(1 + FIT_COLUMNS.len())
        .striped(true)
        .show(ui, |ui| {
            ui.label("");
            for (heading, hover) in FIT_COLUMNS.iter().zip(COLUMN_HOVER) {
                ui.strong(*heading).on_hover_text(hover);
            }
            ui.end_row();
            let whole = table
                .rows
                .iter()
                .map(|r| (r.label.as_str(), Some(&r.whole)));
            section_ui(ui, "whole", "whole mesh", whole);
            if table.rows.iter().any(|r| r.region.is_some()) {
                let region = table
                    .rows
                    .iter()
                    .map(|r| (r.label.as_str(), r.region.as_ref()));
                section_ui(ui, "region", "region", region);
            }
        });
}

/// One section's heading row, then a row per skinning (blank where it has no numbers).
fn section_ui<'a>(
    ui: &mut egui::Ui,
    section: &str,
    heading: &str,
    rows: impl Iterator<Item = (&'a str, Option<&'a FitCells>)>,
) {
    ui.strong(heading);
    ui.end_row();
    for (label, cells) in rows {
        let r = ui.label(label);
        super::probe::record(ui, &cell_probe(section, label, "label"), r.rect);
        for (k, column) in FIT_COLUMNS.iter().enumerate() {
            let text = cells.and_then(|c| c.cells().get(k).copied()).unwrap_or("");
            let r = ui.label(text);
            super::probe::record(ui, &cell_probe(section, label, column), r.rect);
        }
        ui.end_row();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{FitComparison, FitMeasure, FitRow};
    use crate::ui::input_order::frame as headless_frame;

    fn measure(ratio: f64, cor_mean: f32, cor_max: f32) -> FitMeasure {
        FitMeasure {
            ratio: Some(ratio),
            cor_mean,
            cor_max,
        }
    }

    /// A comparison shaped like a real one: labels of different lengths, numbers of
    /// different widths (12.345% beside 0.000%).
    fn comparison() -> FitComparison {
        let row = |label: &str, whole: FitMeasure, region: FitMeasure| FitRow {
            label: label.into(),
            whole,
            region: Some(region),
        };
        FitComparison {
            joint: Some("mixamorig:LeftForeArm".into()),
            rows: vec![
                row(
                    "LBS",
                    measure(0.8675, 0.00681, 0.12345),
                    measure(0.6027, 0.01919, 0.04326),
                ),
                row(
                    "hybrid joint flags",
                    measure(0.9170, 0.0036, 0.02529),
                    measure(0.6801, 0.0103, 0.02529),
                ),
                row(
                    "hybrid as stored",
                    measure(0.95, 0.001, 0.02),
                    measure(0.9, 0.002, 0.02),
                ),
                row(
                    "hybrid fitted",
                    measure(0.9979, 0.0001, 0.00188),
                    measure(0.995, 0.00028, 0.00188),
                ),
                row(
                    "DQS",
                    measure(0.9989, 0.00013, 0.00198),
                    measure(0.9969, 0.00037, 0.00198),
                ),
                row("CoR", measure(0.9987, 0.0, 0.0), measure(1.0031, 0.0, 0.0)),
            ],
        }
    }

    /// The probes of `table` laid out in a panel `width` points wide (two frames: the grid
    /// sizes its columns from the first), and the panel's content rectangle.
    fn laid_out(table: &FitTable, width: f32) -> (crate::ui::probe::Probes, egui::Rect) {
        let ctx = egui::Context::default();
        let mut content = egui::Rect::NOTHING;
        for frame in 0..3 {
            headless_frame(&ctx, f64::from(frame), Vec::new(), |ui| {
                egui::Panel::left("controls")
                    .exact_size(width)
                    .resizable(false)
                    .show(ui, |ui| {
                        content = ui.max_rect();
                        fit_table_ui(ui, table);
                    });
            });
        }
        (crate::ui::probe::take(&ctx), content)
    }

    #[test]
    fn every_column_lines_up_across_rows_and_sections() {
        let table = comparison().table();
        let (probes, content) = laid_out(&table, 310.0);
        let mut columns = vec!["label"];
        columns.extend(FIT_COLUMNS);
        let mut lefts = Vec::new();
        for column in &columns {
            let xs: Vec<f32> = ["whole", "region"]
                .iter()
                .flat_map(|section| {
                    table.rows.iter().map(|r| {
                        let name = cell_probe(section, &r.label, column);
                        probes
                            .get(&name)
                            .unwrap_or_else(|| panic!("no probe {name}: {probes:?}"))
                            .rect
                            .min
                            .x
                    })
                })
                .collect();
            assert_eq!(xs.len(), 2 * table.rows.len());
            assert!(
                xs.iter().all(|&x| (x - xs[0]).abs() < 0.01),
                "column {column} not aligned: {xs:?}"
            );
            lefts.push(xs[0]);
        }
        // The columns in order, apart, and no cell past the panel's right edge at its default
        // width.
        assert!(lefts.windows(2).all(|w| w[1] > w[0] + 20.0), "{lefts:?}");
        let right = probes
            .values()
            .map(|p| p.rect.max.x)
            .fold(f32::MIN, f32::max);
        assert!(
            right <= content.max.x + 0.5,
            "the table reaches {right}, the panel ends at {}",
            content.max.x
        );
        // Each row's cells sit on one line (nothing wrapped), at the panel's body text height.
        let body = egui::TextStyle::Body.resolve(&egui::Style::default()).size;
        for p in probes.values() {
            assert!(p.rect.height() < 2.0 * body, "{p:?}");
        }
    }

    #[test]
    fn the_grid_shows_the_printed_cells() {
        let table = comparison().table();
        let ctx = egui::Context::default();
        let mut texts = Vec::new();
        for frame in 0..2 {
            let shapes = headless_frame(&ctx, f64::from(frame), Vec::new(), |ui| {
                fit_table_ui(ui, &table);
            });
            texts = shapes
                .iter()
                .filter_map(|s| match &s.shape {
                    egui::Shape::Text(t) => Some(t.galley.text().to_owned()),
                    _ => None,
                })
                .collect();
        }
        for row in &table.rows {
            for cells in [Some(&row.whole), row.region.as_ref()]
                .into_iter()
                .flatten()
            {
                for cell in cells.cells() {
                    assert!(texts.iter().any(|t| t == cell), "{cell} in {texts:?}");
                }
            }
        }
        // And the CLI's lines carry the same cells in the same order.
        let lines = table.lines();
        assert_eq!(lines.len(), 1 + table.rows.len());
        assert!(lines[2].contains("volume 0.9170, CoR distance 0.360% mean 2.529% max"));
        assert!(lines[2].ends_with("| volume 0.6801, CoR distance 1.030% mean 2.529% max"));
        assert!(lines[1].contains("12.345% max"), "{}", lines[1]);
    }
}
