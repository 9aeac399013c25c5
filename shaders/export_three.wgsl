// The three.js chunk `dqview shader --target three` exports: `skin_three` skins one vertex of
// up to eight influences with the method's `skin_export` (the line render::shader_export adds),
// for three's built-in materials to call in place of their skinning chunks
// (integrations/three). The entry point only makes naga write the functions it reaches: the
// exporter keeps those and drops the entry point.

// Skins one vertex: its bind position, normal and tangent (handedness in w), influences 0 to 3
// and 4 to 7 (heaviest first, weights summing to 1), the hybrid's blend and CoR's centre of
// rotation (bind space; read by CoR only).
fn skin_three(position: vec3<f32>, normal: vec3<f32>, tangent: vec4<f32>, joints0: vec4<u32>, joints1: vec4<u32>, weights0: vec4<f32>, weights1: vec4<f32>, blend: f32, center: vec3<f32>) -> Skinned {
    skin = load_skin_params();
    return skin_export(SkinInput(position, normal, tangent, joints0, joints1, weights0, weights1), blend, center);
}

@vertex
fn vs_skin_three(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>, @location(2) tangent: vec4<f32>, @location(3) joints0: vec4<u32>, @location(4) joints1: vec4<u32>, @location(5) weights0: vec4<f32>, @location(6) weights1: vec4<f32>, @location(7) blend: f32, @location(8) center: vec3<f32>) -> @builtin(position) vec4<f32> {
    let s = skin_three(position, normal, tangent, joints0, joints1, weights0, weights1, blend, center);
    return vec4<f32>(s.position + s.normal + s.tangent.xyz, 1.0);
}
