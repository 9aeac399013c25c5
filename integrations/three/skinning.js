// dqview's skinning in the app's own three.js materials: `applyDqviewSkinning(root, { method,
// beta })` keeps every SkinnedMesh's material and replaces only three's skinning in it (the
// skinning chunks, through onBeforeCompile and customProgramCacheKey), so textures, lights,
// shadows, fog, tone mapping, morph targets and AnimationMixer work as before. The skinning is
// `dqview shader --target three` (chunks.js), reading each skeleton's palette from a texture
// that takes the place of its bone texture (palette-texture.js) and dqview's eight influences a
// vertex, heaviest first (influences.js). CoR reads each vertex's centre of rotation from the
// glTF attribute `_COR_CENTER` (`dqview cor` writes it). `setMethod` switches at run time;
// "stock" is three's own skinning.
import { MeshDepthMaterial, MeshDistanceMaterial, ShaderChunk } from "three";

import { ATTRIBUTES, patchVertexShader } from "./material-patch.js";
import { PaletteTexture } from "./palette-texture.js";
import {
    addInfluences,
    checkBeta,
    checkMethod,
    followPoseBounds,
    refuseCorWithoutCenters,
    refuseUnskinnable,
    skinnedMeshesOf,
    skinningHandle,
    turns,
} from "./skinning-shared.js";

export { SKINNING_METHODS, blendMapOf } from "./skinning-shared.js";

/**
 * Makes `material` skin with `state.method` (read at compile time) reading `slots` influences a
 * vertex: the method in its program cache key, the patch after any onBeforeCompile the app had
 * set. Returns the undo.
 */
function patchMaterial(material, state, slots) {
    material.userData.dqviewSkinning = true;
    const { onBeforeCompile, customProgramCacheKey } = material;
    material.onBeforeCompile = function (shader, renderer) {
        onBeforeCompile.call(this, shader, renderer);
        if (state.method !== "stock") {
            shader.vertexShader = patchVertexShader(shader.vertexShader, state.method, ShaderChunk.morphtarget_vertex, slots);
        }
    };
    material.customProgramCacheKey = function () {
        return `${customProgramCacheKey.call(this)}|dqview-${state.method}-${slots}`;
    };
    material.needsUpdate = true;
    return () => {
        delete material.userData.dqviewSkinning;
        material.onBeforeCompile = onBeforeCompile;
        material.customProgramCacheKey = customProgramCacheKey;
        material.needsUpdate = true;
    };
}

/**
 * The skeleton's palette texture, refilled whenever three updates the skeleton (once a frame,
 * before drawing); it is the skeleton's bone texture except under "stock". Returns the skin.
 */
function paletteSkin(skeleton, state) {
    const palette = new PaletteTexture(skeleton);
    const update = skeleton.update;
    // three's own (null until three makes it), kept for "stock" and dispose.
    let stockTexture = skeleton.boneTexture;
    skeleton.update = function () {
        update.call(this);
        if (state.method !== "stock") palette.refill();
    };
    return {
        palette,
        /** Binds the palette, or three's own bone texture for "stock". */
        bind() {
            if (skeleton.boneTexture !== palette.texture) stockTexture = skeleton.boneTexture;
            skeleton.boneTexture = state.method === "stock" ? stockTexture : palette.texture;
        },
        dispose() {
            skeleton.update = update;
            if (skeleton.boneTexture === palette.texture) skeleton.boneTexture = stockTexture;
            palette.dispose();
        },
    };
}

/**
 * Makes every SkinnedMesh under `root` skin with dqview's `method` ("lbs", "dqs", "hybrid",
 * "cor", or "stock": three's own) in its own material, its shadows included. CoR needs the
 * `_COR_CENTER` attribute `dqview cor` writes (an error names the command when a mesh lacks it). `beta`: hybrid's blend for
 * meshes without a `_DQS_BLEND` map (0 LBS to 1 DQS; default 1). Returns { meshes,
 * setMethod(m), setBeta(b), method, beta, dispose() }.
 */
export function applyDqviewSkinning(root, { method = "dqs", beta = 1 } = {}) {
    checkMethod(method);
    checkBeta(beta);
    const state = { method, beta };
    const skins = new Map();
    const undo = [];
    // Shadow materials skinning as the meshes do, by influences read (three's shared ones would
    // read the palette as bone matrices).
    const depth = new Map([4, 8].map((n) => [n, { depth: new MeshDepthMaterial(), distance: new MeshDistanceMaterial() }]));
    const meshes = skinnedMeshesOf(root);
    refuseUnskinnable(meshes);
    refuseCorWithoutCenters(meshes, method);
    const mapless = [];
    // Each material reads as many influences as the most any of its meshes needs.
    const slotsOf = new Map();
    for (const mesh of meshes) {
        if (!skins.has(mesh.skeleton)) skins.set(mesh.skeleton, paletteSkin(mesh.skeleton, state));
        const { influences, hasMap, slots } = addInfluences(mesh.geometry);
        if (!hasMap) mapless.push(mesh.geometry.attributes[ATTRIBUTES.blend]);
        const { customDepthMaterial, customDistanceMaterial } = mesh;
        mesh.customDepthMaterial ??= depth.get(slots).depth;
        mesh.customDistanceMaterial ??= depth.get(slots).distance;
        for (const material of [mesh.material, mesh.customDepthMaterial, mesh.customDistanceMaterial].flat()) {
            slotsOf.set(material, Math.max(slotsOf.get(material) ?? 4, slots));
        }
        const unbound = followPoseBounds(mesh, influences, () => turns(state.method));
        undo.push(() => {
            unbound();
            mesh.customDepthMaterial = customDepthMaterial;
            mesh.customDistanceMaterial = customDistanceMaterial;
        });
    }
    for (const [material, slots] of slotsOf) undo.push(patchMaterial(material, state, slots));
    for (const skin of skins.values()) skin.bind();
    return skinningHandle(meshes, state, mapless, {
        onMethod: () => {
            for (const skin of skins.values()) skin.bind();
            for (const material of slotsOf.keys()) material.needsUpdate = true;
        },
        onDispose: () => {
            for (const u of undo.reverse()) u();
            for (const skin of skins.values()) skin.dispose();
            for (const { depth: d, distance } of depth.values()) {
                d.dispose();
                distance.dispose();
            }
        },
    });
}
