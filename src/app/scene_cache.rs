//! The 3D views of the last frame, kept so a frame that changes only the UI (a hover, a
//! panel scrolled, the status line) copies them instead of drawing them again: on a
//! software rasterizer the 3D pass is about half of a frame.
//!
//! A frame reuses the views only when its [`SceneKey`] equals the one they were drawn
//! with: every input of the 3D pass is in the key, so a reused picture is the picture.
//! Where the UI did not change either (a still window redrawn, a pointer moved over
//! nothing), the whole last frame is copied and neither pass runs.

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

/// The last frame's 3D views, and the last whole frame (views and UI) drawn over reused views.
pub struct SceneCache {
    views: Snapshot<SceneKey>,
    /// Keyed by the views and the UI's fingerprint ([`ui_fingerprint`]).
    frame: Snapshot<(SceneKey, u64)>,
    /// Frames whose views were copied from the cache, and frames whose views were drawn.
    pub counts: (u64, u64),
    /// Frames copied whole (neither the views nor the UI changed), counted in `counts.0` too.
    pub whole_frames: u64,
}

impl SceneCache {
    /// A cache for a swapchain of `config`; none (every frame draws) unless its images allow
    /// copies in and out.
    #[must_use]
    pub fn new(ctx: &GpuContext, config: &wgpu::SurfaceConfiguration) -> Self {
        Self {
            views: Snapshot::new(ctx, config, "dqview::app::scene_cache"),
            frame: Snapshot::new(ctx, config, "dqview::app::frame_cache"),
            counts: (0, 0),
            whole_frames: 0,
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
        // Views that change keep changing (a playing clip): no whole frame is kept for them.
        self.frame.key = None;
        self.views.store(encoder, frame, key);
    }

    /// Records copying the cached views into `frame` (after [`SceneCache::holds`] said yes).
    pub fn restore(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &wgpu::Texture) {
        if self.views.restore(encoder, frame) {
            self.counts.0 += 1;
        }
    }

    /// Whether the cache holds the whole frame of views `key` under a UI of `ui` (its fingerprint).
    #[must_use]
    pub fn holds_frame(&self, key: &SceneKey, ui: Option<u64>) -> bool {
        // A key is kept only where the texture exists (`Snapshot::store`).
        ui.is_some_and(|ui| {
            self.frame
                .key
                .as_ref()
                .is_some_and(|(k, u)| *u == ui && k == key)
        })
    }

    /// Records copying the whole cached frame into `frame` (after [`SceneCache::holds_frame`]).
    pub fn restore_frame(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &wgpu::Texture) {
        if self.frame.restore(encoder, frame) {
            // Its views are reused too.
            self.counts.0 += 1;
            self.whole_frames += 1;
        }
    }

    /// Records copying `frame`, whole (views reused from `key`, UI `ui` drawn over them).
    pub fn store_frame(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &wgpu::Texture,
        key: SceneKey,
        ui: Option<u64>,
    ) {
        match ui {
            Some(ui) => self.frame.store(encoder, frame, (key, ui)),
            None => self.frame.key = None,
        }
    }

    /// Forgets the pictures (the pipelines or the device were rebuilt).
    pub fn forget(&mut self) {
        self.views.key = None;
        self.frame.key = None;
    }
}

/// A fingerprint of what the egui pass draws: its meshes, clip rectangles and textures;
/// `None` (never equal) when a texture changed this frame or a paint callback draws.
#[must_use]
pub fn ui_fingerprint(
    primitives: &[egui::ClippedPrimitive],
    textures: &egui::TexturesDelta,
) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    if !textures.set.is_empty() || !textures.free.is_empty() {
        return None;
    }
    let mut hasher = std::hash::DefaultHasher::new();
    for clipped in primitives {
        let egui::epaint::Primitive::Mesh(mesh) = &clipped.primitive else {
            return None;
        };
        let r = clipped.clip_rect;
        [r.min.x, r.min.y, r.max.x, r.max.y]
            .map(f32::to_bits)
            .hash(&mut hasher);
        mesh.texture_id.hash(&mut hasher);
        hasher.write(bytemuck::cast_slice(&mesh.indices));
        hasher.write(bytemuck::cast_slice(&mesh.vertices));
    }
    Some(hasher.finish())
}

/// The size of `config`'s images.
fn extent(config: &wgpu::SurfaceConfiguration) -> wgpu::Extent3d {
    wgpu::Extent3d {
        width: config.width.max(1),
        height: config.height.max(1),
        depth_or_array_layers: 1,
    }
}
