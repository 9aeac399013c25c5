// The example page: a glTF or VRM model in its own materials, skinned by `applyDqviewSkinning`,
// the method, a joint's twist and the clip time picked in the panel, shadows on a ground plane,
// the camera orbiting with the mouse. `?test=1` runs the page's self-check (tests/three_example.rs).
import {
    AnimationMixer,
    Box3,
    DirectionalLight,
    HemisphereLight,
    Mesh,
    MeshStandardMaterial,
    PCFShadowMap,
    PerspectiveCamera,
    PlaneGeometry,
    Scene,
    Vector3,
    WebGLRenderer,
} from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";

import { boneFrame, overrideRotation } from "./pose.js";
import { applyDqviewSkinning } from "./skinning.js";
import { meshesWithoutCorCenters, skinnedMeshesOf } from "./skinning-shared.js";

const $ = (id) => document.getElementById(id);
const renderer = new WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
renderer.setClearColor(0x0d0d10);
renderer.shadowMap.enabled = true;
renderer.shadowMap.type = PCFShadowMap;
document.body.append(renderer.domElement);
const camera = new PerspectiveCamera(35, 1, 0.01, 1000);
const controls = new OrbitControls(camera, renderer.domElement);
const scene = new Scene();
scene.add(new HemisphereLight(0xffffff, 0x404040, 1.5));
const key = new DirectionalLight(0xffffff, 2.0);
key.castShadow = true;
key.shadow.mapSize.set(2048, 2048);
scene.add(key, key.target);
const ground = new Mesh(new PlaneGeometry(1, 1), new MeshStandardMaterial({ color: 0x303036 }));
ground.rotation.x = -Math.PI / 2;
ground.receiveShadow = true;
scene.add(ground);
/** The loaded model, its skinning, clip, mixer, and the twisted joint with its pose before the twist. */
const state = { gltf: null, skinning: null, clip: null, mixer: null, joint: null, untwisted: null };

/** Shows `text` under the panel. */
function status(text) {
    $("status").textContent = text;
}

/** Frames the model's rest bounds and fits the ground and the shadow camera to them. */
function frame(object) {
    const box = new Box3().setFromObject(object, true);
    const centre = box.getCenter(new Vector3());
    const radius = box.getSize(new Vector3()).length() / 2 || 1;
    camera.position.copy(centre).add(new Vector3(0.35, 0.25, 1).normalize().multiplyScalar(radius * 3.2));
    Object.assign(camera, { near: radius / 100, far: radius * 100 });
    camera.updateProjectionMatrix();
    controls.target.copy(centre);
    controls.update();
    ground.scale.setScalar(radius * 12);
    ground.position.set(centre.x, box.min.y, centre.z);
    key.position.copy(centre).add(new Vector3(0.4, 1, 0.6).normalize().multiplyScalar(radius * 3));
    key.target.position.copy(centre);
    Object.assign(key.shadow.camera, { left: -radius * 1.5, right: radius * 1.5, top: radius * 1.5, bottom: -radius * 1.5, near: 0, far: radius * 8 });
    key.shadow.camera.updateProjectionMatrix();
}

/** The skin joints of the model as [node index, name], the first skin's first. */
function jointList(gltf) {
    const json = gltf.parser.json;
    const seen = new Set();
    const out = [];
    for (const skin of json.skins ?? []) {
        for (const j of skin.joints) if (!seen.has(j) && seen.add(j)) out.push([j, json.nodes[j].name ?? `node ${j}`]);
    }
    return out;
}

/** Applies the panel's method and beta; a method the model cannot take (CoR without centres) is said and undone. */
function applyMethod() {
    try {
        state.skinning?.setMethod($("method").value);
    } catch (e) {
        $("method").value = state.skinning.method;
        status(e.message);
        return;
    }
    state.skinning?.setBeta(Number($("beta").value));
    $("betaValue").textContent = Number($("beta").value).toFixed(2);
    status(`${state.skinning?.meshes.length ?? 0} skinned meshes: ${$("method").selectedOptions[0].text}`);
}

/** Picks the clip the panel names (paused at its start) or the rest pose. */
function applyClip() {
    state.mixer?.stopAllAction();
    state.clip = state.gltf?.animations[Number($("clip").value)] ?? null;
    state.mixer = null;
    if ($("clip").value !== "" && state.clip) {
        state.mixer = new AnimationMixer(state.gltf.scene);
        state.mixer.clipAction(state.clip).play();
    }
    $("time").max = state.clip?.duration ?? 1;
    $("time").value = 0;
}

/** Picks the joint the twist slider turns (its pose restored first). */
function applyJoint() {
    if (state.joint) state.joint.quaternion.copy(state.untwisted);
    const node = Number($("joint").value);
    state.gltf.parser.getDependency("node", node).then((object) => {
        state.joint = object;
        state.jointFrame = boneFrame(state.gltf.parser.json, node);
        state.untwisted = object.quaternion.clone();
    });
}

/** Loads the model at `url` in its own materials, skinned by dqview. */
async function load(url) {
    status(`loading ${url}`);
    const loader = new GLTFLoader();
    try {
        const { MToonMaterialLoaderPlugin } = await import("@pixiv/three-vrm-materials-mtoon");
        loader.register((parser) => new MToonMaterialLoaderPlugin(parser));
    } catch {
        // Without three-vrm a VRM shows its glTF fallback materials.
    }
    const gltf = await loader.loadAsync(url);
    if (state.gltf) scene.remove(state.gltf.scene);
    state.skinning?.dispose();
    gltf.scene.traverse((o) => o.isMesh && (o.castShadow = o.receiveShadow = true));
    // CoR needs the model's centres: a file without them opens in DQS (the panel says why on a switch).
    const without = meshesWithoutCorCenters(skinnedMeshesOf(gltf.scene));
    if ($("method").value === "cor" && without.length > 0) $("method").value = "dqs";
    Object.assign(state, { gltf, joint: null, skinning: applyDqviewSkinning(gltf.scene, { method: $("method").value }) });
    scene.add(gltf.scene);
    $("clip").replaceChildren(new Option("rest pose", ""), ...gltf.animations.map((a, i) => new Option(a.name, i)));
    $("joint").replaceChildren(...jointList(gltf).map(([j, name]) => new Option(name, j)));
    frame(gltf.scene);
    applyClip();
    applyJoint();
    applyMethod();
}

/** One frame's pose: the clip at the slider's time, then the twist on top. */
function pose(dt) {
    if (state.joint) state.joint.quaternion.copy(state.untwisted);
    if (state.mixer) {
        if ($("play").checked) $("time").value = (Number($("time").value) + dt) % state.clip.duration;
        state.mixer.setTime(Number($("time").value));
    }
    $("timeValue").textContent = `${Number($("time").value).toFixed(2)} s`;
    $("twistValue").textContent = `${$("twist").value}°`;
    if (state.joint) {
        state.untwisted.copy(state.joint.quaternion);
        state.joint.quaternion.multiply(overrideRotation(state.jointFrame, { twist: Number($("twist").value) }));
    }
}

function resize() {
    renderer.setSize(window.innerWidth, window.innerHeight);
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
}

const loadReporting = (url) => load(url).catch((e) => status(`cannot load ${url}: ${e.message ?? e}`));
$("load").onclick = () => loadReporting($("url").value);
$("file").onchange = (e) => e.target.files[0] && loadReporting(URL.createObjectURL(e.target.files[0]));
document.body.ondragover = (e) => (e.preventDefault(), document.body.classList.add("dragging"));
document.body.ondragleave = () => document.body.classList.remove("dragging");
document.body.ondrop = (e) => {
    e.preventDefault();
    document.body.classList.remove("dragging");
    const file = e.dataTransfer.files[0];
    if (!file) return;
    if (!/\.(glb|vrm)$/i.test(file.name)) return status(`${file.name}: drop a .glb or .vrm (a .gltf needs its files beside it: load it by URL)`);
    loadReporting(URL.createObjectURL(file));
};
for (const id of ["method", "beta"]) $(id).oninput = () => applyMethod();
$("clip").onchange = applyClip;
$("joint").onchange = applyJoint;
$("shadows").onchange = () => (key.castShadow = $("shadows").checked);
window.addEventListener("resize", resize);
resize();
let last = performance.now();
renderer.setAnimationLoop((now) => {
    pose((now - last) / 1000);
    last = now;
    renderer.render(scene, camera);
});

if (new URLSearchParams(location.search).has("test")) {
    import("./example-check.js").then(({ selfCheck }) => selfCheck({ $, load, renderer, scene, camera, state, pose }));
} else {
    loadReporting($("url").value);
}
