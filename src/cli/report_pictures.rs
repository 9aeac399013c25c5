//! `report`'s GPU pictures: the rest pose, each worst region at its worst moment, a twist
//! sweep across the flip. A region is seen from the view that shows the most of it (the rule
//! `render --focus` and the viewer's Frame use, [`Painter::pick_view`]), outlined in every
//! pane: every mode shaded (LBS | DQS | Hybrid | CoR | DDM | DM), and below, each pane's distance from CoR on one
//! colour scale, where the methods differ.

use anyhow::Result;

use super::painter::{Painter, RenderLook};
use super::render::{diagonal_of, region_seen_text};
use super::render_camera::CameraRequest;
use crate::analysis::{
    HeatBetas, HeatQuantity, HeatRange, HeatRangeSpec, LengthScale, focus_heat_range,
    heat_decimals, heat_value_with_length,
};
use crate::anim::{JointAngles, JointOverrides, Pose};
use crate::render::{DebugView, RgbaImage, draw_outline};
use crate::rig_report::{
    Pictures, RegionPicture, ReportOptions, RigReport, WorstRegion, pictured_regions,
};
use crate::scene::Scene;
use crate::skin::ddm::SceneDdm;
use crate::skin::{SceneBetas, SceneCenters, SkinningMode};

/// The precomputes the report's panes draw with: CoR's centers, DDM's matrices, DM's deltas.
#[derive(Clone, Copy, Debug)]
pub struct ReportMethods<'a> {
    /// Centers of rotation (the CoR pane, and the distance row).
    pub centers: &'a SceneCenters,
    /// Direct Delta Mush's matrices (the DDM pane).
    pub ddm: &'a SceneDdm,
    /// Delta Mush's rest deltas (the DM pane).
    pub dm: &'a crate::skin::dm::SceneDm,
}
use crate::ui::RegionView;

/// Degrees each side of the flip the sweep picture shows.
const SWEEP_MARGIN_DEG: f32 = 20.0;

/// Paints the report's pictures of the model at `model` (the path as given, for the captions'
/// commands); a GPU failure leaves them out with a note instead.
pub fn paint(
    (scene, model): (&Scene, &str),
    methods: ReportMethods<'_>,
    report: &RigReport,
    options: &ReportOptions,
    size: (u32, u32),
    per_mode: usize,
) -> Pictures {
    match try_paint((scene, model), methods, report, options, size, per_mode) {
        Ok(p) => p,
        Err(e) => Pictures {
            note: Some(format!("GPU renders left out: {e:#}")),
            ..Pictures::default()
        },
    }
}

/// The hybrid panes' label: `map` where the file stores a `_DQS_BLEND` map on every skinned
/// primitive, `flags` where it stores none (the joint flags are used), `map + flags` between.
fn betas_label(scene: &Scene) -> &'static str {
    let skinned = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .filter(|p| p.influences.is_some());
    let (mut with, mut without) = (0, 0);
    for p in skinned {
        if p.dqs_blend.is_some() {
            with += 1;
        } else {
            without += 1;
        }
    }
    match (with, without) {
        (0, _) => "flags",
        (_, 0) => "map",
        _ => "map + flags",
    }
}

/// A painter of every mode's pane for `scene` at rest, with the report's betas, centers and
/// DDM matrices.
pub fn report_painter<'s>(
    scene: &'s Scene,
    methods: ReportMethods<'_>,
    overrides: &JointOverrides,
    size: (u32, u32),
) -> Result<Painter<'s>> {
    let rest = Pose::rest(scene);
    let look = RenderLook {
        betas: Some((
            SceneBetas::defaults(scene, None, overrides),
            betas_label(scene).into(),
        )),
        cor_centers: Some(methods.centers.clone()),
        ddm: Some(methods.ddm.clone()),
        dm: Some(methods.dm.clone()),
        ..RenderLook::default()
    };
    Painter::new(scene, &rest, &SkinningMode::ALL, look, [size.0, size.1])
}

/// The pictures, or the first GPU error.
fn try_paint(
    (scene, model): (&Scene, &str),
    methods: ReportMethods<'_>,
    report: &RigReport,
    options: &ReportOptions,
    size: (u32, u32),
    per_mode: usize,
) -> Result<Pictures> {
    let rest = Pose::rest(scene);
    let mut painter = report_painter(scene, methods, &options.overrides, size)?;
    let narrowest = painter.narrowest_aspect();
    let (camera, _) =
        CameraRequest::default_view().orbit(scene, std::slice::from_ref(&rest), narrowest)?;
    let mut pictures = Pictures {
        overview: Some(png_bytes(&painter.paint(&rest, &camera)?)?),
        ..Pictures::default()
    };
    for region in pictured_regions(&report.loss, &report.growth, per_mode) {
        // A region without vertices above the focus weight cannot be framed: it is left out.
        let Ok(images) = region_images(&mut painter, scene, methods, region, &options.overrides)
        else {
            continue;
        };
        let command = render_command(model, scene, region, &options.overrides, size);
        pictures
            .regions
            .push(images.to_picture(scene, region, command)?);
    }
    painter.set_betas(
        &SceneBetas::defaults(scene, None, &options.overrides),
        betas_label(scene),
    );
    pictures.sweep = sweep_picture(&mut painter, scene, report, options)?;
    Ok(pictures)
}

/// One region's picture as rendered: rows of panes and the masks they were outlined by.
#[derive(Clone, Debug)]
pub struct RegionImages {
    /// Every mode's shaded pane (or the CoR pane alone, where every mode loses alike),
    /// the region outlined.
    pub shaded: RgbaImage,
    /// Every mode's distance from CoR on one scale, outlined; `None` for a single pane.
    pub heat: Option<RgbaImage>,
    /// The region masks of the shaded row's panes: white where the picture shows the region.
    pub masks: RgbaImage,
    /// The view picked and what it sees of the region.
    pub view: RegionView,
    /// The heat row's range (a fraction of the rest diagonal); `None` for a single pane.
    pub heat_range: Option<HeatRange>,
    /// The one mode drawn, for a single pane.
    pub single_pane: Option<SkinningMode>,
}

/// Renders `region` at its worst moment with `painter` (one of [`report_painter`]): the view
/// picked, both rows, outlines; an error when the region cannot be framed.
pub fn region_images(
    painter: &mut Painter<'_>,
    scene: &Scene,
    methods: ReportMethods<'_>,
    region: &WorstRegion,
    overrides: &JointOverrides,
) -> Result<RegionImages> {
    let mut pose = Pose::rest(scene);
    pose.sample(scene, region.clip, region.time_s, overrides);
    let betas = SceneBetas::defaults(scene, region.clip, overrides);
    painter.set_betas(&betas, betas_label(scene));
    let request = CameraRequest {
        focus: Some(region.joint),
        ..CameraRequest::default_view()
    };
    let poses = std::slice::from_ref(&pose);
    let (framed, _) = request.orbit(scene, poses, painter.narrowest_aspect())?;
    let view = painter.pick_view(&pose, region.joint, framed, &request)?;
    // Five panes alike say nothing more than one: the pose's loss is drawn once, in CoR.
    let single_pane = region.is_the_pose().then_some(SkinningMode::Cor);
    let heat_range = single_pane.is_none().then(|| {
        let heat = HeatBetas {
            betas: Some(&betas),
            scale: 1.0,
            centers: Some(methods.centers),
            ddm: Some(methods.ddm),
            dm: Some(methods.dm),
        };
        let modes = SkinningMode::ALL;
        let what = (HeatQuantity::CorDistance, &modes[..]);
        let spec = HeatRangeSpec::default();
        focus_heat_range(
            scene,
            &pose,
            what,
            heat,
            diagonal_of(scene),
            spec,
            region.joint,
        )
    });
    painter.set_heat_range(heat_range);
    let rows: &[DebugView] = match single_pane {
        Some(_) => &[DebugView::Shaded, DebugView::Region],
        None => &[DebugView::Shaded, DebugView::CorDistance, DebugView::Region],
    };
    let mut images = painter.paint_rows(&pose, &view.camera, rows)?;
    let mut masks = images.pop().unwrap_or_default();
    if let Some(mode) = single_pane {
        images = images.iter().map(|i| pane_of(i, mode)).collect();
        masks = pane_of(&masks, mode);
    }
    let width = super::painter::outline_width(masks.height);
    for image in &mut images {
        draw_outline(image, &masks, width);
    }
    let mut images = images.into_iter();
    Ok(RegionImages {
        shaded: images.next().unwrap_or_default(),
        heat: images.next(),
        masks,
        view,
        heat_range,
        single_pane,
    })
}

impl RegionImages {
    /// The page's picture: the rows stacked, as PNG, with the caption's parts.
    fn to_picture(
        &self,
        scene: &Scene,
        region: &WorstRegion,
        command: String,
    ) -> Result<RegionPicture> {
        let rows: Vec<RgbaImage> = std::iter::once(self.shaded.clone())
            .chain(self.heat.clone())
            .collect();
        Ok(RegionPicture {
            region: region.clone(),
            png: png_bytes(&stack(&rows))?,
            single_pane: self.single_pane,
            seen: region_seen_text(&self.view),
            cut_away: self.view.cut_away,
            command,
            heat_top: self.heat_range.map(|r| {
                let quantity = HeatQuantity::CorDistance;
                let length = LengthScale {
                    diagonal: diagonal_of(scene),
                    unit_meters: scene.source_info.unit_meters,
                };
                let decimals = heat_decimals(quantity, r);
                heat_value_with_length(quantity, r.hi, decimals, r, Some(length))
            }),
        })
    }
}

/// The `dqview render` command that draws `region`'s shaded row again (`--view cor-distance`
/// the other row): the clip, time, panes, focus, size and joint angles of the report.
#[must_use]
pub fn render_command(
    model: &str,
    scene: &Scene,
    region: &WorstRegion,
    overrides: &JointOverrides,
    size: (u32, u32),
) -> String {
    let mut words = vec!["dqview".to_string(), "render".into(), shell_word(model)];
    if let Some(clip) = region.clip {
        let name = scene.animations.get(clip).map_or("", |a| a.name.as_str());
        let clip_word = if name.is_empty() {
            clip.to_string()
        } else {
            shell_word(name)
        };
        words.extend(["--clip".into(), clip_word]);
        // Shortest text that reads back as the same f32: the same pose.
        words.extend(["--time".into(), region.time_s.to_string()]);
    }
    let (mode, width) = if region.is_the_pose() {
        ("cor".to_string(), size.0 / SkinningMode::ALL.len() as u32)
    } else {
        let names: Vec<&str> = SkinningMode::ALL.iter().map(|m| m.name()).collect();
        (names.join(","), size.0)
    };
    words.extend(["--mode".into(), mode]);
    words.extend([
        "--focus".into(),
        shell_word(&region.name),
        "--outline".into(),
    ]);
    words.extend(["--size".into(), format!("{}x{}", width.max(1), size.1)]);
    for (&node, angles) in &overrides.angles {
        let name = scene.nodes.get(node).map_or("", |n| n.name.as_str());
        let JointAngles {
            twist_deg,
            bend_deg,
            roll_deg,
        } = *angles;
        for (flag, deg) in [
            ("--twist", twist_deg),
            ("--bend", bend_deg),
            ("--roll", roll_deg),
        ] {
            if deg != 0.0 {
                words.extend([flag.into(), shell_word(&format!("{name}={deg}"))]);
            }
        }
    }
    words.extend(["--out".into(), shell_word(&format!("{}.png", region.name))]);
    words.join(" ")
}

/// `word` as one shell word: as it is when it holds only safe characters, else single-quoted.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "._-/:=,+@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The pane of `mode` cut out of an image of every mode's pane side by side ([`SkinningMode::ALL`]
/// order, as `View::panes` lays them out: equal widths, the last taking the remainder).
fn pane_of(image: &RgbaImage, mode: SkinningMode) -> RgbaImage {
    let modes = SkinningMode::ALL;
    let n = modes.len() as u32;
    let i = modes.iter().position(|&m| m == mode).unwrap_or(0) as u32;
    let pane = (image.width / n).max(1);
    let x0 = (pane * i).min(image.width);
    let x1 = if i + 1 == n {
        image.width
    } else {
        (x0 + pane).min(image.width)
    };
    let mut pixels = Vec::with_capacity(((x1 - x0) * image.height * 4) as usize);
    for row in image.pixels.chunks_exact(image.width.max(1) as usize * 4) {
        pixels.extend_from_slice(&row[x0 as usize * 4..x1 as usize * 4]);
    }
    RgbaImage {
        width: x1 - x0,
        height: image.height,
        pixels,
    }
}

/// `poses` seen from the view of `joint`'s region that shows the most of it on the first pose,
/// framing the region over all of them; the images.
fn focused(
    painter: &mut Painter<'_>,
    scene: &Scene,
    poses: &[Pose],
    joint: usize,
) -> Result<Vec<RgbaImage>> {
    let request = CameraRequest {
        focus: Some(joint),
        ..CameraRequest::default_view()
    };
    let (framed, _) = request.orbit(scene, poses, painter.narrowest_aspect())?;
    let first = poses.first().ok_or_else(|| anyhow::anyhow!("no pose"))?;
    let view = painter.pick_view(first, joint, framed, &request)?;
    let images = poses
        .iter()
        .map(|p| painter.paint(p, &view.camera))
        .collect();
    painter.set_region(None, 0.0);
    images
}

/// The first flip joint whose region can be framed, twisted just before and just past its
/// nearest flip, one image above the other (a joint that weights no vertex itself, such as a
/// helper rig's frame node, is framed on its first child that does, else passed over).
fn sweep_picture(
    painter: &mut Painter<'_>,
    scene: &Scene,
    report: &RigReport,
    options: &ReportOptions,
) -> Result<Option<(Vec<u8>, String)>> {
    for flip in report.flips.iter().filter(|f| f.nearest_deg().is_finite()) {
        let at = match (flip.above_deg, flip.below_deg) {
            (Some(a), Some(b)) if b.abs() < a => b,
            (Some(a), _) => a,
            (None, Some(b)) => b,
            (None, None) => continue,
        };
        let step = SWEEP_MARGIN_DEG * at.signum();
        let angles = [at - step, at + step];
        let poses: Vec<Pose> = angles
            .iter()
            .map(|&deg| {
                let mut overrides = options.overrides.clone();
                let a = overrides.get(flip.joint);
                overrides.set(
                    flip.joint,
                    JointAngles {
                        twist_deg: deg,
                        ..a
                    },
                );
                let mut pose = Pose::rest(scene);
                pose.sample(scene, None, 0.0, &overrides);
                pose
            })
            .collect();
        // A helper rig's frame node weights nothing itself; the joints hung under it do.
        let children = scene
            .nodes
            .get(flip.joint)
            .map_or(&[][..], |n| &n.children[..]);
        let Some(images) = std::iter::once(&flip.joint)
            .chain(children)
            .find_map(|&j| focused(painter, scene, &poses, j).ok())
        else {
            continue;
        };
        let caption = format!(
            "Twist of {} on the rest pose at {:.0} degrees (top) and {:.0} degrees (bottom), either side of the DQS flip at {at:.1} degrees; panes {}.",
            flip.name,
            angles[0],
            angles[1],
            crate::rig_report::pane_labels()
        );
        return Ok(Some((png_bytes(&stack(&images))?, caption)));
    }
    Ok(None)
}

/// Images of one width stacked top to bottom.
fn stack(images: &[RgbaImage]) -> RgbaImage {
    let width = images.first().map_or(0, |i| i.width);
    let mut out = RgbaImage {
        width,
        height: 0,
        pixels: Vec::new(),
    };
    for image in images.iter().filter(|i| i.width == width) {
        out.height += image.height;
        out.pixels.extend_from_slice(&image.pixels);
    }
    out
}

/// An image as PNG file bytes.
fn png_bytes(image: &RgbaImage) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, image.width, image.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&image.pixels)?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hybrid_label_says_what_the_betas_come_from() {
        let mut scene = crate::builtin::builtin_scene("twist").expect("builtin");
        assert_eq!(betas_label(&scene), "flags", "no map: the joint flags");
        let skinned: Vec<(usize, usize)> = scene
            .meshes
            .iter()
            .enumerate()
            .flat_map(|(m, mesh)| {
                let prims = mesh.primitives.iter().enumerate();
                prims
                    .filter(|(_, p)| p.influences.is_some())
                    .map(move |(p, _)| (m, p))
            })
            .collect();
        let (m, p) = skinned[0];
        let count = scene.meshes[m].primitives[p].positions.len();
        scene.meshes[m].primitives[p].dqs_blend = Some(vec![0.5; count]);
        let expected = if skinned.len() == 1 {
            "map"
        } else {
            "map + flags"
        };
        assert_eq!(betas_label(&scene), expected);
    }

    #[test]
    fn the_command_quotes_what_a_shell_would_split() {
        assert_eq!(shell_word("Ring1.L"), "Ring1.L");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
        let scene = crate::builtin::builtin_scene("twist").expect("builtin");
        let tip = crate::scene::names::joint(&scene, "tip").expect("tip");
        let region = WorstRegion {
            mode: SkinningMode::Lbs,
            change: crate::rig_report::Change::Loss,
            joint: tip,
            name: "tip".into(),
            clip: None,
            clip_name: "rest".into(),
            time_s: 0.0,
            ratios: [0.7, 0.99, 0.9, 0.98, 0.97, 0.8],
        };
        let command = render_command(
            "builtin:twist",
            &scene,
            &region,
            &JointOverrides::twist(tip, 150.0),
            (1200, 360),
        );
        assert_eq!(
            command,
            "dqview render builtin:twist --mode lbs,dqs,hybrid,cor,ddm,dm --focus tip --outline --size 1200x360 --twist tip=150 --out tip.png"
        );
    }
}
