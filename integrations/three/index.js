// dqview-three: dqview's skinning (LBS, DQS, hybrid, CoR) in a three.js app's own materials
// under WebGLRenderer; `dqview-three/node` (node-skinning.js) is the WebGPURenderer path.
export { applyDqviewSkinning, blendMapOf, SKINNING_METHODS } from "./skinning.js";
export { ATTRIBUTES, COR_CENTER_ATTRIBUTE, PATCH_METHODS, patchVertexShader } from "./material-patch.js";
export { DQVIEW_CHUNKS } from "./chunks.js";
export { MAX_ROWS, PaletteTexture, TEXELS_PER_JOINT } from "./palette-texture.js";
export { JointBounds } from "./bounds.js";
