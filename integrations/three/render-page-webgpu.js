// render.mjs's `--renderer webgpu` jobs: the model drawn by three.js's WebGPURenderer (on its
// WebGL2 backend here: headless Chromium has no WebGPU adapter on SwiftShader) in node
// materials, the skinned meshes skinned by the package's node path (node-skinning.js). The
// image is resolved from dqview's 4 sample positions as the WebGL page's is (resolve4x.js),
// the tiles read back from the canvas.
import {
    Color,
    DoubleSide,
    MeshBasicNodeMaterial,
    MeshLambertNodeMaterial,
    MeshPhongNodeMaterial,
    MeshPhysicalNodeMaterial,
    MeshStandardNodeMaterial,
    MeshToonNodeMaterial,
    Scene,
    WebGPURenderer,
} from "three/webgpu";
import { vec4 } from "three/tsl";

import { cameraFromDqview } from "./camera.js";
import { addLights, jobResult, loadPosedModel } from "./harness-scene.js";
import { applyDqviewNodeSkinning } from "./node-skinning.js";
import { renderResolved4x } from "./resolve4x.js";

/** `--material`'s built-in kinds as node materials; "gltf" keeps the loader's classic ones, which WebGPURenderer converts. */
const NODE_KINDS = {
    basic: MeshBasicNodeMaterial,
    lambert: MeshLambertNodeMaterial,
    phong: MeshPhongNodeMaterial,
    standard: MeshStandardNodeMaterial,
    physical: MeshPhysicalNodeMaterial,
    toon: MeshToonNodeMaterial,
};

/** A node material of `kind` in place of `source` (its colour and texture kept), or `source` for gltf. */
function nodeMaterialOfKind(kind, source) {
    const Kind = NODE_KINDS[kind];
    if (Kind === undefined) return source;
    const material = new Kind({ side: DoubleSide });
    if (source?.color) material.color.copy(source.color);
    material.map = source?.map ?? null;
    return material;
}

/** Flat white out of `material` (node or classic: an own property, which the conversion copies), its vertex stage as it is. */
function forceWhiteNode(material) {
    material.fragmentNode = vec4(1);
}

/**
 * The skinned meshes in materials of `job.material`'s kind skinned by the node path, the rigid
 * meshes white or as loaded; both faces drawn, as dqview draws them. Returns the skinning.
 */
function prepareMeshes(root, job) {
    const white = new MeshBasicNodeMaterial({ color: 0xffffff, side: DoubleSide });
    root.traverse((object) => {
        if (!object.isMesh) return;
        if (object.isSkinnedMesh) object.material = nodeMaterialOfKind(job.material, object.material);
        else if (job.view === "mask") object.material = white;
        for (const m of [object.material].flat()) {
            m.side = DoubleSide;
            if (job.view === "mask" && object.isSkinnedMesh) forceWhiteNode(m);
        }
    });
    return applyDqviewNodeSkinning(root, { method: job.firstMethod ?? job.method, beta: job.beta ?? 1 });
}

/** The canvas's pixels, bottom row first as readPixels gives them (what addSamples reads). */
function canvasPixels(canvas, reader) {
    const { width, height } = canvas;
    [reader.canvas.width, reader.canvas.height] = [width, height];
    reader.clearRect(0, 0, width, height);
    reader.drawImage(canvas, 0, 0);
    const top = reader.getImageData(0, 0, width, height).data;
    const out = new Uint8Array(top.length);
    const row = 4 * width;
    for (let y = 0; y < height; y++) out.set(top.subarray(y * row, (y + 1) * row), (height - 1 - y) * row);
    return out;
}

/**
 * The errors logged from now until `stop()`: a node material that fails to build or compile is
 * only logged by three, and the job should fail rather than draw without it.
 */
function captureErrors() {
    const errors = [];
    const log = console.error;
    console.error = (...args) => {
        errors.push(args.map(String).join(" "));
        log(...args);
    };
    errors.stop = () => {
        console.error = log;
    };
    return errors;
}

/**
 * Renders `job` (render.mjs's, with --renderer webgpu) with WebGPURenderer forced onto its
 * WebGL2 backend; the PNG as a data URL, the constraints evaluated and the material types.
 */
export async function renderWebGPU(job) {
    const { gltf, constraints } = await loadPosedModel(job, { mtoon: false });
    const skinning = prepareMeshes(gltf.scene, job);
    // A Scene, not the loader's Group: WebGPURenderer draws shadow maps from the frame's scene,
    // which for a Group is an empty stand-in.
    const scene = new Scene();
    scene.add(gltf.scene);
    const canvas = document.createElement("canvas");
    document.body.append(canvas);
    const renderer = new WebGPURenderer({ canvas, antialias: false, forceWebGL: true });
    await renderer.init();
    const errors = captureErrors();
    renderer.onDeviceLost = (info) => errors.push(`device lost: ${info.message}`);
    addLights(gltf.scene, renderer, job);
    renderer.setPixelRatio(1);
    renderer.setClearColor(job.view === "shaded" ? new Color(0.02, 0.02, 0.025) : new Color(0, 0, 0), 1);
    const camera = cameraFromDqview(job.camera);
    if (job.firstMethod !== null) {
        // A frame in the first method (its programs built and drawn), then the switch.
        renderer.setSize(job.width, job.height, false);
        renderer.render(scene, camera);
        skinning.setMethod(job.method);
        // WebGPURenderer's frame (its node frame id, which shadow maps and skeleton updates go
        // by) advances once an animation frame, not per render: the switch's frame is the next.
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    }
    let image;
    try {
        // Each tile read from the canvas in the same task (before it is presented and cleared).
        const reader = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
        const readTile = (r) => canvasPixels(r.domElement, reader);
        image = renderResolved4x(renderer, scene, camera, job.width, job.height, readTile);
    } finally {
        errors.stop();
    }
    if (errors.length > 0) throw new Error(errors[0].split("\n")[0]);
    return jobResult(image, constraints, gltf.scene);
}
