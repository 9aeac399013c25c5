//! The GPU context: instance, adapter, device and queue, set up in one place.

use super::RenderError;

/// Everything dqview needs to talk to one GPU.
#[derive(Debug)]
pub struct GpuContext {
    /// The wgpu instance (kept so surfaces can be made later).
    pub instance: wgpu::Instance,
    /// The adapter the device was created on.
    pub adapter: wgpu::Adapter,
    /// The logical device.
    pub device: wgpu::Device,
    /// The device's queue.
    pub queue: wgpu::Queue,
    /// The adapter's name, backend and device type, for logs and reports.
    pub info: wgpu::AdapterInfo,
}

/// The limits dqview asks for: WebGPU's defaults (64 KiB uniform bindings, 2048 dual
/// quaternions; 8 storage buffers a stage), with the adapter's own buffer and storage-binding
/// sizes, so big meshes are not held to WebGPU's 128 MiB bindings where the adapter allows more.
#[must_use]
pub fn requested_limits(adapter: &wgpu::Adapter) -> wgpu::Limits {
    let supported = adapter.limits();
    let defaults = wgpu::Limits::default();
    wgpu::Limits {
        max_buffer_size: supported.max_buffer_size.max(defaults.max_buffer_size),
        max_storage_buffer_binding_size: supported
            .max_storage_buffer_binding_size
            .max(defaults.max_storage_buffer_binding_size),
        ..defaults
    }
}

impl GpuContext {
    /// Creates a context with no window: for compute skinning, offscreen rendering and tests.
    ///
    /// Backends can be narrowed with `WGPU_BACKEND` (e.g. `vulkan` to stop a fall-back to GL).
    pub fn headless() -> Result<Self, RenderError> {
        pollster::block_on(Self::headless_async())
    }

    /// Async form of [`GpuContext::headless`].
    pub async fn headless_async() -> Result<Self, RenderError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                apply_limit_buckets: false,
            })
            .await
            .map_err(|e| RenderError::NoAdapter {
                reason: e.to_string(),
            })?;
        Self::from_adapter(instance, adapter).await
    }

    /// Creates the device and queue on `adapter`.
    pub async fn from_adapter(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
    ) -> Result<Self, RenderError> {
        let info = adapter.get_info();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("dqview::GpuContext::device"),
                required_limits: requested_limits(&adapter),
                // Timestamps time the skinning pass alone (`dqview bench`) where the adapter has them.
                required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
                ..Default::default()
            })
            .await
            .map_err(|source| RenderError::RequestDevice {
                adapter: info.name.clone(),
                source,
            })?;
        log::info!(
            "GPU adapter: {} ({:?}, {:?})",
            info.name,
            info.backend,
            info.device_type
        );
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
            info,
        })
    }

    /// Whether vertex shaders may read storage buffers (needed for big palettes and LBS matrices).
    #[must_use]
    pub fn has_vertex_storage(&self) -> bool {
        self.adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::VERTEX_STORAGE)
    }

    /// Whether GPU timestamp queries may be written at pass boundaries.
    #[must_use]
    pub fn has_timestamps(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    /// One line naming the adapter: `name (backend, device type)`.
    #[must_use]
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }

    /// Runs `f` with wgpu's validation and out-of-memory errors captured, not panicking.
    ///
    /// wgpu's default handler panics on an uncaptured error; library code
    /// returns it as [`RenderError::Wgpu`] instead. Error scopes are per thread.
    pub fn scoped<T>(&self, during: &'static str, f: impl FnOnce() -> T) -> Result<T, RenderError> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = f();
        let validation = pollster::block_on(validation.pop());
        let oom = pollster::block_on(oom.pop());
        match validation.or(oom) {
            Some(e) => Err(RenderError::Wgpu {
                during,
                message: e.to_string(),
            }),
            None => Ok(value),
        }
    }

    /// Copies `buffer` (which needs `COPY_SRC`) to the CPU and waits for it.
    pub fn read_buffer(
        &self,
        buffer: &wgpu::Buffer,
        label: &'static str,
    ) -> Result<Vec<u8>, RenderError> {
        let size = buffer.size();
        let staging = self.scoped(label, || {
            let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
            encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
            self.queue.submit([encoder.finish()]);
            staging
        })?;
        let (sender, receiver) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |result| {
            // The receiver outlives the poll below; a send error cannot be acted on.
            let _ = sender.send(result);
        });
        self.device.poll(wgpu::PollType::wait_indefinitely())?;
        let mapped = receiver.recv().map_err(|e| RenderError::Readback {
            label,
            message: e.to_string(),
        })?;
        mapped.map_err(|e| RenderError::Readback {
            label,
            message: e.to_string(),
        })?;
        let bytes = {
            let view = staging
                .get_mapped_range(..)
                .map_err(|e| RenderError::Readback {
                    label,
                    message: e.to_string(),
                })?;
            view.to_vec()
        };
        staging.unmap();
        Ok(bytes)
    }
}
