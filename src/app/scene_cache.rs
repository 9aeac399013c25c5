//! The 3D views of the last frame, kept so a frame that changes only the UI (a hover, a
//! panel scrolled, the status line) copies them instead of drawing them again: on a
//! software rasterizer the 3D pass is about half of a frame.
//!
//! A frame reuses the views only when its [`SceneKey`] equals the one they were drawn
//! with: every input of the 3D pass is in the key, so a reused picture is the picture.

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
    /// Each view's rectangle (points), mode, camera and debug-view parameters.
    pub views: Vec<([f32; 4], SkinningMode, Camera, ViewParams)>,
    /// The model's and the grid's GPU data revisions.
    pub revisions: [Vec<u64>; 2],
}

/// A copy of the last frame's 3D views and the key they were drawn with.
pub struct SceneCache {
    /// Swapchain-sized, same format; `None` where the swapchain cannot be copied both ways.
    texture: Option<wgpu::Texture>,
    key: Option<SceneKey>,
    /// Frames whose views were copied from the cache, and frames whose views were drawn.
    pub counts: (u64, u64),
}

impl SceneCache {
    /// A cache for a swapchain of `config`; none (every frame draws) unless its images allow
    /// copies in and out.
    #[must_use]
    pub fn new(ctx: &GpuContext, config: &wgpu::SurfaceConfiguration) -> Self {
        let both = wgpu::TextureUsages::COPY_SRC | wgpu::TextureUsages::COPY_DST;
        let texture = config.usage.contains(both).then(|| {
            ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("dqview::app::scene_cache"),
                size: extent(config),
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: config.format,
                usage: both,
                view_formats: &[],
            })
        });
        Self {
            texture,
            key: None,
            counts: (0, 0),
        }
    }

    /// Whether the cache holds the views `key` describes.
    #[must_use]
    pub fn holds(&self, key: &SceneKey) -> bool {
        self.texture.is_some() && self.key.as_ref() == Some(key)
    }

    /// Records copying `frame` (its 3D views just drawn with `key`) into the cache.
    pub fn store(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &wgpu::Texture,
        key: SceneKey,
    ) {
        self.counts.1 += 1;
        let Some(texture) = &self.texture else {
            return;
        };
        if texture.size() != frame.size() {
            self.key = None;
            return;
        }
        encoder.copy_texture_to_texture(
            frame.as_image_copy(),
            texture.as_image_copy(),
            texture.size(),
        );
        self.key = Some(key);
    }

    /// Records copying the cached views into `frame` (after [`SceneCache::holds`] said yes).
    pub fn restore(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &wgpu::Texture) {
        if let Some(texture) = &self.texture {
            self.counts.0 += 1;
            encoder.copy_texture_to_texture(
                texture.as_image_copy(),
                frame.as_image_copy(),
                texture.size(),
            );
        }
    }

    /// Forgets the views (the pipelines or the device were rebuilt).
    pub fn forget(&mut self) {
        self.key = None;
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
