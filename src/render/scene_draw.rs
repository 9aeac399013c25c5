//! Drawing a [`SceneGpu`] and running its compute pass: the frame code of every view.

use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Vec3, Vec4};

use super::crowd::SkinPath;
use super::gpu_data::{GpuComputeParams, WORKGROUP_SIZE};
use super::material::in_draw_order;
use super::pipelines::{DrawKind, PipelineKey};
use super::scene_gpu::{DrawItem, SceneGpu};
use super::{FrameBinding, GpuContext, RenderError, Renderer};
use crate::scene::Topology;
use crate::skin::{Betas, SkinnedVertices, SkinningMode};

/// Vertices (times instances) compute passes have been recorded to skin in this process.
static GPU_SKINNED_VERTICES: AtomicU64 = AtomicU64::new(0);

/// How many vertices (times instances) [`SceneGpu::encode_skinning`] has recorded for
/// skinning in this process: lets a test check that a readback skins each vertex once.
#[must_use]
pub fn gpu_skinned_vertices() -> u64 {
    GPU_SKINNED_VERTICES.load(Ordering::Relaxed)
}

/// What a compute pass skins with: mode, hybrid beta scale, bulge compensation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkinRun {
    /// The skinning mode.
    pub mode: SkinningMode,
    /// Hybrid beta scale (each vertex's beta times this; a primitive without betas uses it alone).
    pub beta: f32,
    /// DQS bulge compensation in [0, 1].
    pub bulge: f32,
}

impl SkinRun {
    /// `mode` with hybrid beta `beta` and no bulge compensation.
    #[must_use]
    pub fn new(mode: SkinningMode, beta: f32) -> Self {
        Self {
            mode,
            beta,
            bulge: 0.0,
        }
    }

    /// The parameters `cs_skin` reads; beta clamped (NaN as DQS) and bulge clamped (NaN as off) as on the CPU.
    fn to_gpu(self, row_stride: u32) -> GpuComputeParams {
        GpuComputeParams {
            beta_scale: Betas::Uniform(self.beta).of(0),
            bulge: self.bulge_amount(),
            row_stride,
            pad: 0,
        }
    }

    /// The bulge compensation clamped to [0, 1], NaN as off.
    fn bulge_amount(self) -> f32 {
        if self.bulge.is_finite() {
            self.bulge.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

/// Workgroups in x and y for `vertices`: one row while it fits `max_x`, else rows of `max_x`.
pub(crate) fn dispatch_size(vertices: usize, max_x: u32) -> (u32, u32) {
    let groups = vertices.div_ceil(WORKGROUP_SIZE as usize) as u64;
    let max_x = u64::from(max_x.max(1));
    if groups <= max_x {
        (groups as u32, 1)
    } else {
        (max_x as u32, groups.div_ceil(max_x) as u32)
    }
}

impl SceneGpu {
    /// Records the compute pass skinning every skinned primitive of every instance with
    /// `run` (compute path; else nothing). Views in `run.mode` then draw its output.
    ///
    /// The parameters are written to the queue now, so one submission skins in one mode.
    pub fn encode_skinning(
        &self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &Renderer,
        run: SkinRun,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<(), RenderError> {
        let Some(compute) = &self.compute else {
            return Ok(());
        };
        // The vertex path has compute outputs only to draw Delta Mush from.
        if self.path == SkinPath::Vertex && run.mode != SkinningMode::Dm {
            return Ok(());
        }
        let params = run.to_gpu(compute.row_stride);
        ctx.queue
            .write_buffer(&compute.buffer, 0, bytemuck::bytes_of(&params));
        let max_x = ctx.device.limits().max_compute_workgroups_per_dimension;
        let instances = self.instances() as u32;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("dqview::SceneGpu::skinning"),
            timestamp_writes,
        });
        // Delta Mush starts from LBS and smooths it afterwards.
        let skin_mode = match run.mode {
            SkinningMode::Dm => SkinningMode::Lbs,
            mode => mode,
        };
        for item in &self.items {
            let (Some(output), Some((binding, palette))) =
                (&item.compute_group, self.store.bind_group(item.slot))
            else {
                continue;
            };
            let (x, y) = dispatch_size(item.geometry.vertex_count(), max_x);
            if x == 0 {
                continue;
            }
            let bulge = run.mode == SkinningMode::Dqs && run.bulge_amount() > 0.0;
            pass.set_pipeline(&renderer.compute_pipeline(binding, skin_mode, bulge)?);
            pass.set_bind_group(0, palette, &[]);
            pass.set_bind_group(1, item.geometry.compute_group(), &[]);
            pass.set_bind_group(2, output, &[]);
            pass.dispatch_workgroups(x, y, instances);
            let skinned = item.geometry.vertex_count() as u64 * u64::from(instances);
            GPU_SKINNED_VERTICES.fetch_add(skinned, Ordering::Relaxed);
        }
        if run.mode == SkinningMode::Dm {
            for surface in &self.dm {
                if let Some(palette) = self.store.bind_group(surface.slot()) {
                    surface.encode(
                        &mut pass,
                        renderer,
                        &self.items,
                        palette,
                        (instances, max_x),
                    )?;
                }
            }
        }
        self.skinned_mode.set(Some(run.mode));
        Ok(())
    }

    /// Records every primitive of every instance, skinned with `mode`, into `pass`.
    ///
    /// Opaque and alpha-masked primitives go first, then the alpha-blended ones in scene
    /// order (not sorted by depth). On the compute path, views in the mode the last
    /// compute pass skinned draw its output; other views skin in the vertex shader.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        renderer: &Renderer,
        frame: &FrameBinding,
        mode: SkinningMode,
    ) {
        self.draw_slice(pass, renderer, frame, mode, (0, 1));
    }

    /// [`SceneGpu::draw`] for slice `k` of `n` of every primitive's triangles (whole
    /// triangles, in index order; segments and points for lines and points), so one large
    /// draw can be split over several passes.
    pub fn draw_slice(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        renderer: &Renderer,
        frame: &FrameBinding,
        mode: SkinningMode,
        (k, n): (usize, usize),
    ) {
        let order = in_draw_order(
            &self.items,
            |i: &DrawItem| i.material,
            &self.materials,
            renderer.default_material(),
        );
        for (item, material) in order {
            let kind = match item.topology {
                Topology::Lines => DrawKind::Lines,
                Topology::Points => DrawKind::Points,
                Topology::Triangles if frame.debug_view() => DrawKind::Debug,
                Topology::Triangles if material.blend => DrawKind::Blended,
                Topology::Triangles => DrawKind::Shaded,
            };
            let (indices, count) = item.geometry.triangles();
            let arity = item.topology.arity() as u32;
            let elements = u64::from(count / arity);
            let n = n.max(1) as u64;
            let at = |k: u64| (elements * k.min(n) / n) as u32 * arity;
            self.draw_item(
                pass,
                renderer,
                frame,
                (item, material),
                (mode, kind),
                (indices, at(k as u64)..at(k as u64 + 1)),
            );
        }
    }

    /// Records the edges of every primitive (after [`SceneGpu::make_edges`]) skinned with
    /// `mode`, depth-tested or on top of everything; `frame` holds the edge colour.
    pub fn draw_wire(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        renderer: &Renderer,
        frame: &FrameBinding,
        mode: SkinningMode,
        on_top: bool,
    ) {
        let kind = if on_top {
            DrawKind::WireOnTop
        } else {
            DrawKind::Wire
        };
        let material = renderer.default_material();
        for item in &self.items {
            if let Some((edges, count)) = item.geometry.edges() {
                let indices = (edges, 0..count);
                self.draw_item(
                    pass,
                    renderer,
                    frame,
                    (item, material),
                    (mode, kind),
                    indices,
                );
            }
        }
    }

    /// One indexed, instanced draw of `item` through the pipeline of (`mode`, `kind`).
    fn draw_item(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        renderer: &Renderer,
        frame: &FrameBinding,
        (item, material): (&DrawItem, &super::GpuMaterialBinding),
        (mode, kind): (SkinningMode, DrawKind),
        (indices, range): (&wgpu::Buffer, std::ops::Range<u32>),
    ) {
        let Some((binding, palette)) = self.store.bind_group(item.slot) else {
            return;
        };
        let preskinned = item.compute_group.is_some() && self.skinned_mode.get() == Some(mode);
        let key = PipelineKey {
            mode,
            binding,
            kind,
            preskinned,
            bulge: mode == SkinningMode::Dqs && !preskinned && frame.bulge(),
        };
        let Some(pipeline) = renderer.pipeline(key) else {
            return;
        };
        if range.is_empty() || item.geometry.vertex_count() == 0 {
            return;
        }
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, palette, &[]);
        pass.set_bind_group(1, item.geometry.draw_group(), &[]);
        pass.set_bind_group(2, &frame.bind_group, &[]);
        pass.set_bind_group(3, &material.bind_group, &[]);
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(range, 0, 0..self.instances() as u32);
    }

    /// Reads back what the last compute pass wrote for draw `index`, instance `instance`
    /// (world space, the instance's grid offset included); empty where nothing was skinned.
    pub fn read_skinned(
        &self,
        ctx: &GpuContext,
        index: usize,
        instance: usize,
    ) -> Result<SkinnedVertices, RenderError> {
        let Some(item) = self.items.get(index) else {
            return Ok(SkinnedVertices::default());
        };
        let Some((buffer, words)) = item.geometry.skinned() else {
            return Ok(SkinnedVertices::default());
        };
        let bytes = ctx.read_buffer(buffer, "dqview::SceneGpu::readback")?;
        let floats: &[f32] =
            bytemuck::try_cast_slice(&bytes).map_err(|e| RenderError::Readback {
                label: "dqview::SceneGpu::readback",
                message: e.to_string(),
            })?;
        let n = item.geometry.vertex_count();
        let words = words as usize;
        let start = instance * n * words;
        let records = floats
            .get(start..start + n * words)
            .unwrap_or(&[])
            .chunks_exact(words.max(1));
        let mut out = SkinnedVertices::default();
        for r in records {
            out.positions.push(Vec3::new(r[0], r[1], r[2]));
            out.normals.push(Vec3::new(r[3], r[4], r[5]));
            if words >= 10 {
                out.tangents.push(Vec4::new(r[6], r[7], r[8], r[9]));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch_goes_2d_past_the_limit() {
        assert_eq!(dispatch_size(1, 65535), (1, 1));
        assert_eq!(dispatch_size(0, 65535), (0, 1));
        assert_eq!(dispatch_size(64 * 65535, 65535), (65535, 1));
        assert_eq!(dispatch_size(64 * 65535 + 1, 65535), (65535, 2));
    }

    #[test]
    fn skin_runs_clamp_as_the_cpu_does() {
        let p = SkinRun {
            mode: SkinningMode::Hybrid,
            beta: f32::NAN,
            bulge: 7.0,
        }
        .to_gpu(64);
        assert_eq!((p.beta_scale, p.bulge), (1.0, 1.0));
        let p = SkinRun {
            bulge: f32::NAN,
            ..SkinRun::new(SkinningMode::Dqs, -1.0)
        }
        .to_gpu(64);
        assert_eq!((p.beta_scale, p.bulge), (0.0, 0.0));
    }
}
