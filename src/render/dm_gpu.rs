//! Delta Mush on the GPU: per skinned mesh node, its welded surface's buffers and the passes
//! that follow `cs_skin`'s LBS (gather, `iterations` smoothing steps, correct, scatter).
//!
//! The CPU reference is [`crate::skin::dm`]; `shaders/dm_surface.wgsl` and
//! `shaders/dm_scatter.wgsl` mirror it.

use wgpu::util::DeviceExt;

use super::dm_pipelines::DmPass;
use super::gpu_data::{
    DM_CORNER_WORDS, DM_SOURCE_BIT, DM_STABLE_BIT, GpuDmParams, GpuDmPrimitiveParams,
};
use super::layout::whole;
use super::scene_draw::dispatch_size;
use super::scene_gpu::DrawItem;
use super::{GpuContext, RenderError, Renderer};
use crate::skin::dm::MeshDm;

/// One primitive of a Delta Mush surface: its draw item and welded map.
#[derive(Debug)]
pub(super) struct DmPrimitiveGpu {
    /// Index of its draw item in the scene.
    item: usize,
    /// Each vertex's welded vertex, [`DM_SOURCE_BIT`] on the one it takes its position from.
    welded_of: wgpu::Buffer,
    /// Its `DmPrimitiveParams`.
    params: wgpu::Buffer,
    /// Group 3 of the gather (welded LBS) and the scatter (corrections), per instance count.
    groups: Option<(wgpu::BindGroup, wgpu::BindGroup)>,
}

/// The buffers sized by the instance count, and the smoothing's bind groups.
#[derive(Debug)]
struct DmInstanced {
    /// Group 1 of the surface passes: [L to S1, S1 to S0, S0 to S1] (L: the LBS positions).
    steps: [wgpu::BindGroup; 3],
    /// Welded LBS positions (the gather's output).
    lbs: wgpu::Buffer,
    /// The corrections (the scatter's input).
    corrected: wgpu::Buffer,
}

/// One skinned mesh node's Delta Mush on the GPU.
#[derive(Debug)]
pub(super) struct DmSurfaceGpu {
    /// The palette slot of its skin (the correction reads the joints' scales).
    slot: usize,
    welded_count: u32,
    iterations: u32,
    params: wgpu::Buffer,
    /// Graph, corners and influences (`DmParams` says where each starts).
    statics: wgpu::Buffer,
    prims: Vec<DmPrimitiveGpu>,
    instanced: Option<DmInstanced>,
}

/// Words of the static data of `mesh` and the parameters that locate its parts.
#[must_use]
pub(super) fn dm_static_words(mesh: &MeshDm, row_stride: u32) -> (Vec<u32>, GpuDmParams) {
    let dm = &mesh.dm;
    let mut words = dm.neighbour_offsets.clone();
    let neighbours_at = words.len() as u32;
    words.extend_from_slice(&dm.neighbours);
    let corner_offsets_at = words.len() as u32;
    words.extend_from_slice(&dm.corner_offsets);
    let corners_at = words.len() as u32;
    for c in &dm.corners {
        let stable = if c.rest_stable { DM_STABLE_BIT } else { 0 };
        words.extend([c.prev, c.next | stable]);
        let f = c.rest_frame;
        let floats = [c.delta, f.x_axis, f.y_axis, f.z_axis];
        words.extend(
            floats
                .iter()
                .flat_map(|v| v.to_array())
                .map(|x| (x as f32).to_bits()),
        );
    }
    debug_assert_eq!(
        words.len() - corners_at as usize,
        dm.corners.len() * DM_CORNER_WORDS
    );
    let influence_offsets_at = words.len() as u32;
    let mut at = 0u32;
    words.push(0);
    for row in &mesh.surface.influences {
        at += row.len() as u32;
        words.push(at);
    }
    let influences_at = words.len() as u32;
    for i in mesh.surface.influences.iter().flatten() {
        words.extend([u32::from(i.joint), i.weight.to_bits()]);
    }
    let params = GpuDmParams {
        welded_count: mesh.surface.len() as u32,
        row_stride,
        factor: dm.params.factor,
        min_corner_height: dm.min_corner_height as f32,
        rest_scale: mesh.rest_scale as f32,
        neighbours_at,
        corner_offsets_at,
        corners_at,
        influence_offsets_at,
        influences_at,
        pad0: 0,
        pad1: 0,
    };
    (words, params)
}

/// Primitive `primitive`'s welded map as `dm_welded_of`; empty when it has none.
#[must_use]
pub(super) fn dm_welded_of_words(mesh: &MeshDm, primitive: usize) -> Vec<u32> {
    let Some(map) = mesh.surface.vertex_of.get(primitive) else {
        return Vec::new();
    };
    map.iter()
        .enumerate()
        .map(|(v, &w)| {
            let source = mesh.source.get(w as usize) == Some(&(primitive as u32, v as u32));
            w | if source { DM_SOURCE_BIT } else { 0 }
        })
        .collect()
}

/// A storage buffer holding `words` (at least 16 bytes), or why the device cannot bind it.
fn storage_words(
    ctx: &GpuContext,
    what: &'static str,
    words: &[u32],
) -> Result<wgpu::Buffer, RenderError> {
    let bytes = (words.len() * 4).max(16);
    check_size(ctx, what, bytes as u64)?;
    let mut contents = bytemuck::cast_slice::<u32, u8>(words).to_vec();
    contents.resize(bytes, 0);
    Ok(ctx
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(what),
            contents: &contents,
            usage: wgpu::BufferUsages::STORAGE,
        }))
}

/// A [`RenderError::TooLarge`] when `bytes` pass the device's storage binding size.
fn check_size(ctx: &GpuContext, what: &'static str, bytes: u64) -> Result<(), RenderError> {
    let limits = ctx.device.limits();
    let limit = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    if bytes > limit {
        return Err(RenderError::TooLarge { what, bytes, limit });
    }
    Ok(())
}

/// A uniform buffer holding `value`.
fn uniform<T: bytemuck::Pod>(ctx: &GpuContext, what: &'static str, value: &T) -> wgpu::Buffer {
    ctx.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(what),
            contents: bytemuck::bytes_of(value),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        })
}

impl DmSurfaceGpu {
    /// Uploads `mesh`'s Delta Mush data for the draw items `items` (index, primitive) of its
    /// node, skinned from palette `slot`.
    pub fn new(
        ctx: &GpuContext,
        mesh: &MeshDm,
        slot: usize,
        items: &[(usize, usize)],
        row_stride: u32,
    ) -> Result<Self, RenderError> {
        let (words, params) = dm_static_words(mesh, row_stride);
        let statics = storage_words(ctx, "dqview::DmSurfaceGpu::statics", &words)?;
        let mut prims = Vec::with_capacity(items.len());
        for &(item, primitive) in items {
            let map = dm_welded_of_words(mesh, primitive);
            prims.push(DmPrimitiveGpu {
                item,
                welded_of: storage_words(ctx, "dqview::DmSurfaceGpu::welded_of", &map)?,
                params: uniform(
                    ctx,
                    "dqview::DmSurfaceGpu::primitive_params",
                    &GpuDmPrimitiveParams::default(),
                ),
                groups: None,
            });
        }
        Ok(Self {
            slot,
            welded_count: params.welded_count,
            iterations: mesh.dm.params.iterations,
            params: uniform(ctx, "dqview::DmSurfaceGpu::params", &params),
            statics,
            prims,
            instanced: None,
        })
    }

    /// (Re)makes the instance-sized buffers and every bind group for `items`' current outputs.
    pub fn bind(
        &mut self,
        ctx: &GpuContext,
        renderer: &Renderer,
        items: &[DrawItem],
        (instances, row_stride): (usize, u32),
    ) -> Result<(), RenderError> {
        let welded = self.welded_count as usize * instances.max(1);
        let buffer = |what: &'static str, vec4s: usize| -> Result<wgpu::Buffer, RenderError> {
            let bytes = (vec4s * 16).max(16) as u64;
            check_size(ctx, what, bytes)?;
            Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(what),
                size: bytes,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }))
        };
        let lbs = buffer("dqview::DmSurfaceGpu::lbs", welded)?;
        let s0 = buffer("dqview::DmSurfaceGpu::smoothed", welded)?;
        let s1 = buffer("dqview::DmSurfaceGpu::smoothed", welded)?;
        let corrected = buffer("dqview::DmSurfaceGpu::corrected", welded * 4)?;
        let layouts = renderer.layouts();
        let step = |src: &wgpu::Buffer, dst: &wgpu::Buffer| {
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("dqview::DmSurfaceGpu::step"),
                layout: &layouts.dm_surface,
                entries: &[
                    whole(0, &self.params),
                    whole(1, &self.statics),
                    whole(2, &lbs),
                    whole(3, src),
                    whole(4, dst),
                    whole(5, &corrected),
                ],
            })
        };
        let steps = [step(&lbs, &s1), step(&s1, &s0), step(&s0, &s1)];
        for p in &mut self.prims {
            let Some(item) = items.get(p.item) else {
                continue;
            };
            let words = item.geometry.skinned().map_or(0, |(_, w)| w);
            let params = GpuDmPrimitiveParams {
                vertex_count: item.geometry.vertex_count() as u32,
                skinned_words: words,
                welded_count: self.welded_count,
                row_stride,
            };
            ctx.queue
                .write_buffer(&p.params, 0, bytemuck::bytes_of(&params));
            let group = |welded: &wgpu::Buffer| {
                ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("dqview::DmSurfaceGpu::primitive"),
                    layout: &layouts.dm_primitive,
                    entries: &[
                        whole(0, &p.params),
                        whole(1, &p.welded_of),
                        whole(2, welded),
                    ],
                })
            };
            p.groups = Some((group(&lbs), group(&corrected)));
        }
        self.instanced = Some(DmInstanced {
            steps,
            lbs,
            corrected,
        });
        Ok(())
    }

    /// Records gather, smoothing, correction and scatter into `pass`, after `cs_skin` wrote
    /// every item's LBS output; `palette` is the slot's group 0.
    pub fn encode(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        renderer: &Renderer,
        items: &[DrawItem],
        (binding, palette): (super::PaletteBinding, &wgpu::BindGroup),
        (instances, max_x): (u32, u32),
    ) -> Result<(), RenderError> {
        let Some(instanced) = &self.instanced else {
            return Ok(());
        };
        let prims: Vec<(&DrawItem, &DmPrimitiveGpu)> = self
            .prims
            .iter()
            .filter_map(|p| Some((items.get(p.item)?, p)))
            .collect();
        let per_primitive = |pass: &mut wgpu::ComputePass<'_>, which: DmPass| {
            pass.set_pipeline(&renderer.dm_pipeline(which, binding)?);
            pass.set_bind_group(0, renderer.dm_empty_group(), &[]);
            pass.set_bind_group(1, renderer.dm_empty_group(), &[]);
            for (item, p) in &prims {
                let (Some(output), Some((gather, scatter))) = (&item.compute_group, &p.groups)
                else {
                    continue;
                };
                let (x, y) = dispatch_size(item.geometry.vertex_count(), max_x);
                if x == 0 {
                    continue;
                }
                if which == DmPass::Scatter {
                    pass.set_bind_group(1, item.geometry.compute_group(), &[]);
                }
                pass.set_bind_group(2, output, &[]);
                let group = if which == DmPass::Gather {
                    gather
                } else {
                    scatter
                };
                pass.set_bind_group(3, group, &[]);
                pass.dispatch_workgroups(x, y, instances);
            }
            Ok::<(), RenderError>(())
        };
        per_primitive(pass, DmPass::Gather)?;
        let (x, y) = dispatch_size(self.welded_count as usize, max_x);
        if x > 0 {
            pass.set_pipeline(&renderer.dm_pipeline(DmPass::Smooth, binding)?);
            pass.set_bind_group(0, palette, &[]);
            for k in 0..self.iterations {
                let step = match k {
                    0 => 0,
                    k if k % 2 == 1 => 1,
                    _ => 2,
                };
                pass.set_bind_group(1, &instanced.steps[step], &[]);
                pass.dispatch_workgroups(x, y, instances);
            }
            // The last step wrote S1 after an odd count of steps, S0 after an even one.
            let last = match self.iterations {
                0 => 0,
                n if n % 2 == 1 => 1,
                _ => 2,
            };
            pass.set_pipeline(&renderer.dm_pipeline(DmPass::Correct, binding)?);
            pass.set_bind_group(0, palette, &[]);
            pass.set_bind_group(1, &instanced.steps[last], &[]);
            pass.dispatch_workgroups(x, y, instances);
        }
        per_primitive(pass, DmPass::Scatter)
    }

    /// The palette slot the surface's skin is in.
    pub fn slot(&self) -> usize {
        self.slot
    }

    /// Bytes of every buffer of the surface: static data, welded maps, per-instance buffers.
    pub fn bytes(&self) -> u64 {
        let maps: u64 = self.prims.iter().map(|p| p.welded_of.size()).sum();
        let instanced = self
            .instanced
            .as_ref()
            .map_or(0, |i| i.lbs.size() * 3 + i.corrected.size());
        self.statics.size() + maps + instanced
    }
}
