//! Rendering into textures and reading the pixels back (tests, thumbnails, `dqview render`).

use super::renderer::{DEPTH_FORMAT, Renderer};
use super::{GpuContext, RenderError};

/// An 8-bit RGBA image, rows top to bottom, sRGB-encoded (ready for a PNG).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

/// The textures of one offscreen frame: multisampled colour and depth, resolved colour.
#[derive(Debug)]
pub struct OffscreenTarget {
    /// Multisampled colour (or the resolve texture itself at 1 sample).
    msaa_view: Option<wgpu::TextureView>,
    /// Single-sample colour that is copied out.
    resolve: wgpu::Texture,
    resolve_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
}

impl OffscreenTarget {
    /// Creates the textures for `renderer`'s size and sample count.
    pub fn new(ctx: &GpuContext, renderer: &Renderer) -> Result<Self, RenderError> {
        let s = renderer.settings();
        Self::sized(ctx, renderer, [s.width, s.height])
    }

    /// Creates the textures for `renderer`'s colour format and sample count at `width` x
    /// `height` pixels (each at least 1).
    pub fn sized(
        ctx: &GpuContext,
        renderer: &Renderer,
        [width, height]: [u32; 2],
    ) -> Result<Self, RenderError> {
        let s = renderer.settings();
        let color_format = s.color_format;
        let size = wgpu::Extent3d {
            width: width.max(1),
            height: height.max(1),
            depth_or_array_layers: 1,
        };
        ctx.scoped("dqview::OffscreenTarget::new", || {
            let texture = |label, format, sample_count, usage| {
                ctx.device.create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size,
                    mip_level_count: 1,
                    sample_count,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
            };
            let attachment = wgpu::TextureUsages::RENDER_ATTACHMENT;
            let resolve = texture(
                "dqview::OffscreenTarget::color",
                color_format,
                1,
                attachment | wgpu::TextureUsages::COPY_SRC,
            );
            let msaa_view = (s.sample_count > 1).then(|| {
                texture(
                    "dqview::OffscreenTarget::color_msaa",
                    color_format,
                    s.sample_count,
                    attachment,
                )
                .create_view(&wgpu::TextureViewDescriptor::default())
            });
            let depth = texture(
                "dqview::OffscreenTarget::depth",
                DEPTH_FORMAT,
                s.sample_count,
                attachment,
            );
            Self {
                msaa_view,
                resolve_view: resolve.create_view(&wgpu::TextureViewDescriptor::default()),
                resolve,
                depth_view: depth.create_view(&wgpu::TextureViewDescriptor::default()),
            }
        })
    }

    /// Begins a render pass that clears colour to `background` and depth to 1.
    pub fn begin_pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        background: [f64; 4],
    ) -> wgpu::RenderPass<'e> {
        self.begin_pass_timed(encoder, background, None)
    }

    /// [`OffscreenTarget::begin_pass`] with GPU timestamps written at the pass's start and end.
    pub fn begin_pass_timed<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        background: [f64; 4],
        timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> wgpu::RenderPass<'e> {
        let (color, resolve) = self.color_attachment();
        begin_scene_pass(
            encoder,
            color,
            resolve,
            &self.depth_view,
            Some(background),
            timestamp_writes,
        )
    }

    /// The view drawn into, and the one it resolves into when multisampled.
    fn color_attachment(&self) -> (&wgpu::TextureView, Option<&wgpu::TextureView>) {
        match &self.msaa_view {
            Some(msaa) => (msaa, Some(&self.resolve_view)),
            None => (&self.resolve_view, None),
        }
    }

    /// Begins a render pass that keeps the colour and depth the last pass stored.
    pub fn begin_pass_continued<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
    ) -> wgpu::RenderPass<'e> {
        let (color, resolve) = self.color_attachment();
        begin_scene_pass(encoder, color, resolve, &self.depth_view, None, None)
    }

    /// Reads the resolved colour back, without the row padding of the copy.
    pub fn read_rgba(&self, ctx: &GpuContext) -> Result<RgbaImage, RenderError> {
        let (width, height) = (self.resolve.width(), self.resolve.height());
        // Texture-to-buffer copies need rows padded to 256 bytes.
        let row = width * 4;
        let padded =
            row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buffer = ctx.scoped("dqview::OffscreenTarget::read_rgba", || {
            let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("dqview::OffscreenTarget::pixels"),
                size: u64::from(padded) * u64::from(height),
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let mut encoder = ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("dqview::OffscreenTarget::copy"),
                });
            encoder.copy_texture_to_buffer(
                self.resolve.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer: &buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(padded),
                        rows_per_image: Some(height),
                    },
                },
                self.resolve.size(),
            );
            ctx.queue.submit([encoder.finish()]);
            buffer
        })?;
        let bytes = ctx.read_buffer(&buffer, "dqview::OffscreenTarget::readback")?;
        let mut pixels: Vec<u8> = bytes
            .chunks(padded as usize)
            .flat_map(|r| r.get(..row as usize).unwrap_or(&[]))
            .copied()
            .collect();
        // A window's renderer may draw BGRA: the image is RGBA whatever the target.
        if matches!(
            self.resolve.format(),
            wgpu::TextureFormat::Bgra8UnormSrgb | wgpu::TextureFormat::Bgra8Unorm
        ) {
            for px in pixels.chunks_exact_mut(4) {
                px.swap(0, 2);
            }
        }
        Ok(RgbaImage {
            width,
            height,
            pixels,
        })
    }
}

/// Begins the 3D pass every renderer target uses: colour cleared to `background` (resolved into
/// `resolve` when multisampled) and depth to 1, or with `None` both kept from the last pass.
pub fn begin_scene_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    color: &wgpu::TextureView,
    resolve: Option<&wgpu::TextureView>,
    depth: &wgpu::TextureView,
    background: Option<[f64; 4]>,
    timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
) -> wgpu::RenderPass<'e> {
    let (color_load, depth_load) = match background {
        Some([r, g, b, a]) => (
            wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
            wgpu::LoadOp::Clear(1.0),
        ),
        None => (wgpu::LoadOp::Load, wgpu::LoadOp::Load),
    };
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("dqview::scene_pass"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: color,
            depth_slice: None,
            resolve_target: resolve,
            ops: wgpu::Operations {
                load: color_load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: depth,
            // Stored so that a continued pass (a draw split over submissions) depth-tests against it.
            depth_ops: Some(wgpu::Operations {
                load: depth_load,
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        }),
        timestamp_writes,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}
