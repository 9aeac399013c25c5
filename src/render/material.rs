//! Base-colour materials on the GPU: factor, alpha mode, texture and sampler (bind group 2).

use glam::Vec4;
use wgpu::util::DeviceExt;

use super::gpu_data::GpuMaterial;
use super::layout::uniform_buffer;
use super::{GpuContext, RenderError};
use crate::scene::{AlphaMode, Material, Scene, Texture};

/// The bind group layout of group 2: material uniforms, base colour texture, sampler.
#[must_use]
pub fn material_layout(ctx: &GpuContext) -> wgpu::BindGroupLayout {
    ctx.device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("dqview::GpuMaterialBinding::layout"),
            entries: &[
                uniform_buffer(0, wgpu::ShaderStages::FRAGMENT, size_of::<GpuMaterial>()),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        })
}

/// One material's bind group and the resources it holds.
#[derive(Debug)]
pub struct GpuMaterialBinding {
    /// Bind group 2 of the render pipelines.
    pub bind_group: wgpu::BindGroup,
    /// Whether the material blends (`AlphaMode::Blend`): drawn after the opaque ones, with the blend pipelines.
    pub blend: bool,
    _uniforms: wgpu::Buffer,
    _texture: wgpu::Texture,
}

impl GpuMaterialBinding {
    /// Uploads every material of `scene` with its base colour texture, in `Scene::materials` order.
    pub fn for_scene(
        ctx: &GpuContext,
        layout: &wgpu::BindGroupLayout,
        scene: &Scene,
    ) -> Result<Vec<Self>, RenderError> {
        scene
            .materials
            .iter()
            .map(|m| {
                let texture = m.base_color_texture.and_then(|t| scene.textures.get(t));
                Self::new(ctx, layout, m, texture)
            })
            .collect()
    }

    /// Uploads a material's base colour factor, alpha mode and texture (a 1x1 white texture when `texture` is `None`).
    ///
    /// A texture larger than the device allows, or with a pixel buffer of the
    /// wrong size, is replaced by white rather than failing the model.
    pub fn new(
        ctx: &GpuContext,
        layout: &wgpu::BindGroupLayout,
        material: &Material,
        texture: Option<&Texture>,
    ) -> Result<Self, RenderError> {
        let base_color = material.base_color_factor;
        let alpha_mode = match material.alpha_mode {
            AlphaMode::Mask { cutoff } if !cutoff.is_finite() => AlphaMode::Mask {
                cutoff: AlphaMode::DEFAULT_CUTOFF,
            },
            mode => mode,
        };
        let max = ctx.device.limits().max_texture_dimension_2d;
        let white = Texture {
            width: 1,
            height: 1,
            rgba8: vec![255; 4],
        };
        let texture = texture
            .filter(|t| {
                t.width > 0
                    && t.height > 0
                    && t.width <= max
                    && t.height <= max
                    && t.rgba8.len() as u64 == u64::from(t.width) * u64::from(t.height) * 4
            })
            .unwrap_or(&white);
        let factor = if base_color.is_finite() {
            base_color
        } else {
            Vec4::ONE
        };
        ctx.scoped("dqview::GpuMaterialBinding::new", || {
            let uniforms = ctx
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("dqview::GpuMaterialBinding::uniforms"),
                    contents: bytemuck::bytes_of(&GpuMaterial::new(factor, alpha_mode)),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let gpu_texture = ctx.device.create_texture_with_data(
                &ctx.queue,
                &wgpu::TextureDescriptor {
                    label: Some("dqview::GpuMaterialBinding::base_color"),
                    size: wgpu::Extent3d {
                        width: texture.width,
                        height: texture.height,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    // glTF base colour textures are sRGB-encoded.
                    format: wgpu::TextureFormat::Rgba8UnormSrgb,
                    usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                    view_formats: &[],
                },
                wgpu::util::TextureDataOrder::LayerMajor,
                &texture.rgba8,
            );
            let sampler = ctx.device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("dqview::GpuMaterialBinding::sampler"),
                address_mode_u: wgpu::AddressMode::Repeat,
                address_mode_v: wgpu::AddressMode::Repeat,
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                ..Default::default()
            });
            let view = gpu_texture.create_view(&wgpu::TextureViewDescriptor::default());
            let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("dqview::GpuMaterialBinding::bind_group"),
                layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: uniforms.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Sampler(&sampler),
                    },
                ],
            });
            Self {
                bind_group,
                blend: alpha_mode == AlphaMode::Blend,
                _uniforms: uniforms,
                _texture: gpu_texture,
            }
        })
    }
}

/// `items` in draw order with their materials: opaque and alpha-masked first, then the
/// blended ones, each in list order (blended ones are not depth-sorted).
///
/// `material_of` gives an item's index into `materials`; `None` or out of range is `default`.
pub(super) fn in_draw_order<'a, T>(
    items: &'a [T],
    material_of: impl Fn(&T) -> Option<usize> + Copy + 'a,
    materials: &'a [GpuMaterialBinding],
    default: &'a GpuMaterialBinding,
) -> impl Iterator<Item = (&'a T, &'a GpuMaterialBinding)> + 'a {
    let with = move |item: &'a T| {
        let material = material_of(item).and_then(|m| materials.get(m));
        (item, material.unwrap_or(default))
    };
    let opaque = items.iter().map(with).filter(|(_, m)| !m.blend);
    let blended = items.iter().map(with).filter(|(_, m)| m.blend);
    opaque.chain(blended)
}
