// dqview-three: dqview's skinning (LBS, DQS, hybrid) in a three.js app's own materials.
export { applyDqviewSkinning, blendMapOf, SKINNING_METHODS } from "./skinning.js";
export { ATTRIBUTES, PATCH_METHODS, patchVertexShader } from "./material-patch.js";
export { DQVIEW_CHUNKS } from "./chunks.js";
export { MAX_ROWS, PaletteTexture, TEXELS_PER_JOINT } from "./palette-texture.js";
export { JointBounds } from "./bounds.js";
