// Direct Delta Mush's exported vertex stage (`--method ddm --stage vertex`), after
// export_vertex.wgsl and export_ddm.wgsl: `vs_skin_ddm` (or `vs_skin8_ddm`, eight influences)
// skins vertex `index` of the draw (the index buffer's value) by its matrices in `ddm_words`.

fn ddm_vertex_out(s: Skinned) -> ExportVertexOut {
    return ExportVertexOut(skin.clip_from_model * vec4<f32>(s.position, 1.0), s.position, s.normal);
}

@vertex
fn vs_skin_ddm(input: ExportVertexIn, @builtin(vertex_index) index: u32) -> ExportVertexOut {
    return ddm_vertex_out(export_ddm(index, input4(input)));
}

@vertex
fn vs_skin8_ddm(input: ExportVertexIn8, @builtin(vertex_index) index: u32) -> ExportVertexOut {
    return ddm_vertex_out(export_ddm(index, input8(input)));
}
