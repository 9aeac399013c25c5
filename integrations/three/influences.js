// Per-vertex influences in dqview's load-time convention, ported from src/influences.rs
// (`Influences::from_rows`): weights negative, NaN, infinite or below 1e-7 dropped, duplicate
// joints merged, the rest renormalised (summed in double precision) and sorted heaviest first,
// ties by joint index. Influence 0 is then the DQS pivot.

/** influences.rs MIN_WEIGHT (an f32). */
const MIN_WEIGHT = Math.fround(1e-7);

/** The JOINTS_n/WEIGHTS_n sets GLTFLoader left on `geometry`: skinIndex/skinWeight, then joints_1/weights_1, ... */
function influenceSets(geometry) {
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

/** One vertex's influences as from_rows makes them: [{joint, weight}], heaviest first, summing to 1. */
function sortedRow(sets, v) {
    const wide = [];
    for (const [joints, weights] of sets) {
        for (let k = 0; k < 4; k++) {
            const joint = joints.getComponent(v, k);
            // The loader reads weights as f32 (normalised integers divided out).
            const weight = Math.fround(weights.getComponent(v, k));
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
 * Four influences per vertex for the exported shader: `joints` (Uint16Array) and `weights`
 * (Float32Array), 4 a vertex, heaviest first; vertices without weight get all zeros (bind
 * pose). A vertex with more than four keeps its heaviest four, renormalised, and is counted
 * in `truncated` (dqview's own renderer blends up to eight).
 */
export function dqviewInfluences(geometry) {
    const sets = influenceSets(geometry);
    const count = geometry.attributes.position.count;
    const joints = new Uint16Array(4 * count);
    const weights = new Float32Array(4 * count);
    let truncated = 0;
    for (let v = 0; v < count; v++) {
        let row = sortedRow(sets, v);
        if (row.length > 4) {
            truncated++;
            row = row.slice(0, 4);
            const sum = row.reduce((s, e) => s + e.weight, 0);
            row = row.map((e) => ({ joint: e.joint, weight: Math.fround(e.weight / sum) }));
        }
        row.forEach((e, k) => {
            joints[4 * v + k] = e.joint;
            weights[4 * v + k] = e.weight;
        });
    }
    return { joints, weights, truncated };
}
