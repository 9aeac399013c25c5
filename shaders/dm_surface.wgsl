// Delta Mush over one welded surface on the GPU: the smoothing steps and the corner
// correction, run after `cs_dm_gather` (dm_scatter.wgsl) has put each welded vertex's LBS
// position in `dm_lbs`.
//
// Mirrors src/skin/dm/surface.rs (`smooth_positions`, `corner_height`), frames.rs
// (`corner_frame`) and scene.rs (`mush_welded`, `joint_scales`), the specification: keep in
// sync with them. Needs dq.wgsl and palette.wgsl in the same module (group 0, the mesh's
// palette slot, for the joints' scales).

// Mirrors `GpuDmParams` in src/render/gpu_data.rs.
struct DmParams {
    // Welded vertices of the surface (per instance).
    welded_count: u32,
    // Invocations per dispatch row (2D dispatch for very large meshes).
    row_stride: u32,
    // Step of each smoothing iteration towards the neighbours' mean.
    factor: f32,
    // The least corner height whose frame counts (`DmSurface::min_corner_height`).
    min_corner_height: f32,
    // The skin's scale at rest (`MeshDm::rest_scale`).
    rest_scale: f32,
    // Word of `dm_static` where the neighbour list starts (offsets start at word 0).
    neighbours_at: u32,
    // Word where the per-vertex corner offsets start.
    corner_offsets_at: u32,
    // Word where the corners start (`DM_CORNER_WORDS` each).
    corners_at: u32,
    // Word where the per-vertex influence offsets start.
    influence_offsets_at: u32,
    // Word where the (joint, weight) pairs start.
    influences_at: u32,
    pad0: u32,
    pad1: u32,
}

// Mirrors `DM_CORNER_WORDS`: prev, next (bit 31: stable at rest), delta xyz, rest frame 3x3.
const DM_CORNER_WORDS: u32 = 14u;
// Mirrors `DM_STABLE_BIT`.
const DM_STABLE_BIT: u32 = 0x80000000u;
// Two edge directions closer than this in every component make no frame (`SAME_DIRECTION`).
const DM_SAME_DIRECTION: f32 = 1.1920929e-6;

@group(1) @binding(0) var<uniform> dm: DmParams;
// The surface's constant data: graph, corners and influences (layout in `DmParams`).
@group(1) @binding(1) var<storage, read> dm_static: array<u32>;
// Each instance's welded LBS positions (`instance * welded_count + w`).
@group(1) @binding(2) var<storage, read> dm_lbs: array<vec4<f32>>;
// The positions a smoothing step starts from (the last step's result for the correction).
@group(1) @binding(3) var<storage, read> dm_src: array<vec4<f32>>;
// The positions a smoothing step writes.
@group(1) @binding(4) var<storage, read_write> dm_dst: array<vec4<f32>>;
// Per welded vertex and instance, four vec4: the move from LBS (w 1 when turned), then the
// columns of the rotation its normals turn by.
@group(1) @binding(5) var<storage, read_write> dm_corrected: array<vec4<f32>>;

// Keep in sync with `WORKGROUP_SIZE` in src/render/gpu_data.rs.
@compute @workgroup_size(64)
fn cs_dm_smooth(@builtin(global_invocation_id) id: vec3<u32>) {
    let w = id.x + id.y * dm.row_stride;
    if w >= dm.welded_count {
        return;
    }
    let base = id.z * dm.welded_count;
    let p = dm_src[base + w];
    let first = dm_static[w];
    let end = dm_static[w + 1u];
    if first == end {
        dm_dst[base + w] = p;
        return;
    }
    var sum = vec3<f32>(0.0);
    for (var i = first; i < end; i++) {
        sum += dm_src[base + dm_static[dm.neighbours_at + i]].xyz - p.xyz;
    }
    dm_dst[base + w] = vec4<f32>(p.xyz + sum * (dm.factor / f32(end - first)), p.w);
}

// glam's `normalize_or_zero`: zero where the length's reciprocal is not a finite positive.
fn dm_normalize_or_zero(v: vec3<f32>) -> vec3<f32> {
    let r = 1.0 / length(v);
    if is_finite_f32(r) && r > 0.0 {
        return v * r;
    }
    return vec3<f32>(0.0);
}

// A corner's frame (columns: bisector, in-plane normal, face normal) and its weight.
struct DmFrame {
    found: bool,
    basis: mat3x3<f32>,
    weight: f32,
}

// The frame at corner `curr` of a face running `prev`, `curr`, `next` (`corner_frame`).
fn dm_corner_frame(prev: vec3<f32>, curr: vec3<f32>, next: vec3<f32>) -> DmFrame {
    let dir_prev = dm_normalize_or_zero(prev - curr);
    let dir_next = dm_normalize_or_zero(curr - next);
    let d = abs(dir_prev - dir_next);
    if max(d.x, max(d.y, d.z)) <= DM_SAME_DIRECTION {
        return DmFrame(false, mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0)), 0.0);
    }
    let z = dm_normalize_or_zero(cross(dir_prev, dir_next));
    let x = dm_normalize_or_zero(dir_prev + dir_next);
    let y = cross(z, x);
    let weight = abs(acos(clamp(dot(dir_next, dir_prev), -1.0, 1.0)));
    return DmFrame(true, mat3x3<f32>(x, y, z), weight);
}

// The triangle's height at corner `curr` over its longer edge (`corner_height`).
fn dm_corner_height(prev: vec3<f32>, curr: vec3<f32>, next: vec3<f32>) -> f32 {
    let a = prev - curr;
    let b = curr - next;
    let longer = max(length(a), length(b));
    if longer > 0.0 {
        return length(cross(a, b)) / longer;
    }
    return 0.0;
}

// Word `i` of the static data as a float.
fn dm_f32(i: u32) -> f32 {
    return bitcast<f32>(dm_static[i]);
}

// Three floats of the static data from word `i`.
fn dm_vec3(i: u32) -> vec3<f32> {
    return vec3<f32>(dm_f32(i), dm_f32(i + 1u), dm_f32(i + 2u));
}

// Welded vertex `w`'s scale at this pose over the rest scale (`joint_scales`): its joints'
// uniform scales blended by weight; 1 where that is not a finite positive number.
fn dm_joint_scale(w: u32) -> f32 {
    let first = dm_static[dm.influence_offsets_at + w];
    let end = dm_static[dm.influence_offsets_at + w + 1u];
    var total = 0.0;
    var blended = 0.0;
    for (var i = first; i < end; i++) {
        let at = dm.influences_at + 2u * i;
        let weight = dm_f32(at + 1u);
        let m = joint_matrix(dm_static[at]);
        let det = abs(determinant(mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz)));
        var scale = 0.0;
        if det > 0.0 {
            scale = pow(det, 1.0 / 3.0);
        }
        total += weight;
        blended += weight * scale;
    }
    let s = blended / total / dm.rest_scale;
    if is_finite_f32(s) && s > 0.0 {
        return s;
    }
    return 1.0;
}

// Each welded vertex from the smoothed positions in `dm_src` (`mush_welded`): the rest deltas
// of its corners that stand clear of rounding, re-applied in their smoothed posed frames and
// weighted by angle; a vertex with no such corner stays at LBS.
@compute @workgroup_size(64)
fn cs_dm_correct(@builtin(global_invocation_id) id: vec3<u32>) {
    let w = id.x + id.y * dm.row_stride;
    if w >= dm.welded_count {
        return;
    }
    select_instance(id.z);
    let base = id.z * dm.welded_count;
    let p = dm_src[base + w].xyz;
    let lbs = dm_lbs[base + w].xyz;
    let out = (base + w) * 4u;
    var total = 0.0;
    var offset = vec3<f32>(0.0);
    var rotation = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    let first = dm_static[dm.corner_offsets_at + w];
    let end = dm_static[dm.corner_offsets_at + w + 1u];
    for (var c = first; c < end; c++) {
        let at = dm.corners_at + c * DM_CORNER_WORDS;
        let next_word = dm_static[at + 1u];
        let prev = dm_src[base + dm_static[at]].xyz;
        let next = dm_src[base + (next_word & ~DM_STABLE_BIT)].xyz;
        let clear = dm_corner_height(prev, p, next) >= dm.min_corner_height;
        if (next_word & DM_STABLE_BIT) == 0u || !clear {
            continue;
        }
        let f = dm_corner_frame(prev, p, next);
        if !f.found {
            continue;
        }
        let rest_frame = mat3x3<f32>(dm_vec3(at + 5u), dm_vec3(at + 8u), dm_vec3(at + 11u));
        total += f.weight;
        offset += f.weight * (f.basis * dm_vec3(at + 2u));
        rotation += f.basis * transpose(rest_frame) * f.weight;
    }
    if !(total > 0.0) {
        // No corner to carry the rest's detail back: the smoothing alone would shrink it.
        dm_corrected[out] = vec4<f32>(0.0);
        return;
    }
    let moved = p + offset * (dm_joint_scale(w) / total);
    dm_corrected[out] = vec4<f32>(moved - lbs, 1.0);
    let r = rotation * (1.0 / total);
    dm_corrected[out + 1u] = vec4<f32>(r[0], 0.0);
    dm_corrected[out + 2u] = vec4<f32>(r[1], 0.0);
    dm_corrected[out + 3u] = vec4<f32>(r[2], 0.0);
}
