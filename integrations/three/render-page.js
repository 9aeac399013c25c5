// Renders the job in this page's URL (`?job=` JSON from render.mjs) and reports the PNG, or
// the error, through the `dqviewDone` binding render.mjs added.
import { Color, DoubleSide, MeshBasicMaterial, WebGLRenderer } from "three";

import { cameraFromDqview } from "./camera.js";
import { applyDqviewComparison, loadDqviewShader } from "./dqview-skinning.js";
import { applyDqviewSkinning } from "./skinning.js";
import { addLights, forceWhite, jobResult, loadPosedModel, materialOfKind } from "./harness-scene.js";
import { renderResolved4x } from "./resolve4x.js";

/**
 * The meshes three.js draws itself as dqview draws them: both faces; in the mask flat white.
 * Those are the rigid ones, and with `skinned` (method stock) the skinned ones too, which
 * three then skins as it skins any SkinnedMesh. Those have frustum culling off, as the meshes
 * dqview's shader skins have: the bounds three computes for a skinned mesh once are not
 * checked here.
 */
function prepareThreeMeshes(root, view, { skinned }) {
    const white = new MeshBasicMaterial({ color: 0xffffff, side: DoubleSide });
    root.traverse((object) => {
        if (!object.isMesh || (object.isSkinnedMesh && !skinned)) return;
        if (object.isSkinnedMesh) object.frustumCulled = false;
        if (view === "mask") {
            object.material = white;
        } else {
            for (const m of [object.material].flat()) m.side = DoubleSide;
        }
    });
}

/**
 * The skinned meshes in three's own materials of `job.material`'s kind, skinned by
 * `applyDqviewSkinning` (the package's path; "stock" leaves three's own skinning), white and
 * drawn on both faces in the mask, as dqview draws it; the rigid meshes as
 * `prepareThreeMeshes` leaves them.
 */
function ownMaterials(root, job) {
    root.traverse((object) => {
        if (!object.isSkinnedMesh) return;
        object.material = materialOfKind(job.material, object.material);
        // Culled by the package's pose-following bounds, as an app's meshes are.
        object.frustumCulled = true;
        if (job.view !== "mask") return;
        for (const m of [object.material].flat()) {
            m.side = DoubleSide;
            forceWhite(m);
        }
    });
    prepareThreeMeshes(root, job.view, { skinned: false });
    return applyDqviewSkinning(root, { method: job.firstMethod ?? job.method, beta: job.beta ?? 1 });
}

/**
 * Renders `job` ({model, method, material, shadows, clip, time, twists, bends, constraints,
 * camera, width, height, view}) as dqview renders (4x multisampled, sRGB-resolved); the PNG as
 * a data URL and the number of node constraints evaluated.
 */
async function render(job) {
    const stock = job.method === "stock";
    const own = job.material !== null;
    const shader = stock || own ? null : await loadDqviewShader(job.method);
    const { gltf, constraints } = await loadPosedModel(job, { mtoon: job.material === "mtoon" });
    const skinning = own ? ownMaterials(gltf.scene, job) : null;
    if (!own) {
        // Stock: three's SkinnedMesh skinning (its LBS, bone texture and all), as any three.js app.
        if (!stock) applyDqviewComparison(gltf.scene, shader, { view: job.view === "mask" ? "mask" : "shaded" });
        prepareThreeMeshes(gltf.scene, job.view, { skinned: stock });
    }
    const canvas = document.createElement("canvas");
    document.body.append(canvas);
    const renderer = new WebGLRenderer({ canvas, antialias: false });
    addLights(gltf.scene, renderer, job);
    let shaderError = null;
    renderer.debug.onShaderError = (gl, program, vs, fs) => {
        shaderError = gl.getShaderInfoLog(vs) || gl.getShaderInfoLog(fs) || gl.getProgramInfoLog(program);
    };
    renderer.setPixelRatio(1);
    // dqview's backgrounds: black for the mask, its dark grey otherwise (linear colours).
    renderer.setClearColor(job.view === "shaded" ? new Color(0.02, 0.02, 0.025) : new Color(0, 0, 0), 1);
    const camera = cameraFromDqview(job.camera);
    if (job.firstMethod !== null) {
        // A frame in the first method (its programs compiled and drawn), then the switch.
        renderer.render(gltf.scene, camera);
        skinning.setMethod(job.method);
    }
    const image = renderResolved4x(renderer, gltf.scene, camera, job.width, job.height);
    if (shaderError !== null) throw new Error(`shader error: ${shaderError.trim()}`);
    const glError = renderer.getContext().getError();
    if (glError !== 0) throw new Error(`WebGL error 0x${glError.toString(16)} while drawing`);
    return jobResult(image, constraints, gltf.scene);
}

const job = JSON.parse(new URLSearchParams(location.search).get("job"));
// WebGPURenderer's page is loaded only for its jobs: three.webgpu.js is large.
const rendered = job.renderer === "webgpu" ? import("./render-page-webgpu.js").then((m) => m.renderWebGPU(job)) : render(job);
rendered.then(
    (result) => window.dqviewDone(JSON.stringify(result)),
    (error) => window.dqviewDone(JSON.stringify({ error: String(error?.message ?? error) })),
);
