//! One primitive's geometry on the GPU (bind group 1): packed once, read by every pipeline.
//!
//! The bind pose, influences, morph deltas, per-vertex betas and centers of rotation live in
//! storage buffers that the vertex shaders and the compute pass both pull from by vertex
//! index (`shaders/geometry.wgsl`), so a new per-vertex input is added here once. Buffers
//! are filled in chunks straight into mapped memory: no whole CPU copy of a buffer is made.

use glam::{Vec2, Vec3, Vec4};
use wgpu::util::DeviceExt;

use super::geometry_buffers::{changed_span, empty_buffer, filled, write_optional};
use super::geometry_pack::{edges_of, params_of, push_influences, push_morph_delta, push_record};
use super::gpu_data::{
    ABSENT, GEOMETRY_HAS_BETAS, GEOMETRY_HAS_CENTERS, GEOMETRY_HAS_DDM, GpuGeometryParams,
    MAX_GPU_MORPH_TARGETS,
};
use super::layout::{GpuLayouts, whole};
use super::{GpuContext, RenderError};
use crate::influences::Influences;
use crate::scene::MorphTarget;
use crate::skin::effective_weight;

/// What a geometry is made from: one primitive's bind pose and attributes.
#[derive(Clone, Copy, Debug, Default)]
pub struct GeometrySource<'a> {
    /// Bind-pose positions.
    pub positions: &'a [Vec3],
    /// Unit normals (missing ones are +Y, as on the CPU).
    pub normals: &'a [Vec3],
    /// Tangents with handedness in w; empty when not wanted (the draws never shade them).
    pub tangents: &'a [Vec4],
    /// Texture coordinates, when the primitive has them.
    pub uvs: Option<&'a [Vec2]>,
    /// Linear RGBA vertex colours, when the primitive has them (another count is ignored).
    pub colors: Option<&'a [Vec4]>,
    /// Joint influences; `None` for a primitive moved rigidly by joint 0 of its slot.
    pub influences: Option<&'a Influences>,
    /// Morph targets, applied in bind space before skinning.
    pub morph_targets: &'a [MorphTarget],
    /// Triangle list indices.
    pub indices: &'a [u32],
}

/// One primitive's buffers and its two bind groups (draw and compute).
#[derive(Debug)]
pub struct GpuGeometry {
    params: GpuGeometryParams,
    params_buffer: wgpu::Buffer,
    records: wgpu::Buffer,
    influences: wgpu::Buffer,
    /// Hybrid betas (one f32 per vertex from word 0) and centers of rotation (three from word
    /// `vertex_count`): `vertex_scalars`, made when either is first set.
    scalars: Option<wgpu::Buffer>,
    /// What the betas part holds, so a painted stroke uploads only the values it changed.
    betas_shown: Vec<f32>,
    /// Direct Delta Mush's per-vertex pairs (`shaders/geometry.wgsl`'s `vertex_ddm`).
    ddm: Option<wgpu::Buffer>,
    morph_deltas: wgpu::Buffer,
    skinned: Option<wgpu::Buffer>,
    /// A 16-byte stand-in for every optional buffer that is not there.
    empty: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
    /// Unique edges as a line list (wireframe and ghost), made on first use.
    edges: Option<(wgpu::Buffer, u32)>,
    draw_group: wgpu::BindGroup,
    compute_group: wgpu::BindGroup,
    /// Writes to the buffers and bind groups since the geometry was made.
    revision: u64,
}

impl GpuGeometry {
    /// Packs and uploads `source`.
    ///
    /// Each vertex keeps its four or eight heaviest influences (eight when some vertex has
    /// more than four), renormalised over the ones kept.
    pub fn new(
        ctx: &GpuContext,
        layouts: &GpuLayouts,
        source: &GeometrySource<'_>,
    ) -> Result<Self, RenderError> {
        let n = source.positions.len();
        if source.morph_targets.len() > MAX_GPU_MORPH_TARGETS {
            return Err(RenderError::TooManyMorphTargets {
                targets: source.morph_targets.len(),
                limit: MAX_GPU_MORPH_TARGETS,
            });
        }
        let index_count = u32::try_from(source.indices.len())
            .map_err(|_| too_large("indices", source.indices.len() * 4, u64::from(u32::MAX)))?;
        let params = params_of(source);
        let limits = ctx.device.limits();
        let record_bytes = n * params.record_words as usize * 4;
        let influence_bytes = n * params.influence_words as usize * 4;
        let morph_bytes = source.morph_targets.len() * n * 48;
        for (what, bytes) in [
            ("vertex records", record_bytes),
            ("influences", influence_bytes),
            ("morph deltas", morph_bytes),
        ] {
            if bytes as u64 > limits.max_storage_buffer_binding_size {
                return Err(too_large(
                    what,
                    bytes,
                    limits.max_storage_buffer_binding_size,
                ));
            }
        }
        ctx.scoped("dqview::GpuGeometry::new", || {
            let storage = wgpu::BufferUsages::STORAGE;
            let records = filled(
                ctx,
                "records",
                storage,
                n,
                params.record_words as usize,
                |v, out| {
                    push_record(source, &params, v, out);
                },
            )?;
            let influences = match source.influences {
                Some(inf) => filled(
                    ctx,
                    "influences",
                    storage,
                    n,
                    params.influence_words as usize,
                    |v, out| {
                        push_influences(inf, v, params.influence_words, out);
                    },
                )?,
                None => empty_buffer(ctx, "influences"),
            };
            let morph_deltas = if source.morph_targets.is_empty() {
                empty_buffer(ctx, "morph_deltas")
            } else {
                let items = source.morph_targets.len() * n;
                filled(ctx, "morph_deltas", storage, items, 12, |i, out| {
                    push_morph_delta(source.morph_targets, n, i, out);
                })?
            };
            let index = wgpu::BufferUsages::INDEX;
            let indices = filled(ctx, "indices", index, source.indices.len(), 1, |i, out| {
                out.push(source.indices[i]);
            })?;
            let params_buffer = ctx
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("dqview::GpuGeometry::params"),
                    contents: bytemuck::bytes_of(&params),
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                });
            let empty = empty_buffer(ctx, "empty");
            let (draw_group, compute_group) = bind_groups(
                ctx,
                layouts,
                [
                    &params_buffer,
                    &records,
                    &influences,
                    &empty,
                    &empty,
                    &morph_deltas,
                    &empty,
                ],
            );
            Ok(Self {
                params,
                params_buffer,
                records,
                influences,
                scalars: None,
                betas_shown: Vec::new(),
                ddm: None,
                morph_deltas,
                skinned: None,
                empty,
                indices,
                index_count,
                edges: None,
                draw_group,
                compute_group,
                revision: 0,
            })
        })?
    }

    /// Vertices in the geometry.
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.params.vertex_count as usize
    }

    /// Whether the geometry is moved by one matrix (no influences).
    #[must_use]
    pub fn is_rigid(&self) -> bool {
        self.params.influence_words == 0
    }

    /// Whether the vertex records hold tangents.
    #[must_use]
    pub fn has_tangents(&self) -> bool {
        self.params.tangent_at != ABSENT
    }

    /// Group 1 of the render pipelines.
    #[must_use]
    pub fn draw_group(&self) -> &wgpu::BindGroup {
        &self.draw_group
    }

    /// Group 1 of `cs_skin`.
    #[must_use]
    pub fn compute_group(&self) -> &wgpu::BindGroup {
        &self.compute_group
    }

    /// The triangle list and its index count.
    #[must_use]
    pub fn triangles(&self) -> (&wgpu::Buffer, u32) {
        (&self.indices, self.index_count)
    }

    /// The edge list and its index count, once [`GpuGeometry::make_edges`] ran.
    #[must_use]
    pub fn edges(&self) -> Option<(&wgpu::Buffer, u32)> {
        self.edges.as_ref().map(|(b, n)| (b, *n))
    }

    /// The skinned-output buffer and its words per vertex, once [`GpuGeometry::make_skinned`] ran.
    #[must_use]
    pub fn skinned(&self) -> Option<(&wgpu::Buffer, u32)> {
        self.skinned
            .as_ref()
            .map(|b| (b, self.params.skinned_words))
    }

    /// Writes to this geometry's buffers and bind groups since it was made: equal revisions,
    /// equal contents (the viewer reuses a drawn frame on it).
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Builds the edge list from `indices` (the triangle list it was made with), once.
    pub fn make_edges(&mut self, ctx: &GpuContext, indices: &[u32]) {
        if self.edges.is_none() {
            self.set_edges(ctx, &edges_of(indices, self.vertex_count()));
        }
    }

    /// Uses `edges` (index pairs) as the edge list.
    pub fn set_edges(&mut self, ctx: &GpuContext, edges: &[u32]) {
        let buffer = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("dqview::GpuGeometry::edges"),
                contents: at_least_4(bytemuck::cast_slice(edges)),
                usage: wgpu::BufferUsages::INDEX,
            });
        self.edges = Some((buffer, u32::try_from(edges.len()).unwrap_or(0)));
        self.revision += 1;
    }

    /// Makes the buffer `cs_skin` writes `instances` copies of every vertex into:
    /// positions and normals (`tangents` false, the drawing path) or with tangents too.
    pub fn make_skinned(
        &mut self,
        ctx: &GpuContext,
        layouts: &GpuLayouts,
        instances: usize,
        tangents: bool,
    ) -> Result<(), RenderError> {
        let words: u32 = if tangents { 10 } else { 6 };
        let bytes = (instances.max(1) * self.vertex_count() * words as usize * 4).max(16);
        let limits = ctx.device.limits();
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if bytes as u64 > limit {
            return Err(too_large("skinned vertices", bytes, limit));
        }
        let buffer = ctx.scoped("dqview::GpuGeometry::make_skinned", || {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("dqview::GpuGeometry::skinned"),
                size: bytes as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        })?;
        self.skinned = Some(buffer);
        self.params.skinned_words = words;
        self.rebind(ctx, layouts);
        Ok(())
    }

    /// Writes the morph weights of the mesh node (missing ones are 0); true when they changed.
    pub fn set_morph_weights(&mut self, queue: &wgpu::Queue, weights: &[f32]) -> bool {
        let count = self.params.morph_count as usize;
        let mut changed = false;
        for t in 0..count {
            let w = effective_weight(weights, t);
            let slot = &mut self.params.morph_weights[t / 4][t % 4];
            changed |= *slot != w;
            *slot = w;
        }
        if changed {
            queue.write_buffer(&self.params_buffer, 0, bytemuck::bytes_of(&self.params));
            self.revision += 1;
        }
        changed
    }

    /// Sets per-vertex hybrid betas; another length than the vertex count removes them (beta 1).
    pub fn set_betas(&mut self, ctx: &GpuContext, layouts: &GpuLayouts, betas: &[f32]) {
        let has = self.params.flags & GEOMETRY_HAS_BETAS != 0;
        if let Some(buffer) = &self.scalars
            && has
            && self.betas_shown.len() == betas.len()
        {
            // Only the span that changed (a brush dab touches a few vertices).
            if let Some(span) = changed_span(&self.betas_shown, betas) {
                let offset = (span.start * 4) as u64;
                ctx.queue
                    .write_buffer(buffer, offset, bytemuck::cast_slice(&betas[span.clone()]));
                self.betas_shown[span.clone()].copy_from_slice(&betas[span]);
                self.revision += 1;
            }
            return;
        }
        let fits = self.set_scalars(ctx, layouts, GEOMETRY_HAS_BETAS, betas, 1);
        self.betas_shown = if fits { betas.to_vec() } else { Vec::new() };
    }

    /// Sets per-vertex centers of rotation; another length than the vertex count removes them.
    pub fn set_cor_centers(&mut self, ctx: &GpuContext, layouts: &GpuLayouts, centers: &[Vec3]) {
        let values: &[f32] = bytemuck::cast_slice(centers);
        self.set_scalars(ctx, layouts, GEOMETRY_HAS_CENTERS, values, 3);
    }

    /// Sets Direct Delta Mush's pairs, packed as `vertex_ddm` ([`super::geometry_pack::ddm_words`]);
    /// words for another vertex count (or none) remove them, and DDM draws LBS. An error, with
    /// nothing changed, when they exceed the adapter's storage binding size.
    pub fn set_ddm(
        &mut self,
        ctx: &GpuContext,
        layouts: &GpuLayouts,
        words: &[u32],
    ) -> Result<(), RenderError> {
        let limit = ctx.device.limits().max_storage_buffer_binding_size;
        if words.len() as u64 * 4 > limit {
            return Err(too_large("DDM matrices", words.len() * 4, limit));
        }
        let n = self.vertex_count();
        let fits = n > 0 && words.len() > n && words[0] == 0;
        if fits {
            self.revision += 1;
        }
        let bytes = bytemuck::cast_slice(words);
        let name = "dqview::GpuGeometry::ddm";
        let changed = write_optional(ctx, &mut self.ddm, name, fits.then_some(bytes));
        let flags = if fits {
            self.params.flags | GEOMETRY_HAS_DDM
        } else {
            self.params.flags & !GEOMETRY_HAS_DDM
        };
        if changed || flags != self.params.flags {
            self.params.flags = flags;
            self.rebind(ctx, layouts);
        }
        Ok(())
    }

    /// Writes the `per_vertex` values per vertex of `flag` into their part of `vertex_scalars`
    /// (betas from word 0, centers from word `vertex_count`), or clears the flag when they are
    /// not one set per vertex; true when they were written.
    fn set_scalars(
        &mut self,
        ctx: &GpuContext,
        layouts: &GpuLayouts,
        flag: u32,
        values: &[f32],
        per_vertex: usize,
    ) -> bool {
        let n = self.vertex_count();
        let fits = n > 0 && values.len() == n * per_vertex;
        let mut flags = self.params.flags & !flag;
        let mut made = false;
        if fits {
            if self.scalars.is_none() {
                self.scalars = Some(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("dqview::GpuGeometry::scalars"),
                    size: (n * SCALARS_PER_VERTEX * 4) as u64,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }));
                made = true;
            }
            if let Some(buffer) = &self.scalars {
                let offset = if flag == GEOMETRY_HAS_BETAS { 0 } else { n * 4 };
                ctx.queue
                    .write_buffer(buffer, offset as u64, bytemuck::cast_slice(values));
            }
            self.revision += 1;
            flags |= flag;
        } else if flags & (GEOMETRY_HAS_BETAS | GEOMETRY_HAS_CENTERS) == 0 && self.scalars.is_some()
        {
            self.scalars = None;
            made = true;
        }
        if made || flags != self.params.flags {
            self.params.flags = flags;
            self.rebind(ctx, layouts);
        }
        fits
    }

    /// Remakes both bind groups after an optional buffer appeared or went, and uploads the parameters.
    fn rebind(&mut self, ctx: &GpuContext, layouts: &GpuLayouts) {
        self.revision += 1;
        ctx.queue
            .write_buffer(&self.params_buffer, 0, bytemuck::bytes_of(&self.params));
        let empty = &self.empty;
        let (draw, compute) = bind_groups(
            ctx,
            layouts,
            [
                &self.params_buffer,
                &self.records,
                &self.influences,
                self.scalars.as_ref().unwrap_or(empty),
                self.ddm.as_ref().unwrap_or(empty),
                &self.morph_deltas,
                self.skinned.as_ref().unwrap_or(empty),
            ],
        );
        self.draw_group = draw;
        self.compute_group = compute;
    }
}

/// f32 words per vertex of `vertex_scalars`: a beta and a center.
const SCALARS_PER_VERTEX: usize = 4;

/// The draw and compute bind groups of `buffers` (params, records, influences, betas and
/// centers, DDM pairs, morph deltas, skinned vertices: bindings 0 to 6; compute has no 6).
fn bind_groups(
    ctx: &GpuContext,
    layouts: &GpuLayouts,
    buffers: [&wgpu::Buffer; 7],
) -> (wgpu::BindGroup, wgpu::BindGroup) {
    let entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| whole(i as u32, b))
        .collect();
    let compute_entries = &entries[..6];
    let group = |label, layout, entries: &[wgpu::BindGroupEntry<'_>]| {
        ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout,
            entries,
        })
    };
    (
        group(
            "dqview::GpuGeometry::draw_group",
            &layouts.geometry_draw,
            &entries,
        ),
        group(
            "dqview::GpuGeometry::compute_group",
            &layouts.geometry_compute,
            compute_entries,
        ),
    )
}

/// `bytes`, or four zero bytes where it is empty (a zero-sized binding is not legal).
fn at_least_4(bytes: &[u8]) -> &[u8] {
    if bytes.is_empty() { &[0; 4] } else { bytes }
}

/// A [`RenderError::TooLarge`] for geometry buffer `what`.
fn too_large(what: &'static str, bytes: usize, limit: u64) -> RenderError {
    RenderError::TooLarge {
        what,
        bytes: bytes as u64,
        limit,
    }
}
