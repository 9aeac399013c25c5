// dqview's skinning in the app's own three.js materials: `applyDqviewSkinning(root, { method,
// beta })` keeps every SkinnedMesh's material and replaces only three's skinning in it (the
// skinning chunks, through onBeforeCompile and customProgramCacheKey), so textures, lights,
// shadows, fog, tone mapping, morph targets and AnimationMixer work as before. The skinning is
// `dqview shader --target three` (chunks.js), reading each skeleton's palette from a texture
// that takes the place of its bone texture (palette-texture.js) and dqview's eight influences a
// vertex, heaviest first (influences.js). `setMethod` switches at run time; "stock" is three's
// own skinning.
import { BufferAttribute, IntType, MeshDepthMaterial, MeshDistanceMaterial, ShaderChunk, Vector3 } from "three";

import { JointBounds } from "./bounds.js";
import { dqviewInfluences } from "./influences.js";
import { ATTRIBUTES, PATCH_METHODS, patchVertexShader } from "./material-patch.js";
import { MAX_ROWS, PaletteTexture } from "./palette-texture.js";

/** Every method `applyDqviewSkinning` takes: dqview's, then three's own. */
export const SKINNING_METHODS = [...PATCH_METHODS, "stock"];

/** Hybrid's per-vertex blends: `_DQS_BLEND` clamped to [0, 1], NaN as 1 (docs/engines.md); null without it. */
export function blendMapOf(geometry) {
    const stored = geometry.attributes._dqs_blend;
    if (!stored) return null;
    const out = new Float32Array(stored.count);
    for (let v = 0; v < stored.count; v++) {
        const b = stored.getX(v);
        out[v] = Number.isNaN(b) ? 1 : Math.min(Math.max(b, 0), 1);
    }
    return out;
}

/** Checks a method name, with the valid ones in the error. */
function checkMethod(method) {
    if (!SKINNING_METHODS.includes(method)) {
        throw new Error(`dqview skinning: unknown method \`${method}\` (valid: ${SKINNING_METHODS.join(", ")})`);
    }
}

/** Checks hybrid's uniform beta. */
function checkBeta(beta) {
    if (!Number.isFinite(beta) || beta < 0 || beta > 1) {
        throw new Error(`dqview skinning: beta must be a number from 0 (LBS) to 1 (DQS), got ${beta}`);
    }
}

/** The bind-space positions of `mesh` (its bindMatrix applied) and how far its morphs reach. */
function bindPositions(mesh) {
    const { position } = mesh.geometry.attributes;
    const out = new Float32Array(3 * position.count);
    const p = new Vector3();
    for (let v = 0; v < position.count; v++) {
        p.fromBufferAttribute(position, v).applyMatrix4(mesh.bindMatrix).toArray(out, 3 * v);
    }
    let reach = 0;
    for (const target of mesh.geometry.morphAttributes.position ?? []) {
        let longest = 0;
        for (let v = 0; v < target.count; v++) longest = Math.max(longest, p.fromBufferAttribute(target, v).length());
        reach += longest;
    }
    return { positions: out, morphReach: reach * mesh.bindMatrix.getMaxScaleOnAxis() };
}

/**
 * Adds dqview's influences and hybrid's blend to `geometry`; returns the influences, whether it
 * has a blend map, and how many a vertex the shader must read (4, or 8 where some vertex has more).
 */
function addInfluences(geometry) {
    const influences = dqviewInfluences(geometry, 8);
    if (influences.truncated > 0) {
        console.warn(`dqview skinning: ${influences.truncated} vertices have more than 8 influences; the heaviest 8 are kept`);
    }
    const names = [
        [ATTRIBUTES.joints0, ATTRIBUTES.weights0],
        [ATTRIBUTES.joints1, ATTRIBUTES.weights1],
    ];
    influences.joints.forEach((set, s) => {
        const joints = new BufferAttribute(set, 4);
        // uvec4 in the shader: three uploads it with vertexAttribIPointer.
        joints.gpuType = IntType;
        geometry.setAttribute(names[s][0], joints);
        geometry.setAttribute(names[s][1], new BufferAttribute(influences.weights[s], 4));
    });
    const blend = blendMapOf(geometry);
    geometry.setAttribute(ATTRIBUTES.blend, new BufferAttribute(blend ?? new Float32Array(geometry.attributes.position.count).fill(1), 1));
    const slots = influences.weights[1].some((w) => w !== 0) ? 8 : 4;
    return { influences, hasMap: blend !== null, slots };
}

/**
 * Throws, before anything is changed, when a mesh's skeleton is too big for the palette texture
 * or one of its materials is skinned by dqview already.
 */
function refuseUnskinnable(meshes) {
    for (const mesh of meshes) {
        if (mesh.skeleton.bones.length + 1 > MAX_ROWS) {
            throw new Error(
                `dqview skinning: "${mesh.name}" has ${mesh.skeleton.bones.length} joints; the palette texture holds ${MAX_ROWS - 1}`,
            );
        }
        for (const material of [mesh.material, mesh.customDepthMaterial, mesh.customDistanceMaterial].flat()) {
            if (material?.userData.dqviewSkinning) {
                throw new Error(
                    `dqview skinning: material "${material.name}" is skinned by dqview already (dispose() the first applyDqviewSkinning)`,
                );
            }
        }
    }
}

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
 * Makes every SkinnedMesh under `root` skin with dqview's `method` ("lbs", "dqs", "hybrid", or
 * "stock": three's own) in its own material, its shadows included. `beta`: hybrid's blend for
 * meshes without a `_DQS_BLEND` map (0 LBS to 1 DQS; default 1). Returns { meshes,
 * setMethod(m), setBeta(b), method, beta, dispose() }.
 */
export function applyDqviewSkinning(root, { method = "dqs", beta = 1 } = {}) {
    checkMethod(method);
    checkBeta(beta);
    const state = { method, beta };
    const skins = new Map();
    const undo = [];
    const meshes = [];
    // Shadow materials skinning as the meshes do, by influences read (three's shared ones would
    // read the palette as bone matrices).
    const depth = new Map([4, 8].map((n) => [n, { depth: new MeshDepthMaterial(), distance: new MeshDistanceMaterial() }]));
    root.traverse((object) => {
        if (object.isSkinnedMesh && object.skeleton) meshes.push(object);
    });
    refuseUnskinnable(meshes);
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
        const { positions, morphReach } = bindPositions(mesh);
        const bounds = new JointBounds(mesh.skeleton, positions, influences, morphReach);
        const inverse = mesh.bindMatrixInverse;
        Object.defineProperty(mesh, "boundingSphere", {
            configurable: true,
            get: () => bounds.update(state.method === "dqs" || state.method === "hybrid").applyMatrix4(inverse),
            set: () => {},
        });
        undo.push(() => {
            delete mesh.boundingSphere;
            mesh.boundingSphere = null;
            mesh.customDepthMaterial = customDepthMaterial;
            mesh.customDistanceMaterial = customDistanceMaterial;
        });
    }
    for (const [material, slots] of slotsOf) undo.push(patchMaterial(material, state, slots));
    const setBlend = () => {
        for (const attribute of mapless) {
            attribute.array.fill(state.beta);
            attribute.needsUpdate = true;
        }
    };
    setBlend();
    for (const skin of skins.values()) skin.bind();
    return {
        meshes,
        get method() {
            return state.method;
        },
        get beta() {
            return state.beta;
        },
        /** Switches every mesh to `next`; programs compile once per method and material. */
        setMethod(next) {
            checkMethod(next);
            if (next === state.method) return;
            state.method = next;
            for (const skin of skins.values()) skin.bind();
            for (const material of slotsOf.keys()) material.needsUpdate = true;
        },
        /** Sets hybrid's blend for meshes without a `_DQS_BLEND` map. */
        setBeta(next) {
            checkBeta(next);
            state.beta = next;
            setBlend();
        },
        /** Gives every mesh three's own skinning back and frees the palettes. */
        dispose() {
            state.method = "stock";
            for (const u of undo.reverse()) u();
            for (const skin of skins.values()) skin.dispose();
            for (const { depth: d, distance } of depth.values()) {
                d.dispose();
                distance.dispose();
            }
        },
    };
}
