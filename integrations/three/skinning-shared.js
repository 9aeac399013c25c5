// What both paths share, the WebGL one (skinning.js, `applyDqviewSkinning`) and the node one
// (node-skinning.js, `applyDqviewNodeSkinning`): the methods and their checks, the vertex
// attributes dqview's skinning reads (material-patch.js ATTRIBUTES), and the pose-following
// bounds. No WebGPU import: it is unit-tested in node.
import { BufferAttribute, IntType, Vector3 } from "three";

import { JointBounds } from "./bounds.js";
import { dqviewInfluences } from "./influences.js";
import { ATTRIBUTES, COR_CENTER_ATTRIBUTE, PATCH_METHODS } from "./material-patch.js";
import { MAX_ROWS } from "./palette-texture.js";

/** Every method either path takes: dqview's, then three's own. */
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

/** Throws for a method name that is not one of SKINNING_METHODS, naming the valid ones. */
export function checkMethod(method) {
    if (!SKINNING_METHODS.includes(method)) {
        throw new Error(`dqview skinning: unknown method \`${method}\` (valid: ${SKINNING_METHODS.join(", ")})`);
    }
}

/** Throws unless `beta` (hybrid's uniform blend) is a number in [0, 1]. */
export function checkBeta(beta) {
    if (!Number.isFinite(beta) || beta < 0 || beta > 1) {
        throw new Error(`dqview skinning: beta must be a number from 0 (LBS) to 1 (DQS), got ${beta}`);
    }
}

/**
 * Adds dqview's influences (8 a vertex, heaviest first, as two uvec4/vec4 pairs), hybrid's
 * blend and CoR's centres (where the file has `_COR_CENTER`) to `geometry` under the names of
 * ATTRIBUTES. Returns the influences, whether the geometry has its own `_DQS_BLEND` map, and how
 * many influences the shader must read (4, or 8 where some vertex has more).
 */
export function addInfluences(geometry) {
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
        // uvec4 in the shader: three uploads it as integers (vertexAttribIPointer).
        joints.gpuType = IntType;
        geometry.setAttribute(names[s][0], joints);
        geometry.setAttribute(names[s][1], new BufferAttribute(influences.weights[s], 4));
    });
    const blend = blendMapOf(geometry);
    const count = geometry.attributes.position.count;
    geometry.setAttribute(ATTRIBUTES.blend, new BufferAttribute(blend ?? new Float32Array(count).fill(1), 1));
    const centers = geometry.attributes[COR_CENTER_ATTRIBUTE];
    if (centers) geometry.setAttribute(ATTRIBUTES.corCenter, centers);
    const slots = influences.weights[1].some((w) => w !== 0) ? 8 : 4;
    return { influences, hasMap: blend !== null, slots };
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
 * Makes `mesh.boundingSphere` follow the pose as dqview skins it (`isTurning()`: DQS, hybrid and
 * CoR turn about the joints, LBS does not): three culls skinned meshes by it, and its own sphere
 * is computed once, with three's LBS. Returns the undo.
 */
export function followPoseBounds(mesh, influences, isTurning) {
    const { positions, morphReach } = bindPositions(mesh);
    const bounds = new JointBounds(mesh.skeleton, positions, influences, morphReach);
    const inverse = mesh.bindMatrixInverse;
    Object.defineProperty(mesh, "boundingSphere", {
        configurable: true,
        get: () => bounds.update(isTurning()).applyMatrix4(inverse),
        set: () => {},
    });
    return () => {
        delete mesh.boundingSphere;
        mesh.boundingSphere = null;
    };
}

/** Whether `method` turns vertices about the joints (the bounds then allow for it). */
export const turns = (method) => method === "dqs" || method === "hybrid" || method === "cor";

/**
 * Throws, before anything is changed, when a mesh's skeleton is too big for the palette texture
 * or one of its materials is skinned by dqview already (by either path).
 */
export function refuseUnskinnable(meshes) {
    for (const mesh of meshes) {
        if (mesh.skeleton.bones.length + 1 > MAX_ROWS) {
            throw new Error(
                `dqview skinning: "${mesh.name}" has ${mesh.skeleton.bones.length} joints; the palette texture holds ${MAX_ROWS - 1}`,
            );
        }
        for (const material of [mesh.material, mesh.customDepthMaterial, mesh.customDistanceMaterial].flat()) {
            if (material?.userData.dqviewSkinning) {
                throw new Error(
                    `dqview skinning: material "${material.name}" is skinned by dqview already (dispose() the first apply)`,
                );
            }
        }
    }
}

/** Every SkinnedMesh with a skeleton under `root`: what the skinning applies to. */
export function skinnedMeshesOf(root) {
    const meshes = [];
    root.traverse((object) => {
        if (object.isSkinnedMesh && object.skeleton) meshes.push(object);
    });
    return meshes;
}

/** The meshes of `meshes` without `_COR_CENTER`, which CoR cannot skin. */
export const meshesWithoutCorCenters = (meshes) => meshes.filter((m) => !m.geometry.attributes[COR_CENTER_ATTRIBUTE]);

/** Throws, naming the command that writes them, when `method` is CoR and a mesh has no centres. */
export function refuseCorWithoutCenters(meshes, method) {
    if (method !== "cor") return;
    const without = meshesWithoutCorCenters(meshes);
    if (without.length > 0) {
        const shown = without.slice(0, 3).map((m) => `"${m.name}"`);
        if (without.length > 3) shown.push(`${without.length - 3} more`);
        const names = shown.join(", ");
        throw new Error(
            `dqview skinning: CoR needs each vertex's centre of rotation, and ${names} ${without.length === 1 ? "has" : "have"} no _COR_CENTER attribute: write it with \`dqview cor MODEL --out MODEL_cor.glb\` and load that file`,
        );
    }
}

/**
 * What both `apply` functions return, over `state` ({method, beta}): the getters, `setMethod`
 * (checked, CoR refused without centres, then `onMethod()`), `setBeta` (filling the blend
 * attributes of the meshes without a map, `mapless`, as it does now) and `dispose` (`onDispose()`).
 */
export function skinningHandle(meshes, state, mapless, { onMethod, onDispose }) {
    const setBlend = () => {
        for (const attribute of mapless) {
            attribute.array.fill(state.beta);
            attribute.needsUpdate = true;
        }
    };
    setBlend();
    return {
        meshes,
        get method() {
            return state.method;
        },
        get beta() {
            return state.beta;
        },
        /** Switches every mesh to `next`; each material's program builds once per method. */
        setMethod(next) {
            checkMethod(next);
            if (next === state.method) return;
            refuseCorWithoutCenters(meshes, next);
            state.method = next;
            onMethod();
        },
        /** Sets hybrid's blend for meshes without a `_DQS_BLEND` map. */
        setBeta(next) {
            checkBeta(next);
            state.beta = next;
            setBlend();
        },
        /** Gives every mesh three's own skinning back and frees what the skinning made. */
        dispose() {
            state.method = "stock";
            onDispose();
        },
    };
}
