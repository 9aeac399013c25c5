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
            this.spheres.push({ joint: j, centre, radius, image: new Vector3(), imageRadius: 0 });
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
        _centre.set(0, 0, 0);
        for (const s of this.spheres) {
            _matrix.multiplyMatrices(bones[s.joint].matrixWorld, boneInverses[s.joint]);
            const axis = _matrix.getMaxScaleOnAxis();
            scale = Math.max(scale, axis);
            s.image.copy(s.centre).applyMatrix4(_matrix);
            s.imageRadius = s.radius * axis;
            _centre.add(s.image);
        }
        if (this.spheres.length === 0) return this.sphere.makeEmpty();
        _centre.divideScalar(this.spheres.length);
        let radius = 0;
        for (const s of this.spheres) radius = Math.max(radius, s.image.distanceTo(_centre) + s.imageRadius);
        this.sphere.set(_centre, radius + (turning ? this.reach * scale : 0));
        return this.sphere;
    }
}
