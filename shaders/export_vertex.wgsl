// The vertex stage `dqview shader --stage vertex` exports: skins one vertex with the method's
// `skin_export` (one line render::shader_export adds) and outputs its clip position and its
// skinned position and normal. Entry `vs_skin`; hybrid exports `vs_skin_blend` (renamed
// `vs_skin`), which adds the per-vertex blend at location 4. Four influences, heaviest first
// (influence 0 is the DQS pivot), weights summing to 1; `--influences 8` exports `vs_skin8`
// (or `vs_skin8_blend`), which adds influences 4 to 7 at locations 5 and 6, as dqview's
// renderer blends up to eight. CoR exports `vs_skin_cor` (or `vs_skin8_cor`), which adds the
// vertex's centre of rotation (`_COR_CENTER`, which `dqview cor` writes) at location 7.

struct ExportVertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) joints: vec4<u32>,
    @location(3) weights: vec4<f32>,
}

// Eight influences: `joints` and `weights` hold influences 0 to 3, `joints1` and `weights1`
// influences 4 to 7 (zero weights where a vertex has fewer); all eight weights sum to 1.
struct ExportVertexIn8 {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) joints: vec4<u32>,
    @location(3) weights: vec4<f32>,
    @location(5) joints1: vec4<u32>,
    @location(6) weights1: vec4<f32>,
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

// The skinning input of up to eight influences.
fn export_input(position: vec3<f32>, normal: vec3<f32>, joints0: vec4<u32>, joints1: vec4<u32>, weights0: vec4<f32>, weights1: vec4<f32>) -> SkinInput {
    return SkinInput(position, normal, EXPORT_TANGENT, joints0, joints1, weights0, weights1);
}

// No centre of rotation: what every method but CoR is passed (and does not read).
const NO_CENTER: vec3<f32> = vec3<f32>(0.0);

fn export_vertex(v: SkinInput, blend: f32, center: vec3<f32>) -> ExportVertexOut {
    let s = skin_export(v, blend, center);
    return ExportVertexOut(skin.clip_from_model * vec4<f32>(s.position, 1.0), s.position, s.normal);
}

fn input4(input: ExportVertexIn) -> SkinInput {
    return export_input(input.position, input.normal, input.joints, vec4<u32>(0u), input.weights, vec4<f32>(0.0));
}

fn input8(input: ExportVertexIn8) -> SkinInput {
    return export_input(input.position, input.normal, input.joints, input.joints1, input.weights, input.weights1);
}

@vertex
fn vs_skin(input: ExportVertexIn) -> ExportVertexOut {
    return export_vertex(input4(input), 1.0, NO_CENTER);
}

@vertex
fn vs_skin_blend(input: ExportVertexIn, @location(4) blend: f32) -> ExportVertexOut {
    return export_vertex(input4(input), blend, NO_CENTER);
}

@vertex
fn vs_skin_cor(input: ExportVertexIn, @location(7) cor_center: vec3<f32>) -> ExportVertexOut {
    return export_vertex(input4(input), 1.0, cor_center);
}

@vertex
fn vs_skin8(input: ExportVertexIn8) -> ExportVertexOut {
    return export_vertex(input8(input), 1.0, NO_CENTER);
}

@vertex
fn vs_skin8_blend(input: ExportVertexIn8, @location(4) blend: f32) -> ExportVertexOut {
    return export_vertex(input8(input), blend, NO_CENTER);
}

@vertex
fn vs_skin8_cor(input: ExportVertexIn8, @location(7) cor_center: vec3<f32>) -> ExportVertexOut {
    return export_vertex(input8(input), 1.0, cor_center);
}
