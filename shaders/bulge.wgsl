// DQS bulge compensation: a vertex pushed out past its rest distance from the bent limb
// axis is pulled back towards it.
//
// Mirrors src/skin/bulge.rs (`SkinSkeleton::hinge`, `HingeAxis`, `compensate_bulge`), the
// specification. The hinge is the joint shared by the vertex's two heaviest influences
// (one the parent of the other); the axis is the child bone's ray from the hinge point
// and the parent bone's ray back from it. Needs dq.wgsl, palette.wgsl and skin.wgsl.

// The limb axis near a hinge: hinge point, unit child bone direction (away from the
// hinge), unit parent bone direction (towards the hinge).
struct HingeAxis {
    point: vec3<f32>,
    child: vec3<f32>,
    parent: vec3<f32>,
}

// glam's `try_normalize(v).is_some()`.
fn can_normalize(v: vec3<f32>) -> bool {
    let rcp = 1.0 / length(v);
    return is_finite_f32(rcp) && rcp > 0.0;
}

// The point of the axis's two rays closest to `p` (`HingeAxis::closest_point`).
fn axis_closest_point(a: HingeAxis, p: vec3<f32>) -> vec3<f32> {
    let d = p - a.point;
    let along_child = dot(d, a.child);
    let along_parent = -dot(d, a.parent);
    if along_child <= 0.0 && along_parent <= 0.0 {
        return a.point;
    }
    let on_child = a.point + a.child * max(along_child, 0.0);
    let on_parent = a.point - a.parent * max(along_parent, 0.0);
    let to_child = p - on_child;
    let to_parent = p - on_parent;
    if dot(to_child, to_child) <= dot(to_parent, to_parent) {
        return on_child;
    }
    return on_parent;
}

// `skinned` moved back towards its rest distance from the posed axis by `amount` of the
// excess; vertices without a hinge, or not farther out than at rest, are unchanged.
fn compensate_bulge(v: SkinInput, skinned: vec3<f32>, amount: f32) -> vec3<f32> {
    let a = clamp(amount, 0.0, 1.0);
    if !(a > 0.0) || v.weights0.y == 0.0 {
        return skinned;
    }
    let j0 = v.joints0.x;
    let j1 = v.joints0.y;
    let h0 = joint_hinge(j0);
    let h1 = joint_hinge(j1);
    var parent = j0;
    var child = j1;
    if h1.w == f32(j0) {
        parent = j0;
        child = j1;
    } else if h0.w == f32(j1) {
        parent = j1;
        child = j0;
    } else {
        return skinned;
    }
    let point = joint_hinge(child).xyz;
    let parent_ray = point - joint_hinge(parent).xyz;
    if !can_normalize(parent_ray) {
        return skinned;
    }
    let parent_dir = normalize(parent_ray);
    let bone = joint_bone(child);
    let child_dir = select(parent_dir, bone.xyz, bone.w != 0.0);
    let rest_axis = HingeAxis(point, child_dir, parent_dir);
    let rest = length(v.position - axis_closest_point(rest_axis, v.position));
    let mp = joint_matrix(parent);
    let mc = joint_matrix(child);
    let mc3 = mat3x3<f32>(mc[0].xyz, mc[1].xyz, mc[2].xyz);
    let mp3 = mat3x3<f32>(mp[0].xyz, mp[1].xyz, mp[2].xyz);
    let posed = HingeAxis(
        (mc * vec4<f32>(point, 1.0)).xyz,
        normalize_or(mc3 * child_dir, child_dir),
        normalize_or(mp3 * parent_dir, parent_dir),
    );
    let foot = axis_closest_point(posed, skinned);
    let offset = skinned - foot;
    let d = length(offset);
    if !(d > rest && is_finite_f32(d)) {
        return skinned;
    }
    let out = foot + offset * ((d - a * (d - rest)) / d);
    if is_finite_vec3(out) {
        return out;
    }
    return skinned;
}
