// Skinned mesh edges (wireframe and overlay ghost): vs_wire, fs_wire.
//
// Keep in sync with `GpuOverlayUniforms` in src/render/overlay.rs. Needs dq.wgsl,
// palette.wgsl and skin.wgsl in the same module, so edges skin exactly like the
// shaded surface.

// Mirrors `GpuOverlayUniforms`.
struct OverlayUniforms {
    clip_from_world: mat4x4<f32>,
    // Linear RGBA of the edges.
    color: vec4<f32>,
    // x: hybrid beta; y: depth pull towards the eye (clip w units); z: skinning mode (SKIN_MODE_*).
    params: vec4<f32>,
}

@group(1) @binding(0) var<uniform> overlay: OverlayUniforms;

// Buffer 0: bind-pose position (`[f32; 3]`); buffer 1: `GpuVertexJoints`.
struct WireIn {
    @location(0) position: vec3<f32>,
    @location(2) joints0: vec4<u32>,
    @location(3) joints1: vec4<u32>,
    @location(4) weights0: vec4<f32>,
    @location(5) weights1: vec4<f32>,
}

@vertex
fn vs_wire(v: WireIn) -> @builtin(position) vec4<f32> {
    let input = SkinInput(v.position, vec3<f32>(0.0, 1.0, 0.0), vec4<f32>(1.0, 0.0, 0.0, 1.0), v.joints0, v.joints1, v.weights0, v.weights1);
    let s = skin_vertex(input, u32(overlay.params.z), overlay.params.x);
    var clip = overlay.clip_from_world * vec4<f32>(s.position, 1.0);
    // Pull edges slightly towards the eye so they win the depth test against their own faces.
    clip.z = clip.z - overlay.params.y * clip.w;
    return clip;
}

@fragment
fn fs_wire() -> @location(0) vec4<f32> {
    return overlay.color;
}
