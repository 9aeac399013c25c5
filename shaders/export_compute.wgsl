// The compute stage `dqview shader --stage compute` exports: skins vertex i of bind group 1's
// arrays into `skinned` (position then normal, 6 floats), for engines that skin before
// drawing. Entry `cs_skin`; hybrid exports `cs_skin_blend` (renamed `cs_skin`), which reads
// the per-vertex blend. Dispatch ceil(vertex_count / 64) workgroups in x.

// Bind-pose positions, 3 floats per vertex.
@group(1) @binding(0) var<storage, read> bind_positions: array<f32>;
// Bind-pose normals, 3 floats per vertex.
@group(1) @binding(1) var<storage, read> bind_normals: array<f32>;
// Joint indices, 4 per vertex, heaviest influence first.
@group(1) @binding(2) var<storage, read> vertex_joints: array<u32>;
// Weights, 4 per vertex, summing to 1.
@group(1) @binding(3) var<storage, read> vertex_weights: array<f32>;
// Per-vertex blend (`_DQS_BLEND`), 1 float per vertex (hybrid only).
@group(1) @binding(4) var<storage, read> vertex_blends: array<f32>;
// Output: skinned position (3 floats) then unit normal (3 floats) per vertex.
@group(1) @binding(5) var<storage, read_write> skinned: array<f32>;

fn export_compute(i: u32, blend: f32) {
    let position = vec3<f32>(bind_positions[3u * i], bind_positions[3u * i + 1u], bind_positions[3u * i + 2u]);
    let normal = vec3<f32>(bind_normals[3u * i], bind_normals[3u * i + 1u], bind_normals[3u * i + 2u]);
    let joints = vec4<u32>(vertex_joints[4u * i], vertex_joints[4u * i + 1u], vertex_joints[4u * i + 2u], vertex_joints[4u * i + 3u]);
    let weights = vec4<f32>(vertex_weights[4u * i], vertex_weights[4u * i + 1u], vertex_weights[4u * i + 2u], vertex_weights[4u * i + 3u]);
    let tangent = vec4<f32>(1.0, 0.0, 0.0, 1.0);
    let s = skin_export(SkinInput(position, normal, tangent, joints, vec4<u32>(0u), weights, vec4<f32>(0.0)), blend);
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
        export_compute(id.x, 1.0);
    }
}

@compute @workgroup_size(64)
fn cs_skin_blend(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < skin.vertex_count {
        export_compute(id.x, vertex_blends[id.x]);
    }
}
