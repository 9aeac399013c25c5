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
/// Height of one note line under the numbers, in points.
const NOTE_LINE_HEIGHT: f32 = 14.0;
/// A note's colour: the warnings' amber.
const NOTE_COLOR: Color32 = Color32::from_rgb(240, 200, 90);

/// Draws the colour bar of `range` in the top right corner of `view` (below its caption; the
/// status line has the bottom): the heat scale, the numbers at its ends and middle (with the
/// length in the file's units for displacement, when `length` is known), and what it measures;
/// under the numbers `rest_bind` ([`crate::analysis::RestBind::legend_lines`]) where the file's
/// rest pose is not its bind pose, so colour at rest is not read as the pose's.
pub fn paint_heat_legend(
    painter: &egui::Painter,
    view: Rect,
    quantity: HeatQuantity,
    range: HeatRange,
    length: Option<LengthScale>,
    rest_bind: Option<&[String; 2]>,
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
        (HeatQuantity::CorDistance, Some(diagonal)) => {
            format!("distance from CoR (diagonal {diagonal})")
        }
        (HeatQuantity::CorDistance, None) => "distance from CoR / diagonal".to_owned(),
    };
    let notes = rest_bind.map_or(&[][..], |lines| &lines[..]);
    paint_bar(painter, view, &title, &texts, notes)
}

/// Draws the paint mode's legend: the beta each colour is, 0 (LBS) to 1 (DQS), as the mesh
/// shows the map while painting.
pub fn paint_beta_legend(painter: &egui::Painter, view: Rect) -> Option<Rect> {
    let texts = ["0 LBS", "0.5", "1 DQS"].map(str::to_owned);
    paint_bar(painter, view, "beta: DQS share of the blend", &texts, &[])
}

/// A heat-coloured bar with `texts` at its left end, middle and right end, `title` above and
/// `notes` below, one a line, in the top right corner of `view`; returns where it went
/// (`None`: the view is too small).
fn paint_bar(
    painter: &egui::Painter,
    view: Rect,
    title: &str,
    texts: &[String; 3],
    notes: &[String],
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
    let widest_note = notes
        .iter()
        .map(|t| text_width(t) + 12.0)
        .fold(0.0, f32::max);
    let width = needed
        .max(text_width(title) + 4.0)
        .max(widest_note)
        .max((view.width() * 0.5).min(320.0))
        .max(120.0)
        .min(view.width() - 16.0);
    let box_height = BAR_BOX_HEIGHT + NOTE_LINE_HEIGHT * notes.len() as f32;
    if width < 60.0 || view.height() < 3.0 * BAR_BOX_HEIGHT + box_height {
        return None;
    }
    let min = Pos2::new(view.max.x - 8.0 - width, view.min.y + 54.0);
    let frame = Rect::from_min_size(min, vec2(width, box_height));
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
    for (k, note) in notes.iter().enumerate() {
        painter.text(
            Pos2::new(
                bar.min.x,
                min.y + BAR_BOX_HEIGHT - 2.0 + NOTE_LINE_HEIGHT * k as f32,
            ),
            egui::Align2::LEFT_TOP,
            note,
            font.clone(),
            NOTE_COLOR,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts `paint_heat_legend` paints in a 900x600 view, and whether it painted.
    fn legend_texts(rest_bind: Option<&[String; 2]>) -> (Vec<String>, bool) {
        let ctx = egui::Context::default();
        let view = Rect::from_min_size(Pos2::ZERO, vec2(900.0, 600.0));
        let mut painted = false;
        let input = egui::RawInput {
            screen_rect: Some(view),
            ..Default::default()
        };
        let mut out = ctx.run_ui(input, |ui| {
            let painter = ui.ctx().layer_painter(egui::LayerId::background());
            let range = HeatQuantity::Displacement.default_range();
            painted = paint_heat_legend(
                &painter,
                view,
                HeatQuantity::Displacement,
                range,
                None,
                rest_bind,
            )
            .is_some();
        });
        // No renderer takes the font atlas here.
        out.textures_delta.clear();
        let texts = out
            .shapes
            .iter()
            .filter_map(|s| match &s.shape {
                egui::Shape::Text(t) => Some(t.galley.text().to_owned()),
                _ => None,
            })
            .collect();
        (texts, painted)
    }

    /// The heat legend's rest-pose lines for builtin:twist, with its tip turned `tip_deg` about
    /// the tube's axis at rest (0: as built, the rest pose is the bind pose).
    fn twist_legend_lines(tip_deg: f32) -> Option<[String; 2]> {
        let mut scene = crate::builtin::builtin_scene("twist").expect("builtin");
        let tip = scene.skins[0].joints[1];
        let crate::scene::NodeTransform::Trs(trs) = &mut scene.nodes[tip].transform else {
            panic!("a TRS joint");
        };
        trs.rotation = glam::Quat::from_rotation_y(tip_deg.to_radians()) * trs.rotation;
        crate::analysis::rest_bind(&scene).legend_lines()
    }

    #[test]
    fn the_heat_legend_notes_a_rest_pose_only_where_it_is_not_the_bind_pose() {
        // As built, the twist rests in its bind pose: no note on the bar.
        let lines = twist_legend_lines(0.0);
        let (texts, painted) = legend_texts(lines.as_ref());
        assert!(painted && lines.is_none(), "{lines:?}");
        assert!(!texts.iter().any(|t| t.contains("rest pose")), "{texts:?}");
        // Its tip turned 30 degrees at rest: the bar says so and names the joint.
        let lines = twist_legend_lines(30.0);
        let (texts, painted) = legend_texts(lines.as_ref());
        assert!(painted, "{texts:?}");
        for want in [
            "rest pose is not the bind pose",
            "at tip: colour there at rest",
        ] {
            assert!(texts.iter().any(|t| t == want), "{want} in {texts:?}");
        }
    }

    #[test]
    fn the_heat_legend_says_when_the_rest_pose_is_not_the_bind_pose() {
        let (plain, painted) = legend_texts(None);
        assert!(
            painted && plain.iter().any(|t| t.starts_with("|LBS - DQS|")),
            "{plain:?}"
        );
        assert!(!plain.iter().any(|t| t.contains("bind pose")), "{plain:?}");
        let lines = [
            "rest pose is not the bind pose".to_owned(),
            "at UpperArm.R +2 more: colour there at rest".to_owned(),
        ];
        let (noted, painted) = legend_texts(Some(&lines));
        assert!(painted, "{noted:?}");
        for line in &lines {
            assert!(noted.contains(line), "{line} in {noted:?}");
        }
    }
}
