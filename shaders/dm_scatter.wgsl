// Delta Mush's per-primitive passes: `cs_dm_gather` copies each welded vertex's LBS position
// out of what `cs_skin` wrote, `cs_dm_scatter` moves every vertex by its welded vertex's
// correction (dm_surface.wgsl) and turns its bind normal and tangent by its rotation.
//
// Mirrors src/skin/dm/scene.rs (`mush_mesh`), the specification: keep in sync with it. Needs
// the compute module (skin_compute.wgsl and what it needs) in the same module.

// Mirrors `GpuDmPrimitiveParams` in src/render/gpu_data.rs.
struct DmPrimitiveParams {
    // Vertices of the primitive (per instance).
    vertex_count: u32,
    // Words per vertex of `skinned_out`.
    skinned_words: u32,
    // Welded vertices of its mesh's surface (per instance).
    welded_count: u32,
    // Invocations per dispatch row.
    row_stride: u32,
}

// Mirrors `DM_SOURCE_BIT`: the vertex whose position its welded vertex takes.
const DM_SOURCE_BIT: u32 = 0x80000000u;

@group(3) @binding(0) var<uniform> dm_primitive: DmPrimitiveParams;
// Each vertex's welded vertex, `DM_SOURCE_BIT` set on the one it takes its position from.
@group(3) @binding(1) var<storage, read> dm_welded_of: array<u32>;
// Gather: the welded LBS positions (one vec4 each); scatter: the corrections (four each).
@group(3) @binding(2) var<storage, read_write> dm_welded: array<vec4<f32>>;

// Keep in sync with `WORKGROUP_SIZE` in src/render/gpu_data.rs.
@compute @workgroup_size(64)
fn cs_dm_gather(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x + id.y * dm_primitive.row_stride;
    if index >= dm_primitive.vertex_count {
        return;
    }
    let code = dm_welded_of[index];
    if (code & DM_SOURCE_BIT) == 0u {
        return;
    }
    let w = code & ~DM_SOURCE_BIT;
    let o = (id.z * dm_primitive.vertex_count + index) * dm_primitive.skinned_words;
    let p = vec3<f32>(skinned_out[o], skinned_out[o + 1u], skinned_out[o + 2u]);
    dm_welded[id.z * dm_primitive.welded_count + w] = vec4<f32>(p, 0.0);
}

@compute @workgroup_size(64)
fn cs_dm_scatter(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x + id.y * dm_primitive.row_stride;
    if index >= dm_primitive.vertex_count {
        return;
    }
    let w = dm_welded_of[index] & ~DM_SOURCE_BIT;
    let at = (id.z * dm_primitive.welded_count + w) * 4u;
    let correction = dm_welded[at];
    let o = (id.z * dm_primitive.vertex_count + index) * dm_primitive.skinned_words;
    let moved = vec3<f32>(skinned_out[o], skinned_out[o + 1u], skinned_out[o + 2u]) + correction.xyz;
    if is_finite_vec3(moved) {
        skinned_out[o] = moved.x;
        skinned_out[o + 1u] = moved.y;
        skinned_out[o + 2u] = moved.z;
    }
    if correction.w == 0.0 {
        return;
    }
    let r = mat3x3<f32>(dm_welded[at + 1u].xyz, dm_welded[at + 2u].xyz, dm_welded[at + 3u].xyz);
    // The corners' frames turn bind-space directions into world ones.
    let bind = fetch_vertex(index);
    let n = dm_turn(r, bind.normal);
    if n.found {
        skinned_out[o + 3u] = n.direction.x;
        skinned_out[o + 4u] = n.direction.y;
        skinned_out[o + 5u] = n.direction.z;
    }
    if dm_primitive.skinned_words >= 10u {
        let t = dm_turn(r, bind.tangent.xyz);
        if t.found {
            skinned_out[o + 6u] = t.direction.x;
            skinned_out[o + 7u] = t.direction.y;
            skinned_out[o + 8u] = t.direction.z;
            skinned_out[o + 9u] = bind.tangent.w;
        }
    }
}

// A turned unit direction, `found` false where it is degenerate.
struct DmTurned {
    found: bool,
    direction: vec3<f32>,
}

// `d` turned by `r`, unit length (glam's `try_normalize`).
fn dm_turn(r: mat3x3<f32>, d: vec3<f32>) -> DmTurned {
    let v = r * d;
    let inv = 1.0 / length(v);
    if is_finite_f32(inv) && inv > 0.0 {
        return DmTurned(true, v * inv);
    }
    return DmTurned(false, v);
}
