// dqview's skinning for three.js's WebGPURenderer (either backend) and node materials:
// `applyDqviewNodeSkinning(root, { method, beta })` keeps every SkinnedMesh's material and
// replaces only three's skinning in it, as `applyDqviewSkinning` (skinning.js) does for
// WebGLRenderer. The skinning is node-skinning-tsl.js (the math of chunks.js, in TSL), reading
// the same palette texture (palette-texture.js, refilled once a frame) and the same vertex
// attributes (influences.js, via skinning-shared.js).
//
// Where it goes in: NodeMaterial.setupPosition morphs positionLocal, then calls three's
// `skinning(object)` if `object.isSkinnedMesh === true`, then displaces and applies the
// material's positionNode. No public hook reaches that spot, so each material's setupPosition
// is wrapped (an own property) to run with the mesh's `isSkinnedMesh` answering false once: that
// read builds dqview's skinning in place of three's, after the morph and before the rest, in
// any subclass that calls super.setupPosition (three-vrm's MToon outline included). A classic
// material (MeshStandardMaterial ...) keeps its look: WebGPURenderer converts it to its node
// material for each build (NodeLibrary.fromMaterial), copying its own enumerable properties,
// so the wrapper (and castShadowPositionNode) carry over.
//
// Shadows: WebGPURenderer draws shadow maps with one shared override material whose position
// is the source material's `castShadowPositionNode` (else its positionNode), applied after
// three's own skinning. So each material gets a castShadowPositionNode that starts again from
// the geometry's position, morphs it and skins it with dqview's method: the shadow follows the
// DQS pose. Its caveats: three's (unused) LBS still runs in the shadow pass, and a
// displacementMap is not applied in the shadow.
import {
    Fn,
    OnObjectUpdate,
    attribute,
    morphReference,
    normalGeometry,
    normalLocal,
    positionGeometry,
    positionLocal,
    reference,
    tangentGeometry,
    tangentLocal,
    texture,
    uint,
    vec4,
} from "three/tsl";

import { ATTRIBUTES } from "./material-patch.js";
import { PaletteTexture } from "./palette-texture.js";
import { dqviewSkin, paletteReader } from "./node-skinning-tsl.js";
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

export { SKINNING_METHODS } from "./skinning-shared.js";

/** dqview's methods (not "stock") by a small code, which keeps their shadow nodes' cache keys apart. */
const METHOD_CODES = { lbs: 1, dqs: 2, hybrid: 3, cor: 4 };

/** The influence attributes as node lists: the `slots` joints and weights read, and all 8 weights. */
function influenceNodes(slots) {
    const j = [attribute(ATTRIBUTES.joints0, "uvec4"), attribute(ATTRIBUTES.joints1, "uvec4")];
    const w = [attribute(ATTRIBUTES.weights0, "vec4"), attribute(ATTRIBUTES.weights1, "vec4")];
    const comps = (pair) => pair.flatMap((v) => [v.x, v.y, v.z, v.w]);
    return { joints: comps(j).slice(0, slots), weights: comps(w).slice(0, slots), allWeights: comps(w) };
}

/**
 * Builds, on the current stack, dqview's skinning of `mesh` (registered in `registry`) with
 * `method`, reading `slots` influences a vertex: positionLocal (as morphed so far), normalLocal
 * and tangentLocal through the bind matrix into the palette's space (as chunks.js's caller in
 * material-patch.js does), skinned, and back, as three's own skinning leaves them. The palette
 * is refilled once a frame per skeleton and bound per drawn object (a material may be shared by
 * meshes of several skeletons, and three shares one program among them).
 */
function skinNodes(mesh, method, slots, builder, registry) {
    const { skin } = registry.get(mesh);
    const palette = texture(skin.palette.texture);
    OnObjectUpdate(({ object, frameId }) => {
        const drawn = registry.get(object)?.skin ?? skin;
        drawn.refresh(frameId);
        palette.value = drawn.palette.texture;
    });
    const bindMatrix = reference("bindMatrix", "mat4");
    const bindMatrixInverse = reference("bindMatrixInverse", "mat4");
    const hasNormal = builder.hasGeometryAttribute("normal");
    const hasTangent = hasNormal && builder.hasGeometryAttribute("tangent");
    const through = (m, v) => m.mul(vec4(v, 0)).xyz;
    const input = {
        ...influenceNodes(slots),
        position: bindMatrix.mul(vec4(positionLocal, 1)).xyz,
        normal: through(bindMatrix, normalLocal).normalize(),
        tangent: hasTangent ? vec4(through(bindMatrix, tangentLocal), 1) : vec4(1, 0, 0, 1),
        blend: attribute(ATTRIBUTES.blend, "float"),
        // CoR's centre is in the mesh's space, as the position: bound the same way, not morphed.
        center: method === "cor" ? bindMatrix.mul(vec4(attribute(ATTRIBUTES.corCenter, "vec3"), 1)).xyz : null,
    };
    const skinned = dqviewSkin(paletteReader(palette), method, input);
    positionLocal.assign(bindMatrixInverse.mul(vec4(skinned.position, 1)).xyz);
    if (hasNormal) normalLocal.assign(through(bindMatrixInverse, skinned.normal).normalize());
    if (hasTangent) tangentLocal.assign(through(bindMatrixInverse, skinned.tangent.xyz).normalize());
}

/** dqview's skinning by `method` as a TSL void function of the mesh, as three's `skinning` is one. */
const skinningFn = (method, slots, registry) => Fn(([mesh], builder) => skinNodes(mesh, method, slots, builder, registry), "void");

/**
 * Wraps `material.setupPosition` so that the meshes in `registry` skin with `state.method`
 * (see the top of this file); the method is in the material's program cache key. Returns the undo.
 */
function wrapSetupPosition(material, state, registry, skinnings) {
    const own = Object.hasOwn(material, "setupPosition") ? material.setupPosition : undefined;
    const ownKey = Object.hasOwn(material, "customProgramCacheKey") ? material.customProgramCacheKey : undefined;
    // Enumerable own properties, so that the node material a classic one converts to has them.
    material.setupPosition = function (builder) {
        const base = own ?? Object.getPrototypeOf(this).setupPosition;
        const mesh = builder.object;
        if (state.method === "stock" || !registry.has(mesh)) return base.call(this, builder);
        let built = false;
        Object.defineProperty(mesh, "isSkinnedMesh", {
            configurable: true,
            enumerable: true,
            get() {
                if (built) return true;
                built = true;
                skinnings[state.method](mesh);
                return false;
            },
        });
        try {
            return base.call(this, builder);
        } finally {
            Object.defineProperty(mesh, "isSkinnedMesh", { value: true, writable: true, configurable: true, enumerable: true });
            // A three.js whose setupPosition no longer asks: say so rather than draw LBS.
            if (!built) throw new Error("dqview skinning: this three.js's NodeMaterial.setupPosition does not check isSkinnedMesh");
        }
    };
    material.customProgramCacheKey = function () {
        const key = (ownKey ?? Object.getPrototypeOf(this).customProgramCacheKey).call(this);
        return `${key}|dqview-${state.method}`;
    };
    return () => {
        if (own) material.setupPosition = own;
        else delete material.setupPosition;
        if (ownKey) material.customProgramCacheKey = ownKey;
        else delete material.customProgramCacheKey;
    };
}

/**
 * The castShadowPositionNode that shadows `method`'s pose for the meshes in `registry`: the
 * geometry's position morphed and skinned again after three's skinning of the shadow pass, then
 * the material's own shadow position (`nextOf()` at build time) on top. Other objects sharing
 * the material get positionLocal as three left it.
 */
function shadowPositionNode(method, slots, registry, skinning, nextOf) {
    const shadow = Fn((_, builder) => {
        const object = builder.object;
        const next = nextOf();
        if (!registry.has(object)) return next ?? positionLocal;
        positionLocal.assign(positionGeometry);
        if (builder.hasGeometryAttribute("normal")) normalLocal.assign(normalGeometry);
        if (builder.hasGeometryAttribute("tangent")) tangentLocal.assign(tangentGeometry.xyz);
        const { geometry } = object;
        if (geometry.morphAttributes.position || geometry.morphAttributes.normal) morphReference(object);
        skinning(object);
        return next ?? positionLocal;
    }, "vec3");
    // The code argument keeps each method's node (and so its shadow program) apart in three's caches.
    return shadow(uint(10 * METHOD_CODES[method] + slots));
}

/**
 * One skeleton's palette and its once-a-frame refill: `refresh(frameId)` updates the skeleton's
 * bone matrices (three's skinning node does that for its own meshes; here none runs) and the
 * palette from them, at most once per frame.
 */
function paletteSkin(skeleton) {
    const palette = new PaletteTexture(skeleton);
    let frame = -1;
    return {
        palette,
        refresh(frameId) {
            if (frameId === frame) return;
            frame = frameId;
            skeleton.update();
            palette.refill();
        },
        dispose: () => palette.dispose(),
    };
}

/** Sets `material.castShadowPositionNode` to `node`, or back to what it was (`saved`: absent when undefined). */
function setShadowNode(material, node, saved) {
    if (node !== undefined) material.castShadowPositionNode = node;
    else if (saved.own) material.castShadowPositionNode = saved.node;
    else delete material.castShadowPositionNode;
}

/**
 * Skins `material` with dqview's method for the meshes in `registry`, reading `slots`
 * influences a vertex: its setupPosition wrapped, a shadow position node per method. Returns
 * {apply(): sets the shadow node for state.method and asks for a rebuild, undo()}.
 */
function skinMaterial(material, slots, state, registry) {
    // The WebGL path's flag (truthy): either path refuses a material the other skins.
    material.userData.dqviewSkinning = "node";
    const saved = { own: Object.hasOwn(material, "castShadowPositionNode"), node: material.castShadowPositionNode };
    const skinnings = Object.fromEntries(Object.keys(METHOD_CODES).map((m) => [m, skinningFn(m, slots, registry)]));
    // The material's own shadow position (or position) goes on top of the skinned one.
    const nextOf = () => (saved.own ? saved.node : material.positionNode) ?? null;
    const shadows = Object.fromEntries(
        Object.keys(METHOD_CODES).map((m) => [m, shadowPositionNode(m, slots, registry, skinnings[m], nextOf)]),
    );
    const unwrap = wrapSetupPosition(material, state, registry, skinnings);
    const apply = () => {
        setShadowNode(material, state.method === "stock" ? undefined : shadows[state.method], saved);
        material.needsUpdate = true;
    };
    apply();
    return {
        apply,
        undo() {
            delete material.userData.dqviewSkinning;
            unwrap();
            setShadowNode(material, undefined, saved);
            material.needsUpdate = true;
        },
    };
}

/**
 * Makes every SkinnedMesh under `root` skin with dqview's `method` ("lbs", "dqs", "hybrid",
 * "cor" (with the `_COR_CENTER` `dqview cor` writes), or "stock": three's own) in its own
 * material, node or classic, under WebGPURenderer; shadows follow. `beta`: hybrid's blend for meshes without a `_DQS_BLEND` map (0 LBS to 1 DQS;
 * default 1). Returns { meshes, method, beta, setMethod(m), setBeta(b), dispose() }.
 */
export function applyDqviewNodeSkinning(root, { method = "dqs", beta = 1 } = {}) {
    checkMethod(method);
    checkBeta(beta);
    const state = { method, beta };
    const meshes = skinnedMeshesOf(root);
    refuseUnskinnable(meshes);
    refuseCorWithoutCenters(meshes, method);
    const skins = new Map();
    // mesh -> {skin: its skeleton's palette}: which objects the wrapped materials skin.
    const registry = new WeakMap();
    const slotsOf = new Map();
    const mapless = [];
    const undo = [];
    for (const mesh of meshes) {
        if (!skins.has(mesh.skeleton)) skins.set(mesh.skeleton, paletteSkin(mesh.skeleton));
        const { influences, hasMap, slots } = addInfluences(mesh.geometry);
        if (!hasMap) mapless.push(mesh.geometry.attributes[ATTRIBUTES.blend]);
        registry.set(mesh, { skin: skins.get(mesh.skeleton) });
        for (const material of [mesh.material].flat()) slotsOf.set(material, Math.max(slotsOf.get(material) ?? 4, slots));
        undo.push(followPoseBounds(mesh, influences, () => turns(state.method)));
    }
    const materials = [...slotsOf].map(([material, slots]) => skinMaterial(material, slots, state, registry));
    return skinningHandle(meshes, state, mapless, {
        onMethod: () => {
            for (const m of materials) m.apply();
        },
        onDispose: () => {
            for (const m of materials) m.undo();
            for (const u of undo.reverse()) u();
            for (const skin of skins.values()) skin.dispose();
        },
    });
}
