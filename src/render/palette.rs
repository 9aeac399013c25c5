//! A skin's joint palette on the GPU: bind group 0 of every skinning pipeline.

use std::num::NonZeroU64;

use wgpu::util::DeviceExt;

use super::gpu_data::{GpuDualQuat, GpuJointMatrix, GpuScaleShear, GpuSkinParams};
use super::shaders::{MAX_UNIFORM_JOINTS, PaletteBinding};
use super::{GpuContext, RenderError};
use crate::skin::JointPalette;

/// Bytes of the uniform dual quaternion array (`array<mat2x4<f32>, 2048>`).
const UNIFORM_DUAL_QUAT_BYTES: u64 = (MAX_UNIFORM_JOINTS * size_of::<GpuDualQuat>()) as u64;

/// The bind group layout of group 0 for one [`PaletteBinding`] kind.
///
/// Shared by every pipeline that skins with this kind of palette, so one
/// palette bind group serves LBS, DQS, hybrid and the compute pass alike.
#[derive(Debug)]
pub struct PaletteLayout {
    /// Which kind of dual quaternion binding this layout declares.
    pub binding: PaletteBinding,
    /// The layout itself.
    pub layout: wgpu::BindGroupLayout,
}

impl PaletteLayout {
    /// Creates the layout; visible to compute, and to vertex shaders where they may read storage.
    #[must_use]
    pub fn new(ctx: &GpuContext, binding: PaletteBinding) -> Self {
        let visibility = if ctx.has_vertex_storage() {
            wgpu::ShaderStages::COMPUTE | wgpu::ShaderStages::VERTEX
        } else {
            wgpu::ShaderStages::COMPUTE
        };
        let dual_quat_ty = match binding {
            PaletteBinding::Uniform => wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: NonZeroU64::new(UNIFORM_DUAL_QUAT_BYTES),
            },
            PaletteBinding::Storage => storage_ty::<GpuDualQuat>(),
        };
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty,
            count: None,
        };
        let layout = ctx
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(match binding {
                    PaletteBinding::Uniform => "dqview::PaletteLayout::uniform",
                    PaletteBinding::Storage => "dqview::PaletteLayout::storage",
                }),
                entries: &[
                    entry(
                        0,
                        wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Uniform,
                            has_dynamic_offset: false,
                            min_binding_size: NonZeroU64::new(size_of::<GpuSkinParams>() as u64),
                        },
                    ),
                    entry(1, dual_quat_ty),
                    entry(2, storage_ty::<GpuJointMatrix>()),
                    entry(3, storage_ty::<GpuScaleShear>()),
                ],
            });
        Self { binding, layout }
    }
}

/// A read-only storage binding of an array of `T`.
fn storage_ty<T>() -> wgpu::BindingType {
    wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Storage { read_only: true },
        has_dynamic_offset: false,
        min_binding_size: NonZeroU64::new(size_of::<T>() as u64),
    }
}

/// One skin's palette buffers and their bind group (group 0).
#[derive(Debug)]
pub struct GpuPalette {
    /// The kind of dual quaternion binding (must match the pipeline's).
    pub binding: PaletteBinding,
    /// Joints uploaded.
    pub joint_count: usize,
    /// Whether the scale/shear buffer holds real data (DQS phase 1 runs).
    pub non_rigid: bool,
    params: wgpu::Buffer,
    dual_quats: wgpu::Buffer,
    matrices: wgpu::Buffer,
    scale_shears: wgpu::Buffer,
    /// Bind group for group 0.
    pub bind_group: wgpu::BindGroup,
    /// The bytes last written, reused by [`GpuPalette::write`] so a frame allocates nothing.
    staging: PaletteBytes,
}

/// Palette contents in GPU layout, padded to the sizes the bindings need.
#[derive(Debug)]
struct PaletteBytes {
    params: GpuSkinParams,
    dual_quats: Vec<u8>,
    matrices: Vec<u8>,
    scale_shears: Vec<u8>,
}

impl PaletteBytes {
    fn new(palette: &JointPalette, binding: PaletteBinding) -> Self {
        let mut bytes = Self {
            params: GpuSkinParams::default(),
            dual_quats: Vec::new(),
            matrices: Vec::new(),
            scale_shears: Vec::new(),
        };
        bytes.fill(palette, binding);
        bytes
    }

    /// Rewrites every field from `palette`, reusing the vectors' storage (no allocation once grown).
    fn fill(&mut self, palette: &JointPalette, binding: PaletteBinding) {
        self.params = GpuSkinParams {
            joint_count: u32::try_from(palette.len()).unwrap_or(u32::MAX),
            non_rigid: u32::from(!palette.is_rigid()),
            pad: [0; 2],
        };
        self.dual_quats.clear();
        for &dq in &palette.dual_quats {
            self.dual_quats
                .extend_from_slice(bytemuck::bytes_of(&GpuDualQuat::from(dq)));
        }
        let dual_quat_len = match binding {
            // The uniform binding is the whole fixed-size array.
            PaletteBinding::Uniform => UNIFORM_DUAL_QUAT_BYTES as usize,
            PaletteBinding::Storage => self.dual_quats.len().max(size_of::<GpuDualQuat>()),
        };
        self.dual_quats.resize(dual_quat_len, 0);
        self.matrices.clear();
        for &m in &palette.matrices {
            self.matrices
                .extend_from_slice(bytemuck::bytes_of(&GpuJointMatrix::from(m)));
        }
        if self.matrices.is_empty() {
            self.matrices
                .extend_from_slice(bytemuck::bytes_of(&GpuJointMatrix::from(
                    glam::Mat4::IDENTITY,
                )));
        }
        // A rigid skin never reads S, but a later pose may scale: identities keep the
        // buffer big enough for that, so `write` never needs a new buffer.
        self.scale_shears.clear();
        for &s in palette.scale_shear.iter().flatten() {
            self.scale_shears
                .extend_from_slice(bytemuck::bytes_of(&GpuScaleShear::from(s)));
        }
        if self.scale_shears.is_empty() {
            let identity = GpuScaleShear::from(glam::Mat3::IDENTITY);
            for _ in 0..palette.len().max(1) {
                self.scale_shears
                    .extend_from_slice(bytemuck::bytes_of(&identity));
            }
        }
    }
}

impl GpuPalette {
    /// Uploads `palette` with the binding kind of `layout`.
    pub fn new(
        ctx: &GpuContext,
        layout: &PaletteLayout,
        palette: &JointPalette,
    ) -> Result<Self, RenderError> {
        let binding = layout.binding;
        if binding == PaletteBinding::Uniform && palette.len() > MAX_UNIFORM_JOINTS {
            return Err(RenderError::TooLarge {
                what: "dqview::GpuPalette::dual_quats (uniform)",
                bytes: (palette.len() * size_of::<GpuDualQuat>()) as u64,
                limit: UNIFORM_DUAL_QUAT_BYTES,
            });
        }
        let bytes = PaletteBytes::new(palette, binding);
        let limit = ctx.device.limits().max_storage_buffer_binding_size;
        for (what, len) in [
            ("dqview::GpuPalette::matrices", bytes.matrices.len()),
            ("dqview::GpuPalette::dual_quats", bytes.dual_quats.len()),
        ] {
            if len as u64 > limit {
                return Err(RenderError::TooLarge {
                    what,
                    bytes: len as u64,
                    limit,
                });
            }
        }
        ctx.scoped("dqview::GpuPalette::new", || {
            let device = &ctx.device;
            let init = |label, contents: &[u8], usage| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage: usage | wgpu::BufferUsages::COPY_DST,
                })
            };
            let storage = wgpu::BufferUsages::STORAGE;
            let params = init(
                "dqview::GpuPalette::params",
                bytemuck::bytes_of(&bytes.params),
                wgpu::BufferUsages::UNIFORM,
            );
            let dual_quats = init(
                "dqview::GpuPalette::dual_quats",
                &bytes.dual_quats,
                match binding {
                    PaletteBinding::Uniform => wgpu::BufferUsages::UNIFORM,
                    PaletteBinding::Storage => storage,
                },
            );
            let matrices = init("dqview::GpuPalette::matrices", &bytes.matrices, storage);
            let scale_shears = init(
                "dqview::GpuPalette::scale_shears",
                &bytes.scale_shears,
                storage,
            );
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("dqview::GpuPalette::bind_group"),
                layout: &layout.layout,
                entries: &[
                    whole(0, &params),
                    whole(1, &dual_quats),
                    whole(2, &matrices),
                    whole(3, &scale_shears),
                ],
            });
            Self {
                binding,
                joint_count: palette.len(),
                non_rigid: !palette.is_rigid(),
                params,
                dual_quats,
                matrices,
                scale_shears,
                bind_group,
                staging: bytes,
            }
        })
    }

    /// Overwrites the buffers with a new pose of the same skin, without reallocating.
    ///
    /// Returns `false`, writing nothing, when `palette` does not fit the buffers
    /// (more joints, or newly non-rigid): then create a new `GpuPalette`.
    pub fn write(&mut self, queue: &wgpu::Queue, palette: &JointPalette) -> bool {
        let bytes = &mut self.staging;
        bytes.fill(palette, self.binding);
        let fits = bytes.dual_quats.len() as u64 <= self.dual_quats.size()
            && bytes.matrices.len() as u64 <= self.matrices.size()
            && bytes.scale_shears.len() as u64 <= self.scale_shears.size();
        if !fits {
            return false;
        }
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&bytes.params));
        queue.write_buffer(&self.dual_quats, 0, &bytes.dual_quats);
        queue.write_buffer(&self.matrices, 0, &bytes.matrices);
        queue.write_buffer(&self.scale_shears, 0, &bytes.scale_shears);
        self.joint_count = palette.len();
        self.non_rigid = !palette.is_rigid();
        true
    }
}

/// A bind group entry for the whole of `buffer`.
fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}
