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
    // x: hybrid beta scale (times the per-vertex beta); y: selected joint (debug
    // weights view); z: 1 / bounding-box diagonal; w: debug view id (0 shaded).
    params: vec4<f32>,
}

@group(1) @binding(0) var<uniform> frame: FrameUniforms;

// Mirrors `GpuMaterial`.
struct MaterialUniforms {
    // Linear RGBA base colour factor.
    base_color: vec4<f32>,
    // x: alpha cutoff (ALPHA_MASK); y: ALPHA_* mode.
    alpha: vec4<f32>,
}

// Keep in sync with `GPU_ALPHA_*` in src/render/gpu_data.rs.
const ALPHA_MASK: u32 = 1u;
const ALPHA_BLEND: u32 = 2u;

@group(2) @binding(0) var<uniform> material: MaterialUniforms;
@group(2) @binding(1) var base_color_texture: texture_2d<f32>;
@group(2) @binding(2) var base_color_sampler: sampler;

// Buffer 0 is `GpuMeshVertex`, buffer 1 `GpuVertexJoints`, buffer 2 the betas, buffer 3 the colours.
struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) joints0: vec4<u32>,
    @location(3) joints1: vec4<u32>,
    @location(4) weights0: vec4<f32>,
    @location(5) weights1: vec4<f32>,
    @location(6) uv: vec2<f32>,
    // Per-vertex hybrid beta (vertex buffer 2), scaled by frame.params.x.
    @location(7) beta: f32,
    // Linear RGBA vertex colour (vertex buffer 3, `Unorm16x4`; white without COLOR_0).
    @location(9) color: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    // The debug view's scalar and the heaviest joint (flat).
    @location(2) debug_value: f32,
    @location(3) @interpolate(flat) heaviest: u32,
    @location(4) color: vec4<f32>,
}

// False in the pipelines for the shaded view: the debug scalar (a second skinning) is then
// compiled out. A software rasterizer runs both sides of a uniform branch, so a runtime
// check alone does not save that work.
override DEBUG_VIEWS: bool = true;

// Displacement (over the diagonal) that the displacement view shows as red: 10%.
const DISPLACEMENT_RED: f32 = 0.1;

// Tangents are not shaded: a constant one lets the compiler drop their math.
fn skin_input(v: VertexIn) -> SkinInput {
    return SkinInput(v.position, v.normal, vec4<f32>(1.0, 0.0, 0.0, 1.0), v.joints0, v.joints1, v.weights0, v.weights1);
}

fn vertex_beta(v: VertexIn) -> f32 {
    return clamp(v.beta * frame.params.x, 0.0, 1.0);
}

// `mode`: 0 LBS, 1 DQS, 2 hybrid (for the debug views that depend on it).
fn vertex_out(s: Skinned, v: VertexIn, mode: u32) -> VertexOut {
    let view = u32(frame.params.w);
    var value = 0.0;
    if DEBUG_VIEWS && view != 0u {
        value = debug_scalar(skin_input(v), view, mode, vertex_beta(v), u32(frame.params.y), frame.params.z);
    }
    return VertexOut(frame.clip_from_world * vec4<f32>(s.position, 1.0), s.normal, v.uv, value, v.joints0.x, v.color);
}

@vertex
fn vs_main_lbs(v: VertexIn) -> VertexOut {
    return vertex_out(skin_lbs(skin_input(v)), v, 0u);
}

@vertex
fn vs_main_dqs(v: VertexIn) -> VertexOut {
    return vertex_out(skin_dqs(skin_input(v)), v, 1u);
}

@vertex
fn vs_main_hybrid(v: VertexIn) -> VertexOut {
    return vertex_out(skin_hybrid(skin_input(v), vertex_beta(v)), v, 2u);
}

// Half-Lambert (Valve): (0.5 n.l + 0.5)^2 keeps the unlit side readable.
fn half_lambert(n: vec3<f32>, light: vec4<f32>) -> f32 {
    let h = 0.5 * dot(n, light.xyz) + 0.5;
    return light.w * h * h;
}

// Key + fill half-Lambert; back faces are lit with the flipped normal.
// Base colour = factor * texture * vertex colour; its alpha is dropped (OPAQUE),
// cuts out below the cutoff (MASK) or is written for blending (BLEND).
@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let n0 = normalize_or(in.world_normal, vec3<f32>(0.0, 1.0, 0.0));
    let n = select(-n0, n0, front_facing);
    let light = frame.base_color.a + half_lambert(n, frame.key_light) + half_lambert(n, frame.fill_light);
    // The texture is sRGB-encoded, so sampling returns linear colour.
    let base = material.base_color * textureSample(base_color_texture, base_color_sampler, in.uv) * in.color;
    let alpha_mode = u32(material.alpha.y);
    if alpha_mode == ALPHA_MASK && base.a < material.alpha.x {
        discard;
    }
    var alpha = select(1.0, clamp(base.a, 0.0, 1.0), alpha_mode == ALPHA_BLEND);
    var albedo = frame.base_color.rgb * base.rgb;
    let view = u32(frame.params.w);
    if DEBUG_VIEWS && view != 0u {
        // Debug colours are lit too, so shape stays readable; normals are shown unlit.
        albedo = debug_color(view, in.debug_value, in.heaviest, n, 1.0 / DISPLACEMENT_RED);
        alpha = 1.0;
        if view == VIEW_NORMALS {
            return vec4<f32>(albedo, 1.0);
        }
    }
    // Linear output: the sRGB target encodes it.
    return vec4<f32>(albedo * light, alpha);
}
