#version 300 es
// dqview 0.1.0: Hybrid skinning, vertex stage, 8 influences, GLSL ES 300 es; naga 30 from dqview's shaders/dq.wgsl, skin.wgsl, export_palette.wgsl, export_vertex.wgsl.
// Written by: dqview shader --target glsl-es --method hybrid --joints 256 --stage vertex --influences 8
// Hybrid: lerp(LBS, DQS, beta) per vertex, beta = clamp(blend * beta_scale, 0, 1); normals lerped, renormalised.
// Where a result is not finite, the bind-pose value is kept; a vertex with all weights 0 keeps its bind pose.
// Without a _DQS_BLEND map: bind blend = 1 for every vertex and set beta_scale to the uniform beta.
// Entry point: main
// Vertex inputs:
//   layout(location = 0) in _p2vs_location0: vec3<f32> position: bind-space position
//   layout(location = 1) in _p2vs_location1: vec3<f32> normal: bind-space unit normal
//   layout(location = 2) in _p2vs_location2: vec4<u32> joints: joint indices of influences 0 to 3 (uint), heaviest first: influence 0 is the DQS pivot
//   layout(location = 3) in _p2vs_location3: vec4<f32> weights: weights of influences 0 to 3
//   layout(location = 4) in _p2vs_location4: f32 blend: per-vertex blend: _DQS_BLEND (0 LBS, 1 DQS), 1 without a map
//   layout(location = 5) in _p2vs_location5: vec4<u32> joints1: joint indices of influences 4 to 7 (uint), 0 where unused
//   layout(location = 6) in _p2vs_location6: vec4<f32> weights1: weights of influences 4 to 7, 0 where unused; all 8 weights sum to 1
// Outputs:
//   builtin position: vec4<f32> clip_position: clip_from_model * vec4(skinned position, 1)
//   location 0: vec3<f32> position: skinned position, model space
//   location 1: vec3<f32> normal: skinned unit normal, model space
// Resources (uniform palette of 256 joints; uniform blocks std140, storage buffers std430, offsets in bytes):
//   group 0 binding 0 = uniform block dqview_params { dqview_params_data } (bind by name: glUniformBlockBinding): uniform dqview_params: SkinParams, 80 bytes
//     offset   0: mat4x4<f32> clip_from_model: model (bind) space to clip space, used as given (the engine's clip convention)
//     offset  64: u32 joint_count: joints in the palette; indices at or past it read as the identity
//     offset  68: u32 non_rigid: 1 when some joint has scale, shear or a mirror (DQS phase 1), else 0
//     offset  72: f32 beta_scale: hybrid: beta = clamp(blend * beta_scale, 0, 1)
//     offset  76: u32 vertex_count: compute: vertices to skin
//   group 0 binding 1 = uniform block dqview_joint_dual_quats { dqview_joint_dual_quats_data } (bind by name: glUniformBlockBinding): uniform dqview_joint_dual_quats: array<mat2x4<f32>, 256>, 8192 bytes
//     stride 32: per joint: column 0 rotation quaternion (x, y, z, w), column 1 dual part
//   group 0 binding 2 = uniform block dqview_joint_matrices { dqview_joint_matrices_data } (bind by name: glUniformBlockBinding): uniform dqview_joint_matrices: array<mat4x4<f32>, 256>, 16384 bytes
//     stride 64: per joint: skinning matrix world_from_joint * inverse_bind (column-major)
//   group 0 binding 3 = uniform block dqview_joint_scale_shears { dqview_joint_scale_shears_data } (bind by name: glUniformBlockBinding): uniform dqview_joint_scale_shears: array<mat3x3<f32>, 256>, 12288 bytes
//     stride 48: per joint: S with matrix = [rotation | translation] * S (identity when rigid)

precision highp float;
precision highp int;

struct SkinParams {
    mat4x4 clip_from_model;
    uint joint_count;
    uint non_rigid;
    float beta_scale;
    uint vertex_count;
};
struct Rigid {
    mat3x3 rotation;
    vec3 translation;
};
struct SkinInput {
    vec3 position;
    vec3 normal;
    vec4 tangent;
    uvec4 joints0_;
    uvec4 joints1_;
    vec4 weights0_;
    vec4 weights1_;
};
struct Skinned {
    vec3 position;
    vec3 normal;
    vec4 tangent;
};
struct ExportVertexIn8_ {
    vec3 position;
    vec3 normal;
    uvec4 joints;
    vec4 weights;
    uvec4 joints1_;
    vec4 weights1_;
};
struct ExportVertexOut {
    vec4 clip_position;
    vec3 position;
    vec3 normal;
};
const mat2x4 DQ_IDENTITY = mat2x4(vec4(0.0, 0.0, 0.0, 1.0), vec4(0.0, 0.0, 0.0, 0.0));
const uint MAX_INFLUENCES = 8u;
const uint F32_EXPONENT_MASK = 2139095040u;
const uint EXPORT_JOINTS = 256u;
const uint SKIN_MODE_LBS = 0u;
const uint SKIN_MODE_DQS = 1u;
const uint SKIN_MODE_HYBRID = 2u;
const vec4 EXPORT_TANGENT = vec4(1.0, 0.0, 0.0, 1.0);
const vec3 NO_CENTER = vec3(0.0);

layout(std140) uniform dqview_params { SkinParams dqview_params_data; };

layout(std140) uniform dqview_joint_dual_quats { mat2x4 dqview_joint_dual_quats_data[256]; };

layout(std140) uniform dqview_joint_matrices { mat4x4 dqview_joint_matrices_data[256]; };

layout(std140) uniform dqview_joint_scale_shears { mat3x3 dqview_joint_scale_shears_data[256]; };

layout(location = 0) in vec3 _p2vs_location0;
layout(location = 1) in vec3 _p2vs_location1;
layout(location = 2) in uvec4 _p2vs_location2;
layout(location = 3) in vec4 _p2vs_location3;
layout(location = 5) in uvec4 _p2vs_location5;
layout(location = 6) in vec4 _p2vs_location6;
layout(location = 4) in float _p2vs_location4;
smooth out vec3 _vs2fs_location0;
smooth out vec3 _vs2fs_location1;

bool is_finite_f32_(float x) {
    return ((floatBitsToUint(x) & F32_EXPONENT_MASK) != F32_EXPONENT_MASK);
}

bool is_finite_vec3_(vec3 v) {
    return all(notEqual((floatBitsToUint(v) & uvec3(2139095040u)), uvec3(2139095040u)));
}

bool is_finite_vec4_(vec4 v_1) {
    return all(notEqual((floatBitsToUint(v_1) & uvec4(2139095040u)), uvec4(2139095040u)));
}

mat2x4 dq_normalize(mat2x4 dq) {
    bool local = false;
    bool local_1 = false;
    float len = length(dq[0]);
    bool _e3 = is_finite_f32_(len);
    if (_e3) {
        local = (len > 1e-12);
    } else {
        local = false;
    }
    bool _e9 = local;
    if (!(!(_e9))) {
        bool _e15 = is_finite_vec4_(dq[1]);
        local_1 = !(_e15);
    } else {
        local_1 = true;
    }
    bool _e18 = local_1;
    if (_e18) {
        return DQ_IDENTITY;
    }
    float inv = (1.0 / len);
    vec4 real_1 = (dq[0] * inv);
    vec4 dual_1 = (dq[1] * inv);
    return mat2x4(real_1, (dual_1 - (real_1 * dot(real_1, dual_1))));
}

mat2x4 joint_dual_quat(uint j) {
    uint _e3 = dqview_params_data.joint_count;
    if ((j < _e3)) {
        mat2x4 _e7 = dqview_joint_dual_quats_data[j];
        return _e7;
    }
    return DQ_IDENTITY;
}

mat2x4 dq_blend_scaled(uvec4 joints0_, uvec4 joints1_, vec4 weights0_, vec4 weights1_) {
    uint joints[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    float weights[8] = float[8](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    vec4 real = vec4(0.0);
    vec4 dual = vec4(0.0);
    uint k = 1u;
    bool local_2 = false;
    bool local_3 = false;
    joints = uint[8](joints0_.x, joints0_.y, joints0_.z, joints0_.w, joints1_.x, joints1_.y, joints1_.z, joints1_.w);
    weights = float[8](weights0_.x, weights0_.y, weights0_.z, weights0_.w, weights1_.x, weights1_.y, weights1_.z, weights1_.w);
    uint _e25 = joints[0];
    mat2x4 _e26 = joint_dual_quat(_e25);
    float _e29 = weights[0];
    real = (_e26[0] * _e29);
    float _e34 = weights[0];
    dual = (_e26[1] * _e34);
    bool loop_init = true;
    while(true) {
        if (!loop_init) {
            uint _e67 = k;
            k = (_e67 + 1u);
        }
        loop_init = false;
        uint _e39 = k;
        if ((_e39 < MAX_INFLUENCES)) {
        } else {
            break;
        }
        {
            uint _e42 = k;
            float w = weights[_e42];
            if ((w == 0.0)) {
                continue;
            }
            uint _e47 = k;
            uint _e49 = joints[_e47];
            mat2x4 _e50 = joint_dual_quat(_e49);
            float signed_w = ((dot(_e50[0], _e26[0]) < 0.0) ? -(w) : w);
            vec4 _e58 = real;
            real = (_e58 + (_e50[0] * signed_w));
            vec4 _e62 = dual;
            dual = (_e62 + (_e50[1] * signed_w));
        }
    }
    vec4 _e69 = real;
    vec4 _e70 = real;
    float len_sq = dot(_e69, _e70);
    bool _e72 = is_finite_f32_(len_sq);
    if (_e72) {
        local_2 = (len_sq > 1e-12);
    } else {
        local_2 = false;
    }
    bool _e78 = local_2;
    if (!(!(_e78))) {
        vec4 _e83 = dual;
        bool _e84 = is_finite_vec4_(_e83);
        local_3 = !(_e84);
    } else {
        local_3 = true;
    }
    bool _e87 = local_3;
    if (_e87) {
        mat2x4 _e88 = dq_normalize(_e26);
        return _e88;
    }
    vec4 _e89 = real;
    vec4 _e90 = dual;
    return mat2x4(_e89, _e90);
}

Rigid rigid_from_dq_scaled(mat2x4 dq_1) {
    vec4 r = dq_1[0];
    vec4 d = dq_1[1];
    float two_over_len_sq = (2.0 / dot(r, r));
    vec3 r2_ = (r.xyz * two_over_len_sq);
    float xx = (r.x * r2_.x);
    float yy = (r.y * r2_.y);
    float zz = (r.z * r2_.z);
    float xy = (r.x * r2_.y);
    float xz = (r.x * r2_.z);
    float yz = (r.y * r2_.z);
    float wx = (r.w * r2_.x);
    float wy = (r.w * r2_.y);
    float wz = (r.w * r2_.z);
    mat3x3 rotation = mat3x3(vec3((1.0 - (yy + zz)), (xy + wz), (xz - wy)), vec3((xy - wz), (1.0 - (xx + zz)), (yz + wx)), vec3((xz + wy), (yz - wx), (1.0 - (xx + yy))));
    vec3 translation = ((((r.w * d.xyz) - (d.w * r.xyz)) + cross(r.xyz, d.xyz)) * two_over_len_sq);
    return Rigid(rotation, translation);
}

mat4x4 joint_matrix(uint j_1) {
    uint _e3 = dqview_params_data.joint_count;
    if ((j_1 < _e3)) {
        mat4x4 _e7 = dqview_joint_matrices_data[j_1];
        return _e7;
    }
    return mat4x4(vec4(1.0, 0.0, 0.0, 0.0), vec4(0.0, 1.0, 0.0, 0.0), vec4(0.0, 0.0, 1.0, 0.0), vec4(0.0, 0.0, 0.0, 1.0));
}

mat3x3 joint_scale_shear(uint j_2) {
    uint _e3 = dqview_params_data.joint_count;
    if ((j_2 < _e3)) {
        mat3x3 _e7 = dqview_joint_scale_shears_data[j_2];
        return _e7;
    }
    return mat3x3(vec3(1.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0), vec3(0.0, 0.0, 1.0));
}

vec3 normalize_or(vec3 v_2, vec3 fallback) {
    bool local_4 = false;
    float rcp = (1.0 / length(v_2));
    bool _e5 = is_finite_f32_(rcp);
    if (_e5) {
        local_4 = (rcp > 0.0);
    } else {
        local_4 = false;
    }
    bool _e11 = local_4;
    if (_e11) {
        return (v_2 * rcp);
    }
    return fallback;
}

float determinant3_(mat3x3 a) {
    return dot(a[2], cross(a[0], a[1]));
}

vec3 transform_normal(mat3x3 a_1, vec3 n) {
    mat3x3 cof = mat3x3(cross(a_1[1], a_1[2]), cross(a_1[2], a_1[0]), cross(a_1[0], a_1[1]));
    float _e12 = determinant3_(a_1);
    float s_2 = ((_e12 < 0.0) ? -1.0 : 1.0);
    vec3 _e21 = normalize_or((a_1 * n), n);
    vec3 _e22 = normalize_or(((cof * n) * s_2), _e21);
    return _e22;
}

vec4 transform_tangent(mat3x3 a_2, vec4 t) {
    vec3 _e5 = normalize_or((a_2 * t.xyz), t.xyz);
    float _e9 = determinant3_(a_2);
    return vec4(_e5, ((_e9 < 0.0) ? -(t.w) : t.w));
}

Skinned lbs(SkinInput v_3) {
    uint joints_1[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    float weights_1[8] = float[8](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    mat4x4 m = mat4x4(vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    uint k_1 = 0u;
    joints_1 = uint[8](v_3.joints0_.x, v_3.joints0_.y, v_3.joints0_.z, v_3.joints0_.w, v_3.joints1_.x, v_3.joints1_.y, v_3.joints1_.z, v_3.joints1_.w);
    weights_1 = float[8](v_3.weights0_.x, v_3.weights0_.y, v_3.weights0_.z, v_3.weights0_.w, v_3.weights1_.x, v_3.weights1_.y, v_3.weights1_.z, v_3.weights1_.w);
    bool loop_init_1 = true;
    while(true) {
        if (!loop_init_1) {
            uint _e65 = k_1;
            k_1 = (_e65 + 1u);
        }
        loop_init_1 = false;
        uint _e49 = k_1;
        if ((_e49 < MAX_INFLUENCES)) {
        } else {
            break;
        }
        {
            uint _e52 = k_1;
            float w_1 = weights_1[_e52];
            if ((w_1 == 0.0)) {
                continue;
            }
            mat4x4 _e57 = m;
            uint _e58 = k_1;
            uint _e60 = joints_1[_e58];
            mat4x4 _e61 = joint_matrix(_e60);
            m = (_e57 + (_e61 * w_1));
        }
    }
    vec4 _e68 = m[0];
    vec4 _e71 = m[1];
    vec4 _e74 = m[2];
    mat3x3 a_3 = mat3x3(_e68.xyz, _e71.xyz, _e74.xyz);
    vec4 _e78 = m[0];
    vec4 _e84 = m[1];
    vec4 _e91 = m[2];
    vec4 _e98 = m[3];
    vec3 p = ((((_e78.xyz * v_3.position.x) + (_e84.xyz * v_3.position.y)) + (_e91.xyz * v_3.position.z)) + _e98.xyz);
    vec3 _e102 = transform_normal(a_3, v_3.normal);
    vec4 _e104 = transform_tangent(a_3, v_3.tangent);
    return Skinned(p, _e102, _e104);
}

mat3x3 blended_scale_shear(SkinInput v_4) {
    uint joints_2[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    float weights_2[8] = float[8](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    mat3x3 s = mat3x3(vec3(0.0), vec3(0.0), vec3(0.0));
    uint k_2 = 0u;
    joints_2 = uint[8](v_4.joints0_.x, v_4.joints0_.y, v_4.joints0_.z, v_4.joints0_.w, v_4.joints1_.x, v_4.joints1_.y, v_4.joints1_.z, v_4.joints1_.w);
    weights_2 = float[8](v_4.weights0_.x, v_4.weights0_.y, v_4.weights0_.z, v_4.weights0_.w, v_4.weights1_.x, v_4.weights1_.y, v_4.weights1_.z, v_4.weights1_.w);
    bool loop_init_2 = true;
    while(true) {
        if (!loop_init_2) {
            uint _e63 = k_2;
            k_2 = (_e63 + 1u);
        }
        loop_init_2 = false;
        uint _e47 = k_2;
        if ((_e47 < MAX_INFLUENCES)) {
        } else {
            break;
        }
        {
            uint _e50 = k_2;
            float w_2 = weights_2[_e50];
            if ((w_2 == 0.0)) {
                continue;
            }
            mat3x3 _e55 = s;
            uint _e56 = k_2;
            uint _e58 = joints_2[_e56];
            mat3x3 _e59 = joint_scale_shear(_e58);
            s = (_e55 + (_e59 * w_2));
        }
    }
    mat3x3 _e65 = s;
    return _e65;
}

Skinned dqs(SkinInput v_5) {
    vec3 p1_ = vec3(0.0);
    vec3 n1_ = vec3(0.0);
    vec4 t1_ = vec4(0.0);
    p1_ = v_5.position;
    n1_ = v_5.normal;
    t1_ = v_5.tangent;
    uint _e9 = dqview_params_data.non_rigid;
    if ((_e9 != 0u)) {
        mat3x3 _e12 = blended_scale_shear(v_5);
        p1_ = (_e12 * v_5.position);
        vec3 _e16 = transform_normal(_e12, v_5.normal);
        n1_ = _e16;
        vec4 _e18 = transform_tangent(_e12, v_5.tangent);
        t1_ = _e18;
    }
    mat2x4 _e23 = dq_blend_scaled(v_5.joints0_, v_5.joints1_, v_5.weights0_, v_5.weights1_);
    Rigid _e24 = rigid_from_dq_scaled(_e23);
    vec3 _e26 = n1_;
    vec3 _e28 = n1_;
    vec3 _e29 = normalize_or((_e24.rotation * _e26), _e28);
    vec4 _e31 = t1_;
    vec4 _e34 = t1_;
    vec3 _e36 = normalize_or((_e24.rotation * _e31.xyz), _e34.xyz);
    vec3 _e38 = p1_;
    float _e43 = t1_.w;
    return Skinned(((_e24.rotation * _e38) + _e24.translation), _e29, vec4(_e36, _e43));
}

Skinned hybrid(SkinInput v_6, float beta) {
    Skinned _e2 = lbs(v_6);
    Skinned _e3 = dqs(v_6);
    vec3 _e8 = normalize_or(mix(_e2.normal, _e3.normal, beta), _e3.normal);
    vec3 _e16 = normalize_or(mix(_e2.tangent.xyz, _e3.tangent.xyz, beta), _e3.tangent.xyz);
    return Skinned(mix(_e2.position, _e3.position, beta), _e8, vec4(_e16, _e3.tangent.w));
}

Skinned finite_or_bind(Skinned s_1, SkinInput v_7) {
    Skinned out_ = Skinned(vec3(0.0), vec3(0.0), vec4(0.0));
    out_ = s_1;
    vec3 _e4 = out_.position;
    bool _e5 = is_finite_vec3_(_e4);
    if (!(_e5)) {
        bool _e12 = is_finite_vec3_(v_7.position);
        out_.position = (_e12 ? v_7.position : vec3(0.0));
    }
    vec3 _e15 = out_.normal;
    bool _e16 = is_finite_vec3_(_e15);
    if (!(_e16)) {
        bool _e25 = is_finite_vec3_(v_7.normal);
        out_.normal = (_e25 ? v_7.normal : vec3(0.0, 1.0, 0.0));
    }
    vec4 _e28 = out_.tangent;
    bool _e29 = is_finite_vec4_(_e28);
    if (!(_e29)) {
        bool _e39 = is_finite_vec4_(v_7.tangent);
        out_.tangent = (_e39 ? v_7.tangent : vec4(1.0, 0.0, 0.0, 0.0));
    }
    Skinned _e41 = out_;
    return _e41;
}

bool has_no_influences(SkinInput v_8) {
    bool local_5 = false;
    if (all(equal(v_8.weights0_, vec4(0.0)))) {
        local_5 = all(equal(v_8.weights1_, vec4(0.0)));
    } else {
        local_5 = false;
    }
    bool _e14 = local_5;
    return _e14;
}

Skinned bind_pose(SkinInput v_9) {
    Skinned _e5 = finite_or_bind(Skinned(v_9.position, v_9.normal, v_9.tangent), v_9);
    return _e5;
}

Skinned skin_hybrid(SkinInput v_10, float beta_1) {
    bool _e2 = has_no_influences(v_10);
    if (_e2) {
        Skinned _e3 = bind_pose(v_10);
        return _e3;
    }
    Skinned _e7 = hybrid(v_10, clamp(beta_1, 0.0, 1.0));
    Skinned _e8 = finite_or_bind(_e7, v_10);
    return _e8;
}

SkinInput export_input(vec3 position, vec3 normal, uvec4 joints0_1, uvec4 joints1_1, vec4 weights0_1, vec4 weights1_1) {
    return SkinInput(position, normal, EXPORT_TANGENT, joints0_1, joints1_1, weights0_1, weights1_1);
}

Skinned skin_export(SkinInput v_11, float blend_1, vec3 center) {
    float _e5 = dqview_params_data.beta_scale;
    Skinned _e7 = skin_hybrid(v_11, (blend_1 * _e5));
    return _e7;
}

ExportVertexOut export_vertex(SkinInput v_12, float blend_2, vec3 center_1) {
    Skinned _e3 = skin_export(v_12, blend_2, center_1);
    mat4x4 _e6 = dqview_params_data.clip_from_model;
    return ExportVertexOut((_e6 * vec4(_e3.position, 1.0)), _e3.position, _e3.normal);
}

SkinInput input8_(ExportVertexIn8_ input_1) {
    SkinInput _e7 = export_input(input_1.position, input_1.normal, input_1.joints, input_1.joints1_, input_1.weights, input_1.weights1_);
    return _e7;
}

void main() {
    ExportVertexIn8_ input_ = ExportVertexIn8_(_p2vs_location0, _p2vs_location1, _p2vs_location2, _p2vs_location3, _p2vs_location5, _p2vs_location6);
    float blend = _p2vs_location4;
    SkinInput _e2 = input8_(input_);
    ExportVertexOut _e4 = export_vertex(_e2, blend, NO_CENTER);
    gl_Position = _e4.clip_position;
    _vs2fs_location0 = _e4.position;
    _vs2fs_location1 = _e4.normal;
    return;
}

