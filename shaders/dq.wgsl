// Dual quaternion helpers shared by every skinning shader.
//
// Mirrors src/dq/mod.rs (`rotate_vector`, `DualQuat::translation`,
// `DualQuat::normalize`) and src/dq/blend.rs (`blend`): keep in sync with them.
// A dual quaternion is a `mat2x4<f32>`: column 0 the rotation (x, y, z, w),
// column 1 the dual part, byte for byte `GpuDualQuat` in src/skin/palette.rs.
// `dq_blend` reads joints through `joint_dual_quat`, declared in palette.wgsl.

// The identity transform.
const DQ_IDENTITY: mat2x4<f32> = mat2x4<f32>(vec4<f32>(0.0, 0.0, 0.0, 1.0), vec4<f32>(0.0, 0.0, 0.0, 0.0));

// Influences per vertex: two sets of four.
const MAX_INFLUENCES: u32 = 8u;

// NaN/infinity tests on the exponent bits: comparisons alone may be folded away
// by compilers that assume finite math.
const F32_EXPONENT_MASK: u32 = 0x7f800000u;

fn is_finite_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & F32_EXPONENT_MASK) != F32_EXPONENT_MASK;
}

fn is_finite_vec3(v: vec3<f32>) -> bool {
    return all((bitcast<vec3<u32>>(v) & vec3<u32>(F32_EXPONENT_MASK)) != vec3<u32>(F32_EXPONENT_MASK));
}

fn is_finite_vec4(v: vec4<f32>) -> bool {
    return all((bitcast<vec4<u32>>(v) & vec4<u32>(F32_EXPONENT_MASK)) != vec4<u32>(F32_EXPONENT_MASK));
}

// Rotates `v` by the unit quaternion `q`: v + 2 q.xyz x (q.xyz x v + q.w v).
fn rotate_vector(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v);
}

// The translation t = 2 dual conj(real) of a unit dual quaternion.
fn dq_translation(dq: mat2x4<f32>) -> vec3<f32> {
    let r = dq[0];
    let d = dq[1];
    return 2.0 * (r.w * d.xyz - d.w * r.xyz + cross(r.xyz, d.xyz));
}

// Transforms a point: rotate, then translate.
fn dq_transform_point3(dq: mat2x4<f32>, p: vec3<f32>) -> vec3<f32> {
    return rotate_vector(dq[0], p) + dq_translation(dq);
}

// Divides both parts by |real| and makes the dual part orthogonal to the real
// part; a (near) zero or non-finite real part gives the identity.
fn dq_normalize(dq: mat2x4<f32>) -> mat2x4<f32> {
    let len = length(dq[0]);
    if !(is_finite_f32(len) && len > 1e-12) || !is_finite_vec4(dq[1]) {
        return DQ_IDENTITY;
    }
    let inv = 1.0 / len;
    let real = dq[0] * inv;
    let dual = dq[1] * inv;
    return mat2x4<f32>(real, dual - real * dot(real, dual));
}

// Dual quaternion linear blending over up to eight influences, not normalised.
//
// Influence 0 (the heaviest, as dqview sorts them at load) is the pivot: any
// other joint whose real part points away from the pivot's is negated before it
// is added, since q and -q are the same motion but a mixed-sign sum takes the
// long way round and collapses the mesh. Zero weights (padding) are skipped.
// A sum with no rotation left falls back to the normalised pivot. The result is
// the blend times 1 / |real|: `rigid_from_dq_scaled` divides that out.
fn dq_blend_scaled(joints0: vec4<u32>, joints1: vec4<u32>, weights0: vec4<f32>, weights1: vec4<f32>) -> mat2x4<f32> {
    var joints = array<u32, 8>(joints0.x, joints0.y, joints0.z, joints0.w, joints1.x, joints1.y, joints1.z, joints1.w);
    var weights = array<f32, 8>(weights0.x, weights0.y, weights0.z, weights0.w, weights1.x, weights1.y, weights1.z, weights1.w);
    let pivot = joint_dual_quat(joints[0]);
    var real = pivot[0] * weights[0];
    var dual = pivot[1] * weights[0];
    for (var k = 1u; k < MAX_INFLUENCES; k++) {
        let w = weights[k];
        if w == 0.0 {
            continue;
        }
        let q = joint_dual_quat(joints[k]);
        // A sign multiply, not a branch: the lanes of a SIMD group never diverge here.
        let signed_w = select(w, -w, dot(q[0], pivot[0]) < 0.0);
        real += q[0] * signed_w;
        dual += q[1] * signed_w;
    }
    // |real| > 1e-6, tested on the square: no square root.
    let len_sq = dot(real, real);
    if !(is_finite_f32(len_sq) && len_sq > 1e-12) || !is_finite_vec4(dual) {
        return dq_normalize(pivot);
    }
    return mat2x4<f32>(real, dual);
}

// The normalised blend (`DualQuat::normalize` of the CPU's `blend`).
fn dq_blend(joints0: vec4<u32>, joints1: vec4<u32>, weights0: vec4<f32>, weights1: vec4<f32>) -> mat2x4<f32> {
    return dq_normalize(dq_blend_scaled(joints0, joints1, weights0, weights1));
}

// A rigid motion as a rotation matrix and a translation.
struct Rigid {
    rotation: mat3x3<f32>,
    translation: vec3<f32>,
}

// The rigid motion of s * (real, dual) for any s != 0, |real| > 0.
//
// Rotation and translation are quadratic in the dual quaternion, so one
// division by |real|^2 normalises both: no square root, and no projection of
// the dual part (its component along real only changes the scalar part of
// dual * conj(real), which the translation drops). The 3x3 rotation then moves
// the point and the normal with 18 multiply-adds, where two quaternion
// sandwiches (`rotate_vector`) take about 36.
fn rigid_from_dq_scaled(dq: mat2x4<f32>) -> Rigid {
    let r = dq[0];
    let d = dq[1];
    let two_over_len_sq = 2.0 / dot(r, r);
    let r2 = r.xyz * two_over_len_sq;
    let xx = r.x * r2.x;
    let yy = r.y * r2.y;
    let zz = r.z * r2.z;
    let xy = r.x * r2.y;
    let xz = r.x * r2.z;
    let yz = r.y * r2.z;
    let wx = r.w * r2.x;
    let wy = r.w * r2.y;
    let wz = r.w * r2.z;
    let rotation = mat3x3<f32>(
        vec3<f32>(1.0 - (yy + zz), xy + wz, xz - wy),
        vec3<f32>(xy - wz, 1.0 - (xx + zz), yz + wx),
        vec3<f32>(xz + wy, yz - wx, 1.0 - (xx + yy)),
    );
    // 2 dual conj(real) / |real|^2, as `dq_translation` of the normalised dual quaternion.
    let translation = (r.w * d.xyz - d.w * r.xyz + cross(r.xyz, d.xyz)) * two_over_len_sq;
    return Rigid(rotation, translation);
}
