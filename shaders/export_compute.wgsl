// The compute stage `dqview shader --stage compute` exports: skins vertex i of bind group 1's
// arrays into `skinned` (position then normal, 6 floats), for engines that skin before
// drawing. Entry `cs_skin`; hybrid exports `cs_skin_blend` (renamed `cs_skin`), which reads
// the per-vertex blend; `--influences 8` exports `cs_skin8` (or `cs_skin8_blend`), which reads
// 8 joints and weights per vertex instead of 4; CoR exports `cs_skin_cor` (or `cs_skin8_cor`),
// which reads each vertex's centre of rotation. Dispatch ceil(vertex_count / 64) workgroups in x.

// Bind-pose positions, 3 floats per vertex.
@group(1) @binding(0) var<storage, read> bind_positions: array<f32>;
// Bind-pose normals, 3 floats per vertex.
@group(1) @binding(1) var<storage, read> bind_normals: array<f32>;
// Joint indices, 4 (or 8) per vertex, heaviest influence first.
@group(1) @binding(2) var<storage, read> vertex_joints: array<u32>;
// Weights, 4 (or 8) per vertex, summing to 1.
@group(1) @binding(3) var<storage, read> vertex_weights: array<f32>;
// Per-vertex blend (`_DQS_BLEND`), 1 float per vertex (hybrid only).
@group(1) @binding(4) var<storage, read> vertex_blends: array<f32>;
// Output: skinned position (3 floats) then unit normal (3 floats) per vertex.
@group(1) @binding(5) var<storage, read_write> skinned: array<f32>;
// Per-vertex centre of rotation (`_COR_CENTER`, which `dqview cor` writes), 3 floats per vertex (CoR only).
@group(1) @binding(7) var<storage, read> cor_centers: array<f32>;

// No centre of rotation: what every method but CoR is passed (and does not read).
const NO_CENTER: vec3<f32> = vec3<f32>(0.0);

// Vertex i's centre of rotation.
fn cor_center(i: u32) -> vec3<f32> {
    return vec3<f32>(cor_centers[3u * i], cor_centers[3u * i + 1u], cor_centers[3u * i + 2u]);
}

fn vertex_joints4(at: u32) -> vec4<u32> {
    return vec4<u32>(vertex_joints[at], vertex_joints[at + 1u], vertex_joints[at + 2u], vertex_joints[at + 3u]);
}

fn vertex_weights4(at: u32) -> vec4<f32> {
    return vec4<f32>(vertex_weights[at], vertex_weights[at + 1u], vertex_weights[at + 2u], vertex_weights[at + 3u]);
}

// Vertex i's bind pose with `influences` (4 or 8) joints and weights.
fn compute_input(i: u32, influences: u32) -> SkinInput {
    let position = vec3<f32>(bind_positions[3u * i], bind_positions[3u * i + 1u], bind_positions[3u * i + 2u]);
    let normal = vec3<f32>(bind_normals[3u * i], bind_normals[3u * i + 1u], bind_normals[3u * i + 2u]);
    let tangent = vec4<f32>(1.0, 0.0, 0.0, 1.0);
    let at = influences * i;
    var joints1 = vec4<u32>(0u);
    var weights1 = vec4<f32>(0.0);
    if influences == 8u {
        joints1 = vertex_joints4(at + 4u);
        weights1 = vertex_weights4(at + 4u);
    }
    return SkinInput(position, normal, tangent, vertex_joints4(at), joints1, vertex_weights4(at), weights1);
}

fn export_compute(i: u32, v: SkinInput, blend: f32, center: vec3<f32>) {
    write_skinned(i, skin_export(v, blend, center));
}

// Vertex i's skinned position and normal into `skinned`.
fn write_skinned(i: u32, s: Skinned) {
    let o = 6u * i;
    skinned[o] = s.position.x;
    skinned[o + 1u] = s.position.y;
    skinned[o + 2u] = s.position.z;
    skinned[o + 3u] = s.normal.x;
    skinned[o + 4u] = s.normal.y;
    skinned[o + 5u] = s.normal.z;
}

@compute @workgroup_size(64)
fn cs_skin(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < skin.vertex_count {
        export_compute(id.x, compute_input(id.x, 4u), 1.0, NO_CENTER);
    }
}

@compute @workgroup_size(64)
fn cs_skin_cor(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < skin.vertex_count {
        export_compute(id.x, compute_input(id.x, 4u), 1.0, cor_center(id.x));
    }
}

@compute @workgroup_size(64)
fn cs_skin_blend(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < skin.vertex_count {
        export_compute(id.x, compute_input(id.x, 4u), vertex_blends[id.x], NO_CENTER);
    }
}

@compute @workgroup_size(64)
fn cs_skin8(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < skin.vertex_count {
        export_compute(id.x, compute_input(id.x, 8u), 1.0, NO_CENTER);
    }
}

@compute @workgroup_size(64)
fn cs_skin8_cor(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < skin.vertex_count {
        export_compute(id.x, compute_input(id.x, 8u), 1.0, cor_center(id.x));
    }
}

@compute @workgroup_size(64)
fn cs_skin8_blend(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < skin.vertex_count {
        export_compute(id.x, compute_input(id.x, 8u), vertex_blends[id.x], NO_CENTER);
    }
}
