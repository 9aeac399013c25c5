// Compute skinning: bind-pose vertices + influences in, morph targets applied,
// skinned vertices out.
//
// Keep in sync with src/render/gpu_data.rs (`GpuComputeParams`, `GpuBindVertex`,
// `GpuVertexInfluences`, `GpuSkinnedVertex`, `GpuMorphDelta`) and
// src/render/compute_skin.rs (bind group 1). Needs dq.wgsl, palette.wgsl and
// skin.wgsl in the same module. `morph_vertex` mirrors src/skin/morph.rs.

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

// Mirrors `GpuBindVertex`; w of position and normal is unused.
struct BindVertex {
    position: vec4<f32>,
    normal: vec4<f32>,
    tangent: vec4<f32>,
}

// Mirrors `GpuVertexInfluences`: up to eight influences, heaviest first.
struct VertexInfluences {
    joints0: vec4<u32>,
    joints1: vec4<u32>,
    weights0: vec4<f32>,
    weights1: vec4<f32>,
}

// Mirrors `GpuSkinnedVertex`; w of position and normal is 0.
struct SkinnedVertex {
    position: vec4<f32>,
    normal: vec4<f32>,
    tangent: vec4<f32>,
}

@group(1) @binding(0) var<uniform> params: ComputeParams;
@group(1) @binding(1) var<storage, read> bind_vertices: array<BindVertex>;
@group(1) @binding(2) var<storage, read> vertex_influences: array<VertexInfluences>;
@group(1) @binding(3) var<storage, read_write> skinned_vertices: array<SkinnedVertex>;
// Center of rotation per vertex (xyz; w unused), read in SKIN_MODE_COR only.
@group(1) @binding(6) var<storage, read> cor_centers: array<vec4<f32>>;
// Target-major: the delta of vertex v by target t is at t * vertex_count + v.
@group(1) @binding(4) var<storage, read> morph_deltas: array<MorphDelta>;
// Mirrors `GpuMorphWeights`: target t's weight at weights[t / 4][t % 4]. A uniform block,
// as the stage already has the eight storage buffers every adapter allows.
struct MorphWeights {
    count: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    weights: array<vec4<f32>, 64>,
}
@group(1) @binding(5) var<uniform> morph_weights: MorphWeights;

// Mirrors `GpuMorphDelta`; w is unused.
struct MorphDelta {
    position: vec4<f32>,
    normal: vec4<f32>,
    tangent: vec4<f32>,
}

// Adds the weighted displacements of every target with a non-zero weight, in
// target order, then renormalises the normal and tangent direction (`normalize_or` of skin.wgsl); the same
// sums and skips as `morph_vertices` in src/skin/morph.rs.
fn morph_vertex(index: u32, b: BindVertex) -> BindVertex {
    var out = b;
    var morphed = false;
    let targets = morph_weights.count;
    for (var t = 0u; t < targets; t++) {
        let w = morph_weights.weights[t / 4u][t % 4u];
        if w == 0.0 {
            continue;
        }
        morphed = true;
        let d = morph_deltas[t * params.vertex_count + index];
        out.position = vec4<f32>(out.position.xyz + w * d.position.xyz, out.position.w);
        out.normal = vec4<f32>(out.normal.xyz + w * d.normal.xyz, 0.0);
        out.tangent = vec4<f32>(out.tangent.xyz + w * d.tangent.xyz, out.tangent.w);
    }
    if morphed {
        out.normal = vec4<f32>(normalize_or(out.normal.xyz, b.normal.xyz), 0.0);
        out.tangent = vec4<f32>(normalize_or(out.tangent.xyz, b.tangent.xyz), b.tangent.w);
    }
    return out;
}

// Keep in sync with `WORKGROUP_SIZE` in src/render/compute_skin.rs.
@compute @workgroup_size(64)
fn cs_skin(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x + id.y * params.row_stride;
    if index >= params.vertex_count {
        return;
    }
    let b = morph_vertex(index, bind_vertices[index]);
    let i = vertex_influences[index];
    let input = SkinInput(b.position.xyz, b.normal.xyz, b.tangent, i.joints0, i.joints1, i.weights0, i.weights1);
    var s: Skinned;
    if params.mode == SKIN_MODE_COR {
        s = skin_cor(input, cor_centers[index].xyz);
    } else {
        s = skin_vertex(input, params.mode, params.beta);
    }
    skinned_vertices[index] = SkinnedVertex(vec4<f32>(s.position, 0.0), vec4<f32>(s.normal, 0.0), s.tangent);
}
