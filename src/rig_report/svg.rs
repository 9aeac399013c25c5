//! Inline SVG charts: line plots with numbered axes and a legend, and bar charts.

use std::fmt::Write as _;

use crate::skin::SkinningMode;

/// Plot size in SVG units.
const WIDTH: f64 = 420.0;
/// Plot height.
const HEIGHT: f64 = 250.0;
/// Margins: left, right, top, bottom.
const MARGIN: [f64; 4] = [52.0, 12.0, 28.0, 62.0];

/// A mode's line colour.
#[must_use]
pub fn mode_color(mode: SkinningMode) -> &'static str {
    match mode {
        SkinningMode::Lbs => "#d62728",
        SkinningMode::Dqs => "#1f77b4",
        SkinningMode::Hybrid => "#2ca02c",
        SkinningMode::Cor => "#9467bd",
    }
}

/// One line of a plot.
pub struct Line<'a> {
    /// Legend text.
    pub label: String,
    /// Stroke colour.
    pub color: &'a str,
    /// One y per x (NaN: a gap).
    pub y: &'a [f64],
    /// Dashed, so a line drawn over another stays visible.
    pub dashed: bool,
}

/// A line plot.
pub struct Plot<'a> {
    /// Title above the plot.
    pub title: String,
    /// The x axis's label.
    pub x_label: &'a str,
    /// The y axis's label.
    pub y_label: &'a str,
    /// Sample positions.
    pub x: &'a [f32],
    /// The lines.
    pub lines: Vec<Line<'a>>,
    /// Vertical marker lines: (x, label).
    pub markers: Vec<(f32, String)>,
    /// A horizontal reference line (e.g. ratio 1).
    pub reference: Option<f64>,
}

/// Escapes text for XML.
#[must_use]
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// About `n` round tick values covering `lo..=hi`.
fn ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let span = (hi - lo).max(1e-9);
    let raw = span / n.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Tick text with as many decimals as the step needs.
fn tick_text(value: f64, step: f64) -> String {
    let decimals = (0..6)
        .find(|&d| {
            let scaled = step * 10f64.powi(d);
            (scaled - scaled.round()).abs() < 1e-6 * scaled.max(1.0)
        })
        .unwrap_or(6) as usize;
    format!("{value:.decimals$}")
}

/// The smallest and largest finite values of `values`, widened when equal.
fn range_of(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-6 {
        return (lo - 0.01 * lo.abs().max(1.0), hi + 0.01 * hi.abs().max(1.0));
    }
    let pad = 0.05 * (hi - lo);
    (lo - pad, hi + pad)
}

impl Plot<'_> {
    /// The plot as an `<svg>` element.
    #[must_use]
    pub fn to_svg(&self) -> String {
        let [left, right, top, bottom] = MARGIN;
        let (pw, ph) = (WIDTH - left - right, HEIGHT - top - bottom);
        let (x0, x1) = range_of(self.x.iter().map(|&x| f64::from(x)));
        let (x0, x1) = if self.x.len() > 1 {
            (f64::from(self.x[0]), f64::from(self.x[self.x.len() - 1]))
        } else {
            (x0, x1)
        };
        let ys = self.lines.iter().flat_map(|l| l.y.iter().copied());
        let (y0, y1) = range_of(ys.chain(self.reference));
        let sx = |x: f64| left + (x - x0) / (x1 - x0).max(1e-12) * pw;
        let sy = |y: f64| top + (1.0 - (y - y0) / (y1 - y0).max(1e-12)) * ph;
        let mut s = String::new();
        let _ = write!(
            s,
            r##"<svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img"><title>{t}</title><rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="#fff" stroke="#999"/><text x="{cx}" y="16" text-anchor="middle" font-size="12" font-weight="bold">{t}</text>"##,
            t = escape(&self.title),
            cx = WIDTH / 2.0,
        );
        self.axes(&mut s, (x0, x1), (y0, y1), &sx, &sy);
        if let Some(r) = self.reference.filter(|r| *r >= y0 && *r <= y1) {
            let _ = write!(
                s,
                r##"<line x1="{left}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#888" stroke-dasharray="3,3"/>"##,
                left + pw,
                y = sy(r)
            );
        }
        for (x, label) in &self.markers {
            let px = sx(f64::from(*x));
            if !(left..=left + pw).contains(&px) {
                continue;
            }
            let _ = write!(
                s,
                r##"<line x1="{px:.1}" x2="{px:.1}" y1="{top}" y2="{}" stroke="#e377c2" stroke-width="1.5" stroke-dasharray="5,3"/><text x="{:.1}" y="{}" font-size="9" fill="#b0307f">{}</text>"##,
                top + ph,
                px + 2.0,
                top + 10.0,
                escape(label)
            );
        }
        for line in &self.lines {
            s.push_str(&polyline(self.x, line, &sx, &sy));
        }
        self.legend(&mut s, top + ph + 34.0);
        s.push_str("</svg>");
        s
    }

    /// Ticks with numbers and the axis labels.
    fn axes(
        &self,
        s: &mut String,
        (x0, x1): (f64, f64),
        (y0, y1): (f64, f64),
        sx: &dyn Fn(f64) -> f64,
        sy: &dyn Fn(f64) -> f64,
    ) {
        let [left, right, top, bottom] = MARGIN;
        let base = HEIGHT - bottom;
        let xt = ticks(x0, x1, 6);
        let xstep = xt.get(1).zip(xt.first()).map_or(1.0, |(b, a)| b - a);
        for x in xt {
            let px = sx(x);
            let _ = write!(
                s,
                r##"<line x1="{px:.1}" x2="{px:.1}" y1="{base}" y2="{}" stroke="#555"/><text x="{px:.1}" y="{}" font-size="10" text-anchor="middle">{}</text>"##,
                base + 4.0,
                base + 15.0,
                tick_text(x, xstep)
            );
        }
        let yt = ticks(y0, y1, 5);
        let ystep = yt.get(1).zip(yt.first()).map_or(1.0, |(b, a)| b - a);
        for y in yt {
            let py = sy(y);
            let _ = write!(
                s,
                r##"<line x1="{}" x2="{left}" y1="{py:.1}" y2="{py:.1}" stroke="#555"/><line x1="{left}" x2="{}" y1="{py:.1}" y2="{py:.1}" stroke="#eee"/><text x="{}" y="{:.1}" font-size="10" text-anchor="end">{}</text>"##,
                left - 4.0,
                WIDTH - right,
                left - 6.0,
                py + 3.5,
                tick_text(y, ystep)
            );
        }
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{}" font-size="10" text-anchor="middle">{}</text><text x="12" y="{:.1}" font-size="10" text-anchor="middle" transform="rotate(-90 12 {:.1})">{}</text>"#,
            left + (WIDTH - left - right) / 2.0,
            base + 28.0,
            escape(self.x_label),
            top + (base - top) / 2.0,
            top + (base - top) / 2.0,
            escape(self.y_label)
        );
    }

    /// A one-row legend at `y`.
    fn legend(&self, s: &mut String, y: f64) {
        let mut x = MARGIN[0];
        for line in &self.lines {
            let _ = write!(
                s,
                r#"<line x1="{x:.1}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="{}" stroke-width="2.5"{}/><text x="{:.1}" y="{:.1}" font-size="10">{}</text>"#,
                x + 16.0,
                line.color,
                if line.dashed {
                    r#" stroke-dasharray="4,2""#
                } else {
                    ""
                },
                x + 19.0,
                y + 3.5,
                escape(&line.label)
            );
            x += 24.0 + 6.0 * line.label.len() as f64;
        }
    }
}

/// One line as SVG polylines, broken at NaN values.
fn polyline(
    x: &[f32],
    line: &Line<'_>,
    sx: &dyn Fn(f64) -> f64,
    sy: &dyn Fn(f64) -> f64,
) -> String {
    let mut out = String::new();
    let mut points = String::new();
    let flush = |points: &mut String, out: &mut String| {
        if !points.is_empty() {
            let _ = write!(
                out,
                r#"<polyline fill="none" stroke="{}" stroke-width="1.8"{} points="{}"/>"#,
                line.color,
                if line.dashed {
                    r#" stroke-dasharray="6,4""#
                } else {
                    ""
                },
                points.trim_end()
            );
            points.clear();
        }
    };
    for (&xv, &yv) in x.iter().zip(line.y) {
        if yv.is_finite() {
            let _ = write!(points, "{:.1},{:.1} ", sx(f64::from(xv)), sy(yv));
        } else {
            flush(&mut points, &mut out);
        }
    }
    flush(&mut points, &mut out);
    out
}

/// A bar chart of `counts` labelled by `labels`, with the count above each bar.
#[must_use]
pub fn bar_chart(title: &str, x_label: &str, labels: &[String], counts: &[usize]) -> String {
    let [left, right, top, bottom] = MARGIN;
    let (pw, ph) = (WIDTH - left - right, HEIGHT - top - bottom + 30.0);
    let max = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let n = counts.len().max(1) as f64;
    let bw = pw / n;
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img"><title>{t}</title><text x="{}" y="16" text-anchor="middle" font-size="12" font-weight="bold">{t}</text><line x1="{left}" x2="{}" y1="{}" y2="{}" stroke="#555"/>"##,
        WIDTH / 2.0,
        left + pw,
        top + ph,
        top + ph,
        t = escape(title)
    );
    for (k, (&c, label)) in counts.iter().zip(labels).enumerate() {
        let h = c as f64 / max * (ph - 14.0);
        let x = left + k as f64 * bw;
        let _ = write!(
            s,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="#4c78a8"/><text x="{:.1}" y="{:.1}" font-size="9" text-anchor="middle">{c}</text><text x="{:.1}" y="{:.1}" font-size="10" text-anchor="middle">{}</text>"##,
            x + 0.1 * bw,
            top + ph - h,
            0.8 * bw,
            x + 0.5 * bw,
            top + ph - h - 3.0,
            x + 0.5 * bw,
            top + ph + 13.0,
            escape(label)
        );
    }
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" font-size="10" text-anchor="middle">{}</text></svg>"#,
        left + pw / 2.0,
        top + ph + 28.0,
        escape(x_label)
    );
    let _ = right;
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_inside() {
        assert_eq!(
            ticks(0.0, 1.0, 5),
            vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        let t = ticks(-360.0, 360.0, 6);
        assert!(t.contains(&0.0) && t.iter().all(|v| (-360.0..=360.0).contains(v)));
        assert_eq!(tick_text(0.25, 0.05), "0.25");
        assert_eq!(tick_text(120.0, 20.0), "120");
    }

    #[test]
    fn a_plot_has_lines_and_a_legend() {
        let x = [0.0f32, 1.0, 2.0];
        let y = [1.0, 0.9, f64::NAN];
        let plot = Plot {
            title: "t".into(),
            x_label: "time (s)",
            y_label: "ratio",
            x: &x,
            lines: vec![Line {
                label: "LBS".into(),
                color: "#f00",
                y: &y,
                dashed: false,
            }],
            markers: vec![(1.0, "flip".into())],
            reference: Some(1.0),
        };
        let svg = plot.to_svg();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert!(svg.contains(">LBS</text>") && svg.contains(">flip</text>"));
    }
}
