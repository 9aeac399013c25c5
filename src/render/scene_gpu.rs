//! A scene on the GPU: one geometry per drawn primitive, one palette store for every skin
//! and instance, the materials. Every draw, crowd, readback and debug view goes through it.
//!
//! Drawing and the compute pass are in `scene_draw.rs`.

use std::cell::Cell;

use glam::{Mat4, Vec3};

use super::crowd::{SkinPath, grid_offsets, instance_time_s};
use super::geometry::{GeometrySource, GpuGeometry};
use super::gpu_data::{GpuComputeParams, WORKGROUP_SIZE};
use super::layout::whole;
use super::material::GpuMaterialBinding;
use super::palette_store::{PaletteStore, SlotSpec};
use super::{GpuContext, RenderError, Renderer};
use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::scene::{Scene, Topology};
use crate::skin::{JointPalette, SkinSkeleton, SkinningMode, rest_bounds};

/// How a scene is uploaded: instances, skinning path, tangents for readback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SceneOptions {
    /// Copies drawn (a crowd in a grid when above 1).
    pub instances: usize,
    /// Where skinned primitives are skinned when drawn.
    pub path: SkinPath,
    /// Whether the compute output holds tangents (readback of files with tangents).
    pub tangents: bool,
}

impl Default for SceneOptions {
    fn default() -> Self {
        Self {
            instances: 1,
            path: SkinPath::Vertex,
            tangents: false,
        }
    }
}

/// Where a palette slot's joints come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SlotSource {
    /// The skinning matrices of skin `n`.
    Skin(usize),
    /// The global matrix of mesh node `n` (a primitive without a skin moves rigidly).
    Node(usize),
    /// A palette given directly ([`SceneGpu::from_mesh`]).
    Given,
}

/// One primitive of one mesh node.
#[derive(Debug)]
pub(super) struct DrawItem {
    /// Mesh and primitive index in the scene.
    pub source: (usize, usize),
    /// The mesh node (whose morph weights apply).
    pub node: usize,
    /// Palette store slot.
    pub slot: usize,
    pub geometry: GpuGeometry,
    /// Index into `SceneGpu::materials`, `None` for the renderer's default.
    pub material: Option<usize>,
    /// How the geometry's indices join its vertices (lines and points draw as such).
    pub topology: Topology,
    /// Group 2 of `cs_skin` (compute path, skinned items only).
    pub compute_group: Option<wgpu::BindGroup>,
}

/// What [`SceneGpu::assemble`] puts together: draws, slots and their specs, the store, materials.
type Parts = (
    Vec<DrawItem>,
    Vec<SlotSource>,
    Vec<SlotSpec>,
    PaletteStore,
    Vec<GpuMaterialBinding>,
);

/// The compute path's parameters (mode, beta, bulge), shared by every dispatch of a pass.
#[derive(Debug)]
pub(super) struct ComputeParamsBuffer {
    pub buffer: wgpu::Buffer,
    /// Invocations per dispatch row (the device's workgroup limit times the workgroup size).
    pub row_stride: u32,
}

impl ComputeParamsBuffer {
    /// The parameters' uniform buffer and the device's dispatch row.
    pub(super) fn new(ctx: &GpuContext) -> Self {
        let max_x = ctx.device.limits().max_compute_workgroups_per_dimension;
        Self {
            buffer: ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("dqview::SceneGpu::compute_params"),
                size: size_of::<GpuComputeParams>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            row_stride: max_x.max(1) * WORKGROUP_SIZE,
        }
    }
}

/// GPU buffers of a [`Scene`] for `instances` copies: geometries uploaded once, palettes per pose.
#[derive(Debug)]
pub struct SceneGpu {
    pub(super) items: Vec<DrawItem>,
    slots: Vec<SlotSource>,
    /// What each slot holds (to remake the store for another instance count).
    specs: Vec<SlotSpec>,
    pub(super) store: PaletteStore,
    pub(super) materials: Vec<GpuMaterialBinding>,
    pub(super) path: SkinPath,
    /// World translation of each instance.
    offsets: Vec<Vec3>,
    /// Whether compute outputs hold tangents.
    tangents: bool,
    pub(super) compute: Option<ComputeParamsBuffer>,
    /// Delta Mush's surfaces, one per skinned mesh node it was set for.
    pub(super) dm: Vec<super::dm_gpu::DmSurfaceGpu>,
    /// Delta Mush uploads so far (a new one changes the drawn picture).
    pub(super) dm_uploads: u64,
    /// The mode the last compute pass skinned in (its output is drawn in views of that mode).
    pub(super) skinned_mode: Cell<Option<SkinningMode>>,
    matrices: Vec<Mat4>,
    palette: JointPalette,
    pose: Option<Pose>,
    /// Palette stores made so far (a new instance count makes a new one).
    pub(super) stores_made: u64,
    /// Unique in this process, so two scenes' revisions never look alike.
    pub(super) id: u64,
}

/// The next [`SceneGpu`]'s id.
static NEXT_SCENE_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl SceneGpu {
    /// Uploads every primitive of every mesh node, the materials and the palettes at `pose`.
    pub fn new(
        ctx: &GpuContext,
        renderer: &Renderer,
        scene: &Scene,
        pose: &Pose,
    ) -> Result<Self, RenderError> {
        Self::with_options(ctx, renderer, scene, pose, &SceneOptions::default())
    }

    /// [`SceneGpu::new`] with `options.instances` copies in a grid on `options.path`.
    ///
    /// Skinned primitives (node with a skin, primitive with influences) are skinned on the
    /// GPU; other primitives are moved by their node's global matrix (a one-joint slot),
    /// so every draw goes through the same pipelines.
    pub fn with_options(
        ctx: &GpuContext,
        renderer: &Renderer,
        scene: &Scene,
        pose: &Pose,
        options: &SceneOptions,
    ) -> Result<Self, RenderError> {
        let instances = options.instances.max(1);
        let layouts = renderer.layouts();
        let mut slots: Vec<SlotSource> = (0..scene.skins.len()).map(SlotSource::Skin).collect();
        let mut items = Vec::new();
        for (node_index, node) in scene.nodes.iter().enumerate() {
            let Some(mesh_index) = node.mesh.filter(|&m| m < scene.meshes.len()) else {
                continue;
            };
            for (prim_index, prim) in scene.meshes[mesh_index].primitives.iter().enumerate() {
                let skin = node.skin.filter(|&s| s < scene.skins.len());
                let (influences, slot) = match (skin, &prim.influences) {
                    (Some(skin), Some(influences)) => (Some(influences), skin),
                    _ => (None, slot_of(&mut slots, SlotSource::Node(node_index))),
                };
                let tangents = prim.tangents.as_deref().filter(|_| options.tangents);
                let source = GeometrySource {
                    positions: &prim.positions,
                    normals: &prim.normals,
                    tangents: tangents.unwrap_or(&[]),
                    uvs: prim.uvs.as_deref(),
                    colors: prim.colors.as_deref(),
                    influences,
                    morph_targets: &prim.morph_targets,
                    indices: &prim.indices,
                };
                let mut geometry = GpuGeometry::new(ctx, layouts, &source)?;
                // A curve's wireframe is its segments; points have no edges.
                match prim.topology {
                    Topology::Triangles => {}
                    Topology::Lines => geometry.set_edges(ctx, &prim.indices),
                    Topology::Points => geometry.set_edges(ctx, &[]),
                }
                items.push(DrawItem {
                    source: (mesh_index, prim_index),
                    node: node_index,
                    slot,
                    geometry,
                    material: prim.material,
                    topology: prim.topology,
                    compute_group: None,
                });
            }
        }
        let specs: Vec<SlotSpec> = slots.iter().map(|&s| slot_spec(scene, pose, s)).collect();
        let store = PaletteStore::new(ctx, layouts, &specs, instances)?;
        let materials = GpuMaterialBinding::for_scene(ctx, renderer.material_layout(), scene)?;
        for item in &mut items {
            item.material = item.material.filter(|&m| m < materials.len());
        }
        let parts = (items, slots, specs, store, materials);
        let mut out = Self::assemble(ctx, renderer, parts, options)?;
        out.offsets = grid_offsets(instances, extent_of(scene, instances));
        out.update(ctx, scene, pose);
        // Counted from here: the upload of the pose the scene was made at is part of making it.
        out.store.reset_upload_count();
        Ok(out)
    }

    /// A one-primitive scene drawn by `palette` directly (tests, [`super::skin_mesh_gpu`]).
    pub fn from_mesh(
        ctx: &GpuContext,
        renderer: &Renderer,
        source: &GeometrySource<'_>,
        palette: &JointPalette,
        options: &SceneOptions,
    ) -> Result<Self, RenderError> {
        let layouts = renderer.layouts();
        let geometry = GpuGeometry::new(ctx, layouts, source)?;
        let spec = SlotSpec {
            joints: palette.len(),
            hinges: Vec::new(),
        };
        let store =
            PaletteStore::new(ctx, layouts, std::slice::from_ref(&spec), options.instances)?;
        let item = DrawItem {
            source: (0, 0),
            node: 0,
            slot: 0,
            geometry,
            material: None,
            topology: Topology::Triangles,
            compute_group: None,
        };
        let parts = (
            vec![item],
            vec![SlotSource::Given],
            vec![spec],
            store,
            Vec::new(),
        );
        let mut out = Self::assemble(ctx, renderer, parts, options)?;
        for instance in 0..out.instances() {
            out.store.set(0, instance, palette);
        }
        out.store.upload(&ctx.queue);
        Ok(out)
    }

    /// A line list drawn by [`SceneGpu::draw_wire`] and never skinned (the ground grid):
    /// segment endpoints in pairs, each with a linear RGBA colour.
    pub fn lines(
        ctx: &GpuContext,
        renderer: &Renderer,
        points: &[Vec3],
        colors: &[glam::Vec4],
    ) -> Result<Self, RenderError> {
        let source = GeometrySource {
            positions: points,
            colors: Some(colors),
            ..GeometrySource::default()
        };
        let identity = JointPalette::from_matrices(&[Mat4::IDENTITY]);
        let mut out = Self::from_mesh(ctx, renderer, &source, &identity, &SceneOptions::default())?;
        let segments: Vec<u32> = (0..u32::try_from(points.len()).unwrap_or(0)).collect();
        for item in &mut out.items {
            item.geometry.set_edges(ctx, &segments);
        }
        Ok(out)
    }

    /// Puts the parts together; the compute path gets its output buffers and bind groups.
    fn assemble(
        ctx: &GpuContext,
        renderer: &Renderer,
        (items, slots, specs, store, materials): Parts,
        options: &SceneOptions,
    ) -> Result<Self, RenderError> {
        let instances = store.instances();
        let compute = match options.path {
            SkinPath::Vertex => None,
            SkinPath::Compute => Some(ComputeParamsBuffer::new(ctx)),
        };
        let mut out = Self {
            items,
            slots,
            specs,
            store,
            materials,
            path: options.path,
            offsets: vec![Vec3::ZERO; instances],
            tangents: options.tangents,
            compute,
            dm: Vec::new(),
            dm_uploads: 0,
            skinned_mode: Cell::new(None),
            matrices: Vec::new(),
            palette: JointPalette::default(),
            pose: None,
            stores_made: 0,
            id: NEXT_SCENE_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        };
        out.make_outputs(ctx, renderer)?;
        Ok(out)
    }

    /// Where compute outputs exist (the compute path, or Delta Mush set), (re)makes every
    /// skinned item's output for the instance count, and Delta Mush's buffers.
    pub(super) fn make_outputs(
        &mut self,
        ctx: &GpuContext,
        renderer: &Renderer,
    ) -> Result<(), RenderError> {
        let Some(params) = &self.compute else {
            return Ok(());
        };
        let layouts = renderer.layouts();
        let instances = self.store.instances();
        for item in self.items.iter_mut().filter(|i| !i.geometry.is_rigid()) {
            let tangents = self.tangents && item.geometry.has_tangents();
            item.geometry
                .make_skinned(ctx, layouts, instances, tangents)?;
            let Some((output, _)) = item.geometry.skinned() else {
                continue;
            };
            let group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("dqview::SceneGpu::compute_output"),
                layout: &layouts.compute_output,
                entries: &[whole(0, &params.buffer), whole(1, output)],
            });
            item.compute_group = Some(group);
        }
        self.skinned_mode.set(None);
        let bound = (instances, params.row_stride);
        for surface in &mut self.dm {
            surface.bind(ctx, renderer, &self.items, bound)?;
        }
        Ok(())
    }

    /// Draws `count` instances from now on: a new palette store (and compute outputs), the
    /// geometries kept; every instance starts at `pose`.
    pub fn set_instances(
        &mut self,
        ctx: &GpuContext,
        renderer: &Renderer,
        scene: &Scene,
        pose: &Pose,
        count: usize,
    ) -> Result<(), RenderError> {
        let count = count.max(1);
        self.store = PaletteStore::new(ctx, renderer.layouts(), &self.specs, count)?;
        self.stores_made += 1;
        self.offsets = grid_offsets(count, extent_of(scene, count));
        self.make_outputs(ctx, renderer)?;
        self.update(ctx, scene, pose);
        Ok(())
    }

    /// Poses every instance at `pose` (each moved to its grid cell) and uploads what changed:
    /// palettes, and morph weights of primitives whose weights moved.
    pub fn update(&mut self, ctx: &GpuContext, scene: &Scene, pose: &Pose) {
        for instance in 0..self.instances() {
            self.set_instance_pose(instance, scene, pose);
        }
        self.set_morph_weights(ctx, pose);
        self.store.upload(&ctx.queue);
    }

    /// Poses instance i at its own time of `clip` (`time_s + i * duration / K`) with
    /// `overrides` and uploads; morph weights follow instance 0 (shared by all instances).
    pub fn update_crowd(
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
        let mut pose = self.pose.take().unwrap_or_else(|| Pose::rest(scene));
        let instances = self.instances();
        for instance in (0..instances).rev() {
            let t = instance_time_s(instance, instances, time_s, duration_s);
            pose.sample(scene, clip, t, overrides);
            self.set_instance_pose(instance, scene, &pose);
        }
        self.set_morph_weights(ctx, &pose);
        self.store.upload(&ctx.queue);
        self.pose = Some(pose);
    }

    /// Stages `instance`'s palettes at `pose`, moved to its grid cell; call [`SceneGpu::upload`] after.
    pub fn set_instance_pose(&mut self, instance: usize, scene: &Scene, pose: &Pose) {
        let offset = Mat4::from_translation(self.offset(instance));
        for (slot, &source) in self.slots.iter().enumerate() {
            match source {
                SlotSource::Skin(s) => pose.skinning_matrices(scene, s, &mut self.matrices),
                SlotSource::Node(n) => {
                    self.matrices.clear();
                    self.matrices
                        .push(pose.global.get(n).copied().unwrap_or(Mat4::IDENTITY));
                }
                SlotSource::Given => continue,
            }
            if instance > 0 || self.offsets.len() > 1 {
                for m in &mut self.matrices {
                    *m = offset * *m;
                }
            }
            self.palette.rebuild(&self.matrices);
            if !self.store.set(slot, instance, &self.palette) {
                log::warn!(
                    "palette slot {slot} no longer fits its buffers; it keeps its last pose"
                );
            }
        }
    }

    /// Stages `palette` for every instance of a [`SceneGpu::from_mesh`] scene and uploads it.
    pub fn set_palette(&mut self, ctx: &GpuContext, palette: &JointPalette) -> bool {
        let mut fits = true;
        for instance in 0..self.instances() {
            fits &= self.store.set(0, instance, palette);
        }
        self.store.upload(&ctx.queue);
        fits
    }

    /// Uploads staged palettes if any changed.
    pub fn upload(&mut self, ctx: &GpuContext) {
        self.store.upload(&ctx.queue);
    }

    /// Palette uploads so far: one per update in which some palette changed.
    #[must_use]
    pub fn palette_uploads(&self) -> u64 {
        self.store.uploads()
    }

    /// Whether Delta Mush's surfaces are uploaded ([`SceneGpu::set_dm`]).
    #[must_use]
    pub fn has_dm(&self) -> bool {
        !self.dm.is_empty()
    }

    /// Bytes of Delta Mush's buffers on the GPU (0 without them).
    #[must_use]
    pub fn dm_bytes(&self) -> u64 {
        self.dm.iter().map(super::dm_gpu::DmSurfaceGpu::bytes).sum()
    }

    /// Primitives drawn per instance.
    #[must_use]
    pub fn draw_count(&self) -> usize {
        self.items.len()
    }

    /// (mesh, primitive) in the scene of draw `index`, and whether it is skinned (not rigid).
    #[must_use]
    pub fn primitive_source(&self, index: usize) -> Option<((usize, usize), bool)> {
        self.items
            .get(index)
            .map(|i| (i.source, !i.geometry.is_rigid()))
    }

    /// The palette binding kind of the first slot (the first skin's), if there is a slot.
    #[must_use]
    pub fn palette_binding(&self) -> Option<super::PaletteBinding> {
        self.store.bind_group(0).map(|(binding, _)| binding)
    }

    /// The mesh node of draw `index` (0 past the end).
    #[must_use]
    pub fn node_of(&self, index: usize) -> usize {
        self.items.get(index).map_or(0, |i| i.node)
    }

    /// Instances drawn.
    #[must_use]
    pub fn instances(&self) -> usize {
        self.offsets.len()
    }

    /// Vertices one draw of every primitive and instance runs through the vertex shader.
    #[must_use]
    pub fn drawn_vertices(&self) -> usize {
        let per_instance: usize = self.items.iter().map(|i| i.geometry.vertex_count()).sum();
        per_instance * self.instances()
    }

    /// The skinning path this scene was uploaded for.
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
}

/// The rest-pose size of one instance of `scene` (a crowd grid's cell); zero for one
/// instance, where no grid is laid out (and no CPU posing is spent on it).
fn extent_of(scene: &Scene, instances: usize) -> Vec3 {
    if instances <= 1 {
        return Vec3::ZERO;
    }
    rest_bounds(scene).map_or(Vec3::ZERO, |(min, max)| max - min)
}

/// The slot index of `source`, added when new.
fn slot_of(slots: &mut Vec<SlotSource>, source: SlotSource) -> usize {
    slots.iter().position(|&s| s == source).unwrap_or_else(|| {
        slots.push(source);
        slots.len() - 1
    })
}

/// The joint count and static bulge-fix data of a slot.
fn slot_spec(scene: &Scene, pose: &Pose, source: SlotSource) -> SlotSpec {
    match source {
        SlotSource::Skin(s) => {
            let mut matrices = Vec::new();
            pose.skinning_matrices(scene, s, &mut matrices);
            let skeleton = SkinSkeleton::of(scene, s);
            let hinges = (0..matrices.len())
                .map(|j| {
                    let position = skeleton
                        .bind_positions
                        .get(j)
                        .copied()
                        .unwrap_or(Vec3::ZERO);
                    let parent = skeleton.parents.get(j).copied().flatten();
                    let bone = skeleton.directions.get(j).copied().flatten();
                    (position, parent, bone)
                })
                .collect();
            SlotSpec {
                joints: matrices.len(),
                hinges,
            }
        }
        SlotSource::Node(_) | SlotSource::Given => SlotSpec {
            joints: 1,
            hinges: Vec::new(),
        },
    }
}
