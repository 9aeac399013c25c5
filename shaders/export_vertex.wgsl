// The vertex stage `dqview shader --stage vertex` exports: skins one vertex with the method's
// `skin_export` (one line render::shader_export adds) and outputs its clip position and its
// skinned position and normal. Entry `vs_skin`; hybrid exports `vs_skin_blend` (renamed
// `vs_skin`), which adds the per-vertex blend at location 4. Up to four influences,
// heaviest first (influence 0 is the DQS pivot), weights summing to 1.

struct ExportVertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) joints: vec4<u32>,
    @location(3) weights: vec4<f32>,
}

struct ExportVertexOut {
    @builtin(position) clip_position: vec4<f32>,
    // Skinned position in model space.
    @location(0) position: vec3<f32>,
    // Skinned unit normal in model space.
    @location(1) normal: vec3<f32>,
}

// Tangent of the skinning input: the exported stages output no tangent.
const EXPORT_TANGENT: vec4<f32> = vec4<f32>(1.0, 0.0, 0.0, 1.0);

// The skinning input of four influences.
fn export_input(position: vec3<f32>, normal: vec3<f32>, joints: vec4<u32>, weights: vec4<f32>) -> SkinInput {
    return SkinInput(position, normal, EXPORT_TANGENT, joints, vec4<u32>(0u), weights, vec4<f32>(0.0));
}

fn export_vertex(input: ExportVertexIn, blend: f32) -> ExportVertexOut {
    let s = skin_export(export_input(input.position, input.normal, input.joints, input.weights), blend);
    return ExportVertexOut(skin.clip_from_model * vec4<f32>(s.position, 1.0), s.position, s.normal);
}

@vertex
fn vs_skin(input: ExportVertexIn) -> ExportVertexOut {
    return export_vertex(input, 1.0);
}

@vertex
fn vs_skin_blend(input: ExportVertexIn, @location(4) blend: f32) -> ExportVertexOut {
    return export_vertex(input, blend);
}
