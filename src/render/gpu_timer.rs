//! GPU time of one pass from timestamp queries, where the device has them.

use super::{GpuContext, RenderError};

/// Bytes of two resolved timestamps (`u64` ticks each).
const RESOLVED_BYTES: u64 = 2 * size_of::<u64>() as u64;

/// A begin/end timestamp pair for one pass, resolved and read back after the submission.
///
/// Buffers are made once; each measurement writes, resolves and maps the same ones.
#[derive(Debug)]
pub struct GpuTimer {
    query_set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Nanoseconds per timestamp tick (`Queue::get_timestamp_period`).
    period_ns: f64,
}

impl GpuTimer {
    /// A timer, or `None` when the device has no `TIMESTAMP_QUERY`.
    pub fn new(ctx: &GpuContext) -> Result<Option<Self>, RenderError> {
        if !ctx.has_timestamps() {
            return Ok(None);
        }
        let timer = ctx.scoped("dqview::GpuTimer::new", || {
            let query_set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("dqview::GpuTimer::queries"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let buffer = |label, usage| {
                ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: RESOLVED_BYTES,
                    usage,
                    mapped_at_creation: false,
                })
            };
            Self {
                query_set,
                resolve: buffer(
                    "dqview::GpuTimer::resolve",
                    wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                ),
                readback: buffer(
                    "dqview::GpuTimer::readback",
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                ),
                period_ns: f64::from(ctx.queue.get_timestamp_period()),
            }
        })?;
        Ok(Some(timer))
    }

    /// Timestamp writes for a compute pass: query 0 at its start, 1 at its end.
    #[must_use]
    pub fn compute_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    /// Timestamp writes for a render pass: query 0 at its start, 1 at its end.
    #[must_use]
    pub fn render_writes(&self) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    /// Records the resolve and copy; call after the timed pass ends, in the same encoder.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.query_set, 0..2, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, RESOLVED_BYTES);
    }

    /// Milliseconds between the two timestamps; call after submitting the encoder of [`GpuTimer::resolve`].
    pub fn read_ms(&self, ctx: &GpuContext) -> Result<f64, RenderError> {
        const LABEL: &str = "dqview::GpuTimer::readback";
        let readback_error = |message: String| RenderError::Readback {
            label: LABEL,
            message,
        };
        let (sender, receiver) = std::sync::mpsc::channel();
        self.readback
            .map_async(wgpu::MapMode::Read, .., move |result| {
                // The receiver outlives the poll below; a send error cannot be acted on.
                let _ = sender.send(result);
            });
        ctx.device.poll(wgpu::PollType::wait_indefinitely())?;
        receiver
            .recv()
            .map_err(|e| readback_error(e.to_string()))?
            .map_err(|e| readback_error(e.to_string()))?;
        let ticks = {
            let view = self
                .readback
                .get_mapped_range(..)
                .map_err(|e| readback_error(e.to_string()))?;
            let ticks: &[u64] =
                bytemuck::try_cast_slice(&view).map_err(|e| readback_error(e.to_string()))?;
            match ticks {
                [begin, end] => end.wrapping_sub(*begin),
                _ => return Err(readback_error(format!("{} timestamps", ticks.len()))),
            }
        };
        self.readback.unmap();
        Ok(ticks as f64 * self.period_ns / 1e6)
    }
}
