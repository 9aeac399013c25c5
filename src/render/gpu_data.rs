//! `#[repr(C)]` `Pod` structs uploaded to the GPU, each the twin of a WGSL struct.
//!
//! Every struct here names the WGSL declaration it mirrors; the shaders name
//! them back. Vectors are padded to `vec4` so array strides match WGSL's
//! storage and uniform layout rules without hidden padding.

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

/// The shader's mode constant for `mode`.
#[must_use]
pub fn gpu_mode(mode: SkinningMode) -> u32 {
    match mode {
        SkinningMode::Lbs => GPU_MODE_LBS,
        SkinningMode::Dqs => GPU_MODE_DQS,
        SkinningMode::Hybrid => GPU_MODE_HYBRID,
        SkinningMode::Cor => GPU_MODE_COR,
    }
}

/// Per-skin parameters. Keep in sync with `SkinParams` in `shaders/palette.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuSkinParams {
    /// Joints in the palette; larger indices read as the identity.
    pub joint_count: u32,
    /// 1 when DQS must run the scale/shear phase, else 0.
    pub non_rigid: u32,
    /// Padding to 16 bytes (uniform struct size).
    pub pad: [u32; 2],
}

/// One LBS skinning matrix. Keep in sync with `mat4x4<f32>` in `shaders/palette.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuJointMatrix {
    /// Columns, as `Mat4::to_cols_array_2d`.
    pub cols: [[f32; 4]; 4],
}

impl From<Mat4> for GpuJointMatrix {
    fn from(m: Mat4) -> Self {
        Self {
            cols: m.to_cols_array_2d(),
        }
    }
}

/// One scale/shear matrix S. Keep in sync with `mat3x3<f32>` in `shaders/palette.wgsl`.
///
/// WGSL pads each `vec3` column of a `mat3x3` to 16 bytes, hence the fourth float.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuScaleShear {
    /// Columns x, y, z; the fourth component of each is padding.
    pub cols: [[f32; 4]; 3],
}

impl From<Mat3> for GpuScaleShear {
    fn from(m: Mat3) -> Self {
        Self {
            cols: [
                m.x_axis.extend(0.0).to_array(),
                m.y_axis.extend(0.0).to_array(),
                m.z_axis.extend(0.0).to_array(),
            ],
        }
    }
}

/// Compute-pass parameters. Keep in sync with `ComputeParams` in `shaders/skin_compute.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuComputeParams {
    /// Vertices to skin.
    pub vertex_count: u32,
    /// `GPU_MODE_*`.
    pub mode: u32,
    /// Hybrid factor in [0, 1].
    pub beta: f32,
    /// Invocations per dispatch row (2D dispatch for very large meshes).
    pub row_stride: u32,
}

/// One bind-pose vertex. Keep in sync with `BindVertex` in `shaders/skin_compute.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuBindVertex {
    /// Position (w unused).
    pub position: [f32; 4],
    /// Unit normal (w unused).
    pub normal: [f32; 4],
    /// Tangent, handedness in w.
    pub tangent: [f32; 4],
}

impl GpuBindVertex {
    /// Packs one vertex.
    #[must_use]
    pub fn new(position: Vec3, normal: Vec3, tangent: Vec4) -> Self {
        Self {
            position: position.extend(1.0).to_array(),
            normal: normal.extend(0.0).to_array(),
            tangent: tangent.to_array(),
        }
    }
}

/// One vertex's displacement by one morph target. Keep in sync with `MorphDelta` in `shaders/skin_compute.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMorphDelta {
    /// Position displacement (w unused).
    pub position: [f32; 4],
    /// Normal displacement (w unused).
    pub normal: [f32; 4],
    /// Tangent direction displacement (w unused).
    pub tangent: [f32; 4],
}

/// Most morph targets the compute pass applies (their weights fill one uniform block).
pub const MAX_GPU_MORPH_TARGETS: usize = 256;

/// Morph weights of one compute run. Keep in sync with `MorphWeights` in `shaders/skin_compute.wgsl`.
///
/// A uniform block rather than a storage buffer: the compute stage already binds eight
/// storage buffers, the most every adapter allows.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuMorphWeights {
    /// Targets in use (weights past it are ignored).
    pub count: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 3],
    /// Weight of target t at `[t / 4][t % 4]`.
    pub weights: [[f32; 4]; MAX_GPU_MORPH_TARGETS / 4],
}

impl Default for GpuMorphWeights {
    fn default() -> Self {
        Self::zeroed()
    }
}

/// Up to eight influences of one vertex. Keep in sync with `VertexInfluences` in `shaders/skin_compute.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuVertexInfluences {
    /// Joint indices, two sets of four, heaviest first.
    pub joints: [[u32; 4]; 2],
    /// Weights matching `joints`; zero for padding.
    pub weights: [[f32; 4]; 2],
}

/// One skinned vertex as read back. Keep in sync with `SkinnedVertex` in `shaders/skin_compute.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuSkinnedVertex {
    /// Position (w is 0).
    pub position: [f32; 4],
    /// Unit normal (w is 0).
    pub normal: [f32; 4],
    /// Tangent, handedness in w.
    pub tangent: [f32; 4],
}

/// One bind-pose vertex of the crowd compute pass. Keep in sync with `CrowdBindVertex` in `shaders/skin_crowd.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuCrowdBindVertex {
    /// Position (w unused).
    pub position: [f32; 4],
    /// Unit normal (w unused).
    pub normal: [f32; 4],
}

/// Up to eight influences, joints packed two u16 to a u32 (low half first).
///
/// Keep in sync with `CrowdInfluences` in `shaders/skin_crowd.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuCrowdInfluences {
    /// Joints 0-7, heaviest first: `joints[k / 2] >> (16 * (k % 2))`.
    pub joints: [u32; 4],
    /// Weights of joints 0-3.
    pub weights0: [f32; 4],
    /// Weights of joints 4-7; zero for padding.
    pub weights1: [f32; 4],
}

impl GpuCrowdInfluences {
    /// Packs eight joints (two sets of four) and their weights.
    #[must_use]
    pub fn new(joints: [[u16; 4]; 2], weights: [[f32; 4]; 2]) -> Self {
        let [a, b] = joints;
        let pack = |lo: u16, hi: u16| u32::from(lo) | (u32::from(hi) << 16);
        Self {
            joints: [
                pack(a[0], a[1]),
                pack(a[2], a[3]),
                pack(b[0], b[1]),
                pack(b[2], b[3]),
            ],
            weights0: weights[0],
            weights1: weights[1],
        }
    }
}

/// One skinned vertex written by the crowd compute pass and drawn as vertex buffer 0.
///
/// Keep in sync with `DrawVertex` in `shaders/skin_crowd.wgsl` and `SkinnedIn` in `shaders/draw_skinned.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuDrawVertex {
    /// Skinned position (`Float32x3`, location 0; w is 0).
    pub position: [f32; 4],
    /// Skinned unit normal (`Float32x3`, location 1; w is 0).
    pub normal: [f32; 4],
}

/// One vertex of a skinned mesh for the render pipelines (vertex buffer 0).
///
/// Keep in sync with `VertexIn` locations 0, 1 and 6 in `shaders/skin_render.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMeshVertex {
    /// Bind-pose position (`Float32x3`, location 0).
    pub position: [f32; 3],
    /// Bind-pose unit normal (`Float32x3`, location 1).
    pub normal: [f32; 3],
    /// First texture coordinate set (`Float32x2`, location 6).
    pub uv: [f32; 2],
}

/// A material's constants (bind group 2, binding 0).
///
/// Keep in sync with `MaterialUniforms` in `shaders/skin_render.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMaterial {
    /// Linear RGBA base colour factor, multiplied with the base colour texture.
    pub base_color: [f32; 4],
    /// x: alpha cutoff (mask mode), y: `GPU_ALPHA_*` mode; z, w unused.
    pub alpha: [f32; 4],
}

/// WGSL `ALPHA_OPAQUE` in `shaders/skin_render.wgsl`: alpha forced to 1.
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

/// Packs linear RGBA vertex colours as `Unorm16x4` (vertex buffer 3), clamped to [0, 1].
///
/// 65535 = 255 * 257, so 8-bit colours survive exactly.
#[must_use]
pub fn pack_colors(colors: &[Vec4]) -> Vec<[u16; 4]> {
    colors
        .iter()
        .map(|c| {
            let c = if c.is_finite() { *c } else { Vec4::ONE };
            (c.clamp(Vec4::ZERO, Vec4::ONE) * 65535.0)
                .round()
                .to_array()
                .map(|x| x as u16)
        })
        .collect()
}

/// Up to eight influences as vertex attributes (vertex buffer 1).
///
/// Keep in sync with `VertexIn` locations 2-5 in `shaders/skin_render.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuVertexJoints {
    /// Joint indices (`Uint16x4` x 2, locations 2-3), heaviest first.
    pub joints: [[u16; 4]; 2],
    /// Weights (`Float32x4` x 2, locations 4-5); zero for padding.
    pub weights: [[f32; 4]; 2],
}

/// Per-frame uniforms of the render pipelines. Keep in sync with `FrameUniforms` in `shaders/skin_render.wgsl`.
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, size_of};

    /// Size must match WGSL and be a multiple of 16 (array stride in both address spaces).
    fn check<T>(expected: usize) {
        assert_eq!(size_of::<T>(), expected, "{}", std::any::type_name::<T>());
        assert_eq!(size_of::<T>() % 16, 0, "{}", std::any::type_name::<T>());
        assert_eq!(align_of::<T>(), 4, "{}", std::any::type_name::<T>());
    }

    #[test]
    fn sizes_match_wgsl() {
        check::<GpuDualQuat>(32);
        check::<GpuSkinParams>(16);
        check::<GpuJointMatrix>(64);
        check::<GpuScaleShear>(48);
        check::<GpuComputeParams>(16);
        check::<GpuBindVertex>(48);
        check::<GpuMorphDelta>(48);
        check::<GpuVertexInfluences>(64);
        check::<GpuSkinnedVertex>(48);
        check::<GpuFrameUniforms>(128);
        check::<GpuVertexJoints>(48);
        check::<GpuCrowdBindVertex>(32);
        check::<GpuCrowdInfluences>(48);
        check::<GpuDrawVertex>(32);
        // A vertex buffer, not a WGSL struct: tightly packed attributes.
        assert_eq!(size_of::<GpuMeshVertex>(), 32);
        assert_eq!(size_of::<GpuMaterial>(), 32);
    }

    #[test]
    fn field_offsets_match_wgsl() {
        use std::mem::offset_of;
        assert_eq!(offset_of!(GpuDualQuat, dual), 16);
        assert_eq!(offset_of!(GpuSkinParams, non_rigid), 4);
        assert_eq!(offset_of!(GpuComputeParams, beta), 8);
        assert_eq!(offset_of!(GpuComputeParams, row_stride), 12);
        assert_eq!(offset_of!(GpuBindVertex, normal), 16);
        assert_eq!(offset_of!(GpuBindVertex, tangent), 32);
        assert_eq!(offset_of!(GpuMorphDelta, normal), 16);
        assert_eq!(offset_of!(GpuMorphDelta, tangent), 32);
        assert_eq!(offset_of!(GpuVertexInfluences, weights), 32);
        assert_eq!(offset_of!(GpuSkinnedVertex, tangent), 32);
        assert_eq!(offset_of!(GpuFrameUniforms, key_light), 64);
        assert_eq!(offset_of!(GpuFrameUniforms, params), 112);
        assert_eq!(offset_of!(GpuMeshVertex, normal), 12);
        assert_eq!(offset_of!(GpuMeshVertex, uv), 24);
        assert_eq!(offset_of!(GpuVertexJoints, weights), 16);
    }

    #[test]
    fn colors_pack_to_unorm16_exactly_for_8_bit_values() {
        let packed = pack_colors(&[
            Vec4::new(1.0, 0.0, 128.0 / 255.0, 0.2),
            Vec4::new(2.0, -1.0, f32::NAN, 0.5),
        ]);
        assert_eq!(packed[0], [65535, 0, 128 * 257, 13107]);
        // Out of range clamps; a non-finite colour is white.
        assert_eq!(packed[1], [65535; 4]);
        let m = GpuMaterial::new(Vec4::ONE, AlphaMode::Mask { cutoff: 0.3 });
        assert_eq!(m.alpha[..2], [0.3, GPU_ALPHA_MASK]);
        assert_eq!(
            GpuMaterial::new(Vec4::ONE, AlphaMode::Blend).alpha[1],
            GPU_ALPHA_BLEND
        );
    }

    #[test]
    fn crowd_joints_pack_low_half_first() {
        let packed =
            GpuCrowdInfluences::new([[1, 2, 3, 4], [5, 6, 7, 65535]], [[0.5; 4], [0.0; 4]]);
        assert_eq!(packed.joints[0], 1 | (2 << 16));
        assert_eq!(packed.joints[1], 3 | (4 << 16));
        assert_eq!(packed.joints[3], 7 | (65535 << 16));
        assert_eq!(packed.weights0, [0.5; 4]);
    }

    #[test]
    fn matrices_are_column_major() {
        let m = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(GpuJointMatrix::from(m).cols[3], [1.0, 2.0, 3.0, 1.0]);
        let s = Mat3::from_cols(Vec3::X, Vec3::new(0.5, 1.0, 0.0), Vec3::Z);
        assert_eq!(GpuScaleShear::from(s).cols[1], [0.5, 1.0, 0.0, 0.0]);
    }
}
