//! Colour bars with numbers, burnt into rendered images under heatmap views.

use super::label::{draw_label, fill_rect, label_size};
use super::offscreen::RgbaImage;
use crate::analysis::{
    HeatQuantity, HeatRange, LengthScale, heat_decimals, heat_value_text, heat_value_with_length,
};

/// The heat colour of `t` in [0, 1], linear RGB: dark blue, blue, cyan, green, yellow, red, dark red.
///
/// Mirrors `heat` in `shaders/debug_views.wgsl`.
#[must_use]
pub fn heat_rgb(t: f32) -> [f32; 3] {
    let x = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let band = |centre: f32| (1.5 - (4.0 * x - centre).abs()).clamp(0.0, 1.0);
    [band(3.0), band(2.0), band(1.0)]
}

/// A linear channel in [0, 1] as an 8-bit sRGB value (what the sRGB render target stores).
fn srgb_u8(linear: f32) -> u8 {
    let c = linear.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

/// What a bar of `quantity` measures, short enough for a small pane.
#[must_use]
pub fn legend_title(quantity: HeatQuantity) -> &'static str {
    match quantity {
        HeatQuantity::Displacement => "LBS-DQS / DIAGONAL",
        HeatQuantity::Collapse => "VOLUME RATIO",
        HeatQuantity::CorDistance => "DISTANCE FROM COR",
    }
}

/// The height in pixels [`draw_heat_legend`] takes at `scale`.
#[must_use]
pub fn legend_height(scale: u32) -> u32 {
    let s = scale.max(1);
    // Bar, gap, one line of text, padding.
    5 * s + s + label_size("0", s).1 + 2 * s
}

/// Draws a colour bar of `range` across the bottom of the pane at (`x`, `y`) of `width` x
/// `height` pixels: the heat scale, ticks and numbers at its ends and middle (displacement
/// with its length in the file's units where `length` is known and the numbers fit), and the
/// title where it fits, `scale` pixels per font pixel.
pub fn draw_heat_legend(
    image: &mut RgbaImage,
    [x, y, width, height]: [u32; 4],
    quantity: HeatQuantity,
    range: HeatRange,
    scale: u32,
    length: Option<LengthScale>,
) {
    let s = scale.max(1);
    let margin = 4 * s;
    let box_h = legend_height(s);
    if width <= 2 * margin + 16 || height <= box_h + margin {
        return;
    }
    let (bx, by, bw) = (x + margin, y + height - margin - box_h, width - 2 * margin);
    fill_rect(image, bx, by, bw, box_h, [20, 20, 24, 255]);
    let (bar_x, bar_y, bar_w, bar_h) = (bx + 2 * s, by + s, bw - 4 * s, 5 * s);
    for i in 0..bar_w {
        let t = i as f32 / (bar_w - 1).max(1) as f32;
        let [r, g, b] = heat_rgb(t);
        let rgba = [srgb_u8(r), srgb_u8(g), srgb_u8(b), 255];
        fill_rect(image, bar_x + i, bar_y, 1, bar_h, rgba);
    }
    let decimals = heat_decimals(quantity, range);
    let mid = 0.5 * (range.lo + range.hi);
    let with_length = [range.lo, mid, range.hi]
        .map(|v| heat_value_with_length(quantity, v, decimals, range, length));
    // Lengths where both ends fit side by side; the bare numbers otherwise.
    let ends = label_size(&with_length[0], s).0 + label_size(&with_length[2], s).0 + 2 * s;
    let texts = if ends <= bw {
        with_length
    } else {
        [range.lo, mid, range.hi].map(|v| heat_value_text(quantity, v, decimals))
    };
    let text_y = bar_y + bar_h;
    let widths = texts.each_ref().map(|t| label_size(t, s).0);
    // Ticks at the ends and the middle, in white, through the bar's lower half.
    for tick_x in [bar_x, bar_x + bar_w / 2, bar_x + bar_w - s] {
        fill_rect(
            image,
            tick_x,
            bar_y + bar_h / 2,
            s,
            bar_h - bar_h / 2,
            [240, 240, 240, 255],
        );
    }
    let gap = 2 * s;
    // A pane too narrow for both end numbers (six panes of a small render) keeps the bar alone.
    if widths[0] + widths[2] + gap > bw {
        return;
    }
    let lo_x = bx;
    let hi_x = bx + bw - widths[2];
    let mid_x = (bx + bw / 2).saturating_sub(widths[1] / 2);
    draw_label(image, &texts[0], lo_x, text_y, s);
    draw_label(image, &texts[2], hi_x, text_y, s);
    if mid_x > lo_x + widths[0] + gap && mid_x + widths[1] + gap < hi_x {
        draw_label(image, &texts[1], mid_x, text_y, s);
    }
    // The title goes above the bar when it fits and bar and title keep to a quarter of the pane.
    let mut title = legend_title(quantity).to_owned();
    if quantity != HeatQuantity::Collapse
        && let Some(diagonal) = length.and_then(LengthScale::diagonal_text)
    {
        let long = format!("{title} {diagonal}");
        if label_size(&long, s).0 <= bw {
            title = long;
        }
    }
    let (title_w, title_h) = label_size(&title, s);
    if title_w <= bw && 4 * (box_h + title_h + margin) <= height {
        draw_label(image, &title, bx, by - title_h, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_runs_blue_green_red_like_the_shader() {
        // Dark blue, pale green, dark red at the ends and middle; pure blue and red at 1/4, 3/4.
        assert_eq!(heat_rgb(0.0), [0.0, 0.0, 0.5]);
        assert_eq!(heat_rgb(0.25), [0.0, 0.5, 1.0]);
        assert_eq!(heat_rgb(0.5), [0.5, 1.0, 0.5]);
        assert_eq!(heat_rgb(1.0), [0.5, 0.0, 0.0]);
        assert_eq!(heat_rgb(f32::NAN), heat_rgb(0.0));
        assert_eq!(heat_rgb(7.0), heat_rgb(1.0));
    }

    #[test]
    fn numbers_carry_units_and_enough_decimals() {
        let d = HeatQuantity::Displacement;
        let r = HeatRange { lo: 0.0, hi: 0.012 };
        assert_eq!(heat_value_text(d, 0.012, heat_decimals(d, r)), "1.20%");
        let c = HeatQuantity::Collapse;
        let r = HeatRange { lo: 0.8, hi: 1.2 };
        assert_eq!(heat_value_text(c, 1.0, heat_decimals(c, r)), "1.00");
    }

    /// A black `w` x `h` image.
    fn black(w: u32, h: u32) -> RgbaImage {
        RgbaImage {
            width: w,
            height: h,
            pixels: vec![0; (w * h * 4) as usize],
        }
    }

    #[test]
    fn a_pane_too_narrow_for_the_numbers_keeps_the_bar_alone() {
        // Six panes of a 160x60 render are 26 pixels wide: the end numbers do not fit.
        let (w, h) = (160u32, 60u32);
        let mut image = black(w, h);
        let range = HeatRange { lo: 0.0, hi: 0.05 };
        for pane in 0..6 {
            let rect = [pane * 26, 0, 26, h];
            draw_heat_legend(&mut image, rect, HeatQuantity::Displacement, range, 1, None);
        }
        // The bar is drawn in the first pane (margin 4, then 2 to the bar, at the bar's row).
        let bar_y = h - 4 - legend_height(1) + 1;
        let at = ((bar_y * w + 6) * 4) as usize;
        assert_ne!(&image.pixels[at..at + 3], &[0, 0, 0], "no bar");
    }

    #[test]
    fn the_bar_is_drawn_at_the_pane_bottom_from_blue_to_red() {
        let (w, h) = (200u32, 100u32);
        let mut image = black(w, h);
        let range = HeatRange { lo: 0.0, hi: 0.05 };
        draw_heat_legend(
            &mut image,
            [0, 0, w, h],
            HeatQuantity::Displacement,
            range,
            1,
            None,
        );
        let px = |x: u32, y: u32| {
            let at = ((y * w + x) * 4) as usize;
            [image.pixels[at], image.pixels[at + 1], image.pixels[at + 2]]
        };
        let bar_y = h - 4 - legend_height(1) + 2;
        let left = px(8, bar_y);
        let right = px(w - 9, bar_y);
        // Linear 0.5 is 188 in sRGB.
        assert!(left[2] > 150 && left[0] < 30, "{left:?}");
        assert!(right[0] > 150 && right[2] < 30, "{right:?}");
        // Nothing drawn in the top rows, above the title.
        assert!(
            image.pixels[..(w * 10 * 4) as usize]
                .iter()
                .all(|&b| b == 0)
        );
    }
}
