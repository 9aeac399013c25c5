//! What a [`SceneGpu`] is given besides its pose: morph weights, hybrid betas, centers of
//! rotation, Direct Delta Mush matrices and edge lists, and the revision that counts every such write.

use glam::Vec3;

use super::dm_gpu::DmSurfaceGpu;
use super::geometry_pack::ddm_words;
use super::scene_gpu::{ComputeParamsBuffer, SceneGpu};
use super::{GpuContext, Renderer};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::ddm::SceneDdm;
use crate::skin::dm::SceneDm;
use crate::skin::{SceneBetas, SceneCenters};

impl SceneGpu {
    /// Writes each primitive's morph weights of `pose` (only those that changed reach the GPU).
    pub(super) fn set_morph_weights(&mut self, ctx: &GpuContext, pose: &Pose) {
        for item in &mut self.items {
            item.geometry
                .set_morph_weights(&ctx.queue, pose.morph_weights_of(item.node));
        }
    }

    /// Writes morph weights for a [`SceneGpu::from_mesh`] scene.
    pub fn set_mesh_morph_weights(&mut self, ctx: &GpuContext, weights: &[f32]) {
        for item in &mut self.items {
            item.geometry.set_morph_weights(&ctx.queue, weights);
        }
    }

    /// Writes per-vertex hybrid betas (primitives without any get 1: the beta scale alone).
    pub fn set_betas(&mut self, ctx: &GpuContext, renderer: &Renderer, betas: &SceneBetas) {
        for item in &mut self.items {
            let b = betas.of(item.source.0, item.source.1);
            item.geometry.set_betas(ctx, renderer.layouts(), b);
        }
    }

    /// Writes per-vertex hybrid betas of a [`SceneGpu::from_mesh`] scene.
    pub fn set_mesh_betas(&mut self, ctx: &GpuContext, renderer: &Renderer, betas: &[f32]) {
        for item in &mut self.items {
            item.geometry.set_betas(ctx, renderer.layouts(), betas);
        }
    }

    /// Writes per-vertex centers of rotation (primitives without any rotate about themselves: LBS).
    pub fn set_cor_centers(
        &mut self,
        ctx: &GpuContext,
        renderer: &Renderer,
        centers: &SceneCenters,
    ) {
        for item in self.items.iter_mut().filter(|i| !i.geometry.is_rigid()) {
            let c = centers.of(item.source.0, item.source.1);
            item.geometry.set_cor_centers(ctx, renderer.layouts(), c);
        }
    }

    /// Writes Direct Delta Mush's matrices (primitives without any draw DDM as LBS); an error
    /// when a primitive's are over the adapter's storage binding size (those before it are set).
    pub fn set_ddm(
        &mut self,
        ctx: &GpuContext,
        renderer: &Renderer,
        ddm: &SceneDdm,
    ) -> Result<(), super::RenderError> {
        for item in self.items.iter_mut().filter(|i| !i.geometry.is_rigid()) {
            let (mesh, primitive) = item.source;
            let words = ddm
                .per_mesh
                .get(mesh)
                .and_then(Option::as_ref)
                .and_then(|m| Some(ddm_words(m, m.surface.vertex_of.get(primitive)?)))
                .unwrap_or_default();
            item.geometry.set_ddm(ctx, renderer.layouts(), &words)?;
        }
        Ok(())
    }

    /// Uploads Delta Mush's welded surfaces (a mesh node without data, or with a primitive of
    /// its surface not skinned here, draws DM as LBS). Drawn from compute outputs, which the
    /// vertex path gets for its skinned primitives here too.
    pub fn set_dm(
        &mut self,
        ctx: &GpuContext,
        renderer: &Renderer,
        dm: &SceneDm,
    ) -> Result<(), super::RenderError> {
        self.dm.clear();
        self.dm_uploads += 1;
        let row_stride = self
            .compute
            .get_or_insert_with(|| ComputeParamsBuffer::new(ctx))
            .row_stride;
        let mut start = 0;
        while start < self.items.len() {
            let node = self.items[start].node;
            let len = self.items[start..]
                .iter()
                .take_while(|i| i.node == node)
                .count();
            let range = start..start + len;
            start += len;
            let mesh_index = self.items[range.start].source.0;
            let Some(mesh) = dm.per_mesh.get(mesh_index).and_then(Option::as_ref) else {
                continue;
            };
            let skinned = |prim: usize| {
                range
                    .clone()
                    .find(|&i| self.items[i].source.1 == prim && !self.items[i].geometry.is_rigid())
            };
            let wanted = mesh.surface.vertex_of.iter().enumerate();
            let Some(items) = wanted
                .filter(|(_, map)| !map.is_empty())
                .map(|(prim, _)| Some((skinned(prim)?, prim)))
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let Some(&(first, _)) = items.first() else {
                continue;
            };
            let slot = self.items[first].slot;
            self.dm
                .push(DmSurfaceGpu::new(ctx, mesh, slot, &items, row_stride)?);
        }
        self.make_outputs(ctx, renderer)
    }

    /// Writes centers of rotation of a [`SceneGpu::from_mesh`] scene.
    pub fn set_mesh_cor_centers(
        &mut self,
        ctx: &GpuContext,
        renderer: &Renderer,
        centers: &[Vec3],
    ) {
        for item in &mut self.items {
            item.geometry
                .set_cor_centers(ctx, renderer.layouts(), centers);
        }
    }

    /// Builds the edge lists the wireframe and ghost draw (once per primitive).
    pub fn make_edges(&mut self, ctx: &GpuContext, scene: &Scene) {
        for item in &mut self.items {
            let indices = scene
                .meshes
                .get(item.source.0)
                .and_then(|m| m.primitives.get(item.source.1))
                .map_or(&[][..], |p| p.triangles());
            item.geometry.make_edges(ctx, indices);
        }
    }

    /// Every write that reached this scene's GPU data since it was made (palettes, morph
    /// weights, betas, centers, edges, instances): equal revisions, the same drawn picture.
    #[must_use]
    pub fn revision(&self) -> Vec<u64> {
        let geometry = self.items.iter().map(|i| i.geometry.revision());
        [
            self.id,
            self.stores_made,
            self.store.writes(),
            self.dm_uploads,
        ]
        .into_iter()
        .chain(geometry)
        .collect()
    }
}
