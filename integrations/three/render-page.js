// Renders the job in this page's URL (`?job=` JSON from render.mjs) and reports the PNG, or
// the error, through the `dqviewDone` binding render.mjs added.
import { Color, DirectionalLight, DoubleSide, HemisphereLight, MeshBasicMaterial, WebGLRenderer } from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";

import { cameraFromDqview } from "./camera.js";
import { applyDqviewSkinning, loadDqviewShader } from "./dqview-skinning.js";
import { poseGltf } from "./pose.js";
import { renderResolved4x } from "./resolve4x.js";

/** Rigid meshes as dqview draws them: both faces; in the mask flat white. */
function prepareRigidMeshes(root, view) {
    const white = new MeshBasicMaterial({ color: 0xffffff, side: DoubleSide });
    root.traverse((object) => {
        if (!object.isMesh || object.isSkinnedMesh) return;
        if (view === "mask") {
            object.material = white;
        } else {
            for (const m of [object.material].flat()) m.side = DoubleSide;
        }
    });
}

/**
 * Renders `job` ({model, method, clip, time, twists, camera, width, height, view}) as dqview
 * renders (4x multisampled, sRGB-resolved); the PNG as a data URL.
 */
async function render(job) {
    const shader = await loadDqviewShader(job.method);
    const gltf = await new GLTFLoader().loadAsync(job.model).catch((e) => {
        throw new Error(`cannot load ${job.modelName}: ${e?.message ?? e}`);
    });
    poseGltf(gltf, job);
    applyDqviewSkinning(gltf.scene, shader, { view: job.view });
    prepareRigidMeshes(gltf.scene, job.view);
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
    return out.toDataURL("image/png");
}

const job = JSON.parse(new URLSearchParams(location.search).get("job"));
render(job).then(
    (png) => window.dqviewDone(JSON.stringify({ png })),
    (error) => window.dqviewDone(JSON.stringify({ error: String(error?.message ?? error) })),
);
