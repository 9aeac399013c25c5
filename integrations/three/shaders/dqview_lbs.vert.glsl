#version 300 es
// dqview 0.1.0: LBS skinning, vertex stage, 8 influences, GLSL ES 300 es; naga 30 from dqview's shaders/dq.wgsl, skin.wgsl, export_palette.wgsl, export_vertex.wgsl.
// Written by: dqview shader --target glsl-es --method lbs --joints 256 --stage vertex --influences 8
// LBS: M = sum w_i M_i; position M p, normal by the cofactor of M's 3x3 (sign of its det), renormalised.
// Where a result is not finite, the bind-pose value is kept; a vertex with all weights 0 keeps its bind pose.
// Entry point: main
// Vertex inputs:
//   layout(location = 0) in _p2vs_location0: vec3<f32> position: bind-space position
//   layout(location = 1) in _p2vs_location1: vec3<f32> normal: bind-space unit normal
//   layout(location = 2) in _p2vs_location2: vec4<u32> joints: joint indices of influences 0 to 3 (uint), heaviest first: influence 0 is the DQS pivot
//   layout(location = 3) in _p2vs_location3: vec4<f32> weights: weights of influences 0 to 3
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
//   group 0 binding 2 = uniform block dqview_joint_matrices { dqview_joint_matrices_data } (bind by name: glUniformBlockBinding): uniform dqview_joint_matrices: array<mat4x4<f32>, 256>, 16384 bytes
//     stride 64: per joint: skinning matrix world_from_joint * inverse_bind (column-major)

precision highp float;
precision highp int;

struct SkinParams {
    mat4x4 clip_from_model;
    uint joint_count;
    uint non_rigid;
    float beta_scale;
    uint vertex_count;
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

layout(std140) uniform dqview_joint_matrices { mat4x4 dqview_joint_matrices_data[256]; };

layout(location = 0) in vec3 _p2vs_location0;
layout(location = 1) in vec3 _p2vs_location1;
layout(location = 2) in uvec4 _p2vs_location2;
layout(location = 3) in vec4 _p2vs_location3;
layout(location = 5) in uvec4 _p2vs_location5;
layout(location = 6) in vec4 _p2vs_location6;
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

mat4x4 joint_matrix(uint j) {
    uint _e3 = dqview_params_data.joint_count;
    if ((j < _e3)) {
        mat4x4 _e7 = dqview_joint_matrices_data[j];
        return _e7;
    }
    return mat4x4(vec4(1.0, 0.0, 0.0, 0.0), vec4(0.0, 1.0, 0.0, 0.0), vec4(0.0, 0.0, 1.0, 0.0), vec4(0.0, 0.0, 0.0, 1.0));
}

vec3 normalize_or(vec3 v_2, vec3 fallback) {
    bool local = false;
    float rcp = (1.0 / length(v_2));
    bool _e5 = is_finite_f32_(rcp);
    if (_e5) {
        local = (rcp > 0.0);
    } else {
        local = false;
    }
    bool _e11 = local;
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
    float s_1 = ((_e12 < 0.0) ? -1.0 : 1.0);
    vec3 _e21 = normalize_or((a_1 * n), n);
    vec3 _e22 = normalize_or(((cof * n) * s_1), _e21);
    return _e22;
}

vec4 transform_tangent(mat3x3 a_2, vec4 t) {
    vec3 _e5 = normalize_or((a_2 * t.xyz), t.xyz);
    float _e9 = determinant3_(a_2);
    return vec4(_e5, ((_e9 < 0.0) ? -(t.w) : t.w));
}

Skinned lbs(SkinInput v_3) {
    uint joints[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    float weights[8] = float[8](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    mat4x4 m = mat4x4(vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    uint k = 0u;
    joints = uint[8](v_3.joints0_.x, v_3.joints0_.y, v_3.joints0_.z, v_3.joints0_.w, v_3.joints1_.x, v_3.joints1_.y, v_3.joints1_.z, v_3.joints1_.w);
    weights = float[8](v_3.weights0_.x, v_3.weights0_.y, v_3.weights0_.z, v_3.weights0_.w, v_3.weights1_.x, v_3.weights1_.y, v_3.weights1_.z, v_3.weights1_.w);
    bool loop_init = true;
    while(true) {
        if (!loop_init) {
            uint _e65 = k;
            k = (_e65 + 1u);
        }
        loop_init = false;
        uint _e49 = k;
        if ((_e49 < MAX_INFLUENCES)) {
        } else {
            break;
        }
        {
            uint _e52 = k;
            float w = weights[_e52];
            if ((w == 0.0)) {
                continue;
            }
            mat4x4 _e57 = m;
            uint _e58 = k;
            uint _e60 = joints[_e58];
            mat4x4 _e61 = joint_matrix(_e60);
            m = (_e57 + (_e61 * w));
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

Skinned finite_or_bind(Skinned s, SkinInput v_4) {
    Skinned out_ = Skinned(vec3(0.0), vec3(0.0), vec4(0.0));
    out_ = s;
    vec3 _e4 = out_.position;
    bool _e5 = is_finite_vec3_(_e4);
    if (!(_e5)) {
        bool _e12 = is_finite_vec3_(v_4.position);
        out_.position = (_e12 ? v_4.position : vec3(0.0));
    }
    vec3 _e15 = out_.normal;
    bool _e16 = is_finite_vec3_(_e15);
    if (!(_e16)) {
        bool _e25 = is_finite_vec3_(v_4.normal);
        out_.normal = (_e25 ? v_4.normal : vec3(0.0, 1.0, 0.0));
    }
    vec4 _e28 = out_.tangent;
    bool _e29 = is_finite_vec4_(_e28);
    if (!(_e29)) {
        bool _e39 = is_finite_vec4_(v_4.tangent);
        out_.tangent = (_e39 ? v_4.tangent : vec4(1.0, 0.0, 0.0, 0.0));
    }
    Skinned _e41 = out_;
    return _e41;
}

bool has_no_influences(SkinInput v_5) {
    bool local_1 = false;
    if (all(equal(v_5.weights0_, vec4(0.0)))) {
        local_1 = all(equal(v_5.weights1_, vec4(0.0)));
    } else {
        local_1 = false;
    }
    bool _e14 = local_1;
    return _e14;
}

Skinned bind_pose(SkinInput v_6) {
    Skinned _e5 = finite_or_bind(Skinned(v_6.position, v_6.normal, v_6.tangent), v_6);
    return _e5;
}

Skinned skin_lbs(SkinInput v_7) {
    bool _e1 = has_no_influences(v_7);
    if (_e1) {
        Skinned _e2 = bind_pose(v_7);
        return _e2;
    }
    Skinned _e3 = lbs(v_7);
    Skinned _e4 = finite_or_bind(_e3, v_7);
    return _e4;
}

SkinInput export_input(vec3 position, vec3 normal, uvec4 joints0_, uvec4 joints1_, vec4 weights0_, vec4 weights1_) {
    return SkinInput(position, normal, EXPORT_TANGENT, joints0_, joints1_, weights0_, weights1_);
}

Skinned skin_export(SkinInput v_8, float blend, vec3 center) {
    Skinned _e3 = skin_lbs(v_8);
    return _e3;
}

ExportVertexOut export_vertex(SkinInput v_9, float blend_1, vec3 center_1) {
    Skinned _e3 = skin_export(v_9, blend_1, center_1);
    mat4x4 _e6 = dqview_params_data.clip_from_model;
    return ExportVertexOut((_e6 * vec4(_e3.position, 1.0)), _e3.position, _e3.normal);
}

SkinInput input8_(ExportVertexIn8_ input_1) {
    SkinInput _e7 = export_input(input_1.position, input_1.normal, input_1.joints, input_1.joints1_, input_1.weights, input_1.weights1_);
    return _e7;
}

void main() {
    ExportVertexIn8_ input_ = ExportVertexIn8_(_p2vs_location0, _p2vs_location1, _p2vs_location2, _p2vs_location3, _p2vs_location5, _p2vs_location6);
    SkinInput _e1 = input8_(input_);
    ExportVertexOut _e4 = export_vertex(_e1, 1.0, NO_CENTER);
    gl_Position = _e4.clip_position;
    _vs2fs_location0 = _e4.position;
    _vs2fs_location1 = _e4.normal;
    return;
}

