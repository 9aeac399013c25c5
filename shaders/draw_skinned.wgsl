// Plain draw of vertices already skinned by cs_skin_draw (skin_crowd.wgsl):
// no palette, no skinning, shaded by fs_main of skin_render.wgsl.
//
// Keep in sync with `GpuDrawVertex` (vertex buffer 0), `GpuMeshVertex`
// (vertex buffer 1, its uv only) and the colours (vertex buffer 2,
// `GpuMesh::colors`) in src/render/gpu_data.rs and src/render/mesh.rs, and with the
// vertex layouts in src/render/crowd_draw.rs. Appended to the render module.

struct SkinnedIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(6) uv: vec2<f32>,
    @location(9) color: vec4<f32>,
}

@vertex
fn vs_main_skinned(v: SkinnedIn) -> VertexOut {
    // Debug views need the influences: the compute path draws shaded only.
    return VertexOut(frame.clip_from_world * vec4<f32>(v.position, 1.0), v.normal, v.uv, 0.0, 0u, v.color);
}
