// The joint palette of the three.js chunk (`dqview shader --target three`), in place of
// export_palette.wgsl: one RGBA float texture, as three.js keeps its own bones, because three's
// built-in materials bind no uniform blocks. Texel (0, 0) holds the parameters (joint_count,
// non_rigid, beta_scale, 0); row 1 + j holds joint j: texels 0 and 1 its dual quaternion's
// columns, 2 to 5 its matrix's columns, 6 to 8 its scale/shear's columns (xyz). It provides
// what skin.wgsl reads, so the chunk's math is skin.wgsl and dq.wgsl unchanged.

// Texels a joint's row holds: the texture's width.
const PALETTE_TEXELS_PER_JOINT: i32 = 9;

struct SkinParams {
    // Joints in the palette; indices at or past it read as the identity.
    joint_count: u32,
    // 1 when some joint has scale, shear or a mirror: DQS then blends S first (phase 1).
    non_rigid: u32,
    // Hybrid: beta = clamp(blend * beta_scale, 0, 1), blend the vertex's `_DQS_BLEND`.
    beta_scale: f32,
}

@group(0) @binding(0) var joint_palette: texture_2d<f32>;
// The parameters, read from the texture once per vertex by `load_skin_params`.
var<private> skin: SkinParams;

// Texel `k` of joint `j`'s row.
fn palette_texel(j: u32, k: i32) -> vec4<f32> {
    return textureLoad(joint_palette, vec2<i32>(k, i32(j) + 1), 0);
}

// The parameters of texel (0, 0); counts stored as floats (exact below 2^24).
fn load_skin_params() -> SkinParams {
    let p = textureLoad(joint_palette, vec2<i32>(0, 0), 0);
    return SkinParams(u32(max(p.x, 0.0)), u32(p.y != 0.0), p.z);
}

// Joint `j`'s rigid part; the identity past the palette, as on the CPU.
fn joint_dual_quat(j: u32) -> mat2x4<f32> {
    if j < skin.joint_count {
        return mat2x4<f32>(palette_texel(j, 0), palette_texel(j, 1));
    }
    return DQ_IDENTITY;
}

// Joint `j`'s skinning matrix for LBS.
fn joint_matrix(j: u32) -> mat4x4<f32> {
    if j < skin.joint_count {
        return mat4x4<f32>(palette_texel(j, 2), palette_texel(j, 3), palette_texel(j, 4), palette_texel(j, 5));
    }
    return mat4x4<f32>(vec4<f32>(1.0, 0.0, 0.0, 0.0), vec4<f32>(0.0, 1.0, 0.0, 0.0), vec4<f32>(0.0, 0.0, 1.0, 0.0), vec4<f32>(0.0, 0.0, 0.0, 1.0));
}

// Joint `j`'s scale/shear part S.
fn joint_scale_shear(j: u32) -> mat3x3<f32> {
    if j < skin.joint_count {
        return mat3x3<f32>(palette_texel(j, 6).xyz, palette_texel(j, 7).xyz, palette_texel(j, 8).xyz);
    }
    return mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
}
