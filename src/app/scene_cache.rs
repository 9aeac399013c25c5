//! The 3D views of the last frame, kept so a frame that changes only the UI (a hover, a
//! panel scrolled, the status line) copies them instead of drawing them again: on a
//! software rasterizer the 3D pass is about half of a frame.
//!
//! A frame reuses the views only when its [`SceneKey`] equals the one they were drawn
//! with: every input of the 3D pass is in the key, so a reused picture is the picture.
//! Where the UI did not change either (a still window redrawn, a pointer moved over
//! nothing), the whole last frame is copied and neither pass runs. Where only some widgets
//! changed (a playing clip's time label, slider and plot cursor), the last frame is copied
//! outside the damaged rectangles and the egui pass draws inside them only ([`super::ui_damage`]).

use egui::epaint::ClippedShape;

use super::ui_damage::{FrameDamage, PixelRect, changed_rects, disjoint, pixel_rect, texels_kept};
use crate::render::{Camera, GpuContext, ViewParams};
use crate::skin::SkinningMode;

/// Everything the 3D pass draws from: window, views, uniforms, display switches and the
/// revisions of the GPU data (palettes, morph weights, betas, centers, edges, instances).
#[derive(Clone, Debug, PartialEq)]
pub struct SceneKey {
    /// Surface size in pixels and egui's pixels per point.
    pub size: (u32, u32, f32),
    /// The clear colour (the panels' fill).
    pub clear: [f64; 4],
    /// Grid, wireframe and overlay ghost on or off.
    pub switches: [bool; 3],
    /// Each view's rectangle (points), mode, twist rig or not, camera and debug-view parameters.
    pub views: Vec<([f32; 4], SkinningMode, bool, Camera, ViewParams)>,
    /// The model's, the grid's and the twist rig's GPU data revisions.
    pub revisions: [Vec<u64>; 3],
}

/// A swapchain-sized copy of a picture and the key it was drawn with.
struct Snapshot<K> {
    /// `None` where the swapchain cannot be copied both ways.
    texture: Option<wgpu::Texture>,
    key: Option<K>,
}

impl<K: PartialEq> Snapshot<K> {
    /// An empty snapshot for a swapchain of `config` (none unless its images allow copies in and out).
    fn new(ctx: &GpuContext, config: &wgpu::SurfaceConfiguration, label: &'static str) -> Self {
        let both = wgpu::TextureUsages::COPY_SRC | wgpu::TextureUsages::COPY_DST;
        let texture = config.usage.contains(both).then(|| {
            ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: extent(config),
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: config.format,
                usage: both,
                view_formats: &[],
            })
        });
        Self { texture, key: None }
    }

    /// Whether the snapshot holds the picture `key` describes.
    fn holds(&self, key: &K) -> bool {
        self.texture.is_some() && self.key.as_ref() == Some(key)
    }

    /// Records copying `frame` (just drawn from `key`) into the snapshot.
    fn store(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &wgpu::Texture, key: K) {
        self.key = None;
        let Some(texture) = &self.texture else {
            return;
        };
        if texture.size() != frame.size() {
            return;
        }
        encoder.copy_texture_to_texture(
            frame.as_image_copy(),
            texture.as_image_copy(),
            texture.size(),
        );
        self.key = Some(key);
    }

    /// Records copying the snapshot's `rects` into the same places of `frame`.
    fn restore_rects(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &wgpu::Texture,
        rects: &[PixelRect],
    ) {
        let Some(texture) = &self.texture else {
            return;
        };
        for r in rects {
            let origin = wgpu::Origin3d {
                x: r[0],
                y: r[1],
                z: 0,
            };
            fn at(
                texture: &wgpu::Texture,
                origin: wgpu::Origin3d,
            ) -> wgpu::TexelCopyTextureInfo<'_> {
                wgpu::TexelCopyTextureInfo {
                    texture,
                    mip_level: 0,
                    origin,
                    aspect: wgpu::TextureAspect::All,
                }
            }
            let size = wgpu::Extent3d {
                width: r[2] - r[0],
                height: r[3] - r[1],
                depth_or_array_layers: 1,
            };
            encoder.copy_texture_to_texture(at(texture, origin), at(frame, origin), size);
        }
    }

    /// Records copying the snapshot into `frame`; false when there is none to copy.
    fn restore(&self, encoder: &mut wgpu::CommandEncoder, frame: &wgpu::Texture) -> bool {
        let Some(texture) = &self.texture else {
            return false;
        };
        encoder.copy_texture_to_texture(
            texture.as_image_copy(),
            frame.as_image_copy(),
            texture.size(),
        );
        true
    }
}

/// The last frame's 3D views, and the last whole frame (views and UI) with the shapes it drew.
pub struct SceneCache {
    views: Snapshot<SceneKey>,
    /// The last frame presented, keyed by its views (its UI is `frame_shapes`).
    frame: Snapshot<SceneKey>,
    /// The egui shapes `frame` holds (meaningful while it has a key).
    frame_shapes: Vec<ClippedShape>,
    /// Off (`DQVIEW_WHOLE_UI_PASS` set): every drawn frame draws its whole UI, as before.
    partial_ui: bool,
    /// Frames whose views were copied from the cache, and frames whose views were drawn.
    pub counts: (u64, u64),
    /// Frames copied whole (neither the views nor the UI changed), counted in `counts.0` too.
    pub whole_frames: u64,
    /// Frames whose UI was drawn only where it changed, and the pixels drawn in them.
    pub partial_frames: (u64, u64),
}

impl SceneCache {
    /// A cache for a swapchain of `config`; none (every frame draws) unless its images allow
    /// copies in and out.
    #[must_use]
    pub fn new(ctx: &GpuContext, config: &wgpu::SurfaceConfiguration) -> Self {
        Self {
            views: Snapshot::new(ctx, config, "dqview::app::scene_cache"),
            frame: Snapshot::new(ctx, config, "dqview::app::frame_cache"),
            frame_shapes: Vec::new(),
            partial_ui: std::env::var_os("DQVIEW_WHOLE_UI_PASS").is_none(),
            counts: (0, 0),
            whole_frames: 0,
            partial_frames: (0, 0),
        }
    }

    /// Whether the cache holds the views `key` describes.
    #[must_use]
    pub fn holds(&self, key: &SceneKey) -> bool {
        self.views.holds(key)
    }

    /// Records copying `frame` (its 3D views just drawn with `key`) into the cache.
    pub fn store(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &wgpu::Texture,
        key: SceneKey,
    ) {
        self.counts.1 += 1;
        self.views.store(encoder, frame, key);
    }

    /// Records copying the cached views into `frame` (after [`SceneCache::holds`] said yes).
    pub fn restore(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &wgpu::Texture) {
        if self.views.restore(encoder, frame) {
            self.counts.0 += 1;
        }
    }

    /// What a frame of views `key` and UI `shapes` (after `textures`) must draw over the last
    /// frame: nothing, some rectangles, or all of it (no last frame of this size, a texture
    /// replaced, a paint callback, most of it changed, or partial drawing switched off).
    #[must_use]
    pub fn damage(
        &self,
        key: &SceneKey,
        shapes: &[ClippedShape],
        textures: &egui::TexturesDelta,
    ) -> FrameDamage {
        let Some(last) = self.frame.key.as_ref() else {
            return FrameDamage::Whole;
        };
        if !texels_kept(textures) || last.size != key.size {
            return FrameDamage::Whole;
        }
        let (width, height, ppp) = key.size;
        let size = [width, height];
        let Some(mut rects) = changed_rects(&self.frame_shapes, shapes, ppp, size) else {
            return FrameDamage::Whole;
        };
        if last != key {
            // The views are drawn afresh, where they are now and where they were.
            let views = key.views.iter().chain(&last.views);
            rects.extend(views.filter_map(|v| {
                let [x0, y0, x1, y1] = v.0;
                let rect = egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1));
                pixel_rect(rect, ppp, 1.0, size)
            }));
        }
        if rects.is_empty() && last == key {
            return FrameDamage::Nothing;
        }
        if !self.partial_ui {
            return FrameDamage::Whole;
        }
        let rects = disjoint(rects, size);
        log::debug!(target: "dqview::damage", "damaged: {rects:?}");
        rects.map_or(FrameDamage::Whole, FrameDamage::Rects)
    }

    /// Records copying the last frame into `frame` outside `damaged` (of [`SceneCache::damage`]).
    pub fn restore_undamaged(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &wgpu::Texture,
        damaged: &[PixelRect],
    ) {
        let size = frame.size();
        let clean = super::ui_damage::clean_rects([size.width, size.height], damaged);
        self.frame.restore_rects(encoder, frame, &clean);
        self.partial_frames.0 += 1;
        let area = |r: &PixelRect| u64::from(r[2] - r[0]) * u64::from(r[3] - r[1]);
        self.partial_frames.1 += damaged.iter().map(area).sum::<u64>();
    }

    /// Records copying the whole cached frame into `frame` (after [`FrameDamage::Nothing`]).
    pub fn restore_frame(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &wgpu::Texture) {
        if self.frame.restore(encoder, frame) {
            // Its views are reused too.
            self.counts.0 += 1;
            self.whole_frames += 1;
        }
    }

    /// Records copying `frame`, whole: views of `key`, UI `shapes` over them.
    pub fn store_frame(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &wgpu::Texture,
        key: SceneKey,
        shapes: &[ClippedShape],
    ) {
        self.frame.store(encoder, frame, key);
        self.frame_shapes.clear();
        if self.frame.key.is_some() {
            self.frame_shapes.extend_from_slice(shapes);
        }
    }

    /// Forgets the pictures (the pipelines or the device were rebuilt).
    pub fn forget(&mut self) {
        self.views.key = None;
        self.frame.key = None;
    }
}

/// The size of `config`'s images.
fn extent(config: &wgpu::SurfaceConfiguration) -> wgpu::Extent3d {
    wgpu::Extent3d {
        width: config.width.max(1),
        height: config.height.max(1),
        depth_or_array_layers: 1,
    }
}
