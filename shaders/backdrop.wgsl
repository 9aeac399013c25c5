// A flat colour over the whole viewport (vs_backdrop, fs_backdrop): the 3D views' background
// when the clear colour is the UI panel's, so large flat areas never go through the UI shader.
//
// Keep in sync with `GpuBackdrop` in src/render/backdrop.rs.

// Mirrors `GpuBackdrop`.
struct Backdrop {
    // Linear RGBA.
    color: vec4<f32>,
}

@group(0) @binding(0) var<uniform> backdrop: Backdrop;

// One triangle that covers clip space; the viewport and scissor cut it to the view.
@vertex
fn vs_backdrop(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let x = f32((i << 1u) & 2u) * 2.0 - 1.0;
    let y = f32(i & 2u) * 2.0 - 1.0;
    return vec4<f32>(x, y, 1.0, 1.0);
}

@fragment
fn fs_backdrop() -> @location(0) vec4<f32> {
    return backdrop.color;
}
