//! A frame's GPU work: each view's uniforms, the 3D pass (or the cached copy of it) and the egui pass.

use super::frame::UiFrame;
use super::scene_cache::SceneKey;
use super::ui_damage::PixelRect;
use super::viewer::Running;
use crate::render::{Camera, DebugView, ViewParams, begin_scene_pass};
use crate::skin::SkinningMode;
use crate::ui::{ViewMode, ghost_mode};

impl Running {
    /// The selected joint as an index into its skin's joint list (0 when none), for the weights view.
    fn selected_joint_index(&self) -> u32 {
        let joints = &self.state.joints;
        joints
            .selected
            .and_then(|node| {
                let skin = self.model.scene.skins.get(joints.skin)?;
                skin.joints.iter().position(|&j| j == node)
            })
            .unwrap_or(0) as u32
    }

    /// Each view's camera and debug-view parameters this frame.
    pub(super) fn view_uniforms(&self, ui: &UiFrame) -> Vec<(Camera, ViewParams)> {
        let s = &self.state.skinning;
        ui.views
            .iter()
            .map(|view| {
                let aspect = view.rect.width() / view.rect.height().max(1.0);
                let camera = Camera {
                    clip_from_world: self.state.camera.clip_from_world(aspect),
                };
                // The betas are spelled per vertex with the strength applied (the inspector's
                // `hybrid_betas`); while painting they are the map itself, shown in the beta view.
                let painting = self.state.paint.enabled;
                let params = ViewParams {
                    beta: 1.0,
                    view: if painting { DebugView::Beta } else { s.shading },
                    selected_joint: self.selected_joint_index(),
                    diagonal: (self.model.bounds.1 - self.model.bounds.0).length(),
                    bulge: s.bulge_compensation,
                    heat_range: self.state.heat_shown.map(|(_, range)| range),
                    cut_depth: 0.0,
                };
                (camera, params)
            })
            .collect()
    }

    /// Writes `uniforms` (of [`Running::view_uniforms`]) into each view's pane buffers.
    pub(super) fn write_view_uniforms(&self, uniforms: &[(Camera, ViewParams)]) {
        let queue = &self.gpu.ctx.queue;
        for ((camera, params), pane) in uniforms.iter().zip(&self.graphics.panes) {
            pane.write(queue, &self.graphics.renderer, camera, params);
        }
    }

    /// Everything this frame's 3D pass draws from (`uniforms` as written this frame).
    pub(super) fn scene_key(&self, ui: &UiFrame, uniforms: Vec<(Camera, ViewParams)>) -> SceneKey {
        let views = ui
            .views
            .iter()
            .zip(uniforms)
            .map(|(v, (camera, params))| {
                let r = v.rect;
                (
                    [r.min.x, r.min.y, r.max.x, r.max.y],
                    v.mode,
                    v.twist,
                    camera,
                    params,
                )
            })
            .collect();
        let d = &self.state.display;
        SceneKey {
            size: (
                self.gpu.config.width,
                self.gpu.config.height,
                ui.screen.pixels_per_point,
            ),
            clear: ui.panel_fill,
            switches: [
                d.grid,
                d.wireframe,
                self.state.skinning.view == ViewMode::Overlay,
            ],
            views,
            revisions: [
                self.model.gpu.revision(),
                self.model.grid.revision(),
                self.model
                    .twist
                    .gpu()
                    .map(|g| g.revision())
                    .unwrap_or_default(),
            ],
        }
    }

    /// Records the 3D pass into `target` (the swapchain's `frame`), or copies the last
    /// frame's views when `key` matches what they were drawn from; outside `ui.damage`, the
    /// last frame; then the egui pass of `ui.primitives`. The frame is kept whole for the next
    /// one ([`super::scene_cache::SceneCache::damage`]).
    pub(super) fn encode_frame(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        (frame, target): (&wgpu::Texture, &wgpu::TextureView),
        ui: FrameUi<'_>,
        timed: bool,
        key: SceneKey,
    ) {
        let reused = self.gpu.targets.scene.holds(&key);
        if reused {
            profiling::scope!("reuse 3D views");
            self.gpu.targets.scene.restore(encoder, frame);
            if timed {
                self.timestamp_pass(encoder, target);
            }
        } else {
            self.encode_scene(encoder, target, ui.frame, timed);
            self.gpu.targets.scene.store(encoder, frame, key.clone());
        }
        if let Some(damaged) = ui.damage {
            profiling::scope!("reuse undamaged UI");
            self.gpu
                .targets
                .scene
                .restore_undamaged(encoder, frame, damaged);
        }
        self.encode_ui(encoder, target, ui.primitives, timed);
        self.gpu
            .targets
            .scene
            .store_frame(encoder, frame, key, &ui.frame.shapes);
    }

    /// Records the whole frame of `ui` (3D views and every primitive) into `target`, untimed:
    /// the copyable twin of a screenshot or of a damage check.
    pub(super) fn encode_whole(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        ui: &UiFrame,
        primitives: &[egui::ClippedPrimitive],
    ) {
        self.encode_scene(encoder, target, ui, false);
        self.encode_ui(encoder, target, (primitives, &ui.screen), false);
    }

    /// An empty pass holding the 3D pass's timestamps on a frame that reused its views.
    fn timestamp_pass(&self, encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView) {
        let writes = self.stats.timer.as_ref().map(|t| t.writes(true));
        overlay_pass(encoder, "dqview::app::pass_3d_reused", target, writes);
    }

    /// Records the 3D pass (every view) into `target`.
    pub(super) fn encode_scene(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        ui: &UiFrame,
        timed: bool,
    ) {
        profiling::scope!("encode 3D");
        let targets = &self.gpu.targets;
        let (view, resolve_target) = match &targets.msaa {
            Some(msaa) => (msaa, Some(target)),
            None => (target, None),
        };
        let timer = self.stats.timer.as_ref().filter(|_| timed);
        self.encode_dm(encoder, ui);
        let mut pass = begin_scene_pass(
            encoder,
            view,
            resolve_target,
            &targets.depth,
            Some(ui.panel_fill),
            timer.map(|t| t.writes(true)),
        );
        let (width, height) = (self.gpu.config.width, self.gpu.config.height);
        let ppp = ui.screen.pixels_per_point;
        let g = &self.graphics;
        let model = &self.model.gpu;
        for (v, pane) in ui.views.iter().zip(&g.panes) {
            // The twist pane draws the preview rig once built (the input until then, as its label says).
            let scene = match self.model.twist.gpu() {
                Some(rig) if v.twist => rig,
                _ => model,
            };
            let x0 = ((v.rect.min.x * ppp).round().max(0.0) as u32).min(width);
            let y0 = ((v.rect.min.y * ppp).round().max(0.0) as u32).min(height);
            let x1 = ((v.rect.max.x * ppp).round().max(0.0) as u32).min(width);
            let y1 = ((v.rect.max.y * ppp).round().max(0.0) as u32).min(height);
            if x1 <= x0 || y1 <= y0 {
                continue;
            }
            let (w, h) = (x1 - x0, y1 - y0);
            pass.set_viewport(x0 as f32, y0 as f32, w as f32, h as f32, 0.0, 1.0);
            pass.set_scissor_rect(x0, y0, w, h);
            g.backdrop.draw(&mut pass);
            scene.draw(&mut pass, &g.renderer, &pane.mesh, v.mode);
            if self.state.display.grid {
                let grid = &self.model.grid;
                grid.draw_wire(&mut pass, &g.renderer, &pane.grid, SkinningMode::Lbs, false);
            }
            if self.state.display.wireframe {
                scene.draw_wire(&mut pass, &g.renderer, &pane.wire, v.mode, false);
            }
            if self.state.skinning.view == ViewMode::Overlay {
                let ghost = ghost_mode(v.mode);
                scene.draw_wire(&mut pass, &g.renderer, &pane.ghost, ghost, true);
            }
        }
    }

    /// Records Delta Mush's compute passes when a view shows DM (its views draw their output).
    fn encode_dm(&self, encoder: &mut wgpu::CommandEncoder, ui: &UiFrame) {
        let model = &self.model.gpu;
        let shown = ui
            .views
            .iter()
            .any(|v| v.mode == SkinningMode::Dm && !v.twist);
        if !shown || !model.has_dm() {
            return;
        }
        let run = crate::render::SkinRun::new(SkinningMode::Dm, 1.0);
        let renderer = &self.graphics.renderer;
        if let Err(e) = model.encode_skinning(&self.gpu.ctx, encoder, renderer, run, None) {
            log::warn!("Delta Mush not drawn: {e}");
        }
    }

    /// Records the egui pass of `primitives` over `target`.
    pub(super) fn encode_ui(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        (primitives, screen): (&[egui::ClippedPrimitive], &egui_wgpu::ScreenDescriptor),
        timed: bool,
    ) {
        profiling::scope!("encode UI");
        let writes = self.stats.timer.as_ref().filter(|_| timed);
        let writes = writes.map(|t| t.writes(false));
        let mut pass = overlay_pass(encoder, "dqview::app::pass_ui", target, writes);
        self.egui.renderer.render(&mut pass, primitives, screen);
    }
}

/// What a frame's egui pass draws: the frame's UI, the primitives (all of them, or those cut
/// to the damaged rectangles) and the damage.
pub(super) struct FrameUi<'a> {
    /// This frame's UI.
    pub(super) frame: &'a UiFrame,
    /// What the egui pass draws, with the screen it is for.
    pub(super) primitives: (
        &'a [egui::ClippedPrimitive],
        &'a egui_wgpu::ScreenDescriptor,
    ),
    /// The rectangles drawn afresh; `None`: the whole frame.
    pub(super) damage: Option<&'a [PixelRect]>,
}

/// A pass that keeps what `target` holds and draws over it (no depth), with `timestamps`.
fn overlay_pass(
    encoder: &mut wgpu::CommandEncoder,
    label: &'static str,
    target: &wgpu::TextureView,
    timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
) -> wgpu::RenderPass<'static> {
    let attachment = wgpu::RenderPassColorAttachment {
        view: target,
        depth_slice: None,
        resolve_target: None,
        ops: wgpu::Operations {
            load: wgpu::LoadOp::Load,
            store: wgpu::StoreOp::Store,
        },
    };
    encoder
        .begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments: &[Some(attachment)],
            depth_stencil_attachment: None,
            timestamp_writes: timestamps,
            occlusion_query_set: None,
            multiview_mask: None,
        })
        .forget_lifetime()
}
