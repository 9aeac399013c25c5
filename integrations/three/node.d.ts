// Type declarations of dqview-three/node (node-skinning.js): the WebGPURenderer path.
import type { Object3D } from "three";

import type { DqviewSkinning, DqviewSkinningOptions, SkinningMethod } from "./index.js";

/**
 * Makes every SkinnedMesh under `root` skin with dqview's `method` in its own material (node
 * materials, or classic ones WebGPURenderer converts) under WebGPURenderer, either backend, its
 * shadows included; the same checks and errors as `applyDqviewSkinning`.
 */
export function applyDqviewNodeSkinning(root: Object3D, options?: DqviewSkinningOptions): DqviewSkinning;
/** Every method `applyDqviewNodeSkinning` takes. */
export const SKINNING_METHODS: readonly SkinningMethod[];
