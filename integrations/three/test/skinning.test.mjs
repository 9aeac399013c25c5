// Unit tests of what the module feeds the exported shader, no browser or three.js needed:
// `node --test integrations/three/test/skinning.test.mjs`. The checked-in shaders bind by the
// stable block names and read eight influences; influences are packed eight a vertex as
// dqview's renderer packs them; morph targets move the bind pose as dqview's renderer does.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { dqviewInfluences } from "../influences.js";
import { BindPoseMorph, morphBindPose } from "../morph.js";
import { BLOCKS, LOCATIONS, parseShaderInterface } from "../shader-interface.js";

const shader = (method) => readFileSync(new URL(`../shaders/dqview_${method}.vert.glsl`, import.meta.url), "utf8");

test("the checked-in shaders declare the stable block names and eight influences", () => {
    const expected = {
        lbs: [BLOCKS.params, BLOCKS.matrices],
        dqs: [BLOCKS.params, BLOCKS.dualQuats, BLOCKS.scaleShears],
        hybrid: [BLOCKS.params, BLOCKS.dualQuats, BLOCKS.matrices, BLOCKS.scaleShears],
    };
    for (const [method, blocks] of Object.entries(expected)) {
        const text = shader(method);
        const iface = parseShaderInterface(text);
        assert.deepEqual(Object.keys(iface.blocks).sort(), [...blocks].sort(), method);
        for (const name of blocks.slice(1)) assert.equal(iface.blocks[name].length, 256, `${method} ${name}`);
        assert.equal(iface.influences, 8, method);
        assert.equal(iface.inputs[LOCATIONS.joints1].type, "uvec4", method);
        assert.equal(iface.inputs[LOCATIONS.weights1].type, "vec4", method);
        assert.equal(iface.inputs[LOCATIONS.blend] !== undefined, method === "hybrid", method);
        // None of naga's per-method names is left to bind by.
        assert.doesNotMatch(text, /type_\d+_block|_group_\d+_binding_/, method);
    }
});

test("a shader written with four influences reads four", () => {
    const four = shader("dqs")
        .split("\n")
        .filter((l) => !/layout\(location = [56]\) in/.test(l))
        .join("\n");
    assert.equal(parseShaderInterface(four).influences, 4);
    assert.throws(() => parseShaderInterface("#version 300 es\nvoid main() {}"), /no dqview_params block/);
});

/** A stand-in for a three BufferAttribute of itemSize 4. */
const attribute = (rows) => ({ count: rows.length, getComponent: (v, k) => rows[v][k] });
const close = (a, b, eps) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) <= eps);

test("eight influences are kept, heaviest first, and GLTFLoader's WEIGHTS_0 normalisation undone", () => {
    // Vertex 0: ten influences in three sets; GLTFLoader scaled set 0 (sum 0.32) to sum 1.
    // Vertex 1: five influences in the file's proportions 4:3:1:1 and 1.
    const file = [
        [0.13, 0.12, 0.04, 0.03],
        [0.4, 0.3, 0.1, 0.1],
    ];
    const normalised = file.map((w) => w.map((x) => x / w.reduce((s, y) => s + y, 0)));
    const geometry = {
        attributes: {
            position: { count: 2 },
            skinIndex: attribute([
                [0, 1, 2, 3],
                [4, 5, 6, 7],
            ]),
            skinWeight: attribute(normalised),
            joints_1: attribute([
                [4, 5, 6, 7],
                [8, 0, 0, 0],
            ]),
            weights_1: attribute([
                [0.11, 0.1, 0.09, 0.08],
                [0.1, 0, 0, 0],
            ]),
            joints_2: attribute([
                [8, 9, 0, 0],
                [0, 0, 0, 0],
            ]),
            weights_2: attribute([
                [0.05, 0.25, 0, 0],
                [0, 0, 0, 0],
            ]),
        },
    };
    const { joints, weights, truncated } = dqviewInfluences(geometry, 8);
    assert.equal(truncated, 1);
    // Vertex 0: the heaviest eight (joints 2 and 3 dropped), rescaled to sum 1.
    assert.deepEqual([...joints[0].slice(0, 4)], [9, 0, 1, 4]);
    assert.deepEqual([...joints[1].slice(0, 4)], [5, 6, 7, 8]);
    const w0 = [...weights[0].slice(0, 4), ...weights[1].slice(0, 4)];
    const kept = [0.25, 0.13, 0.12, 0.11, 0.1, 0.09, 0.08, 0.05];
    assert.ok(close(w0, kept.map((w) => w / 0.93), 1e-6), `${w0}`);
    // Vertex 1: the file's proportions, not GLTFLoader's.
    assert.deepEqual([...joints[0].slice(4, 8)], [4, 5, 6, 7]);
    assert.deepEqual([...joints[1].slice(4, 8)], [8, 0, 0, 0]);
    const w1 = [...weights[0].slice(4, 8), ...weights[1].slice(4, 8)];
    assert.ok(close(w1, [0.4, 0.3, 0.1, 0.1, 0.1, 0, 0, 0], 1e-6), `${w1}`);
    // Four slots: the heaviest four, rescaled.
    const four = dqviewInfluences(geometry, 4);
    assert.equal(four.joints.length, 1);
    assert.ok(close([...four.weights[0].slice(4, 8)], [4 / 9, 3 / 9, 1 / 9, 1 / 9], 1e-6));
});

test("morph targets add weighted deltas in order, skip zero and non-finite weights, renormalise normals", () => {
    const base = { position: new Float32Array([0, 0, 0, 1, 2, 3]), normal: new Float32Array([0, 1, 0, 1, 0, 0]) };
    const targets = [
        { position: new Float32Array([1, 0, 0, 0, 0, 1]), normal: new Float32Array([1, 0, 0, -1, 0, 0]) },
        { position: new Float32Array([0, 5, 0, 0, 0, 0]), normal: null },
        { position: new Float32Array([0, 0, 7, 0, 0, 0]), normal: null },
    ];
    const out = { position: new Float32Array(6), normal: new Float32Array(6) };
    assert.equal(morphBindPose(base, targets, [0.5, 0, Number.NaN], out), true);
    assert.deepEqual([...out.position], [0.5, 0, 0, 1, 2, 3.5]);
    // (0.5, 1, 0) normalised; the second normal morphs to zero length and keeps its bind value.
    const n = Math.hypot(0.5, 1);
    assert.ok(close([...out.normal.slice(0, 3)], [0.5 / n, 1 / n, 0], 1e-7));
    assert.deepEqual([...out.normal.slice(3)], [1, 0, 0]);
    // No weight: the bind pose, normals untouched.
    assert.equal(morphBindPose(base, targets, [0, undefined], out), false);
    assert.deepEqual([...out.position], [...base.position]);
});

/** A stand-in for a three BufferAttribute of itemSize 3. */
const xyzAttribute = (values) => ({
    count: values.length / 3,
    getX: (v) => values[3 * v],
    getY: (v) => values[3 * v + 1],
    getZ: (v) => values[3 * v + 2],
});

test("BindPoseMorph reads relative and absolute targets and recomputes only when the weights change", () => {
    for (const relative of [true, false]) {
        const position = [0, 0, 0, 0, 1, 0];
        const delta = [0, 0, 2, 1, 0, 0];
        const target = relative ? delta : position.map((p, i) => p + delta[i]);
        const geometry = {
            attributes: { position: xyzAttribute(position), normal: xyzAttribute([0, 0, 1, 0, 0, 1]) },
            morphAttributes: { position: [xyzAttribute(target)] },
            morphTargetsRelative: relative,
        };
        assert.ok(BindPoseMorph.applies(geometry));
        const morph = new BindPoseMorph(geometry);
        assert.equal(morph.update([0.25]), true);
        assert.deepEqual([...morph.position], [0, 0, 0.5, 0.25, 1, 0]);
        assert.equal(morph.update([0.25]), false);
        assert.equal(morph.update([0]), true);
        assert.deepEqual([...morph.position], position);
    }
    assert.equal(BindPoseMorph.applies({ morphAttributes: {} }), false);
});
