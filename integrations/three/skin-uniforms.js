// The uniform blocks of one skin (one three.js Skeleton): the palette, recomputed from the
// bones once per frame, and SkinParams, as three `UniformsGroup`s bound to the blocks by their
// stable names (`dqview_params`, `dqview_joint_matrices`, ...).
import { Matrix4, Uniform, UniformsGroup } from "three";

import { fillPalette } from "./palette.js";
import { BLOCKS } from "./shader-interface.js";

/** A `Uniform` three uploads as a GLSL `uint` (its __data is then a Uint32Array). */
function uintUniform(value) {
    const u = new Uniform(value);
    u.type = "uint";
    return u;
}

/** One skin's palette and parameter blocks for the shader interface `iface`. */
export class SkinUniforms {
    constructor(skeleton, iface) {
        this.skeleton = skeleton;
        this.iface = iface;
        const palette = [BLOCKS.dualQuats, BLOCKS.matrices, BLOCKS.scaleShears]
            .map((b) => iface.blocks[b])
            .filter((b) => b !== undefined);
        const capacity = palette[0].length;
        if (skeleton.bones.length > capacity) {
            throw new Error(
                `the skin has ${skeleton.bones.length} joints but the shader holds ${capacity} ` +
                    `(write it with \`dqview shader --joints ${skeleton.bones.length}\`)`,
            );
        }
        // Every array is kept (the CPU fills all three); only the blocks the shader declares are bound.
        this.arrays = {
            dualQuats: new Float32Array(8 * capacity),
            matrices: new Float32Array(16 * capacity),
            scaleShears: new Float32Array(12 * capacity),
        };
        this.paletteGroups = [];
        for (const [key, name] of Object.entries(BLOCKS)) {
            const block = iface.blocks[name];
            if (key === "params" || block === undefined) continue;
            const group = new UniformsGroup();
            group.setName(block.name);
            group.add(new Uniform(this.arrays[key]));
            this.paletteGroups.push(group);
        }
        this.paramsGroups = new Map();
        this.clipFromModel = new Matrix4();
        this.skinning = skeleton.bones.map(() => new Matrix4());
        this.frame = -1;
    }

    /** The SkinParams group with `beta_scale` = `betaScale`, then the palette groups: a material's `uniformsGroups`. */
    groupsFor(betaScale) {
        let params = this.paramsGroups.get(betaScale);
        if (params === undefined) {
            params = new UniformsGroup();
            params.setName(BLOCKS.params);
            // SkinParams, std140 offsets 0, 64, 68, 72, 76:
            // clip_from_model, joint_count, non_rigid, beta_scale, vertex_count.
            params.add(new Uniform(this.clipFromModel));
            params.add(uintUniform(this.skeleton.bones.length));
            params.add(uintUniform(0));
            params.add(new Uniform(betaScale));
            params.add(uintUniform(0));
            this.paramsGroups.set(betaScale, params);
        }
        return [params, ...this.paletteGroups];
    }

    /**
     * Recomputes the palette from `bones[j].matrixWorld * boneInverses[j]` (the mesh node's own
     * transform is not applied, as glTF says) and clip_from_model = projection * view; once per
     * `frame`, so the meshes of one skin share the work.
     */
    update(camera, frame) {
        if (frame === this.frame) return;
        this.frame = frame;
        const { bones, boneInverses } = this.skeleton;
        const matrices = this.skinning.map(
            (m, j) => m.multiplyMatrices(bones[j].matrixWorld, boneInverses[j]).elements,
        );
        const { nonRigid } = fillPalette(matrices, this.arrays);
        for (const params of this.paramsGroups.values()) {
            params.uniforms[2].value = nonRigid ? 1 : 0;
        }
        this.clipFromModel.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    }

    /** Frees the GPU buffers of every group. */
    dispose() {
        for (const g of [...this.paramsGroups.values(), ...this.paletteGroups]) g.dispose();
    }
}
