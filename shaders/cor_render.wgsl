// Vertex-shader entry point of CoR skinning: vs_main_cor.
//
// Needs skin_render.wgsl and cor.wgsl in the same module. The center of
// rotation comes from vertex buffer 4 (`GpuMesh::cor_centers`, `Float32x3`,
// location 8), bound by the CoR pipeline only; keep in sync with
// `COR_ATTRIBUTES` in src/render/renderer.rs.

// The debug views get DQS's mode: CoR's linear part is a rotation (times DQS's
// phase-1 scale/shear), so its local volume ratio (collapse view) is DQS's.
@vertex
fn vs_main_cor(v: VertexIn, @location(8) cor_center: vec3<f32>) -> VertexOut {
    return vertex_out(skin_cor(skin_input(v), cor_center), v, SKIN_MODE_DQS);
}
