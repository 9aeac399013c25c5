// Times frames of a model (or a crowd of its clones) drawn in its glTF materials with three's
// own skinning and with the package's methods, in one page: the methods take turns, frame by
// frame, so a slowdown of the machine falls on all alike. A frame is the clip advanced (the
// AnimationMixer and the palette update), drawn, and waited for (a one-pixel readback).
import { AnimationMixer, Color, DirectionalLight, HemisphereLight, PerspectiveCamera, Scene, Vector3, WebGLRenderer, Box3 } from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
import { clone } from "three/addons/utils/SkeletonUtils.js";

import { applyDqviewSkinning } from "./skinning.js";
import { meshesWithoutCorCenters } from "./skinning-shared.js";

/** The median of `values`. */
function median(values) {
    const s = [...values].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** `count` copies of the loaded scene on a square grid, each with its own skeleton and mixer playing `clip`. */
function crowd(gltf, count, clip) {
    const scene = new Scene();
    const size = new Box3().setFromObject(gltf.scene).getSize(new Vector3());
    const spacing = Math.max(size.x, size.z) * 1.2 || 1;
    const side = Math.ceil(Math.sqrt(count));
    const mixers = [];
    for (let i = 0; i < count; i++) {
        const copy = i === 0 ? gltf.scene : clone(gltf.scene);
        copy.position.set((i % side) * spacing, 0, Math.floor(i / side) * spacing);
        scene.add(copy);
        if (clip) {
            const mixer = new AnimationMixer(copy);
            mixer.clipAction(clip).play();
            mixer.setTime((i * 0.137) % clip.duration);
            mixers.push(mixer);
        }
    }
    return { scene, mixers, extent: side * spacing };
}

/** Counts the vertices of the skinned meshes under `root`. */
function skinnedVertices(root) {
    let n = 0;
    root.traverse((o) => o.isSkinnedMesh && (n += o.geometry.attributes.position.count));
    return n;
}

async function bench(job) {
    const gltf = await new GLTFLoader().loadAsync(job.model);
    const clip = gltf.animations.find((a) => a.name === job.clip) ?? gltf.animations[0] ?? null;
    const { scene, mixers, extent } = crowd(gltf, job.crowd, clip);
    scene.add(new HemisphereLight(0xffffff, 0x404040, 1.5));
    const key = new DirectionalLight(0xffffff, 2);
    key.position.set(0.4, 0.8, 0.6);
    scene.add(key);
    scene.traverse((o) => o.isSkinnedMesh && (o.frustumCulled = true));
    const renderer = new WebGLRenderer({ antialias: false });
    renderer.setPixelRatio(1);
    renderer.setSize(job.width, job.height);
    renderer.setClearColor(new Color(0.02, 0.02, 0.025), 1);
    document.body.append(renderer.domElement);
    const box = new Box3().setFromObject(scene);
    const centre = box.getCenter(new Vector3());
    const camera = new PerspectiveCamera(35, job.width / job.height, extent / 100, extent * 20);
    camera.position.copy(centre).add(new Vector3(0.3, 0.4, 1).normalize().multiplyScalar(Math.max(extent, box.getSize(new Vector3()).y) * 1.8));
    camera.lookAt(centre);
    const skinning = applyDqviewSkinning(scene, { method: "stock" });
    // CoR only where every mesh has its centres (the package refuses it otherwise).
    const centres = meshesWithoutCorCenters(skinning.meshes).length === 0;
    job.methods = job.methods.filter((m) => m !== "cor" || centres);
    const gl = renderer.getContext();
    const pixel = new Uint8Array(4);
    const frame = () => {
        for (const m of mixers) m.update(1 / 60);
        const start = performance.now();
        renderer.render(scene, camera);
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
        return performance.now() - start;
    };
    const times = Object.fromEntries(job.methods.map((m) => [m, []]));
    // Warm-up: every method's programs compiled and its palette made.
    for (const m of job.methods) {
        skinning.setMethod(m);
        for (let i = 0; i < 2; i++) frame();
    }
    for (let f = 0; f < job.frames; f++) {
        for (let k = 0; k < job.methods.length; k++) {
            const m = job.methods[(f + k) % job.methods.length];
            skinning.setMethod(m);
            // setMethod recompiles nothing after the warm-up, but its first frame binds: not timed.
            frame();
            times[m].push(frame());
        }
    }
    const medians = Object.fromEntries(job.methods.map((m) => [m, median(times[m])]));
    return { medians, vertices: skinnedVertices(scene), meshes: skinning.meshes.length, renderer: gl.getParameter(gl.RENDERER) };
}

const job = JSON.parse(new URLSearchParams(location.search).get("job"));
bench(job).then(
    (result) => window.dqviewDone(JSON.stringify(result)),
    (error) => window.dqviewDone(JSON.stringify({ error: String(error?.message ?? error) })),
);
