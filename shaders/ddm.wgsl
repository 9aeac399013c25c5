// Direct Delta Mush at run time (Le and Lewis 2019, variant 0), shared by the compute pass
// and the vertex-shader pipeline.
//
// Mirrors src/skin/ddm/apply.rs (`skin_vertex_ddm`, `fit_parts`, `polar_rotation`,
// `one_sided_jacobi`) and src/skin/ddm/scene.rs (`skin_one`), the specification: keep in sync
// with them. Needs dq.wgsl, palette.wgsl (or export_palette.wgsl) and skin.wgsl in the same
// module; geometry.wgsl (and export_ddm.wgsl) read each vertex's pairs and call `ddm_omega`,
// `ddm_add_pair` and `ddm_fit`.

// Mirrors `GPU_MODE_DDM` in src/render/gpu_data.rs.
const SKIN_MODE_DDM: u32 = 4u;

// Words of one vertex-joint pair (`DDM_PAIR_WORDS`): the joint, then Omega's 10 entries.
const DDM_PAIR_WORDS: u32 = 11u;

// Omega, symmetric, from its upper triangle in libigl's order: `a` entries 0 to 3 (column 0),
// `b` 4 to 7, `c` 8 and 9.
fn ddm_omega(a: vec4<f32>, b: vec4<f32>, c: vec2<f32>) -> mat4x4<f32> {
    return mat4x4<f32>(
        a,
        vec4<f32>(a.y, b.x, b.y, b.z),
        vec4<f32>(a.z, b.y, b.w, c.x),
        vec4<f32>(a.w, b.z, c.x, c.y),
    );
}

// One-sided Jacobi sweeps of the polar fit (`SVD_SWEEPS`); f32 converges in fewer.
const DDM_SVD_SWEEPS: u32 = 8u;
// A fit whose second singular value is below this share of the largest has no rotation
// (`MIN_SECOND_SINGULAR`).
const DDM_MIN_SECOND_SINGULAR: f32 = 1e-3;
// Columns whose overlap is below this share of their lengths' product count as orthogonal.
const DDM_SVD_ORTHOGONAL: f32 = 1e-7;

// A fitted rigid transform: the vertex moves to rotation (v - rest) + translation;
// `smoothed_offset` is where its smoothed rest neighbourhood's centre lies from rest.
struct DdmFit {
    found: bool,
    rotation: mat3x3<f32>,
    translation: vec3<f32>,
    smoothed_offset: vec3<f32>,
}

// What a vertex's fit sums: `q` of the joints' full matrices and, where joints scale, `q_turn`
// of each joint's rotation after the vertex's blended `scale_shear`, moving `rest` where the
// full matrix does (`skin_vertex_ddm_scaled`). `q_turn` takes its translations from `anchor`
// (the first pair's, set when `anchored` is 1): the fit is the same from any origin, and a near
// one keeps f32 from cancelling.
struct DdmSums {
    q: mat4x4<f32>,
    q_turn: mat4x4<f32>,
    scale_shear: mat3x3<f32>,
    anchor: vec3<f32>,
    anchored: u32,
}

// No pairs yet, for vertex `v` (its influences give its scale/shear where joints scale).
fn ddm_sums_start(v: SkinInput) -> DdmSums {
    let zero = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    var s = MAT3_IDENTITY;
    if skin.non_rigid != 0u {
        s = blended_scale_shear(v);
    }
    return DdmSums(zero, zero, s, vec3<f32>(0.0), 0u);
}

// The sums plus joint `j`'s matrix with the origin moved to `rest` times `omega` (stored about
// `rest`); where joints scale, its rotation after the vertex's scale/shear too.
fn ddm_add_pair(sums: DdmSums, j: u32, omega: mat4x4<f32>, rest: vec3<f32>) -> DdmSums {
    var m = joint_matrix(j);
    m[3] = m * vec4<f32>(rest, 1.0);
    var out = sums;
    out.q += m * omega;
    if skin.non_rigid != 0u {
        if out.anchored == 0u {
            out.anchor = m[3].xyz;
            out.anchored = 1u;
        }
        let r = joint_dual_quat(j)[0];
        let s = sums.scale_shear;
        let turn = mat4x4<f32>(
            vec4<f32>(rotate_vector(r, s[0]), 0.0),
            vec4<f32>(rotate_vector(r, s[1]), 0.0),
            vec4<f32>(rotate_vector(r, s[2]), 0.0),
            vec4<f32>(m[3].xyz - out.anchor, 1.0),
        );
        out.q_turn += turn * omega;
    }
    return out;
}

// Two columns of `w` and the same two of `v`, after a plane rotation.
struct DdmColumns {
    wp: vec3<f32>,
    wq: vec3<f32>,
    vp: vec3<f32>,
    vq: vec3<f32>,
    rotated: bool,
}

// The plane rotation of columns `wp`, `wq` (and `vp`, `vq`) that makes them orthogonal; the
// columns unchanged, `rotated` false, when they already are. Columns are passed by value, not
// indexed: dynamic indices into matrices spill to memory on some compilers (lavapipe).
fn ddm_jacobi_rotate(wp: vec3<f32>, wq: vec3<f32>, vp: vec3<f32>, vq: vec3<f32>) -> DdmColumns {
    let alpha = dot(wp, wp);
    let beta = dot(wq, wq);
    let gamma = dot(wp, wq);
    if abs(gamma) <= DDM_SVD_ORTHOGONAL * sqrt(alpha * beta) {
        return DdmColumns(wp, wq, vp, vq, false);
    }
    let zeta = (beta - alpha) / (2.0 * gamma);
    // Rust's `signum`: 1 at +0 (WGSL's `sign` gives 0 there, and the rotation is lost).
    let signum = select(1.0, -1.0, (bitcast<u32>(zeta) & 0x80000000u) != 0u);
    let t = signum / (abs(zeta) + sqrt(zeta * zeta + 1.0));
    let c = 1.0 / sqrt(t * t + 1.0);
    let s = c * t;
    return DdmColumns(c * wp - s * wq, s * wp + c * wq, c * vp - s * vq, s * vp + c * vq, true);
}

// The rotation nearest to `a` (Kabsch) from its one-sided Jacobi SVD, by its two largest
// singular directions; the identity with `found` false when `a` has rank below 2 (its second
// singular value under DDM_MIN_SECOND_SINGULAR of its first) or is not finite.
fn ddm_polar_rotation(a: mat3x3<f32>) -> DdmFit {
    var fit = DdmFit(false, MAT3_IDENTITY, vec3<f32>(0.0), vec3<f32>(0.0));
    if !(is_finite_vec3(a[0]) && is_finite_vec3(a[1]) && is_finite_vec3(a[2])) {
        return fit;
    }
    var w0 = a[0];
    var w1 = a[1];
    var w2 = a[2];
    var v0 = vec3<f32>(1.0, 0.0, 0.0);
    var v1 = vec3<f32>(0.0, 1.0, 0.0);
    var v2 = vec3<f32>(0.0, 0.0, 1.0);
    for (var sweep = 0u; sweep < DDM_SVD_SWEEPS; sweep++) {
        let r01 = ddm_jacobi_rotate(w0, w1, v0, v1);
        w0 = r01.wp;
        w1 = r01.wq;
        v0 = r01.vp;
        v1 = r01.vq;
        let r02 = ddm_jacobi_rotate(w0, w2, v0, v2);
        w0 = r02.wp;
        w2 = r02.wq;
        v0 = r02.vp;
        v2 = r02.vq;
        let r12 = ddm_jacobi_rotate(w1, w2, v1, v2);
        w1 = r12.wp;
        w2 = r12.wq;
        v1 = r12.vp;
        v2 = r12.vq;
        if !(r01.rotated || r02.rotated || r12.rotated) {
            break;
        }
    }
    // The two largest singular values' columns (ties: the earlier index first), by selects.
    let e0 = length(w0);
    let e1 = length(w1);
    let e2 = length(w2);
    let first_is_1 = e1 > e0 && e1 >= e2;
    let first_is_2 = e2 > e0 && e2 > e1;
    let first_is_0 = !(first_is_1 || first_is_2);
    // The second: the larger of the other two (the earlier one on a tie).
    let e_first = select(select(e1, e2, first_is_2), e0, first_is_0);
    var w_first = select(select(w1, w2, first_is_2), w0, first_is_0);
    var v_first = select(select(v1, v2, first_is_2), v0, first_is_0);
    // Candidates for the second, in index order, the first left out.
    let a_w = select(w0, w1, first_is_0);
    let a_v = select(v0, v1, first_is_0);
    let a_e = select(e0, e1, first_is_0);
    let b_w = select(w2, w1, first_is_2);
    let b_v = select(v2, v1, first_is_2);
    let b_e = select(e2, e1, first_is_2);
    let take_b = b_e > a_e;
    let w_second = select(a_w, b_w, take_b);
    let v_second = select(a_v, b_v, take_b);
    let e_second = select(a_e, b_e, take_b);
    if !(e_second > DDM_MIN_SECOND_SINGULAR * e_first) {
        return fit;
    }
    let rcp1 = 1.0 / length(w_first);
    if !(is_finite_f32(rcp1) && rcp1 > 0.0) {
        return fit;
    }
    let u1 = w_first * rcp1;
    let r2 = w_second - u1 * dot(u1, w_second);
    let rcp2 = 1.0 / length(r2);
    if !(is_finite_f32(rcp2) && rcp2 > 0.0) {
        return fit;
    }
    let u2 = r2 * rcp2;
    // R = U V^T with both third columns the cross products: a proper rotation, never a mirror.
    let r = outer3(u1, v_first) + outer3(u2, v_second) + outer3(cross(u1, u2), cross(v_first, v_second));
    fit.found = is_finite_vec3(r[0]) && is_finite_vec3(r[1]) && is_finite_vec3(r[2]);
    fit.rotation = r;
    return fit;
}

// The outer product a b^T.
fn outer3(a: vec3<f32>, b: vec3<f32>) -> mat3x3<f32> {
    return mat3x3<f32>(a * b.x, a * b.y, a * b.z);
}

// The rigid transform fitted from `sums` (of `M_j Omega_ij`); `found` false without weight or
// rotation, and the caller falls back to LBS. Where joints scale the rotation comes from
// `q_turn` (both share the weight corner and the bottom row).
fn ddm_fit(sums: DdmSums) -> DdmFit {
    var fit = DdmFit(false, MAT3_IDENTITY, vec3<f32>(0.0), vec3<f32>(0.0));
    let corner = sums.q[3][3];
    if !(is_finite_f32(corner) && abs(corner) > 1.1920929e-7) {
        return fit;
    }
    let q = sums.q * (1.0 / corner);
    let t_col = q[3].xyz;
    let p_row = vec3<f32>(q[0].w, q[1].w, q[2].w);
    var a = mat3x3<f32>(q[0].xyz, q[1].xyz, q[2].xyz) - outer3(t_col, p_row);
    if skin.non_rigid != 0u {
        // Against the rest neighbourhood scaled as the vertex is: a lone joint's fit is its
        // rotation exactly.
        let r = sums.q_turn * (1.0 / corner);
        a = (mat3x3<f32>(r[0].xyz, r[1].xyz, r[2].xyz) - outer3(r[3].xyz, p_row)) * transpose(sums.scale_shear);
    }
    fit = ddm_polar_rotation(a);
    fit.translation = t_col - fit.rotation * p_row;
    fit.smoothed_offset = p_row;
    return fit;
}

// Vertex `v` (morphed; `rest` its bind position) moved by `fit`, or LBS where there is none.
// Where joints scale, its offset from the smoothed centre is scaled by its blended scale/shear
// before it turns (src/skin/ddm/scene.rs `ddm_vertex`).
fn skin_ddm(v: SkinInput, rest: vec3<f32>, fit: DdmFit) -> Skinned {
    if !fit.found {
        return skin_lbs(v);
    }
    let r = fit.rotation;
    var offset = v.position - rest;
    var n1 = v.normal;
    var t1 = v.tangent;
    if skin.non_rigid != 0u {
        let s = blended_scale_shear(v);
        offset = s * (offset - fit.smoothed_offset) + fit.smoothed_offset;
        n1 = transform_normal(s, v.normal);
        t1 = transform_tangent(s, v.tangent);
    }
    let p = r * offset + fit.translation;
    if !is_finite_vec3(p) {
        return skin_lbs(v);
    }
    let n = normalize_or(r * n1, v.normal);
    let t = normalize_or(r * t1.xyz, t1.xyz);
    return finite_or_bind(Skinned(p, n, vec4<f32>(t, t1.w)), v);
}
