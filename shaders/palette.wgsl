// Joint palette of one skin: bind group 0 of every skinning pipeline.
//
// Keep in sync with src/render/gpu_data.rs (`GpuSkinParams`, `GpuDualQuat`,
// `GpuJointMatrix`, `GpuScaleShear`) and src/render/palette.rs (the layout).
// Skins with up to MAX_UNIFORM_JOINTS joints read their dual quaternions from
// the uniform declaration below; for bigger skins Rust swaps that one line for
// a storage-buffer declaration (render::shaders::PaletteBinding), because one
// WGSL function cannot read from both address spaces.

// Mirrors `GpuSkinParams`.
struct SkinParams {
    // Joints in the palette; indices at or past it read as the identity.
    joint_count: u32,
    // 1 when some joint has scale, shear or a mirror: DQS runs phase 1.
    non_rigid: u32,
    pad0: u32,
    pad1: u32,
}

// Uniform-buffer capacity: 64 KiB / 32 bytes.
const MAX_UNIFORM_JOINTS: u32 = 2048u;

@group(0) @binding(0) var<uniform> skin: SkinParams;
@group(0) @binding(1) var<uniform> joint_dual_quats: array<mat2x4<f32>, 2048>;
@group(0) @binding(2) var<storage, read> joint_matrices: array<mat4x4<f32>>;
@group(0) @binding(3) var<storage, read> joint_scale_shears: array<mat3x3<f32>>;

const MAT4_IDENTITY: mat4x4<f32> = mat4x4<f32>(
    vec4<f32>(1.0, 0.0, 0.0, 0.0),
    vec4<f32>(0.0, 1.0, 0.0, 0.0),
    vec4<f32>(0.0, 0.0, 1.0, 0.0),
    vec4<f32>(0.0, 0.0, 0.0, 1.0),
);

const MAT3_IDENTITY: mat3x3<f32> = mat3x3<f32>(
    vec3<f32>(1.0, 0.0, 0.0),
    vec3<f32>(0.0, 1.0, 0.0),
    vec3<f32>(0.0, 0.0, 1.0),
);

// Joint `j`'s rigid part; the identity past the palette, as on the CPU.
fn joint_dual_quat(j: u32) -> mat2x4<f32> {
    if j < skin.joint_count {
        return joint_dual_quats[j];
    }
    return DQ_IDENTITY;
}

// Joint `j`'s skinning matrix (world_from_bind) for LBS.
fn joint_matrix(j: u32) -> mat4x4<f32> {
    if j < skin.joint_count {
        return joint_matrices[j];
    }
    return MAT4_IDENTITY;
}

// Joint `j`'s scale/shear part S (only bound with real data when `skin.non_rigid`).
fn joint_scale_shear(j: u32) -> mat3x3<f32> {
    if j < skin.joint_count {
        return joint_scale_shears[j];
    }
    return MAT3_IDENTITY;
}
