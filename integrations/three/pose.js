// Poses a GLTFLoader result as `dqview --clip NAME --time S --twist JOINT=DEG --bend JOINT=DEG`
// does: the clip sampled at S (clamped to the clip, as src/anim/sample.rs clamps to the keys),
// then each joint's twist and bend as src/anim/overrides.rs `JointOverrides::apply` and
// `BoneFrame::of` define them: local rotation <- rotation * bend * twist, the twist about the
// bone axis (the rest translation of the joint's first child joint, else its first child, else
// local +Y) and the bend about the axis perpendicular to the bone nearest local +Z (else +X),
// each by the joint's degrees summed over its flags. Then, when given a
// VRMNodeConstraintManager (render.mjs --constraints), the model's VRMC_node_constraint
// constraints are evaluated on that pose.
import { AnimationMixer, LoopOnce, Quaternion, Vector3 } from "three";

import { jointEntries, resolveClip, resolvePoseNode } from "./names.js";

/** The three.js object of each glTF node index, from GLTFLoader's associations. */
function nodeObjects(gltf) {
    const out = new Map();
    gltf.scene.traverse((object) => {
        const nodes = gltf.parser.associations.get(object)?.nodes;
        if (nodes !== undefined && !out.has(nodes)) out.set(nodes, object);
    });
    return out;
}

/** A node's rest translation from the glTF JSON (a matrix's last column). */
function restTranslation(node) {
    if (node.matrix) return new Vector3(node.matrix[12], node.matrix[13], node.matrix[14]);
    return new Vector3().fromArray(node.translation ?? [0, 0, 0]);
}

/** overrides.rs `BoneFrame::of(..).twist_axis`: towards the first child joint, else the first child, else +Y. */
export function twistAxis(json, node) {
    const joints = new Set(jointEntries(json).map((e) => e.index));
    const children = json.nodes[node].children ?? [];
    const child = children.find((c) => joints.has(c)) ?? children[0];
    if (child === undefined) return new Vector3(0, 1, 0);
    return normalizedOr(restTranslation(json.nodes[child]), new Vector3(0, 1, 0));
}

/** `v` normalised, or `fallback` when it has no length (glam's `try_normalize`, `normalize_or`). */
function normalizedOr(v, fallback) {
    const rcp = 1 / v.length();
    return Number.isFinite(rcp) && rcp > 0 ? v.multiplyScalar(rcp) : fallback;
}

/**
 * overrides.rs `BoneFrame::of`: the twist axis (`twistAxis`) and the bend axis, the part of
 * local +Z perpendicular to it (for a bone along Z, that of +X; else +X itself).
 */
export function boneFrame(json, node) {
    const twist = twistAxis(json, node);
    const off = (axis) => axis.clone().addScaledVector(twist, -twist.dot(axis));
    const bend =
        normalizedOr(off(new Vector3(0, 0, 1)), null) ?? normalizedOr(off(new Vector3(1, 0, 0)), new Vector3(1, 0, 0));
    return { twist, bend };
}

/** Parses `flag`'s `JOINT=DEG` (split at the last `=`) as pose_request.rs `parse_joint_angle`. */
function parseJointAngle(flag, spec) {
    const at = spec.lastIndexOf("=");
    if (at < 0) throw new Error(`${flag}: expected JOINT=DEG, got \`${spec}\``);
    const deg = Number(spec.slice(at + 1).trim());
    if (spec.slice(at + 1).trim() === "" || !Number.isFinite(deg)) {
        throw new Error(`${flag}: \`${spec.slice(at + 1)}\` in \`${spec}\` is not a finite number of degrees`);
    }
    return { joint: spec.slice(0, at), deg };
}

/** The clip to sample: `clip` (name or index), or with only `time` the only clip (pose_request.rs `clip_of`). */
function clipIndex(json, clip, time) {
    const count = (json.animations ?? []).length;
    if (clip !== undefined && clip !== null) {
        try {
            return resolveClip(json, clip);
        } catch (e) {
            throw new Error(`--clip: ${e.message}`);
        }
    }
    if (time === undefined || time === null) return null;
    if (count === 1) return 0;
    if (count === 0) throw new Error("--time without --clip: the model has no clips, only its rest pose");
    throw new Error(`--time without --clip: the model has ${count} clips, pick one with --clip NAME|INDEX`);
}

/**
 * Poses `gltf` (from GLTFLoader): clip `clip` (name or index) at `time` seconds, then the
 * `twists` and `bends` (["JOINT=DEG", ...], summed per joint and kind: rotation <- rotation *
 * bend * twist), then the `constraints` (a VRMNodeConstraintManager from three-vrm's loader
 * plugin, or null), then updates every world matrix. Throws on an unknown clip or joint with
 * dqview's wording. Returns the clip index used (or null).
 */
export function poseGltf(gltf, { clip = null, time = null, twists = [], bends = [], constraints = null } = {}) {
    const json = gltf.parser.json;
    const index = clipIndex(json, clip, time);
    const angles = new Map();
    for (const [flag, kind, specs] of [
        ["--twist", "twist", twists],
        ["--bend", "bend", bends],
    ]) {
        for (const spec of specs) {
            const { joint, deg } = parseJointAngle(flag, spec);
            let node;
            try {
                node = resolvePoseNode(json, joint);
            } catch (e) {
                throw new Error(`${flag}: ${e.message}`);
            }
            const sums = angles.get(node) ?? { twist: 0, bend: 0 };
            sums[kind] += deg;
            angles.set(node, sums);
        }
    }
    if (index !== null) {
        const animation = gltf.animations[index];
        const mixer = new AnimationMixer(gltf.scene);
        const action = mixer.clipAction(animation);
        // Held at the ends, as dqview clamps to the keys.
        action.setLoop(LoopOnce, 1);
        action.clampWhenFinished = true;
        action.play();
        mixer.setTime(Math.min(Math.max(time ?? 0, 0), animation.duration));
    }
    const objects = nodeObjects(gltf);
    for (const [node, { twist, bend }] of angles) {
        if (twist === 0 && bend === 0) continue;
        const object = objects.get(node);
        if (object === undefined) throw new Error(`--twist/--bend: node ${node} is not in the loaded scene`);
        object.quaternion.multiply(overrideRotation(boneFrame(json, node), { twist, bend })).normalize();
    }
    if (constraints !== null) {
        // Aim constraints read world positions; roll and rotation ones the local rotations
        // just set. The manager orders them by their dependencies.
        gltf.scene.updateMatrixWorld(true);
        constraints.update();
    }
    gltf.scene.updateMatrixWorld(true);
    return index;
}

/** overrides.rs `BoneFrame::rotation` without roll: bend * twist, about `frame`'s axes, in degrees. */
export function overrideRotation(frame, { twist = 0, bend = 0 }) {
    const about = (axis, deg) => new Quaternion().setFromAxisAngle(axis, (deg * Math.PI) / 180);
    return about(frame.bend, bend).multiply(about(frame.twist, twist));
}
