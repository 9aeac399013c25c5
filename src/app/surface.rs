//! The window's GPU side: device, surface configuration, depth and MSAA targets.

use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow};
use winit::window::Window;

use crate::render::{DEPTH_FORMAT, GpuContext};

/// The window, the device and the window surface it draws to.
pub struct WindowGpu {
    /// The window.
    pub window: Arc<Window>,
    /// The display connection, for surfaces of a recreated device.
    pub display: winit::event_loop::OwnedDisplayHandle,
    /// Device, queue, adapter.
    pub ctx: GpuContext,
    /// The window's surface.
    pub surface: wgpu::Surface<'static>,
    /// Current surface configuration (size 0 x 0 never reaches it: see [`WindowGpu::resize`]).
    pub config: wgpu::SurfaceConfiguration,
    /// Whether swapchain images can be copied out (screenshots without a second render).
    pub copy_src: bool,
    /// MSAA samples of the 3D pass.
    pub samples: u32,
    /// Depth target and, with MSAA, the multisampled colour target, sized to the surface.
    pub targets: Targets,
    /// Whether the window currently has a drawable area.
    pub visible: bool,
    /// GPU faults reported by wgpu's callbacks, for the frame loop to act on.
    pub faults: Arc<GpuFaults>,
}

/// What wgpu reported from its callbacks since the frame loop last looked.
#[derive(Debug, Default)]
pub struct GpuFaults {
    /// Set when the device is lost: the reason, in words.
    pub lost: Mutex<Option<String>>,
    /// The latest error that no error scope caught.
    pub uncaptured: Mutex<Option<String>>,
}

impl GpuFaults {
    /// Takes the device-lost reason, if the device was lost.
    pub fn take_lost(&self) -> Option<String> {
        self.lost.lock().ok().and_then(|mut l| l.take())
    }

    /// Takes the latest uncaptured error, if any.
    pub fn take_uncaptured(&self) -> Option<String> {
        self.uncaptured.lock().ok().and_then(|mut e| e.take())
    }
}

/// Per-size render targets of the 3D pass.
pub struct Targets {
    /// Depth, `samples` per pixel.
    pub depth: wgpu::TextureView,
    /// Multisampled colour to resolve from, when `samples > 1`.
    pub msaa: Option<wgpu::TextureView>,
    /// The last frame's 3D views, reused while nothing they show changed.
    pub scene: super::scene_cache::SceneCache,
}

impl Targets {
    fn new(ctx: &GpuContext, config: &wgpu::SurfaceConfiguration, samples: u32) -> Self {
        let size = wgpu::Extent3d {
            width: config.width.max(1),
            height: config.height.max(1),
            depth_or_array_layers: 1,
        };
        let make = |label, format| {
            ctx.device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size,
                    mip_level_count: 1,
                    sample_count: samples,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor::default())
        };
        Self {
            depth: make("dqview::app::depth", DEPTH_FORMAT),
            msaa: (samples > 1).then(|| make("dqview::app::color_msaa", config.format)),
            scene: super::scene_cache::SceneCache::new(ctx, config),
        }
    }
}

impl WindowGpu {
    /// Whether the adapter is a software rasterizer (lavapipe, llvmpipe, WARP).
    pub(super) fn is_software(&self) -> bool {
        self.ctx.info.device_type == wgpu::DeviceType::Cpu
    }

    /// An egui renderer for the surface format. No dithering on a software rasterizer:
    /// its noise is below one 8-bit step and costs per pixel there.
    pub(super) fn egui_renderer(&self) -> egui_wgpu::Renderer {
        let options = egui_wgpu::RendererOptions {
            dithering: !self.is_software(),
            ..egui_wgpu::RendererOptions::default()
        };
        egui_wgpu::Renderer::new(&self.ctx.device, self.config.format, options)
    }

    /// An egui context; on a software rasterizer shapes have no feathered (anti-aliased)
    /// edges, which halves their triangles (text keeps its anti-aliasing).
    pub(super) fn egui_context(&self) -> egui::Context {
        let ctx = egui::Context::default();
        if self.is_software() {
            ctx.tessellation_options_mut(|o| o.feathering = false);
        }
        ctx
    }

    /// Creates the instance, surface, adapter and device for `window`.
    ///
    /// The device asks for timestamp queries where the adapter has them (GPU frame time).
    /// `msaa` samples per pixel, or `None`: 4 on a GPU, 1 on a software rasterizer such as
    /// lavapipe, where 4x MSAA roughly halves the frame rate.
    pub fn new(
        display: winit::event_loop::OwnedDisplayHandle,
        window: Arc<Window>,
        msaa: Option<u32>,
    ) -> Result<Self> {
        let instance = wgpu::Instance::new(
            wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(display.clone())),
        );
        let surface = instance.create_surface(window.clone()).context(
            "cannot create a drawing surface for the window (no GPU driver? without a GPU \
                 install Mesa's lavapipe, mesa-vulkan-drivers, and set WGPU_BACKEND=vulkan)",
        )?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
            apply_limit_buckets: false,
        }))
        .map_err(|e| {
            anyhow!(crate::render::RenderError::NoAdapter {
                reason: e.to_string()
            })
        })?;
        let features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
        let info = adapter.get_info();
        let samples = msaa.unwrap_or(if info.device_type == wgpu::DeviceType::Cpu {
            1
        } else {
            4
        });
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("dqview::app::device"),
            required_features: features,
            required_limits: crate::render::requested_limits(&adapter),
            ..Default::default()
        }))
        .with_context(|| format!("cannot create a GPU device on {}", info.name))?;
        let faults = Arc::new(GpuFaults::default());
        // wgpu's default handler panics; a viewer logs, shows the error and carries on instead.
        let sink = faults.clone();
        device.on_uncaptured_error(Arc::new(move |e| {
            log::error!("GPU error: {e}");
            if let Ok(mut slot) = sink.uncaptured.lock() {
                *slot = Some(e.to_string());
            }
        }));
        let sink = faults.clone();
        device.set_device_lost_callback(move |reason, message| {
            log::error!("GPU device lost ({reason:?}): {message}");
            if let Ok(mut slot) = sink.lost.lock() {
                *slot = Some(if message.is_empty() {
                    format!("{reason:?}")
                } else {
                    format!("{reason:?}: {message}")
                });
            }
        });
        let ctx = GpuContext {
            instance,
            adapter,
            device,
            queue,
            info,
        };
        let caps = surface.get_capabilities(&ctx.adapter);
        // An sRGB format, so shaders write linear light as the offscreen renderer does.
        let format = caps
            .formats
            .iter()
            .copied()
            .find(wgpu::TextureFormat::is_srgb)
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| {
                anyhow!(
                    "the window surface offers no colour format on {}",
                    ctx.info.name
                )
            })?;
        let copy_src = caps.usages.contains(wgpu::TextureUsages::COPY_SRC);
        let mut usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
        if copy_src {
            usage |= wgpu::TextureUsages::COPY_SRC;
        }
        // Copies into the swapchain let a frame reuse the last frame's 3D views.
        if caps.usages.contains(wgpu::TextureUsages::COPY_DST) {
            usage |= wgpu::TextureUsages::COPY_DST;
        }
        let vsync = std::env::var_os("DQVIEW_NO_VSYNC").is_none();
        let size = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage,
            format,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: if vsync {
                wgpu::PresentMode::AutoVsync
            } else {
                wgpu::PresentMode::AutoNoVsync
            },
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: vec![],
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        surface.configure(&ctx.device, &config);
        let targets = Targets::new(&ctx, &config, samples);
        Ok(Self {
            window,
            display,
            ctx,
            surface,
            config,
            copy_src,
            samples,
            targets,
            visible: size.width > 0 && size.height > 0,
            faults,
        })
    }

    /// Follows a window resize; a 0 x 0 (minimised) window stops rendering until it has an area again.
    pub fn resize(&mut self, width: u32, height: u32) {
        self.visible = width > 0 && height > 0;
        if !self.visible || (width == self.config.width && height == self.config.height) {
            return;
        }
        self.config.width = width;
        self.config.height = height;
        self.reconfigure();
    }

    /// Reconfigures the surface at the current size and remakes the size-dependent targets.
    pub fn reconfigure(&mut self) {
        self.surface.configure(&self.ctx.device, &self.config);
        self.targets = Targets::new(&self.ctx, &self.config, self.samples);
    }

    /// The next swapchain image, or `None` to skip this frame (reconfiguring where that helps).
    pub fn acquire(&mut self) -> Option<wgpu::SurfaceTexture> {
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) => Some(frame),
            // Still drawable; the surface reports Outdated when it must be reconfigured.
            wgpu::CurrentSurfaceTexture::Suboptimal(frame) => Some(frame),
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.reconfigure();
                None
            }
            other => {
                log::debug!("skipping a frame: surface says {other:?}");
                None
            }
        }
    }
}
