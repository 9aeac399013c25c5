// Unit tests of posing with dqview's joint angle flags (pose.js `--twist`, `--bend`) on glTF
// made here, in node without a browser; they need `npm ci` (three.js):
// `node --test integrations/three/test/pose.test.mjs`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { modelLoader } from "../load.js";
import { boneFrame, poseGltf } from "../pose.js";

const closeTo = (actual, expected, what) =>
    assert.ok(
        actual.every((v, i) => Math.abs(v - expected[i]) < 1e-9),
        `${what}: ${actual.join(", ")}, expected ${expected.join(", ")}`,
    );

/** [x, y, z, w] of a turn by `deg` about the unit `axis`, written out (not three's). */
function axisAngle([x, y, z], deg) {
    const half = (deg * Math.PI) / 360;
    const s = Math.sin(half);
    return [x * s, y * s, z * s, Math.cos(half)];
}

/** The Hamilton product a * b of [x, y, z, w] quaternions (a after b). */
function mul([ax, ay, az, aw], [bx, by, bz, bw]) {
    return [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ];
}

/** The frame of node 0 of a glTF whose node 0 has children at `translations` (a skin lists `joints`). */
function frameOf(translations, joints = []) {
    const json = {
        nodes: [
            { name: "Bone", children: translations.map((_, i) => i + 1) },
            ...translations.map((translation, i) => ({ name: `Child${i}`, translation })),
        ],
        skins: joints.length > 0 ? [{ joints }] : [],
    };
    const { twist, bend } = boneFrame(json, 0);
    return { twist: twist.toArray(), bend: bend.toArray() };
}

test("the twist axis runs to the first child joint, else the first child, else +Y", () => {
    closeTo(frameOf([[2, 0, 0]]).twist, [1, 0, 0], "one child");
    closeTo(frameOf([]).twist, [0, 1, 0], "no child");
    closeTo(frameOf([[0, 0, 0]]).twist, [0, 1, 0], "a child at the joint");
    // Child0 is not a joint, Child1 (node 2) is: the bone runs to Child1.
    const two = [
        [2, 0, 0],
        [0, 0, -3],
    ];
    closeTo(frameOf(two, [0, 2]).twist, [0, 0, -1], "first child joint");
    closeTo(frameOf(two).twist, [1, 0, 0], "no joints: the first child");
});

test("the bend axis is the part of +Z across the bone, for a bone along Z that of +X", () => {
    closeTo(frameOf([[2, 0, 0]]).bend, [0, 0, 1], "bone along X");
    closeTo(frameOf([]).bend, [0, 0, 1], "bone along Y");
    closeTo(frameOf([[0, 0, -3]]).bend, [1, 0, 0], "bone along -Z");
    closeTo(frameOf([[0, 0, 0.5]]).bend, [1, 0, 0], "bone along +Z");
    const r = Math.SQRT1_2;
    closeTo(frameOf([[0, 1, 1]]).twist, [0, r, r], "slanted bone");
    closeTo(frameOf([[0, 1, 1]]).bend, [0, -r, r], "slanted bone's bend");
});

/** Arm (a rest rotation, its bone towards Hand along (0, 1, 1)) holding Hand. */
const ARM_REST = axisAngle([1, 0, 0], 20);
const ARM = {
    asset: { version: "2.0" },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [
        { name: "Arm", rotation: ARM_REST, children: [1] },
        { name: "Hand", translation: [0, 1, 1] },
    ],
};

async function loadArm() {
    const loader = await modelLoader();
    return loader.parseAsync(JSON.stringify(ARM), "");
}

test("rotation <- rotation * bend * twist, degrees summed per joint and kind", async () => {
    const gltf = await loadArm();
    poseGltf(gltf, { twists: ["Arm=50", "Arm=10"], bends: ["Arm=25", "arm = 15"] });
    const r = Math.SQRT1_2;
    const expected = mul(ARM_REST, mul(axisAngle([0, -r, r], 40), axisAngle([0, r, r], 60)));
    closeTo(gltf.scene.getObjectByName("Arm").quaternion.toArray(), expected, "Arm");
    // Not twist then bend: the two do not commute here.
    const swapped = mul(ARM_REST, mul(axisAngle([0, r, r], 60), axisAngle([0, -r, r], 40)));
    assert.ok(Math.abs(swapped[0] - expected[0]) > 1e-3, "the case tells the orders apart");
    closeTo(gltf.scene.getObjectByName("Hand").quaternion.toArray(), [0, 0, 0, 1], "Hand");
});

test("a bend alone turns about the bend axis; zero sums leave the joint as it was", async () => {
    const gltf = await loadArm();
    poseGltf(gltf, { bends: ["Arm=90"], twists: ["Hand=30", "Hand=-30"] });
    const r = Math.SQRT1_2;
    closeTo(gltf.scene.getObjectByName("Arm").quaternion.toArray(), mul(ARM_REST, axisAngle([0, -r, r], 90)), "Arm");
    closeTo(gltf.scene.getObjectByName("Hand").quaternion.toArray(), [0, 0, 0, 1], "Hand");
});

test("--bend errors read as dqview's", async () => {
    const gltf = await loadArm();
    assert.throws(() => poseGltf(gltf, { bends: ["Arm"] }), { message: "--bend: expected JOINT=DEG, got `Arm`" });
    assert.throws(() => poseGltf(gltf, { bends: ["Arm=far"] }), {
        message: "--bend: `far` in `Arm=far` is not a finite number of degrees",
    });
    assert.throws(() => poseGltf(gltf, { bends: ["Elbow=10"] }), /^Error: --bend: unknown /);
    assert.throws(() => poseGltf(gltf, { twists: ["Arm=x"] }), /^Error: --twist: /);
});
