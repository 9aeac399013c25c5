// Direct Delta Mush in the exported shaders (`dqview shader --method ddm`): each vertex is
// moved by the rigid transform fitted from its joints' matrices and its Omega matrices, which
// `dqview ddm MODEL --out FILE` writes per skinned primitive in this layout.
//
// Mirrors `vertex_ddm_fit` in geometry.wgsl (the renderer's reading of the same words, which
// start one word later there). Needs ddm.wgsl and what it needs in the same module; the entry
// points are in export_ddm_vertex.wgsl and export_ddm_compute.wgsl.

// Word 0: the primitive's vertex count n; words 1 to n + 1: vertex v's pairs are k in
// [word 1 + v, word 2 + v); from word n + 2, DDM_PAIR_WORDS words a pair: the joint, then
// Omega's upper triangle (libigl's order) as f32 bits.
@group(1) @binding(6) var<storage, read> ddm_words: array<u32>;

// The 3x3 identity (the fit without a rotation; palette.wgsl has it in the renderer).
const MAT3_IDENTITY: mat3x3<f32> = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));

// Word `i` of `ddm_words` as an f32.
fn export_ddm_f32(i: u32) -> f32 {
    return bitcast<f32>(ddm_words[i]);
}

// Vertex `index`'s fitted transform at bind position `rest`; none without pairs.
fn export_ddm_fit(index: u32, v: SkinInput, rest: vec3<f32>) -> DdmFit {
    let base = ddm_words[0] + 2u;
    var q = ddm_sums_start(v);
    for (var k = ddm_words[1u + index]; k < ddm_words[2u + index]; k++) {
        let at = base + DDM_PAIR_WORDS * k;
        let a = vec4<f32>(export_ddm_f32(at + 1u), export_ddm_f32(at + 2u), export_ddm_f32(at + 3u), export_ddm_f32(at + 4u));
        let b = vec4<f32>(export_ddm_f32(at + 5u), export_ddm_f32(at + 6u), export_ddm_f32(at + 7u), export_ddm_f32(at + 8u));
        let c = vec2<f32>(export_ddm_f32(at + 9u), export_ddm_f32(at + 10u));
        q = ddm_add_pair(q, ddm_words[at], ddm_omega(a, b, c), rest);
    }
    return ddm_fit(q);
}

// Vertex `index` (bind pose `v`, unmorphed: its position is the rest the matrices were made at)
// skinned by Direct Delta Mush; LBS where it has no fit.
fn export_ddm(index: u32, v: SkinInput) -> Skinned {
    return skin_ddm(v, v.position, export_ddm_fit(index, v, v.position));
}
