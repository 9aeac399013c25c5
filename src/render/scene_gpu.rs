//! A whole scene on the GPU: every mesh node's primitives, materials and joint palettes.

use std::borrow::Cow;

use glam::Mat4;

use super::material::{GpuMaterialBinding, in_draw_order};
use super::mesh::GpuMesh;
use super::palette::GpuPalette;
use super::shaders::PaletteBinding;
use super::{FrameBinding, GpuContext, RenderError, Renderer};
use crate::anim::Pose;
use crate::influences::Influences;
use crate::scene::Scene;
use crate::skin::{
    JointPalette, MorphedVertices, SceneBetas, SkinMesh, SkinningMode, has_active_morphs,
    morph_vertices,
};

/// Which palette a primitive is skinned by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PaletteSource {
    /// The palette of skin `n`.
    Skin(usize),
    /// The one-joint palette of mesh node `n` (a mesh without a skin moves rigidly).
    Node(usize),
}

/// One primitive to draw.
#[derive(Debug)]
struct DrawItem {
    /// Mesh and primitive index in the scene (for per-vertex betas).
    source: (usize, usize),
    mesh: GpuMesh,
    palette: PaletteSource,
    /// Index into `SceneGpu::materials`, `None` for the renderer's default.
    material: Option<usize>,
    /// The mesh node, whose morph weights apply.
    node: usize,
    /// Morph weights the vertex buffer holds (empty: the unmorphed bind pose).
    morph_weights: Vec<f32>,
}

/// GPU buffers of a [`Scene`]: meshes uploaded once, palettes rewritten per pose.
#[derive(Debug)]
pub struct SceneGpu {
    draws: Vec<DrawItem>,
    skin_palettes: Vec<GpuPalette>,
    /// (mesh node, its one-joint palette) for meshes drawn without a skin.
    node_palettes: Vec<(usize, GpuPalette)>,
    materials: Vec<GpuMaterialBinding>,
    /// Scratch for skinning matrices and palettes, reused every update.
    matrices: Vec<Mat4>,
    palette: JointPalette,
    /// Skinning matrices last uploaded, per skin palette then per node palette:
    /// an unchanged pose uploads nothing.
    uploaded: Vec<Vec<Mat4>>,
    /// Palette writes so far (one per palette whose matrices changed).
    palette_uploads: u64,
    /// Scratch for morphed bind poses.
    morphed: MorphedVertices,
}

impl SceneGpu {
    /// Uploads every primitive of every mesh node, the materials and one palette per skin, at `pose`.
    ///
    /// Skinned primitives (node with a skin, primitive with influences) are
    /// skinned on the GPU; other primitives get a one-joint palette holding
    /// their node's global matrix, so every draw goes through the same pipelines.
    pub fn new(
        ctx: &GpuContext,
        renderer: &Renderer,
        scene: &Scene,
        pose: &Pose,
    ) -> Result<Self, RenderError> {
        let materials = GpuMaterialBinding::for_scene(ctx, renderer.material_layout(), scene)?;
        let mut out = Self {
            draws: Vec::new(),
            skin_palettes: Vec::new(),
            node_palettes: Vec::new(),
            materials,
            matrices: Vec::new(),
            palette: JointPalette::default(),
            uploaded: Vec::new(),
            palette_uploads: 0,
            morphed: MorphedVertices::default(),
        };
        for skin in 0..scene.skins.len() {
            pose.skinning_matrices(scene, skin, &mut out.matrices);
            out.palette.rebuild(&out.matrices);
            out.uploaded.push(out.matrices.clone());
            let binding = PaletteBinding::for_joint_count(out.palette.len());
            out.skin_palettes.push(GpuPalette::new(
                ctx,
                renderer.palette_layout(binding),
                &out.palette,
            )?);
        }
        let mut node_globals = Vec::new();
        for (node_index, node) in scene.nodes.iter().enumerate() {
            let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
                continue;
            };
            let mesh_index = node.mesh.unwrap_or(0);
            for (prim_index, prim) in mesh.primitives.iter().enumerate() {
                let skinned = node
                    .skin
                    .filter(|&s| s < scene.skins.len() && prim.influences.is_some());
                let (influences, palette) = match (skinned, &prim.influences) {
                    (Some(skin), Some(influences)) => {
                        (Cow::Borrowed(influences), PaletteSource::Skin(skin))
                    }
                    _ => {
                        let rigid_influences =
                            Influences::from_rows(prim.positions.iter().map(|_| [(0u16, 1.0f32)]));
                        if !out.node_palettes.iter().any(|(n, _)| *n == node_index) {
                            let global = pose
                                .global
                                .get(node_index)
                                .copied()
                                .unwrap_or(Mat4::IDENTITY);
                            out.palette.rebuild(&[global]);
                            let gpu = GpuPalette::new(
                                ctx,
                                renderer.palette_layout(PaletteBinding::Uniform),
                                &out.palette,
                            )?;
                            out.node_palettes.push((node_index, gpu));
                            node_globals.push(global);
                        }
                        (
                            Cow::Owned(rigid_influences),
                            PaletteSource::Node(node_index),
                        )
                    }
                };
                let skin_mesh = SkinMesh {
                    positions: &prim.positions,
                    normals: &prim.normals,
                    tangents: &[],
                    influences: &influences,
                };
                let mesh = GpuMesh::new(
                    ctx,
                    &skin_mesh,
                    prim.uvs.as_deref(),
                    prim.colors.as_deref(),
                    &prim.indices,
                )?;
                let material = prim.material.filter(|&m| m < out.materials.len());
                let mut item = DrawItem {
                    source: (mesh_index, prim_index),
                    mesh,
                    palette,
                    material,
                    node: node_index,
                    morph_weights: Vec::new(),
                };
                item.write_morphs(ctx, scene, pose, &mut out.morphed);
                out.draws.push(item);
            }
        }
        out.uploaded
            .extend(node_globals.into_iter().map(|g| vec![g]));
        Ok(out)
    }

    /// Writes the palettes of `pose` into the existing buffers (no GPU allocation).
    ///
    /// Only palettes whose skinning matrices changed since their last upload are written.
    /// Primitives whose morph weights changed get their morphed bind pose
    /// (computed by [`crate::skin::morph_vertices`]) written into their vertex buffer.
    pub fn update(&mut self, ctx: &GpuContext, scene: &Scene, pose: &Pose) {
        for item in &mut self.draws {
            item.write_morphs(ctx, scene, pose, &mut self.morphed);
        }
        let mut uploaded = self.uploaded.iter_mut();
        for (skin, gpu) in self.skin_palettes.iter_mut().enumerate() {
            pose.skinning_matrices(scene, skin, &mut self.matrices);
            let Some(last) = uploaded.next() else { break };
            if *last == self.matrices {
                continue;
            }
            self.palette.rebuild(&self.matrices);
            if gpu.write(&ctx.queue, &self.palette) {
                last.clone_from(&self.matrices);
                self.palette_uploads += 1;
            }
        }
        for (node, gpu) in &mut self.node_palettes {
            let global = pose.global.get(*node).copied().unwrap_or(Mat4::IDENTITY);
            let Some(last) = uploaded.next() else { break };
            if last.as_slice() == [global] {
                continue;
            }
            self.palette.rebuild(&[global]);
            if gpu.write(&ctx.queue, &self.palette) {
                last.clear();
                last.push(global);
                self.palette_uploads += 1;
            }
        }
    }

    /// Palette buffer writes so far: one per palette whose pose changed in an [`SceneGpu::update`].
    #[must_use]
    pub fn palette_uploads(&self) -> u64 {
        self.palette_uploads
    }

    /// Writes per-vertex hybrid betas (primitives without any get 1: the frame's beta alone).
    pub fn set_betas(&self, ctx: &GpuContext, betas: &SceneBetas) {
        for item in &self.draws {
            item.mesh
                .write_betas(&ctx.queue, betas.of(item.source.0, item.source.1));
        }
    }

    /// Writes per-vertex centers of rotation for the CoR pipeline (primitives without any keep theirs).
    pub fn set_cor_centers(&self, ctx: &GpuContext, centers: &crate::skin::SceneCenters) {
        for item in &self.draws {
            if matches!(item.palette, PaletteSource::Skin(_)) {
                item.mesh
                    .write_cor_centers(&ctx.queue, centers.of(item.source.0, item.source.1));
            }
        }
    }

    /// Records every primitive, skinned with `mode`, into `pass`.
    ///
    /// Opaque and alpha-masked primitives go first, then the alpha-blended ones
    /// in scene order (they are not sorted by depth).
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        renderer: &Renderer,
        frame: &FrameBinding,
        mode: SkinningMode,
    ) {
        let order = in_draw_order(
            &self.draws,
            |i: &DrawItem| i.material,
            &self.materials,
            renderer.default_material(),
        );
        for (item, material) in order {
            let palette = match item.palette {
                PaletteSource::Skin(s) => self.skin_palettes.get(s),
                PaletteSource::Node(n) => self
                    .node_palettes
                    .iter()
                    .find(|(node, _)| *node == n)
                    .map(|(_, p)| p),
            };
            let Some(palette) = palette else { continue };
            renderer.draw(pass, palette, frame, material, &item.mesh, mode);
        }
    }

    /// Number of primitives drawn.
    #[must_use]
    pub fn draw_count(&self) -> usize {
        self.draws.len()
    }
}

impl DrawItem {
    /// Rewrites the vertex buffer with the bind pose morphed by the pose's weights, when they changed.
    ///
    /// The morph runs on the CPU, in the reference function, rather than in the
    /// render shaders: the pipelines and their bind groups stay as they are, no
    /// vertex-stage storage buffers are needed, and the cost (one upload of the
    /// primitive) is paid only on frames where a weight moved.
    fn write_morphs(
        &mut self,
        ctx: &GpuContext,
        scene: &Scene,
        pose: &Pose,
        morphed: &mut MorphedVertices,
    ) {
        let Some(prim) = scene
            .meshes
            .get(self.source.0)
            .and_then(|m| m.primitives.get(self.source.1))
        else {
            return;
        };
        if prim.morph_targets.is_empty() {
            return;
        }
        let weights = pose.morph_weights_of(self.node);
        let active = has_active_morphs(&prim.morph_targets, weights);
        // The buffer holds the plain bind pose when `morph_weights` is empty.
        if (!active && self.morph_weights.is_empty()) || self.morph_weights == weights {
            return;
        }
        let (positions, normals) = if active {
            morph_vertices(
                &prim.positions,
                &prim.normals,
                &[],
                &prim.morph_targets,
                weights,
                morphed,
            );
            self.morph_weights = weights.to_vec();
            (&morphed.positions, &morphed.normals)
        } else {
            self.morph_weights.clear();
            (&prim.positions, &prim.normals)
        };
        self.mesh
            .write_vertices(&ctx.queue, positions, normals, prim.uvs.as_deref());
    }
}
