// Reads the interface of a `dqview shader --target glsl-es` vertex shader from its text: the
// std140 uniform blocks (by the binding in their instance name, `_group_0_binding_N_vs`) and
// the vertex inputs (by location), so nothing here depends on naga's generated type names.

/** What each binding of export_palette.wgsl holds. */
export const BINDINGS = { params: 0, dualQuats: 1, matrices: 2, scaleShears: 3 };

/** What each input location of export_vertex.wgsl holds. */
export const LOCATIONS = { position: 0, normal: 1, joints: 2, weights: 3, blend: 4 };

const BLOCK = /layout\(std140\) uniform (\w+) \{ (\w+) _group_0_binding_(\d+)_vs(?:\[(\d+)\])?; \};/g;
const INPUT = /layout\(location = (\d+)\) in (\w+) (\w+);/g;

/**
 * The blocks ({binding: {name, length}}, length the array length or null) and vertex inputs
 * ({location: {name, type}}) of a generated GLSL ES vertex shader; throws when it has none.
 */
export function parseShaderInterface(text) {
    const blocks = {};
    for (const [, name, , binding, length] of text.matchAll(BLOCK)) {
        blocks[Number(binding)] = { name, length: length === undefined ? null : Number(length) };
    }
    const inputs = {};
    for (const [, location, type, name] of text.matchAll(INPUT)) {
        inputs[Number(location)] = { name, type };
    }
    if (blocks[BINDINGS.params] === undefined || inputs[LOCATIONS.joints] === undefined) {
        throw new Error("not a `dqview shader --target glsl-es` vertex shader: no SkinParams block or joints input");
    }
    return { blocks, inputs };
}

/** The shader text without its `#version` line, which three writes itself (glslVersion GLSL3). */
export function withoutVersionLine(text) {
    return text.replace(/^#version 300 es\r?\n/, "");
}
