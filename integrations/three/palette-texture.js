// One skeleton's dqview palette as a float texture (the layout `dqview shader --target three`
// reads, docs/engines.md): texel (0, 0) = (joint_count, non_rigid, beta_scale, 0); row 1 + j =
// joint j: its dual quaternion (2 texels), matrix columns (4), scale/shear columns (3). It
// takes the place of the skeleton's `boneTexture`, which three binds for every skinned mesh
// it draws, so meshes sharing a material still each read their own skeleton's palette.
import { DataTexture, FloatType, NearestFilter, RGBAFormat } from "three";

import { fillPalette } from "./palette.js";

/** Texels in one joint's row: the texture's width. */
export const TEXELS_PER_JOINT = 9;
/** Rows a WebGL2 texture is sure to have (`MAX_TEXTURE_SIZE` >= 2048): joints + 1 at most. */
export const MAX_ROWS = 2048;

/** The palette texture of one skeleton, refilled from its bone matrices. */
export class PaletteTexture {
    constructor(skeleton) {
        const joints = skeleton.bones.length;
        if (joints + 1 > MAX_ROWS) {
            throw new Error(`dqview skinning: a skeleton of ${joints} joints exceeds the palette texture (${MAX_ROWS - 1} joints)`);
        }
        this.skeleton = skeleton;
        this.data = new Float32Array(4 * TEXELS_PER_JOINT * (joints + 1));
        this.texture = new DataTexture(this.data, TEXELS_PER_JOINT, joints + 1, RGBAFormat, FloatType);
        this.texture.magFilter = this.texture.minFilter = NearestFilter;
        this.texture.name = "dqview palette";
        this.arrays = {
            dualQuats: new Float32Array(8 * joints),
            matrices: new Float32Array(16 * joints),
            scaleShears: new Float32Array(12 * joints),
        };
        this.betaScale = 1;
        this.nonRigid = false;
    }

    /**
     * Refills the texture from `skeleton.boneMatrices` (bone.matrixWorld * boneInverse, which
     * `Skeleton.update` has just written: the palette dqview computes) and flags its upload.
     */
    refill() {
        const { bones, boneMatrices } = this.skeleton;
        const skinning = bones.map((_, j) => boneMatrices.subarray(16 * j, 16 * j + 16));
        this.nonRigid = fillPalette(skinning, this.arrays).nonRigid;
        const { data } = this;
        const row = 4 * TEXELS_PER_JOINT;
        data.set([bones.length, this.nonRigid ? 1 : 0, this.betaScale, 0], 0);
        for (let j = 0; j < bones.length; j++) {
            const at = row * (j + 1);
            data.set(this.arrays.dualQuats.subarray(8 * j, 8 * j + 8), at);
            data.set(this.arrays.matrices.subarray(16 * j, 16 * j + 16), at + 8);
            data.set(this.arrays.scaleShears.subarray(12 * j, 12 * j + 12), at + 24);
        }
        this.texture.needsUpdate = true;
    }

    /** Frees the texture. */
    dispose() {
        this.texture.dispose();
    }
}
