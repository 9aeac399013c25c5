// Per-vertex influences in dqview's load-time convention, ported from src/influences.rs
// (`Influences::from_rows`): weights negative, NaN, infinite or below 1e-7 dropped, duplicate
// joints merged, the rest renormalised (summed in double precision) and sorted heaviest first,
// ties by joint index. Influence 0 is then the DQS pivot. GLTFLoader's normalisation of
// WEIGHTS_0 alone is undone where a vertex has more sets (`firstSetScale`).

/** influences.rs MIN_WEIGHT (an f32). */
const MIN_WEIGHT = Math.fround(1e-7);

/** The JOINTS_n/WEIGHTS_n sets GLTFLoader left on `geometry`: skinIndex/skinWeight, then joints_1/weights_1, ... */
function influenceSetsOf(geometry) {
    const sets = [];
    const first = [geometry.attributes.skinIndex, geometry.attributes.skinWeight];
    if (first[0] && first[1]) sets.push(first);
    for (let n = 1; ; n++) {
        const joints = geometry.attributes[`joints_${n}`];
        const weights = geometry.attributes[`weights_${n}`];
        if (!joints || !weights) break;
        sets.push([joints, weights]);
    }
    return sets;
}

/**
 * What set 0's weights of vertex `v` were in the file: GLTFLoader normalises `skinWeight`
 * alone to sum 1 (`SkinnedMesh.normalizeSkinWeights`), which with more sets changes their
 * proportions; as glTF requires all of a vertex's weights to sum to 1, set 0 summed to 1 minus
 * the other sets' sum, so its weights are scaled by that. 1 with one set.
 */
function firstSetScale(sets, v) {
    if (sets.length < 2) return 1;
    let rest = 0;
    for (const [, weights] of sets.slice(1)) {
        for (let k = 0; k < 4; k++) {
            const w = Math.fround(weights.getComponent(v, k));
            if (Number.isFinite(w) && w > 0) rest += w;
        }
    }
    return Math.max(0, 1 - rest);
}

/** One vertex's influences as from_rows makes them: [{joint, weight}], heaviest first, summing to 1. */
function sortedRow(sets, v) {
    const wide = [];
    const scale0 = firstSetScale(sets, v);
    for (const [s, [joints, weights]] of sets.entries()) {
        for (let k = 0; k < 4; k++) {
            const joint = joints.getComponent(v, k);
            // The loader reads weights as f32 (normalised integers divided out).
            const stored = Math.fround(weights.getComponent(v, k));
            const weight = s === 0 && scale0 !== 1 ? Math.fround(stored * scale0) : stored;
            if (!Number.isFinite(weight) || weight < 0 || weight < MIN_WEIGHT) continue;
            const existing = wide.find((e) => e.joint === joint);
            if (existing) existing.weight += weight;
            else wide.push({ joint, weight });
        }
    }
    let sum = wide.reduce((s, e) => s + e.weight, 0);
    if (!(Number.isFinite(sum) && sum > MIN_WEIGHT)) return [];
    const kept = wide.filter((e) => e.weight / sum >= MIN_WEIGHT);
    if (kept.length !== wide.length) sum = kept.reduce((s, e) => s + e.weight, 0);
    const row = kept.map((e) => ({ joint: e.joint, weight: Math.fround(e.weight / sum) }));
    row.sort((a, b) => b.weight - a.weight || a.joint - b.joint);
    return row;
}

/**
 * `slots` (4 or 8) influences per vertex for the exported shader, as dqview's renderer packs
 * them (src/render/geometry_pack.rs `push_influences`): the heaviest `slots` of each vertex,
 * rescaled by 1 / their f32 sum, in `slots / 4` sets of four: `joints[s]` (Uint16Array) and
 * `weights[s]` (Float32Array), 4 a vertex, heaviest first, zero weights padding. Vertices
 * without weight get all zeros (bind pose); `truncated` counts the vertices with more than
 * `slots` influences (their lightest dropped).
 */
export function dqviewInfluences(geometry, slots = 8) {
    if (slots !== 4 && slots !== 8) throw new Error(`influences: 4 or 8 slots, not ${slots}`);
    const influenceSets = influenceSetsOf(geometry);
    const count = geometry.attributes.position.count;
    const sets = slots / 4;
    const joints = Array.from({ length: sets }, () => new Uint16Array(4 * count));
    const weights = Array.from({ length: sets }, () => new Float32Array(4 * count));
    let truncated = 0;
    for (let v = 0; v < count; v++) {
        const row = sortedRow(influenceSets, v);
        if (row.length > slots) truncated++;
        const kept = row.slice(0, slots);
        let sum = 0;
        for (const e of kept) sum = Math.fround(sum + e.weight);
        const scale = sum > 0 ? Math.fround(1 / sum) : 0;
        kept.forEach((e, k) => {
            joints[k >> 2][4 * v + (k & 3)] = e.joint;
            weights[k >> 2][4 * v + (k & 3)] = Math.fround(e.weight * scale);
        });
    }
    return { joints, weights, truncated };
}
