// Debug views of the render pipelines: per-vertex values computed in the vertex
// stage, coloured in fs_main. View ids mirror `DebugView` in src/render/debug_view.rs.
// Needs dq.wgsl, palette.wgsl and skin.wgsl in the same module.

const VIEW_SHADED: u32 = 0u;
const VIEW_WEIGHTS: u32 = 1u;
const VIEW_INFLUENCES: u32 = 2u;
const VIEW_NORMALS: u32 = 3u;
const VIEW_DISPLACEMENT: u32 = 4u;
const VIEW_JOINTS: u32 = 5u;
const VIEW_COLLAPSE: u32 = 6u;
const VIEW_BETA: u32 = 7u;
const VIEW_MASK: u32 = 8u;
const VIEW_COR_DISTANCE: u32 = 9u;
const VIEW_REGION: u32 = 10u;

// Determinant of the blended 3x3 of `mode`: the local volume ratio of the
// blended transform (weight gradients ignored). Rigid DQS blends are 1.
fn blended_determinant(v: SkinInput, mode: u32, beta: f32) -> f32 {
    var joints = array<u32, 8>(v.joints0.x, v.joints0.y, v.joints0.z, v.joints0.w, v.joints1.x, v.joints1.y, v.joints1.z, v.joints1.w);
    var weights = array<f32, 8>(v.weights0.x, v.weights0.y, v.weights0.z, v.weights0.w, v.weights1.x, v.weights1.y, v.weights1.z, v.weights1.w);
    var a = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    var s = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    var total = 0.0;
    for (var k = 0u; k < MAX_INFLUENCES; k++) {
        let w = weights[k];
        if w == 0.0 {
            continue;
        }
        let m = joint_matrix(joints[k]);
        a += mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz) * w;
        s += joint_scale_shear(joints[k]) * w;
        total += w;
    }
    // A vertex without influences stays put; DDM moves each vertex by a fitted rotation.
    if total == 0.0 || mode == SKIN_MODE_DDM {
        return 1.0;
    }
    let lbs_det = determinant3(a);
    let dqs_det = select(1.0, determinant3(s), skin.non_rigid != 0u);
    if mode == 0u {
        return lbs_det;
    }
    if mode == 1u {
        return dqs_det;
    }
    return mix(lbs_det, dqs_det, beta);
}

// The scalar a debug view shows at a vertex (flat views return 0).
// `mode`: 0 LBS, 1 DQS, 2 hybrid; `selected`: joint index in the skin; `inv_diagonal`: 1 / bounding-box diagonal.
fn debug_scalar(v: SkinInput, view: u32, mode: u32, beta: f32, selected: u32, inv_diagonal: f32) -> f32 {
    var joints = array<u32, 8>(v.joints0.x, v.joints0.y, v.joints0.z, v.joints0.w, v.joints1.x, v.joints1.y, v.joints1.z, v.joints1.w);
    var weights = array<f32, 8>(v.weights0.x, v.weights0.y, v.weights0.z, v.weights0.w, v.weights1.x, v.weights1.y, v.weights1.z, v.weights1.w);
    switch view {
        case VIEW_WEIGHTS: {
            var w = 0.0;
            for (var k = 0u; k < MAX_INFLUENCES; k++) {
                w += select(0.0, weights[k], joints[k] == selected && weights[k] > 0.0);
            }
            return w;
        }
        case VIEW_INFLUENCES: {
            var n = 0.0;
            for (var k = 0u; k < MAX_INFLUENCES; k++) {
                n += select(0.0, 1.0, weights[k] > 0.0);
            }
            return n;
        }
        case VIEW_DISPLACEMENT: {
            return length(skin_lbs(v).position - skin_dqs(v).position) * inv_diagonal;
        }
        case VIEW_COLLAPSE: {
            return blended_determinant(v, mode, beta);
        }
        case VIEW_BETA: {
            return beta;
        }
        default: {
            return 0.0;
        }
    }
}

// Blue -> cyan -> green -> yellow -> red for t in [0, 1].
fn heat(t: f32) -> vec3<f32> {
    let x = clamp(t, 0.0, 1.0);
    let r = clamp(1.5 - abs(4.0 * x - 3.0), 0.0, 1.0);
    let g = clamp(1.5 - abs(4.0 * x - 2.0), 0.0, 1.0);
    let b = clamp(1.5 - abs(4.0 * x - 1.0), 0.0, 1.0);
    return vec3<f32>(r, g, b);
}

// A distinct colour per small integer (joint ids, influence counts).
fn index_color(i: u32) -> vec3<f32> {
    let h = fract(f32(i) * 0.618034);
    let k = vec3<f32>(0.0, 2.0 / 3.0, 1.0 / 3.0);
    return clamp(abs(fract(vec3<f32>(h) + k) * 6.0 - 3.0) - 1.0, vec3<f32>(0.0), vec3<f32>(1.0)) * 0.8 + 0.15;
}

// Where `value` lies in `range` (x blue, y red), 0..1 inside; a collapsed range reads as 0.
fn heat_t(value: f32, range: vec2<f32>) -> f32 {
    let span = range.y - range.x;
    return select(0.0, (value - range.x) / span, span > 0.0);
}

// Colour of a debug view from its scalar, heaviest joint and normal; `heat_range` (blue,
// red) scales the displacement and collapse views (`FrameUniforms::heat_range`).
fn debug_color(view: u32, value: f32, heaviest: u32, normal: vec3<f32>, heat_range: vec2<f32>) -> vec3<f32> {
    switch view {
        case VIEW_WEIGHTS: { return heat(value); }
        case VIEW_INFLUENCES: { return index_color(u32(value)); }
        case VIEW_NORMALS: { return normal * 0.5 + 0.5; }
        case VIEW_DISPLACEMENT: { return heat(heat_t(value, heat_range)); }
        case VIEW_JOINTS: { return index_color(heaviest); }
        // Volume ratio: by default 0 (collapsed) blue, 1 green, 2 or more red.
        case VIEW_COLLAPSE: { return heat(heat_t(value, heat_range)); }
        case VIEW_COR_DISTANCE: { return heat(heat_t(value, heat_range)); }
        case VIEW_BETA: { return heat(value); }
        default: { return vec3<f32>(1.0); }
    }
}
