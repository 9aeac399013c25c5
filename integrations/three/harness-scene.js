// The render harness's scenes for three.js's own materials (render.mjs `--material`): the
// skinned meshes' materials of one kind, the mask made by forcing their fragment white, and
// the shadow-casting key light over a ground plane (`--shadows`, `--view shadow`); and what both
// render pages (WebGLRenderer's and WebGPURenderer's) do alike: load and pose the job's model,
// light it, and report the image.
import {
    BasicShadowMap,
    Box3,
    DirectionalLight,
    DoubleSide,
    HemisphereLight,
    Mesh,
    MeshBasicMaterial,
    MeshLambertMaterial,
    MeshPhongMaterial,
    MeshPhysicalMaterial,
    MeshStandardMaterial,
    MeshToonMaterial,
    PlaneGeometry,
    ShadowMaterial,
    Vector3,
} from "three";

import { constraintManager, modelLoader } from "./load.js";
import { poseGltf } from "./pose.js";

/**
 * The material kinds `--material` takes: the glTF's own, three-vrm's MToon (the glTF's own,
 * loaded with the MToon plugin), or one of three's built-in kinds.
 */
export const MATERIAL_KINDS = {
    gltf: null,
    mtoon: null,
    basic: MeshBasicMaterial,
    lambert: MeshLambertMaterial,
    phong: MeshPhongMaterial,
    standard: MeshStandardMaterial,
    physical: MeshPhysicalMaterial,
    toon: MeshToonMaterial,
};

/** A material of `kind` in place of `source` (its colour and texture kept), or `source` for gltf. */
export function materialOfKind(kind, source) {
    const Kind = MATERIAL_KINDS[kind];
    if (Kind === null) return source;
    return new Kind({ color: source?.color ?? 0xffffff, map: source?.map ?? null, side: DoubleSide });
}

/** Makes `material` draw flat white while its vertex stage is left as it is (the mask view). */
export function forceWhite(material) {
    const { onBeforeCompile, customProgramCacheKey } = material;
    material.onBeforeCompile = function (shader, renderer) {
        onBeforeCompile.call(this, shader, renderer);
        shader.fragmentShader = shader.fragmentShader.replace(/\}\s*$/, "\tgl_FragColor = vec4( 1.0 );\n}\n");
    };
    material.customProgramCacheKey = function () {
        return `${customProgramCacheKey.call(this)}|dqview-mask`;
    };
}

/**
 * Puts the scene on a ground plane (at its lowest point) under a shadow-casting key light
 * framed on the dqview camera's target and distance (`camera`, the JSON), so that renders
 * sharing a camera share the shadow map's texels whatever the pose: every mesh casts, the
 * ground receives. In the shadow view the meshes draw nothing and the ground draws the shadow
 * white on black, a mask of the shadow.
 */
export function addShadows(root, key, renderer, { camera, shadowOnly }) {
    const box = new Box3().setFromObject(root, true);
    const centre = new Vector3().fromArray(camera.target);
    const extent = centre.distanceTo(new Vector3().fromArray(camera.eye));
    renderer.shadowMap.enabled = true;
    renderer.shadowMap.type = BasicShadowMap;
    key.castShadow = true;
    key.position.copy(centre).add(new Vector3(0.3, 1, 0.2).normalize().multiplyScalar(extent));
    key.target.position.copy(centre);
    root.add(key.target);
    Object.assign(key.shadow.camera, { left: -extent, right: extent, top: extent, bottom: -extent, near: 0, far: 3 * extent });
    key.shadow.camera.updateProjectionMatrix();
    key.shadow.mapSize.set(4096, 4096);
    key.shadow.bias = -1e-4 * extent;
    root.traverse((object) => {
        if (!object.isMesh) return;
        object.castShadow = true;
        object.receiveShadow = !shadowOnly;
        if (shadowOnly) {
            for (const m of [object.material].flat()) Object.assign(m, { colorWrite: false, depthWrite: false });
        }
    });
    const material = shadowOnly ? new ShadowMaterial({ color: 0xffffff, opacity: 1 }) : new MeshStandardMaterial({ color: 0x808080 });
    const ground = new Mesh(new PlaneGeometry(10 * extent, 10 * extent), material);
    ground.rotation.x = -Math.PI / 2;
    ground.position.set(centre.x, box.min.y, centre.z);
    ground.receiveShadow = true;
    root.add(ground);
}

/**
 * The job's model loaded (three-vrm's MToon plugin with `mtoon`) and posed as dqview poses it:
 * the clip, twists, bends and node constraints, or every skeleton at its bind pose. Returns
 * {gltf, constraints (the manager or null)}.
 */
export async function loadPosedModel(job, { mtoon }) {
    const loader = await modelLoader({ constraints: job.constraints, mtoon });
    const gltf = await loader.loadAsync(job.model).catch((e) => {
        throw new Error(`cannot load ${job.modelName}: ${e?.message ?? e}`);
    });
    const constraints = job.constraints ? constraintManager(gltf) : null;
    poseGltf(gltf, { clip: job.clip, time: job.time, twists: job.twists, bends: job.bends, constraints });
    if (job.bindPose) {
        // Every skinning matrix the identity: LBS, DQS and hybrid all leave the mesh as modelled.
        gltf.scene.traverse((o) => o.isSkinnedMesh && o.skeleton.pose());
        gltf.scene.updateMatrixWorld(true);
    }
    return { gltf, constraints };
}

/** The key light (and the hemisphere for shaded, the shadow map where asked) of the job's view; none for the mask. */
export function addLights(root, renderer, job) {
    if (job.view === "mask") return;
    const key = new DirectionalLight(0xffffff, 2.0);
    key.position.set(0.4, 0.8, 0.6);
    root.add(key);
    if (job.view === "shaded") root.add(new HemisphereLight(0xffffff, 0x404040, 1.5));
    if (job.shadows || job.view === "shadow") {
        addShadows(root, key, renderer, { camera: job.camera, shadowOnly: job.view === "shadow" });
    }
}

/** The distinct material types of the skinned meshes under `root`, sorted. */
function skinnedMaterialTypes(root) {
    const types = new Set();
    root.traverse((o) => o.isSkinnedMesh && [o.material].flat().forEach((m) => types.add(m.isMToonMaterial ? "MToonMaterial" : m.type)));
    return [...types].sort();
}

/** What a page reports: `image` (ImageData) as a PNG data URL, the constraints evaluated, the skinned meshes' material types. */
export function jobResult(image, constraints, root) {
    const out = document.createElement("canvas");
    [out.width, out.height] = [image.width, image.height];
    out.getContext("2d").putImageData(image, 0, 0);
    return {
        png: out.toDataURL("image/png"),
        constraints: constraints?.constraints.size ?? 0,
        materials: skinnedMaterialTypes(root),
    };
}
