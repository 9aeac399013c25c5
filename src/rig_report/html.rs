//! The report as one self-contained HTML page: inline CSS and SVG, PNGs as `data:` URIs, no scripts.
//!
//! The page is built with `maud`'s `html!`: every interpolated string (joint, clip and file
//! names, notes) is escaped by construction; only the style sheet goes in as it is.

use base64::prelude::{BASE64_STANDARD, Engine as _};
use maud::{DOCTYPE, Markup, PreEscaped, Render, html};

use super::RigReport;
use super::clips::WorstRegion;
use super::html_sections as sections;
use crate::skin::SkinningMode;

/// A picture of a region at its worst moment: a pane per mode ([`pane_labels`]), or one pane
/// where every mode loses the same ([`WorstRegion::is_the_pose`]).
#[derive(Clone, Debug)]
pub struct RegionPicture {
    /// The region and moment shown.
    pub region: WorstRegion,
    /// The PNG file's bytes.
    pub png: Vec<u8>,
    /// The one mode drawn, when the picture has a single pane; `None`: every mode's pane.
    pub single_pane: Option<SkinningMode>,
    /// What the view picked sees of the region, e.g. `region 84% seen (best of 27 views)`.
    pub seen: String,
    /// Whether what hides the region in front of its centre is cut away.
    pub cut_away: bool,
    /// The `dqview render` command that draws the shaded row again.
    pub command: String,
    /// The distance from CoR the lower row draws red, in the file's units (`1.20 cm`), where
    /// the picture has that row (0 is blue).
    pub heat_top: Option<String>,
}

/// The GPU pictures the caller made for the report.
#[derive(Clone, Debug, Default)]
pub struct Pictures {
    /// One per rendered worst region.
    pub regions: Vec<RegionPicture>,
    /// A render of the first flip joint's twist sweep past the flip, with its caption.
    pub sweep: Option<(Vec<u8>, String)>,
    /// The rest pose in every mode.
    pub overview: Option<Vec<u8>>,
    /// Why pictures are missing, if they are.
    pub note: Option<String>,
}

/// The page's style sheet.
const CSS: &str = "body{font-family:'DejaVu Sans',Arial,sans-serif;margin:24px auto;max-width:1400px;color:#222;background:#fafafa;padding:0 16px}\
h1{font-size:24px;margin-bottom:4px}h2{border-bottom:2px solid #4c78a8;padding-bottom:3px;margin-top:32px}\
h3{margin:18px 0 6px}table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:14px}\
th{background:#e8eef6}td.n{text-align:right;font-variant-numeric:tabular-nums}.plots{display:flex;flex-wrap:wrap;gap:8px}\
svg.plot{background:#fff;border:1px solid #ddd}figure{margin:10px 0}figcaption{font-size:13px;color:#444}\
img{max-width:100%;height:auto;border:1px solid #ccc;background:#fff}.bad{color:#b00020;font-weight:bold}.good{color:#1b7a1b}\
ul.advice li{margin:4px 0}nav a{margin-right:12px}.note{color:#555;font-size:13px}";

/// A `data:` URI of PNG bytes.
#[must_use]
pub fn png_uri(png: &[u8]) -> String {
    format!("data:image/png;base64,{}", BASE64_STANDARD.encode(png))
}

/// A number with `decimals` decimals (`{:.N}`), for the page's text.
pub(super) fn fixed(value: impl Into<f64>, decimals: usize) -> String {
    format!("{:.decimals$}", value.into())
}

/// A region's ratio to rest with `decimals` places; `not measurable` where it is NaN (a
/// region whose capped volume turned inside out at that moment: [`crate::analysis::NotMeasurable`]).
pub(super) fn ratio_cell(ratio: f64, decimals: usize) -> String {
    if ratio.is_nan() {
        String::from("not measurable")
    } else {
        fixed(ratio, decimals)
    }
}

/// Writes the page: `stages` are (what, seconds) lines for the timing section.
#[must_use]
pub fn write_html(report: &RigReport, pictures: &Pictures, stages: &[(String, f64)]) -> String {
    let title = format!("dqview rig report: {}", report.summary.file);
    // What matters first: the summary, then the worst regions, then the advice; the clip-by-clip plots after.
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                h1 { (title) }
                nav {
                    a href="#summary" { "Summary" }
                    a href="#worst-regions" { "Worst regions" }
                    a href="#recommendations" { "Recommendations" }
                    a href="#volume" { "Volume over time" }
                    a href="#flips" { "DQS flips" }
                    a href="#influences" { "Influences" }
                    a href="#blend-fit" { "Blend fit" }
                    a href="#scales" { "Joint scales" }
                    a href="#checks" { "Checks" }
                    a href="#timing" { "Time" }
                }
                (summary(report, pictures))
                (sections::worst_regions(report, pictures))
                (recommendations(report))
                (sections::volume(report))
                (sections::flips(report, pictures))
                (sections::influences(report))
                (sections::blend_fit(report))
                (sections::scales(report))
                (sections::checks(report))
                (timing(stages))
            }
        }
    };
    page.into_string() + "\n"
}

/// A two-column table row.
pub(super) fn row(key: &str, value: impl Render) -> Markup {
    html! { tr { th { (key) } td { (value) } } }
}

/// The summary: file, format, units, axes, counts, clips, warnings, whether the rest pose is
/// the bind pose.
fn summary(report: &RigReport, pictures: &Pictures) -> Markup {
    let m = &report.summary;
    let format = match &m.creator {
        Some(c) => format!("{} (written by {c})", m.format),
        None => m.format.clone(),
    };
    let inf = &report.influences;
    let clips: Vec<String> = m
        .clips
        .iter()
        .map(|(n, d)| format!("{n} ({d:.2} s)"))
        .collect();
    let warnings = if m.warnings.is_empty() {
        "none".to_string()
    } else {
        m.warnings.join("; ")
    };
    let rest = match report.rest_bind.detail() {
        Some(detail) => format!(
            "not the bind pose: {detail}; the modes already differ there at rest, and a heat view (dqview render --view displacement or collapse, the viewer's) shows colour there with no clip"
        ),
        None => "the bind pose (every weighted joint rests where it was bound, up to one placement of the whole skin)"
            .to_string(),
    };
    let rest_caption = report.rest_bind.largest().map(|j| {
        format!(
            " The rest pose is not the bind pose (largest at {}): the modes already differ there.",
            j.name
        )
    });
    html! {
        h2 id="summary" { "Summary" }
        table {
            (row("file", &m.file))
            (row("format", format))
            (row("units", format!("1 unit = {} m", m.unit_meters)))
            (row("axes", &m.axes))
            (row("meshes", format!(
                "{} meshes, {} primitives ({} skinned), {} vertices",
                m.meshes, m.primitives, m.skinned_primitives, m.vertices
            )))
            (row("skins", format!("{} skins, {} joints", m.skins, m.joints)))
            (row("influences", format!(
                "up to {} per vertex; {} vertices over 4, {} over 8",
                inf.max_influences, inf.over_4, inf.over_8
            )))
            (row("rest pose", rest))
            (row("clips", format!("{}: {}", clips.len(), clips.join(", "))))
            (row("load warnings", warnings))
        }
        @if let Some(png) = &pictures.overview {
            figure {
                img src=(png_uri(png)) alt=(format!("rest pose: {}", pane_labels()));
                figcaption { "Rest pose: " (pane_labels()) "." @if let Some(c) = &rest_caption { (c) } }
            }
        }
        @if let Some(note) = &pictures.note {
            p.note { (note) }
        }
    }
}

/// The advice list, only what is specific to this rig: joints to flag for DQS, a blend map that
/// helps, flips the clips reach or the rest pose brings near, uneven joint scale, the checks, weights.
fn recommendations(report: &RigReport) -> Markup {
    let [l, d, _, c, _, _] = SkinningMode::ALL.map(SkinningMode::index);
    let errors = count_of(&report.checks, crate::check::Severity::Error);
    let warnings = count_of(&report.checks, crate::check::Severity::Warning);
    let items = html! {
        @for cand in report.dqs_candidates.iter().take(8) {
            li {
                "Flag " b { (cand.region.name) } " for DQS: in " (cand.region.clip_name)
                " at " (fixed(cand.region.time_s, 2)) " s LBS keeps "
                span.bad { (ratio_cell(cand.region.ratios[l], 3)) }
                " of the region's volume, DQS " span.good { (ratio_cell(cand.region.ratios[d], 3)) }
                ", CoR " (ratio_cell(cand.region.ratios[c], 3)) "."
            }
        }
        @if let Some(fit) = &report.fit {
            (fit_advice(fit, &report.summary.file))
        }
        (flip_advice(report))
        (scale_advice(&report.scales))
        @if errors + warnings > 0 {
            li {
                code { "dqview check" } " finds " (counted(errors, "error")) " and "
                (counted(warnings, "warning")) " (see Pipeline checks)."
            }
        }
        (influence_advice(&report.influences))
    };
    html! {
        h2 id="recommendations" { "Recommendations" }
        ul.advice {
            @if items.0.is_empty() {
                li { "Nothing to change: no joint region loses clearly more under LBS than under DQS and CoR, no clip reaches a DQS flip, and the weights and joint scales pass the checks." }
            } @else {
                (items)
            }
        }
    }
}

/// Findings of `severity` among `checks`.
fn count_of(checks: &[crate::check::Finding], severity: crate::check::Severity) -> usize {
    checks.iter().filter(|f| f.severity == severity).count()
}

/// Below this distance from zero twist, degrees, a joint's DQS flip is nearer than the half turn
/// every blended pair has: the rest pose already turns the joint from its partner.
const NEAR_FLIP_DEG: f32 = 150.0;

/// The flip lines: a clip that flips DQS (from `check`), or a joint whose flip the rest pose
/// brings nearer than [`NEAR_FLIP_DEG`]; a flip at the usual half turn is no advice.
fn flip_advice(report: &RigReport) -> Markup {
    let in_clips = report
        .checks
        .iter()
        .filter(|f| f.rule == crate::check::Rule::DqsFlipInClip)
        .take(4);
    let near = report
        .flips
        .iter()
        .filter(|f| f.nearest_deg() < NEAR_FLIP_DEG)
        .take(4);
    let deg = |d: Option<f32>| d.map_or("-".into(), |d| format!("{d:.1}"));
    html! {
        @for f in in_clips {
            li {
                "Clip " (f.clip.as_deref().unwrap_or("")) " turns " b { (f.joint.as_deref().unwrap_or("")) }
                " more than half a turn from " b { (f.pivot_joint.as_deref().unwrap_or("")) }
                " at " (fixed(f.time.unwrap_or(0.0), 2))
                " s: DQS flips the skin there; key the twist the short way round or split it over a twist joint."
            }
        }
        @for f in near {
            li {
                "Keep the twist of " b { (f.name) } " within " (deg(f.below_deg)) " to " (deg(f.above_deg))
                " degrees: its rest pose already turns it from its blend partner, so DQS flips well before half a turn (see DQS flips)."
            }
        }
    }
}

/// The blend-map line, when the fitted map brings the hybrid clearly closer to CoR.
fn fit_advice(fit: &super::FitReport, file: &str) -> Markup {
    let (before, after) = (fit.distances[2].max, fit.distances[3].max);
    let gain = if before > 0.0 {
        100.0 * (1.0 - after / before)
    } else {
        0.0
    };
    if gain <= 10.0 {
        return Markup::default();
    }
    let out = std::path::Path::new(file)
        .file_stem()
        .and_then(|n| n.to_str())
        // `builtin:twist` writes `twist_blend.glb`.
        .and_then(|n| n.rsplit(':').next())
        .map_or_else(|| "blended".to_string(), |n| format!("{n}_blend"));
    html! {
        li {
            "Write a fitted blend map: " code { "dqview blend " (file) " --clip all --out " (out) ".glb" }
            "; the hybrid's largest distance from CoR goes from " (fixed(100.0 * before, 3)) "% to "
            (fixed(100.0 * after, 3)) "% of the diagonal (" (fixed(gain, 0)) "% less; mean "
            (fixed(100.0 * fit.distances[2].mean, 3)) "% to " (fixed(100.0 * fit.distances[3].mean, 3)) "%)."
        }
    }
}

/// The influence lines: stored sums off 1, more than 8 influences, unweighted vertices.
fn influence_advice(inf: &super::InfluenceStats) -> Markup {
    html! {
        @if inf.unnormalised > 0 {
            li {
                (inf.unnormalised) " vertices store weights that do not sum to 1 (worst "
                (fixed(inf.worst_sum.unwrap_or(1.0), 3))
                "); dqview renormalises them, other tools may not: normalise them in the file."
            }
        }
        @if inf.over_8 > 0 {
            li {
                (inf.over_8) " vertices have more than 8 influences; the GPU drops weights up to "
                (fixed(inf.max_dropped_weight, 4)) "."
            }
        }
        @if inf.unweighted > 0 {
            li { (inf.unweighted) " vertices have no weights and stay at the bind pose." }
        }
    }
}

/// One line on the joints with scale, unless they share one uniform scale (a scaled armature).
fn scale_advice(scales: &[super::JointScale]) -> Markup {
    let Some(first) = scales.first() else {
        return Markup::default();
    };
    let shared = scales.iter().all(|j| {
        j.kind == super::ScaleKind::Uniform
            && (j.scale - first.scale).abs().max_element() < 1e-3 * first.scale.max_element()
    });
    if shared {
        // One uniform scale on every scaled joint (a scaled armature) blends like none: no advice.
        return Markup::default();
    }
    let listed: Vec<String> = scales
        .iter()
        .take(10)
        .map(|j| format!("{}: {}", j.name, j.kind.text()))
        .collect();
    html! {
        li {
            "Joints with scale (" (scales.len()) " in all; DQS splits it off and blends it apart): "
            (listed.join("; ")) "."
        }
    }
}

/// `n thing` or `n things`.
fn counted(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// How long each stage took.
fn timing(stages: &[(String, f64)]) -> Markup {
    html! {
        h2 id="timing" { "Time" }
        table {
            @for (what, secs) in stages {
                tr { th { (what) } td.n { (fixed(*secs, 2)) " s" } }
            }
        }
        p.note { "Made by dqview report." }
    }
}

/// The report pictures' panes, left to right: every mode's label (`LBS | DQS | ...`).
#[must_use]
pub fn pane_labels() -> String {
    let labels: Vec<&str> = SkinningMode::ALL.iter().map(|m| m.short_label()).collect();
    labels.join(" | ")
}

/// `n` as an English word where it is small (`six`), else in digits.
#[must_use]
pub fn count_word(n: usize) -> String {
    const WORDS: [&str; 11] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| (*w).to_string())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::rig_report::{ReportOptions, gather};

    /// A name that breaks a page written by hand: a tag, an entity, both quotes.
    const HOSTILE: &str = r#"<script>alert("x")</script> & 'y'"#;
    /// `HOSTILE` as the page must show it.
    const ESCAPED: &str = r#"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; 'y'"#;

    #[test]
    fn joint_clip_and_file_names_come_out_escaped() {
        let mut scene = crate::builtin::builtin_scene("twist").expect("builtin");
        let base = scene.skins[0].joints[0];
        scene.nodes[base].name = HOSTILE.to_string();
        scene.animations[0].name = format!("clip {HOSTILE}");
        scene.source = format!("{HOSTILE}.glb");
        let centers = crate::skin::SceneCenters::compute(
            &scene,
            &crate::skin::CorOptions::default(),
            &crate::skin::CorProgress::new(),
        )
        .expect("CoR centers");
        let options = ReportOptions {
            clips: vec![0],
            samples: 5,
            fit_samples: 2,
            overrides: Default::default(),
            worst_regions: 4,
        };
        let none = |_: &str, _: usize, _: usize| {};
        let report = {
            let ddm = crate::skin::ddm::SceneDdm::compute(&scene, Default::default()).expect("ddm");
            gather(
                &scene,
                &centers,
                &ddm,
                &crate::skin::dm::SceneDm::compute(&scene, Default::default()),
                &options,
                &none,
                &AtomicBool::new(false),
            )
            .expect("report")
        };
        let pictures = Pictures {
            note: Some(format!("note {HOSTILE}")),
            ..Pictures::default()
        };
        let page = write_html(&report, &pictures, &[(format!("stage {HOSTILE}"), 1.0)]);
        assert!(!page.contains("<script"), "a tag in a name stays text");
        assert!(!page.contains(HOSTILE));
        // In the title, the summary, the tables, the advice, the plots' titles and legends.
        for needle in [
            format!("<title>dqview rig report: {ESCAPED}.glb</title>"),
            format!("<tr><th>file</th><td>{ESCAPED}.glb</td></tr>"),
            format!("<h3>clip {ESCAPED}</h3>"),
            format!("<td>{ESCAPED}</td>"),
            format!("<title>clip {ESCAPED}: region {ESCAPED}</title>"),
            format!("<p class=\"note\">note {ESCAPED}</p>"),
            format!("<tr><th>stage {ESCAPED}</th>"),
        ] {
            assert!(page.contains(&needle), "{needle} in {page}");
        }
        assert!(
            page.contains(&format!("Flag <b>{ESCAPED}</b> for DQS")),
            "{page}"
        );
        assert_eq!(crate::rig_report::non_finite_text(&page), None);
    }
}
