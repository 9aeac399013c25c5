// Fragment shaders for the exported vertex stage (GLSL ES 3.00, without `#version`: three adds
// it). They read its outputs by name: `_vs2fs_location0` the skinned position, `_vs2fs_location1`
// the skinned normal, both in model space (the world, for glTF skins).

/** Flat white: the silhouette, as `dqview render --view mask` draws it. */
export const MASK_FRAGMENT = `precision highp float;
smooth in vec3 _vs2fs_location0;
smooth in vec3 _vs2fs_location1;
layout(location = 0) out vec4 fragColor;
void main() {
    fragColor = vec4(1.0);
}
`;

/**
 * dqview's shaded look (shaders/draw.wgsl \`fs_main\`): key and fill half-Lambert plus ambient,
 * back faces lit with the flipped normal; linear colour encoded to sRGB here, since a
 * RawShaderMaterial gets no output conversion from three.
 */
export const SHADED_FRAGMENT = `precision highp float;
uniform vec3 base_color;
smooth in vec3 _vs2fs_location0;
smooth in vec3 _vs2fs_location1;
layout(location = 0) out vec4 fragColor;
float half_lambert(vec3 n, vec3 towards, float intensity) {
    float h = 0.5 * dot(n, normalize(towards)) + 0.5;
    return intensity * h * h;
}
vec3 srgb_from_linear(vec3 c) {
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}
void main() {
    vec3 n = normalize(_vs2fs_location1);
    n = gl_FrontFacing ? n : -n;
    float light = 0.05 + half_lambert(n, vec3(0.4, 0.8, 0.6), 0.8) + half_lambert(n, vec3(-0.6, -0.2, 0.4), 0.25);
    fragColor = vec4(srgb_from_linear(clamp(base_color * light, 0.0, 1.0)), 1.0);
}
`;
