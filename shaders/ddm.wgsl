// Direct Delta Mush at run time (Le and Lewis 2019, variant 0), shared by the compute pass
// and the vertex-shader pipeline.
//
// Mirrors src/skin/ddm/apply.rs (`skin_vertex_ddm`, `fit_parts`, `polar_rotation`,
// `one_sided_jacobi`) and src/skin/ddm/scene.rs (`skin_one`), the specification: keep in sync
// with them. Needs dq.wgsl, palette.wgsl and skin.wgsl in the same module; geometry.wgsl
// reads each vertex's pairs and calls `ddm_add_pair` and `ddm_fit`.

// Mirrors `GPU_MODE_DDM` in src/render/gpu_data.rs.
const SKIN_MODE_DDM: u32 = 4u;

// One-sided Jacobi sweeps of the polar fit (`SVD_SWEEPS`); f32 converges in fewer.
const DDM_SVD_SWEEPS: u32 = 8u;
// A fit whose second singular value is below this share of the largest has no rotation
// (`MIN_SECOND_SINGULAR`).
const DDM_MIN_SECOND_SINGULAR: f32 = 1e-3;
// Columns whose overlap is below this share of their lengths' product count as orthogonal.
const DDM_SVD_ORTHOGONAL: f32 = 1e-7;

// A fitted rigid transform: the vertex moves to rotation (v - rest) + translation.
struct DdmFit {
    found: bool,
    rotation: mat3x3<f32>,
    translation: vec3<f32>,
}

// Omega (the 10 upper-triangle entries, libigl's order) as a symmetric matrix.
fn ddm_symmetric(o: array<f32, 10>) -> mat4x4<f32> {
    return mat4x4<f32>(
        vec4<f32>(o[0], o[1], o[2], o[3]),
        vec4<f32>(o[1], o[4], o[5], o[6]),
        vec4<f32>(o[2], o[5], o[7], o[8]),
        vec4<f32>(o[3], o[6], o[8], o[9]),
    );
}

// Q plus joint `j`'s matrix with the origin moved to `rest` times Omega (stored about `rest`).
fn ddm_add_pair(q: mat4x4<f32>, j: u32, omega: array<f32, 10>, rest: vec3<f32>) -> mat4x4<f32> {
    var m = joint_matrix(j);
    m[3] = m * vec4<f32>(rest, 1.0);
    return q + m * ddm_symmetric(omega);
}

// One plane rotation of columns p and q of `w` (and `v`) that makes them orthogonal; false
// when they already are.
fn ddm_jacobi_rotate(w: ptr<function, mat3x3<f32>>, v: ptr<function, mat3x3<f32>>, p: u32, q: u32) -> bool {
    let wp = (*w)[p];
    let wq = (*w)[q];
    let alpha = dot(wp, wp);
    let beta = dot(wq, wq);
    let gamma = dot(wp, wq);
    if abs(gamma) <= DDM_SVD_ORTHOGONAL * sqrt(alpha * beta) {
        return false;
    }
    let zeta = (beta - alpha) / (2.0 * gamma);
    // Rust's `signum`: 1 at +0 (WGSL's `sign` gives 0 there, and the rotation is lost).
    let signum = select(1.0, -1.0, (bitcast<u32>(zeta) & 0x80000000u) != 0u);
    let t = signum / (abs(zeta) + sqrt(zeta * zeta + 1.0));
    let c = 1.0 / sqrt(t * t + 1.0);
    let s = c * t;
    (*w)[p] = c * wp - s * wq;
    (*w)[q] = s * wp + c * wq;
    let vp = (*v)[p];
    let vq = (*v)[q];
    (*v)[p] = c * vp - s * vq;
    (*v)[q] = s * vp + c * vq;
    return true;
}

// The rotation nearest to `a` (Kabsch) from its one-sided Jacobi SVD, by its two largest
// singular directions; the identity with `found` false when `a` has rank below 2 (its second
// singular value under DDM_MIN_SECOND_SINGULAR of its first) or is not finite.
fn ddm_polar_rotation(a: mat3x3<f32>) -> DdmFit {
    var fit = DdmFit(false, MAT3_IDENTITY, vec3<f32>(0.0));
    if !(is_finite_vec3(a[0]) && is_finite_vec3(a[1]) && is_finite_vec3(a[2])) {
        return fit;
    }
    var w = a;
    var v = MAT3_IDENTITY;
    for (var sweep = 0u; sweep < DDM_SVD_SWEEPS; sweep++) {
        var rotated = ddm_jacobi_rotate(&w, &v, 0u, 1u);
        rotated = ddm_jacobi_rotate(&w, &v, 0u, 2u) || rotated;
        rotated = ddm_jacobi_rotate(&w, &v, 1u, 2u) || rotated;
        if !rotated {
            break;
        }
    }
    // The two largest singular values' columns (ties: the earlier index first).
    let e = vec3<f32>(length(w[0]), length(w[1]), length(w[2]));
    var first = 0u;
    if e.y > e[first] {
        first = 1u;
    }
    if e.z > e[first] {
        first = 2u;
    }
    var second = select(0u, 1u, first == 0u);
    for (var k = 0u; k < 3u; k++) {
        if k != first && e[k] > e[second] {
            second = k;
        }
    }
    if !(e[second] > DDM_MIN_SECOND_SINGULAR * e[first]) {
        return fit;
    }
    let w1 = w[first];
    let rcp1 = 1.0 / length(w1);
    if !(is_finite_f32(rcp1) && rcp1 > 0.0) {
        return fit;
    }
    let u1 = w1 * rcp1;
    let w2 = w[second];
    let r2 = w2 - u1 * dot(u1, w2);
    let rcp2 = 1.0 / length(r2);
    if !(is_finite_f32(rcp2) && rcp2 > 0.0) {
        return fit;
    }
    let u2 = r2 * rcp2;
    let v1 = v[first];
    let v2 = v[second];
    // R = U V^T with both third columns the cross products: a proper rotation, never a mirror.
    let r = outer3(u1, v1) + outer3(u2, v2) + outer3(cross(u1, u2), cross(v1, v2));
    fit.found = is_finite_vec3(r[0]) && is_finite_vec3(r[1]) && is_finite_vec3(r[2]);
    fit.rotation = r;
    return fit;
}

// The outer product a b^T.
fn outer3(a: vec3<f32>, b: vec3<f32>) -> mat3x3<f32> {
    return mat3x3<f32>(a * b.x, a * b.y, a * b.z);
}

// The rigid transform fitted from `q` (the sum of `M_j Omega_ij`); `found` false without
// weight or rotation, and the caller falls back to LBS.
fn ddm_fit(q_sum: mat4x4<f32>) -> DdmFit {
    var fit = DdmFit(false, MAT3_IDENTITY, vec3<f32>(0.0));
    let corner = q_sum[3][3];
    if !(is_finite_f32(corner) && abs(corner) > 1.1920929e-7) {
        return fit;
    }
    let q = q_sum * (1.0 / corner);
    let t_col = q[3].xyz;
    let p_row = vec3<f32>(q[0].w, q[1].w, q[2].w);
    let a = mat3x3<f32>(q[0].xyz, q[1].xyz, q[2].xyz) - outer3(t_col, p_row);
    fit = ddm_polar_rotation(a);
    fit.translation = t_col - fit.rotation * p_row;
    return fit;
}

// Vertex `v` (morphed; `rest` its bind position) moved by `fit`, or LBS where there is none.
fn skin_ddm(v: SkinInput, rest: vec3<f32>, fit: DdmFit) -> Skinned {
    if !fit.found {
        return skin_lbs(v);
    }
    let r = fit.rotation;
    let p = r * (v.position - rest) + fit.translation;
    if !is_finite_vec3(p) {
        return skin_lbs(v);
    }
    let n = normalize_or(r * v.normal, v.normal);
    let t = normalize_or(r * v.tangent.xyz, v.tangent.xyz);
    return finite_or_bind(Skinned(p, n, vec4<f32>(t, v.tangent.w)), v);
}
