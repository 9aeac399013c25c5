// The compute entry point cs_skin: skins every vertex of one geometry for every instance
// of its palette slot into a buffer, for readback (`export --gpu`, tests) and for the
// compute drawing path (drawn by vs_main with PRESKINNED).
//
// Twin of `GpuComputeParams` in src/render/gpu_data.rs, checked by a naga layout test.
// Needs dq.wgsl, palette.wgsl, skin.wgsl, cor.wgsl, bulge.wgsl and geometry.wgsl in the
// same module: the vertex shaders' very path.

// Mirrors `GpuComputeParams`.
// The mode and bulge fix are the pipeline's override constants (SKIN_MODE, BULGE).
struct ComputeParams {
    // Hybrid beta scale (times each vertex's beta; 1 where the geometry has none).
    beta_scale: f32,
    // DQS bulge compensation in [0, 1].
    bulge: f32,
    // Invocations per dispatch row: meshes past 65535 workgroups use a 2D dispatch.
    row_stride: u32,
    pad: u32,
}

@group(2) @binding(0) var<uniform> params: ComputeParams;
// Instance i's vertex v at (i * vertex_count + v) * geometry.skinned_words: position,
// normal, then (10 words) the tangent with handedness.
@group(2) @binding(1) var<storage, read_write> skinned_out: array<f32>;

// Keep in sync with `WORKGROUP_SIZE` in src/render/gpu_data.rs.
@compute @workgroup_size(64)
fn cs_skin(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x + id.y * params.row_stride;
    if index >= geometry.vertex_count {
        return;
    }
    let instance = id.z;
    select_instance(instance);
    let s = skin_geometry_vertex(fetch_vertex(index), index, params.beta_scale, params.bulge);
    let words = geometry.skinned_words;
    let o = (instance * geometry.vertex_count + index) * words;
    skinned_out[o] = s.position.x;
    skinned_out[o + 1u] = s.position.y;
    skinned_out[o + 2u] = s.position.z;
    skinned_out[o + 3u] = s.normal.x;
    skinned_out[o + 4u] = s.normal.y;
    skinned_out[o + 5u] = s.normal.z;
    if words >= 10u {
        skinned_out[o + 6u] = s.tangent.x;
        skinned_out[o + 7u] = s.tangent.y;
        skinned_out[o + 8u] = s.tangent.z;
        skinned_out[o + 9u] = s.tangent.w;
    }
}
