// Loading a model with three.js's GLTFLoader, with three-vrm's VRMC_node_constraint loader
// plugin when constraints are asked for and its MToon material plugin when MToon is (imported
// only then: without them three.js ignores the extensions, as any stock engine does).
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";

/** The npm package of three-vrm's VRMNodeConstraintLoaderPlugin (an import map entry in the page). */
export const CONSTRAINT_MODULE = "@pixiv/three-vrm-node-constraint";

/** The npm package of three-vrm's MToonMaterialLoaderPlugin (an import map entry in the page). */
export const MTOON_MODULE = "@pixiv/three-vrm-materials-mtoon";

/**
 * A GLTFLoader; with `constraints` it has VRMNodeConstraintLoaderPlugin registered, which leaves
 * a VRMNodeConstraintManager on the result (`constraintManager`), its rest state taken at load;
 * with `mtoon`, MToonMaterialLoaderPlugin, which makes `VRMC_materials_mtoon` materials MToonMaterials.
 */
export async function modelLoader({ constraints = false, mtoon = false } = {}) {
    const loader = new GLTFLoader();
    if (mtoon) {
        const { MToonMaterialLoaderPlugin } = await import(MTOON_MODULE);
        loader.register((parser) => new MToonMaterialLoaderPlugin(parser));
    }
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
