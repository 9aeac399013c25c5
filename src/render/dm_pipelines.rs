//! Delta Mush's four compute pipelines (gather, smooth, correct, scatter) per palette kind,
//! built on first use from `shaders/dm_scatter.wgsl` and `shaders/dm_surface.wgsl`.

use std::collections::HashMap;
use std::sync::Mutex;

use super::layout::GpuLayouts;
use super::shaders::{PaletteBinding, dm_scatter_source, dm_surface_source};
use super::{GpuContext, RenderError};

/// One of Delta Mush's passes, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum DmPass {
    /// Per primitive: welded LBS positions out of `cs_skin`'s output.
    Gather,
    /// Per surface: one Laplacian step.
    Smooth,
    /// Per surface: the corner correction.
    Correct,
    /// Per primitive: every vertex moved and turned by its welded vertex's correction.
    Scatter,
}

impl DmPass {
    /// The WGSL entry point.
    fn entry_point(self) -> &'static str {
        match self {
            Self::Gather => "cs_dm_gather",
            Self::Smooth => "cs_dm_smooth",
            Self::Correct => "cs_dm_correct",
            Self::Scatter => "cs_dm_scatter",
        }
    }

    /// Whether the pass runs over a welded surface (else over one primitive's vertices).
    fn on_surface(self) -> bool {
        matches!(self, Self::Smooth | Self::Correct)
    }
}

/// The Delta Mush pipelines, built on first use.
#[derive(Debug)]
pub(crate) struct DmPipelines {
    device: wgpu::Device,
    /// Per pass and palette kind (only the surface passes read the palette).
    layouts: HashMap<(DmPass, PaletteBinding), wgpu::PipelineLayout>,
    /// Built pipelines, or why the device refused one.
    built: Mutex<HashMap<(DmPass, PaletteBinding), Result<wgpu::ComputePipeline, String>>>,
    /// A group of no bindings for the slots a pass does not read (a pipeline layout with
    /// unset slots misplaces the groups after them on lavapipe).
    pub empty_group: wgpu::BindGroup,
}

impl DmPipelines {
    /// Creates the pipeline layouts; pipelines wait for first use.
    pub fn new(ctx: &GpuContext, layouts: &GpuLayouts) -> Self {
        let empty = ctx
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("dqview::Renderer::dm_empty"),
                entries: &[],
            });
        let mut out = HashMap::new();
        for binding in PaletteBinding::ALL {
            for pass in [
                DmPass::Gather,
                DmPass::Smooth,
                DmPass::Correct,
                DmPass::Scatter,
            ] {
                // Only the groups a pass reads: the storage buffers of all four would pass
                // WebGPU's eight per stage.
                let groups: Vec<Option<&wgpu::BindGroupLayout>> = match pass {
                    DmPass::Smooth | DmPass::Correct => {
                        vec![Some(layouts.palette(binding)), Some(&layouts.dm_surface)]
                    }
                    DmPass::Gather => vec![
                        Some(&empty),
                        Some(&empty),
                        Some(&layouts.compute_output),
                        Some(&layouts.dm_primitive),
                    ],
                    DmPass::Scatter => vec![
                        Some(&empty),
                        Some(&layouts.geometry_compute),
                        Some(&layouts.compute_output),
                        Some(&layouts.dm_primitive),
                    ],
                };
                let layout = ctx
                    .device
                    .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some("dqview::Renderer::dm_layout"),
                        bind_group_layouts: &groups,
                        immediate_size: 0,
                    });
                out.insert((pass, binding), layout);
            }
        }
        let empty_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("dqview::Renderer::dm_empty"),
            layout: &empty,
            entries: &[],
        });
        Self {
            device: ctx.device.clone(),
            layouts: out,
            built: Mutex::new(HashMap::new()),
            empty_group,
        }
    }

    /// The pipeline of `pass` for palettes of kind `binding`, or the device's reason for refusing it.
    pub fn get(
        &self,
        pass: DmPass,
        binding: PaletteBinding,
    ) -> Result<wgpu::ComputePipeline, RenderError> {
        let refused = |message: String| RenderError::Wgpu {
            during: "dqview::Renderer::delta_mush",
            message,
        };
        let mut built = self.built.lock().map_err(|e| refused(e.to_string()))?;
        let entry = built.entry((pass, binding)).or_insert_with(|| {
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let source = if pass.on_surface() {
                dm_surface_source(binding)
            } else {
                dm_scatter_source(binding)
            };
            let module = self
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("dqview::Renderer::delta_mush_shader"),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                });
            let pipeline = self
                .device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(pass.entry_point()),
                    layout: self.layouts.get(&(pass, binding)),
                    module: &module,
                    entry_point: Some(pass.entry_point()),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
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
