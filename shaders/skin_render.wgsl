// Vertex-shader skinning pipelines and shading: vs_main_lbs, vs_main_dqs,
// vs_main_hybrid and fs_main.
//
// Keep in sync with src/render/gpu_data.rs (`GpuFrameUniforms`, `GpuMeshVertex`,
// `GpuVertexJoints`) and src/render/renderer.rs (vertex layouts, bind group 1).
// Needs dq.wgsl, palette.wgsl and skin.wgsl in the same module: the skinning
// functions are the ones the compute pass runs.

// Mirrors `GpuFrameUniforms`.
struct FrameUniforms {
    clip_from_world: mat4x4<f32>,
    // xyz: unit direction towards the light (world space); w: intensity.
    key_light: vec4<f32>,
    fill_light: vec4<f32>,
    // rgb: linear base colour; a: ambient term.
    base_color: vec4<f32>,
    // x: hybrid beta; yzw unused.
    params: vec4<f32>,
}

@group(1) @binding(0) var<uniform> frame: FrameUniforms;

// Mirrors `GpuMaterial`.
struct MaterialUniforms {
    // Linear RGBA base colour factor.
    base_color: vec4<f32>,
}

@group(2) @binding(0) var<uniform> material: MaterialUniforms;
@group(2) @binding(1) var base_color_texture: texture_2d<f32>;
@group(2) @binding(2) var base_color_sampler: sampler;

// Buffer 0 is `GpuMeshVertex`, buffer 1 `GpuVertexJoints`.
struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) joints0: vec4<u32>,
    @location(3) joints1: vec4<u32>,
    @location(4) weights0: vec4<f32>,
    @location(5) weights1: vec4<f32>,
    @location(6) uv: vec2<f32>,
}

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
}

// Tangents are not shaded: a constant one lets the compiler drop their math.
fn skin_input(v: VertexIn) -> SkinInput {
    return SkinInput(v.position, v.normal, vec4<f32>(1.0, 0.0, 0.0, 1.0), v.joints0, v.joints1, v.weights0, v.weights1);
}

fn vertex_out(s: Skinned, uv: vec2<f32>) -> VertexOut {
    return VertexOut(frame.clip_from_world * vec4<f32>(s.position, 1.0), s.normal, uv);
}

@vertex
fn vs_main_lbs(v: VertexIn) -> VertexOut {
    return vertex_out(skin_lbs(skin_input(v)), v.uv);
}

@vertex
fn vs_main_dqs(v: VertexIn) -> VertexOut {
    return vertex_out(skin_dqs(skin_input(v)), v.uv);
}

@vertex
fn vs_main_hybrid(v: VertexIn) -> VertexOut {
    return vertex_out(skin_hybrid(skin_input(v), frame.params.x), v.uv);
}

// Half-Lambert (Valve): (0.5 n.l + 0.5)^2 keeps the unlit side readable.
fn half_lambert(n: vec3<f32>, light: vec4<f32>) -> f32 {
    let h = 0.5 * dot(n, light.xyz) + 0.5;
    return light.w * h * h;
}

// Key + fill half-Lambert; back faces are lit with the flipped normal.
@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let n0 = normalize_or(in.world_normal, vec3<f32>(0.0, 1.0, 0.0));
    let n = select(-n0, n0, front_facing);
    let light = frame.base_color.a + half_lambert(n, frame.key_light) + half_lambert(n, frame.fill_light);
    // The texture is sRGB-encoded, so sampling returns linear colour.
    let albedo = frame.base_color.rgb * material.base_color.rgb * textureSample(base_color_texture, base_color_sampler, in.uv).rgb;
    // Linear output: the sRGB target encodes it.
    return vec4<f32>(albedo * light, 1.0);
}
