// Morph targets of a skinned mesh, applied in bind space before dqview's skinning, as dqview's
// renderer applies them (shaders/geometry.wgsl `morph_vertex`, src/skin/morph.rs
// `morph_vertices`): p' = p + sum_t w_t dp_t and n' = n + sum_t w_t dn_t, targets in order,
// zero, missing and non-finite weights skipped, f32 arithmetic; n' renormalised, the bind
// normal where it has no length. The exported shader then skins p' and n'. Reads three.js's
// `geometry.morphAttributes.position` / `.normal` (relative, as GLTFLoader makes them, or
// absolute) and the mesh's `morphTargetInfluences` (which AnimationMixer drives). No three
// import: unit-tested in node (test/skinning.test.mjs).

/** A BufferAttribute's first three components, vertex-major, as a Float32Array. */
function xyz(attribute, count) {
    const out = new Float32Array(3 * count);
    for (let v = 0; v < count; v++) {
        out[3 * v] = attribute.getX(v);
        out[3 * v + 1] = attribute.getY(v);
        out[3 * v + 2] = attribute.getZ(v);
    }
    return out;
}

/** Each target's deltas from `base` (null for a target with none): relative ones as given. */
function deltasOf(targets, base, relative, count) {
    return (targets ?? []).map((target) => {
        if (!target || base === null) return null;
        const d = xyz(target, count);
        if (!relative) for (let i = 0; i < d.length; i++) d[i] = Math.fround(d[i] - base[i]);
        return d;
    });
}

/** The weight of target t as applied: missing and non-finite weights count as 0 (morph.rs `effective_weight`). */
export function effectiveWeight(weights, t) {
    const w = weights?.[t];
    return typeof w === "number" && Number.isFinite(w) ? Math.fround(w) : 0;
}

/** glam's `try_normalize(v).unwrap_or(fallback)` of the vector at `i` of `a`, in place. */
function normalizeOr(a, i, fallback) {
    const rcp = Math.fround(1 / Math.fround(Math.hypot(a[i], a[i + 1], a[i + 2])));
    for (let k = 0; k < 3; k++) {
        a[i + k] = Number.isFinite(rcp) && rcp > 0 ? Math.fround(a[i + k] * rcp) : fallback[i + k];
    }
}

/**
 * Morphs `base` ({position, normal}: Float32Arrays, 3 a vertex; normal may be null) by
 * `targets` ([{position, normal}]: delta Float32Arrays or null) at `weights` into `out` (the
 * same shape). Returns whether any target had a weight (else `out` is `base`).
 */
export function morphBindPose(base, targets, weights, out) {
    out.position.set(base.position);
    if (out.normal) out.normal.set(base.normal);
    const active = targets.map((_, t) => effectiveWeight(weights, t)).some((w) => w !== 0);
    if (!active) return false;
    targets.forEach((target, t) => {
        const w = effectiveWeight(weights, t);
        if (w === 0) return;
        for (const key of ["position", "normal"]) {
            const d = target[key];
            const values = out[key];
            if (!d || !values || d.length !== values.length) continue;
            for (let i = 0; i < values.length; i++) values[i] = Math.fround(values[i] + Math.fround(w * d[i]));
        }
    });
    if (out.normal) {
        for (let i = 0; i < out.normal.length; i += 3) normalizeOr(out.normal, i, base.normal);
    }
    return true;
}

/**
 * The bind pose of one skinned geometry with its morph targets: `position` and `normal`
 * (Float32Arrays the shader's inputs are made from) hold the morphed bind pose after `update`.
 */
export class BindPoseMorph {
    /** Whether `geometry` has morph targets (positions or normals). */
    static applies(geometry) {
        const m = geometry.morphAttributes ?? {};
        return (m.position?.length ?? 0) > 0 || (m.normal?.length ?? 0) > 0;
    }

    constructor(geometry) {
        const count = geometry.attributes.position.count;
        const relative = geometry.morphTargetsRelative === true;
        const normal = geometry.attributes.normal ? xyz(geometry.attributes.normal, count) : null;
        this.base = { position: xyz(geometry.attributes.position, count), normal };
        const positions = deltasOf(geometry.morphAttributes.position, this.base.position, relative, count);
        const normals = deltasOf(geometry.morphAttributes.normal, this.base.normal, relative, count);
        const targets = Math.max(positions.length, normals.length);
        this.targets = Array.from({ length: targets }, (_, t) => ({
            position: positions[t] ?? null,
            normal: normals[t] ?? null,
        }));
        this.position = new Float32Array(this.base.position);
        this.normal = normal ? new Float32Array(normal) : null;
        this.weights = null;
    }

    /** Morphs by `influences` (the mesh's morphTargetInfluences) when they changed; whether it did. */
    update(influences) {
        const weights = this.targets.map((_, t) => effectiveWeight(influences, t));
        if (this.weights !== null && weights.every((w, t) => w === this.weights[t])) return false;
        this.weights = weights;
        morphBindPose(this.base, this.targets, weights, this);
        return true;
    }
}
