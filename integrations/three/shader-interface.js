// Reads the interface of a `dqview shader --target glsl-es` vertex shader from its text: the
// std140 uniform blocks, by the stable names dqview gives them in every method
// (docs/engines.md, "Names"), and the vertex inputs, by location.

/** The uniform block of each palette part and of the parameters: the same in every method. */
export const BLOCKS = {
    params: "dqview_params",
    dualQuats: "dqview_joint_dual_quats",
    matrices: "dqview_joint_matrices",
    scaleShears: "dqview_joint_scale_shears",
};

/**
 * What each input location of export_vertex.wgsl holds: influences 4 to 7 (`joints1`,
 * `weights1`) are there in a shader written with `--influences 8`.
 */
export const LOCATIONS = { position: 0, normal: 1, joints: 2, weights: 3, blend: 4, joints1: 5, weights1: 6 };

const BLOCK = /layout\(std140\) uniform (\w+) \{ \w+ \w+(?:\[(\d+)\])?; \};/g;
const INPUT = /layout\(location = (\d+)\) in (\w+) (\w+);/g;

/**
 * The blocks ({name: {name, length}}, length the array length or null) and vertex inputs
 * ({location: {name, type}}) of a generated GLSL ES vertex shader, and how many influences it
 * reads (4 or 8); throws when it is not one.
 */
export function parseShaderInterface(text) {
    const blocks = {};
    for (const [, name, length] of text.matchAll(BLOCK)) {
        blocks[name] = { name, length: length === undefined ? null : Number(length) };
    }
    const inputs = {};
    for (const [, location, type, name] of text.matchAll(INPUT)) {
        inputs[Number(location)] = { name, type };
    }
    if (blocks[BLOCKS.params] === undefined || inputs[LOCATIONS.joints] === undefined) {
        throw new Error(
            `not a \`dqview shader --target glsl-es\` vertex shader: no ${BLOCKS.params} block or joints input`,
        );
    }
    const eight = inputs[LOCATIONS.joints1] !== undefined && inputs[LOCATIONS.weights1] !== undefined;
    return { blocks, inputs, influences: eight ? 8 : 4 };
}

/** The shader text without its `#version` line, which three writes itself (glslVersion GLSL3). */
export function withoutVersionLine(text) {
    return text.replace(/^#version 300 es\r?\n/, "");
}
