// Loading a model with three.js's GLTFLoader, with three-vrm's VRMC_node_constraint loader
// plugin when constraints are asked for (imported only then: without it three.js ignores the
// extension, as any stock engine does).
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";

/** The npm package of three-vrm's VRMNodeConstraintLoaderPlugin (an import map entry in the page). */
export const CONSTRAINT_MODULE = "@pixiv/three-vrm-node-constraint";

/**
 * A GLTFLoader; with `constraints` it has VRMNodeConstraintLoaderPlugin registered, which leaves
 * a VRMNodeConstraintManager on the result (`constraintManager`), its rest state taken at load.
 */
export async function modelLoader({ constraints = false } = {}) {
    const loader = new GLTFLoader();
    if (constraints) {
        const { VRMNodeConstraintLoaderPlugin } = await import(CONSTRAINT_MODULE);
        loader.register((parser) => new VRMNodeConstraintLoaderPlugin(parser));
    }
    return loader;
}

/** The constraint manager the plugin left on `gltf`: null without the plugin or when the model uses no constraints. */
export function constraintManager(gltf) {
    return gltf.userData?.vrmNodeConstraintManager ?? null;
}
