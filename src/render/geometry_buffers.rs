//! Making and writing a geometry's storage buffers: filled in chunks straight into mapped
//! memory, optional buffers written in place or replaced, and a 16-byte stand-in for absent ones.

use wgpu::util::DeviceExt;

use super::{GpuContext, RenderError};

/// Items packed per chunk while filling a buffer.
const CHUNK_ITEMS: usize = 16_384;

/// Buffers at least this big are handed to the GPU (and their staging copy freed) at once.
const FLUSH_BYTES: u64 = 16 << 20;

/// A storage buffer of `items` x `words` u32 words, packed `CHUNK_ITEMS` items at a time
/// by `push(item, out)` straight into mapped memory.
pub(super) fn filled(
    ctx: &GpuContext,
    name: &'static str,
    usage: wgpu::BufferUsages,
    items: usize,
    words: usize,
    mut push: impl FnMut(usize, &mut Vec<u32>),
) -> Result<wgpu::Buffer, RenderError> {
    let bytes = (items * words * 4).max(16) as u64;
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(name),
        size: bytes,
        usage,
        mapped_at_creation: true,
    });
    {
        let mut view = buffer
            .get_mapped_range_mut(..)
            .map_err(|e| RenderError::Wgpu {
                during: "dqview::GpuGeometry::new (mapping)",
                message: e.to_string(),
            })?;
        let mut chunk: Vec<u32> = Vec::with_capacity(CHUNK_ITEMS * words);
        let mut at = 0usize;
        for start in (0..items).step_by(CHUNK_ITEMS) {
            chunk.clear();
            for item in start..(start + CHUNK_ITEMS).min(items) {
                push(item, &mut chunk);
            }
            let part: &[u8] = bytemuck::cast_slice(&chunk);
            view.slice(at..at + part.len()).copy_from_slice(part);
            at += part.len();
        }
    }
    buffer.unmap();
    // The upload went through a staging copy as big as the buffer; hand it over now, so a big
    // mesh never holds the staging copies of all its buffers at once.
    if bytes >= FLUSH_BYTES {
        ctx.queue.submit([]);
        ctx.device.poll(wgpu::PollType::wait_indefinitely())?;
    }
    Ok(buffer)
}

/// A 16-byte storage buffer standing in for an absent optional one.
pub(super) fn empty_buffer(ctx: &GpuContext, name: &'static str) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(name),
        size: 16,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    })
}

/// The index range from the first to the last value that differs (bit for bit), if any.
#[must_use]
pub(super) fn changed_span(old: &[f32], new: &[f32]) -> Option<std::ops::Range<usize>> {
    let differs = |(a, b): (&f32, &f32)| a.to_bits() != b.to_bits();
    let first = old.iter().zip(new).position(differs)?;
    let last = old.iter().zip(new).rposition(differs)?;
    Some(first..last + 1)
}

/// Writes `bytes` into `slot` (creating the buffer when missing or of another size), or drops
/// it for `None`; true when the buffer itself changed (the bind groups must be remade).
pub(super) fn write_optional(
    ctx: &GpuContext,
    slot: &mut Option<wgpu::Buffer>,
    name: &'static str,
    bytes: Option<&[u8]>,
) -> bool {
    match (bytes, slot.as_ref()) {
        (None, None) => false,
        (None, Some(_)) => {
            *slot = None;
            true
        }
        (Some(b), Some(buffer)) if buffer.size() == b.len() as u64 => {
            ctx.queue.write_buffer(buffer, 0, b);
            false
        }
        (Some(b), _) => {
            *slot = Some(
                ctx.device
                    .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some(name),
                        contents: b,
                        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                    }),
            );
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::changed_span;

    #[test]
    fn changed_span_covers_the_first_to_the_last_changed_value() {
        let old = [0.0, 0.5, 1.0, 1.0, 0.25];
        assert_eq!(changed_span(&old, &old), None);
        assert_eq!(changed_span(&old, &[0.0, 0.6, 1.0, 0.9, 0.25]), Some(1..4));
        assert_eq!(changed_span(&old, &[1.0, 0.5, 1.0, 1.0, 0.0]), Some(0..5));
        // Bit for bit: -0.0 is a change the shader would see (it reads the bits it is given).
        assert_eq!(changed_span(&[0.0], &[-0.0]), Some(0..1));
    }
}
