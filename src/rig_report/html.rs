//! The report as one self-contained HTML page: inline CSS and SVG, PNGs as `data:` URIs, no scripts.

use std::fmt::Write as _;

use super::clips::{WorstRegion, mode_index};
use super::html_sections as sections;
use super::svg::escape;
use super::{RigReport, base64_encode};
use crate::skin::SkinningMode;

/// A picture of a region at its worst moment: LBS | DQS | hybrid | CoR panes, or one pane
/// where every mode loses the same ([`WorstRegion::is_the_pose`]).
#[derive(Clone, Debug)]
pub struct RegionPicture {
    /// The region and moment shown.
    pub region: WorstRegion,
    /// The PNG file's bytes.
    pub png: Vec<u8>,
    /// The one mode drawn, when the picture has a single pane; `None`: every mode's pane.
    pub single_pane: Option<SkinningMode>,
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
    format!("data:image/png;base64,{}", base64_encode(png))
}

/// Writes the page: `stages` are (what, seconds) lines for the timing section.
#[must_use]
pub fn write_html(report: &RigReport, pictures: &Pictures, stages: &[(String, f64)]) -> String {
    let title = format!("dqview rig report: {}", report.summary.file);
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{CSS}</style></head><body>\n",
        escape(&title)
    );
    let _ = writeln!(s, "<h1>{}</h1>", escape(&title));
    s.push_str(
        "<nav><a href=\"#summary\">Summary</a><a href=\"#worst-regions\">Worst regions</a><a href=\"#recommendations\">Recommendations</a><a href=\"#volume\">Volume over time</a><a href=\"#flips\">DQS flips</a><a href=\"#influences\">Influences</a><a href=\"#blend-fit\">Blend fit</a><a href=\"#scales\">Joint scales</a><a href=\"#checks\">Checks</a><a href=\"#timing\">Time</a></nav>\n",
    );
    // What matters first: the summary, then the worst regions, then the advice; the clip-by-clip plots after.
    summary(&mut s, report, pictures);
    sections::worst_regions(&mut s, report, pictures);
    recommendations(&mut s, report);
    sections::volume(&mut s, report);
    sections::flips(&mut s, report, pictures);
    sections::influences(&mut s, report);
    sections::blend_fit(&mut s, report);
    sections::scales(&mut s, report);
    sections::checks(&mut s, report);
    timing(&mut s, stages);
    s.push_str("</body></html>\n");
    s
}

/// A two-column table row.
pub(super) fn row(s: &mut String, key: &str, value: &str) {
    let _ = writeln!(
        s,
        "<tr><th>{}</th><td>{}</td></tr>",
        escape(key),
        escape(value)
    );
}

/// The summary: file, format, units, axes, counts, clips, warnings.
fn summary(s: &mut String, report: &RigReport, pictures: &Pictures) {
    let m = &report.summary;
    s.push_str("<h2 id=\"summary\">Summary</h2>\n<table>\n");
    row(s, "file", &m.file);
    let format = match &m.creator {
        Some(c) => format!("{} (written by {c})", m.format),
        None => m.format.clone(),
    };
    row(s, "format", &format);
    row(s, "units", &format!("1 unit = {} m", m.unit_meters));
    row(s, "axes", &m.axes);
    row(
        s,
        "meshes",
        &format!(
            "{} meshes, {} primitives ({} skinned), {} vertices",
            m.meshes, m.primitives, m.skinned_primitives, m.vertices
        ),
    );
    row(
        s,
        "skins",
        &format!("{} skins, {} joints", m.skins, m.joints),
    );
    let inf = &report.influences;
    row(
        s,
        "influences",
        &format!(
            "up to {} per vertex; {} vertices over 4, {} over 8",
            inf.max_influences, inf.over_4, inf.over_8
        ),
    );
    let clips: Vec<String> = m
        .clips
        .iter()
        .map(|(n, d)| format!("{n} ({d:.2} s)"))
        .collect();
    row(
        s,
        "clips",
        &format!("{}: {}", clips.len(), clips.join(", ")),
    );
    let warnings = if m.warnings.is_empty() {
        "none".to_string()
    } else {
        m.warnings.join("; ")
    };
    row(s, "load warnings", &warnings);
    s.push_str("</table>\n");
    if let Some(png) = &pictures.overview {
        let _ = writeln!(
            s,
            "<figure><img src=\"{}\" alt=\"rest pose in LBS, DQS, hybrid and CoR\"><figcaption>Rest pose: LBS | DQS | hybrid | CoR.</figcaption></figure>",
            png_uri(png)
        );
    }
    if let Some(note) = &pictures.note {
        let _ = writeln!(s, "<p class=\"note\">{}</p>", escape(note));
    }
}

/// The advice list, only what is specific to this rig: joints to flag for DQS, a blend map that
/// helps, flips the clips reach or the rest pose brings near, uneven joint scale, the checks, weights.
fn recommendations(s: &mut String, report: &RigReport) {
    s.push_str("<h2 id=\"recommendations\">Recommendations</h2>\n<ul class=\"advice\">\n");
    let start = s.len();
    let [l, d, _, c] = SkinningMode::ALL.map(mode_index);
    for cand in report.dqs_candidates.iter().take(8) {
        let w = &cand.region;
        let _ = writeln!(
            s,
            "<li>Flag <b>{}</b> for DQS: in {} at {:.2} s LBS keeps <span class=\"bad\">{:.3}</span> of the region's volume, DQS <span class=\"good\">{:.3}</span>, CoR {:.3}.</li>",
            escape(&w.name),
            escape(&w.clip_name),
            w.time_s,
            w.ratios[l],
            w.ratios[d],
            w.ratios[c]
        );
    }
    if let Some(fit) = &report.fit {
        fit_advice(s, fit, &report.summary.file);
    }
    flip_advice(s, report);
    scale_advice(s, &report.scales);
    let errors = count_of(&report.checks, crate::check::Severity::Error);
    let warnings = count_of(&report.checks, crate::check::Severity::Warning);
    if errors + warnings > 0 {
        let _ = writeln!(
            s,
            "<li><code>dqview check</code> finds {} and {} (see Pipeline checks).</li>",
            counted(errors, "error"),
            counted(warnings, "warning")
        );
    }
    influence_advice(s, &report.influences);
    if s.len() == start {
        s.push_str("<li>Nothing to change: no joint region loses clearly more under LBS than under DQS and CoR, no clip reaches a DQS flip, and the weights and joint scales pass the checks.</li>\n");
    }
    s.push_str("</ul>\n");
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
fn flip_advice(s: &mut String, report: &RigReport) {
    for f in report
        .checks
        .iter()
        .filter(|f| f.rule == crate::check::Rule::DqsFlipInClip)
        .take(4)
    {
        let _ = writeln!(
            s,
            "<li>Clip {} turns <b>{}</b> more than half a turn from <b>{}</b> at {:.2} s: DQS flips the skin there; key the twist the short way round or split it over a twist joint.</li>",
            escape(f.clip.as_deref().unwrap_or("")),
            escape(f.joint.as_deref().unwrap_or("")),
            escape(f.pivot_joint.as_deref().unwrap_or("")),
            f.time.unwrap_or(0.0)
        );
    }
    for f in report
        .flips
        .iter()
        .filter(|f| f.nearest_deg() < NEAR_FLIP_DEG)
        .take(4)
    {
        let _ = writeln!(
            s,
            "<li>Keep the twist of <b>{}</b> within {} to {} degrees: its rest pose already turns it from its blend partner, so DQS flips well before half a turn (see DQS flips).</li>",
            escape(&f.name),
            f.below_deg.map_or("-".into(), |b| format!("{b:.1}")),
            f.above_deg.map_or("-".into(), |a| format!("{a:.1}"))
        );
    }
}

/// The blend-map line, when the fitted map brings the hybrid clearly closer to CoR.
fn fit_advice(s: &mut String, fit: &super::FitReport, file: &str) {
    let (before, after) = (fit.distances[2].max, fit.distances[3].max);
    let gain = if before > 0.0 {
        100.0 * (1.0 - after / before)
    } else {
        0.0
    };
    if gain <= 10.0 {
        return;
    }
    let out = std::path::Path::new(file)
        .file_stem()
        .and_then(|n| n.to_str())
        // `builtin:twist` writes `twist_blend.glb`.
        .and_then(|n| n.rsplit(':').next())
        .map_or_else(|| "blended".to_string(), |n| format!("{n}_blend"));
    let _ = writeln!(
        s,
        "<li>Write a fitted blend map: <code>dqview blend {} --clip all --out {}.glb</code>; the hybrid's largest distance from CoR goes from {:.3}% to {:.3}% of the diagonal ({gain:.0}% less; mean {:.3}% to {:.3}%).</li>",
        escape(file),
        escape(&out),
        100.0 * before,
        100.0 * after,
        100.0 * fit.distances[2].mean,
        100.0 * fit.distances[3].mean
    );
}

/// The influence lines: stored sums off 1, more than 8 influences, unweighted vertices.
fn influence_advice(s: &mut String, inf: &super::InfluenceStats) {
    if inf.unnormalised > 0 {
        let _ = writeln!(
            s,
            "<li>{} vertices store weights that do not sum to 1 (worst {:.3}); dqview renormalises them, other tools may not: normalise them in the file.</li>",
            inf.unnormalised,
            inf.worst_sum.unwrap_or(1.0)
        );
    }
    if inf.over_8 > 0 {
        let _ = writeln!(
            s,
            "<li>{} vertices have more than 8 influences; the GPU drops weights up to {:.4}.</li>",
            inf.over_8, inf.max_dropped_weight
        );
    }
    if inf.unweighted > 0 {
        let _ = writeln!(
            s,
            "<li>{} vertices have no weights and stay at the bind pose.</li>",
            inf.unweighted
        );
    }
}

/// One line on the joints with scale, unless they share one uniform scale (a scaled armature).
fn scale_advice(s: &mut String, scales: &[super::JointScale]) {
    let Some(first) = scales.first() else {
        return;
    };
    let shared = scales.iter().all(|j| {
        j.kind == super::ScaleKind::Uniform
            && (j.scale - first.scale).abs().max_element() < 1e-3 * first.scale.max_element()
    });
    if shared {
        // One uniform scale on every scaled joint (a scaled armature) blends like none: no advice.
        return;
    }
    let listed: Vec<String> = scales
        .iter()
        .take(10)
        .map(|j| format!("{}: {}", j.name, j.kind.text()))
        .collect();
    let _ = writeln!(
        s,
        "<li>Joints with scale ({} in all; DQS splits it off and blends it apart): {}.</li>",
        scales.len(),
        escape(&listed.join("; "))
    );
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
fn timing(s: &mut String, stages: &[(String, f64)]) {
    s.push_str("<h2 id=\"timing\">Time</h2>\n<table>\n");
    for (what, secs) in stages {
        let _ = writeln!(
            s,
            "<tr><th>{}</th><td class=\"n\">{secs:.2} s</td></tr>",
            escape(what)
        );
    }
    s.push_str("</table>\n<p class=\"note\">Made by dqview report.</p>\n");
}
