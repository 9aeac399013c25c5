// Unit tests of loading and posing with VRMC_node_constraint (load.js, pose.js) on a glTF made
// here, in node without a browser; they need `npm ci` (three.js and three-vrm's plugin):
// `node --test integrations/three/test/constraints.test.mjs`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Quaternion, Vector3 } from "three";

import { constraintManager, modelLoader } from "../load.js";
import { poseGltf } from "../pose.js";

/** A node's VRMC_node_constraint extension holding `constraint`. */
const constrained = (constraint) => ({ VRMC_node_constraint: { specVersion: "1.0", constraint } });

/**
 * Root (twist axis +X: towards Source) holds Source (twist axis +Y: towards Tip) and Roll,
 * which takes Source's roll about Y; Aimer, beside Root, points its +X at Tip.
 */
const MODEL = {
    asset: { version: "2.0" },
    extensionsUsed: ["VRMC_node_constraint"],
    scene: 0,
    scenes: [{ nodes: [0, 4] }],
    nodes: [
        { name: "Root", children: [1, 2] },
        { name: "Source", translation: [1, 0, 0], children: [3] },
        { name: "Roll", extensions: constrained({ roll: { source: 1, rollAxis: "Y", weight: 1 } }) },
        { name: "Tip", translation: [0, 1, 0] },
        { name: "Aimer", extensions: constrained({ aim: { source: 3, aimAxis: "PositiveX" } }) },
    ],
};

/** MODEL loaded by `modelLoader({constraints})`. */
async function load(constraints, model = MODEL) {
    const loader = await modelLoader({ constraints });
    return loader.parseAsync(JSON.stringify(model), "");
}

const node = (gltf, name) => gltf.scene.getObjectByName(name);
const closeTo = (actual, expected, what) =>
    assert.ok(
        actual.every((v, i) => Math.abs(v - expected[i]) < 1e-9),
        `${what}: ${actual.join(", ")}, expected ${expected.join(", ")}`,
    );
const axisAngle = (axis, deg) => new Quaternion().setFromAxisAngle(new Vector3(...axis), (deg * Math.PI) / 180);

test("with constraints the plugin leaves a manager holding the model's constraints", async () => {
    const gltf = await load(true);
    assert.equal(constraintManager(gltf).constraints.size, 2);
    const none = await load(true, {
        ...MODEL,
        extensionsUsed: [],
        nodes: MODEL.nodes.map(({ extensions, ...n }) => n),
    });
    assert.equal(constraintManager(none), null);
});

test("without constraints the extension is ignored: no manager, the pose untouched", async () => {
    const gltf = await load(false);
    assert.equal(constraintManager(gltf), null);
    poseGltf(gltf, { twists: ["Root=90", "Source=90"], constraints: constraintManager(gltf) });
    closeTo(node(gltf, "Source").quaternion.toArray(), axisAngle([0, 1, 0], 90).toArray(), "Source");
    closeTo(node(gltf, "Roll").quaternion.toArray(), [0, 0, 0, 1], "Roll");
    closeTo(node(gltf, "Aimer").quaternion.toArray(), [0, 0, 0, 1], "Aimer");
});

test("constraints are evaluated after the twists, then the world matrices updated", async () => {
    const gltf = await load(true);
    poseGltf(gltf, { twists: ["Root=90", "Source=90"], constraints: constraintManager(gltf) });
    // Roll follows Source's roll about Y; its world rotation has Root's twist too.
    closeTo(node(gltf, "Roll").quaternion.toArray(), axisAngle([0, 1, 0], 90).toArray(), "Roll");
    const rollWorld = new Quaternion().setFromRotationMatrix(node(gltf, "Roll").matrixWorld);
    closeTo(
        rollWorld.toArray(),
        axisAngle([1, 0, 0], 90)
            .multiply(axisAngle([0, 1, 0], 90))
            .toArray(),
        "Roll's world",
    );
    // Tip is at Root's twist of (1, 1, 0) about X: (1, 0, 1); Aimer's +X points there.
    const tip = new Vector3().setFromMatrixPosition(node(gltf, "Tip").matrixWorld);
    closeTo(tip.toArray(), [1, 0, 1], "Tip");
    const aimed = new Vector3(1, 0, 0).applyMatrix4(node(gltf, "Aimer").matrixWorld);
    closeTo(aimed.toArray(), [Math.SQRT1_2, 0, Math.SQRT1_2], "Aimer's +X");
});

test("a roll constraint keeps only the roll of its source, at its weight", async () => {
    const half = structuredClone(MODEL);
    half.nodes[2].extensions.VRMC_node_constraint.constraint.roll.weight = 0.5;
    const gltf = await load(true, half);
    // A 30 degree bend about Z after a 80 degree twist about Y: the roll is the twist.
    node(gltf, "Source")
        .quaternion.copy(axisAngle([0, 0, 1], 30))
        .multiply(axisAngle([0, 1, 0], 80));
    poseGltf(gltf, { constraints: constraintManager(gltf) });
    closeTo(node(gltf, "Roll").quaternion.toArray(), axisAngle([0, 1, 0], 40).toArray(), "Roll");
});
