//! The offscreen renderer: vertex-shader skinning pipelines for every mode, one layout for all.

use glam::{Mat4, Vec3};

use super::debug_view::ViewParams;
use super::dm_pipelines::{DmPass, DmPipelines};
use super::gpu_data::GpuFrameUniforms;
use super::layout::GpuLayouts;
use super::material::GpuMaterialBinding;
use super::pipelines::{ComputePipelines, DrawKind, PipelineKey, RenderPipelines};
use super::shaders::PaletteBinding;
use super::{GpuContext, RenderError};
use crate::scene::Material;
use crate::skin::SkinningMode;

/// Colour target format: sRGB, so the shader writes linear light.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Depth buffer format.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Image size, multisampling, colours and lights of a render.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderSettings {
    /// Colour target format: [`COLOR_FORMAT`] offscreen, the surface's format in a window.
    pub color_format: wgpu::TextureFormat,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// MSAA samples per pixel (1 or 4).
    pub sample_count: u32,
    /// Clear colour, linear RGBA.
    pub background: [f64; 4],
    /// Surface colour, linear RGB.
    pub base_color: [f32; 3],
    /// Light reaching every surface, added to the two half-Lambert terms.
    pub ambient: f32,
    /// Direction towards the key light (world space, need not be unit).
    pub key_direction: Vec3,
    /// Key light intensity.
    pub key_intensity: f32,
    /// Direction towards the fill light (world space, need not be unit).
    pub fill_direction: Vec3,
    /// Fill light intensity.
    pub fill_intensity: f32,
}

impl RenderSettings {
    /// Triangle lists, no culling: open meshes (tubes, capes) show their inside.
    #[must_use]
    pub fn mesh_primitive() -> wgpu::PrimitiveState {
        wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            front_face: wgpu::FrontFace::Ccw,
            cull_mode: None,
            ..Default::default()
        }
    }

    /// Depth test `Less` with depth writes, on [`DEPTH_FORMAT`].
    #[must_use]
    pub fn mesh_depth() -> wgpu::DepthStencilState {
        wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }
    }

    /// Multisampling at [`RenderSettings::sample_count`].
    #[must_use]
    pub fn multisample(&self) -> wgpu::MultisampleState {
        wgpu::MultisampleState {
            count: self.sample_count,
            mask: !0,
            alpha_to_coverage_enabled: false,
        }
    }

    /// The colour target of opaque meshes: [`RenderSettings::color_format`], no blending.
    #[must_use]
    pub fn opaque_target(&self) -> wgpu::ColorTargetState {
        wgpu::ColorTargetState {
            format: self.color_format,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        }
    }

    /// The colour target of alpha-blended meshes: straight alpha over what is there.
    #[must_use]
    pub fn blend_target(&self) -> wgpu::ColorTargetState {
        wgpu::ColorTargetState {
            blend: Some(wgpu::BlendState::ALPHA_BLENDING),
            ..self.opaque_target()
        }
    }

    /// The depth state of opaque (`blend` false) or alpha-blended meshes: blended ones test but do not write depth.
    #[must_use]
    pub fn depth_for(blend: bool) -> wgpu::DepthStencilState {
        wgpu::DepthStencilState {
            depth_write_enabled: Some(!blend),
            ..Self::mesh_depth()
        }
    }

    /// The colour target for opaque (`blend` false) or alpha-blended meshes.
    #[must_use]
    pub fn target_for(&self, blend: bool) -> wgpu::ColorTargetState {
        if blend {
            self.blend_target()
        } else {
            self.opaque_target()
        }
    }

    /// Small, fixed settings for image tests: 256 x 256, 4x MSAA, fixed lights.
    pub const TESTING: Self = Self {
        color_format: COLOR_FORMAT,
        width: 256,
        height: 256,
        sample_count: 4,
        background: [0.02, 0.02, 0.025, 1.0],
        base_color: [0.8, 0.55, 0.4],
        ambient: 0.05,
        key_direction: Vec3::new(0.4, 0.8, 0.6),
        key_intensity: 0.8,
        fill_direction: Vec3::new(-0.6, -0.2, 0.4),
        fill_intensity: 0.25,
    };

    /// The per-frame uniforms for `camera`, shaded, with hybrid factor `beta`.
    #[must_use]
    pub fn to_gpu(&self, camera: &Camera, beta: f32) -> GpuFrameUniforms {
        self.to_gpu_view(camera, &ViewParams::shaded(beta))
    }

    /// The per-frame uniforms for `camera` with debug view and hybrid parameters.
    #[must_use]
    pub fn to_gpu_view(&self, camera: &Camera, params: &ViewParams) -> GpuFrameUniforms {
        let light = |d: Vec3, i: f32| d.normalize_or(Vec3::Y).extend(i).to_array();
        let [r, g, b] = self.base_color;
        GpuFrameUniforms {
            clip_from_world: camera.clip_from_world.to_cols_array_2d(),
            key_light: light(self.key_direction, self.key_intensity),
            fill_light: light(self.fill_direction, self.fill_intensity),
            base_color: [r, g, b, self.ambient],
            params: params.to_params(),
            wire_color: [0.0; 4],
            extra: params.to_extra(),
            heat_range: params.to_heat_range(),
        }
    }
}

impl Default for RenderSettings {
    fn default() -> Self {
        // White tint: models show their own material colours.
        Self {
            width: 512,
            height: 512,
            base_color: [1.0, 1.0, 1.0],
            ..Self::TESTING
        }
    }
}

/// Where the scene is seen from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// World to clip space (WebGPU depth range 0..1).
    pub clip_from_world: Mat4,
}

impl Camera {
    /// Vertical field of view of [`Camera::framing`], radians.
    pub const FOV_Y: f32 = 0.61;

    /// A perspective camera looking from `direction` at the box `min..max`, fitting it whole.
    #[must_use]
    pub fn framing(min: Vec3, max: Vec3, direction: Vec3, aspect: f32) -> Self {
        let center = (min + max) * 0.5;
        let radius = ((max - min).length() * 0.5).max(1e-3);
        let distance = radius / (Self::FOV_Y * 0.5).sin() * 1.05;
        let eye = center + direction.normalize_or(Vec3::Z) * distance;
        let up = if direction.normalize_or(Vec3::Z).y.abs() > 0.99 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        let view = glam::camera::rh::view::look_at_mat4(eye, center, up);
        let near = (distance - radius).max(distance * 1e-3);
        // WebGPU's clip space is DirectX's: z in [0, 1], y up.
        let proj = glam::camera::rh::proj::directx::perspective(
            Self::FOV_Y,
            aspect.max(1e-3),
            near,
            distance + radius,
        );
        Self {
            clip_from_world: proj * view,
        }
    }
}

/// Owns every skinning pipeline of one colour target (format, samples) and their layouts.
#[derive(Debug)]
pub struct Renderer {
    /// Size, samples, colours and lights.
    pub(super) settings: RenderSettings,
    layouts: GpuLayouts,
    pipelines: RenderPipelines,
    compute: ComputePipelines,
    /// Delta Mush's passes.
    dm: DmPipelines,
    /// White, factor 1: for meshes without a material.
    default_material: GpuMaterialBinding,
}

impl Renderer {
    /// Builds the layouts, shader modules and the four opaque shaded pipelines of uniform
    /// palettes (so a broken shader fails here, not mid-frame); the rest are built on first use.
    ///
    /// Needs vertex-stage storage buffers (geometry, LBS matrices, big palettes).
    pub fn new(ctx: &GpuContext, settings: RenderSettings) -> Result<Self, RenderError> {
        let renderer = Self::without_prebuild(ctx, settings)?;
        ctx.scoped("dqview::Renderer::new (pipelines)", || {
            for mode in SkinningMode::ALL {
                renderer.pipelines.prebuild(PipelineKey {
                    mode,
                    binding: PaletteBinding::Uniform,
                    kind: DrawKind::Shaded,
                    preskinned: false,
                    bulge: false,
                });
            }
        })?;
        Ok(renderer)
    }

    /// Like [`Renderer::new`] without building any pipeline yet (compute readback, exports).
    pub fn without_prebuild(
        ctx: &GpuContext,
        settings: RenderSettings,
    ) -> Result<Self, RenderError> {
        if !ctx.has_vertex_storage() {
            return Err(RenderError::MissingCapability {
                what: "read storage buffers in vertex shaders (DownlevelFlags::VERTEX_STORAGE)",
            });
        }
        let (layouts, pipelines, compute, dm) = ctx.scoped("dqview::Renderer::new", || {
            let layouts = GpuLayouts::new(ctx);
            let pipelines = RenderPipelines::new(ctx, &layouts, settings);
            let compute = ComputePipelines::new(ctx, &layouts);
            let dm = DmPipelines::new(ctx, &layouts);
            (layouts, pipelines, compute, dm)
        })?;
        let default_material =
            GpuMaterialBinding::new(ctx, &layouts.material, &Material::default(), None)?;
        Ok(Self {
            settings,
            layouts,
            pipelines,
            compute,
            dm,
            default_material,
        })
    }

    /// The bind group layouts: make geometries, palette stores and materials with them.
    #[must_use]
    pub fn layouts(&self) -> &GpuLayouts {
        &self.layouts
    }

    /// The layout of bind group 3 (materials): make [`GpuMaterialBinding`]s with it.
    #[must_use]
    pub fn material_layout(&self) -> &wgpu::BindGroupLayout {
        &self.layouts.material
    }

    /// The layout of bind group 2 (per-view frame uniforms).
    #[must_use]
    pub fn frame_layout(&self) -> &wgpu::BindGroupLayout {
        &self.layouts.frame
    }

    /// The material used when a mesh has none: white, factor 1.
    #[must_use]
    pub fn default_material(&self) -> &GpuMaterialBinding {
        &self.default_material
    }

    /// Size, samples, colours and lights this renderer was built for.
    #[must_use]
    pub fn settings(&self) -> &RenderSettings {
        &self.settings
    }

    /// The render pipeline of `key`, built on first use; `None` (logged) when the device refused it.
    pub(crate) fn pipeline(&self, key: PipelineKey) -> Option<wgpu::RenderPipeline> {
        self.pipelines.get(key)
    }

    /// The `cs_skin` pipeline for palettes of kind `binding` in `mode` (bulge fix on: `bulge`).
    pub(crate) fn compute_pipeline(
        &self,
        binding: PaletteBinding,
        mode: SkinningMode,
        bulge: bool,
    ) -> Result<wgpu::ComputePipeline, RenderError> {
        self.compute.get(binding, mode, bulge)
    }

    /// Delta Mush's `pass` pipeline for palettes of kind `binding`.
    pub(crate) fn dm_pipeline(
        &self,
        pass: DmPass,
        binding: PaletteBinding,
    ) -> Result<wgpu::ComputePipeline, RenderError> {
        self.dm.get(pass, binding)
    }

    /// A bind group of no bindings, for the slots a Delta Mush pass does not read.
    pub(crate) fn dm_empty_group(&self) -> &wgpu::BindGroup {
        &self.dm.empty_group
    }
}
