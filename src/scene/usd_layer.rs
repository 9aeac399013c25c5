//! The USD way of writing a blend map or CoR centres back: a small `.usda` layer that
//! sublayers the original file and adds, as `over`s, only each skinned mesh's per-point values
//! (and `primvars:skel:skinningMethod` where a map says the mesh should run DQS). The original
//! is untouched.

use std::fmt::Write as _;

/// The per-point DQS blend primvar dqview writes and reads (0 LBS .. 1 DQS), beside glTF's `_DQS_BLEND`.
pub const USD_DQS_BLEND_PRIMVAR: &str = "primvars:dqview:dqsBlend";
/// The primvar `dqview cor` writes each point's centre of rotation to (float3, vertex).
pub const USD_COR_CENTER_PRIMVAR: &str = "primvars:dqview:corCenter";

/// Mean beta from which a mesh's layer also says `skinningMethod = "dualQuaternion"`: at 0.5
/// and above the map is nearer DQS than LBS, which is what a reader without hybrid skinning gets.
pub const DQS_METHOD_MEAN_BETA: f32 = 0.5;

/// The stage metadata a root layer must repeat (USD reads it from the root layer only).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UsdStageMetadata {
    /// `defaultPrim`, when the original has one.
    pub default_prim: Option<String>,
    /// `upAxis` (`Y` or `Z`), when authored.
    pub up_axis: Option<String>,
    /// `metersPerUnit`, when authored.
    pub meters_per_unit: Option<f64>,
    /// `timeCodesPerSecond`, when authored.
    pub time_codes_per_second: Option<f64>,
    /// `framesPerSecond`, when authored.
    pub frames_per_second: Option<f64>,
    /// `startTimeCode`, when authored.
    pub start_time_code: Option<f64>,
    /// `endTimeCode`, when authored.
    pub end_time_code: Option<f64>,
}

impl UsdStageMetadata {
    /// The metadata with every value that would make the written layer unreadable or its
    /// times undefined left out, and a line per value left out saying why: Pixar's USD refuses
    /// a `framesPerSecond` that is not positive; a `timeCodesPerSecond` that is not positive
    /// gives no time in seconds; a non-finite number cannot be written.
    #[must_use]
    pub fn readable(&self) -> (Self, Vec<String>) {
        let mut out = self.clone();
        let mut dropped = Vec::new();
        let finite = "not a number USD can read";
        drop_unless(
            "framesPerSecond",
            &mut out.frames_per_second,
            positive_rate,
            "Pixar's USD refuses a layer with it; USD's default 24 holds",
            &mut dropped,
        );
        drop_unless(
            "timeCodesPerSecond",
            &mut out.time_codes_per_second,
            positive_rate,
            "key times in seconds would be undefined; USD's default 24 holds",
            &mut dropped,
        );
        for (key, value) in [
            ("metersPerUnit", &mut out.meters_per_unit),
            ("startTimeCode", &mut out.start_time_code),
            ("endTimeCode", &mut out.end_time_code),
        ] {
            drop_unless(key, value, f64::is_finite, finite, &mut dropped);
        }
        (out, dropped)
    }
}

/// Leaves `value` (metadata `key`) out unless `keep` holds for it, with a line saying `why`.
fn drop_unless(
    key: &str,
    value: &mut Option<f64>,
    keep: fn(f64) -> bool,
    why: &str,
    dropped: &mut Vec<String>,
) {
    if let Some(v) = value.filter(|v| !keep(*v)) {
        dropped.push(format!("the input's {key} = {v} is not written ({why})"));
        *value = None;
    }
}

/// Whether `v` is a usable rate: finite and above zero.
fn positive_rate(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// One mesh's map: its prim path and one beta per point.
#[derive(Clone, Copy, Debug)]
pub struct UsdMeshBlend<'a> {
    /// The Mesh prim's path, e.g. `/Tube/Geom/Tube`.
    pub prim_path: &'a str,
    /// One beta per point, in point order.
    pub betas: &'a [f32],
}

/// Whether a mesh with this map should run DQS when only one method is available.
#[must_use]
pub fn should_run_dqs(betas: &[f32]) -> bool {
    let sum: f64 = betas.iter().map(|&b| f64::from(b)).sum();
    !betas.is_empty() && sum / betas.len() as f64 >= f64::from(DQS_METHOD_MEAN_BETA)
}

/// One mesh's CoR centres: its prim path and one centre per point, in the points' space.
#[derive(Clone, Copy, Debug)]
pub struct UsdMeshCor<'a> {
    /// The Mesh prim's path.
    pub prim_path: &'a str,
    /// One centre per point, in point order.
    pub centers: &'a [[f32; 3]],
}

/// The text of the layer: `sublayer` (an asset path, relative to the layer) plus the maps.
#[must_use]
pub fn usd_blend_layer(
    sublayer: &str,
    meta: &UsdStageMetadata,
    meshes: &[UsdMeshBlend<'_>],
) -> String {
    let items: Vec<(&str, String)> = meshes
        .iter()
        .map(|m| (m.prim_path, blend_opinions(m.betas)))
        .collect();
    layer_text(
        sublayer,
        meta,
        "dqview blend: the fitted per-point DQS blend map over the sublayer",
        items,
    )
}

/// The text of the layer: `sublayer` plus each mesh's `primvars:dqview:corCenter`.
#[must_use]
pub fn usd_cor_layer(sublayer: &str, meta: &UsdStageMetadata, meshes: &[UsdMeshCor<'_>]) -> String {
    let items: Vec<(&str, String)> = meshes
        .iter()
        .map(|m| {
            let values: Vec<String> = m
                .centers
                .iter()
                .map(|[x, y, z]| format!("({x}, {y}, {z})"))
                .collect();
            let text = format!(
                "float3[] {USD_COR_CENTER_PRIMVAR} = [{}] (\n    interpolation = \"vertex\"\n)\n",
                values.join(", ")
            );
            (m.prim_path, text)
        })
        .collect();
    layer_text(
        sublayer,
        meta,
        "dqview cor: each point's precomputed centre of rotation over the sublayer",
        items,
    )
}

/// The layer's header (`doc`, the stage metadata, `sublayer`) and one nest of `over`s per
/// (prim path, opinions text) item.
fn layer_text(
    sublayer: &str,
    meta: &UsdStageMetadata,
    doc: &str,
    mut items: Vec<(&str, String)>,
) -> String {
    let mut out = String::from("#usda 1.0\n(\n");
    if let Some(p) = &meta.default_prim {
        let _ = writeln!(out, "    defaultPrim = {}", quoted(p));
    }
    let _ = writeln!(out, "    doc = {}", quoted(doc));
    let numbers = [
        ("endTimeCode", meta.end_time_code),
        ("framesPerSecond", meta.frames_per_second),
        ("metersPerUnit", meta.meters_per_unit),
        ("startTimeCode", meta.start_time_code),
    ];
    for (key, value) in numbers {
        if let Some(v) = value.filter(|v| v.is_finite()) {
            let _ = writeln!(out, "    {key} = {v}");
        }
    }
    let _ = writeln!(
        out,
        "    subLayers = [\n        @{}@\n    ]",
        sublayer.replace('@', "%40")
    );
    if let Some(v) = meta.time_codes_per_second.filter(|v| v.is_finite()) {
        let _ = writeln!(out, "    timeCodesPerSecond = {v}");
    }
    if let Some(up) = &meta.up_axis {
        let _ = writeln!(out, "    upAxis = {}", quoted(up));
    }
    out.push_str(")\n");
    items.sort_by(|a, b| a.0.cmp(b.0));
    // One `over` per prim, shared by the meshes under it: a stack of the open prims.
    let mut open: Vec<&str> = Vec::new();
    for (path, opinions) in &items {
        let names: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let common = open.iter().zip(&names).take_while(|(a, b)| a == b).count();
        close_to(&mut out, &mut open, common);
        for name in &names[common..] {
            let pad = pad(open.len());
            let _ = writeln!(
                out,
                "{}{pad}over {}\n{pad}{{",
                if open.is_empty() { "\n" } else { "" },
                quoted(name)
            );
            open.push(name);
        }
        let pad = pad(open.len());
        for line in opinions.lines() {
            let _ = writeln!(out, "{pad}{line}");
        }
    }
    close_to(&mut out, &mut open, 0);
    out
}

/// The deepest nesting that is indented: past it lines keep this indent, since indenting
/// every level of a 10,000-deep prim chain would write 200 MB of spaces.
const MAX_INDENT_LEVELS: usize = 16;

/// The indent of a line `depth` levels deep (four spaces a level, up to [`MAX_INDENT_LEVELS`]).
fn pad(depth: usize) -> String {
    "    ".repeat(depth.min(MAX_INDENT_LEVELS))
}

/// Closes open prims until `keep` remain.
fn close_to(out: &mut String, open: &mut Vec<&str>, keep: usize) {
    while open.len() > keep {
        open.pop();
        let _ = writeln!(out, "{}}}", pad(open.len()));
    }
}

/// One mesh's map opinions (unindented lines).
fn blend_opinions(betas: &[f32]) -> String {
    let values: Vec<String> = betas.iter().map(|b| format!("{b}")).collect();
    let mut out = format!(
        "float[] {USD_DQS_BLEND_PRIMVAR} = [{}] (\n    interpolation = \"vertex\"\n)\n",
        values.join(", ")
    );
    if should_run_dqs(betas) {
        out.push_str("uniform token primvars:skel:skinningMethod = \"dualQuaternion\"\n");
    }
    out
}

/// A USD string literal.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_metadata_leaves_out_what_usd_refuses_or_cannot_time() {
        let meta = UsdStageMetadata {
            frames_per_second: Some(0.0),
            time_codes_per_second: Some(-24.0),
            meters_per_unit: Some(0.01),
            start_time_code: Some(f64::NAN),
            end_time_code: Some(10.0),
            ..UsdStageMetadata::default()
        };
        let (kept, dropped) = meta.readable();
        assert_eq!(kept.frames_per_second, None);
        assert_eq!(kept.time_codes_per_second, None);
        assert_eq!(kept.start_time_code, None);
        assert_eq!(kept.meters_per_unit, Some(0.01));
        assert_eq!(kept.end_time_code, Some(10.0));
        assert_eq!(dropped.len(), 3, "{dropped:?}");
        assert!(dropped[0].starts_with("the input's framesPerSecond = 0 is not written (Pixar"));
        let good = UsdStageMetadata {
            frames_per_second: Some(24.0),
            time_codes_per_second: Some(24.0),
            ..UsdStageMetadata::default()
        };
        assert_eq!(good.readable(), (good.clone(), Vec::new()));
    }

    #[test]
    fn layer_nests_overs_and_says_dqs_only_for_a_mostly_dqs_map() {
        let meta = UsdStageMetadata {
            up_axis: Some("Y".into()),
            meters_per_unit: Some(1.0),
            ..UsdStageMetadata::default()
        };
        let a = [0.25_f32, 0.5];
        let b = [0.75_f32, 1.0];
        let text = usd_blend_layer(
            "tube.usda",
            &meta,
            &[
                UsdMeshBlend {
                    prim_path: "/T/Geom/A",
                    betas: &a,
                },
                UsdMeshBlend {
                    prim_path: "/T/Geom/B",
                    betas: &b,
                },
            ],
        );
        assert!(text.starts_with("#usda 1.0\n"));
        assert!(text.contains("@tube.usda@"));
        assert!(text.contains("float[] primvars:dqview:dqsBlend = [0.25, 0.5]"));
        assert!(text.contains("float[] primvars:dqview:dqsBlend = [0.75, 1]"));
        assert_eq!(text.matches("dualQuaternion").count(), 1, "{text}");
        let b_at = text.find("over \"B\"").expect("B");
        assert!(text[b_at..].contains("dualQuaternion"));
        assert_eq!(text.matches('{').count(), text.matches('}').count());
        assert_eq!(text.matches("over \"Geom\"").count(), 1, "{text}");
    }
}
