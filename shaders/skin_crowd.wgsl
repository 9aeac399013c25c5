// Compute skinning for drawing: bind-pose positions and normals in, skinned
// positions and normals out, into a buffer the plain draw (draw_skinned.wgsl)
// reads as its vertex buffer. Tangents are not drawn, so none are computed.
//
// Keep in sync with src/render/gpu_data.rs (`GpuComputeParams`, `GpuCrowdBindVertex`,
// `GpuCrowdInfluences`, `GpuDrawVertex`) and src/render/crowd_skin.rs (bind group 1).
// Needs dq.wgsl, palette.wgsl and skin.wgsl in the same module.

// Mirrors `GpuComputeParams`.
struct ComputeParams {
    vertex_count: u32,
    // SKIN_MODE_*.
    mode: u32,
    // Hybrid factor in [0, 1].
    beta: f32,
    // Invocations per dispatch row: meshes past 65535 workgroups use a 2D dispatch.
    row_stride: u32,
}

// Mirrors `GpuCrowdBindVertex`; w of both is unused.
struct CrowdBindVertex {
    position: vec4<f32>,
    normal: vec4<f32>,
}

// Mirrors `GpuCrowdInfluences`: eight u16 joint indices, two per u32 (low half
// first), heaviest first, then their weights.
struct CrowdInfluences {
    joints: vec4<u32>,
    weights0: vec4<f32>,
    weights1: vec4<f32>,
}

// Mirrors `GpuDrawVertex`; w of both is 0.
struct DrawVertex {
    position: vec4<f32>,
    normal: vec4<f32>,
}

@group(1) @binding(0) var<uniform> params: ComputeParams;
@group(1) @binding(1) var<storage, read> bind_vertices: array<CrowdBindVertex>;
@group(1) @binding(2) var<storage, read> vertex_influences: array<CrowdInfluences>;
@group(1) @binding(3) var<storage, read_write> draw_vertices: array<DrawVertex>;

// Tangents are not drawn: a constant one lets the compiler drop their math.
const UNUSED_TANGENT: vec4<f32> = vec4<f32>(1.0, 0.0, 0.0, 1.0);

// Keep in sync with `WORKGROUP_SIZE` in src/render/crowd_skin.rs.
@compute @workgroup_size(64)
fn cs_skin_draw(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x + id.y * params.row_stride;
    if index >= params.vertex_count {
        return;
    }
    let b = bind_vertices[index];
    let i = vertex_influences[index];
    let low = i.joints & vec4<u32>(0xffffu);
    let high = i.joints >> vec4<u32>(16u);
    let joints0 = vec4<u32>(low.x, high.x, low.y, high.y);
    let joints1 = vec4<u32>(low.z, high.z, low.w, high.w);
    let input = SkinInput(b.position.xyz, b.normal.xyz, UNUSED_TANGENT, joints0, joints1, i.weights0, i.weights1);
    let s = skin_vertex(input, params.mode, params.beta);
    draw_vertices[index] = DrawVertex(vec4<f32>(s.position, 0.0), vec4<f32>(s.normal, 0.0));
}
