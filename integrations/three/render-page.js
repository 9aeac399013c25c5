// Renders the job in this page's URL (`?job=` JSON from render.mjs) and reports the PNG, or
// the error, through the `dqviewDone` binding render.mjs added.
import { Color, DirectionalLight, DoubleSide, HemisphereLight, MeshBasicMaterial, WebGLRenderer } from "three";

import { cameraFromDqview } from "./camera.js";
import { applyDqviewSkinning, loadDqviewShader } from "./dqview-skinning.js";
import { constraintManager, modelLoader } from "./load.js";
import { poseGltf } from "./pose.js";
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
 * Renders `job` ({model, method, clip, time, twists, bends, constraints, camera, width,
 * height, view}) as dqview renders (4x multisampled, sRGB-resolved); the PNG as a data URL and the
 * number of node constraints evaluated.
 */
async function render(job) {
    const stock = job.method === "stock";
    const shader = stock ? null : await loadDqviewShader(job.method);
    const loader = await modelLoader({ constraints: job.constraints });
    const gltf = await loader.loadAsync(job.model).catch((e) => {
        throw new Error(`cannot load ${job.modelName}: ${e?.message ?? e}`);
    });
    const constraints = job.constraints ? constraintManager(gltf) : null;
    poseGltf(gltf, { clip: job.clip, time: job.time, twists: job.twists, bends: job.bends, constraints });
    // Stock: three's SkinnedMesh skinning (its LBS, bone texture and all), as any three.js app.
    if (!stock) applyDqviewSkinning(gltf.scene, shader, { view: job.view });
    prepareThreeMeshes(gltf.scene, job.view, { skinned: stock });
    if (job.view !== "mask") {
        gltf.scene.add(new HemisphereLight(0xffffff, 0x404040, 1.5));
        const key = new DirectionalLight(0xffffff, 2.0);
        key.position.set(0.4, 0.8, 0.6);
        gltf.scene.add(key);
    }
    const canvas = document.createElement("canvas");
    document.body.append(canvas);
    const renderer = new WebGLRenderer({ canvas, antialias: false });
    let shaderError = null;
    renderer.debug.onShaderError = (gl, program, vs, fs) => {
        shaderError = gl.getShaderInfoLog(vs) || gl.getShaderInfoLog(fs) || gl.getProgramInfoLog(program);
    };
    renderer.setPixelRatio(1);
    // dqview's backgrounds: black for the mask, its dark grey otherwise (linear colours).
    renderer.setClearColor(job.view === "mask" ? new Color(0, 0, 0) : new Color(0.02, 0.02, 0.025), 1);
    const image = renderResolved4x(renderer, gltf.scene, cameraFromDqview(job.camera), job.width, job.height);
    if (shaderError !== null) throw new Error(`shader error: ${shaderError.trim()}`);
    const glError = renderer.getContext().getError();
    if (glError !== 0) throw new Error(`WebGL error 0x${glError.toString(16)} while drawing`);
    const out = document.createElement("canvas");
    [out.width, out.height] = [job.width, job.height];
    out.getContext("2d").putImageData(image, 0, 0);
    return { png: out.toDataURL("image/png"), constraints: constraints?.constraints.size ?? 0 };
}

const job = JSON.parse(new URLSearchParams(location.search).get("job"));
render(job).then(
    (result) => window.dqviewDone(JSON.stringify(result)),
    (error) => window.dqviewDone(JSON.stringify({ error: String(error?.message ?? error) })),
);
