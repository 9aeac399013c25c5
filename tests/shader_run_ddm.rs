//! The exported Direct Delta Mush shader (`dqview shader --method ddm`), both stages run: the
//! SPIR-V as written on lavapipe (passthrough), fed the words `dqview ddm` writes, on both
//! shared characters at a clip pose, against the CPU reference (`skin_vertices_ddm`): positions
//! within 1e-5 of the bounding-box diagonal (the renderer's DDM tolerance: the polar fit runs in
//! f32), normals within 1e-3. The file `dqview ddm` writes holds exactly those words.
//!
//! Needs a Vulkan adapter with `PASSTHROUGH_SHADERS` (lavapipe has it); without one the test
//! prints `SKIPPED`, unless `DQVIEW_REQUIRE_GPU=1`.

mod support;

use support::spirv_run::{
    Device, bind_group, buffer_entry, bytes_of, compute_pipeline, device, flat3_bytes,
    palette_buffers, palette_layout, run_and_read, skinned_buffer, spirv, storage_buffer,
};
use support::vertex_run::{VertexInput, VertexRun, run_vertex};

use dqview::anim::{JointOverrides, Pose, find_clip};
use dqview::cli::ddm_data::{DDM_FILE_MAGIC, export_ddm_words};
use dqview::render::shader_export::{
    ExportInfluences, ExportPalette, ExportStage, ShaderRequest, ShaderTarget, export_shader,
};
use dqview::skin::ddm::{DdmParams, SceneDdm, skin_vertices_ddm};
use dqview::skin::{JointPalette, PosePalettes, SkinMesh, SkinnedVertices};
use glam::{Mat4, Vec3};

/// Positions may differ by this fraction of the bounding-box diagonal.
const POSITION_TOLERANCE: f32 = 1e-5;
/// Unit normals may differ by this much.
const NORMAL_TOLERANCE: f32 = 1e-3;

/// One skinned primitive's inputs as the exported compute stage reads them.
struct Inputs<'a> {
    positions: &'a [Vec3],
    normals: Vec<Vec3>,
    joints: Vec<u32>,
    weights: Vec<f32>,
    ddm_words: Vec<u32>,
    palette: &'a JointPalette,
}

/// Skinned (position, normal) per vertex from the exported DDM compute stage `words`.
fn run_compute(d: &Device, words: &[u32], inputs: &Inputs<'_>) -> Vec<(Vec3, Vec3)> {
    let stage = wgpu::ShaderStages::COMPUTE;
    let read = wgpu::BufferBindingType::Storage { read_only: true };
    let write = wgpu::BufferBindingType::Storage { read_only: false };
    let entries: Vec<_> = (0..7)
        .map(|b| buffer_entry(b, stage, if b == 5 { write } else { read }))
        .collect();
    let inputs_layout = d
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("inputs"),
            entries: &entries,
        });
    let palette_layout = palette_layout(d, stage, true);
    let pipeline = compute_pipeline(d, words, &[&palette_layout, &inputs_layout]);
    let n = inputs.positions.len();
    let palette = palette_buffers(d, (inputs.palette, n), 1.0, 0, Mat4::IDENTITY);
    let storage = |label: &str, bytes: Vec<u8>| storage_buffer(d, label, &bytes);
    let flat3 = flat3_bytes;
    let words_of = |w: &[u32]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let output = skinned_buffer(d, n);
    let group1 = [
        storage("positions", flat3(inputs.positions)),
        storage("normals", flat3(&inputs.normals)),
        storage("joints", words_of(&inputs.joints)),
        storage("weights", bytes_of(&inputs.weights)),
        // The blend map is not read by DDM; the layout still has its slot.
        storage("blends", vec![0; 16]),
        output,
        storage("ddm", words_of(&inputs.ddm_words)),
    ];
    let g0 = bind_group(d, &palette_layout, &palette.iter().collect::<Vec<_>>());
    let g1 = bind_group(d, &inputs_layout, &group1.iter().collect::<Vec<_>>());
    run_and_read(d, &pipeline, [&g0, &g1], (n, &group1[5]))
}

/// Skinned (position, normal) per vertex from the exported DDM vertex stage `words`
/// (`vs_skin_ddm`: four influences, the words at group 1, binding 6).
fn run_vertex_stage(d: &Device, words: &[u32], inputs: &Inputs<'_>) -> Vec<(Vec3, Vec3)> {
    let read = wgpu::BufferBindingType::Storage { read_only: true };
    let entries: Vec<_> = (0..7)
        .map(|b| buffer_entry(b, wgpu::ShaderStages::VERTEX, read))
        .collect();
    let layout = d
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("ddm"),
            entries: &entries,
        });
    let bytes: Vec<u8> = inputs
        .ddm_words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let buffer = storage_buffer(d, "ddm", &bytes);
    let pad = storage_buffer(d, "unused", &[0u8; 16]);
    let group = bind_group(d, &layout, &[&pad, &pad, &pad, &pad, &pad, &pad, &buffer]);
    let eight = |four: &[f32]| -> Vec<[f32; 8]> {
        four.chunks(4)
            .map(|c| [c[0], c[1], c[2], c[3], 0.0, 0.0, 0.0, 0.0])
            .collect()
    };
    let joints: Vec<[u32; 8]> = inputs
        .joints
        .chunks(4)
        .map(|c| [c[0], c[1], c[2], c[3], 0, 0, 0, 0])
        .collect();
    let n = inputs.positions.len();
    let input = VertexInput {
        positions: inputs.positions,
        normals: &inputs.normals,
        joints: &joints,
        weights: &eight(&inputs.weights),
        blends: &vec![0.0; n],
        centers: None,
        palette: inputs.palette,
    };
    let run = VertexRun {
        entry: "vs_skin",
        storage: true,
        uniform_joints: 0,
        hybrid: false,
        eight: false,
        group1: Some((&layout, &group)),
    };
    run_vertex(d, words, &input, &run)
}

/// The exported SPIR-V of DDM's `stage`.
fn ddm_spirv(stage: ExportStage) -> Vec<u32> {
    let request = ShaderRequest {
        target: ShaderTarget::Spirv,
        method: dqview::skin::SkinningMode::Ddm,
        palette: ExportPalette::Storage,
        stage,
        influences: ExportInfluences::Four,
    };
    let shader = export_shader(&request).expect("export");
    spirv(&shader.code).to_vec()
}

#[test]
fn exported_ddm_spirv_matches_the_cpu_reference_on_both_characters() {
    let test = "exported_ddm_spirv_matches_the_cpu_reference_on_both_characters";
    let (Some(d), Some(dir)) = (device(test), support::characters_dir(test)) else {
        return;
    };
    let (compute, vertex) = (
        ddm_spirv(ExportStage::Compute),
        ddm_spirv(ExportStage::Vertex),
    );
    for (file, clip, time_s) in [
        ("RobotExpressive.glb", "Dance", 1.3333),
        ("Adventurer.gltf", "Run", 0.4),
    ] {
        let scene = dqview::scene::load_gltf_path(&dir.join(file)).expect("loads");
        let ddm = SceneDdm::compute(&scene, DdmParams::DEFAULT).expect("precompute");
        let mut pose = Pose::rest(&scene);
        pose.sample(
            &scene,
            find_clip(&scene, clip),
            time_s,
            &JointOverrides::new(),
        );
        let mut palettes = PosePalettes::default();
        let (mut worst, mut checked, mut turned) = (0.0f32, 0, 0);
        for node in &scene.nodes {
            let (Some(m), Some(skin)) = (node.mesh, node.skin) else {
                continue;
            };
            for (p, prim) in scene.meshes[m].primitives.iter().enumerate() {
                let (Some(influences), Some(mesh_ddm)) = (&prim.influences, &ddm.per_mesh[m])
                else {
                    continue;
                };
                let palette = palettes.get(&scene, &pose, skin).expect("palette").clone();
                let n = prim.positions.len();
                let normals = if prim.normals.len() == n {
                    prim.normals.clone()
                } else {
                    vec![Vec3::Y; n]
                };
                let (mut joints, mut weights) = (Vec::new(), Vec::new());
                for row in influences.iter() {
                    assert!(row.len() <= 4, "{file}: four influences");
                    for k in 0..4 {
                        let i = row.get(k);
                        joints.push(i.map_or(0, |i| u32::from(i.joint)));
                        weights.push(i.map_or(0.0, |i| i.weight));
                    }
                }
                let inputs = Inputs {
                    positions: &prim.positions,
                    normals: normals.clone(),
                    joints,
                    weights,
                    ddm_words: export_ddm_words(&ddm, m, p).expect("words"),
                    palette: &palette,
                };
                let mesh = SkinMesh {
                    positions: &prim.positions,
                    normals: &normals,
                    tangents: &[],
                    influences,
                };
                let mut cpu = SkinnedVertices::default();
                let vertex_of = &mesh_ddm.surface.vertex_of[p];
                skin_vertices_ddm(&palette, &mesh, mesh_ddm, vertex_of, &mut cpu);
                let diagonal = scene_diagonal(&cpu.positions);
                for (stage, gpu) in [
                    ("compute", run_compute(d, &compute, &inputs)),
                    ("vertex", run_vertex_stage(d, &vertex, &inputs)),
                ] {
                    assert_eq!(gpu.len(), n, "{file} {stage}");
                    for (v, ((gp, gn), (cp, cn))) in gpu
                        .iter()
                        .zip(cpu.positions.iter().zip(&cpu.normals))
                        .enumerate()
                    {
                        let rel = gp.distance(*cp) / diagonal;
                        worst = worst.max(rel);
                        let at = format!("{file} {stage} mesh {m} primitive {p} vertex {v}");
                        assert!(
                            rel <= POSITION_TOLERANCE,
                            "{at}: GPU {gp} CPU {cp} ({rel:e})"
                        );
                        assert!(
                            gn.distance(*cn) <= NORMAL_TOLERANCE,
                            "{at}: normal GPU {gn} CPU {cn}"
                        );
                    }
                }
                checked += n;
                turned += usize::from(inputs.ddm_words.len() > n + 2);
            }
        }
        assert!(checked > 0 && turned > 0, "{file}: nothing run");
        eprintln!("{file}: {checked} vertices, worst {worst:e} of the diagonal");
    }
}

/// The bounding-box diagonal of `points` (at least 1e-6).
fn scene_diagonal(points: &[Vec3]) -> f32 {
    let lo = points.iter().fold(Vec3::splat(f32::MAX), |a, p| a.min(*p));
    let hi = points.iter().fold(Vec3::splat(f32::MIN), |a, p| a.max(*p));
    (hi - lo).length().max(1e-6)
}

#[test]
fn the_ddm_command_writes_the_words_the_shader_reads() {
    let dir = support::scratch_dir("ddm-data");
    let out = dir.join("twist.ddm");
    let run = support::dqview_in(
        &[
            "ddm",
            "builtin:twist",
            "--ddm-p",
            "3",
            "--out",
            out.to_str().expect("utf-8"),
        ],
        &dir,
    );
    assert!(run.status.success(), "{}", support::stderr_of(&run));
    let bytes = std::fs::read(&out).expect("written");
    assert_eq!(&bytes[..8], DDM_FILE_MAGIC);
    let word = |i: usize| u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().expect("4"));
    // After the magic (two words): the primitive count, then mesh, primitive, length, words.
    assert_eq!(word(2), 1, "builtin:twist has one skinned primitive");
    let (mesh, primitive, len) = (word(3), word(4), word(5) as usize);
    let scene = dqview::model::load_model("builtin:twist").expect("builtin");
    let params = DdmParams {
        p: 3,
        ..DdmParams::DEFAULT
    };
    let ddm = SceneDdm::compute(&scene, params).expect("precompute");
    let want = export_ddm_words(&ddm, mesh as usize, primitive as usize).expect("words");
    let got: Vec<u32> = (6..6 + len).map(word).collect();
    assert_eq!(got.len(), want.len());
    // Counts, offsets and joints exactly; Omega's entries to rounding (the precompute's
    // parallel sums may round differently from run to run).
    let floats_from = want[0] as usize + 2;
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        if i < floats_from || (i - floats_from).is_multiple_of(11) {
            assert_eq!(g, w, "word {i}");
        } else {
            let (g, w) = (f32::from_bits(g), f32::from_bits(w));
            assert!(
                (g - w).abs() <= 1e-5 * g.abs().max(w.abs()) + 1e-12,
                "word {i}: {g} vs {w}"
            );
        }
    }
    assert_eq!(
        bytes.len(),
        (6 + len) * 4,
        "nothing after the one primitive"
    );
    let n = scene.meshes[0].primitives[0].positions.len();
    assert_eq!(want[0] as usize, n, "word 0 is the vertex count");
    assert!(want.len() > n + 2 + 11, "pairs follow the offsets");
}
