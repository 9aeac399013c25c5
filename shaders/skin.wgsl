// Skinning functions: the one set the vertex shaders and the compute pass run.
//
// Mirrors src/skin/cpu.rs (`skin_vertex`, `lbs`, `dqs`, `transform_normal`,
// `transform_tangent`, `finite_or`), the specification: keep in sync with it.
// Needs dq.wgsl and palette.wgsl in the same module.

// Mirrors `SkinningMode` (`GPU_MODE_*` in src/render/gpu_data.rs).
const SKIN_MODE_LBS: u32 = 0u;
const SKIN_MODE_DQS: u32 = 1u;
const SKIN_MODE_HYBRID: u32 = 2u;

// One bind-pose vertex with its influences (heaviest first, zero-weight padding).
struct SkinInput {
    position: vec3<f32>,
    normal: vec3<f32>,
    // Handedness in w.
    tangent: vec4<f32>,
    joints0: vec4<u32>,
    joints1: vec4<u32>,
    weights0: vec4<f32>,
    weights1: vec4<f32>,
}

// One skinned vertex.
struct Skinned {
    position: vec3<f32>,
    normal: vec3<f32>,
    tangent: vec4<f32>,
}

// glam's `try_normalize(v).unwrap_or(fallback)`: fails when 1/|v| is not finite and positive.
fn normalize_or(v: vec3<f32>, fallback: vec3<f32>) -> vec3<f32> {
    let rcp = 1.0 / length(v);
    if is_finite_f32(rcp) && rcp > 0.0 {
        return v * rcp;
    }
    return fallback;
}

// glam's `Mat3::determinant`, same formula so the sign agrees near zero.
fn determinant3(a: mat3x3<f32>) -> f32 {
    return dot(a[2], cross(a[0], a[1]));
}

// Normal by the cofactor matrix (inverse transpose times det) with the sign of det;
// no inverse, so it stays finite for singular `a`. Falls back to `a n`, then `n`.
fn transform_normal(a: mat3x3<f32>, n: vec3<f32>) -> vec3<f32> {
    let cof = mat3x3<f32>(cross(a[1], a[2]), cross(a[2], a[0]), cross(a[0], a[1]));
    let s = select(1.0, -1.0, determinant3(a) < 0.0);
    return normalize_or(cof * n * s, normalize_or(a * n, n));
}

// Tangent direction by `a`; handedness flips when `a` mirrors.
fn transform_tangent(a: mat3x3<f32>, t: vec4<f32>) -> vec4<f32> {
    let dir = normalize_or(a * t.xyz, t.xyz);
    return vec4<f32>(dir, select(t.w, -t.w, determinant3(a) < 0.0));
}

// Linear blend skinning: M = sum w_i M_i.
fn lbs(v: SkinInput) -> Skinned {
    var joints = array<u32, 8>(v.joints0.x, v.joints0.y, v.joints0.z, v.joints0.w, v.joints1.x, v.joints1.y, v.joints1.z, v.joints1.w);
    var weights = array<f32, 8>(v.weights0.x, v.weights0.y, v.weights0.z, v.weights0.w, v.weights1.x, v.weights1.y, v.weights1.z, v.weights1.w);
    var m = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < MAX_INFLUENCES; k++) {
        let w = weights[k];
        if w == 0.0 {
            continue;
        }
        m += joint_matrix(joints[k]) * w;
    }
    let a = mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz);
    let p = m[0].xyz * v.position.x + m[1].xyz * v.position.y + m[2].xyz * v.position.z + m[3].xyz;
    return Skinned(p, transform_normal(a, v.normal), transform_tangent(a, v.tangent));
}

// The joints' scale/shear parts blended by the vertex's weights (DQS's phase 1).
fn blended_scale_shear(v: SkinInput) -> mat3x3<f32> {
    var joints = array<u32, 8>(v.joints0.x, v.joints0.y, v.joints0.z, v.joints0.w, v.joints1.x, v.joints1.y, v.joints1.z, v.joints1.w);
    var weights = array<f32, 8>(v.weights0.x, v.weights0.y, v.weights0.z, v.weights0.w, v.weights1.x, v.weights1.y, v.weights1.z, v.weights1.w);
    var s = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var k = 0u; k < MAX_INFLUENCES; k++) {
        let w = weights[k];
        if w == 0.0 {
            continue;
        }
        s += joint_scale_shear(joints[k]) * w;
    }
    return s;
}

// Dual quaternion skinning; phase 1 (blended scale/shear in bind space) only for non-rigid skins.
fn dqs(v: SkinInput) -> Skinned {
    var p1 = v.position;
    var n1 = v.normal;
    var t1 = v.tangent;
    if skin.non_rigid != 0u {
        let s = blended_scale_shear(v);
        p1 = s * v.position;
        n1 = transform_normal(s, v.normal);
        t1 = transform_tangent(s, v.tangent);
    }
    // Phase 2: rigid blend, influence 0 as the pivot.
    // The blend is converted to a 3x3 rotation and a translation once, then
    // applied to position, normal and tangent.
    let m = rigid_from_dq_scaled(dq_blend_scaled(v.joints0, v.joints1, v.weights0, v.weights1));
    let n = normalize_or(m.rotation * n1, n1);
    let t = normalize_or(m.rotation * t1.xyz, t1.xyz);
    return Skinned(m.rotation * p1 + m.translation, n, vec4<f32>(t, t1.w));
}

// lerp(LBS, DQS, beta) for positions; normals and tangents lerped and renormalised.
fn hybrid(v: SkinInput, beta: f32) -> Skinned {
    let l = lbs(v);
    let d = dqs(v);
    let n = normalize_or(mix(l.normal, d.normal, beta), d.normal);
    let t = normalize_or(mix(l.tangent.xyz, d.tangent.xyz, beta), d.tangent.xyz);
    return Skinned(mix(l.position, d.position, beta), n, vec4<f32>(t, d.tangent.w));
}

// Each output stream that is not finite falls back to the bind-pose one (or a constant).
fn finite_or_bind(s: Skinned, v: SkinInput) -> Skinned {
    var out = s;
    if !is_finite_vec3(out.position) {
        out.position = select(vec3<f32>(0.0), v.position, is_finite_vec3(v.position));
    }
    if !is_finite_vec3(out.normal) {
        out.normal = select(vec3<f32>(0.0, 1.0, 0.0), v.normal, is_finite_vec3(v.normal));
    }
    if !is_finite_vec4(out.tangent) {
        out.tangent = select(vec4<f32>(1.0, 0.0, 0.0, 0.0), v.tangent, is_finite_vec4(v.tangent));
    }
    return out;
}

// Whether `v` has no influences: it then keeps its bind pose in every mode.
fn has_no_influences(v: SkinInput) -> bool {
    return all(v.weights0 == vec4<f32>(0.0)) && all(v.weights1 == vec4<f32>(0.0));
}

// The bind pose of `v`, as a skinned vertex.
fn bind_pose(v: SkinInput) -> Skinned {
    return finite_or_bind(Skinned(v.position, v.normal, v.tangent), v);
}

// Skins one vertex in `mode`; a vertex with no influences keeps its bind pose.
fn skin_vertex(v: SkinInput, mode: u32, beta: f32) -> Skinned {
    switch mode {
        case SKIN_MODE_LBS: {
            return skin_lbs(v);
        }
        case SKIN_MODE_HYBRID: {
            return skin_hybrid(v, beta);
        }
        default: {
            return skin_dqs(v);
        }
    }
}

// Linear blend skinning of one vertex. Each method has its own entry so that code skinning
// with one method (`dqview shader`) reads only the joint data that method needs.
fn skin_lbs(v: SkinInput) -> Skinned {
    if has_no_influences(v) {
        return bind_pose(v);
    }
    return finite_or_bind(lbs(v), v);
}

// Dual quaternion skinning of one vertex.
fn skin_dqs(v: SkinInput) -> Skinned {
    if has_no_influences(v) {
        return bind_pose(v);
    }
    return finite_or_bind(dqs(v), v);
}

// Hybrid skinning of one vertex: beta 0 is LBS, 1 is DQS (clamped to [0, 1]).
fn skin_hybrid(v: SkinInput, beta: f32) -> Skinned {
    if has_no_influences(v) {
        return bind_pose(v);
    }
    return finite_or_bind(hybrid(v, clamp(beta, 0.0, 1.0)), v);
}
