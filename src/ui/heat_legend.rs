//! The heatmap views' range choice and colour bar (displacement, collapse).

use egui::{Color32, Pos2, Rect, Stroke, vec2};

use crate::analysis::{
    HeatQuantity, HeatRange, LengthScale, heat_decimals, heat_value_text, heat_value_with_length,
};
use crate::render::heat_rgb;

/// How a heatmap's colour range is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeatRangeMode {
    /// From the pose on screen: its largest value is red (recomputed as the pose changes).
    #[default]
    Auto,
    /// The last auto range, kept while the pose changes, so colours compare across frames.
    Hold,
    /// The fixed scale: displacement 0..10% of the diagonal, collapse 0..2.
    Fixed,
}

/// The heat range picker, shown under the shading menu of a heatmap view.
pub fn heat_range_ui(
    ui: &mut egui::Ui,
    mode: &mut HeatRangeMode,
    shown: Option<(HeatQuantity, HeatRange)>,
) {
    ui.horizontal(|ui| {
        ui.label("range");
        for (m, label, hover) in [
            (
                HeatRangeMode::Auto,
                "auto",
                "red is the largest value of the pose on screen",
            ),
            (
                HeatRangeMode::Hold,
                "hold",
                "keep the current range while the pose changes",
            ),
            (
                HeatRangeMode::Fixed,
                "fixed",
                "displacement 0..10% of the diagonal, collapse 0..2",
            ),
        ] {
            let r = ui.selectable_value(mode, m, label).on_hover_text(hover);
            super::probe::record(ui, &format!("heat {label}"), r.rect);
        }
        if let Some((quantity, range)) = shown {
            let d = heat_decimals(quantity, range);
            let (lo, hi) = (
                heat_value_text(quantity, range.lo, d),
                heat_value_text(quantity, range.hi, d),
            );
            ui.small(format!("{lo} .. {hi}"));
        }
    });
}

/// Height of the colour bar with its numbers, in points.
const BAR_BOX_HEIGHT: f32 = 30.0;

/// Draws the colour bar of `range` in the top right corner of `view` (below its caption; the
/// status line has the bottom): the heat scale, the numbers at its ends and middle (with the
/// length in the file's units for displacement, when `length` is known), and what it measures.
pub fn paint_heat_legend(
    painter: &egui::Painter,
    view: Rect,
    quantity: HeatQuantity,
    range: HeatRange,
    length: Option<LengthScale>,
) -> Option<Rect> {
    let d = heat_decimals(quantity, range);
    let mid = 0.5 * (range.lo + range.hi);
    let texts =
        [range.lo, mid, range.hi].map(|v| heat_value_with_length(quantity, v, d, range, length));
    let title = match (quantity, length.and_then(LengthScale::diagonal_text)) {
        (HeatQuantity::Displacement, Some(diagonal)) => {
            format!("|LBS - DQS| / diagonal ({diagonal})")
        }
        (HeatQuantity::Displacement, None) => "|LBS - DQS| / diagonal".to_owned(),
        (HeatQuantity::Collapse, _) => "volume ratio".to_owned(),
    };
    paint_bar(painter, view, &title, &texts)
}

/// Draws the paint mode's legend: the beta each colour is, 0 (LBS) to 1 (DQS), as the mesh
/// shows the map while painting.
pub fn paint_beta_legend(painter: &egui::Painter, view: Rect) -> Option<Rect> {
    let texts = ["0 LBS", "0.5", "1 DQS"].map(str::to_owned);
    paint_bar(painter, view, "beta: DQS share of the blend", &texts)
}

/// A heat-coloured bar with `texts` at its left end, middle and right end and `title` above,
/// in the top right corner of `view`; returns where it went (`None`: the view is too small).
fn paint_bar(
    painter: &egui::Painter,
    view: Rect,
    title: &str,
    texts: &[String; 3],
) -> Option<Rect> {
    let font = egui::FontId::monospace(11.0);
    let text_width = |t: &str| {
        painter
            .layout_no_wrap(t.to_owned(), font.clone(), Color32::WHITE)
            .size()
            .x
    };
    // Wide enough for the three numbers side by side with a gap, and for the title.
    let needed = texts.iter().map(|t| text_width(t)).sum::<f32>() + 36.0;
    let width = needed
        .max(text_width(title) + 4.0)
        .max((view.width() * 0.5).min(320.0))
        .max(120.0)
        .min(view.width() - 16.0);
    if width < 60.0 || view.height() < 4.0 * BAR_BOX_HEIGHT {
        return None;
    }
    let min = Pos2::new(view.max.x - 8.0 - width, view.min.y + 54.0);
    let frame = Rect::from_min_size(min, vec2(width, BAR_BOX_HEIGHT));
    painter.rect_filled(frame, 3.0, Color32::from_black_alpha(170));
    let bar = Rect::from_min_size(min + vec2(6.0, 4.0), vec2(width - 12.0, 8.0));
    let steps = 48;
    for k in 0..steps {
        let t0 = k as f32 / steps as f32;
        let [r, g, b] = heat_rgb((k as f32 + 0.5) / steps as f32);
        let cell = Rect::from_min_max(
            Pos2::new(bar.min.x + t0 * bar.width(), bar.min.y),
            Pos2::new(
                bar.min.x + (t0 + 1.0 / steps as f32) * bar.width() + 0.5,
                bar.max.y,
            ),
        );
        painter.rect_filled(cell, 0.0, Color32::from(egui::Rgba::from_rgb(r, g, b)));
    }
    painter.rect_stroke(
        bar,
        0.0,
        Stroke::new(1.0, Color32::from_gray(200)),
        egui::StrokeKind::Outside,
    );
    let text_y = bar.max.y + 2.0;
    // The middle number only where it clears both ends.
    let mid_fits = texts.iter().map(|t| text_width(t)).sum::<f32>() + 24.0 <= bar.width();
    for (i, (x, align)) in [
        (bar.min.x, egui::Align2::LEFT_TOP),
        (bar.center().x, egui::Align2::CENTER_TOP),
        (bar.max.x, egui::Align2::RIGHT_TOP),
    ]
    .into_iter()
    .enumerate()
    {
        if i == 1 && !mid_fits {
            continue;
        }
        painter.text(
            Pos2::new(x, text_y),
            align,
            &texts[i],
            font.clone(),
            Color32::WHITE,
        );
    }
    painter.text(
        Pos2::new(frame.min.x + 2.0, frame.min.y - 2.0),
        egui::Align2::LEFT_BOTTOM,
        title,
        font,
        Color32::from_gray(230),
    );
    Some(frame.with_min_y(frame.min.y - 14.0))
}
