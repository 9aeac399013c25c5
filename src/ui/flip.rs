//! The flip strip under the twist slider: where DQS flips for the selected joint.

use egui::{Color32, Pos2, Rect, Sense, Stroke, Vec2};

use crate::analysis::{SWEEP_LIMIT_DEG, TwistFlips};

/// Colour of flipped twist ranges and flip ticks.
pub const FLIP_COLOR: Color32 = Color32::from_rgb(235, 80, 70);

/// The x of twist `deg` on a rail spanning `rail` (the slider's -360..360 range).
#[must_use]
pub fn x_of_twist(rail: egui::Rangef, deg: f32) -> f32 {
    let t = ((deg + SWEEP_LIMIT_DEG) / (2.0 * SWEEP_LIMIT_DEG)).clamp(0.0, 1.0);
    rail.min + (rail.max - rail.min) * t
}

/// The twist ranges (degrees) past a flip: below `below_deg` and above `above_deg`.
#[must_use]
pub fn flipped_ranges(flips: &TwistFlips) -> Vec<(f32, f32)> {
    let mut out = Vec::new();
    if let Some(b) = flips.below_deg {
        out.push((-SWEEP_LIMIT_DEG, b));
    }
    if let Some(a) = flips.above_deg {
        out.push((a, SWEEP_LIMIT_DEG));
    }
    out
}

/// Paints the strip under a twist slider whose response is `slider`: the flipped ranges
/// in red, a tick and label at each flip, and the current twist as a white mark.
pub fn flip_strip_ui(
    ui: &mut egui::Ui,
    slider: &egui::Response,
    flips: &TwistFlips,
    twist_deg: f32,
) {
    let width = ui.spacing().slider_width;
    let handle_radius = ui.spacing().interact_size.y / 2.5;
    let (rect, response) = ui.allocate_exact_size(Vec2::new(width, 16.0), Sense::hover());
    // Align with the slider's rail, not wherever the layout put this row.
    let left = slider.rect.left();
    let rect = Rect::from_min_size(Pos2::new(left, rect.top()), Vec2::new(width, rect.height()));
    let rail = rect.x_range().shrink(handle_radius);
    let painter = ui.painter_at(rect.expand(2.0));
    let bar = Rect::from_x_y_ranges(rail, rect.top() + 2.0..=rect.top() + 6.0);
    painter.rect_filled(bar, 1.0, Color32::from_gray(70));
    for (lo, hi) in flipped_ranges(flips) {
        let r = Rect::from_x_y_ranges(x_of_twist(rail, lo)..=x_of_twist(rail, hi), bar.y_range());
        painter.rect_filled(r, 1.0, FLIP_COLOR.gamma_multiply(0.8));
    }
    let font = egui::FontId::proportional(10.0);
    for deg in [flips.below_deg, flips.above_deg].into_iter().flatten() {
        let x = x_of_twist(rail, deg);
        painter.line_segment(
            [Pos2::new(x, rect.top()), Pos2::new(x, rect.top() + 9.0)],
            Stroke::new(2.0, FLIP_COLOR),
        );
        painter.text(
            Pos2::new(x, rect.top() + 8.0),
            egui::Align2::CENTER_TOP,
            format!("{deg:.0}°"),
            font.clone(),
            FLIP_COLOR,
        );
    }
    let x = x_of_twist(rail, twist_deg);
    painter.line_segment(
        [Pos2::new(x, rect.top()), Pos2::new(x, rect.top() + 8.0)],
        Stroke::new(2.0, Color32::WHITE),
    );
    response.on_hover_text(
        "DQS flip: past the red ticks the twist's relative rotation to a blended neighbour \
         passes 180°, DQS takes the shorter arc and the skin flips",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_maps_the_slider_range() {
        let rail = egui::Rangef::new(100.0, 300.0);
        assert_eq!(x_of_twist(rail, -360.0), 100.0);
        assert_eq!(x_of_twist(rail, 0.0), 200.0);
        assert_eq!(x_of_twist(rail, 180.0), 250.0);
        assert_eq!(x_of_twist(rail, 999.0), 300.0);
        let flips = TwistFlips {
            joint: 1,
            above_deg: Some(180.0),
            below_deg: None,
            pairs: Vec::new(),
        };
        assert_eq!(flipped_ranges(&flips), vec![(180.0, 360.0)]);
    }
}
