// Unit tests of the package's material path without a browser: `node --test
// integrations/three/test/material-patch.test.mjs`. The patch rewrites every three.js shader
// that skins (the built-in materials, depth, distance and shadow) and refuses what it cannot;
// the pose-following bounds hold every vertex LBS and DQS put anywhere.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
    Bone,
    BufferAttribute,
    CylinderGeometry,
    Euler,
    Matrix4,
    MeshStandardMaterial,
    Quaternion,
    ShaderChunk,
    ShaderLib,
    Skeleton,
    SkinnedMesh,
    Vector3,
} from "three";

import { JointBounds } from "../bounds.js";
import { dqviewInfluences } from "../influences.js";
import { PATCH_METHODS, patchVertexShader } from "../material-patch.js";
import { splitMatrix, dualQuatOf } from "../palette.js";
import { applyDqviewSkinning } from "../skinning.js";

const SKINNING = /#include <(skinning_pars_vertex|skinbase_vertex|skinnormal_vertex|skinning_vertex)>/;

test("every three.js shader that skins is patched, reading the normal it has", () => {
    const skinning = Object.entries(ShaderLib).filter(([, s]) => s.vertexShader.includes("#include <skinning_vertex>"));
    const names = skinning.map(([n]) => n).sort();
    for (const kind of ["basic", "lambert", "phong", "standard", "physical", "toon", "depth", "distance"]) {
        assert.ok(names.includes(kind), `${kind} skins`);
    }
    for (const [name, { vertexShader }] of skinning) {
        for (const method of PATCH_METHODS) {
            const patched = patchVertexShader(vertexShader, method, ShaderChunk.morphtarget_vertex, 8);
            assert.doesNotMatch(patched, SKINNING, `${name} ${method}: three's skinning left`);
            assert.equal(patched.split("dqview_Skinned dqviewSkinned = dqview_skin_three(").length, 2, `${name} ${method}`);
            assert.match(patched, /uniform highp sampler2D boneTexture;/, name);
            // The depth and distance shaders read normals only after skinning, if at all.
            const normal = ["depth", "distance"].includes(name) ? "normal" : "objectNormal";
            assert.match(patched, new RegExp(`normalize\\( mat3\\( bindMatrix \\) \\* ${normal} \\)`), `${name}`);
            // three's morph of the skinned position is skipped: the bind pose was morphed first.
            assert.match(patched, /#ifndef USE_SKINNING\n#include <morphtarget_vertex>\n#endif/, name);
            assert.match(patched, /dqviewBindPosition \*= morphTargetBaseInfluence;/, name);
            assert.match(patched, /const uint dqview_MAX_INFLUENCES = 8u;/, name);
            const four = patchVertexShader(vertexShader, method, ShaderChunk.morphtarget_vertex, 4);
            assert.match(four, /const uint dqview_MAX_INFLUENCES = 4u;/, name);
        }
    }
});

test("the patch refuses an unknown method and a shader without three's skinning", () => {
    const { vertexShader } = ShaderLib.standard;
    assert.throws(() => patchVertexShader(vertexShader, "ddm", ""), /unknown method `ddm`/);
    assert.throws(
        () => patchVertexShader("void main() { gl_Position = vec4(0.0); }", "dqs", ""),
        /has no #include <skinning_pars_vertex>/,
    );
});

/** A tube on two bones along +Y, every vertex weighted by its height. */
function tube() {
    const geometry = new CylinderGeometry(0.2, 0.2, 2, 16, 20, true).translate(0, 1, 0);
    const count = geometry.attributes.position.count;
    const joints = new Uint16Array(4 * count);
    const weights = new Float32Array(4 * count);
    for (let v = 0; v < count; v++) {
        const t = Math.min(Math.max((geometry.attributes.position.getY(v) - 0.6) / 0.8, 0), 1);
        joints.set([0, 1, 0, 0], 4 * v);
        weights.set([1 - t, t, 0, 0], 4 * v);
    }
    geometry.setAttribute("skinIndex", new BufferAttribute(joints, 4));
    geometry.setAttribute("skinWeight", new BufferAttribute(weights, 4));
    const root = new Bone();
    const tip = new Bone();
    tip.position.set(0, 1, 0);
    root.add(tip);
    const mesh = new SkinnedMesh(geometry, new MeshStandardMaterial());
    mesh.add(root);
    mesh.bind(new Skeleton([root, tip]));
    return { mesh, root, tip };
}

/** DQS of bind position `p` with two joints' skinning matrices and weights (sign by the first). */
function dqs(p, [m0, m1], [w0, w1]) {
    const [a, b] = [m0, m1].map((m) => {
        const s = splitMatrix(m.elements);
        return dualQuatOf(s.rotation, s.translation);
    });
    const sign = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1 : 1;
    const q = a.map((x, i) => w0 * x + sign * w1 * b[i]);
    const len = Math.hypot(q[0], q[1], q[2], q[3]);
    const real = new Quaternion(q[0] / len, q[1] / len, q[2] / len, q[3] / len);
    // t = 2 dual * conj(real)
    const d = new Quaternion(q[4] / len, q[5] / len, q[6] / len, q[7] / len);
    const t = d.multiply(real.clone().conjugate());
    return p.clone().applyQuaternion(real).add(new Vector3(2 * t.x, 2 * t.y, 2 * t.z));
}

test("the bounds hold every LBS and DQS vertex as the bones turn and move", () => {
    const { mesh, root, tip } = tube();
    const geometry = mesh.geometry;
    const influences = dqviewInfluences(geometry, 8);
    const positions = new Float32Array(geometry.attributes.position.array);
    const bounds = new JointBounds(mesh.skeleton, positions, influences, 0);
    let worstLbs = -Infinity;
    let worstDqs = -Infinity;
    // three's own SkinnedMesh keeps the sphere of the pose it first saw: the case to beat.
    mesh.updateMatrixWorld(true);
    const frozen = bounds.update(true).clone();
    let worstFrozen = -Infinity;
    for (let pose = 0; pose < 40; pose++) {
        const angle = (pose / 40) * 2 * Math.PI;
        tip.quaternion.setFromEuler(new Euler(angle, 1.7 * angle, 0.4 * angle));
        root.position.set(Math.sin(angle), 0.5 * pose, 0);
        root.quaternion.setFromEuler(new Euler(0.3 * angle, 0, angle));
        mesh.updateMatrixWorld(true);
        mesh.skeleton.update();
        const lbsSphere = bounds.update(false).clone();
        const dqsSphere = bounds.update(true).clone();
        const matrices = [0, 1].map((j) => new Matrix4().fromArray(mesh.skeleton.boneMatrices, 16 * j));
        for (let v = 0; v < geometry.attributes.position.count; v++) {
            const p = new Vector3().fromBufferAttribute(geometry.attributes.position, v);
            const lbs = mesh.applyBoneTransform(v, p.clone());
            const w = [geometry.attributes.skinWeight.getX(v), geometry.attributes.skinWeight.getY(v)];
            worstLbs = Math.max(worstLbs, lbs.distanceTo(lbsSphere.center) - lbsSphere.radius);
            worstDqs = Math.max(worstDqs, dqs(p, matrices, w).distanceTo(dqsSphere.center) - dqsSphere.radius);
            worstFrozen = Math.max(worstFrozen, lbs.distanceTo(frozen.center) - frozen.radius);
        }
    }
    assert.ok(worstLbs <= 1e-5, `an LBS vertex ${worstLbs} outside the sphere`);
    assert.ok(worstDqs <= 1e-5, `a DQS vertex ${worstDqs} outside the sphere`);
    assert.ok(worstFrozen > 1, `the first pose's sphere missed by only ${worstFrozen}`);
    // Not a sphere around everything: the bones moved 20 units, the tube is 2 long.
    assert.ok(bounds.update(true).radius < 4, `radius ${bounds.update(true).radius}`);
});

test("applyDqviewSkinning checks its options and gives three's skinning back", () => {
    const { mesh } = tube();
    const material = mesh.material;
    assert.throws(() => applyDqviewSkinning(mesh, { method: "ddm" }), /unknown method `ddm` \(valid: lbs, dqs, hybrid, cor, stock\)/);
    assert.throws(() => applyDqviewSkinning(mesh, { beta: 2 }), /beta must be a number from 0/);
    const skinning = applyDqviewSkinning(mesh, { method: "lbs" });
    assert.equal(mesh.material, material, "the app's material is kept");
    assert.equal(skinning.meshes.length, 1);
    // Two influences a vertex at most: the four-influence chunk.
    assert.match(material.customProgramCacheKey(), /dqview-lbs-4$/);
    skinning.setMethod("dqs");
    assert.match(material.customProgramCacheKey(), /dqview-dqs-4$/);
    const update = mesh.skeleton.update;
    assert.throws(() => applyDqviewSkinning(mesh), /skinned by dqview already/);
    assert.equal(mesh.skeleton.update, update, "a refused call changes nothing");
    assert.equal(mesh.skeleton.boneTexture.image.width, 9, "the palette is the bone texture");
    assert.throws(() => skinning.setMethod("ddm"), /unknown method/);
    skinning.dispose();
    assert.doesNotMatch(material.customProgramCacheKey(), /dqview/);
    assert.equal(mesh.boundingSphere, null);
});

test("CoR reads _COR_CENTER, and a mesh without it is refused naming `dqview cor`", () => {
    const { mesh } = tube();
    mesh.name = "Tube";
    const material = mesh.material;
    assert.throws(() => applyDqviewSkinning(mesh, { method: "cor" }), /"Tube" has no _COR_CENTER attribute: write it with `dqview cor MODEL/);
    assert.doesNotMatch(material.customProgramCacheKey(), /dqview/, "a refused call changes nothing");
    const skinning = applyDqviewSkinning(mesh, { method: "dqs" });
    assert.throws(() => skinning.setMethod("cor"), /dqview cor/);
    assert.equal(skinning.method, "dqs", "a refused switch keeps the method");
    skinning.dispose();
    // With the centres (GLTFLoader's name for the glTF attribute), CoR binds them as the position.
    const count = mesh.geometry.attributes.position.count;
    mesh.geometry.setAttribute("_cor_center", new BufferAttribute(new Float32Array(3 * count).fill(0.5), 3));
    const cor = applyDqviewSkinning(mesh, { method: "cor" });
    assert.equal(mesh.geometry.attributes.dqviewCorCenter, mesh.geometry.attributes._cor_center);
    assert.match(material.customProgramCacheKey(), /dqview-cor-4$/);
    const shader = { vertexShader: ShaderLib.standard.vertexShader, fragmentShader: "" };
    material.onBeforeCompile(shader, null);
    assert.match(shader.vertexShader, /in vec3 dqviewCorCenter;/);
    assert.match(shader.vertexShader, /\( bindMatrix \* vec4\( dqviewCorCenter, 1\.0 \) \)\.xyz \);/);
    cor.dispose();
});
