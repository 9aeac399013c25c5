//! The report's measured sections: volume over time, worst regions, flips, influences, fit, scales;
//! `maud` markup, every interpolation escaped by construction.

use maud::{Markup, html};

use super::clips::{Change, ClipReport, UNCHANGED};
use super::html::{
    Pictures, RegionPicture, count_word, fixed, pane_labels, png_uri, ratio_cell, row,
};
use super::svg::{Line, Plot, bar_chart, mode_color};
use super::{FitReport, RigReport};
use crate::analysis::{Measure, RestBind, SAME_RATIO_SPREAD};
use crate::skin::{PerMode, SkinningMode};

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
fn mode_lines(ratios: &PerMode<Vec<f64>>) -> Vec<Line<'_>> {
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
pub(super) fn volume(report: &RigReport) -> Markup {
    html! {
        h2 id="volume" { "Volume over time" }
        p.note { "Ratio of the posed measure to the rest measure per skinning mode (1 keeps the volume), for the whole mesh and for the joint regions that stray farthest in this clip. Hybrid uses betas from joint flags; CoR uses the precomputed centers." }
        @for clip in &report.clips {
            (clip_volume(clip))
        }
    }
}

/// One clip's heading, whole-mesh range and plots (a table for a single pose).
fn clip_volume(clip: &ClipReport) -> Markup {
    let ranges: Vec<String> = SkinningMode::ALL
        .iter()
        .zip(&clip.whole)
        .map(|(m, r)| {
            let lo = r.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            format!("{} {lo:.4}..{hi:.4}", m.short_label())
        })
        .collect();
    let heading = html! {
        h3 { (clip.name) }
        p { (clip.times_s.len()) " samples; whole mesh: " (ranges.join(", ")) }
    };
    if clip.times_s.len() < 2 {
        return html! { (heading) (single_pose_table(clip)) };
    }
    let whole = Plot {
        title: format!("{}: whole mesh", clip.name),
        x_label: "time (s)",
        y_label: y_label(clip.measure),
        x: &clip.times_s,
        lines: mode_lines(&clip.whole),
        markers: Vec::new(),
        reference: Some(1.0),
    };
    let regions = clip
        .worst_tracks(REGION_PLOTS)
        .into_iter()
        .map(|track| Plot {
            title: format!("{}: region {}", clip.name, track.name),
            x_label: "time (s)",
            y_label: "region ratio to rest",
            x: &clip.times_s,
            lines: mode_lines(&track.ratios),
            markers: Vec::new(),
            reference: Some(1.0),
        });
    html! {
        (heading)
        div.plots {
            (whole.to_svg())
            @for plot in regions { (plot.to_svg()) }
        }
    }
}

/// The ratios of a single pose, as a table (a plot of one point says nothing).
fn single_pose_table(clip: &ClipReport) -> Markup {
    let first = |r: &PerMode<Vec<f64>>| r.clone().map(|v| v.first().copied().unwrap_or(f64::NAN));
    let whole = first(&clip.whole);
    let tracks = clip.worst_tracks(6).into_iter().map(|track| {
        let r = first(&track.ratios);
        (track.name.as_str(), r)
    });
    html! {
        table {
            tr { th { "region" } @for m in SkinningMode::ALL { th { (m.short_label()) } } }
            (ratio_row("whole mesh", &whole))
            @for (name, r) in tracks { (ratio_row(name, &r)) }
        }
    }
}

/// A row of every mode's ratio.
fn ratio_row(name: &str, r: &PerMode<f64>) -> Markup {
    html! {
        tr {
            td { (name) }
            @for v in r { td.n { (ratio_cell(*v, 4)) } }
        }
    }
}

/// Per mode, the regions that lose the most and, apart, those that grow the most, with the
/// moment and every mode's ratio there; then the renders.
pub(super) fn worst_regions(report: &RigReport, pictures: &Pictures) -> Markup {
    html! {
        h2 id="worst-regions" { "Worst joint regions" }
        p.note {
            "A joint's region: the triangles whose first corner's heaviest influence is the joint, openings capped. "
            "Losses (ratio below 1: the region shrinks) and growths (ratio above 1: it swells) are ranked apart, "
            "each region at its lowest, or highest, sample in that mode over every clip; a ratio within "
            (UNCHANGED) " of 1 is neither. Where every mode keeps the same share (within " (SAME_RATIO_SPREAD)
            "), the pose takes the volume, not the skinning method: no flag or blend map brings it back."
        }
        @if !report.not_measurable.is_empty() {
            p.note {
                "Not measurable, so never ranked: "
                @for (k, (name, why)) in report.not_measurable.iter().enumerate() {
                    @if k > 0 { "; " }
                    b { (name) } " (" (why) ")"
                }
                "."
            }
        }
        @for mode in SkinningMode::ALL {
            h3 { (mode.title()) }
            @for change in Change::ALL {
                (worst_table(report, mode, change))
            }
        }
        @for p in &pictures.regions {
            (region_figure(p, &report.rest_bind))
        }
    }
}

/// One mode's table of losses or of growths.
fn worst_table(report: &RigReport, mode: SkinningMode, change: Change) -> Markup {
    let (list, heading, none) = match change {
        Change::Loss => (
            &report.loss[mode.index()],
            "Loses the most (ratio below 1, lowest first)",
            "No region loses volume in any sample.",
        ),
        Change::Growth => (
            &report.growth[mode.index()],
            "Grows the most (ratio above 1, highest first)",
            "No region grows in any sample.",
        ),
    };
    html! {
        h4 { (heading) }
        @if list.is_empty() {
            p.note { (none) }
        } @else {
            table {
                tr {
                    th { "region" } th { "clip" } th { "time (s)" }
                    @for m in SkinningMode::ALL { th { (m.short_label()) } }
                    th { "what changes it" }
                }
                @for w in list {
                    tr {
                        td { (w.name) }
                        td { (w.clip_name) }
                        td.n { (fixed(w.time_s, 2)) }
                        @for (k, r) in w.ratios.iter().enumerate() {
                            td.n.bad[k == mode.index()] { (ratio_cell(*r, 4)) }
                        }
                        td {
                            @if w.is_the_pose() { "the pose (every mode alike)" } @else { "the method (modes differ)" }
                        }
                    }
                }
            }
        }
    }
}

/// One rendered worst region: a pane per mode, or the one pane of a region every mode changes
/// alike; the caption says whether it loses or grows, what the view sees of the region (and
/// what is cut away), what the lower row shows, the command that draws it again, and where
/// the rest pose already turns its joint away from the bind pose.
fn region_figure(p: &RegionPicture, rest_bind: &RestBind) -> Markup {
    let w = &p.region;
    let rest = rest_bind.joints.iter().find(|j| j.node == w.joint).map(|j| {
        format!(
            " Its joint's rest pose is not its bind pose ({:.1} deg from its parent joint's): the modes already differ here at rest.",
            j.angle_deg
        )
    });
    html! {
        figure {
            img src=(png_uri(&p.png)) alt=(format!("{} in {} at {:.2} s", w.name, w.clip_name, w.time_s));
            figcaption {
                @match p.single_pane {
                    Some(mode) => {
                        "Region " b { (w.name) } " in " (w.clip_name) " at " (fixed(w.time_s, 2))
                        " s: every mode keeps the same share of it ("
                        @for (k, m) in SkinningMode::ALL.iter().enumerate() {
                            @if k > 0 { ", " }
                            (m.short_label()) " " (ratio_cell(w.ratios[k], 3))
                        }
                        "), so the pose takes the volume, not the skinning method; drawn once ("
                        (mode.short_label()) " pane) instead of " (count_word(SkinningMode::ALL.len())) " alike."
                    }
                    None => {
                        (w.name) " " (w.change.verb()) " most under " (w.mode.short_label()) ": region "
                        b { (w.name) } " in " (w.clip_name) " at " (fixed(w.time_s, 2)) " s (ratio "
                        (fixed(w.ratio(), 3))
                        @match w.change { Change::Loss => ", below 1", Change::Growth => ", above 1" }
                        "); panes " (pane_labels()) "."
                        @if let Some(top) = &p.heat_top {
                            " Below, each pane's distance from where CoR puts the same vertex, on one scale for all "
                            (count_word(SkinningMode::ALL.len())) ": 0 blue to "
                            (top) " red (CoR's own pane is 0)."
                        }
                    }
                }
                " The region is outlined in magenta, seen from the view that shows the most of it ("
                (p.seen) ")"
                @if p.cut_away { "; no view sees a third of it, so what hides it in front of its centre is cut away" }
                ". The same picture: " code { (p.command) }
                @if p.heat_top.is_some() { " (add " code { "--view cor-distance" } " for the lower row)" }
                "."
                @if let Some(rest) = &rest { (rest) }
            }
        }
    }
}

/// The flip table and the twist sweep's plot and render.
pub(super) fn flips(report: &RigReport, pictures: &Pictures) -> Markup {
    let deg =
        |d: Option<f32>| d.map_or_else(|| "none within 360".to_string(), |d| format!("{d:.1}"));
    let sweep = report.sweep.as_ref().and_then(|series| {
        let region = series.region.as_ref()?;
        let flip = report.flips.iter().find(|f| f.joint == region.joint);
        let markers: Vec<(f32, String)> = flip
            .into_iter()
            .flat_map(|f| [f.below_deg, f.above_deg])
            .flatten()
            .map(|d| (d, format!("flip {d:.0}")))
            .collect();
        Some(Plot {
            title: format!("twist of {}: its region", region.name),
            x_label: "twist (degrees)",
            y_label: y_label(region.measure),
            x: &series.x,
            lines: mode_lines(&region.ratios),
            markers,
            reference: Some(1.0),
        })
    });
    html! {
        h2 id="flips" { "DQS flips of twist joints" }
        p.note { "Twisting a joint on the rest pose: past these angles the joint's quaternion leaves its blend partner's hemisphere and DQS jumps to the other arc (the skin flips). Joints flagged as twisting (names, clips), else the joints of the worst regions." }
        table {
            tr { th { "joint" } th { "flip below 0 (deg)" } th { "flip above 0 (deg)" } th { "flipping pairs" } }
            @for f in &report.flips {
                tr {
                    td { (f.name) }
                    td.n { (deg(f.below_deg)) }
                    td.n { (deg(f.above_deg)) }
                    td.n { (f.pairs) }
                }
            }
        }
        @if let Some(plot) = &sweep {
            div.plots { (plot.to_svg()) }
        }
        @if let Some((png, caption)) = &pictures.sweep {
            figure {
                img src=(png_uri(png)) alt="twist sweep";
                figcaption { (caption) }
            }
        }
    }
}

/// The influence histogram and counts.
pub(super) fn influences(report: &RigReport) -> Markup {
    let inf = &report.influences;
    let labels: Vec<String> = (0..inf.histogram.len()).map(|k| k.to_string()).collect();
    let sums = inf
        .sum_range
        .map_or("-".to_string(), |(lo, hi)| format!("{lo:.4} .. {hi:.4}"));
    html! {
        h2 id="influences" { "Influences" }
        div.plots {
            (bar_chart("vertices by number of influences", "influences per vertex", &labels, &inf.histogram))
        }
        table {
            (row("skinned vertices", inf.vertices))
            (row("most influences on a vertex", inf.max_influences))
            (row("vertices over 4 influences", inf.over_4))
            (row("vertices over 8 (the GPU keeps 8)", inf.over_8))
            (row("largest weight dropped past 8", fixed(inf.max_dropped_weight, 5)))
            (row("stored weight sums not 1 (off by more than 0.001)", inf.unnormalised))
            (row("stored weight sums, smallest .. largest", sums))
            (row("worst stored weight sum", inf.worst_sum.map_or("-".into(), |w| fixed(w, 4))))
            (row("vertices without weights", inf.unweighted))
            (row("negative or non-finite weights", inf.invalid_weights))
        }
        p.note { "Sums are of the weights as the file stores them, before dqview renormalises each vertex to 1." }
    }
}

/// The blend fit: each mode's distance from CoR before and after.
pub(super) fn blend_fit(report: &RigReport) -> Markup {
    let Some(fit) = &report.fit else {
        return html! {
            h2 id="blend-fit" { "Fitted blend map" }
            p { "No poses to fit over." }
        };
    };
    html! {
        h2 id="blend-fit" { "Fitted blend map" }
        p {
            "Per-vertex DQS betas fitted to CoR (as " code { "dqview blend" } " does) over " (fit.poses)
            " poses, " (fit.vertices) " vertices, in " (fixed(fit.seconds, 2)) " s; mean beta "
            (fixed(fit.mean_beta, 3))
            ". Distance: each vertex's distance from its CoR position, the largest per pose, over the rest bounding-box diagonal."
        }
        table {
            tr { th { "mode" } th { "largest distance from CoR" } th { "mean over poses" } }
            @for (label, d) in FitReport::LABELS.iter().zip(&fit.distances) {
                tr {
                    td { (label) }
                    td.n { (fixed(100.0 * d.max, 4)) "%" }
                    td.n { (fixed(100.0 * d.mean, 4)) "%" }
                }
            }
        }
    }
}

/// Joints whose skinning matrices carry scale.
pub(super) fn scales(report: &RigReport) -> Markup {
    html! {
        h2 id="scales" { "Joint scales" }
        @if report.scales.is_empty() {
            p { "Every joint's skinning matrix is a rotation and translation (within float rounding) at rest and in every sampled clip." }
        } @else {
            table {
                tr { th { "joint" } th { "kind" } th { "axis lengths" } th { "where" } }
                @for j in &report.scales {
                    tr {
                        td { (j.name) }
                        td { (j.kind.text()) }
                        td.n { (format!("{:.5}, {:.5}, {:.5}", j.scale.x, j.scale.y, j.scale.z)) }
                        td { (j.at) }
                    }
                }
            }
        }
    }
}

/// `dqview check`'s findings on the same scene.
pub(super) fn checks(report: &RigReport) -> Markup {
    html! {
        h2 id="checks" { "Pipeline checks" }
        p.note {
            "The rules of " code { "dqview check" }
            " at their default thresholds (weights off 1 by 0.001, scale unevenness 0.001, LBS region volume 0.9, 30 samples a clip)."
        }
        @if report.checks.is_empty() {
            p { "No rule finds anything." }
        } @else {
            table {
                tr { th { "severity" } th { "rule" } th { "finding" } }
                @for f in &report.checks {
                    tr {
                        td.bad[f.severity == crate::check::Severity::Error] { (f.severity.name()) }
                        td { code { (f.rule.name()) } }
                        td { (f.detail) }
                    }
                }
            }
        }
    }
}
