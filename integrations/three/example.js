// The example page: a glTF model skinned by dqview's exported shader, the method, view and
// clip picked in the panel, the camera orbiting with the mouse.
import {
    AnimationMixer,
    Box3,
    DirectionalLight,
    DoubleSide,
    HemisphereLight,
    MeshBasicMaterial,
    PerspectiveCamera,
    Scene,
    Timer,
    Vector3,
    WebGLRenderer,
} from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";

import { applyDqviewSkinning, loadDqviewShader } from "./dqview-skinning.js";

const $ = (id) => document.getElementById(id);
const renderer = new WebGLRenderer({ antialias: true });
renderer.setPixelRatio(window.devicePixelRatio);
renderer.setClearColor(0x0d0d10);
document.body.append(renderer.domElement);
const camera = new PerspectiveCamera(35, 1, 0.01, 1000);
const controls = new OrbitControls(camera, renderer.domElement);
const scene = new Scene();
scene.add(new HemisphereLight(0xffffff, 0x404040, 1.5));
const key = new DirectionalLight(0xffffff, 2.0);
key.position.set(0.4, 0.8, 0.6);
scene.add(key);
const timer = new Timer();
const state = { gltf: null, skinning: null, mixer: null, rigidMaterials: new Map() };

/** Shows `text` under the panel. */
function status(text) {
    $("status").textContent = text;
}

/** Frames the model's rest bounds. */
function frame(object) {
    const box = new Box3().setFromObject(object, true);
    const centre = box.getCenter(new Vector3());
    const radius = box.getSize(new Vector3()).length() / 2 || 1;
    camera.position.copy(centre).add(new Vector3(0.35, 0.25, 1).normalize().multiplyScalar(radius * 3.2));
    camera.near = radius / 100;
    camera.far = radius * 100;
    camera.updateProjectionMatrix();
    controls.target.copy(centre);
    controls.update();
}

/** (Re)applies the method and view the panel shows to the loaded model. */
async function applyMethod() {
    if (!state.gltf) return;
    const method = $("method").value;
    const view = $("view").value;
    const shader = await loadDqviewShader(method);
    state.skinning?.dispose();
    state.skinning = applyDqviewSkinning(state.gltf.scene, shader, { view, beta: Number($("beta").value) });
    state.gltf.scene.traverse((o) => {
        if (!o.isMesh || o.isSkinnedMesh) return;
        if (!state.rigidMaterials.has(o)) state.rigidMaterials.set(o, o.material);
        o.material =
            view === "mask"
                ? new MeshBasicMaterial({ color: 0xffffff, side: DoubleSide })
                : state.rigidMaterials.get(o);
        for (const m of [o.material].flat()) m.side = DoubleSide;
    });
    renderer.setClearColor(view === "mask" ? 0x000000 : 0x0d0d10);
    status(`${state.skinning.meshes.length} skinned meshes, ${state.skinning.skins.length} skins: ${method}`);
}

/** Plays the clip the panel picks (or the rest pose). */
function applyClip() {
    state.mixer?.stopAllAction();
    state.mixer = null;
    const clip = state.gltf?.animations[Number($("clip").value)];
    if (!clip || $("clip").value === "") return;
    state.mixer = new AnimationMixer(state.gltf.scene);
    state.mixer.clipAction(clip).play();
}

/** Loads the model at `url` and shows it with the panel's choices. */
async function load(url) {
    status(`loading ${url}`);
    try {
        const gltf = await new GLTFLoader().loadAsync(url);
        if (state.gltf) scene.remove(state.gltf.scene);
        state.skinning?.dispose();
        Object.assign(state, { gltf, skinning: null, mixer: null, rigidMaterials: new Map() });
        scene.add(gltf.scene);
        $("clip").replaceChildren(new Option("rest pose", ""), ...gltf.animations.map((a, i) => new Option(a.name, i)));
        frame(gltf.scene);
        await applyMethod();
        applyClip();
    } catch (e) {
        status(`cannot load ${url}: ${e.message ?? e}`);
    }
}

function resize() {
    renderer.setSize(window.innerWidth, window.innerHeight);
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
}

$("load").onclick = () => load($("url").value);
$("file").onchange = (e) => e.target.files[0] && load(URL.createObjectURL(e.target.files[0]));
for (const id of ["method", "view", "beta"]) $(id).onchange = () => applyMethod().catch((e) => status(e.message));
$("clip").onchange = applyClip;
window.addEventListener("resize", resize);
resize();
renderer.setAnimationLoop((time) => {
    timer.update(time);
    const dt = timer.getDelta();
    if (state.mixer && $("play").checked) state.mixer.update(dt);
    renderer.render(scene, camera);
});
load($("url").value);
