// Coloured line lists (ground grid): vs_lines, fs_lines.
//
// Keep in sync with `GpuOverlayUniforms` and `GpuLineVertex` in src/render/overlay.rs.

// Mirrors `GpuOverlayUniforms`.
struct OverlayUniforms {
    clip_from_world: mat4x4<f32>,
    // Linear RGBA, multiplied with the vertex colour.
    color: vec4<f32>,
    // x: hybrid beta; y: depth pull towards the eye (clip w units); z: skinning mode; w unused.
    params: vec4<f32>,
}

@group(0) @binding(0) var<uniform> overlay: OverlayUniforms;

struct LineIn {
    @location(0) position: vec3<f32>,
    @location(1) color: vec4<f32>,
}

struct LineOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@vertex
fn vs_lines(v: LineIn) -> LineOut {
    return LineOut(overlay.clip_from_world * vec4<f32>(v.position, 1.0), v.color * overlay.color);
}

@fragment
fn fs_lines(in: LineOut) -> @location(0) vec4<f32> {
    return in.color;
}
