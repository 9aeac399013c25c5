//! One frame: UI, pose, the 3D pass per view, the egui pass, present, and screenshots.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};

use super::screenshot::copy_texture;
use super::ui_damage::FrameDamage;
use super::viewer::Running;
use crate::ui::{ViewMode, ViewRect, panel_ui, plot_ui, shortcuts, viewport_ui};

/// What the UI produced this frame, ready to draw.
pub(super) struct UiFrame {
    /// The 3D views' rectangles and modes.
    pub(super) views: Vec<ViewRect>,
    /// egui's shapes, as painted (tessellated where the frame draws them).
    pub(super) shapes: Vec<egui::epaint::ClippedShape>,
    /// egui's texture changes.
    pub(super) textures: egui::TexturesDelta,
    /// Window size and scale for egui's renderer.
    pub(super) screen: egui_wgpu::ScreenDescriptor,
    /// Linear RGBA of the UI panels, which the scene pass clears to (egui paints no panel fill).
    pub(super) panel_fill: [f64; 4],
    /// How soon egui wants the next frame (zero: now; `Duration::MAX`: on input only).
    pub(super) repaint_delay: std::time::Duration,
}

impl Running {
    /// Runs the UI, updates the pose and draws a frame; writes it to `screenshot` if given.
    pub(super) fn render_frame(&mut self, screenshot: Option<&Path>) -> Result<()> {
        profiling::scope!(super::profile::FRAME_SPAN);
        let started = Instant::now();
        self.handle_gpu_faults();
        let continuous = self.every_frame || self.next_frame == super::redraw::NextFrame::Now;
        let interval = self.stats.clock.interval(continuous);
        if self.stats.frames > 0 && self.stats.intervals_ms.len() < 100_000 {
            self.stats.intervals_ms.push(interval.as_secs_f32() * 1e3);
        }
        // Capped, so a stall does not jump the clip.
        let dt = interval.as_secs_f32().min(0.25);
        if let Some(timer) = self.stats.timer.as_mut() {
            timer.collect(&self.gpu.ctx.device);
            // With the FPS, not every frame: a still window's UI stays the same picture.
            if self.stats.status_window != self.stats.clock.windows
                || self.state.status.gpu_ms.is_none()
            {
                self.state.status.gpu_ms = timer.last_ms;
            }
        }
        self.stats.status_window = self.stats.clock.windows;
        self.state.status.fps = self.stats.clock.fps;
        self.state.status.on_demand = self.stats.clock.on_demand;
        self.state.status.cpu_ms = self.stats.clock.cpu_ms;
        self.state.playback.advance(dt);
        // A scripted run's fit waits for its CoR centers, so its dumps show the outcome.
        let scripted_fit = self.script.is_scripted() && self.state.paint.fit_waiting;
        self.poll_jobs(screenshot.is_some() || scripted_fit);
        let mut ui = {
            profiling::scope!("ui");
            self.run_ui()
        };
        {
            profiling::scope!("paint");
            self.update_paint(&ui);
        }
        // A screenshot, or a script's dump, shows the heat range of the pose it shows.
        let settle = screenshot.is_some() || self.script.is_scripted();
        self.update_scene(&ui, settle);
        let saved = self.files.pending_save.take();
        let images: Vec<&Path> = screenshot.into_iter().chain(saved.as_deref()).collect();
        let result = self.draw(&ui, &images);
        if let (Some(path), Ok(())) = (&saved, &result) {
            log::info!("saved {}", path.display());
        }
        for id in &ui.textures.free {
            self.egui.renderer.free_texture(id);
        }
        // Every delta was handed to the renderer above.
        ui.textures.clear();
        self.stats.clock.record(started.elapsed());
        self.next_frame = self.wanted_frame(ui.repaint_delay, Instant::now());
        result
    }

    /// Polls the CoR precompute and the plot's analysis (a screenshot frame waits for them).
    fn poll_jobs(&mut self, wait: bool) {
        profiling::scope!("poll jobs");
        let s = &self.state.skinning;
        let wants_cor = s.shows(crate::skin::SkinningMode::Cor)
            || self.state.paint.fit_waiting
            || s.shading == crate::render::DebugView::CorDistance;
        let model = &mut self.model;
        let renderer = &self.graphics.renderer;
        model.cor.poll(
            &model.scene,
            wants_cor,
            wait,
            &mut self.state.cor,
            &self.gpu.ctx,
            |ctx, centers| model.gpu.set_cor_centers(ctx, renderer, centers),
        );
        model.ddm.poll(
            &model.scene,
            (s.shows(crate::skin::SkinningMode::Ddm), wait),
            &mut self.state.ddm,
            &self.gpu.ctx,
            |ctx, ddm| model.gpu.set_ddm(ctx, renderer, ddm),
        );
        if s.shows(crate::skin::SkinningMode::Dm) {
            upload_dm(model, &mut self.state.dm, (&self.gpu.ctx, renderer));
        }
        let wants_twist = s.view == crate::ui::ViewMode::Split && s.panes[crate::ui::TWIST_PANE];
        // A scripted run's helper rig is waited for (it fits CoR first), so its dumps and
        // saves show the built rig, as a scripted fit's do.
        model.twist.poll(
            &model.scene,
            model.cor.centers(),
            wants_twist,
            wait || self.script.is_scripted(),
            &mut self.state.twist,
            (&self.gpu.ctx, renderer),
        );
        // Before the UI, so a scripted run's screenshot frame shows the series it waited for.
        self.inspector
            .set_cor_centers(self.model.cor.centers().cloned());
        self.inspector.set_ddm(self.model.ddm.ddm().cloned());
        self.inspector.update(&mut self.state, Instant::now(), wait);
    }

    /// This frame's betas, crowd, camera requests, pose, follow camera, edges, heat range
    /// (`wait`: a screenshot or scripted frame, which waits for the heat range's scan).
    fn update_scene(&mut self, ui: &UiFrame, wait: bool) {
        profiling::scope!("scene update");
        if let Some(betas) = self.inspector.betas_if_changed(&mut self.state) {
            self.model
                .gpu
                .set_betas(&self.gpu.ctx, &self.graphics.renderer, betas);
        }
        self.resize_crowd();
        // A Frame the UI did not carry out (a crowd resized after it ran).
        if std::mem::take(&mut self.state.requests.frame_model) {
            let (min, max) = self.model.drawn_bounds();
            // Into the part of the panes that labels and the status line leave free.
            match crate::ui::FrameArea::of_views(&ui.views) {
                Some(area) => self.state.camera.frame_in(min, max, area),
                None => self.state.camera.frame(min, max),
            }
        }
        let p = &self.state.playback;
        {
            profiling::scope!("pose");
            self.model.pose_at(
                &self.gpu.ctx,
                p.clip,
                p.time_s,
                &self.state.joints.overrides,
            );
            self.model.twist.pose_at(
                &self.gpu.ctx,
                p.clip,
                p.time_s,
                &self.state.joints.overrides,
            );
        }
        // After the pose: a joint is framed, and followed from, where this frame shows it.
        self.frame_joint(&ui.views);
        self.follow_joint(&ui.views);
        if self.state.display.wireframe || self.state.skinning.view == ViewMode::Overlay {
            self.model.gpu.make_edges(&self.gpu.ctx, &self.model.scene);
            self.model.twist.make_edges(&self.gpu.ctx);
        }
        self.state.morphs.update_weights(&self.model.pose);
        self.update_heat_range(ui, wait);
    }

    /// Runs egui: shortcuts, the left panel and the viewport overlays.
    fn run_ui(&mut self) -> UiFrame {
        let mut raw = self.egui.state.take_egui_input(&self.gpu.window);
        self.egui.pacer.pace(&mut raw);
        let frame = self.stats.frames;
        let scripted = self.script.events(frame, &self.state, &self.model.scene);
        match scripted {
            Ok(events) => raw.events.extend(events),
            Err(e) => self.state.error = Some(format!("UI script, frame {frame}: {e:#}")),
        }
        let skeleton = self
            .model
            .skeleton(self.state.trees.get(self.state.joints.skin));
        let state = &mut self.state;
        let scene = &self.model.scene;
        let joint_name = |n: usize| {
            scene
                .nodes
                .get(n)
                .map_or_else(|| format!("node {n}"), |node| node.name.clone())
        };
        let mut views = Vec::new();
        let mut panel_fill = egui::Color32::BLACK;
        let build = tracing::info_span!("egui build").entered();
        let output = self.egui.ctx.run_ui(raw, |ui| {
            shortcuts(ui.ctx(), state);
            // The scene pass's clear paints the panels: on a software rasterizer, egui's
            // shader over those large flat areas cost more than the whole 3D pass.
            let style = ui.style();
            panel_fill = style.visuals.panel_fill;
            let panel_frame = egui::Frame::side_top_panel(style).fill(egui::Color32::TRANSPARENT);
            egui::Panel::left("controls")
                .frame(panel_frame)
                .default_size(310.0)
                .resizable(true)
                .show(ui, |ui| panel_ui(ui, state));
            if state.display.plot {
                egui::Panel::bottom("plot")
                    .frame(panel_frame)
                    .min_size(200.0)
                    .default_size(220.0)
                    .resizable(true)
                    .show(ui, |ui| {
                        let inspect = &mut state.inspect;
                        plot_ui(
                            ui,
                            inspect,
                            &mut state.playback,
                            &mut state.joints,
                            &joint_name,
                        );
                    });
            }
            egui::CentralPanel::no_frame().show(ui, |ui| {
                let rect = ui.max_rect();
                views = viewport_ui(ui, rect, state, &skeleton);
            });
        });
        drop(build);
        self.egui
            .state
            .handle_platform_output(&self.gpu.window, output.platform_output);
        let window = [self.gpu.config.width, self.gpu.config.height];
        let shown = super::ui_script::Shown {
            scene: &self.model.scene,
            window,
            views: &views,
            betas: self
                .model
                .paint
                .map()
                .unwrap_or_else(|| self.inspector.flag_betas()),
            painted: self.model.paint.map().is_some(),
        };
        let after = self
            .script
            .after_ui(frame, &self.egui.ctx, &self.state, &shown);
        match after {
            Ok(save) => self.files.pending_save = save.or(self.files.pending_save.take()),
            Err(e) => self.state.error = Some(format!("UI script, frame {frame}: {e:#}")),
        }
        let repaint_delay = output
            .viewport_output
            .values()
            .map(|v| v.repaint_delay)
            .min()
            .unwrap_or(std::time::Duration::MAX);
        UiFrame {
            repaint_delay,
            views,
            shapes: output.shapes,
            textures: output.textures_delta,
            panel_fill: linear_rgba(panel_fill),
            screen: egui_wgpu::ScreenDescriptor {
                size_in_pixels: [self.gpu.config.width, self.gpu.config.height],
                pixels_per_point: output.pixels_per_point,
            },
        }
    }

    /// Applies this frame's brush dabs and paint requests; hands a changed map to the inspector.
    fn update_paint(&mut self, ui: &UiFrame) {
        let settle = self.script.is_scripted();
        let model = &mut self.model;
        let changed = model.paint.update(
            &mut self.state,
            &model.scene,
            &model.pose,
            self.inspector.flag_betas(),
            &ui.views,
            model.cor.centers(),
            settle,
        );
        if changed {
            let revision = model.paint.revision();
            self.inspector.set_painted(model.paint.map(), revision);
        }
    }

    /// The heatmap views' range for this frame's pose and panes (none in other views).
    fn update_heat_range(&mut self, ui: &UiFrame, wait: bool) {
        let s = &self.state.skinning;
        let quantity = s
            .shading
            .heat_quantity()
            .filter(|_| !self.state.paint.enabled);
        self.state.heat_shown = quantity.map(|quantity| {
            let model = &mut self.model;
            let inputs = super::heat::HeatInputs {
                scene: &model.scene,
                pose: &model.pose,
                modes: ui.views.iter().map(|v| v.mode).collect(),
                betas: self.inspector.shown_betas(),
                beta_scale: 1.0,
                diagonal: (model.bounds.1 - model.bounds.0).length(),
                centers: model.cor.centers().cloned(),
            };
            (
                quantity,
                model.heat.range(quantity, s.heat_range, &inputs, wait),
            )
        });
    }

    /// Sizes the crowd to the slider, reframing the camera when it changes.
    fn resize_crowd(&mut self) {
        let count = self.state.skinning.crowd;
        match self
            .model
            .set_instances(&self.gpu.ctx, &self.graphics.renderer, count)
        {
            Ok(false) => {}
            Ok(true) => {
                let (min, max) = self.model.drawn_bounds();
                self.state.framed_bounds = Some((min, max));
                self.state.requests.frame_model = true;
            }
            Err(e) => {
                self.state.error = Some(crate::report::error_message(&e));
                self.state.skinning.crowd = 1;
            }
        }
    }

    /// Uploads UI textures and, when the window has an area, draws and presents.
    fn draw(&mut self, ui: &UiFrame, images: &[&Path]) -> Result<()> {
        profiling::scope!("draw");
        let ctx = &self.gpu.ctx;
        // Texture updates must reach the renderer even on skipped frames.
        for (id, deltas) in &ui.textures.set {
            for delta in deltas {
                self.egui
                    .renderer
                    .update_texture(&ctx.device, &ctx.queue, *id, delta);
            }
        }
        if !self.gpu.visible {
            return Ok(());
        }
        let acquired = {
            profiling::scope!("acquire");
            self.gpu.acquire()
        };
        let Some(frame) = acquired else {
            return Ok(());
        };
        let uniforms = self.view_uniforms(ui);
        self.write_view_uniforms(&uniforms);
        let ctx = &self.gpu.ctx;
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("dqview::app::frame"),
            });
        // A saved image is what the window shows, reused views included (the twin draws afresh).
        let key = self.scene_key(ui, uniforms);
        // Without COPY_SRC on the swapchain, a saved image is the same frame drawn again into a
        // copyable twin, from the buffers this frame uploads: so the frame uploads all of them.
        let twin = (!images.is_empty() && !self.gpu.copy_src).then(|| self.twin_texture());
        let damage = match twin {
            Some(_) => FrameDamage::Whole,
            None => self
                .gpu
                .targets
                .scene
                .damage(&key, &ui.shapes, &ui.textures),
        };
        let drawn = damage != FrameDamage::Nothing;
        let timed = drawn && self.stats.timer.as_ref().is_some_and(|t| t.can_time());
        let mut commands = Vec::new();
        if drawn {
            commands = self.encode_drawn(&mut encoder, &frame.texture, ui, (key, &damage), timed);
        } else {
            profiling::scope!("reuse whole frame");
            let cache = &mut self.gpu.targets.scene;
            cache.restore_frame(&mut encoder, &frame.texture);
        }
        if let Some(twin) = &twin {
            let view = twin.create_view(&wgpu::TextureViewDescriptor::default());
            self.encode_whole(&mut encoder, &view, ui, &self.whole_primitives(ui));
        }
        let ctx = &self.gpu.ctx;
        let copy = images
            .first()
            .map(|_| copy_texture(ctx, &mut encoder, twin.as_ref().unwrap_or(&frame.texture)));
        if timed && let Some(timer) = &self.stats.timer {
            timer.resolve(&mut encoder);
        }
        commands.push(encoder.finish());
        {
            profiling::scope!("submit");
            ctx.queue.submit(commands);
        }
        if timed && let Some(timer) = &self.stats.timer {
            timer.after_submit();
        }
        if matches!(damage, FrameDamage::Rects(_)) {
            self.check_damage(&frame.texture, ui)?;
        }
        let ctx = &self.gpu.ctx;
        if let (Some(copy), Some(first)) = (copy, images.first()) {
            copy.write_png(ctx, first)?;
            for path in &images[1..] {
                std::fs::copy(first, path)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
        }
        self.gpu.window.pre_present_notify();
        {
            profiling::scope!("present");
            ctx.queue.present(frame);
        }
        self.stats.frames += 1;
        // Tests and users watch redraws with RUST_LOG=dqview::frames=debug.
        log::debug!(target: "dqview::frames", "frame {} presented", self.stats.frames);
        if self.faults.lose_device_at_frame == Some(self.stats.frames) {
            log::warn!(
                "destroying the GPU device after frame {} (test hook)",
                self.stats.frames
            );
            self.gpu.ctx.device.destroy();
        }
        Ok(())
    }

    /// Records the frame drawn over the last one where `damage` says: its views, then its UI's
    /// primitives (all of them, or those cut to the damaged rectangles); the egui upload's
    /// commands.
    fn encode_drawn(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &wgpu::Texture,
        ui: &UiFrame,
        (key, damage): (super::scene_cache::SceneKey, &FrameDamage),
        timed: bool,
    ) -> Vec<wgpu::CommandBuffer> {
        let rects = match damage {
            FrameDamage::Rects(rects) => Some(rects.as_slice()),
            FrameDamage::Nothing | FrameDamage::Whole => None,
        };
        let primitives = match rects {
            Some(rects) => self.damaged_primitives(ui, rects),
            None => self.whole_primitives(ui),
        };
        let upload = tracing::info_span!("egui upload").entered();
        let commands = self.egui.renderer.update_buffers(
            &self.gpu.ctx.device,
            &self.gpu.ctx.queue,
            encoder,
            &primitives,
            &ui.screen,
        );
        drop(upload);
        let target = frame.create_view(&wgpu::TextureViewDescriptor::default());
        let ui_drawn = super::passes::FrameUi {
            frame: ui,
            primitives: (&primitives, &ui.screen),
            damage: rects,
        };
        self.encode_frame(encoder, (frame, &target), ui_drawn, timed, key);
        commands
    }

    /// Every shape of `ui`, tessellated (a frame drawn whole).
    pub(super) fn whole_primitives(&self, ui: &UiFrame) -> Vec<egui::ClippedPrimitive> {
        profiling::scope!("egui tessellate");
        let ppp = ui.screen.pixels_per_point;
        self.egui.ctx.tessellate(ui.shapes.clone(), ppp)
    }

    /// The shapes of `ui` that reach `rects`, tessellated as in the whole frame and cut to them.
    fn damaged_primitives(
        &self,
        ui: &UiFrame,
        rects: &[super::ui_damage::PixelRect],
    ) -> Vec<egui::ClippedPrimitive> {
        profiling::scope!("egui tessellate damaged");
        let ppp = ui.screen.pixels_per_point;
        let size = ui.screen.size_in_pixels;
        let reaching: Vec<egui::epaint::ClippedShape> = ui
            .shapes
            .iter()
            .filter(|s| {
                rects
                    .iter()
                    .any(|r| super::ui_damage::reaches(s, r, ppp, size))
            })
            .cloned()
            .collect();
        let primitives = self.egui.ctx.tessellate(reaching, ppp);
        super::ui_damage::clip_primitives(primitives, rects, ppp)
    }

    /// A texture like the swapchain image but copyable, for screenshots.
    pub(super) fn twin_texture(&self) -> wgpu::Texture {
        self.gpu
            .ctx
            .device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("dqview::app::screenshot_twin"),
                size: wgpu::Extent3d {
                    width: self.gpu.config.width,
                    height: self.gpu.config.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: self.gpu.config.format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
    }
}

/// An egui colour (sRGB, premultiplied) as linear RGBA for a clear colour.
fn linear_rgba(color: egui::Color32) -> [f64; 4] {
    egui::Rgba::from(color).to_array().map(f64::from)
}

/// Makes and uploads Delta Mush's rest deltas when the panel's parameters differ from the
/// uploaded ones (or none are); they are fast to make (the rest pose smoothed once).
fn upload_dm(
    model: &mut super::model::LoadedModel,
    state: &mut crate::ui::DmState,
    (ctx, renderer): (&crate::render::GpuContext, &crate::render::Renderer),
) {
    if model.dm.as_ref().is_some_and(|d| d.params == state.params) {
        return;
    }
    let started = Instant::now();
    let dm = crate::skin::dm::SceneDm::compute(&model.scene, state.params);
    match model.gpu.set_dm(ctx, renderer, &dm) {
        Ok(()) => {
            state.error = None;
            state.welded = Some(dm.welded_vertex_count());
            log::info!(
                "Delta Mush ready: {} welded vertices, {} x {} in {:.0} ms",
                dm.welded_vertex_count(),
                dm.params.iterations,
                dm.params.factor,
                started.elapsed().as_secs_f64() * 1e3
            );
        }
        Err(e) => {
            log::warn!("Delta Mush is not on the GPU: {e}");
            state.error = Some(format!("not on the GPU ({e}); DM panes show LBS"));
            state.welded = None;
        }
    }
    model.dm = Some(std::sync::Arc::new(dm));
}
