// Names as dqview resolves them: a port of src/scene/names.rs (`resolve`, `nearest`,
// `edit_distance`, `joints`, `pose_node`), so `--clip` and `--twist` name the same things here.

const NAMESPACE_SEPARATORS = [":", "|", "/"];
const SUGGESTIONS = 3;

/** The index `typed` names among `entries` ({index, name}), as names.rs `resolve`; throws naming the nearest. */
export function resolveName(kind, entries, typed) {
    const wanted = typed.trim();
    const lower = wanted.toLowerCase();
    const tiers = [(n) => n === wanted, (n) => n.toLowerCase() === lower];
    for (const tier of tiers) {
        const found = pick(kind, entries, wanted, tier);
        if (found !== null) return found;
    }
    if (/^\d+$/.test(wanted) && entries.some((e) => e.index === Number(wanted))) {
        return Number(wanted);
    }
    const suffixTiers = [(n) => namespacedSuffix(n, wanted), (n) => namespacedSuffix(n.toLowerCase(), lower)];
    for (const tier of suffixTiers) {
        const found = pick(kind, entries, wanted, tier);
        if (found !== null) return found;
    }
    throw new Error(unknownMessage(kind, wanted, nearest(entries, wanted), entries.length));
}

/** The one entry whose name passes `test`, null when none does; throws when several do. */
function pick(kind, entries, typed, test) {
    const found = entries.filter((e) => e.name !== "" && test(e.name));
    if (found.length === 0) return null;
    if (found.length === 1) return found[0].index;
    const word = kind === "clip" ? "clip" : "node";
    const candidates = found.map((e) => `\`${e.name}\` (${word} ${e.index})`).join(", ");
    throw new Error(
        `${kind} \`${typed}\` is ambiguous: it matches ${candidates}; type more of the name, or the ${word} index`,
    );
}

/** Whether `name` is `typed` behind a namespace: `ns:typed`, `a|b:typed`, `rig/typed`. */
function namespacedSuffix(name, typed) {
    if (typed === "" || name.length <= typed.length || !name.endsWith(typed)) return false;
    const head = name.slice(0, name.length - typed.length);
    return NAMESPACE_SEPARATORS.some((s) => head.endsWith(s));
}

/** The text of names.rs `NameError::Unknown`. */
function unknownMessage(kind, typed, near, count) {
    if (count === 0) return `unknown ${kind} \`${typed}\`: the model has no ${kind}s`;
    if (near.length === 0) return `unknown ${kind} \`${typed}\`: the model's ${count} ${kind}s are unnamed`;
    const quoted = near.map((n) => `\`${n}\``);
    const options =
        quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
    const all = count === 1 ? `its 1 ${kind}` : `all ${count} ${kind}s`;
    return `unknown ${kind} \`${typed}\`; did you mean ${options}? (\`dqview inspect\` lists ${all})`;
}

/** Up to three distinct names nearest to `typed` (case-insensitive edit distance, whole or local part). */
function nearest(entries, typed) {
    const t = typed.trim().toLowerCase();
    const scored = [];
    entries.forEach((e, order) => {
        if (e.name === "" || scored.some((s) => s.name === e.name)) return;
        const lower = e.name.toLowerCase();
        const local = lower.split(/[:|/]/).pop();
        scored.push({ distance: Math.min(editDistance(t, lower), editDistance(t, local)), order, name: e.name });
    });
    scored.sort((a, b) => a.distance - b.distance || a.order - b.order);
    return scored.slice(0, SUGGESTIONS).map((s) => s.name);
}

/** Levenshtein distance between `a` and `b`, in characters. */
function editDistance(a, b) {
    const bs = [...b];
    const row = Array.from({ length: bs.length + 1 }, (_, i) => i);
    [...a].forEach((ca, i) => {
        let diagonal = row[0];
        row[0] = i + 1;
        bs.forEach((cb, j) => {
            const above = row[j + 1];
            row[j + 1] = Math.min(above + 1, row[j] + 1, diagonal + (ca !== cb ? 1 : 0));
            diagonal = above;
        });
    });
    return row[bs.length];
}

/** Every joint of every skin of glTF `json`, in skin order without repeats, as {index, name}. */
export function jointEntries(json) {
    const out = [];
    for (const skin of json.skins ?? []) {
        for (const j of skin.joints) {
            if (!out.some((e) => e.index === j)) out.push({ index: j, name: json.nodes[j]?.name ?? "" });
        }
    }
    return out;
}

/** The node a joint angle turns (names.rs `pose_node`): a joint, else any node; errors suggest joints. */
export function resolvePoseNode(json, typed) {
    try {
        return resolveName("joint", jointEntries(json), typed);
    } catch (jointError) {
        if (jointError.message.includes("is ambiguous")) throw jointError;
        const nodes = (json.nodes ?? []).map((n, index) => ({ index, name: n.name ?? "" }));
        try {
            return resolveName("node", nodes, typed);
        } catch {
            throw jointError;
        }
    }
}

/** The clip `typed` names (a clip name or index) among glTF `json`'s animations. */
export function resolveClip(json, typed) {
    const clips = (json.animations ?? []).map((a, index) => ({ index, name: a.name ?? "" }));
    return resolveName("clip", clips, typed);
}
