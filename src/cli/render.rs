//! `dqview render`: a headless picture of a posed model, single mode or LBS | DQS split.

use std::path::Path;

use anyhow::{Context, Result, bail};
use glam::Vec3;

use super::PoseArgs;
use super::RenderFlags;
use crate::anim::Pose;
use crate::render::{
    DebugView, GpuContext, RenderSettings, Renderer, RgbaImage, SceneGpu, View, ViewParams,
    draw_label,
};
use crate::scene::Scene;
use crate::skin::{SceneBetas, SceneCenters, SkinningMode, rest_bounds};

/// Direction the default camera looks from: in front (+Z, glTF's forward), a little right and above.
pub const CAMERA_DIRECTION: Vec3 = Vec3::new(0.35, 0.25, 1.0);

/// What to show besides the pose: debug view, selected joint, hybrid betas.
#[derive(Clone, Debug, Default)]
pub struct RenderLook {
    /// Debug view (shaded by default).
    pub view: DebugView,
    /// Joint node whose weights the weights view shows.
    pub joint: Option<usize>,
    /// Per-vertex hybrid betas from joint flags, instead of one beta for all.
    pub betas: Option<SceneBetas>,
    /// Centers of rotation for CoR panes (without them CoR draws as LBS).
    pub cor_centers: Option<SceneCenters>,
    /// DQS bulge compensation in [0, 1] for DQS panes (0 off).
    pub bulge: f32,
}

/// Renders `model` as `args` say (mode `split` draws LBS left, DQS right) and writes a PNG.
pub fn run(
    model: &str,
    out: &Path,
    args: &PoseArgs,
    size: &str,
    look: &RenderFlags,
    load: &super::LoadArgs,
) -> Result<()> {
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if ext != "png" {
        bail!("--out must end in .png, got {}", out.display());
    }
    let (width, height) = parse_size(size)?;
    let view = DebugView::from_name(&look.view).ok_or_else(|| {
        let names: Vec<&str> = DebugView::ALL.iter().map(|v| v.name()).collect();
        anyhow::anyhow!("unknown view `{}` (valid: {})", look.view, names.join(", "))
    })?;
    let panes = args.mode.as_deref().map(panes).transpose()?.flatten();
    let mut pose_args = args.clone();
    if panes.is_some() {
        pose_args.mode = Some("dqs".into());
    }
    let scene = super::load(model, load)?;
    let resolved = pose_args.resolve(&scene)?;
    let joint = match &look.joint {
        None => None,
        Some(name) => Some(
            crate::anim::find_node(&scene, name)
                .ok_or_else(|| anyhow::anyhow!("unknown joint `{name}`"))?,
        ),
    };
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, resolved.clip, resolved.time_s, &resolved.overrides);
    let modes: Vec<SkinningMode> = panes.unwrap_or_else(|| vec![resolved.mode]);
    let cor_centers = if modes.contains(&SkinningMode::Cor) {
        Some(args.cor.centers(&scene)?)
    } else {
        None
    };
    let betas = look
        .hybrid_auto
        .then(|| SceneBetas::defaults(&scene, resolved.clip, &resolved.overrides));
    let beta = if look.hybrid_auto { 1.0 } else { resolved.beta };
    let bulge = args.cor.bulge_amount()?;
    if bulge > 0.0 && !modes.contains(&SkinningMode::Dqs) {
        bail!("--bulge-compensation corrects DQS only; no pane of this render is DQS");
    }
    let image = render_image(
        &scene,
        &pose,
        &modes,
        beta,
        &RenderLook {
            view,
            joint,
            betas,
            cor_centers,
            bulge,
        },
        width,
        height,
    )?;
    image::save_buffer(
        out,
        &image.pixels,
        image.width,
        image.height,
        image::ExtendedColorType::Rgba8,
    )
    .with_context(|| format!("cannot write {}", out.display()))?;
    let names: Vec<&str> = modes.iter().map(|m| m.name()).collect();
    println!(
        "wrote {} ({width}x{height}, {}, view {}: {})",
        out.display(),
        names.join(" | "),
        view.name(),
        view.legend()
    );
    Ok(())
}

/// Renders `scene` at `pose` once per mode, side by side, each pane labelled with its mode.
///
/// The camera frames the rest-pose bounding box, so renders of different poses line up.
pub fn render_image(
    scene: &Scene,
    pose: &Pose,
    modes: &[SkinningMode],
    beta: f32,
    look: &RenderLook,
    width: u32,
    height: u32,
) -> Result<RgbaImage> {
    let ctx = GpuContext::headless()?;
    let renderer = Renderer::new(
        &ctx,
        RenderSettings {
            width,
            height,
            base_color: [1.0, 1.0, 1.0],
            ..RenderSettings::TESTING
        },
    )?;
    let (min, max) = rest_bounds(scene).unwrap_or((Vec3::splat(-1.0), Vec3::ONE));
    let mut gpu = SceneGpu::new(&ctx, &renderer, scene, pose)?;
    if let Some(betas) = &look.betas {
        gpu.set_betas(&ctx, &renderer, betas);
    }
    if let Some(centers) = &look.cor_centers {
        gpu.set_cor_centers(&ctx, &renderer, centers);
    }
    // The weights view takes a joint index within the skin; the first skin that has the joint.
    let selected_joint = look
        .joint
        .and_then(|node| {
            scene
                .skins
                .iter()
                .find_map(|s| s.joints.iter().position(|&j| j == node))
        })
        .unwrap_or(0) as u32;
    let params = ViewParams {
        beta,
        view: look.view,
        selected_joint,
        diagonal: (max - min).length(),
        bulge: look.bulge,
        displacement_red: crate::render::DEFAULT_DISPLACEMENT_RED,
    };
    let views = View::side_by_side(width, height, modes, params, [min, max], CAMERA_DIRECTION);
    let mut image = renderer.render_views(&ctx, &gpu, &views)?;
    let scale = (height / 160).clamp(1, 6);
    if modes.len() > 1 || look.view != DebugView::Shaded {
        for view in &views {
            let mut label = match view.mode {
                SkinningMode::Hybrid if look.betas.is_some() => "hybrid auto".to_string(),
                SkinningMode::Hybrid => format!("hybrid {beta:.2}"),
                m => m.name().to_string(),
            };
            if look.view != DebugView::Shaded {
                label = format!("{label} {}", look.view.name());
            }
            draw_label(
                &mut image,
                &label,
                view.x + 4 * scale,
                view.y + 4 * scale,
                scale,
            );
        }
    }
    Ok(image)
}

/// The panes of a split `--mode`: `split` (LBS | DQS), `split3` (LBS | DQS | CoR) or a
/// comma list of two or more modes (`dqs,cor`); `None` for a single mode.
pub fn panes(mode: &str) -> Result<Option<Vec<SkinningMode>>> {
    let lower = mode.to_ascii_lowercase();
    match lower.as_str() {
        "split" => return Ok(Some(vec![SkinningMode::Lbs, SkinningMode::Dqs])),
        "split3" => {
            return Ok(Some(vec![
                SkinningMode::Lbs,
                SkinningMode::Dqs,
                SkinningMode::Cor,
            ]));
        }
        _ if !lower.contains(',') => return Ok(None),
        _ => {}
    }
    let modes = lower
        .split(',')
        .map(|name| {
            SkinningMode::from_name(name.trim())
                .ok_or_else(|| anyhow::anyhow!("unknown mode `{}` in --mode {mode}", name.trim()))
        })
        .collect::<Result<Vec<_>>>()?;
    if !(2..=4).contains(&modes.len()) {
        bail!("--mode lists 2 to 4 panes, got {}", modes.len());
    }
    Ok(Some(modes))
}

/// Parses `WIDTHxHEIGHT`, each from 1 to 8192.
pub fn parse_size(size: &str) -> Result<(u32, u32)> {
    let parsed = size
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)));
    match parsed {
        Some((w, h)) if (1..=8192).contains(&w) && (1..=8192).contains(&h) => Ok((w, h)),
        _ => bail!("--size must be WIDTHxHEIGHT with each from 1 to 8192, got `{size}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panes_parse_and_refuse() {
        use SkinningMode::{Cor, Dqs, Lbs};
        assert_eq!(panes("dqs").ok(), Some(None));
        assert_eq!(panes("Split").ok(), Some(Some(vec![Lbs, Dqs])));
        assert_eq!(panes("split3").ok(), Some(Some(vec![Lbs, Dqs, Cor])));
        assert_eq!(panes("dqs, cor").ok(), Some(Some(vec![Dqs, Cor])));
        for bad in ["dqs,", "lbs,bogus", "lbs,dqs,cor,hybrid,lbs"] {
            assert!(panes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sizes_parse_and_refuse() {
        assert_eq!(parse_size("640x480").ok(), Some((640, 480)));
        assert_eq!(parse_size("1X2").ok(), Some((1, 2)));
        for bad in ["", "640", "0x10", "10x0", "99999x10", "axb", "-1x5"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
