//! Joint palettes of every crowd instance in one set of shared buffers, uploaded once per frame.

use glam::{Mat3, Mat4};

use super::gpu_data::{GpuDualQuat, GpuJointMatrix, GpuScaleShear, GpuSkinParams};
use super::palette::PaletteLayout;
use super::shaders::PaletteBinding;
use super::{GpuContext, RenderError};
use crate::skin::JointPalette;

/// Where one (instance, skin) palette lives in the shared buffers, in elements of each buffer.
#[derive(Debug)]
struct Slot {
    joints: usize,
    params_at: usize,
    dual_quats_at: usize,
    matrices_at: usize,
    scale_shears_at: usize,
    /// Group 0 of the storage-palette pipelines, bound to this slot's ranges.
    bind_group: wgpu::BindGroup,
}

/// CPU copies of the shared buffers, rewritten in place every frame.
#[derive(Debug, Default)]
struct Staging {
    params: Vec<GpuSkinParams>,
    dual_quats: Vec<GpuDualQuat>,
    matrices: Vec<GpuJointMatrix>,
    scale_shears: Vec<GpuScaleShear>,
}

/// Palettes of `instances x skins` in four buffers (storage binding kind, any joint count).
///
/// Each slot is a range of the shared buffers with its own bind group, so a
/// frame writes every palette with four `write_buffer` calls, and only when
/// some slot changed since the last upload.
#[derive(Debug)]
pub struct CrowdPalettes {
    skins: usize,
    slots: Vec<Slot>,
    staging: Staging,
    /// Slots written since the last upload.
    dirty: bool,
    params: wgpu::Buffer,
    dual_quats: wgpu::Buffer,
    matrices: wgpu::Buffer,
    scale_shears: wgpu::Buffer,
    uploads: u64,
}

/// Elements of `size` bytes between slot starts so each starts on a multiple of `align` bytes.
fn stride_elements(count: usize, size: usize, align: usize) -> usize {
    let lcm = num_lcm(size, align.max(1));
    count.max(1).div_ceil(lcm / size) * (lcm / size)
}

/// A bind group entry for `len` elements of `size` bytes of `buffer`, from element `at`.
fn range(
    buffer: &wgpu::Buffer,
    binding: u32,
    at: usize,
    len: usize,
    size: usize,
) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: (at * size) as u64,
            size: wgpu::BufferSize::new((len.max(1) * size) as u64),
        }),
    }
}

/// Least common multiple (small positive numbers).
fn num_lcm(a: usize, b: usize) -> usize {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

impl CrowdPalettes {
    /// Buffers for `instances` copies of skins with `joint_counts` joints each, all at identity.
    pub fn new(
        ctx: &GpuContext,
        layout: &PaletteLayout,
        instances: usize,
        joint_counts: &[usize],
    ) -> Result<Self, RenderError> {
        if layout.binding != PaletteBinding::Storage {
            return Err(RenderError::MissingCapability {
                what: "a storage palette layout for crowd palettes",
            });
        }
        let limits = ctx.device.limits();
        let storage_align = limits.min_storage_buffer_offset_alignment as usize;
        let uniform_align = limits.min_uniform_buffer_offset_alignment as usize;
        let mut staging = Staging::default();
        let mut ranges = Vec::with_capacity(instances * joint_counts.len());
        for _ in 0..instances {
            for &joints in joint_counts {
                let at = (
                    staging.params.len(),
                    staging.dual_quats.len(),
                    staging.matrices.len(),
                    staging.scale_shears.len(),
                );
                let params = GpuSkinParams {
                    joint_count: u32::try_from(joints).unwrap_or(u32::MAX),
                    ..GpuSkinParams::default()
                };
                staging.params.resize(
                    at.0 + stride_elements(1, size_of::<GpuSkinParams>(), uniform_align),
                    params,
                );
                let dual_quat_len = stride_elements(joints, 32, storage_align);
                staging
                    .dual_quats
                    .resize(at.1 + dual_quat_len, crate::dq::DualQuat::IDENTITY.into());
                let matrix_len = stride_elements(joints, 64, storage_align);
                staging
                    .matrices
                    .resize(at.2 + matrix_len, Mat4::IDENTITY.into());
                let scale_len = stride_elements(joints, 48, storage_align);
                staging
                    .scale_shears
                    .resize(at.3 + scale_len, Mat3::IDENTITY.into());
                ranges.push((joints, at));
            }
        }
        let limit = limits.max_storage_buffer_binding_size;
        let bytes = (staging.matrices.len() * 64) as u64;
        if bytes > limits.max_buffer_size {
            return Err(RenderError::TooLarge {
                what: "dqview::CrowdPalettes::matrices",
                bytes,
                limit: limits.max_buffer_size,
            });
        }
        if let Some(&joints) = joint_counts.iter().max()
            && (joints * 64) as u64 > limit
        {
            return Err(RenderError::TooLarge {
                what: "dqview::CrowdPalettes::matrices (one skin)",
                bytes: (joints * 64) as u64,
                limit,
            });
        }
        ctx.scoped("dqview::CrowdPalettes::new", || {
            use wgpu::util::DeviceExt;
            let init = |label, contents: &[u8], usage: wgpu::BufferUsages| {
                ctx.device
                    .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some(label),
                        contents,
                        usage: usage | wgpu::BufferUsages::COPY_DST,
                    })
            };
            let storage = wgpu::BufferUsages::STORAGE;
            let params = init(
                "dqview::CrowdPalettes::params",
                bytemuck::cast_slice(&staging.params),
                wgpu::BufferUsages::UNIFORM,
            );
            let dual_quats = init(
                "dqview::CrowdPalettes::dual_quats",
                bytemuck::cast_slice(&staging.dual_quats),
                storage,
            );
            let matrices = init(
                "dqview::CrowdPalettes::matrices",
                bytemuck::cast_slice(&staging.matrices),
                storage,
            );
            let scale_shears = init(
                "dqview::CrowdPalettes::scale_shears",
                bytemuck::cast_slice(&staging.scale_shears),
                storage,
            );
            let slots = ranges
                .iter()
                .map(|&(joints, at)| Slot {
                    joints,
                    params_at: at.0,
                    dual_quats_at: at.1,
                    matrices_at: at.2,
                    scale_shears_at: at.3,
                    bind_group: ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("dqview::CrowdPalettes::slot"),
                        layout: &layout.layout,
                        entries: &[
                            range(&params, 0, at.0, 1, size_of::<GpuSkinParams>()),
                            range(&dual_quats, 1, at.1, joints, 32),
                            range(&matrices, 2, at.2, joints, 64),
                            range(&scale_shears, 3, at.3, joints, 48),
                        ],
                    }),
                })
                .collect();
            Self {
                skins: joint_counts.len(),
                slots,
                staging,
                dirty: false,
                params,
                dual_quats,
                matrices,
                scale_shears,
                uploads: 0,
            }
        })
    }

    /// Copies `palette` into the staging copy of (`instance`, `skin`); false when it does not fit.
    ///
    /// Nothing reaches the GPU until [`CrowdPalettes::upload`].
    pub fn set(&mut self, instance: usize, skin: usize, palette: &JointPalette) -> bool {
        let Some(slot) = self.slots.get(instance * self.skins + skin) else {
            return false;
        };
        if palette.len() != slot.joints {
            return false;
        }
        let s = &mut self.staging;
        let params = GpuSkinParams {
            joint_count: u32::try_from(slot.joints).unwrap_or(u32::MAX),
            non_rigid: u32::from(!palette.is_rigid()),
            pad: [0; 2],
        };
        let mut changed = s.params.get(slot.params_at) != Some(&params);
        if let Some(p) = s.params.get_mut(slot.params_at) {
            *p = params;
        }
        let n = slot.joints;
        let dual_quats = s.dual_quats.iter_mut().skip(slot.dual_quats_at).take(n);
        for (dst, &dq) in dual_quats.zip(&palette.dual_quats) {
            let new: GpuDualQuat = dq.into();
            changed |= *dst != new;
            *dst = new;
        }
        let matrices = s.matrices.iter_mut().skip(slot.matrices_at).take(n);
        for (dst, &m) in matrices.zip(&palette.matrices) {
            let new: GpuJointMatrix = m.into();
            changed |= *dst != new;
            *dst = new;
        }
        if let Some(scales) = &palette.scale_shear {
            let dst = s.scale_shears.iter_mut().skip(slot.scale_shears_at).take(n);
            for (dst, &m) in dst.zip(scales) {
                let new: GpuScaleShear = m.into();
                changed |= *dst != new;
                *dst = new;
            }
        }
        self.dirty |= changed;
        true
    }

    /// Writes the staging copies to the GPU if any slot changed since the last upload.
    pub fn upload(&mut self, queue: &wgpu::Queue) {
        if !self.dirty {
            return;
        }
        let s = &self.staging;
        queue.write_buffer(&self.params, 0, bytemuck::cast_slice(&s.params));
        queue.write_buffer(&self.dual_quats, 0, bytemuck::cast_slice(&s.dual_quats));
        queue.write_buffer(&self.matrices, 0, bytemuck::cast_slice(&s.matrices));
        queue.write_buffer(&self.scale_shears, 0, bytemuck::cast_slice(&s.scale_shears));
        self.dirty = false;
        self.uploads += 1;
    }

    /// Group 0 bind group of (`instance`, `skin`).
    #[must_use]
    pub fn bind_group(&self, instance: usize, skin: usize) -> Option<&wgpu::BindGroup> {
        self.slots
            .get(instance * self.skins + skin)
            .map(|s| &s.bind_group)
    }

    /// Uploads so far (each one is four `write_buffer` calls covering every slot).
    #[must_use]
    pub fn uploads(&self) -> u64 {
        self.uploads
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_strides_keep_every_slot_aligned() {
        // 48-byte scale/shear matrices on 256-byte alignment: 16 elements (768 bytes) a step.
        assert_eq!(stride_elements(1, 48, 256), 16);
        assert_eq!(stride_elements(17, 48, 256), 32);
        assert_eq!(stride_elements(3, 32, 256), 8);
        assert_eq!(stride_elements(9, 32, 256), 16);
        assert_eq!(stride_elements(0, 64, 256), 4);
        assert_eq!(stride_elements(5, 64, 16), 5);
        for (count, size, align) in [(7, 48, 256), (100, 32, 64), (3, 16, 256)] {
            let n = stride_elements(count, size, align);
            assert!(
                n >= count && (n * size).is_multiple_of(align),
                "{count} {size} {align}"
            );
        }
    }
}
