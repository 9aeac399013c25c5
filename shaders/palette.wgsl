// Joint palettes: bind group 0 of every skinning pipeline, one slot of the palette store.
//
// Twins in src/render/gpu_data.rs (`GpuSkinParams`, `GpuDualQuat`, `GpuJointLinear`),
// checked against this file by a naga layout test. A slot holds the palettes of every
// instance of one skin (or one rigid mesh node): joint j of instance i is entry
// i * skin.joint_count + j. Slots whose entries fit MAX_UNIFORM_JOINTS read their dual
// quaternions from the uniform declaration below; for bigger slots Rust swaps that one
// line for a storage declaration (render::shaders::PaletteBinding), because one WGSL
// function cannot read from both address spaces.

// Mirrors `GpuSkinParams`.
struct SkinParams {
    // Joints per instance; indices at or past it read as the identity.
    joint_count: u32,
    // 1 when some joint has scale, shear or a mirror: DQS runs phase 1.
    non_rigid: u32,
    // Instances in the slot.
    instance_count: u32,
    pad: u32,
}

// Mirrors `GpuJointLinear`: what LBS, DQS phase 1 and the bulge fix read of a joint.
struct JointLinear {
    // The skinning matrix world_from_bind (LBS).
    matrix: mat4x4<f32>,
    // Scale/shear part S (the identity for rigid joints).
    scale_shear: mat3x3<f32>,
    // Bind-space joint position (xyz) and the parent joint in the skin (w; -1 for none).
    hinge: vec4<f32>,
    // Bind-space bone direction (xyz); w is 1 when the joint has one, else 0.
    bone: vec4<f32>,
}

// Uniform-buffer capacity: 64 KiB / 32 bytes.
const MAX_UNIFORM_JOINTS: u32 = 2048u;

@group(0) @binding(0) var<uniform> skin: SkinParams;
@group(0) @binding(1) var<uniform> joint_dual_quats: array<mat2x4<f32>, 2048>;
@group(0) @binding(2) var<storage, read> joint_linears: array<JointLinear>;

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

// The first entry of the instance being skinned (set by `select_instance`).
var<private> instance_base: u32;

// Makes the joint accessors read instance `instance` of the slot.
fn select_instance(instance: u32) {
    instance_base = min(instance, max(skin.instance_count, 1u) - 1u) * skin.joint_count;
}

// Joint `j`'s rigid part; the identity past the palette, as on the CPU.
fn joint_dual_quat(j: u32) -> mat2x4<f32> {
    if j < skin.joint_count {
        return joint_dual_quats[instance_base + j];
    }
    return DQ_IDENTITY;
}

// Joint `j`'s skinning matrix (world_from_bind) for LBS.
fn joint_matrix(j: u32) -> mat4x4<f32> {
    if j < skin.joint_count {
        return joint_linears[instance_base + j].matrix;
    }
    return MAT4_IDENTITY;
}

// Joint `j`'s scale/shear part S.
fn joint_scale_shear(j: u32) -> mat3x3<f32> {
    if j < skin.joint_count {
        return joint_linears[instance_base + j].scale_shear;
    }
    return MAT3_IDENTITY;
}

// Joint `j`'s bind position (xyz) and parent (w, -1 for none); no parent past the palette.
fn joint_hinge(j: u32) -> vec4<f32> {
    if j < skin.joint_count {
        return joint_linears[instance_base + j].hinge;
    }
    return vec4<f32>(0.0, 0.0, 0.0, -1.0);
}

// Joint `j`'s bind-space bone direction (w 1 when it has one).
fn joint_bone(j: u32) -> vec4<f32> {
    if j < skin.joint_count {
        return joint_linears[instance_base + j].bone;
    }
    return vec4<f32>(0.0);
}
