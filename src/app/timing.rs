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
    /// Frames per second over the last window.
    pub fps: f32,
    /// Mean CPU milliseconds per frame over the last window.
    pub cpu_ms: f32,
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
            fps: 0.0,
            cpu_ms: 0.0,
        }
    }

    /// Seconds since the previous call (for animation), capped so a stall does not jump the clip.
    pub fn tick(&mut self) -> f32 {
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame).as_secs_f32();
        self.last_frame = now;
        dt.min(0.25)
    }

    /// Records one frame that took `cpu` on the CPU.
    pub fn record(&mut self, cpu: Duration) {
        self.frames += 1;
        self.cpu += cpu;
        let elapsed = self.window_start.elapsed();
        if elapsed >= Duration::from_millis(500) {
            self.fps = self.frames as f32 / elapsed.as_secs_f32();
            self.cpu_ms = self.cpu.as_secs_f32() * 1000.0 / self.frames as f32;
            self.frames = 0;
            self.cpu = Duration::ZERO;
            self.window_start = Instant::now();
        }
    }
}

/// Readback buffer states.
const IDLE: u8 = 0;
const MAPPING: u8 = 1;
const READY: u8 = 2;

/// GPU time of a frame from two timestamps: start of the 3D pass, end of the UI pass.
#[derive(Debug)]
pub struct GpuTimer {
    query_set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    state: Arc<AtomicU8>,
    period_ns: f32,
    /// The last measured GPU frame time, milliseconds.
    pub last_ms: Option<f32>,
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
            count: 2,
        });
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 16,
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
        })
    }

    /// Whether this frame can be timed (the previous readback is done).
    #[must_use]
    pub fn can_time(&self) -> bool {
        self.state.load(Ordering::Acquire) == IDLE
    }

    /// Timestamp writes for the first pass (`start`) or the last pass.
    #[must_use]
    pub fn writes(&self, start: bool) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: start.then_some(0),
            end_of_pass_write_index: (!start).then_some(1),
        }
    }

    /// Copies the timestamps out; call after both passes were recorded.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.query_set, 0..2, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, 16);
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
            if let [start, end] = ticks {
                let ns = end.saturating_sub(*start) as f64 * f64::from(self.period_ns);
                self.last_ms = Some((ns / 1e6) as f32);
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
        }
    }
}
