//! `report`'s GPU pictures: the rest pose, each worst region at its worst moment, a twist
//! sweep across the flip; LBS | DQS | hybrid | CoR panes, framed as `render --focus` frames.

use anyhow::Result;

use super::render::{Painter, RenderLook};
use super::render_camera::CameraRequest;
use crate::anim::{JointAngles, Pose};
use crate::render::RgbaImage;
use crate::rig_report::{Pictures, RegionPicture, ReportOptions, RigReport, pictured_regions};
use crate::scene::Scene;
use crate::skin::{SceneBetas, SceneCenters, SkinningMode};

/// Degrees each side of the flip the sweep picture shows.
const SWEEP_MARGIN_DEG: f32 = 20.0;

/// Paints the report's pictures; a GPU failure leaves them out with a note instead.
pub fn paint(
    scene: &Scene,
    centers: &SceneCenters,
    report: &RigReport,
    options: &ReportOptions,
    size: (u32, u32),
    per_mode: usize,
) -> Pictures {
    match try_paint(scene, centers, report, options, size, per_mode) {
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

/// The pictures, or the first GPU error.
fn try_paint(
    scene: &Scene,
    centers: &SceneCenters,
    report: &RigReport,
    options: &ReportOptions,
    size: (u32, u32),
    per_mode: usize,
) -> Result<Pictures> {
    let rest = Pose::rest(scene);
    let look = RenderLook {
        betas: Some((
            SceneBetas::defaults(scene, None, &options.overrides),
            betas_label(scene).into(),
        )),
        cor_centers: Some(centers.clone()),
        ..RenderLook::default()
    };
    let mut painter = Painter::new(scene, &rest, &SkinningMode::ALL, look, [size.0, size.1])?;
    let narrowest = (size.0 / 4).max(1) as f32 / size.1.max(1) as f32;
    let (camera, _) =
        CameraRequest::default_view().orbit(scene, std::slice::from_ref(&rest), narrowest)?;
    let mut pictures = Pictures {
        overview: Some(png_bytes(&painter.paint(&rest, &camera)?)?),
        ..Pictures::default()
    };
    for region in pictured_regions(&report.loss, &report.growth, per_mode) {
        let mut pose = Pose::rest(scene);
        pose.sample(scene, region.clip, region.time_s, &options.overrides);
        painter.set_betas(
            &SceneBetas::defaults(scene, region.clip, &options.overrides),
            betas_label(scene),
        );
        // A region without vertices above the focus weight cannot be framed: it is left out.
        let Ok(images) = focused(&mut painter, scene, &[pose], region.joint, narrowest) else {
            continue;
        };
        if let Some(image) = images.first() {
            // Four panes alike say nothing more than one: the pose's loss is drawn once, in CoR.
            let single_pane = region.is_the_pose().then_some(SkinningMode::Cor);
            let image = match single_pane {
                Some(mode) => pane_of(image, mode),
                None => image.clone(),
            };
            pictures.regions.push(RegionPicture {
                region: region.clone(),
                png: png_bytes(&image)?,
                single_pane,
            });
        }
    }
    painter.set_betas(
        &SceneBetas::defaults(scene, None, &options.overrides),
        betas_label(scene),
    );
    pictures.sweep = sweep_picture(&mut painter, scene, report, options, narrowest)?;
    Ok(pictures)
}

/// The pane of `mode` cut out of an image of every mode's pane side by side ([`SkinningMode::ALL`]
/// order, as `View::panes` lays them out: equal widths, the last taking the remainder).
fn pane_of(image: &RgbaImage, mode: SkinningMode) -> RgbaImage {
    let n = SkinningMode::ALL.len() as u32;
    let i = SkinningMode::ALL
        .iter()
        .position(|&m| m == mode)
        .unwrap_or(0) as u32;
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

/// `poses` rendered with the camera framing `joint`'s region over all of them; the first pose's image.
fn focused(
    painter: &mut Painter<'_>,
    scene: &Scene,
    poses: &[Pose],
    joint: usize,
    narrowest: f32,
) -> Result<Vec<RgbaImage>> {
    let request = CameraRequest {
        focus: Some(joint),
        ..CameraRequest::default_view()
    };
    let (camera, _) = request.orbit(scene, poses, narrowest)?;
    poses.iter().map(|p| painter.paint(p, &camera)).collect()
}

/// The first flip joint whose region can be framed, twisted just before and just past its
/// nearest flip, one image above the other (a joint that weights no vertex itself, such as a
/// twist rig's aim node, cannot be framed and is passed over).
fn sweep_picture(
    painter: &mut Painter<'_>,
    scene: &Scene,
    report: &RigReport,
    options: &ReportOptions,
    narrowest: f32,
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
        let Ok(images) = focused(painter, scene, &poses, flip.joint, narrowest) else {
            continue;
        };
        let caption = format!(
            "Twist of {} on the rest pose at {:.0} degrees (top) and {:.0} degrees (bottom), either side of the DQS flip at {at:.1} degrees; panes LBS | DQS | hybrid | CoR.",
            flip.name, angles[0], angles[1]
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
}
