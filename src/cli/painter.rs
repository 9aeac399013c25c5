//! The headless painter of `render` and `report`: the GPU objects made once, a pose and a
//! camera per picture, each pane labelled, heat views with a colour bar, the view of a joint's
//! region picked by one rule ([`crate::ui::pick_region_view`]).

use anyhow::Result;

use super::render::diagonal_of;
use super::render_camera::{CameraRequest, pane_camera};
use crate::analysis::HeatRange;
use crate::anim::Pose;
use crate::render::{
    DebugView, GpuContext, ProbeCamera, RenderSettings, Renderer, RgbaImage, SceneGpu, View,
    ViewParams, draw_heat_legend, draw_label, draw_outline,
};
use crate::scene::Scene;
use crate::skin::{SceneBetas, SceneCenters, SkinningMode};
use crate::ui::{OrbitCamera, RegionView, pick_region_view};

/// What to show besides the pose: debug view, selected joint, hybrid betas, heat range.
#[derive(Clone, Debug, Default)]
pub struct RenderLook {
    /// Debug view (shaded by default).
    pub view: DebugView,
    /// Joint node whose weights the weights view shows.
    pub joint: Option<usize>,
    /// The hybrid panes' per-vertex betas ([`crate::skin::hybrid_betas`]) and their label
    /// (`map`, `flags`, `0.30`); `None`: no hybrid pane.
    pub betas: Option<(SceneBetas, String)>,
    /// Centers of rotation for CoR panes (without them CoR draws as LBS).
    pub cor_centers: Option<SceneCenters>,
    /// Direct Delta Mush's matrices for DDM panes (without them DDM draws as LBS).
    pub ddm: Option<crate::skin::ddm::SceneDdm>,
    /// Delta Mush's rest deltas for DM panes (without them DM draws as LBS).
    pub dm: Option<crate::skin::dm::SceneDm>,
    /// DQS bulge compensation in [0, 1] for DQS panes (0 off).
    pub bulge: f32,
    /// Range of the heat views (displacement, collapse, CoR distance); `None`: the view's default.
    pub heat_range: Option<HeatRange>,
}

/// The first skin's index of joint node `node` (the index the shaders compare), if any skin has it.
#[must_use]
pub fn skin_joint_index(scene: &Scene, node: usize) -> Option<u32> {
    scene.skins.iter().find_map(|s| {
        let i = s.joints.iter().position(|&j| j == node)?;
        u32::try_from(i).ok()
    })
}

/// The outline's width in pixels for panes `height` pixels tall: 2 at `report`'s 360.
#[must_use]
pub fn outline_width(height: u32) -> u32 {
    (height / 180).clamp(1, 4)
}

/// Renders frames of one scene: the GPU objects made once, a pose and camera per frame,
/// each pane labelled, heat views with a colour bar.
pub struct Painter<'s> {
    /// The scene drawn.
    scene: &'s Scene,
    /// Device and queue.
    ctx: GpuContext,
    /// Pipelines at the image size.
    renderer: Renderer,
    /// The scene's GPU data, posed each frame.
    gpu: SceneGpu,
    /// One pane per mode.
    modes: Vec<SkinningMode>,
    /// Debug view, hybrid betas, heat range.
    look: RenderLook,
    /// The per-pane view parameters.
    params: ViewParams,
    /// Image size in pixels.
    size: [u32; 2],
    /// Whether [`Self::paint`] outlines the region of [`Self::set_region`].
    outline: bool,
}

impl<'s> Painter<'s> {
    /// Sets up the GPU for `scene` (uploaded at `pose`) with one pane per mode.
    pub fn new(
        scene: &'s Scene,
        pose: &Pose,
        modes: &[SkinningMode],
        look: RenderLook,
        [width, height]: [u32; 2],
    ) -> Result<Self> {
        let ctx = GpuContext::headless()?;
        let renderer = Renderer::new(
            &ctx,
            RenderSettings {
                width,
                height,
                // The mask is white on black, nothing else: a silhouette to compare.
                background: if look.view == DebugView::Mask {
                    [0.0, 0.0, 0.0, 1.0]
                } else {
                    RenderSettings::default().background
                },
                ..RenderSettings::default()
            },
        )?;
        let mut gpu = SceneGpu::new(&ctx, &renderer, scene, pose)?;
        if let Some((betas, _)) = &look.betas {
            gpu.set_betas(&ctx, &renderer, betas);
        }
        if let Some(centers) = &look.cor_centers {
            gpu.set_cor_centers(&ctx, &renderer, centers);
        }
        if let Some(ddm) = &look.ddm {
            gpu.set_ddm(&ctx, &renderer, ddm)?;
        }
        if let Some(dm) = &look.dm {
            gpu.set_dm(&ctx, &renderer, dm)?;
        }
        // The weights view takes a joint index within the skin; the first skin that has the joint.
        let selected_joint = look
            .joint
            .and_then(|node| skin_joint_index(scene, node))
            .unwrap_or(0);
        // The betas are spelled per vertex ([`crate::skin::hybrid_betas`]): nothing scales them.
        let params = ViewParams {
            beta: 1.0,
            view: look.view,
            selected_joint,
            diagonal: diagonal_of(scene),
            bulge: look.bulge,
            heat_range: look.heat_range,
            cut_depth: 0.0,
        };
        Ok(Self {
            scene,
            ctx,
            renderer,
            gpu,
            modes: modes.to_vec(),
            look,
            params,
            size: [width, height],
            outline: false,
        })
    }

    /// Whether [`Self::paint`] outlines the region [`Self::pick_view`] or [`Self::set_region`]
    /// set, in every pane ([`draw_outline`] of its [`DebugView::Region`] mask).
    pub fn set_outline(&mut self, on: bool) {
        self.outline = on;
    }

    /// Replaces the hybrid panes' per-vertex betas (e.g. the joint flags of another clip), labelled `label`.
    pub fn set_betas(&mut self, betas: &SceneBetas, label: &str) {
        self.gpu.set_betas(&self.ctx, &self.renderer, betas);
        self.look.betas = Some((betas.clone(), label.to_string()));
    }

    /// Sets the heat views' range (`None`: the view's default).
    pub fn set_heat_range(&mut self, range: Option<HeatRange>) {
        self.look.heat_range = range;
        self.params.heat_range = range;
    }

    /// The aspect (width / height) of the narrowest pane.
    #[must_use]
    pub fn narrowest_aspect(&self) -> f32 {
        let n = self.modes.len().max(1) as u32;
        (self.size[0] / n).max(1) as f32 / self.size[1].max(1) as f32
    }

    /// Picks the view of joint node `joint`'s region at `pose` among `request`'s angles for
    /// `framed` (the camera framing the region), counting the region's pixels in DQS masks
    /// ([`pick_region_view`]); later pictures outline that region and cut away what hides it
    /// where the view says so.
    pub fn pick_view(
        &mut self,
        pose: &Pose,
        joint: usize,
        framed: OrbitCamera,
        request: &CameraRequest,
    ) -> Result<RegionView> {
        let selected = skin_joint_index(self.scene, joint).unwrap_or(u32::MAX);
        self.gpu.update(&self.ctx, self.scene, pose);
        let aspect = self.narrowest_aspect();
        let (renderer, ctx, gpu) = (&self.renderer, &self.ctx, &self.gpu);
        let view = pick_region_view(framed, &request.angles(), aspect, |cameras| {
            let probes: Vec<ProbeCamera> = cameras
                .iter()
                .map(|(camera, cut_depth)| ProbeCamera {
                    camera: pane_camera(camera, aspect),
                    cut_depth: *cut_depth,
                })
                .collect();
            renderer.region_coverage(ctx, gpu, (SkinningMode::Dqs, selected), &probes, aspect)
        })?;
        self.set_region(Some(joint), view.cut_depth(aspect));
        Ok(view)
    }

    /// The region later pictures outline and cut away around: joint node `joint` (`None`: the
    /// weights view's joint again, nothing cut), with the cut-away depth `cut_depth` (0: none).
    pub fn set_region(&mut self, joint: Option<usize>, cut_depth: f32) {
        let node = joint.or(self.look.joint);
        // The weights view keeps showing its own joint.
        let node = if self.look.view == DebugView::Weights {
            self.look.joint.or(node)
        } else {
            node
        };
        self.params.selected_joint = node
            .and_then(|n| skin_joint_index(self.scene, n))
            .unwrap_or(0);
        self.params.cut_depth = if joint.is_some() { cut_depth } else { 0.0 };
    }

    /// Renders `pose` seen by `camera` in every pane, labelled, with a colour bar per pane in
    /// heat views, the region outlined where [`Self::set_outline`] asks.
    pub fn paint(&mut self, pose: &Pose, camera: &OrbitCamera) -> Result<RgbaImage> {
        let view = self.look.view;
        if !self.outline {
            let mut rows = self.paint_rows(pose, camera, &[view])?;
            return Ok(rows.swap_remove(0));
        }
        let mut rows = self.paint_rows(pose, camera, &[view, DebugView::Region])?;
        let mask = rows.pop().unwrap_or_default();
        let mut image = rows.swap_remove(0);
        draw_outline(&mut image, &mask, outline_width(self.size[1]));
        Ok(image)
    }

    /// Renders `pose` seen by `camera` once per view of `rows`, each a row of every mode's
    /// pane, in one pass: one image per row, labelled as [`Self::paint`] labels (the
    /// [`DebugView::Region`] mask, like the plain mask, is not).
    pub fn paint_rows(
        &mut self,
        pose: &Pose,
        camera: &OrbitCamera,
        rows: &[DebugView],
    ) -> Result<Vec<RgbaImage>> {
        self.gpu.update(&self.ctx, self.scene, pose);
        let [width, height] = self.size;
        let mut views = Vec::new();
        for (r, &view) in rows.iter().enumerate() {
            let params = ViewParams {
                view,
                ..self.params
            };
            let row = View::panes(width, height, &self.modes, params, |aspect| {
                pane_camera(camera, aspect)
            });
            views.extend(row.into_iter().map(|v| View {
                y: height * r as u32,
                ..v
            }));
        }
        let size = [width, height * rows.len().max(1) as u32];
        let background = self.renderer.settings().background;
        let image = self
            .renderer
            .render_views_sized(&self.ctx, &self.gpu, &views, size, background)?;
        let row_bytes = (width * height * 4) as usize;
        let mut out = Vec::with_capacity(rows.len());
        for (r, &view) in rows.iter().enumerate() {
            let pixels = image
                .pixels
                .get(r * row_bytes..(r + 1) * row_bytes)
                .map_or_else(Vec::new, <[u8]>::to_vec);
            let mut row = RgbaImage {
                width,
                height,
                pixels,
            };
            let panes = View::panes(width, height, &self.modes, self.params, |_| {
                pane_camera(camera, 1.0)
            });
            self.annotate(&mut row, &panes, view);
            out.push(row);
        }
        Ok(out)
    }

    /// Burns each pane's label (mode, view) and, in heat views, its colour bar into `image`.
    fn annotate(&self, image: &mut RgbaImage, views: &[View], view: DebugView) {
        let look = &self.look;
        let scale = (self.size[1] / 160).clamp(1, 6);
        let heat = view.heat_quantity();
        let labelled = !matches!(view, DebugView::Mask | DebugView::Region);
        if !(labelled && (self.modes.len() > 1 || view != DebugView::Shaded)) {
            return;
        }
        for pane in views {
            let mut label = match pane.mode {
                SkinningMode::Hybrid => match &look.betas {
                    Some((_, label)) => format!("hybrid {label}"),
                    None => "hybrid".to_string(),
                },
                m => m.name().to_string(),
            };
            // Short enough for six panes of 300: `hybrid flags - CoR`.
            match view {
                DebugView::Shaded => {}
                DebugView::CorDistance => label = format!("{label} - CoR"),
                _ => label = format!("{label} {}", view.name()),
            }
            draw_label(image, &label, pane.x + 4 * scale, pane.y + 4 * scale, scale);
            if let Some(quantity) = heat {
                let range = look.heat_range.unwrap_or_else(|| quantity.default_range());
                let rect = [pane.x, pane.y, pane.width, pane.height];
                let length = crate::analysis::LengthScale {
                    diagonal: self.params.diagonal,
                    unit_meters: self.scene.source_info.unit_meters,
                };
                draw_heat_legend(image, rect, quantity, range, scale, Some(length));
            }
        }
    }
}

/// Renders `scene` at `pose` once per mode, side by side, each pane labelled with its mode.
///
/// The camera frames the rest-pose bounding box from [`super::render::CAMERA_DIRECTION`], so
/// renders of different poses line up.
pub fn render_image(
    scene: &Scene,
    pose: &Pose,
    modes: &[SkinningMode],
    look: &RenderLook,
    width: u32,
    height: u32,
) -> Result<RgbaImage> {
    let narrowest = (width / modes.len().max(1) as u32).max(1) as f32 / height.max(1) as f32;
    let (camera, _) =
        CameraRequest::default_view().orbit(scene, std::slice::from_ref(pose), narrowest)?;
    let mut painter = Painter::new(scene, pose, modes, look.clone(), [width, height])?;
    painter.paint(pose, &camera)
}
