//! Frame timing: frames per second, CPU time per frame, GPU time from timestamp queries.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

/// Averages frame rate and CPU time over about half a second.
#[derive(Debug)]
pub struct FrameClock {
    window_start: Instant,
    frames: u32,
    cpu: Duration,
    last_frame: Instant,
    /// Whether a frame of the current window was drawn on demand (after a pause).
    paused: bool,
    /// Frames per second over the last window (0 while drawing on demand).
    pub fps: f32,
    /// Whether the last window had pauses between frames (drawing on demand, not continuously).
    pub on_demand: bool,
    /// Mean CPU milliseconds per frame over the last window.
    pub cpu_ms: f32,
    /// Windows closed so far: the status line refreshes when this moves, a few times a second.
    pub windows: u64,
}

impl FrameClock {
    /// Starts counting now.
    #[must_use]
    pub fn new() -> Self {
        let now = Instant::now();
        Self {
            window_start: now,
            frames: 0,
            cpu: Duration::ZERO,
            last_frame: now,
            paused: false,
            fps: 0.0,
            on_demand: false,
            cpu_ms: 0.0,
            windows: 0,
        }
    }

    /// Time since the previous call. `continuous`: the previous frame asked for this one at
    /// once (else the viewer had paused, and the rate is not a frame rate).
    pub fn interval(&mut self, continuous: bool) -> Duration {
        let now = Instant::now();
        let gap = now.duration_since(self.last_frame);
        self.last_frame = now;
        self.paused |= !continuous;
        gap
    }

    /// Records one frame that took `cpu` on the CPU.
    pub fn record(&mut self, cpu: Duration) {
        self.frames += 1;
        self.cpu += cpu;
        let elapsed = self.window_start.elapsed();
        // After a pause the rate says how often something changed, not how fast frames are.
        let idle = self.paused;
        if elapsed >= Duration::from_millis(500) || idle {
            self.on_demand = idle;
            self.fps = if idle {
                0.0
            } else {
                self.frames as f32 / elapsed.as_secs_f32()
            };
            self.cpu_ms = self.cpu.as_secs_f32() * 1000.0 / self.frames as f32;
            self.frames = 0;
            self.cpu = Duration::ZERO;
            self.paused = false;
            self.window_start = Instant::now();
            self.windows += 1;
        }
    }
}

/// Readback buffer states.
const IDLE: u8 = 0;
const MAPPING: u8 = 1;
const READY: u8 = 2;

/// GPU time of a frame from four timestamps: start and end of the 3D pass and of the UI pass.
#[derive(Debug)]
pub struct GpuTimer {
    query_set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    state: Arc<AtomicU8>,
    period_ns: f32,
    /// The last measured GPU frame time (start of the 3D pass to end of the UI pass), ms.
    pub last_ms: Option<f32>,
    /// Sums over every measured frame: 3D pass ms, UI pass ms, frames.
    pub sums: PassSums,
}

/// GPU pass times summed over the measured frames.
#[derive(Clone, Copy, Debug, Default)]
pub struct PassSums {
    /// 3D pass (every pane), milliseconds.
    pub scene_ms: f64,
    /// egui pass, milliseconds.
    pub ui_ms: f64,
    /// Frames measured.
    pub frames: u64,
}

impl PassSums {
    /// One line: mean ms of each pass, or `None` before any frame was measured.
    #[must_use]
    pub fn summary(&self) -> Option<String> {
        let n = self.frames as f64;
        (self.frames > 0).then(|| {
            format!(
                "GPU timestamps over {} frames: 3D pass {:.3} ms, UI pass {:.3} ms (mean)",
                self.frames,
                self.scene_ms / n,
                self.ui_ms / n
            )
        })
    }
}

impl GpuTimer {
    /// A timer, or `None` when the device has no timestamp queries.
    #[must_use]
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let query_set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("dqview::GpuTimer::queries"),
            ty: wgpu::QueryType::Timestamp,
            count: 4,
        });
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 32,
                usage,
                mapped_at_creation: false,
            })
        };
        Some(Self {
            query_set,
            resolve: buffer(
                "dqview::GpuTimer::resolve",
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            ),
            readback: buffer(
                "dqview::GpuTimer::readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            state: Arc::new(AtomicU8::new(IDLE)),
            period_ns: queue.get_timestamp_period(),
            last_ms: None,
            sums: PassSums::default(),
        })
    }

    /// Whether this frame can be timed (the previous readback is done).
    #[must_use]
    pub fn can_time(&self) -> bool {
        self.state.load(Ordering::Acquire) == IDLE
    }

    /// Timestamp writes for the 3D pass (`scene`) or the UI pass: its start and end.
    #[must_use]
    pub fn writes(&self, scene: bool) -> wgpu::RenderPassTimestampWrites<'_> {
        let first = if scene { 0 } else { 2 };
        wgpu::RenderPassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(first),
            end_of_pass_write_index: Some(first + 1),
        }
    }

    /// Copies the timestamps out; call after both passes were recorded.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.query_set, 0..4, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, 32);
    }

    /// Starts mapping the readback; call after the frame was submitted.
    pub fn after_submit(&self) {
        self.state.store(MAPPING, Ordering::Release);
        let state = self.state.clone();
        self.readback
            .map_async(wgpu::MapMode::Read, .., move |result| {
                state.store(if result.is_ok() { READY } else { IDLE }, Ordering::Release);
            });
    }

    /// Reads a finished measurement, if one is ready (polls the device without waiting).
    pub fn collect(&mut self, device: &wgpu::Device) {
        if self.state.load(Ordering::Acquire) == MAPPING {
            let _ = device.poll(wgpu::PollType::Poll);
        }
        if self.state.load(Ordering::Acquire) != READY {
            return;
        }
        if let Ok(view) = self.readback.get_mapped_range(..) {
            let ticks: &[u64] = bytemuck::cast_slice(&view);
            if let [scene_start, scene_end, ui_start, ui_end] = ticks {
                let ms = |a: &u64, b: &u64| {
                    b.saturating_sub(*a) as f64 * f64::from(self.period_ns) / 1e6
                };
                self.last_ms = Some(ms(scene_start, ui_end) as f32);
                self.sums.scene_ms += ms(scene_start, scene_end);
                self.sums.ui_ms += ms(ui_start, ui_end);
                self.sums.frames += 1;
            }
        }
        self.readback.unmap();
        self.state.store(IDLE, Ordering::Release);
    }
}

/// How the viewer is doing: frame rate, GPU time, frames so far, when it started.
pub struct FrameStats {
    /// Frame rate and CPU time.
    pub clock: FrameClock,
    /// GPU time of the 3D and UI passes, where the device has timestamps.
    pub timer: Option<GpuTimer>,
    /// Frames presented so far.
    pub frames: u64,
    /// When the window was created.
    pub started: Instant,
    /// Milliseconds between the starts of consecutive frames (the first 100,000).
    pub intervals_ms: Vec<f32>,
    /// The clock window whose GPU time the status line shows.
    pub status_window: u64,
}

/// Median, 95th percentile and longest frame interval, ms, skipping the first `skip` frames.
#[must_use]
pub fn interval_summary(intervals_ms: &[f32], skip: usize) -> Option<(f32, f32, f32)> {
    let mut sorted: Vec<f32> = intervals_ms.iter().skip(skip).copied().collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f32::total_cmp);
    let at = |q: f32| sorted[((sorted.len() - 1) as f32 * q).round() as usize];
    Some((at(0.5), at(0.95), sorted[sorted.len() - 1]))
}

impl FrameStats {
    /// Starts counting now, timing on `device` where it can.
    #[must_use]
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        Self {
            clock: FrameClock::new(),
            timer: GpuTimer::new(device, queue),
            frames: 0,
            started: Instant::now(),
            intervals_ms: Vec::new(),
            status_window: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_summary_skips_start_up_and_reads_median_p95_and_longest() {
        // 5 start-up frames of 500 ms, then 1..=100 ms.
        let mut ms = vec![500.0; 5];
        ms.extend((1..=100).map(|i| i as f32));
        let (median, p95, longest) = interval_summary(&ms, 5).expect("frames");
        assert_eq!((median, p95, longest), (51.0, 95.0, 100.0));
        assert_eq!(interval_summary(&ms[..5], 5), None);
    }
}
