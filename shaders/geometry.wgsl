// One primitive's geometry: bind group 1 of every skinning pipeline (render::GpuGeometry).
//
// Twin of `GpuGeometryParams` in src/render/gpu_data.rs, checked by a naga layout test.
// Every pipeline, the vertex shaders and the compute pass alike, reads a vertex through
// `fetch_vertex` and skins it with `skin_geometry_vertex`: one path for all of them.
// `morph_vertex` mirrors src/skin/morph.rs. Needs dq.wgsl, palette.wgsl, skin.wgsl,
// cor.wgsl, ddm.wgsl and bulge.wgsl in the same module.

// An optional part the primitive lacks.
const ABSENT: u32 = 0xffffffffu;
// `GeometryParams::flags`: per-vertex hybrid betas are bound.
const GEOMETRY_HAS_BETAS: u32 = 1u;
// `GeometryParams::flags`: per-vertex centers of rotation are bound.
const GEOMETRY_HAS_CENTERS: u32 = 2u;
// `GeometryParams::flags`: per-vertex Direct Delta Mush matrices are bound.
const GEOMETRY_HAS_DDM: u32 = 4u;
// Most morph targets a primitive applies (`MAX_GPU_MORPH_TARGETS`).
const MAX_MORPH_TARGETS: u32 = 256u;

// Mirrors `GpuGeometryParams`.
struct GeometryParams {
    vertex_count: u32,
    // Words of one vertex record in `vertex_records`: position (3 f32), normal (3 f32),
    // then, where present, texture coordinates (2 f32), colour (unorm16x4 in 2 words) and
    // tangent (4 f32, handedness in w), at the offsets below.
    record_words: u32,
    uv_at: u32,
    color_at: u32,
    tangent_at: u32,
    // Words of one vertex's influences: 0 (rigid: joint 0 at weight 1), 6 (4 joints as
    // u16 pairs, 4 f32 weights) or 12 (8 joints, 8 weights); heaviest first.
    influence_words: u32,
    // GEOMETRY_HAS_* bits.
    flags: u32,
    // Morph targets with deltas in `morph_deltas`.
    morph_count: u32,
    // Words per vertex of the skinned output (6: position, normal; 10: and tangent); 0 without one.
    skinned_words: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    // Weight of target t at [t / 4][t % 4].
    morph_weights: array<vec4<f32>, 64>,
}

@group(1) @binding(0) var<uniform> geometry: GeometryParams;
@group(1) @binding(1) var<storage, read> vertex_records: array<u32>;
@group(1) @binding(2) var<storage, read> vertex_influences: array<u32>;
// Hybrid betas (vertex v's at v) and centers of rotation (xyz of vertex v's at
// vertex_count + 3 v), each valid where its GEOMETRY_HAS_* flag is set: one binding, so a
// stage stays within WebGPU's 8 storage buffers.
@group(1) @binding(3) var<storage, read> vertex_scalars: array<f32>;
// Direct Delta Mush: vertex v's pairs are `vertex_ddm[v]..vertex_ddm[v + 1]`, pair k at word
// vertex_count + 1 + DDM_PAIR_WORDS * k (the joint, then Omega's upper triangle as f32 bits).
@group(1) @binding(4) var<storage, read> vertex_ddm: array<u32>;
// Target-major: position, normal and tangent deltas of vertex v by target t at
// 3 * (t * vertex_count + v) + 0, 1, 2 (w unused).
@group(1) @binding(5) var<storage, read> morph_deltas: array<vec4<f32>>;

// Tangent of primitives without one; the vertex shaders drop its math.
const UNUSED_TANGENT: vec4<f32> = vec4<f32>(1.0, 0.0, 0.0, 1.0);

fn record_f32(i: u32) -> f32 {
    return bitcast<f32>(vertex_records[i]);
}

fn record_vec3(i: u32) -> vec3<f32> {
    return vec3<f32>(record_f32(i), record_f32(i + 1u), record_f32(i + 2u));
}

fn unpack_joints(word: u32) -> vec2<u32> {
    return vec2<u32>(word & 0xffffu, word >> 16u);
}

fn influence_f32(i: u32) -> f32 {
    return bitcast<f32>(vertex_influences[i]);
}

fn influence_vec4(i: u32) -> vec4<f32> {
    return vec4<f32>(influence_f32(i), influence_f32(i + 1u), influence_f32(i + 2u), influence_f32(i + 3u));
}

// Adds the weighted displacements of every target with a non-zero weight, in target
// order, then renormalises the normal and tangent direction: `morph_vertices`'s sums and skips.
fn morph_vertex(index: u32, b: SkinInput) -> SkinInput {
    var out = b;
    var morphed = false;
    let targets = min(geometry.morph_count, MAX_MORPH_TARGETS);
    for (var t = 0u; t < targets; t++) {
        let w = geometry.morph_weights[t / 4u][t % 4u];
        if w == 0.0 {
            continue;
        }
        morphed = true;
        let at = 3u * (t * geometry.vertex_count + index);
        out.position += w * morph_deltas[at].xyz;
        out.normal += w * morph_deltas[at + 1u].xyz;
        out.tangent = vec4<f32>(out.tangent.xyz + w * morph_deltas[at + 2u].xyz, out.tangent.w);
    }
    if morphed {
        out.normal = normalize_or(out.normal, b.normal);
        out.tangent = vec4<f32>(normalize_or(out.tangent.xyz, b.tangent.xyz), b.tangent.w);
    }
    return out;
}

// Vertex `index` in bind space: morphed, with its (up to eight) influences.
fn fetch_vertex(index: u32) -> SkinInput {
    let base = index * geometry.record_words;
    var v: SkinInput;
    v.position = record_vec3(base);
    v.normal = record_vec3(base + 3u);
    v.tangent = UNUSED_TANGENT;
    if geometry.tangent_at != ABSENT {
        let t = base + geometry.tangent_at;
        v.tangent = vec4<f32>(record_vec3(t), record_f32(t + 3u));
    }
    v.joints0 = vec4<u32>(0u);
    v.joints1 = vec4<u32>(0u);
    v.weights0 = vec4<f32>(1.0, 0.0, 0.0, 0.0);
    v.weights1 = vec4<f32>(0.0);
    let words = geometry.influence_words;
    if words != 0u {
        let i = index * words;
        let a = unpack_joints(vertex_influences[i]);
        let b = unpack_joints(vertex_influences[i + 1u]);
        v.joints0 = vec4<u32>(a, b);
        if words == 12u {
            let c = unpack_joints(vertex_influences[i + 2u]);
            let d = unpack_joints(vertex_influences[i + 3u]);
            v.joints1 = vec4<u32>(c, d);
            v.weights0 = influence_vec4(i + 4u);
            v.weights1 = influence_vec4(i + 8u);
        } else {
            v.weights0 = influence_vec4(i + 2u);
        }
    }
    if geometry.morph_count != 0u {
        v = morph_vertex(index, v);
    }
    return v;
}

// Texture coordinates of vertex `index` (0 without any).
fn vertex_uv(index: u32) -> vec2<f32> {
    if geometry.uv_at == ABSENT {
        return vec2<f32>(0.0);
    }
    let i = index * geometry.record_words + geometry.uv_at;
    return vec2<f32>(record_f32(i), record_f32(i + 1u));
}

// Linear RGBA colour of vertex `index` (white without any).
fn vertex_color(index: u32) -> vec4<f32> {
    if geometry.color_at == ABSENT {
        return vec4<f32>(1.0);
    }
    let i = index * geometry.record_words + geometry.color_at;
    return vec4<f32>(unpack2x16unorm(vertex_records[i]), unpack2x16unorm(vertex_records[i + 1u]));
}

// Vertex `index`'s hybrid beta (1 where the primitive has none).
fn vertex_beta(index: u32) -> f32 {
    if (geometry.flags & GEOMETRY_HAS_BETAS) != 0u {
        return vertex_scalars[index];
    }
    return 1.0;
}

// Vertex `index`'s center of rotation; without centers the vertex itself (CoR is then LBS).
fn vertex_center(index: u32, position: vec3<f32>) -> vec3<f32> {
    if (geometry.flags & GEOMETRY_HAS_CENTERS) != 0u {
        let i = geometry.vertex_count + 3u * index;
        return vec3<f32>(vertex_scalars[i], vertex_scalars[i + 1u], vertex_scalars[i + 2u]);
    }
    return position;
}

// Word `i` of `vertex_ddm` as an f32.
fn ddm_word_f32(i: u32) -> f32 {
    return bitcast<f32>(vertex_ddm[i]);
}

// Direct Delta Mush's fit for vertex `index` (`v`) at bind position `rest`; none without
// matrices.
fn vertex_ddm_fit(index: u32, v: SkinInput, rest: vec3<f32>) -> DdmFit {
    if (geometry.flags & GEOMETRY_HAS_DDM) == 0u {
        return DdmFit(false, MAT3_IDENTITY, vec3<f32>(0.0), vec3<f32>(0.0));
    }
    let base = geometry.vertex_count + 1u;
    var q = ddm_sums_start(v);
    for (var k = vertex_ddm[index]; k < vertex_ddm[index + 1u]; k++) {
        let at = base + DDM_PAIR_WORDS * k;
        let a = vec4<f32>(ddm_word_f32(at + 1u), ddm_word_f32(at + 2u), ddm_word_f32(at + 3u), ddm_word_f32(at + 4u));
        let b = vec4<f32>(ddm_word_f32(at + 5u), ddm_word_f32(at + 6u), ddm_word_f32(at + 7u), ddm_word_f32(at + 8u));
        let c = vec2<f32>(ddm_word_f32(at + 9u), ddm_word_f32(at + 10u));
        q = ddm_add_pair(q, vertex_ddm[at], ddm_omega(a, b, c), rest);
    }
    return ddm_fit(q);
}

// The hybrid beta of vertex `index`: its own beta times `beta_scale`, in [0, 1].
fn hybrid_beta(index: u32, beta_scale: f32) -> f32 {
    return clamp(vertex_beta(index) * beta_scale, 0.0, 1.0);
}

// The skinning mode of the pipeline (SKIN_MODE_*). A constant, not a uniform: a software
// rasterizer runs every side of a uniform branch, so each pipeline compiles its mode alone.
override SKIN_MODE: u32 = 1u;
// True in DQS pipelines with bulge compensation on (compiled out of the others, likewise).
override BULGE: bool = false;

// Skins vertex `v` (number `index`) in the pipeline's mode: the one skinning entry of every
// pipeline, the vertex shaders and the compute pass alike.
//
// Hybrid scales each vertex's beta by `beta_scale`; DQS pulls bulging vertices back by
// `bulge` (0 off, 1 all the way) in BULGE pipelines; CoR rotates about the vertex's center;
// DDM moves the vertex by the rigid transform fitted from its matrices (LBS without them).
// A rigid primitive's vertices have one influence, joint 0 of its slot at weight 1, which
// every mode turns into that joint's matrix.
fn skin_geometry_vertex(v: SkinInput, index: u32, beta_scale: f32, bulge: f32) -> Skinned {
    switch SKIN_MODE {
        case SKIN_MODE_DDM: {
            let rest = record_vec3(index * geometry.record_words);
            return skin_ddm(v, rest, vertex_ddm_fit(index, v, rest));
        }
        case SKIN_MODE_COR: {
            return skin_cor(v, vertex_center(index, v.position));
        }
        case SKIN_MODE_HYBRID: {
            return skin_vertex(v, SKIN_MODE_HYBRID, hybrid_beta(index, beta_scale));
        }
        case SKIN_MODE_DQS: {
            var s = skin_vertex(v, SKIN_MODE_DQS, 1.0);
            // `BULGE` alone as the condition crashes lavapipe (Mesa 22.3) at draw time.
            if BULGE && bulge > 0.0 {
                s.position = compensate_bulge(v, s.position, bulge);
            }
            return s;
        }
        default: {
            return skin_vertex(v, SKIN_MODE_LBS, 0.0);
        }
    }
}
