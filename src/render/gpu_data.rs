//! `#[repr(C)]` `Pod` structs uploaded to the GPU, each the twin of a WGSL struct.
//!
//! Field names are the WGSL member names, and `tests/gpu_layouts.rs` parses the shaders
//! with naga and checks every struct's size and member offsets against these, so a layout
//! change on either side fails a test.

use bytemuck::{Pod, Zeroable};
use glam::{Mat3, Mat4, Vec3, Vec4};

use crate::scene::AlphaMode;
pub use crate::skin::GpuDualQuat;
use crate::skin::SkinningMode;

/// WGSL `SKIN_MODE_LBS` in `shaders/skin.wgsl`.
pub const GPU_MODE_LBS: u32 = 0;
/// WGSL `SKIN_MODE_DQS` in `shaders/skin.wgsl`.
pub const GPU_MODE_DQS: u32 = 1;
/// WGSL `SKIN_MODE_HYBRID` in `shaders/skin.wgsl`.
pub const GPU_MODE_HYBRID: u32 = 2;
/// WGSL `SKIN_MODE_COR` in `shaders/cor.wgsl`.
pub const GPU_MODE_COR: u32 = 3;
/// WGSL `SKIN_MODE_DDM` in `shaders/ddm.wgsl`.
pub const GPU_MODE_DDM: u32 = 4;

/// Invocations per workgroup of `cs_skin` (`@workgroup_size` in `shaders/skin_compute.wgsl`).
pub const WORKGROUP_SIZE: u32 = 64;

/// Most morph targets a primitive applies on the GPU (their weights fill one uniform block).
pub const MAX_GPU_MORPH_TARGETS: usize = 256;

/// WGSL `ABSENT` in `shaders/geometry.wgsl`: an optional part of a vertex record is missing.
pub const ABSENT: u32 = u32::MAX;
/// WGSL `GEOMETRY_HAS_BETAS`: per-vertex hybrid betas are bound.
pub const GEOMETRY_HAS_BETAS: u32 = 1;
/// WGSL `GEOMETRY_HAS_CENTERS`: per-vertex centers of rotation are bound.
pub const GEOMETRY_HAS_CENTERS: u32 = 2;
/// WGSL `GEOMETRY_HAS_DDM`: per-vertex Direct Delta Mush matrices are bound.
pub const GEOMETRY_HAS_DDM: u32 = 4;
/// WGSL `DDM_PAIR_WORDS` in `shaders/ddm.wgsl`: a joint and Omega's 10 entries.
pub const DDM_PAIR_WORDS: usize = 11;

/// The shader's mode constant for `mode`. Delta Mush's is LBS: its smoothing is a pass over
/// the whole mesh, run by compute passes after `cs_skin`'s LBS (`shaders/dm_surface.wgsl`),
/// and its views draw what they wrote.
#[must_use]
pub fn gpu_mode(mode: SkinningMode) -> u32 {
    match mode {
        SkinningMode::Lbs | SkinningMode::Dm => GPU_MODE_LBS,
        SkinningMode::Dqs => GPU_MODE_DQS,
        SkinningMode::Hybrid => GPU_MODE_HYBRID,
        SkinningMode::Cor => GPU_MODE_COR,
        SkinningMode::Ddm => GPU_MODE_DDM,
    }
}

/// One palette slot's parameters: WGSL `SkinParams` in `shaders/palette.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuSkinParams {
    /// Joints per instance; larger indices read as the identity.
    pub joint_count: u32,
    /// 1 when DQS must run the scale/shear phase, else 0.
    pub non_rigid: u32,
    /// Instances in the slot.
    pub instance_count: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

/// One joint's linear data: WGSL `JointLinear` in `shaders/palette.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuJointLinear {
    /// The skinning matrix (world_from_bind), columns as `Mat4::to_cols_array_2d`.
    pub matrix: [[f32; 4]; 4],
    /// Scale/shear part S, columns padded to `vec4` as WGSL's `mat3x3`.
    pub scale_shear: [[f32; 4]; 3],
    /// Bind-space joint position (xyz) and parent joint in the skin (w; -1 for none).
    pub hinge: [f32; 4],
    /// Bind-space bone direction (xyz); w is 1 when the joint has one.
    pub bone: [f32; 4],
}

impl Default for GpuJointLinear {
    fn default() -> Self {
        Self {
            matrix: Mat4::IDENTITY.to_cols_array_2d(),
            scale_shear: mat3_cols(Mat3::IDENTITY),
            hinge: [0.0, 0.0, 0.0, -1.0],
            bone: [0.0; 4],
        }
    }
}

impl GpuJointLinear {
    /// Sets the posed parts: the skinning matrix and its scale/shear part.
    pub fn set_pose(&mut self, matrix: Mat4, scale_shear: Mat3) {
        self.matrix = matrix.to_cols_array_2d();
        self.scale_shear = mat3_cols(scale_shear);
    }

    /// Sets the static bulge-fix parts: bind position, parent joint and bone direction.
    pub fn set_hinge(&mut self, bind_position: Vec3, parent: Option<usize>, bone: Option<Vec3>) {
        let parent = parent.map_or(-1.0, |p| p as f32);
        self.hinge = bind_position.extend(parent).to_array();
        self.bone = bone.map_or([0.0; 4], |b| b.extend(1.0).to_array());
    }
}

/// A `Mat3`'s columns padded to `vec4`, as WGSL lays out `mat3x3<f32>`.
fn mat3_cols(m: Mat3) -> [[f32; 4]; 3] {
    [
        m.x_axis.extend(0.0).to_array(),
        m.y_axis.extend(0.0).to_array(),
        m.z_axis.extend(0.0).to_array(),
    ]
}

/// One geometry's parameters: WGSL `GeometryParams` in `shaders/geometry.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuGeometryParams {
    /// Vertices in the geometry.
    pub vertex_count: u32,
    /// Words (4 bytes) of one vertex record.
    pub record_words: u32,
    /// Word offset of the texture coordinates in a record, or [`ABSENT`].
    pub uv_at: u32,
    /// Word offset of the unorm16x4 colour in a record, or [`ABSENT`].
    pub color_at: u32,
    /// Word offset of the tangent in a record, or [`ABSENT`].
    pub tangent_at: u32,
    /// Words of one vertex's influences: 0 (rigid), 6 (4 joints) or 12 (8 joints).
    pub influence_words: u32,
    /// `GEOMETRY_HAS_*` bits.
    pub flags: u32,
    /// Morph targets with deltas bound.
    pub morph_count: u32,
    /// Words per vertex of the skinned output (6 or 10); 0 without one.
    pub skinned_words: u32,
    /// Padding.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
    /// Padding to the 16-byte start of `morph_weights`.
    pub pad2: u32,
    /// Weight of target t at `[t / 4][t % 4]`.
    pub morph_weights: [[f32; 4]; MAX_GPU_MORPH_TARGETS / 4],
}

impl Default for GpuGeometryParams {
    fn default() -> Self {
        Self {
            uv_at: ABSENT,
            color_at: ABSENT,
            tangent_at: ABSENT,
            ..Self::zeroed()
        }
    }
}

/// One compute run's parameters: WGSL `ComputeParams` in `shaders/skin_compute.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuComputeParams {
    /// Hybrid beta scale in [0, 1].
    pub beta_scale: f32,
    /// DQS bulge compensation in [0, 1].
    pub bulge: f32,
    /// Invocations per dispatch row (2D dispatch for very large meshes).
    pub row_stride: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

/// One welded surface's Delta Mush parameters: WGSL `DmParams` in `shaders/dm_surface.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuDmParams {
    /// Welded vertices of the surface (per instance).
    pub welded_count: u32,
    /// Invocations per dispatch row (2D dispatch for very large meshes).
    pub row_stride: u32,
    /// Step of each smoothing iteration towards the neighbours' mean.
    pub factor: f32,
    /// The least corner height whose frame counts.
    pub min_corner_height: f32,
    /// The skin's scale at rest.
    pub rest_scale: f32,
    /// Word of the static data where the neighbour list starts (offsets start at 0).
    pub neighbours_at: u32,
    /// Word where the per-vertex corner offsets start.
    pub corner_offsets_at: u32,
    /// Word where the corners start ([`DM_CORNER_WORDS`] each).
    pub corners_at: u32,
    /// Word where the per-vertex influence offsets start.
    pub influence_offsets_at: u32,
    /// Word where the (joint, weight) pairs start.
    pub influences_at: u32,
    /// Padding to 48 bytes.
    pub pad0: u32,
    /// Padding to 48 bytes.
    pub pad1: u32,
}

/// One primitive's Delta Mush gather/scatter parameters: WGSL `DmPrimitiveParams` in
/// `shaders/dm_scatter.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuDmPrimitiveParams {
    /// Vertices of the primitive (per instance).
    pub vertex_count: u32,
    /// Words per vertex of the compute output.
    pub skinned_words: u32,
    /// Welded vertices of its mesh's surface (per instance).
    pub welded_count: u32,
    /// Invocations per dispatch row.
    pub row_stride: u32,
}

/// WGSL `DM_CORNER_WORDS` in `shaders/dm_surface.wgsl`: prev, next, delta, rest frame.
pub const DM_CORNER_WORDS: usize = 14;
/// WGSL `DM_STABLE_BIT`: set on a corner's `next` when its smoothed rest corner counts.
pub const DM_STABLE_BIT: u32 = 0x8000_0000;
/// WGSL `DM_SOURCE_BIT` in `shaders/dm_scatter.wgsl`: the vertex a welded vertex takes its
/// LBS position from.
pub const DM_SOURCE_BIT: u32 = 0x8000_0000;

/// Per-view uniforms of the render pipelines: WGSL `FrameUniforms` in `shaders/draw.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuFrameUniforms {
    /// World to clip space (column major).
    pub clip_from_world: [[f32; 4]; 4],
    /// Unit direction towards the key light (world), intensity in w.
    pub key_light: [f32; 4],
    /// Unit direction towards the fill light (world), intensity in w.
    pub fill_light: [f32; 4],
    /// Linear base colour in rgb, ambient term in a.
    pub base_color: [f32; 4],
    /// x: hybrid beta scale, y: selected joint, z: 1 / bounding-box diagonal, w: debug view id.
    pub params: [f32; 4],
    /// Linear RGBA of wire edges.
    pub wire_color: [f32; 4],
    /// x: bulge compensation, y: depth pull (wires), z: unused, w: 1 for wire edges tinted
    /// by their vertex colours.
    pub extra: [f32; 4],
    /// x: the value the displacement or collapse view draws blue, y: the value it draws red
    /// (displacement over the diagonal, collapse as a volume ratio); z, w unused.
    pub heat_range: [f32; 4],
}

/// A material's constants: WGSL `MaterialUniforms` in `shaders/draw.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMaterial {
    /// Linear RGBA base colour factor, multiplied with the base colour texture.
    pub base_color: [f32; 4],
    /// x: alpha cutoff (mask mode), y: `GPU_ALPHA_*` mode; z, w unused.
    pub alpha: [f32; 4],
}

/// WGSL `ALPHA_OPAQUE`: alpha forced to 1 (the default branch of `fs_main`).
pub const GPU_ALPHA_OPAQUE: f32 = 0.0;
/// WGSL `ALPHA_MASK`: fragments below the cutoff are discarded.
pub const GPU_ALPHA_MASK: f32 = 1.0;
/// WGSL `ALPHA_BLEND`: alpha is kept for blending.
pub const GPU_ALPHA_BLEND: f32 = 2.0;

impl GpuMaterial {
    /// The constants of a material with `base_color` and `alpha_mode`.
    #[must_use]
    pub fn new(base_color: Vec4, alpha_mode: AlphaMode) -> Self {
        let alpha = match alpha_mode {
            AlphaMode::Opaque => [0.0, GPU_ALPHA_OPAQUE, 0.0, 0.0],
            AlphaMode::Mask { cutoff } => [cutoff, GPU_ALPHA_MASK, 0.0, 0.0],
            AlphaMode::Blend => [0.0, GPU_ALPHA_BLEND, 0.0, 0.0],
        };
        Self {
            base_color: base_color.to_array(),
            alpha,
        }
    }
}

/// A linear RGBA colour as WGSL's `unpack2x16unorm` pair reads it: two words, x and z in the low halves.
///
/// Clamped to [0, 1]; non-finite colours are white. 65535 = 255 * 257, so 8-bit colours survive exactly.
#[must_use]
pub fn pack_color(c: Vec4) -> [u32; 2] {
    let c = if c.is_finite() { c } else { Vec4::ONE };
    let [r, g, b, a] = (c.clamp(Vec4::ZERO, Vec4::ONE) * 65535.0)
        .round()
        .to_array()
        .map(|x| x as u32);
    [r | (g << 16), b | (a << 16)]
}
