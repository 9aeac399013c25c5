//! Inline SVG charts: line plots with numbered axes and a legend, and bar charts, built with
//! `maud` as the page is (every label escaped by construction).

use maud::{Markup, html};

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
        SkinningMode::Ddm => "#17becf",
        SkinningMode::Dm => "#8c564b",
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

/// A number with one decimal, as every coordinate is written.
fn d1(v: f64) -> String {
    format!("{v:.1}")
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
    pub fn to_svg(&self) -> Markup {
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
        let reference = self.reference.filter(|r| *r >= y0 && *r <= y1);
        let markers = self
            .markers
            .iter()
            .map(|(x, label)| (sx(f64::from(*x)), label))
            .filter(|(px, _)| (left..=left + pw).contains(px));
        html! {
            svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) width=(WIDTH) height=(HEIGHT) role="img" {
                title { (self.title) }
                rect x=(left) y=(top) width=(pw) height=(ph) fill="#fff" stroke="#999" {}
                text x=(WIDTH / 2.0) y="16" text-anchor="middle" font-size="12" font-weight="bold" { (self.title) }
                (self.axes((x0, x1), (y0, y1), &sx, &sy))
                @if let Some(r) = reference {
                    line x1=(left) x2=(left + pw) y1=(d1(sy(r))) y2=(d1(sy(r))) stroke="#888" stroke-dasharray="3,3" {}
                }
                @for (px, label) in markers {
                    line x1=(d1(px)) x2=(d1(px)) y1=(top) y2=(top + ph) stroke="#e377c2" stroke-width="1.5" stroke-dasharray="5,3" {}
                    text x=(d1(px + 2.0)) y=(top + 10.0) font-size="9" fill="#b0307f" { (label) }
                }
                @for line in &self.lines {
                    (polyline(self.x, line, &sx, &sy))
                }
                (self.legend(top + ph + 34.0))
            }
        }
    }

    /// Ticks with numbers and the axis labels.
    fn axes(
        &self,
        (x0, x1): (f64, f64),
        (y0, y1): (f64, f64),
        sx: &dyn Fn(f64) -> f64,
        sy: &dyn Fn(f64) -> f64,
    ) -> Markup {
        let [left, right, top, bottom] = MARGIN;
        let base = HEIGHT - bottom;
        let step = |t: &[f64]| t.get(1).zip(t.first()).map_or(1.0, |(b, a)| b - a);
        let (xt, yt) = (ticks(x0, x1, 6), ticks(y0, y1, 5));
        let (xstep, ystep) = (step(&xt), step(&yt));
        let middle = top + (base - top) / 2.0;
        html! {
            @for x in xt {
                line x1=(d1(sx(x))) x2=(d1(sx(x))) y1=(base) y2=(base + 4.0) stroke="#555" {}
                text x=(d1(sx(x))) y=(base + 15.0) font-size="10" text-anchor="middle" { (tick_text(x, xstep)) }
            }
            @for y in yt {
                line x1=(left - 4.0) x2=(left) y1=(d1(sy(y))) y2=(d1(sy(y))) stroke="#555" {}
                line x1=(left) x2=(WIDTH - right) y1=(d1(sy(y))) y2=(d1(sy(y))) stroke="#eee" {}
                text x=(left - 6.0) y=(d1(sy(y) + 3.5)) font-size="10" text-anchor="end" { (tick_text(y, ystep)) }
            }
            text x=(d1(left + (WIDTH - left - right) / 2.0)) y=(base + 28.0) font-size="10" text-anchor="middle" { (self.x_label) }
            text x="12" y=(d1(middle)) font-size="10" text-anchor="middle" transform=(format!("rotate(-90 12 {middle:.1})")) { (self.y_label) }
        }
    }

    /// A one-row legend at `y`.
    fn legend(&self, y: f64) -> Markup {
        let mut x = MARGIN[0];
        let placed = self.lines.iter().map(|line| {
            let at = x;
            x += 24.0 + 6.0 * line.label.len() as f64;
            (at, line)
        });
        html! {
            @for (x, line) in placed {
                line x1=(d1(x)) x2=(d1(x + 16.0)) y1=(d1(y)) y2=(d1(y)) stroke=(line.color) stroke-width="2.5" stroke-dasharray=[line.dashed.then_some("4,2")] {}
                text x=(d1(x + 19.0)) y=(d1(y + 3.5)) font-size="10" { (line.label) }
            }
        }
    }
}

/// One line as SVG polylines, broken at NaN values.
fn polyline(
    x: &[f32],
    line: &Line<'_>,
    sx: &dyn Fn(f64) -> f64,
    sy: &dyn Fn(f64) -> f64,
) -> Markup {
    // Runs of finite points: each one polyline.
    let mut runs: Vec<Vec<String>> = vec![Vec::new()];
    for (&xv, &yv) in x.iter().zip(line.y) {
        match runs.last_mut() {
            Some(run) if yv.is_finite() => {
                run.push(format!("{:.1},{:.1}", sx(f64::from(xv)), sy(yv)))
            }
            Some(run) if !run.is_empty() => runs.push(Vec::new()),
            _ => {}
        }
    }
    html! {
        @for run in runs.iter().filter(|r| !r.is_empty()) {
            polyline fill="none" stroke=(line.color) stroke-width="1.8" stroke-dasharray=[line.dashed.then_some("6,4")] points=(run.join(" ")) {}
        }
    }
}

/// A bar chart of `counts` labelled by `labels`, with the count above each bar.
#[must_use]
pub fn bar_chart(title: &str, x_label: &str, labels: &[String], counts: &[usize]) -> Markup {
    let [left, right, top, bottom] = MARGIN;
    let (pw, ph) = (WIDTH - left - right, HEIGHT - top - bottom + 30.0);
    let max = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let n = counts.len().max(1) as f64;
    let bw = pw / n;
    let bars = counts
        .iter()
        .zip(labels)
        .enumerate()
        .map(|(k, (&c, label))| {
            let h = c as f64 / max * (ph - 14.0);
            (left + k as f64 * bw, h, c, label)
        });
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) width=(WIDTH) height=(HEIGHT) role="img" {
            title { (title) }
            text x=(WIDTH / 2.0) y="16" text-anchor="middle" font-size="12" font-weight="bold" { (title) }
            line x1=(left) x2=(left + pw) y1=(top + ph) y2=(top + ph) stroke="#555" {}
            @for (x, h, c, label) in bars {
                rect x=(d1(x + 0.1 * bw)) y=(d1(top + ph - h)) width=(d1(0.8 * bw)) height=(d1(h)) fill="#4c78a8" {}
                text x=(d1(x + 0.5 * bw)) y=(d1(top + ph - h - 3.0)) font-size="9" text-anchor="middle" { (c) }
                text x=(d1(x + 0.5 * bw)) y=(d1(top + ph + 13.0)) font-size="10" text-anchor="middle" { (label) }
            }
            text x=(d1(left + pw / 2.0)) y=(d1(top + ph + 28.0)) font-size="10" text-anchor="middle" { (x_label) }
        }
    }
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
        let svg = plot.to_svg().into_string();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert!(svg.contains(">LBS</text>") && svg.contains(">flip</text>"));
        // The dashed line is the only optional attribute: absent, not empty, on a solid line.
        assert!(!svg.contains("stroke-dasharray=\"\""), "{svg}");
        // The NaN ends the line: two points.
        let points = svg
            .split("points=\"")
            .nth(1)
            .and_then(|p| p.split('"').next());
        assert_eq!(points.map(|p| p.split(' ').count()), Some(2), "{svg}");
    }
}
