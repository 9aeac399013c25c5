//! Writing the window's image to a PNG: a copy of the swapchain image (or an offscreen twin).

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::render::GpuContext;

/// A texture-to-buffer copy in flight, with what is needed to decode it.
pub struct PendingCopy {
    buffer: wgpu::Buffer,
    width: u32,
    height: u32,
    padded_row: u32,
    format: wgpu::TextureFormat,
}

/// Records a copy of `texture` (which needs `COPY_SRC`) into a new readback buffer.
#[must_use]
pub fn copy_texture(
    ctx: &GpuContext,
    encoder: &mut wgpu::CommandEncoder,
    texture: &wgpu::Texture,
) -> PendingCopy {
    let (width, height) = (texture.width(), texture.height());
    // Texture-to-buffer copies need rows padded to 256 bytes.
    let padded_row = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
        * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("dqview::app::screenshot"),
        size: u64::from(padded_row) * u64::from(height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded_row),
                rows_per_image: Some(height),
            },
        },
        texture.size(),
    );
    PendingCopy {
        buffer,
        width,
        height,
        padded_row,
        format: texture.format(),
    }
}

impl PendingCopy {
    /// Waits for the copy (after submission): its pixels as RGB rows, top to bottom.
    pub fn rgb(self, ctx: &GpuContext) -> Result<Vec<u8>> {
        let swap_rb = match self.format {
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb => true,
            wgpu::TextureFormat::Rgba8Unorm | wgpu::TextureFormat::Rgba8UnormSrgb => false,
            other => bail!("cannot write a {other:?} image as PNG"),
        };
        let bytes = ctx.read_buffer(&self.buffer, "dqview::app::screenshot_readback")?;
        let row = (self.width * 4) as usize;
        let mut pixels = Vec::with_capacity(row * self.height as usize);
        for chunk in bytes
            .chunks(self.padded_row as usize)
            .take(self.height as usize)
        {
            let line = chunk.get(..row).context("short screenshot row")?;
            for px in line.chunks_exact(4) {
                let (r, g, b) = if swap_rb {
                    (px[2], px[1], px[0])
                } else {
                    (px[0], px[1], px[2])
                };
                // The window is opaque: alpha from the surface carries no meaning.
                pixels.extend_from_slice(&[r, g, b]);
            }
        }
        Ok(pixels)
    }

    /// Waits for the copy (after submission) and writes it to `path` as an RGB PNG.
    pub fn write_png(self, ctx: &GpuContext, path: &Path) -> Result<()> {
        let (width, height) = (self.width, self.height);
        let pixels = self.rgb(ctx)?;
        let file = std::fs::File::create(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        // Best compression keeps README screenshots small; it costs milliseconds once.
        let encoder = image::codecs::png::PngEncoder::new_with_quality(
            std::io::BufWriter::new(file),
            image::codecs::png::CompressionType::Best,
            image::codecs::png::FilterType::Adaptive,
        );
        image::ImageEncoder::write_image(
            encoder,
            &pixels,
            width,
            height,
            image::ExtendedColorType::Rgb8,
        )
        .with_context(|| format!("cannot write {}", path.display()))
    }
}
