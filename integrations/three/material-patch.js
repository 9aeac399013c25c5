// The text patch that puts dqview's skinning into a three.js material's vertex shader in place
// of three's own, as `onBeforeCompile` receives it (its `#include`s not yet resolved): the
// built-in materials, their depth and distance materials and ShaderMaterials built on the same
// chunks (three-vrm's MToon). Only the USE_SKINNING path changes, so a material a skinned and a
// static mesh share compiles unchanged for the static one. No three import: the text is
// unit-tested in node (test/material-patch.test.mjs).

import { DQVIEW_CHUNKS } from "./chunks.js";

/** The methods the patch skins with, as `dqview shader --method` names them. */
export const PATCH_METHODS = ["lbs", "dqs", "hybrid", "cor"];

/** The vertex attributes the patch reads (geometry attribute names). */
export const ATTRIBUTES = {
    joints0: "dqviewJoints0",
    joints1: "dqviewJoints1",
    weights0: "dqviewWeights0",
    weights1: "dqviewWeights1",
    blend: "dqviewBlend",
    corCenter: "dqviewCorCenter",
};

/** The glTF attribute CoR reads each vertex's centre of rotation from, as three's GLTFLoader names it (`_COR_CENTER`, lower case). */
export const COR_CENTER_ATTRIBUTE = "_cor_center";

const INCLUDE = (name) => `#include <${name}>`;

/** The declarations: three's bind matrices, the influences, the blend and the method's chunk. */
function parsChunk(method, influences) {
    return `#ifdef USE_SKINNING
uniform mat4 bindMatrix;
uniform mat4 bindMatrixInverse;
in uvec4 ${ATTRIBUTES.joints0};
in uvec4 ${ATTRIBUTES.joints1};
in vec4 ${ATTRIBUTES.weights0};
in vec4 ${ATTRIBUTES.weights1};
in float ${ATTRIBUTES.blend};${method === "cor" ? `\nin vec3 ${ATTRIBUTES.corCenter};` : ""}
${DQVIEW_CHUNKS[method][influences]}
#endif
`;
}

/**
 * Skins the bind pose once, where three computes its bone matrices: the position morphed as
 * three's morphtarget_vertex morphs it (`morphChunk`, three's own text on another variable), the
 * normal three has morphed (or the attribute, in shaders that read normals only later: depth
 * and distance) and the tangent, all through `bindMatrix` as three's skinning takes them.
 */
function skinbaseChunk(morphChunk, normalFirst, method) {
    // CoR's centre is in the mesh's space, as the position: bound the same way, not morphed.
    const center = method === "cor" ? `( bindMatrix * vec4( ${ATTRIBUTES.corCenter}, 1.0 ) ).xyz` : "vec3( 0.0 )";
    const normal = normalFirst ? "objectNormal" : "normal";
    const tangent = normalFirst
        ? "\n\t#ifdef USE_TANGENT\n\t\tdqviewBindTangent = vec4( mat3( bindMatrix ) * objectTangent, 1.0 );\n\t#endif"
        : "";
    return `#ifdef USE_SKINNING
	vec3 dqviewBindPosition = vec3( position );
${morphChunk.replaceAll("transformed", "dqviewBindPosition")}
	vec4 dqviewBindTangent = vec4( 1.0, 0.0, 0.0, 1.0 );${tangent}
	dqview_Skinned dqviewSkinned = dqview_skin_three(
		( bindMatrix * vec4( dqviewBindPosition, 1.0 ) ).xyz,
		normalize( mat3( bindMatrix ) * ${normal} ),
		dqviewBindTangent,
		${ATTRIBUTES.joints0}, ${ATTRIBUTES.joints1}, ${ATTRIBUTES.weights0}, ${ATTRIBUTES.weights1},
		${ATTRIBUTES.blend},
		${center} );
#endif
`;
}

/** The skinned normal and tangent back in the mesh's space, as three's skinnormal_vertex leaves them. */
const SKINNORMAL = `#ifdef USE_SKINNING
	objectNormal = normalize( mat3( bindMatrixInverse ) * dqviewSkinned.normal );
	#ifdef USE_TANGENT
		objectTangent = normalize( mat3( bindMatrixInverse ) * dqviewSkinned.tangent.xyz );
	#endif
#endif
`;

/** The skinned position back in the mesh's space, as three's skinning_vertex leaves it. */
const SKINNING = `#ifdef USE_SKINNING
	transformed = ( bindMatrixInverse * vec4( dqviewSkinned.position, 1.0 ) ).xyz;
#endif
`;

/** three's morph of `transformed`, skipped when skinning (the skinned bind pose was morphed already). */
const MORPHTARGET = `#ifndef USE_SKINNING
${INCLUDE("morphtarget_vertex")}
#endif
`;

/**
 * `vertexShader` (a material's, before three resolves its includes) skinned by `method`,
 * reading `influences` (4 or 8) a vertex; `morphChunk` is three's `ShaderChunk.morphtarget_vertex`.
 * Throws when the shader does not include three's skinning chunks (a material that skins
 * itself, or a three.js that renamed them).
 */
export function patchVertexShader(vertexShader, method, morphChunk, influences = 8) {
    if (!PATCH_METHODS.includes(method)) {
        throw new Error(`dqview skinning: unknown method \`${method}\` (valid: ${PATCH_METHODS.join(", ")}, stock)`);
    }
    if (influences !== 4 && influences !== 8) throw new Error(`dqview skinning: 4 or 8 influences, not ${influences}`);
    const needed = ["skinning_pars_vertex", "skinbase_vertex", "skinning_vertex"];
    const missing = needed.filter((n) => !vertexShader.includes(INCLUDE(n)));
    if (missing.length > 0) {
        throw new Error(`dqview skinning: the material's vertex shader has no ${missing.map(INCLUDE).join(", ")}`);
    }
    const at = (name) => vertexShader.indexOf(INCLUDE(name));
    const normalFirst = at("beginnormal_vertex") >= 0 && at("beginnormal_vertex") < at("skinbase_vertex");
    return vertexShader
        .replace(INCLUDE("skinning_pars_vertex"), parsChunk(method, influences))
        .replace(INCLUDE("skinbase_vertex"), skinbaseChunk(morphChunk, normalFirst, method))
        .replace(INCLUDE("skinnormal_vertex"), SKINNORMAL)
        .replace(INCLUDE("morphtarget_vertex"), MORPHTARGET)
        .replace(INCLUDE("skinning_vertex"), SKINNING);
}
