//! `dqview render`: a headless picture of a posed model, single mode or panes side by side,
//! or an animation of them (APNG or GIF).

use std::path::Path;

use anyhow::{Context, Result, bail};
use glam::Vec3;

use super::RenderArgs;
pub use super::painter::{Painter, RenderLook, render_image};
use super::render_anim::{FramePlan, FrameWriter, OutputFormat, plan, progress};
use super::render_camera::CameraRequest;
use crate::analysis::{
    FocusRegion, HeatBetas, HeatQuantity, HeatRange, HeatRangeSpec, focus_heat_range,
    pose_heat_range,
};
use crate::anim::Pose;
use crate::render::DebugView;
use crate::scene::Scene;
use crate::skin::{SceneBetas, SkinningMode, rest_bounds};
use crate::ui::{OrbitCamera, RegionView};

/// Direction the default camera looks from: in front (+Z, glTF's forward), a little right and above.
pub const CAMERA_DIRECTION: Vec3 = Vec3::new(0.35, 0.25, 1.0);

/// Renders `args.model` as the flags say and writes a PNG, GIF or animation.
pub fn run(args: &RenderArgs) -> Result<()> {
    let format = OutputFormat::of(&args.out)?;
    let size = parse_size(&args.size)?;
    let view = DebugView::from_name(&args.look.view).ok_or_else(|| {
        let names: Vec<&str> = DebugView::ALL.iter().map(|v| v.name()).collect();
        anyhow::anyhow!(
            "unknown view `{}` (valid: {})",
            args.look.view,
            names.join(", ")
        )
    })?;
    let range_spec = range_spec(args.look.range.as_deref(), view)?;
    let scene = super::load(&super::model_or_default(args.model.clone()), &args.load)?;
    let mut job = Job::new(&scene, args, view, range_spec, size)?;
    let first = job.poses.first().context("no frame to render")?;
    let mut painter = Painter::new(
        &scene,
        first,
        &job.modes,
        job.look.clone(),
        [size.0, size.1],
    )?;
    job.pick_view(&mut painter)?;
    if let Err(e) = job.write(&mut painter, &args.out, format) {
        // No half-written file is left behind.
        let _ = std::fs::remove_file(&args.out);
        return Err(e.context(format!("cannot write {}", args.out.display())));
    }
    if let Some(path) = &args.camera.camera_out {
        let json = super::render_camera::camera_json(&job.orbit, job.size);
        let text = serde_json::to_string_pretty(&json)? + "\n";
        std::fs::write(path, text)
            .with_context(|| format!("cannot write --camera-out {}", path.display()))?;
    }
    println!(
        "wrote {} ({})",
        args.out.display(),
        job.describe(format, range_spec)
    );
    // Colour at rest in a heat view is the file's, not the pose's: said beside the picture.
    if view.heat_quantity().is_some()
        && let Some(text) = crate::analysis::rest_bind(&scene).text()
    {
        eprintln!(
            "dqview: {text}: the {} view shows colour there at rest",
            view.name()
        );
    }
    Ok(())
}

/// A render's checked inputs: panes, look, frames and their poses, one camera.
struct Job {
    /// One pane per mode.
    modes: Vec<SkinningMode>,
    /// View, betas, centres, bulge fix, heat range.
    look: RenderLook,
    /// The frames (one for a still) and their rate.
    frames: FramePlan,
    /// The pose of each frame.
    poses: Vec<Pose>,
    /// The camera of frame 0 (turntables add to its yaw).
    orbit: OrbitCamera,
    /// Each frame's camera target when the camera follows `--focus` (empty: one target).
    targets: Vec<Vec3>,
    /// The focus joint's name and region over all frames (`--focus`).
    focus: Option<(String, FocusRegion)>,
    /// The camera flags, checked.
    request: CameraRequest,
    /// With `--focus`, the view picked of the joint's region and what it sees of it.
    region_view: Option<RegionView>,
    /// Whether the focus joint's region is outlined (`--outline`).
    outline: bool,
    /// Image width and height.
    size: (u32, u32),
}

impl Job {
    /// Checks every flag against `scene` and poses the frames; errors come before any GPU work.
    fn new(
        scene: &Scene,
        args: &RenderArgs,
        view: DebugView,
        range_spec: HeatRangeSpec,
        size: (u32, u32),
    ) -> Result<Self> {
        let panes = args.pose.mode.as_deref().map(panes).transpose()?.flatten();
        let mut pose_args = args.pose.clone();
        if panes.is_some() {
            pose_args.mode = Some("dqs".into());
        }
        let resolved = pose_args.resolve(scene)?;
        let camera = CameraRequest::parse(&args.camera, scene)?;
        if args.look.outline && camera.focus.is_none() {
            bail!("--outline draws the --focus joint's region; give --focus JOINT");
        }
        let frames = plan(scene, &args.motion, &resolved, args.pose.time.is_some())?;
        let joint = match &args.look.joint {
            Some(_) if view != DebugView::Weights => bail!(
                "--joint picks the joint whose weights --view weights shows; the view is {}",
                view.name()
            ),
            None => None,
            Some(name) => Some(
                crate::scene::names::joint(scene, name)
                    .map_err(|e| anyhow::anyhow!("--joint: {e}"))?,
            ),
        };
        let modes: Vec<SkinningMode> = panes.unwrap_or_else(|| vec![resolved.mode]);
        // The CoR distance view measures from the CoR positions, whatever the panes.
        let cor_centers = if modes.contains(&SkinningMode::Cor) || view == DebugView::CorDistance {
            Some(args.pose.cor.centers(scene)?)
        } else {
            super::flag_rules::refuse_cor_precompute(
                &args.pose.cor,
                "no pane of this render is CoR (add --mode cor or split3) and the view is not cor-distance",
            )?;
            None
        };
        let ddm = if modes.contains(&SkinningMode::Ddm) {
            Some(args.pose.ddm.compute(scene)?)
        } else {
            args.pose
                .ddm
                .refuse_unused("no pane of this render is DDM (add --mode ddm)")?;
            None
        };
        let dm = if modes.contains(&SkinningMode::Dm) {
            Some(args.pose.dm.compute(scene)?)
        } else {
            args.pose
                .dm
                .refuse_unused("no pane of this render is DM (add --mode dm)")?;
            None
        };
        let betas = hybrid_look(scene, args, &resolved, &modes)?;
        let bulge = args.pose.cor.bulge_amount()?;
        if bulge > 0.0 && !modes.contains(&SkinningMode::Dqs) {
            bail!("--bulge-compensation corrects DQS only; no pane of this render is DQS");
        }
        let poses: Vec<Pose> = frames.frames.iter().map(|f| f.pose(scene)).collect();
        let narrowest = (size.0 / modes.len().max(1) as u32).max(1) as f32 / size.1 as f32;
        // An animation follows the focused joint; a still frames its region.
        let following = if frames.animated {
            camera.follow(scene, &poses, narrowest)?
        } else {
            None
        };
        let (orbit, region, targets) = match following {
            Some(f) => (f.camera, Some(f.region), f.targets),
            None => {
                let (orbit, region) = camera.orbit(scene, &poses, narrowest)?;
                (orbit, region, Vec::new())
            }
        };
        if args.camera.camera_out.is_some() {
            if modes.len() > 1 {
                bail!(
                    "--camera-out writes one pane's camera; this render has {} panes (give one --mode)",
                    modes.len()
                );
            }
            if args.motion.turntable || !targets.is_empty() {
                bail!(
                    "--camera-out writes one camera; this animation's camera moves (--turntable, or --focus following the joint)"
                );
            }
        }
        let focus = camera.focus.zip(region).map(|(node, r)| {
            let name = scene.nodes.get(node).map_or("", |n| n.name.as_str());
            (name.to_string(), r)
        });
        let mut job = Self {
            modes,
            look: RenderLook {
                view,
                joint,
                betas,
                cor_centers,
                ddm,
                dm,
                bulge,
                heat_range: None,
            },
            frames,
            poses,
            orbit,
            targets,
            focus,
            request: camera,
            region_view: None,
            outline: args.look.outline,
            size,
        };
        job.look.heat_range = job.heat_range(scene, range_spec);
        Ok(job)
    }

    /// With `--focus`, picks the view of the joint's region on the first frame (the direction
    /// that sees the most of it, unless `--yaw` or `--pitch` fix it; [`Painter::pick_view`]);
    /// later frames keep that direction.
    fn pick_view(&mut self, painter: &mut Painter<'_>) -> Result<()> {
        let (Some(joint), Some(pose)) = (self.request.focus, self.poses.first()) else {
            return Ok(());
        };
        let view = painter.pick_view(pose, joint, self.orbit, &self.request)?;
        painter.set_outline(self.outline);
        self.orbit = view.camera;
        self.region_view = Some(view);
        Ok(())
    }

    /// One heat range for every pane and frame (the union of each frame's), so colours
    /// compare, over the focus region's vertices with `--focus`; `None` for views without one.
    fn heat_range(&self, scene: &Scene, spec: HeatRangeSpec) -> Option<HeatRange> {
        let quantity = self.look.view.heat_quantity()?;
        let betas = HeatBetas {
            betas: self.look.betas.as_ref().map(|(b, _)| b),
            scale: 1.0,
            centers: self.look.cor_centers.as_ref(),
            ddm: self.look.ddm.as_ref(),
            dm: None,
        };
        let diagonal = diagonal_of(scene);
        let of = |pose: &Pose| match self.request.focus {
            Some(joint) => {
                let what = (quantity, self.modes.as_slice());
                focus_heat_range(scene, pose, what, betas, diagonal, spec, joint)
            }
            None => pose_heat_range(scene, pose, quantity, &self.modes, betas, diagonal, spec),
        };
        let range = self.poses.iter().map(of).reduce(HeatRange::union);
        Some(range.unwrap_or_else(|| quantity.default_range()))
    }

    /// Renders every frame with `painter` into `out`, with progress on a terminal.
    fn write(&self, painter: &mut Painter<'_>, out: &Path, format: OutputFormat) -> Result<()> {
        let (width, height) = self.size;
        let fps = self.frames.fps;
        let mut writer = FrameWriter::create(out, format, [width, height], self.poses.len(), fps)?;
        for (i, (frame, pose)) in self.frames.frames.iter().zip(&self.poses).enumerate() {
            let mut camera = self.orbit;
            camera.yaw += frame.yaw_offset_deg.to_radians();
            if let Some(&target) = self.targets.get(i) {
                camera.target = target;
            }
            writer.push(painter.paint(pose, &camera)?, fps)?;
            progress(i + 1, self.poses.len());
        }
        writer.finish()
    }

    /// The "wrote" line's details: size, panes, view and range, camera, frames.
    fn describe(&self, format: OutputFormat, spec: HeatRangeSpec) -> String {
        let names: Vec<&str> = self.modes.iter().map(|m| m.name()).collect();
        let motion = if self.frames.animated {
            let kind = match format {
                OutputFormat::Png => "APNG",
                OutputFormat::Gif => "GIF",
            };
            let timing = match format {
                OutputFormat::Png => String::new(),
                OutputFormat::Gif => format!(
                    " ({})",
                    super::render_anim::gif_timing_text(self.poses.len(), self.frames.fps)
                ),
            };
            format!(
                "; {} frames at {:.2} fps, {kind}{timing}",
                self.poses.len(),
                self.frames.fps
            )
        } else {
            String::new()
        };
        let seen = self
            .region_view
            .map_or_else(String::new, |v| region_seen_text(&v));
        let focus = match &self.focus {
            Some((name, r)) if self.targets.is_empty() => {
                format!(", focus {name}: {} vertices, {seen}", r.vertices)
            }
            Some((name, _)) => format!(", following {name} over the frames, {seen}"),
            None => String::new(),
        };
        format!(
            "{}x{}, {}, view {}: {}; camera {}{focus}{motion}",
            self.size.0,
            self.size.1,
            names.join(" | "),
            self.look.view.name(),
            view_text(self.look.view, self.look.heat_range, spec),
            camera_text(&self.orbit),
        )
    }
}

/// The hybrid panes' betas by the one rule ([`crate::skin::hybrid_betas`]): the file's map
/// as stored, joint flags where it has none or everywhere with `--hybrid-auto`, `--beta` over
/// both (said on stderr); `None` without a hybrid pane, where `--beta` and `--hybrid-auto` are refused.
fn hybrid_look(
    scene: &Scene,
    args: &RenderArgs,
    resolved: &crate::pose_request::ResolvedPose,
    modes: &[SkinningMode],
) -> Result<Option<(SceneBetas, String)>> {
    let auto = args.look.hybrid_auto;
    if !modes.contains(&SkinningMode::Hybrid) {
        if let Some(b) = resolved.beta {
            bail!("--beta {b} sets the hybrid's betas; no pane of this render is hybrid");
        }
        if auto {
            bail!("--hybrid-auto sets the hybrid's betas; no pane of this render is hybrid");
        }
        return Ok(None);
    }
    if let (true, Some(b)) = (auto, resolved.beta) {
        bail!(
            "--hybrid-auto (joint flags) and --beta {b} (one beta for all) both choose the hybrid's betas; give one"
        );
    }
    let hybrid = resolved.hybrid_betas(scene, auto);
    if let Some(notice) = &hybrid.notice {
        eprintln!("dqview: {notice}");
    }
    let label = match resolved.beta {
        Some(b) => format!("{b:.2}"),
        None if hybrid.source.contains("_DQS_BLEND") => "map".to_string(),
        None => "flags".to_string(),
    };
    Ok(Some((hybrid.betas, label)))
}

/// The `--range` of `view`: auto when not given; an error for views without a heat range.
fn range_spec(text: Option<&str>, view: DebugView) -> Result<HeatRangeSpec> {
    match (text, view.heat_quantity()) {
        (None, _) => Ok(HeatRangeSpec::default()),
        (Some(t), Some(_)) => Ok(HeatRangeSpec::parse(t)?),
        (Some(t), None) => bail!(
            "--range {t}: only the displacement, collapse and cor-distance views have a range (this is --view {})",
            view.name()
        ),
    }
}

/// What a picked view sees of its region, for the "wrote" line and captions: `region 84%
/// seen (best of 27 views)`; `; near plane at the region` where what is nearer hid it; with the
/// cut-away `region 12% seen (best of 27 views), 95% with what is in front of it cut away`.
#[must_use]
pub fn region_seen_text(view: &RegionView) -> String {
    let pct = |c: crate::render::RegionCoverage| (c.fraction() * 100.0).round();
    let mut of = match view.tried {
        1 => "from the angles given".to_string(),
        n => format!("best of {n} views"),
    };
    if view.camera.focus_radius.is_some() && !view.cut_away {
        of.push_str("; near plane at the region");
    }
    if view.cut_away {
        format!(
            "region {}% seen ({of}), {}% with what is in front of it cut away",
            pct(view.uncut),
            pct(view.coverage)
        )
    } else {
        format!("region {}% seen ({of})", pct(view.coverage))
    }
}

/// The rest bounding-box diagonal the displacement view divides by.
pub(super) fn diagonal_of(scene: &Scene) -> f32 {
    let (min, max) = rest_bounds(scene).unwrap_or((Vec3::splat(-1.0), Vec3::ONE));
    (max - min).length()
}

/// The view's colours for the "wrote" line: the range in its units for heat views.
fn view_text(view: DebugView, range: Option<HeatRange>, spec: HeatRangeSpec) -> String {
    let how = match spec {
        HeatRangeSpec::Percentile(p) if p >= 100.0 => "auto, the largest value".to_string(),
        HeatRangeSpec::Percentile(p) => format!("p{p}"),
        HeatRangeSpec::Fixed(_) => "fixed".to_string(),
    };
    match (view.heat_quantity(), range) {
        (Some(HeatQuantity::Displacement), Some(r)) => format!(
            "LBS-DQS distance / bbox diagonal, {:.3}% blue .. {:.3}% red ({how})",
            r.lo * 100.0,
            r.hi * 100.0
        ),
        (Some(HeatQuantity::Collapse), Some(r)) => format!(
            "local volume ratio, {:.3} blue .. {:.3} red ({how})",
            r.lo, r.hi
        ),
        (Some(HeatQuantity::CorDistance), Some(r)) => format!(
            "distance from CoR / bbox diagonal, {:.3}% blue .. {:.3}% red ({how})",
            r.lo * 100.0,
            r.hi * 100.0
        ),
        _ => view.legend().to_string(),
    }
}

/// The orbit camera as flags would give it again.
fn camera_text(camera: &OrbitCamera) -> String {
    let t = camera.target;
    format!(
        "yaw {:.1} pitch {:.1} distance {:.3} target ({:.3}, {:.3}, {:.3})",
        camera.yaw.to_degrees(),
        camera.pitch.to_degrees(),
        camera.distance,
        t.x,
        t.y,
        t.z
    )
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
    let most = SkinningMode::ALL.len();
    if !(2..=most).contains(&modes.len()) {
        bail!("--mode lists 2 to {most} panes, got {}", modes.len());
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
        assert_eq!(
            panes("lbs,dqs,ddm,cor").ok(),
            Some(Some(vec![Lbs, Dqs, SkinningMode::Ddm, Cor]))
        );
        assert_eq!(
            panes("lbs,dqs,hybrid,cor,ddm,dm")
                .ok()
                .flatten()
                .map(|m| m.len()),
            Some(6)
        );
        for bad in ["dqs,", "lbs,bogus", "lbs,dqs,cor,hybrid,ddm,dm,lbs"] {
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
