//! The one family of skinning pipelines: every render pipeline is `vs_main` of
//! `shaders/draw.wgsl` with override constants, every compute run is `cs_skin`.
//!
//! A render pipeline is chosen by [`PipelineKey`]: skinning mode, palette kind, what is
//! drawn (shaded, debug views, blended, wire edges depth-tested or on top) and whether the
//! vertices were skinned by the compute pass. There are 80 of them; a software rasterizer
//! spends ~45 ms compiling each, so every one is built on first use (the viewer prebuilds
//! the opaque shaded ones inside its start-up error scope).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::gpu_data::gpu_mode;
use super::layout::GpuLayouts;
use super::renderer::RenderSettings;
use super::shaders::{PaletteBinding, compute_source, render_source};
use super::{GpuContext, RenderError};
use crate::skin::SkinningMode;

/// What a render pipeline draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawKind {
    /// Lit triangles, opaque or alpha-masked.
    Shaded,
    /// Lit triangles blended over what is there, without depth writes (`AlphaMode::Blend`).
    Blended,
    /// Triangles coloured by a debug view (always opaque).
    Debug,
    /// Edges (line list), depth-tested against the meshes.
    Wire,
    /// Edges drawn over everything (the overlay ghost).
    WireOnTop,
    /// Lit segments of a line primitive (USD curves), depth-tested and written like triangles.
    Lines,
    /// Lit points of a point primitive (USD `Points`), one pixel each.
    Points,
}

/// One render pipeline of the family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    /// The skinning mode (`SKIN_MODE`).
    pub mode: SkinningMode,
    /// The palette binding kind of group 0.
    pub binding: PaletteBinding,
    /// What is drawn.
    pub kind: DrawKind,
    /// Positions come from the compute pass's output (`PRESKINNED`).
    pub preskinned: bool,
    /// DQS with bulge compensation compiled in (`BULGE`).
    pub bulge: bool,
}

impl PipelineKey {
    /// The wgpu label of the pipeline.
    fn label(self) -> String {
        let pre = if self.preskinned { "_preskinned" } else { "" };
        let bulge = if self.bulge { "_bulge" } else { "" };
        format!(
            "dqview::Renderer::rp_{}_{}_{:?}{pre}{bulge}",
            self.mode.name(),
            self.binding.name(),
            self.kind
        )
    }
}

/// The render pipelines of one renderer (target format and samples), built lazily.
#[derive(Debug)]
pub(crate) struct RenderPipelines {
    device: wgpu::Device,
    settings: RenderSettings,
    /// Per palette kind: the pipeline layout and shader module.
    variants: [(wgpu::PipelineLayout, wgpu::ShaderModule); 2],
    /// Built pipelines; `None` where the device refused one (logged once).
    built: Mutex<HashMap<PipelineKey, Option<wgpu::RenderPipeline>>>,
}

impl RenderPipelines {
    /// Creates the layouts and shader modules (validating the WGSL); no pipelines yet.
    pub fn new(ctx: &GpuContext, layouts: &GpuLayouts, settings: RenderSettings) -> Self {
        let variants = PaletteBinding::ALL.map(|binding| {
            let layout = ctx
                .device
                .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("dqview::Renderer::pipeline_layout"),
                    bind_group_layouts: &[
                        Some(layouts.palette(binding)),
                        Some(&layouts.geometry_draw),
                        Some(&layouts.frame),
                        Some(&layouts.material),
                    ],
                    immediate_size: 0,
                });
            let module = ctx
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("dqview::Renderer::shader"),
                    source: wgpu::ShaderSource::Wgsl(render_source(binding).into()),
                });
            (layout, module)
        });
        Self {
            device: ctx.device.clone(),
            settings,
            variants,
            built: Mutex::new(HashMap::new()),
        }
    }

    /// Builds the pipeline of `key` now, so its errors surface in the caller's error scope.
    pub fn prebuild(&self, key: PipelineKey) {
        let pipeline = self.build(key);
        if let Ok(mut built) = self.built.lock() {
            built.insert(key, Some(pipeline));
        }
    }

    /// The pipeline of `key`, built on first use; `None` (logged) when the device refused it.
    pub fn get(&self, key: PipelineKey) -> Option<wgpu::RenderPipeline> {
        let mut built = self.built.lock().ok()?;
        built
            .entry(key)
            .or_insert_with(|| {
                let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
                let pipeline = self.build(key);
                match pollster::block_on(scope.pop()) {
                    None => Some(pipeline),
                    Some(e) => {
                        log::error!("cannot build {}: {e}", key.label());
                        None
                    }
                }
            })
            .clone()
    }

    /// Creates the pipeline of `key`.
    fn build(&self, key: PipelineKey) -> wgpu::RenderPipeline {
        let (layout, module) = match key.binding {
            PaletteBinding::Uniform => &self.variants[0],
            PaletteBinding::Storage => &self.variants[1],
        };
        let constants = [
            ("SKIN_MODE", f64::from(gpu_mode(key.mode))),
            (
                "DEBUG_VIEWS",
                f64::from(u8::from(key.kind == DrawKind::Debug)),
            ),
            ("PRESKINNED", f64::from(u8::from(key.preskinned))),
            ("BULGE", f64::from(u8::from(key.bulge))),
        ];
        let options = wgpu::PipelineCompilationOptions {
            constants: &constants,
            ..Default::default()
        };
        let wire = matches!(key.kind, DrawKind::Wire | DrawKind::WireOnTop);
        let s = &self.settings;
        let (primitive, depth, target, fragment) = if wire {
            let depth = wgpu::DepthStencilState {
                depth_write_enabled: Some(false),
                depth_compare: Some(if key.kind == DrawKind::WireOnTop {
                    wgpu::CompareFunction::Always
                } else {
                    wgpu::CompareFunction::LessEqual
                }),
                ..RenderSettings::mesh_depth()
            };
            let lines = wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::LineList,
                ..Default::default()
            };
            (lines, depth, s.blend_target(), "fs_wire")
        } else {
            let blend = key.kind == DrawKind::Blended;
            let topology = match key.kind {
                DrawKind::Lines => wgpu::PrimitiveTopology::LineList,
                DrawKind::Points => wgpu::PrimitiveTopology::PointList,
                _ => wgpu::PrimitiveTopology::TriangleList,
            };
            let primitive = wgpu::PrimitiveState {
                topology,
                ..RenderSettings::mesh_primitive()
            };
            (
                primitive,
                RenderSettings::depth_for(blend),
                s.target_for(blend),
                "fs_main",
            )
        };
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(&key.label()),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some("vs_main"),
                    compilation_options: options.clone(),
                    buffers: &[],
                },
                primitive,
                depth_stencil: Some(depth),
                multisample: s.multisample(),
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some(fragment),
                    compilation_options: options,
                    targets: &[Some(target)],
                }),
                multiview_mask: None,
                cache: None,
            })
    }
}

/// A compute pipeline: palette kind, skinning mode, bulge fix.
type ComputeKey = (PaletteBinding, SkinningMode, bool);

/// The `cs_skin` pipelines, one per palette kind, mode and bulge fix, built on first use.
#[derive(Debug)]
pub(crate) struct ComputePipelines {
    device: wgpu::Device,
    layouts: [wgpu::PipelineLayout; 2],
    /// Per palette kind: the module (validated once).
    modules: [OnceLock<wgpu::ShaderModule>; 2],
    /// Built pipelines, or why the device refused one.
    built: Mutex<HashMap<ComputeKey, Result<wgpu::ComputePipeline, String>>>,
}

impl ComputePipelines {
    /// Creates the pipeline layouts (palette, geometry, output); pipelines wait for first use.
    pub fn new(ctx: &GpuContext, layouts: &GpuLayouts) -> Self {
        let layouts = PaletteBinding::ALL.map(|binding| {
            ctx.device
                .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("dqview::Renderer::compute_layout"),
                    bind_group_layouts: &[
                        Some(layouts.palette(binding)),
                        Some(&layouts.geometry_compute),
                        Some(&layouts.compute_output),
                    ],
                    immediate_size: 0,
                })
        });
        Self {
            device: ctx.device.clone(),
            layouts,
            modules: Default::default(),
            built: Mutex::new(HashMap::new()),
        }
    }

    /// The pipeline for palettes of kind `binding` skinning in `mode` (with the bulge fix when
    /// `bulge`), or the device's reason for refusing it.
    pub fn get(
        &self,
        binding: PaletteBinding,
        mode: SkinningMode,
        bulge: bool,
    ) -> Result<wgpu::ComputePipeline, RenderError> {
        let gpu_mode = gpu_mode(mode);
        let i = match binding {
            PaletteBinding::Uniform => 0,
            PaletteBinding::Storage => 1,
        };
        let refused = |message: String| RenderError::Wgpu {
            during: "dqview::Renderer::cs_skin",
            message,
        };
        let mut built = self.built.lock().map_err(|e| refused(e.to_string()))?;
        let entry = built.entry((binding, mode, bulge)).or_insert_with(|| {
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let module = self.modules[i].get_or_init(|| {
                self.device
                    .create_shader_module(wgpu::ShaderModuleDescriptor {
                        label: Some("dqview::Renderer::compute_shader"),
                        source: wgpu::ShaderSource::Wgsl(compute_source(binding).into()),
                    })
            });
            let constants = [
                ("SKIN_MODE", f64::from(gpu_mode)),
                ("BULGE", f64::from(u8::from(bulge))),
            ];
            let pipeline = self
                .device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some("dqview::Renderer::cs_skin"),
                    layout: Some(&self.layouts[i]),
                    module,
                    entry_point: Some("cs_skin"),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        ..Default::default()
                    },
                    cache: None,
                });
            match pollster::block_on(scope.pop()) {
                None => Ok(pipeline),
                Some(e) => Err(e.to_string()),
            }
        });
        entry.clone().map_err(refused)
    }
}
