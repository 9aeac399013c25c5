//! A crowd: K copies of a scene's skinned meshes in a grid, each at its own clip time.
//!
//! Both skinning paths draw it. The vertex path skins in the vertex shader
//! (K palettes, K draws per primitive); the compute path runs one compute
//! dispatch per primitive per instance into a vertex buffer, then a plain draw.
//! Palettes of every instance live in one set of buffers written once per frame.

use glam::{Mat4, Vec3};

use super::crowd_draw::SkinnedDrawPipeline;
use super::crowd_palette::CrowdPalettes;
use super::crowd_skin::{ComputeTargets, CrowdSkinner};
use super::gpu_data::GpuDrawVertex;
use super::material::{GpuMaterialBinding, in_draw_order};
use super::mesh::GpuMesh;
use super::shaders::PaletteBinding;
use super::{FrameBinding, GpuContext, RenderError, Renderer};
use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::scene::Scene;
use crate::skin::{JointPalette, SkinMesh, SkinningMode};

/// Where the skinning runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkinPath {
    /// In the vertex shader of every draw.
    Vertex,
    /// In a compute pass into vertex buffers, then a plain draw.
    Compute,
}

impl SkinPath {
    /// Lower-case name (`vertex`, `compute`), as the CLI spells it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Vertex => "vertex",
            Self::Compute => "compute",
        }
    }

    /// Parses a name, ignoring case.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Vertex, Self::Compute]
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
    }
}

/// One skinned primitive of the crowd.
#[derive(Debug)]
struct CrowdPrimitive {
    /// Mesh and primitive index in the scene.
    source: (usize, usize),
    skin: usize,
    /// Bind pose, influences, uvs and indices (the vertex path draws from it).
    mesh: GpuMesh,
    /// Compute inputs and per-instance outputs (compute path only).
    compute: Option<ComputeTargets>,
    material: Option<usize>,
}

/// K instances of a scene's skinned primitives (primitives without a skin are not drawn).
#[derive(Debug)]
pub struct Crowd {
    path: SkinPath,
    /// World translation of each instance (a grid in x and z around the origin).
    offsets: Vec<Vec3>,
    primitives: Vec<CrowdPrimitive>,
    palettes: CrowdPalettes,
    materials: Vec<GpuMaterialBinding>,
    skinner: Option<CrowdSkinner>,
    draw_pipeline: Option<SkinnedDrawPipeline>,
    /// Hybrid factor last written to the compute params.
    beta: Option<f32>,
    /// Scratch reused every update.
    pose: Pose,
    matrices: Vec<Mat4>,
    palette: JointPalette,
}

impl Crowd {
    /// Uploads `instances` copies of `scene`'s skinned primitives for `path`, at rest.
    pub fn new(
        ctx: &GpuContext,
        renderer: &Renderer,
        scene: &Scene,
        instances: usize,
        path: SkinPath,
    ) -> Result<Self, RenderError> {
        let instances = instances.max(1);
        let rest = Pose::rest(scene);
        let mut matrices = Vec::new();
        let joint_counts: Vec<usize> = (0..scene.skins.len())
            .map(|s| {
                rest.skinning_matrices(scene, s, &mut matrices);
                matrices.len()
            })
            .collect();
        let palettes = CrowdPalettes::new(
            ctx,
            renderer.palette_layout(PaletteBinding::Storage),
            instances,
            &joint_counts,
        )?;
        let (skinner, draw_pipeline) = match path {
            SkinPath::Vertex => (None, None),
            SkinPath::Compute => (
                Some(CrowdSkinner::new(ctx, renderer)?),
                Some(SkinnedDrawPipeline::new(ctx, renderer)?),
            ),
        };
        let materials = GpuMaterialBinding::for_scene(ctx, renderer.material_layout(), scene)?;
        let mut primitives = Vec::new();
        for node in &scene.nodes {
            let (Some(mesh_index), Some(skin)) = (node.mesh, node.skin) else {
                continue;
            };
            let Some(mesh) = scene.meshes.get(mesh_index) else {
                continue;
            };
            if skin >= scene.skins.len() {
                continue;
            }
            for (prim_index, prim) in mesh.primitives.iter().enumerate() {
                let Some(influences) = &prim.influences else {
                    continue;
                };
                let skin_mesh = SkinMesh {
                    positions: &prim.positions,
                    normals: &prim.normals,
                    tangents: &[],
                    influences,
                };
                let compute = skinner
                    .as_ref()
                    .map(|s| ComputeTargets::new(ctx, s, &skin_mesh, instances))
                    .transpose()?;
                primitives.push(CrowdPrimitive {
                    source: (mesh_index, prim_index),
                    skin,
                    mesh: GpuMesh::new(
                        ctx,
                        &skin_mesh,
                        prim.uvs.as_deref(),
                        prim.colors.as_deref(),
                        &prim.indices,
                    )?,
                    compute,
                    material: prim.material.filter(|&m| m < materials.len()),
                });
            }
        }
        let (min, max) = crate::skin::rest_bounds(scene).unwrap_or((Vec3::ZERO, Vec3::ZERO));
        Ok(Self {
            path,
            offsets: grid_offsets(instances, max - min),
            primitives,
            palettes,
            materials,
            skinner,
            draw_pipeline,
            beta: None,
            pose: rest,
            matrices,
            palette: JointPalette::default(),
        })
    }

    /// Instances drawn.
    #[must_use]
    pub fn instances(&self) -> usize {
        self.offsets.len()
    }

    /// The skinning path this crowd was built for.
    #[must_use]
    pub fn path(&self) -> SkinPath {
        self.path
    }

    /// World translation of `instance` (zero past the end).
    #[must_use]
    pub fn offset(&self, instance: usize) -> Vec3 {
        self.offsets.get(instance).copied().unwrap_or(Vec3::ZERO)
    }

    /// The box holding every instance of the box `min..max` (one model's bounds).
    #[must_use]
    pub fn bounds(&self, min: Vec3, max: Vec3) -> (Vec3, Vec3) {
        self.offsets.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(a, b), o| (a.min(min + *o), b.max(max + *o)),
        )
    }

    /// Clip time of `instance` when the crowd is at `time_s`: offset by `instance * duration / K`.
    #[must_use]
    pub fn instance_time_s(&self, instance: usize, time_s: f32, duration_s: f32) -> f32 {
        if duration_s <= 0.0 || !duration_s.is_finite() {
            return time_s;
        }
        let k = self.instances() as f32;
        (time_s + instance as f32 * duration_s / k).rem_euclid(duration_s)
    }

    /// Poses every instance at its own time of `clip` and uploads the palettes that changed.
    pub fn update(
        &mut self,
        ctx: &GpuContext,
        scene: &Scene,
        clip: Option<usize>,
        time_s: f32,
        overrides: &JointOverrides,
    ) {
        let duration_s = clip
            .and_then(|c| scene.animations.get(c))
            .map_or(0.0, clip_duration_s);
        let mut pose = std::mem::take(&mut self.pose);
        for instance in 0..self.instances() {
            let t = self.instance_time_s(instance, time_s, duration_s);
            pose.sample(scene, clip, t, overrides);
            self.set_pose(instance, scene, &pose);
        }
        self.pose = pose;
        self.palettes.upload(&ctx.queue);
    }

    /// Stages `instance`'s palettes at `pose` (moved to its grid cell); call [`Crowd::upload`] after.
    pub fn set_pose(&mut self, instance: usize, scene: &Scene, pose: &Pose) {
        let offset = Mat4::from_translation(self.offset(instance));
        for skin in 0..scene.skins.len() {
            pose.skinning_matrices(scene, skin, &mut self.matrices);
            for m in &mut self.matrices {
                *m = offset * *m;
            }
            self.palette.rebuild(&self.matrices);
            self.palettes.set(instance, skin, &self.palette);
        }
    }

    /// Uploads staged palettes if any changed.
    pub fn upload(&mut self, ctx: &GpuContext) {
        self.palettes.upload(&ctx.queue);
    }

    /// Palette uploads so far (one per frame in which some pose changed).
    #[must_use]
    pub fn palette_uploads(&self) -> u64 {
        self.palettes.uploads()
    }

    /// Sets the hybrid factor of the compute path (the vertex path reads it from the frame uniforms).
    pub fn set_beta(&mut self, ctx: &GpuContext, beta: f32) {
        if self.beta == Some(beta) {
            return;
        }
        for c in self.primitives.iter().filter_map(|p| p.compute.as_ref()) {
            c.set_beta(&ctx.queue, beta);
        }
        self.beta = Some(beta);
    }

    /// Records the compute pass skinning every primitive of every instance (compute path; else nothing).
    pub fn encode_skinning(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        mode: SkinningMode,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        let Some(skinner) = &self.skinner else {
            return;
        };
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("dqview::Crowd::skinning"),
            timestamp_writes,
        });
        pass.set_pipeline(skinner.pipeline());
        for prim in &self.primitives {
            let Some(compute) = &prim.compute else {
                continue;
            };
            for instance in 0..self.instances() {
                let Some(palette) = self.palettes.bind_group(instance, prim.skin) else {
                    continue;
                };
                pass.set_bind_group(0, palette, &[]);
                compute.dispatch(&mut pass, instance, mode);
            }
        }
    }

    /// Records every instance into `pass`: skinned vertices (compute path) or vertex-shader skinning.
    ///
    /// Opaque and alpha-masked primitives go first, then the alpha-blended ones (not depth-sorted).
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        renderer: &Renderer,
        frame: &FrameBinding,
        mode: SkinningMode,
    ) {
        let order = in_draw_order(
            &self.primitives,
            |p: &CrowdPrimitive| p.material,
            &self.materials,
            renderer.default_material(),
        );
        for (prim, material) in order {
            if let (Some(compute), Some(draw)) = (&prim.compute, &self.draw_pipeline) {
                pass.set_pipeline(draw.for_material(material.blend));
                pass.set_bind_group(1, &frame.bind_group, &[]);
                pass.set_bind_group(2, &material.bind_group, &[]);
                pass.set_vertex_buffer(1, prim.mesh.vertices.slice(..));
                pass.set_vertex_buffer(2, prim.mesh.colors.slice(..));
                pass.set_index_buffer(prim.mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
                for output in &compute.outputs {
                    pass.set_vertex_buffer(0, output.slice(..));
                    pass.draw_indexed(0..prim.mesh.index_count, 0, 0..1);
                }
                continue;
            }
            for instance in 0..self.instances() {
                let Some(palette) = self.palettes.bind_group(instance, prim.skin) else {
                    continue;
                };
                renderer.draw_with_palette(
                    pass,
                    (PaletteBinding::Storage, palette),
                    frame,
                    material,
                    &prim.mesh,
                    mode,
                );
            }
        }
    }

    /// Writes CPU-posed world-space vertices of primitive `index` for `instance` into its
    /// compute output, in place of the compute pass (compute path; false when there is none
    /// or the vertex count differs). The instance's grid offset is added.
    pub fn write_posed(
        &self,
        queue: &wgpu::Queue,
        index: usize,
        instance: usize,
        vertices: &crate::skin::SkinnedVertices,
    ) -> bool {
        let Some(prim) = self.primitives.get(index) else {
            return false;
        };
        let Some(output) = prim.compute.as_ref().and_then(|c| c.outputs.get(instance)) else {
            return false;
        };
        if vertices.positions.len() != prim.mesh.vertex_count {
            return false;
        }
        let offset = self.offset(instance);
        let packed: Vec<GpuDrawVertex> = vertices
            .positions
            .iter()
            .enumerate()
            .map(|(v, p)| GpuDrawVertex {
                position: (*p + offset).extend(0.0).to_array(),
                normal: vertices
                    .normals
                    .get(v)
                    .copied()
                    .unwrap_or(Vec3::Y)
                    .extend(0.0)
                    .to_array(),
            })
            .collect();
        queue.write_buffer(output, 0, bytemuck::cast_slice(&packed));
        true
    }

    /// Skinned primitives per instance.
    #[must_use]
    pub fn primitive_count(&self) -> usize {
        self.primitives.len()
    }

    /// (mesh, primitive) in the scene of crowd primitive `index`.
    #[must_use]
    pub fn primitive_source(&self, index: usize) -> Option<(usize, usize)> {
        self.primitives.get(index).map(|p| p.source)
    }

    /// Reads back what the last compute pass wrote for primitive `index` of `instance` (compute path).
    pub fn read_skinned(
        &self,
        ctx: &GpuContext,
        index: usize,
        instance: usize,
    ) -> Result<Vec<GpuDrawVertex>, RenderError> {
        let output = self.primitives.get(index).and_then(|p| {
            Some((
                p.compute.as_ref()?.outputs.get(instance)?,
                p.mesh.vertex_count,
            ))
        });
        let Some((output, n)) = output else {
            return Ok(Vec::new());
        };
        let bytes = ctx.read_buffer(output, "dqview::Crowd::readback")?;
        let vertices: &[GpuDrawVertex] =
            bytemuck::try_cast_slice(&bytes).map_err(|e| RenderError::Readback {
                label: "dqview::Crowd::readback",
                message: e.to_string(),
            })?;
        Ok(vertices.iter().take(n).copied().collect())
    }
}

/// Grid cells for `instances` models of size `extent`: columns along x, rows along z, centred.
fn grid_offsets(instances: usize, extent: Vec3) -> Vec<Vec3> {
    let columns = (instances as f64).sqrt().ceil().max(1.0) as usize;
    let rows = instances.div_ceil(columns);
    // A model's footprint plus a fifth between neighbours; never zero (a flat model).
    let spacing = (extent.x.max(extent.z) * 1.2).max(extent.y * 0.5).max(1e-3);
    (0..instances)
        .map(|i| {
            let column = (i % columns) as f32 - (columns - 1) as f32 * 0.5;
            let row = (i / columns) as f32 - (rows - 1) as f32 * 0.5;
            Vec3::new(column * spacing, 0.0, row * spacing)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_is_centred_and_cells_do_not_overlap() {
        let extent = Vec3::new(2.0, 3.0, 1.0);
        let cells = grid_offsets(5, extent);
        assert_eq!(cells.len(), 5);
        let centre = cells.iter().sum::<Vec3>() / 5.0;
        assert!(centre.x.abs() < 2.0 && centre.z.abs() < 2.0, "{centre}");
        for (i, a) in cells.iter().enumerate() {
            for b in &cells[i + 1..] {
                let d = (*a - *b).abs();
                assert!(d.x >= 2.0 || d.z >= 2.0, "{a} {b}");
            }
        }
        assert_eq!(grid_offsets(1, extent), vec![Vec3::ZERO]);
    }

    #[test]
    fn path_names_round_trip() {
        for p in [SkinPath::Vertex, SkinPath::Compute] {
            assert_eq!(SkinPath::from_name(p.name()), Some(p));
        }
        assert_eq!(SkinPath::from_name("COMPUTE"), Some(SkinPath::Compute));
        assert_eq!(SkinPath::from_name("mesh"), None);
    }
}
