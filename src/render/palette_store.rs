//! Every joint palette of a scene and of all its instances, in one set of GPU buffers.
//!
//! A slot is one skin (or one rigid mesh node) for every instance: joint j of instance i
//! is entry `i * joints + j` of the slot. Each slot is a range of the shared buffers with
//! its own bind group (group 0), and the palette binding kind that fits it: the uniform
//! dual quaternion window (`array<mat2x4<f32>, 2048>`) where the slot's entries fit,
//! storage past that. A frame writes every palette with three `write_buffer` calls, and
//! only when some palette changed.

use glam::{Mat3, Vec3};

use super::gpu_data::{GpuDualQuat, GpuJointLinear, GpuSkinParams};
use super::layout::{GpuLayouts, UNIFORM_DUAL_QUAT_BYTES};
use super::shaders::PaletteBinding;
use super::{GpuContext, RenderError};
use crate::dq::DualQuat;
use crate::skin::JointPalette;

/// What a slot holds: its joint count and each joint's static bulge-fix data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlotSpec {
    /// Joints per instance.
    pub joints: usize,
    /// Per joint: bind position, parent joint in the skin and bone direction (see `skin::SkinSkeleton`).
    pub hinges: Vec<(Vec3, Option<usize>, Option<Vec3>)>,
}

/// Where one slot lives in the shared buffers, in elements of each buffer.
#[derive(Debug)]
struct Slot {
    joints: usize,
    binding: PaletteBinding,
    params_at: usize,
    dual_quats_at: usize,
    linears_at: usize,
    bind_group: wgpu::BindGroup,
}

/// CPU copies of the shared buffers, rewritten in place every frame.
#[derive(Debug, Default)]
struct Staging {
    params: Vec<GpuSkinParams>,
    dual_quats: Vec<GpuDualQuat>,
    linears: Vec<GpuJointLinear>,
    /// Per slot, per instance: whether that palette is non-rigid.
    non_rigid: Vec<Vec<bool>>,
}

/// Element offsets of every slot: (params, dual quaternions, linears) starts, and the lengths.
struct Placement {
    starts: Vec<(usize, usize, usize)>,
    lengths: (usize, usize, usize),
}

/// The palettes of `slots x instances` in three shared buffers.
#[derive(Debug)]
pub struct PaletteStore {
    instances: usize,
    slots: Vec<Slot>,
    staging: Staging,
    /// A palette changed since the last upload.
    dirty: bool,
    params: wgpu::Buffer,
    dual_quats: wgpu::Buffer,
    linears: wgpu::Buffer,
    uploads: u64,
    /// Uploads since the store was made, never reset (part of the viewer's scene cache key).
    writes: u64,
}

/// Elements of `size` bytes from one slot start to the next so each starts on a multiple of `align` bytes.
pub(crate) fn stride_elements(count: usize, size: usize, align: usize) -> usize {
    let lcm = lcm(size, align.max(1));
    count.max(1).div_ceil(lcm / size) * (lcm / size)
}

/// Least common multiple of two small positive numbers.
fn lcm(a: usize, b: usize) -> usize {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

/// A bind group entry for `len` elements of `size` bytes of `buffer`, from element `at`.
fn range(
    buffer: &wgpu::Buffer,
    binding: u32,
    at: usize,
    bytes: u64,
    size: usize,
) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: (at * size) as u64,
            size: wgpu::BufferSize::new(bytes),
        }),
    }
}

impl PaletteStore {
    /// Buffers for `instances` copies of every slot in `specs`, all joints at the identity.
    pub fn new(
        ctx: &GpuContext,
        layouts: &GpuLayouts,
        specs: &[SlotSpec],
        instances: usize,
    ) -> Result<Self, RenderError> {
        let instances = instances.max(1);
        let limits = ctx.device.limits();
        let placement = place(specs, instances, &limits);
        let mut staging = Staging {
            params: vec![GpuSkinParams::default(); placement.lengths.0],
            dual_quats: vec![DualQuat::IDENTITY.into(); placement.lengths.1],
            linears: vec![GpuJointLinear::default(); placement.lengths.2],
            non_rigid: vec![vec![false; instances]; specs.len()],
        };
        for (spec, &(p, _, l)) in specs.iter().zip(&placement.starts) {
            staging.params[p] = GpuSkinParams {
                joint_count: u32::try_from(spec.joints).unwrap_or(u32::MAX),
                non_rigid: 0,
                instance_count: instances as u32,
                pad: 0,
            };
            for i in 0..instances {
                let linears = staging.linears.iter_mut().skip(l + i * spec.joints);
                for (dst, &(position, parent, bone)) in linears.zip(&spec.hinges) {
                    dst.set_hinge(position, parent, bone);
                }
            }
        }
        let linear_bytes = (staging.linears.len() * size_of::<GpuJointLinear>()) as u64;
        let most = specs
            .iter()
            .map(|s| s.joints * instances)
            .max()
            .unwrap_or(0);
        let slot_bytes = (most * size_of::<GpuJointLinear>()) as u64;
        for (what, bytes, limit) in [
            (
                "dqview::PaletteStore::linears",
                linear_bytes,
                limits.max_buffer_size,
            ),
            (
                "dqview::PaletteStore::linears (one slot)",
                slot_bytes,
                limits.max_storage_buffer_binding_size,
            ),
        ] {
            if bytes > limit {
                return Err(RenderError::TooLarge { what, bytes, limit });
            }
        }
        ctx.scoped("dqview::PaletteStore::new", || {
            create(ctx, layouts, specs, instances, &placement, staging)
        })
    }

    /// Instances every slot holds.
    #[must_use]
    pub fn instances(&self) -> usize {
        self.instances
    }

    /// Copies `palette` into the staging copy of (`slot`, `instance`); false when it does not fit.
    ///
    /// Nothing reaches the GPU until [`PaletteStore::upload`].
    pub fn set(&mut self, slot: usize, instance: usize, palette: &JointPalette) -> bool {
        let Some(s) = self.slots.get(slot) else {
            return false;
        };
        if palette.len() != s.joints || instance >= self.instances {
            return false;
        }
        let staging = &mut self.staging;
        let at = instance * s.joints;
        let mut changed = false;
        let dual_quats = staging.dual_quats.iter_mut().skip(s.dual_quats_at + at);
        for (dst, &dq) in dual_quats.zip(&palette.dual_quats) {
            let new: GpuDualQuat = dq.into();
            changed |= *dst != new;
            *dst = new;
        }
        let linears = staging.linears.iter_mut().skip(s.linears_at + at);
        for (j, (dst, &m)) in linears.zip(&palette.matrices).enumerate() {
            let scale_shear = palette
                .scale_shear
                .as_ref()
                .and_then(|all| all.get(j).copied())
                .unwrap_or(Mat3::IDENTITY);
            let before = *dst;
            dst.set_pose(m, scale_shear);
            changed |= before != *dst;
        }
        if let Some(flags) = staging.non_rigid.get_mut(slot) {
            if let Some(flag) = flags.get_mut(instance) {
                *flag = !palette.is_rigid();
            }
            let non_rigid = u32::from(flags.iter().any(|&f| f));
            if let Some(p) = staging.params.get_mut(s.params_at) {
                changed |= p.non_rigid != non_rigid;
                p.non_rigid = non_rigid;
            }
        }
        self.dirty |= changed;
        true
    }

    /// Writes the staging copies to the GPU if any palette changed since the last upload.
    pub fn upload(&mut self, queue: &wgpu::Queue) {
        if !self.dirty {
            return;
        }
        let s = &self.staging;
        queue.write_buffer(&self.params, 0, bytemuck::cast_slice(&s.params));
        queue.write_buffer(&self.dual_quats, 0, bytemuck::cast_slice(&s.dual_quats));
        queue.write_buffer(&self.linears, 0, bytemuck::cast_slice(&s.linears));
        self.dirty = false;
        self.uploads += 1;
        self.writes += 1;
    }

    /// Group 0 of `slot` and its binding kind (which picks the pipeline).
    #[must_use]
    pub fn bind_group(&self, slot: usize) -> Option<(PaletteBinding, &wgpu::BindGroup)> {
        self.slots.get(slot).map(|s| (s.binding, &s.bind_group))
    }

    /// Starts counting uploads from zero.
    pub fn reset_upload_count(&mut self) {
        self.uploads = 0;
    }

    /// Uploads so far (each one writes every palette).
    #[must_use]
    pub fn uploads(&self) -> u64 {
        self.uploads
    }

    /// Uploads since the store was made, whatever [`PaletteStore::reset_upload_count`] did.
    #[must_use]
    pub fn writes(&self) -> u64 {
        self.writes
    }
}

/// Lays out every slot: parameters on uniform offsets, palettes on storage (and, for
/// uniform slots, uniform) offsets, with room after the last uniform slot for its window.
fn place(specs: &[SlotSpec], instances: usize, limits: &wgpu::Limits) -> Placement {
    let uniform_align = limits.min_uniform_buffer_offset_alignment as usize;
    let storage_align = limits.min_storage_buffer_offset_alignment as usize;
    let dq_size = size_of::<GpuDualQuat>();
    let mut starts = Vec::with_capacity(specs.len());
    let (mut params, mut dual_quats, mut linears) = (0, 0, 0);
    let mut dual_quat_end = 0;
    for spec in specs {
        let entries = spec.joints * instances;
        starts.push((params, dual_quats, linears));
        if PaletteBinding::for_joint_count(entries) == PaletteBinding::Uniform {
            let window = UNIFORM_DUAL_QUAT_BYTES as usize / dq_size;
            dual_quat_end = dual_quat_end.max(dual_quats + window);
        }
        params += stride_elements(1, size_of::<GpuSkinParams>(), uniform_align);
        dual_quats += stride_elements(entries, dq_size, uniform_align.max(storage_align));
        linears += stride_elements(entries, size_of::<GpuJointLinear>(), storage_align);
    }
    Placement {
        starts,
        lengths: (
            params.max(1),
            dual_quats.max(dual_quat_end).max(1),
            linears.max(1),
        ),
    }
}

/// Creates the buffers and one bind group per slot.
fn create(
    ctx: &GpuContext,
    layouts: &GpuLayouts,
    specs: &[SlotSpec],
    instances: usize,
    placement: &Placement,
    staging: Staging,
) -> PaletteStore {
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
        "dqview::PaletteStore::params",
        bytemuck::cast_slice(&staging.params),
        wgpu::BufferUsages::UNIFORM,
    );
    let dual_quats = init(
        "dqview::PaletteStore::dual_quats",
        bytemuck::cast_slice(&staging.dual_quats),
        storage | wgpu::BufferUsages::UNIFORM,
    );
    let linears = init(
        "dqview::PaletteStore::linears",
        bytemuck::cast_slice(&staging.linears),
        storage,
    );
    let slots = specs
        .iter()
        .zip(&placement.starts)
        .map(|(spec, &(p, d, l))| {
            let entries = (spec.joints * instances).max(1);
            let binding = PaletteBinding::for_joint_count(entries);
            let dq_size = size_of::<GpuDualQuat>();
            let dq_bytes = match binding {
                PaletteBinding::Uniform => UNIFORM_DUAL_QUAT_BYTES,
                PaletteBinding::Storage => (entries * dq_size) as u64,
            };
            let linear_size = size_of::<GpuJointLinear>();
            let param_size = size_of::<GpuSkinParams>();
            let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("dqview::PaletteStore::slot"),
                layout: layouts.palette(binding),
                entries: &[
                    range(&params, 0, p, param_size as u64, param_size),
                    range(&dual_quats, 1, d, dq_bytes, dq_size),
                    range(&linears, 2, l, (entries * linear_size) as u64, linear_size),
                ],
            });
            Slot {
                joints: spec.joints,
                binding,
                params_at: p,
                dual_quats_at: d,
                linears_at: l,
                bind_group,
            }
        })
        .collect();
    PaletteStore {
        instances,
        slots,
        staging,
        dirty: false,
        params,
        dual_quats,
        linears,
        uploads: 0,
        writes: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_strides_keep_every_slot_aligned() {
        // 144-byte linears on 256-byte alignment: 16 elements (2304 bytes) a step.
        assert_eq!(stride_elements(1, 144, 256), 16);
        assert_eq!(stride_elements(17, 144, 256), 32);
        assert_eq!(stride_elements(3, 32, 256), 8);
        assert_eq!(stride_elements(9, 32, 256), 16);
        assert_eq!(stride_elements(0, 16, 256), 16);
        assert_eq!(stride_elements(5, 64, 16), 5);
        for (count, size, align) in [(7, 144, 256), (100, 32, 64), (3, 16, 256)] {
            let n = stride_elements(count, size, align);
            assert!(
                n >= count && (n * size).is_multiple_of(align),
                "{count} {size} {align}"
            );
        }
    }

    #[test]
    fn uniform_slots_leave_room_for_their_window() {
        let limits = wgpu::Limits::default();
        let spec = |joints| SlotSpec {
            joints,
            hinges: Vec::new(),
        };
        // 19 joints x 2 instances (uniform), then 3000 joints (storage), then 1 (uniform).
        let p = place(&[spec(19), spec(3000), spec(1)], 2, &limits);
        assert_eq!(p.starts[0], (0, 0, 0));
        assert_eq!(
            p.starts[1].1, 40,
            "38 entries round up to 40 (256-byte steps)"
        );
        let last = p.starts[2].1;
        assert_eq!(last, 40 + 6000);
        assert!(p.lengths.1 >= last + 2048, "the last uniform window fits");
        assert_eq!(p.starts[1].0, 16, "params on 256-byte steps");
    }
}
