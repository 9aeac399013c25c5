// dqview's skinning written in TSL (three.js's node shading language), for node materials and
// WebGPURenderer on either backend: the same math as the GLSL chunks.js carries (naga's
// translation of shaders/dq.wgsl, skin.wgsl and export_three.wgsl), step for step, reading the
// same palette texture (palette-texture.js) and vertex attributes (material-patch.js
// ATTRIBUTES). The helpers are JS functions that build nodes inline, called inside a TSL `Fn`
// (they make variables and branches on its stack); a 3x3 matrix is an array of its three
// column vec3s, multiplied out by hand, so no matrix type is needed from either backend.
import { If, cross, dot, float, floatBitsToUint, int, ivec2, length, mix, clamp, max, select, uint, vec3, vec4 } from "three/tsl";

/** An f32's exponent bits: all set for infinities and NaN (dq.wgsl F32_EXPONENT_MASK). */
const EXPONENT_MASK = 0x7f800000;
/** Below this squared length a blended rotation is taken as degenerate (dq.wgsl). */
const DEGENERATE = 1e-12;

/** Whether the float node `x` is finite, by its bits: shader compilers may fold `x == x` away. */
const isFinite1 = (x) => floatBitsToUint(x).bitAnd(uint(EXPONENT_MASK)).notEqual(uint(EXPONENT_MASK));
const isFinite3 = (v) => isFinite1(v.x).and(isFinite1(v.y)).and(isFinite1(v.z));
const isFinite4 = (v) => isFinite3(v).and(isFinite1(v.w));

/** Column matrix (three vec3 nodes) times `v`. */
const mulCols = ([c0, c1, c2], v) => c0.mul(v.x).add(c1.mul(v.y)).add(c2.mul(v.z));

/** `v` normalised, or `fallback` where its length is 0 or not finite (skin.wgsl normalize_or). */
function normalizeOr(v, fallback) {
    const vv = v.toVar();
    const rcp = float(1).div(length(vv)).toVar();
    return select(isFinite1(rcp).and(rcp.greaterThan(0)), vv.mul(rcp), fallback).toVar();
}

/** det(a) of a column matrix. */
const determinant = ([a0, a1, a2]) => dot(a2, cross(a0, a1));

/** A normal through `a`: its cofactor matrix, sign-corrected for mirrors; `a n` if that fails (skin.wgsl). */
function transformNormal(a, n) {
    const cof = [cross(a[1], a[2]), cross(a[2], a[0]), cross(a[0], a[1])];
    const s = select(determinant(a).lessThan(0), float(-1), float(1));
    const fallback = normalizeOr(mulCols(a, n), n);
    return normalizeOr(mulCols(cof, n).mul(s), fallback);
}

/** A tangent (xyz, handedness w) through `a`; a mirror flips the handedness. */
function transformTangent(a, t) {
    const w = select(determinant(a).lessThan(0), t.w.negate(), t.w);
    return vec4(normalizeOr(mulCols(a, t.xyz), t.xyz), w).toVar();
}

/**
 * The palette reader over `palette` (a TextureNode of the palette DataTexture, loaded by integer
 * texel): the skin parameters of texel (0, 0), and per joint its dual quaternion, matrix and
 * scale/shear columns, or the identity for a joint past joint_count.
 */
export function paletteReader(palette) {
    const params = palette.load(ivec2(0, 0)).toVar();
    const jointCount = uint(max(params.x, 0.0)).toVar();
    const texel = (row, k) => palette.load(ivec2(int(k), int(row).add(1)));
    /** Reads `texels` of joint `j` where it is in range, else `identity` (per texel). */
    const joint = (j, first, identity) => {
        const inRange = j.lessThan(jointCount);
        // Out of range reads row 1 instead: never past the texture, whose rows are the joints.
        const row = select(inRange, j, uint(0));
        return identity.map((id, k) => select(inRange, texel(row, first + k), id).toVar());
    };
    return {
        nonRigid: params.y.notEqual(0),
        betaScale: params.z,
        dualQuat: (j) => joint(j, 0, [vec4(0, 0, 0, 1), vec4(0)]),
        matrix: (j) => joint(j, 2, [vec4(1, 0, 0, 0), vec4(0, 1, 0, 0), vec4(0, 0, 1, 0), vec4(0, 0, 0, 1)]),
        scaleShear: (j) => joint(j, 6, [vec4(1, 0, 0, 0), vec4(0, 1, 0, 0), vec4(0, 0, 1, 0)]).map((c) => c.xyz),
    };
}

/** A unit dual quaternion from `[real, dual]`, the dual part made orthogonal; identity when degenerate. */
function dqNormalize([real, dual]) {
    const len = length(real).toVar();
    const bad = isFinite1(len).and(len.greaterThan(DEGENERATE)).not().or(isFinite4(dual).not());
    const r = real.div(len).toVar();
    const d = dual.div(len).toVar();
    return [select(bad, vec4(0, 0, 0, 1), r).toVar(), select(bad, vec4(0), d.sub(r.mul(dot(r, d)))).toVar()];
}

/**
 * Dual quaternion linear blending of the influences (dq.wgsl dq_blend_scaled): each joint's
 * quaternion sign-flipped to the hemisphere of influence 0's (the pivot: the heaviest), not
 * normalised (rigidFromDq divides by the length); the pivot normalised where the blend degenerates.
 */
function dqBlend(reader, { joints, weights }) {
    const pivot = reader.dualQuat(joints[0]);
    const real = pivot[0].mul(weights[0]).toVar();
    const dual = pivot[1].mul(weights[0]).toVar();
    for (let k = 1; k < joints.length; k++) {
        If(weights[k].notEqual(0), () => {
            const [r, d] = reader.dualQuat(joints[k]);
            const w = select(dot(r, pivot[0]).lessThan(0), weights[k].negate(), weights[k]);
            real.addAssign(r.mul(w));
            dual.addAssign(d.mul(w));
        });
    }
    const lenSq = dot(real, real);
    const bad = isFinite1(lenSq).and(lenSq.greaterThan(DEGENERATE)).not().or(isFinite4(dual).not());
    If(bad, () => {
        const [r, d] = dqNormalize(pivot);
        real.assign(r);
        dual.assign(d);
    });
    return [real, dual];
}

/** The rotation (columns) and translation of a blended, unnormalised dual quaternion (dq.wgsl rigid_from_dq_scaled). */
function rigidFromDq([r, d]) {
    const s = float(2).div(dot(r, r)).toVar();
    const r2 = r.xyz.mul(s).toVar();
    const [xx, yy, zz] = [r.x.mul(r2.x), r.y.mul(r2.y), r.z.mul(r2.z)];
    const [xy, xz, yz] = [r.x.mul(r2.y), r.x.mul(r2.z), r.y.mul(r2.z)];
    const [wx, wy, wz] = [r.w.mul(r2.x), r.w.mul(r2.y), r.w.mul(r2.z)];
    const rotation = [
        vec3(float(1).sub(yy.add(zz)), xy.add(wz), xz.sub(wy)).toVar(),
        vec3(xy.sub(wz), float(1).sub(xx.add(zz)), yz.add(wx)).toVar(),
        vec3(xz.add(wy), yz.sub(wx), float(1).sub(xx.add(yy))).toVar(),
    ];
    const translation = r.w.mul(d.xyz).sub(d.w.mul(r.xyz)).add(cross(r.xyz, d.xyz)).mul(s).toVar();
    return { rotation, translation };
}

/** The weighted sum of the influences' `columnsOf(joint)` (skipping zero weights, as the loops do). */
function blendColumns(input, columnsOf, zero) {
    const sum = zero.map((z) => z.toVar());
    input.joints.forEach((joint, k) => {
        If(input.weights[k].notEqual(0), () => {
            columnsOf(joint).forEach((c, i) => sum[i].addAssign(c.mul(input.weights[k])));
        });
    });
    return sum;
}

/** Linear blend skinning (skin.wgsl lbs): the blended matrix, normals by its cofactors. */
function lbs(reader, input) {
    const m = blendColumns(input, reader.matrix, [vec4(0), vec4(0), vec4(0), vec4(0)]);
    const a = [m[0].xyz, m[1].xyz, m[2].xyz];
    const position = mulCols(a, input.position).add(m[3].xyz).toVar();
    return { position, normal: transformNormal(a, input.normal), tangent: transformTangent(a, input.tangent) };
}

/**
 * Dual quaternion skinning (skin.wgsl dqs): on a non-rigid skin first the blended scale/shear
 * (phase 1), then the blended rigid motion (phase 2).
 */
function dqs(reader, input) {
    const p1 = input.position.toVar();
    const n1 = input.normal.toVar();
    const t1 = input.tangent.toVar();
    If(reader.nonRigid, () => {
        const s = blendColumns(input, reader.scaleShear, [vec3(0), vec3(0), vec3(0)]);
        p1.assign(mulCols(s, input.position));
        n1.assign(transformNormal(s, input.normal));
        t1.assign(transformTangent(s, input.tangent));
    });
    const { rotation, translation } = rigidFromDq(dqBlend(reader, input));
    const position = mulCols(rotation, p1).add(translation).toVar();
    const normal = normalizeOr(mulCols(rotation, n1), n1);
    const tangent = vec4(normalizeOr(mulCols(rotation, t1.xyz), t1.xyz), t1.w).toVar();
    return { position, normal, tangent };
}

/** Hybrid (skin.wgsl hybrid): LBS and DQS mixed by `beta`, normals renormalised. */
function hybrid(reader, input, beta) {
    const l = lbs(reader, input);
    const d = dqs(reader, input);
    return {
        position: mix(l.position, d.position, beta).toVar(),
        normal: normalizeOr(mix(l.normal, d.normal, beta), d.normal),
        tangent: vec4(normalizeOr(mix(l.tangent.xyz, d.tangent.xyz, beta), d.tangent.xyz), d.tangent.w).toVar(),
    };
}

/** `v` rotated by the unit quaternion `q` (dq.wgsl rotate_vector). */
const rotateVector = (q, v) => v.add(cross(q.xyz, cross(q.xyz, v).add(v.mul(q.w))).mul(2));

/**
 * The blended rotation of CoR (cor.wgsl quat_blend): DQS's sign rule with influence 0 as the
 * pivot, normalised; the normalised pivot, then the identity, where the sum degenerates.
 */
function quatBlend(reader, { joints, weights }) {
    const pivot = reader.dualQuat(joints[0])[0];
    const sum = pivot.mul(weights[0]).toVar();
    for (let k = 1; k < joints.length; k++) {
        If(weights[k].notEqual(0), () => {
            const q = reader.dualQuat(joints[k])[0];
            sum.addAssign(q.mul(select(dot(q, pivot).lessThan(0), weights[k].negate(), weights[k])));
        });
    }
    const len = length(sum).toVar();
    const pivotLen = length(pivot).toVar();
    const out = vec4(0, 0, 0, 1).toVar();
    // Braced: an arrow that returns the assignment would be a `return` in an inline Fn.
    If(isFinite1(len).and(len.greaterThan(1e-6)), () => {
        out.assign(sum.div(len));
    }).ElseIf(isFinite1(pivotLen).and(pivotLen.greaterThan(1e-6)), () => {
        out.assign(pivot.div(pivotLen));
    });
    return out;
}

/** Centre-of-rotation skinning (cor.wgsl cor): p' = R(q) S (p - c) + LBS(c); S only on a non-rigid skin. */
function cor(reader, input, center) {
    const m = blendColumns(input, reader.matrix, [vec4(0), vec4(0), vec4(0), vec4(0)]);
    const offset = input.position.sub(center).toVar();
    const n1 = input.normal.toVar();
    const t1 = input.tangent.toVar();
    If(reader.nonRigid, () => {
        const s = blendColumns(input, reader.scaleShear, [vec3(0), vec3(0), vec3(0)]);
        offset.assign(mulCols(s, input.position.sub(center)));
        n1.assign(transformNormal(s, input.normal));
        t1.assign(transformTangent(s, input.tangent));
    });
    const q = quatBlend(reader, input);
    const lbsCenter = mulCols([m[0].xyz, m[1].xyz, m[2].xyz], center).add(m[3].xyz);
    return {
        position: rotateVector(q, offset).add(lbsCenter).toVar(),
        normal: normalizeOr(rotateVector(q, n1), n1),
        tangent: vec4(normalizeOr(rotateVector(q, t1.xyz), t1.xyz), t1.w).toVar(),
    };
}

/** `skinned` with each non-finite part replaced by the bind pose's, or a default (skin.wgsl finite_or_bind). */
function finiteOrBind(skinned, input) {
    const or = (value, finite, bind, bindFinite, fallback) => select(finite(value), value, select(bindFinite(bind), bind, fallback));
    return {
        position: or(skinned.position, isFinite3, input.position, isFinite3, vec3(0)),
        normal: or(skinned.normal, isFinite3, input.normal, isFinite3, vec3(0, 1, 0)),
        tangent: or(skinned.tangent, isFinite4, input.tangent, isFinite4, vec4(1, 0, 0, 0)),
    };
}

/**
 * dqview's skinning of one vertex by `method` ("lbs", "dqs", "hybrid" or "cor";
 * export_three.wgsl skin_three): `input` = {position, normal, tangent (vec4) in bind space,
 * joints, weights (arrays of the 4 or 8 uint and float nodes read), blend (hybrid's per-vertex
 * blend), center (CoR's bind-space centre)}.
 * Returns {position, normal, tangent} variables; a vertex without weight keeps its bind pose.
 */
export function dqviewSkin(reader, method, input) {
    const out = {
        position: input.position.toVar(),
        normal: input.normal.toVar(),
        tangent: input.tangent.toVar(),
    };
    const bind = finiteOrBind(input, input);
    const noWeight = input.allWeights.map((w) => w.equal(0)).reduce((a, b) => a.and(b));
    If(noWeight, () => {
        out.position.assign(bind.position);
        out.normal.assign(bind.normal);
        out.tangent.assign(bind.tangent);
    }).Else(() => {
        let skinned;
        if (method === "lbs") skinned = lbs(reader, input);
        else if (method === "dqs") skinned = dqs(reader, input);
        else if (method === "cor") skinned = cor(reader, input, input.center);
        else skinned = hybrid(reader, input, clamp(input.blend.mul(reader.betaScale), 0, 1));
        const safe = finiteOrBind(skinned, input);
        out.position.assign(safe.position);
        out.normal.assign(safe.normal);
        out.tangent.assign(safe.tangent);
    });
    return out;
}
