// Bounds of a skinned mesh that follow the pose, for three's frustum culling (and raycasting's
// early out): each joint's sphere around the bind-pose vertices it moves, carried by the
// joint's skinning matrix, all enclosed in one sphere. LBS puts a vertex in the convex hull of
// its joints' images of it, so inside that sphere; DQS and hybrid turn it about a blended
// rotation instead, which can leave the hull by at most the vertex's distance from the joint
// turning it, so their sphere grows by the largest such distance.
import { Matrix4, Sphere, Vector3 } from "three";

const _matrix = new Matrix4();
const _centre = new Vector3();

/** The per-joint bind spheres of one mesh and the sphere they make at the current pose. */
export class JointBounds {
    /**
     * `positions` in bind space (after three's bindMatrix), `joints`/`weights` dqview's eight
     * influences a vertex (two sets of four), `morphReach` how far morph targets can move a vertex.
     */
    constructor(skeleton, positions, { joints, weights }, morphReach) {
        this.skeleton = skeleton;
        const count = positions.length / 3;
        const boxes = skeleton.bones.map(() => ({ min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] }));
        for (let v = 0; v < count; v++) {
            for (let k = 0; k < 8; k++) {
                if (weights[k >> 2][4 * v + (k & 3)] === 0) continue;
                const box = boxes[joints[k >> 2][4 * v + (k & 3)]];
                if (box === undefined) continue;
                for (let a = 0; a < 3; a++) {
                    box.min[a] = Math.min(box.min[a], positions[3 * v + a]);
                    box.max[a] = Math.max(box.max[a], positions[3 * v + a]);
                }
            }
        }
        this.spheres = [];
        this.reach = 0;
        boxes.forEach((box, j) => {
            if (!(box.min[0] <= box.max[0])) return;
            const centre = new Vector3().fromArray(box.min).add(new Vector3().fromArray(box.max)).multiplyScalar(0.5);
            const radius = centre.distanceTo(new Vector3().fromArray(box.max)) + morphReach;
            // The joint's bind position: where its inverse bind matrix sends to the origin.
            const origin = new Vector3().setFromMatrixPosition(_matrix.copy(skeleton.boneInverses[j]).invert());
            this.reach = Math.max(this.reach, centre.distanceTo(origin) + radius);
            this.spheres.push({ joint: j, centre, radius });
        });
        this.sphere = new Sphere();
    }

    /**
     * The sphere holding every vertex at the bones' current world matrices, in bind space
     * (three's skinned space); `turning` (DQS, hybrid) adds the rotation reach.
     */
    update(turning) {
        const { bones, boneInverses } = this.skeleton;
        let scale = 0;
        const images = this.spheres.map(({ joint, centre, radius }) => {
            _matrix.multiplyMatrices(bones[joint].matrixWorld, boneInverses[joint]);
            scale = Math.max(scale, _matrix.getMaxScaleOnAxis());
            return { centre: centre.clone().applyMatrix4(_matrix), radius: radius * _matrix.getMaxScaleOnAxis() };
        });
        if (images.length === 0) return this.sphere.makeEmpty();
        _centre.set(0, 0, 0);
        for (const s of images) _centre.add(s.centre);
        _centre.divideScalar(images.length);
        let radius = 0;
        for (const s of images) radius = Math.max(radius, s.centre.distanceTo(_centre) + s.radius);
        this.sphere.set(_centre, radius + (turning ? this.reach * scale : 0));
        return this.sphere;
    }
}
