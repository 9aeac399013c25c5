// dqview's comparison path for three.js (the pixel tests; apps use skinning.js): every
// SkinnedMesh under a root gets a RawShaderMaterial (WebGL2) built on the vertex shader `dqview shader --target glsl-es`
// writes, with the palette computed as dqview computes it (palette.js) and bound through
// UniformsGroups (skin-uniforms.js) by the blocks' stable names. Up to eight influences a
// vertex (JOINTS_0/1, WEIGHTS_0/1) and the mesh's morph targets, applied to the bind pose
// before skinning (morph.js), as dqview's renderer does. Skinned meshes are drawn with
// clip_from_model = projection * view: glTF skins ignore the mesh node's own transform, as
// dqview does.
import { BufferAttribute, DoubleSide, GLSL3, IntType, RawShaderMaterial, Vector3 } from "three";

import { MASK_FRAGMENT, SHADED_FRAGMENT } from "./fragment.js";
import { dqviewInfluences } from "./influences.js";
import { BindPoseMorph } from "./morph.js";
import { LOCATIONS, parseShaderInterface, withoutVersionLine } from "./shader-interface.js";
import { SkinUniforms } from "./skin-uniforms.js";
import { blendMapOf } from "./skinning.js";

/** The skinning methods, as `dqview shader --method` names them. */
export const METHODS = ["lbs", "dqs", "hybrid"];

/**
 * Fetches the checked-in shader of `method` from `baseUrl` (the folder holding `shaders/`):
 * `dqview shader --target glsl-es --method M --influences 8`.
 */
export async function loadDqviewShader(method, baseUrl = new URL(".", import.meta.url)) {
    if (!METHODS.includes(method)) throw new Error(`unknown method \`${method}\` (valid: ${METHODS.join(", ")})`);
    const url = new URL(`shaders/dqview_${method}.vert.glsl`, baseUrl);
    const response = await fetch(url);
    if (!response.ok) throw new Error(`cannot load ${url}: HTTP ${response.status}`);
    return response.text();
}

/**
 * Adds the shader's inputs to `geometry` under its attribute names: the bind pose (the morphed
 * one's arrays when `morph` is given), the influences (8 a vertex when the shader reads 8) and
 * the hybrid's blend; returns whether it has a blend map.
 */
function addShaderInputs(geometry, iface, morph) {
    const name = (location) => iface.inputs[location]?.name;
    const { joints, weights, truncated } = dqviewInfluences(geometry, iface.influences);
    if (truncated > 0) {
        console.warn(
            `dqview-skinning: ${truncated} vertices have more than ${iface.influences} influences; the heaviest ${iface.influences} are kept`,
        );
    }
    if (morph) {
        geometry.setAttribute(name(LOCATIONS.position), new BufferAttribute(morph.position, 3));
        geometry.setAttribute(name(LOCATIONS.normal), new BufferAttribute(morph.normal, 3));
    } else {
        geometry.setAttribute(name(LOCATIONS.position), geometry.attributes.position);
        geometry.setAttribute(name(LOCATIONS.normal), geometry.attributes.normal);
    }
    const sets = [
        [LOCATIONS.joints, LOCATIONS.weights],
        [LOCATIONS.joints1, LOCATIONS.weights1],
    ];
    joints.forEach((set, s) => {
        const jointAttribute = new BufferAttribute(set, 4);
        // The shader declares uvec4: three then uploads with vertexAttribIPointer.
        jointAttribute.gpuType = IntType;
        geometry.setAttribute(name(sets[s][0]), jointAttribute);
        geometry.setAttribute(name(sets[s][1]), new BufferAttribute(weights[s], 4));
    });
    const blendInput = name(LOCATIONS.blend);
    if (blendInput === undefined) return false;
    const blend = blendMapOf(geometry);
    const ones = new Float32Array(geometry.attributes.position.count).fill(1);
    geometry.setAttribute(blendInput, new BufferAttribute(blend ?? ones, 1));
    return blend !== null;
}

/**
 * Applies `mesh`'s morph targets to the bind pose the shader reads whenever its
 * `morphTargetInfluences` change: when its world matrix updates (at the start of every
 * `renderer.render`, before three uploads attributes) and, for scenes that update matrices
 * themselves, in `onBeforeRender` (then drawn from the next frame). Returns the check.
 */
function followMorphs(mesh, morph, iface) {
    const attributes = [LOCATIONS.position, LOCATIONS.normal].map(
        (location) => mesh.geometry.attributes[iface.inputs[location].name],
    );
    const refresh = () => {
        if (morph.update(mesh.morphTargetInfluences)) for (const a of attributes) a.needsUpdate = true;
    };
    // The mesh's own method, kept from the first time (a second call replaces our wrapper).
    const updateMatrixWorld = (mesh.userData.dqviewUpdateMatrixWorld ??= mesh.updateMatrixWorld);
    mesh.updateMatrixWorld = function (force) {
        refresh();
        return updateMatrixWorld.call(this, force);
    };
    refresh();
    return refresh;
}

/** The RawShaderMaterial of one skinned mesh: the generated vertex stage, mask or shaded. */
function skinningMaterial(vertexText, groups, view, baseColor) {
    return new RawShaderMaterial({
        glslVersion: GLSL3,
        vertexShader: withoutVersionLine(vertexText),
        fragmentShader: view === "mask" ? MASK_FRAGMENT : SHADED_FRAGMENT,
        uniforms: { base_color: { value: baseColor } },
        uniformsGroups: groups,
        // dqview draws both faces (no culling).
        side: DoubleSide,
    });
}

/**
 * Makes every SkinnedMesh under `root` skin with `shader` (the text of a generated GLSL ES
 * vertex shader). Options: `view` "shaded" (default) or "mask" (flat white); `beta`, the
 * hybrid's uniform beta for meshes without `_DQS_BLEND` (default 1). Returns
 * { meshes, skins, dispose() }. The palette updates in each mesh's onBeforeRender.
 */
export function applyDqviewComparison(root, shader, { view = "shaded", beta = 1 } = {}) {
    const iface = parseShaderInterface(shader);
    const skins = new Map();
    const meshes = [];
    root.traverse((object) => {
        if (object.isSkinnedMesh) meshes.push(object);
    });
    for (const mesh of meshes) {
        let skin = skins.get(mesh.skeleton);
        if (skin === undefined) {
            skin = new SkinUniforms(mesh.skeleton, iface);
            skins.set(mesh.skeleton, skin);
        }
        if (!mesh.geometry.attributes.normal) mesh.geometry.computeVertexNormals();
        const morph = BindPoseMorph.applies(mesh.geometry) ? new BindPoseMorph(mesh.geometry) : null;
        const hasMap = addShaderInputs(mesh.geometry, iface, morph);
        const refreshMorphs = morph ? followMorphs(mesh, morph, iface) : () => {};
        // The glTF material's colour, kept from the first time (a second call replaces ours).
        const color = (mesh.userData.dqviewBaseColor ??= mesh.material?.color?.toArray() ?? [1, 1, 1]);
        const baseColor = new Vector3(...color);
        mesh.material = skinningMaterial(shader, skin.groupsFor(hasMap ? 1 : beta), view, baseColor);
        // The bounds three keeps are not where the palette puts the mesh.
        mesh.frustumCulled = false;
        mesh.onBeforeRender = (renderer, _scene, camera) => {
            refreshMorphs();
            skin.update(camera, renderer.info.render.frame);
        };
    }
    return {
        meshes,
        skins: [...skins.values()],
        dispose() {
            for (const mesh of meshes) mesh.material.dispose();
            for (const skin of skins.values()) skin.dispose();
        },
    };
}
