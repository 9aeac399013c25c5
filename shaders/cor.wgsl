// Center-of-rotation skinning (Le and Hodgins 2016), shared by the compute
// pass and the vertex-shader pipeline.
//
// Mirrors src/skin/cor.rs (`skin_vertex_cor`) and src/dq/blend.rs
// (`blend_rotation`), the specification: keep in sync with them. Needs
// dq.wgsl, palette.wgsl and skin.wgsl in the same module.

// Mirrors `GPU_MODE_COR` in src/render/gpu_data.rs.
const SKIN_MODE_COR: u32 = 3u;

// Rotation blend with DQS's sign rule: influence 0 (the heaviest) is the pivot,
// rotations pointing away from it are negated. A sum with no rotation left
// falls back to the normalised pivot, then to the identity.
fn quat_blend(joints0: vec4<u32>, joints1: vec4<u32>, weights0: vec4<f32>, weights1: vec4<f32>) -> vec4<f32> {
    var joints = array<u32, 8>(joints0.x, joints0.y, joints0.z, joints0.w, joints1.x, joints1.y, joints1.z, joints1.w);
    var weights = array<f32, 8>(weights0.x, weights0.y, weights0.z, weights0.w, weights1.x, weights1.y, weights1.z, weights1.w);
    let pivot = joint_dual_quat(joints[0])[0];
    var sum = pivot * weights[0];
    for (var k = 1u; k < MAX_INFLUENCES; k++) {
        let w = weights[k];
        if w == 0.0 {
            continue;
        }
        let q = joint_dual_quat(joints[k])[0];
        sum += q * select(w, -w, dot(q, pivot) < 0.0);
    }
    let len = length(sum);
    if !(is_finite_f32(len) && len > 1e-6) {
        let p = length(pivot);
        if is_finite_f32(p) && p > 1e-6 {
            return pivot / p;
        }
        return vec4<f32>(0.0, 0.0, 0.0, 1.0);
    }
    return sum / len;
}

// v' = R(q) S (v - center) + LBS(center); S (blended scale/shear) only for non-rigid skins.
fn cor(v: SkinInput, center: vec3<f32>) -> Skinned {
    var joints = array<u32, 8>(v.joints0.x, v.joints0.y, v.joints0.z, v.joints0.w, v.joints1.x, v.joints1.y, v.joints1.z, v.joints1.w);
    var weights = array<f32, 8>(v.weights0.x, v.weights0.y, v.weights0.z, v.weights0.w, v.weights1.x, v.weights1.y, v.weights1.z, v.weights1.w);
    var m = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    var s = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var k = 0u; k < MAX_INFLUENCES; k++) {
        let w = weights[k];
        if w == 0.0 {
            continue;
        }
        m += joint_matrix(joints[k]) * w;
        if skin.non_rigid != 0u {
            s += joint_scale_shear(joints[k]) * w;
        }
    }
    var offset = v.position - center;
    var n1 = v.normal;
    var t1 = v.tangent;
    if skin.non_rigid != 0u {
        offset = s * offset;
        n1 = transform_normal(s, v.normal);
        t1 = transform_tangent(s, v.tangent);
    }
    let q = quat_blend(v.joints0, v.joints1, v.weights0, v.weights1);
    let lbs_center = m[0].xyz * center.x + m[1].xyz * center.y + m[2].xyz * center.z + m[3].xyz;
    let n = normalize_or(rotate_vector(q, n1), n1);
    let t = normalize_or(rotate_vector(q, t1.xyz), t1.xyz);
    return Skinned(rotate_vector(q, offset) + lbs_center, n, vec4<f32>(t, t1.w));
}

// CoR skinning of one vertex about `center`; a vertex with no influences keeps its bind pose.
fn skin_cor(v: SkinInput, center: vec3<f32>) -> Skinned {
    if all(v.weights0 == vec4<f32>(0.0)) && all(v.weights1 == vec4<f32>(0.0)) {
        return finite_or_bind(Skinned(v.position, v.normal, v.tangent), v);
    }
    return finite_or_bind(cor(v, center), v);
}
