//! A skinned mesh's bind-pose vertex buffers for the render pipelines.

use glam::{Vec2, Vec3, Vec4};
use wgpu::util::DeviceExt;

use super::gpu_data::{GpuMeshVertex, GpuVertexJoints, pack_colors};
use super::{GpuContext, RenderError};
use crate::skin::SkinMesh;

/// Vertex, influence and index buffers of one skinned primitive.
#[derive(Debug)]
pub struct GpuMesh {
    /// Positions and normals (`GpuMeshVertex`), vertex buffer 0.
    pub vertices: wgpu::Buffer,
    /// Eight influences per vertex (`GpuVertexJoints`), vertex buffer 1.
    pub joints: wgpu::Buffer,
    /// Hybrid beta per vertex (`f32`), vertex buffer 2; 1 until [`GpuMesh::write_betas`].
    pub betas: wgpu::Buffer,
    /// Linear RGBA colour per vertex (`Unorm16x4`), vertex buffer 3; white when the primitive has none.
    pub colors: wgpu::Buffer,
    /// Center of rotation per vertex (`[f32; 3]`), vertex buffer 4 of the CoR pipeline;
    /// the bind positions (CoR then equals LBS) until [`GpuMesh::write_cor_centers`].
    pub cor_centers: wgpu::Buffer,
    /// Vertices in the buffers.
    pub vertex_count: usize,
    /// Triangle list indices (u32).
    pub indices: wgpu::Buffer,
    /// Indices to draw.
    pub index_count: u32,
}

impl GpuMesh {
    /// Uploads `mesh` (missing normals become +Y, as on the CPU) and its triangle list `indices`.
    ///
    /// Each vertex keeps its eight heaviest influences, renormalised, as in the compute pass.
    /// Vertex colours of another count than the positions' are ignored (white).
    pub fn new(
        ctx: &GpuContext,
        mesh: &SkinMesh<'_>,
        uvs: Option<&[Vec2]>,
        colors: Option<&[Vec4]>,
        indices: &[u32],
    ) -> Result<Self, RenderError> {
        let n = mesh.positions.len();
        let vertices = pack_vertices(mesh.positions, mesh.normals, uvs);
        let colors = colors.filter(|c| c.len() == n);
        // Allocated once per primitive: the draw never needs a per-frame stand-in.
        let packed_colors = colors.map_or_else(|| vec![[u16::MAX; 4]; n], pack_colors);
        let mut joints = vec![GpuVertexJoints::default(); n];
        for (set, (set_joints, set_weights)) in mesh.influences.to_fixed_sets(2).iter().enumerate()
        {
            for (dst, (j, w)) in joints.iter_mut().zip(set_joints.iter().zip(set_weights)) {
                dst.joints[set] = *j;
                dst.weights[set] = *w;
            }
        }
        let index_count = u32::try_from(indices.len()).map_err(|_| RenderError::TooLarge {
            what: "dqview::GpuMesh::indices",
            bytes: (indices.len() * 4) as u64,
            limit: u64::from(u32::MAX),
        })?;
        ctx.scoped("dqview::GpuMesh::new", || {
            let init = |label, contents: &[u8], usage| {
                ctx.device
                    .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some(label),
                        contents,
                        usage,
                    })
            };
            // Empty buffers are legal, but a zero-sized vertex binding is not: keep 4 bytes.
            let at_least = |bytes: &[u8]| -> Vec<u8> {
                let mut v = bytes.to_vec();
                v.resize(v.len().max(4), 0);
                v
            };
            Self {
                vertices: init(
                    "dqview::GpuMesh::vertices",
                    &at_least(bytemuck::cast_slice(&vertices)),
                    // COPY_DST: morphed bind poses are rewritten by `write_vertices`.
                    wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                ),
                joints: init(
                    "dqview::GpuMesh::joints",
                    &at_least(bytemuck::cast_slice(&joints)),
                    wgpu::BufferUsages::VERTEX,
                ),
                betas: init(
                    "dqview::GpuMesh::betas",
                    &at_least(bytemuck::cast_slice(&vec![1.0f32; n])),
                    wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                ),
                colors: init(
                    "dqview::GpuMesh::colors",
                    &at_least(bytemuck::cast_slice(&packed_colors)),
                    wgpu::BufferUsages::VERTEX,
                ),
                cor_centers: init(
                    "dqview::GpuMesh::cor_centers",
                    &at_least(bytemuck::cast_slice(mesh.positions)),
                    wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                ),
                vertex_count: n,
                indices: init(
                    "dqview::GpuMesh::indices",
                    &at_least(bytemuck::cast_slice(indices)),
                    wgpu::BufferUsages::INDEX,
                ),
                index_count,
            }
        })
    }
}

/// Positions, normals (+Y stand-in, as `SkinMesh::normal`) and texture coordinates of every vertex.
fn pack_vertices(positions: &[Vec3], normals: &[Vec3], uvs: Option<&[Vec2]>) -> Vec<GpuMeshVertex> {
    positions
        .iter()
        .enumerate()
        .map(|(v, p)| GpuMeshVertex {
            position: p.to_array(),
            normal: normals.get(v).copied().unwrap_or(Vec3::Y).to_array(),
            uv: uvs
                .and_then(|u| u.get(v))
                .map_or([0.0; 2], |u| u.to_array()),
        })
        .collect()
}

impl GpuMesh {
    /// Writes per-vertex centers of rotation; a wrong-length list is ignored (the buffer keeps its centers).
    pub fn write_cor_centers(&self, queue: &wgpu::Queue, centers: &[glam::Vec3]) {
        if self.vertex_count > 0 && centers.len() == self.vertex_count {
            queue.write_buffer(&self.cor_centers, 0, bytemuck::cast_slice(centers));
        }
    }

    /// Rewrites the bind-pose vertices (a morphed pose) into the existing buffer.
    ///
    /// Positions of another count than the buffer's are ignored.
    pub fn write_vertices(
        &self,
        queue: &wgpu::Queue,
        positions: &[Vec3],
        normals: &[Vec3],
        uvs: Option<&[Vec2]>,
    ) {
        if self.vertex_count == 0 || positions.len() != self.vertex_count {
            return;
        }
        let vertices = pack_vertices(positions, normals, uvs);
        queue.write_buffer(&self.vertices, 0, bytemuck::cast_slice(&vertices));
    }

    /// Writes per-vertex hybrid betas into the existing buffer; a wrong-length list writes all 1.
    pub fn write_betas(&self, queue: &wgpu::Queue, betas: &[f32]) {
        if self.vertex_count == 0 {
            return;
        }
        if betas.len() == self.vertex_count {
            queue.write_buffer(&self.betas, 0, bytemuck::cast_slice(betas));
        } else {
            queue.write_buffer(
                &self.betas,
                0,
                bytemuck::cast_slice(&vec![1.0f32; self.vertex_count]),
            );
        }
    }
}
