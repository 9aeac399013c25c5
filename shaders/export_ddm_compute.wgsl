// Direct Delta Mush's exported compute stage (`--method ddm --stage compute`), after
// export_compute.wgsl and export_ddm.wgsl: `cs_skin_ddm` (or `cs_skin8_ddm`, eight influences)
// skins vertex i by its matrices in `ddm_words` into `skinned` (`write_skinned`), as `cs_skin` does.

@compute @workgroup_size(64)
fn cs_skin_ddm(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < skin.vertex_count {
        write_skinned(id.x, export_ddm(id.x, compute_input(id.x, 4u)));
    }
}

@compute @workgroup_size(64)
fn cs_skin8_ddm(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < skin.vertex_count {
        write_skinned(id.x, export_ddm(id.x, compute_input(id.x, 8u)));
    }
}
