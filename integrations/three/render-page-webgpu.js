// render.mjs's `--renderer webgpu` jobs: the model drawn by three.js's WebGPURenderer (on its
// WebGL2 backend here: headless Chromium has no WebGPU adapter on SwiftShader) in node
// materials, the skinned meshes skinned by the package's node path (node-skinning.js). The
// image is resolved from dqview's 4 sample positions as the WebGL page's is (resolve4x.js),
// the tiles read back from the canvas.
import {
    Color,
    DirectionalLight,
    DoubleSide,
    HemisphereLight,
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
import { addShadows } from "./harness-scene.js";
import { constraintManager, modelLoader } from "./load.js";
import { applyDqviewNodeSkinning } from "./node-skinning.js";
import { poseGltf } from "./pose.js";
import { SCALE, TILE, addSamples, resolvedImage, tileProjection } from "./resolve4x.js";

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

/** The distinct material types of the skinned meshes under `root`, sorted. */
function skinnedMaterialTypes(root) {
    const types = new Set();
    root.traverse((o) => o.isSkinnedMesh && [o.material].flat().forEach((m) => types.add(m.type)));
    return [...types].sort();
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
 * `scene` seen by `camera`, `width` x `height`, resolved from dqview's 4 sample positions as
 * renderResolved4x does: tiles rendered at 8x without antialiasing, each read back from the
 * canvas in the same task (before it is presented and cleared). Returns ImageData.
 */
function renderResolved4xCanvas(renderer, scene, camera, width, height) {
    const projection = camera.projectionMatrix.clone();
    const sum = new Float32Array(3 * width * height);
    const reader = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
    for (let y0 = 0; y0 < height; y0 += TILE) {
        for (let x0 = 0; x0 < width; x0 += TILE) {
            const tile = [x0, y0, Math.min(TILE, width - x0), Math.min(TILE, height - y0)];
            renderer.setSize(tile[2] * SCALE, tile[3] * SCALE, false);
            camera.projectionMatrix.copy(tileProjection(projection, [width, height], tile));
            camera.projectionMatrixInverse.copy(camera.projectionMatrix).invert();
            renderer.render(scene, camera);
            addSamples(canvasPixels(renderer.domElement, reader), [width, height], tile, sum);
        }
    }
    camera.projectionMatrix.copy(projection);
    camera.projectionMatrixInverse.copy(projection).invert();
    return resolvedImage(sum, width, height);
}

/** Lights (and the shadow map) for the shaded and shadow views, as the WebGL page adds them. */
function addLights(scene, renderer, job) {
    if (job.view === "mask") return;
    const key = new DirectionalLight(0xffffff, 2.0);
    key.position.set(0.4, 0.8, 0.6);
    scene.add(key);
    if (job.view === "shaded") scene.add(new HemisphereLight(0xffffff, 0x404040, 1.5));
    if (job.shadows || job.view === "shadow") {
        addShadows(scene, key, renderer, { camera: job.camera, shadowOnly: job.view === "shadow" });
    }
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
    const loader = await modelLoader({ constraints: job.constraints, mtoon: false });
    const gltf = await loader.loadAsync(job.model).catch((e) => {
        throw new Error(`cannot load ${job.modelName}: ${e?.message ?? e}`);
    });
    const constraints = job.constraints ? constraintManager(gltf) : null;
    poseGltf(gltf, { clip: job.clip, time: job.time, twists: job.twists, bends: job.bends, constraints });
    if (job.bindPose) {
        gltf.scene.traverse((o) => o.isSkinnedMesh && o.skeleton.pose());
        gltf.scene.updateMatrixWorld(true);
    }
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
        image = renderResolved4xCanvas(renderer, scene, camera, job.width, job.height);
    } finally {
        errors.stop();
    }
    if (errors.length > 0) throw new Error(errors[0].split("\n")[0]);
    const out = document.createElement("canvas");
    [out.width, out.height] = [job.width, job.height];
    out.getContext("2d").putImageData(image, 0, 0);
    return {
        png: out.toDataURL("image/png"),
        constraints: constraints?.constraints.size ?? 0,
        materials: skinnedMaterialTypes(gltf.scene),
    };
}
