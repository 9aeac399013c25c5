// Unit tests of the node-material path (node-skinning.js) without a browser: `node --test
// integrations/three/test/node-skinning.test.mjs` (needs `npm ci`: three's node classes and
// TSL). What is checked here is how the path hooks into three, not the skinning math (the
// browser cases in tests/three_webgpu.rs compare its masks with dqview's): the attributes it
// adds, the wrapped setupPosition that puts dqview's skinning where three's would go, the
// shadow position nodes, the program cache key per method, and dispose.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Bone, BufferAttribute, CylinderGeometry, IntType, MeshStandardMaterial, Skeleton, SkinnedMesh } from "three";
import { MeshStandardNodeMaterial } from "three/webgpu";
import { setCurrentStack, stack } from "three/tsl";

import { ATTRIBUTES } from "../material-patch.js";
import { SKINNING_METHODS, addInfluences, checkBeta, checkMethod } from "../skinning-shared.js";
import { applyDqviewNodeSkinning } from "../node-skinning.js";
import { applyDqviewSkinning } from "../skinning.js";

/** A cylinder on two joints (weights shared along its height), in `material`. */
function twoJointMesh(material) {
    const geometry = new CylinderGeometry(0.1, 0.1, 2, 8, 4);
    const count = geometry.attributes.position.count;
    const index = new Uint16Array(4 * count);
    const weight = new Float32Array(4 * count);
    for (let v = 0; v < count; v++) {
        const t = (geometry.attributes.position.getY(v) + 1) / 2;
        index.set([0, 1, 0, 0], 4 * v);
        weight.set([1 - t, t, 0, 0], 4 * v);
    }
    geometry.setAttribute("skinIndex", new BufferAttribute(index, 4));
    geometry.setAttribute("skinWeight", new BufferAttribute(weight, 4));
    const root = new Bone();
    const tip = new Bone();
    tip.position.y = 1;
    root.add(tip);
    const mesh = new SkinnedMesh(geometry, material);
    mesh.add(root);
    mesh.bind(new Skeleton([root, tip]));
    return mesh;
}

/** A node material whose setupPosition, as NodeMaterial's, asks `isSkinnedMesh` once; records the answers. */
class AskingMaterial extends MeshStandardNodeMaterial {
    setupPosition(builder) {
        this.answers ??= [];
        this.answers.push(builder.object.isSkinnedMesh === true);
        return null;
    }
}

test("the methods and beta are checked as applyDqviewSkinning checks them", () => {
    assert.deepEqual(SKINNING_METHODS, ["lbs", "dqs", "hybrid", "cor", "stock"]);
    assert.throws(() => checkMethod("DQS"), /unknown method `DQS` \(valid: lbs, dqs, hybrid, cor, stock\)/);
    assert.throws(() => checkBeta(1.5), /beta must be a number from 0/);
    const mesh = twoJointMesh(new MeshStandardNodeMaterial());
    assert.throws(() => applyDqviewNodeSkinning(mesh, { method: "ddm" }), /unknown method/);
    assert.throws(() => applyDqviewNodeSkinning(mesh, { method: "cor" }), /no _COR_CENTER attribute: write it with `dqview cor/);
    assert.equal(mesh.material.setupPosition, MeshStandardNodeMaterial.prototype.setupPosition, "nothing changed");
});

test("the influences go in under the WebGL path's attribute names, joints as integers", () => {
    const mesh = twoJointMesh(new MeshStandardNodeMaterial());
    const { slots, hasMap } = addInfluences(mesh.geometry);
    assert.equal(slots, 4);
    assert.equal(hasMap, false);
    for (const name of ["joints0", "joints1", "weights0", "weights1", "blend"]) {
        assert.ok(mesh.geometry.attributes[ATTRIBUTES[name]], name);
    }
    assert.equal(mesh.geometry.attributes[ATTRIBUTES.joints0].gpuType, IntType);
    // Heaviest first: the top vertex (y = 1) is all joint 1.
    const joints = mesh.geometry.attributes[ATTRIBUTES.joints0];
    const weights = mesh.geometry.attributes[ATTRIBUTES.weights0];
    assert.equal(joints.getX(0), 1);
    assert.equal(weights.getX(0), 1);
});

test("setupPosition answers isSkinnedMesh false once, building dqview's skinning there", () => {
    const material = new AskingMaterial();
    const mesh = twoJointMesh(material);
    const skinning = applyDqviewNodeSkinning(mesh, { method: "dqs" });
    assert.ok(Object.keys(material).includes("setupPosition"), "an own enumerable property, copied by fromMaterial");
    const built = stack();
    setCurrentStack(built);
    try {
        material.setupPosition({ object: mesh });
        assert.deepEqual(material.answers, [false], "three's skinning skipped");
        assert.equal(built.nodes.length, 1, "dqview's skinning on the stack in its place");
        assert.equal(mesh.isSkinnedMesh, true, "the mesh is a SkinnedMesh again after the build");
        skinning.setMethod("stock");
        material.setupPosition({ object: mesh });
        assert.deepEqual(material.answers, [false, true], "stock: three's own skinning");
        // An object the skinning does not know (a mesh sharing the material) is left to three.
        skinning.setMethod("lbs");
        material.setupPosition({ object: twoJointMesh(material) });
        assert.deepEqual(material.answers, [false, true, true]);
    } finally {
        setCurrentStack(null);
    }
    skinning.dispose();
});

test("the method is in the program cache key and picks the shadow position node", () => {
    for (const material of [new MeshStandardNodeMaterial(), new MeshStandardMaterial()]) {
        const mesh = twoJointMesh(material);
        const skinning = applyDqviewNodeSkinning(mesh, { method: "lbs" });
        const keys = new Set();
        const shadows = new Set();
        for (const method of ["lbs", "dqs", "hybrid"]) {
            const version = material.version;
            skinning.setMethod(method);
            assert.ok(method === "lbs" || material.version > version, `${material.type} ${method}: rebuilt`);
            assert.match(material.customProgramCacheKey(), new RegExp(`\\|dqview-${method}$`));
            keys.add(material.customProgramCacheKey());
            assert.ok(material.castShadowPositionNode?.isNode, `${material.type} ${method}: a shadow position`);
            shadows.add(material.castShadowPositionNode);
        }
        assert.equal(keys.size, 3);
        assert.equal(shadows.size, 3, "one shadow node a method: three keys shadow programs by it");
        skinning.setMethod("stock");
        assert.equal(material.castShadowPositionNode ?? null, null, "stock: three's own shadow");
        skinning.dispose();
    }
});

test("dispose gives the material and mesh back as they were", () => {
    const material = new MeshStandardNodeMaterial();
    const own = material.positionNode;
    const mesh = twoJointMesh(material);
    const before = Object.keys(material).sort();
    const skinning = applyDqviewNodeSkinning(mesh, { method: "hybrid", beta: 0.25 });
    assert.equal(mesh.geometry.attributes[ATTRIBUTES.blend].getX(0), 0.25, "beta in the blend attribute");
    skinning.setBeta(0.75);
    assert.equal(mesh.geometry.attributes[ATTRIBUTES.blend].getX(0), 0.75);
    assert.ok(mesh.boundingSphere.radius > 0, "pose-following bounds");
    assert.throws(() => applyDqviewNodeSkinning(mesh), /skinned by dqview already/);
    assert.throws(() => applyDqviewSkinning(mesh), /skinned by dqview already/);
    skinning.dispose();
    assert.deepEqual(Object.keys(material).sort(), before);
    assert.equal(material.setupPosition, MeshStandardNodeMaterial.prototype.setupPosition);
    assert.equal(material.positionNode, own);
    assert.equal(material.castShadowPositionNode, null);
    assert.equal(mesh.boundingSphere, null, "three's own bounds, computed again on demand");
    assert.equal(material.userData.dqviewSkinning, undefined);
});
