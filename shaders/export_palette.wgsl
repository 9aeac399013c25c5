// The joint palette of the shaders `dqview shader` exports for engines: bind group 0, in
// place of palette.wgsl (whose slots, instances and CoR data are dqview's own). It provides
// what skin.wgsl reads (`skin.non_rigid`, `joint_dual_quat`, `joint_matrix`,
// `joint_scale_shear`), so the exported code is skin.wgsl and dq.wgsl unchanged.
// render::shader_export sets EXPORT_JOINTS (--joints N), or swaps the three uniform arrays
// for storage arrays (--storage); naga drops the arrays a method does not read.

// Uniform arrays hold this many joints (`--joints N`).
const EXPORT_JOINTS: u32 = 128u;

struct SkinParams {
    // Model (bind) space to clip space, for the vertex stage's clip position.
    clip_from_model: mat4x4<f32>,
    // Joints in the palette; indices at or past it read as the identity.
    joint_count: u32,
    // 1 when some joint has scale, shear or a mirror: DQS then blends S first (phase 1).
    non_rigid: u32,
    // Hybrid: beta = clamp(blend * beta_scale, 0, 1), blend the vertex's `_DQS_BLEND`.
    beta_scale: f32,
    // Compute stage: vertices to skin.
    vertex_count: u32,
}

@group(0) @binding(0) var<uniform> skin: SkinParams;
// Each joint's rigid part as a unit dual quaternion: column 0 the rotation (x, y, z, w),
// column 1 the dual part (DQS, hybrid).
@group(0) @binding(1) var<uniform> joint_dual_quats: array<mat2x4<f32>, EXPORT_JOINTS>;
// Each joint's skinning matrix world_from_bind (LBS, hybrid).
@group(0) @binding(2) var<uniform> joint_matrices: array<mat4x4<f32>, EXPORT_JOINTS>;
// Each joint's scale/shear part S, matrix = rigid * S (DQS phase 1, read when non_rigid is 1).
@group(0) @binding(3) var<uniform> joint_scale_shears: array<mat3x3<f32>, EXPORT_JOINTS>;

// Joint `j`'s rigid part; the identity past the palette, as on the CPU.
fn joint_dual_quat(j: u32) -> mat2x4<f32> {
    if j < skin.joint_count {
        return joint_dual_quats[j];
    }
    return DQ_IDENTITY;
}

// Joint `j`'s skinning matrix for LBS.
fn joint_matrix(j: u32) -> mat4x4<f32> {
    if j < skin.joint_count {
        return joint_matrices[j];
    }
    return mat4x4<f32>(vec4<f32>(1.0, 0.0, 0.0, 0.0), vec4<f32>(0.0, 1.0, 0.0, 0.0), vec4<f32>(0.0, 0.0, 1.0, 0.0), vec4<f32>(0.0, 0.0, 0.0, 1.0));
}

// Joint `j`'s scale/shear part S.
fn joint_scale_shear(j: u32) -> mat3x3<f32> {
    if j < skin.joint_count {
        return joint_scale_shears[j];
    }
    return mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
}
