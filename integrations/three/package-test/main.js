// The installed package in an app: load the model in the URL's job, play its clip with an
// AnimationMixer, skin it with `applyDqviewSkinning` in white MeshBasicMaterials, draw it with
// dqview's camera and report the PNG through `dqviewDone`.
import { AnimationMixer, Color, DoubleSide, MeshBasicMaterial, PerspectiveCamera, WebGLRenderer } from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
import { applyDqviewSkinning } from "dqview-three";

/** The camera `dqview render --camera-out` wrote, its matrices used as given. */
function camera(json) {
    const c = new PerspectiveCamera(json.fov_y_deg, json.aspect, json.near, json.far);
    c.matrixAutoUpdate = c.matrixWorldAutoUpdate = false;
    c.matrixWorld.fromArray(json.world_from_view);
    c.matrixWorldInverse.fromArray(json.view_from_world);
    c.projectionMatrix.fromArray(json.clip_from_view_gl);
    c.projectionMatrixInverse.copy(c.projectionMatrix).invert();
    return c;
}

async function run(job) {
    const gltf = await new GLTFLoader().loadAsync(job.model);
    const white = new MeshBasicMaterial({ color: 0xffffff, side: DoubleSide });
    gltf.scene.traverse((o) => o.isMesh && (o.material = white));
    const skinning = applyDqviewSkinning(gltf.scene, { method: job.method });
    const mixer = new AnimationMixer(gltf.scene);
    mixer.clipAction(gltf.animations.find((a) => a.name === job.clip)).play();
    mixer.setTime(job.time);
    const renderer = new WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
    renderer.setPixelRatio(1);
    renderer.setSize(job.width, job.height);
    renderer.setClearColor(new Color(0, 0, 0), 1);
    document.body.append(renderer.domElement);
    renderer.render(gltf.scene, camera(job.camera));
    return { png: renderer.domElement.toDataURL("image/png"), meshes: skinning.meshes.length };
}

const job = JSON.parse(new URLSearchParams(location.search).get("job"));
run(job).then(
    (result) => window.dqviewDone(JSON.stringify(result)),
    (error) => window.dqviewDone(JSON.stringify({ error: String(error?.message ?? error) })),
);
