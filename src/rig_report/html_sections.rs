//! The report's measured sections: volume over time, worst regions, flips, influences, fit, scales.

use std::fmt::Write as _;

use super::clips::{ClipReport, mode_index};
use super::html::{Pictures, RegionPicture, png_uri, row};
use super::svg::{Line, Plot, bar_chart, escape, mode_color};
use super::{FitReport, RigReport};
use crate::analysis::{Measure, SAME_RATIO_SPREAD};
use crate::skin::SkinningMode;

/// Region plots per clip beside the whole-mesh one.
const REGION_PLOTS: usize = 2;

/// The y label of a measure.
fn y_label(measure: Measure) -> &'static str {
    match measure {
        Measure::Volume => "volume ratio to rest",
        Measure::Area => "area ratio to rest",
    }
}

/// Four lines, one per mode, of `ratios`.
fn mode_lines(ratios: &[Vec<f64>; 4]) -> Vec<Line<'_>> {
    SkinningMode::ALL
        .iter()
        .zip(ratios)
        .filter(|(_, r)| !r.is_empty())
        .map(|(&mode, r)| Line {
            label: mode.short_label().to_string(),
            color: mode_color(mode),
            y: r,
            // Hybrid often equals LBS or DQS; dashed, both stay visible.
            dashed: mode == SkinningMode::Hybrid,
        })
        .collect()
}

/// Per clip: the whole mesh's ratio per mode over time, and its worst regions'.
pub(super) fn volume(s: &mut String, report: &RigReport) {
    s.push_str("<h2 id=\"volume\">Volume over time</h2>\n<p class=\"note\">Ratio of the posed measure to the rest measure per skinning mode (1 keeps the volume), for the whole mesh and for the joint regions that stray farthest in this clip. Hybrid uses betas from joint flags; CoR uses the precomputed centers.</p>\n");
    for clip in &report.clips {
        let mins: Vec<String> = SkinningMode::ALL
            .iter()
            .zip(&clip.whole)
            .map(|(m, r)| {
                let lo = r.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                format!("{} {lo:.4}..{hi:.4}", m.short_label())
            })
            .collect();
        let _ = writeln!(
            s,
            "<h3>{}</h3><p>{} samples; whole mesh: {}</p>",
            escape(&clip.name),
            clip.times_s.len(),
            escape(&mins.join(", "))
        );
        if clip.times_s.len() < 2 {
            single_pose_table(s, clip);
            continue;
        }
        s.push_str("<div class=\"plots\">");
        let whole = Plot {
            title: format!("{}: whole mesh", clip.name),
            x_label: "time (s)",
            y_label: y_label(clip.measure),
            x: &clip.times_s,
            lines: mode_lines(&clip.whole),
            markers: Vec::new(),
            reference: Some(1.0),
        };
        s.push_str(&whole.to_svg());
        for track in clip.worst_tracks(REGION_PLOTS) {
            let plot = Plot {
                title: format!("{}: region {}", clip.name, track.name),
                x_label: "time (s)",
                y_label: "region ratio to rest",
                x: &clip.times_s,
                lines: mode_lines(&track.ratios),
                markers: Vec::new(),
                reference: Some(1.0),
            };
            s.push_str(&plot.to_svg());
        }
        s.push_str("</div>\n");
    }
}

/// The ratios of a single pose, as a table (a plot of one point says nothing).
fn single_pose_table(s: &mut String, clip: &ClipReport) {
    s.push_str(
        "<table><tr><th>region</th><th>LBS</th><th>DQS</th><th>Hybrid</th><th>CoR</th></tr>\n",
    );
    let whole: [f64; 4] = [0, 1, 2, 3].map(|m| clip.whole[m].first().copied().unwrap_or(f64::NAN));
    ratio_row(s, "whole mesh", &whole);
    for track in clip.worst_tracks(6) {
        let r: [f64; 4] =
            [0, 1, 2, 3].map(|m| track.ratios[m].first().copied().unwrap_or(f64::NAN));
        ratio_row(s, &track.name, &r);
    }
    s.push_str("</table>\n");
}

/// A row of four mode ratios.
fn ratio_row(s: &mut String, name: &str, r: &[f64; 4]) {
    let _ = writeln!(
        s,
        "<tr><td>{}</td><td class=\"n\">{:.4}</td><td class=\"n\">{:.4}</td><td class=\"n\">{:.4}</td><td class=\"n\">{:.4}</td></tr>",
        escape(name),
        r[0],
        r[1],
        r[2],
        r[3]
    );
}

/// Per mode, the worst regions with the moment and every mode's ratio there; then the renders.
pub(super) fn worst_regions(s: &mut String, report: &RigReport, pictures: &Pictures) {
    let _ = writeln!(
        s,
        "<h2 id=\"worst-regions\">Worst joint regions</h2>\n<p class=\"note\">A joint's region: the triangles whose first corner's heaviest influence is the joint, openings capped. Each region at its worst sample in that mode, over every clip. Where every mode keeps the same share (within {SAME_RATIO_SPREAD}), the pose takes the volume, not the skinning method: no flag or blend map brings it back.</p>"
    );
    for mode in SkinningMode::ALL {
        let list = &report.worst[mode_index(mode)];
        let _ = writeln!(
            s,
            "<h3>{}</h3><table><tr><th>region</th><th>clip</th><th>time (s)</th><th>LBS</th><th>DQS</th><th>Hybrid</th><th>CoR</th><th>what loses it</th></tr>",
            mode.title()
        );
        for w in list {
            let _ = write!(
                s,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{:.2}</td>",
                escape(&w.name),
                escape(&w.clip_name),
                w.time_s
            );
            for (k, r) in w.ratios.iter().enumerate() {
                let class = if k == mode_index(mode) { "n bad" } else { "n" };
                let _ = write!(s, "<td class=\"{class}\">{r:.4}</td>");
            }
            let why = if w.is_the_pose() {
                "the pose (every mode alike)"
            } else {
                "the method (modes differ)"
            };
            let _ = writeln!(s, "<td>{why}</td></tr>");
        }
        s.push_str("</table>\n");
    }
    for p in &pictures.regions {
        region_figure(s, p);
    }
}

/// One rendered worst region: four panes, or the one pane of a region every mode loses alike.
fn region_figure(s: &mut String, p: &RegionPicture) {
    let w = &p.region;
    let (name, clip) = (escape(&w.name), escape(&w.clip_name));
    let _ = write!(
        s,
        "<figure><img src=\"{}\" alt=\"{name} in {clip} at {:.2} s\"><figcaption>",
        png_uri(&p.png),
        w.time_s
    );
    match p.single_pane {
        Some(mode) => {
            let _ = write!(
                s,
                "Region <b>{name}</b> in {clip} at {:.2} s: every mode keeps the same share of it (LBS {:.3}, DQS {:.3}, hybrid {:.3}, CoR {:.3}), so the pose takes the volume, not the skinning method; drawn once ({} pane) instead of four alike, framed on the joint as <code>render --focus</code> does.",
                w.time_s,
                w.ratios[0],
                w.ratios[1],
                w.ratios[2],
                w.ratios[3],
                mode.short_label()
            );
        }
        None => {
            let _ = write!(
                s,
                "{name} worst under {}: region <b>{name}</b> in {clip} at {:.2} s (ratio {:.3}); panes LBS | DQS | hybrid | CoR, framed on the joint as <code>render --focus</code> does.",
                w.mode.short_label(),
                w.time_s,
                w.ratio()
            );
        }
    }
    s.push_str("</figcaption></figure>\n");
}

/// The flip table and the twist sweep's plot and render.
pub(super) fn flips(s: &mut String, report: &RigReport, pictures: &Pictures) {
    s.push_str("<h2 id=\"flips\">DQS flips of twist joints</h2>\n<p class=\"note\">Twisting a joint on the rest pose: past these angles the joint's quaternion leaves its blend partner's hemisphere and DQS jumps to the other arc (the skin flips). Joints flagged as twisting (names, clips), else the joints of the worst regions.</p>\n");
    s.push_str("<table><tr><th>joint</th><th>flip below 0 (deg)</th><th>flip above 0 (deg)</th><th>flipping pairs</th></tr>\n");
    for f in &report.flips {
        let deg =
            |d: Option<f32>| d.map_or_else(|| "none within 360".to_string(), |d| format!("{d:.1}"));
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(&f.name),
            deg(f.below_deg),
            deg(f.above_deg),
            f.pairs
        );
    }
    s.push_str("</table>\n");
    if let Some(series) = &report.sweep
        && let Some(region) = &series.region
    {
        let flip = report.flips.iter().find(|f| f.joint == region.joint);
        let markers: Vec<(f32, String)> = flip
            .into_iter()
            .flat_map(|f| [f.below_deg, f.above_deg])
            .flatten()
            .map(|d| (d, format!("flip {d:.0}")))
            .collect();
        let plot = Plot {
            title: format!("twist of {}: its region", region.name),
            x_label: "twist (degrees)",
            y_label: y_label(region.measure),
            x: &series.x,
            lines: mode_lines(&region.ratios),
            markers,
            reference: Some(1.0),
        };
        s.push_str("<div class=\"plots\">");
        s.push_str(&plot.to_svg());
        s.push_str("</div>\n");
    }
    if let Some((png, caption)) = &pictures.sweep {
        let _ = writeln!(
            s,
            "<figure><img src=\"{}\" alt=\"twist sweep\"><figcaption>{}</figcaption></figure>",
            png_uri(png),
            escape(caption)
        );
    }
}

/// The influence histogram and counts.
pub(super) fn influences(s: &mut String, report: &RigReport) {
    let inf = &report.influences;
    s.push_str("<h2 id=\"influences\">Influences</h2>\n<div class=\"plots\">");
    let labels: Vec<String> = (0..inf.histogram.len()).map(|k| k.to_string()).collect();
    s.push_str(&bar_chart(
        "vertices by number of influences",
        "influences per vertex",
        &labels,
        &inf.histogram,
    ));
    s.push_str("</div>\n<table>\n");
    row(s, "skinned vertices", &inf.vertices.to_string());
    row(
        s,
        "most influences on a vertex",
        &inf.max_influences.to_string(),
    );
    row(s, "vertices over 4 influences", &inf.over_4.to_string());
    row(
        s,
        "vertices over 8 (the GPU keeps 8)",
        &inf.over_8.to_string(),
    );
    row(
        s,
        "largest weight dropped past 8",
        &format!("{:.5}", inf.max_dropped_weight),
    );
    row(
        s,
        "stored weight sums not 1 (off by more than 0.001)",
        &inf.unnormalised.to_string(),
    );
    let sums = inf
        .sum_range
        .map_or("-".to_string(), |(lo, hi)| format!("{lo:.4} .. {hi:.4}"));
    row(s, "stored weight sums, smallest .. largest", &sums);
    row(
        s,
        "worst stored weight sum",
        &inf.worst_sum.map_or("-".into(), |w| format!("{w:.4}")),
    );
    row(s, "vertices without weights", &inf.unweighted.to_string());
    row(
        s,
        "negative or non-finite weights",
        &inf.invalid_weights.to_string(),
    );
    s.push_str("</table>\n<p class=\"note\">Sums are of the weights as the file stores them, before dqview renormalises each vertex to 1.</p>\n");
}

/// The blend fit: each mode's distance from CoR before and after.
pub(super) fn blend_fit(s: &mut String, report: &RigReport) {
    s.push_str("<h2 id=\"blend-fit\">Fitted blend map</h2>\n");
    let Some(fit) = &report.fit else {
        s.push_str("<p>No poses to fit over.</p>\n");
        return;
    };
    let _ = writeln!(
        s,
        "<p>Per-vertex DQS betas fitted to CoR (as <code>dqview blend</code> does) over {} poses, {} vertices, in {:.2} s; mean beta {:.3}. Distance: each vertex's distance from its CoR position, the largest per pose, over the rest bounding-box diagonal.</p>",
        fit.poses, fit.vertices, fit.seconds, fit.mean_beta
    );
    s.push_str(
        "<table><tr><th>mode</th><th>largest distance from CoR</th><th>mean over poses</th></tr>\n",
    );
    for (label, d) in FitReport::LABELS.iter().zip(&fit.distances) {
        let _ = writeln!(
            s,
            "<tr><td>{label}</td><td class=\"n\">{:.4}%</td><td class=\"n\">{:.4}%</td></tr>",
            100.0 * d.max,
            100.0 * d.mean
        );
    }
    s.push_str("</table>\n");
}

/// Joints whose skinning matrices carry scale.
pub(super) fn scales(s: &mut String, report: &RigReport) {
    s.push_str("<h2 id=\"scales\">Joint scales</h2>\n");
    if report.scales.is_empty() {
        s.push_str("<p>Every joint's skinning matrix is a rotation and translation (within float rounding) at rest and in every sampled clip.</p>\n");
        return;
    }
    s.push_str("<table><tr><th>joint</th><th>kind</th><th>axis lengths</th><th>where</th></tr>\n");
    for j in &report.scales {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{:.5}, {:.5}, {:.5}</td><td>{}</td></tr>",
            escape(&j.name),
            j.kind.text(),
            j.scale.x,
            j.scale.y,
            j.scale.z,
            escape(&j.at)
        );
    }
    s.push_str("</table>\n");
}

/// `dqview check`'s findings on the same scene.
pub(super) fn checks(s: &mut String, report: &RigReport) {
    s.push_str("<h2 id=\"checks\">Pipeline checks</h2>\n<p class=\"note\">The rules of <code>dqview check</code> at their default thresholds (weights off 1 by 0.001, scale unevenness 0.001, LBS region volume 0.9, 30 samples a clip).</p>\n");
    if report.checks.is_empty() {
        s.push_str("<p>No rule finds anything.</p>\n");
        return;
    }
    s.push_str("<table><tr><th>severity</th><th>rule</th><th>finding</th></tr>\n");
    for f in &report.checks {
        let class = match f.severity {
            crate::check::Severity::Error => " class=\"bad\"",
            _ => "",
        };
        let _ = writeln!(
            s,
            "<tr><td{class}>{}</td><td><code>{}</code></td><td>{}</td></tr>",
            f.severity.name(),
            f.rule.name(),
            escape(&f.detail)
        );
    }
    s.push_str("</table>\n");
}
