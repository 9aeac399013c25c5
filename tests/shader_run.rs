//! The SPIR-V `dqview shader` exports, run: on lavapipe through wgpu as a passthrough module
//! (the binary as written, not re-translated), vertex and compute stages, uniform and storage
//! palettes, on both shared characters at a clip pose, against the CPU reference
//! (`skin::skin_vertices`, `skin_vertices_cor`): positions within 1e-6 of the bounding-box
//! diagonal for LBS, DQS, hybrid with a per-vertex map and CoR with dqview's centres. A planted bug (the antipodality sign dropped from
//! dq.wgsl) must fail the same check.
//!
//! Needs a Vulkan adapter with `PASSTHROUGH_SHADERS` (lavapipe has it); without one the tests
//! print `SKIPPED`, unless `DQVIEW_REQUIRE_GPU=1`.

mod support;

use support::spirv_run::{
    Device, bind_group, buffer_entry, bytes_of, compute_pipeline, device, flat3_bytes,
    palette_buffers, palette_layout, run_and_read, skinned_buffer, spirv, storage_buffer,
};
use support::vertex_run::{VertexInput, VertexRun, run_vertex};

use dqview::anim::{JointOverrides, Pose, find_clip};
use dqview::render::shader_export::{
    ExportInfluences, ExportPalette, ExportStage, ShaderRequest, ShaderTarget, export_shader,
    export_shader_from_source, export_wgsl_source,
};
use dqview::scene::Scene;
use dqview::skin::{
    Betas, CorOptions, CorProgress, JointPalette, PosePalettes, SceneCenters, SkinMesh,
    SkinnedVertices, SkinningMode, skin_vertices, skin_vertices_cor,
};
use glam::{Mat4, Vec3};

/// Positions may differ by this fraction of the bounding-box diagonal.
const POSITION_TOLERANCE: f32 = 1e-6;
/// Unit normals may differ by this much.
const NORMAL_TOLERANCE: f32 = 1e-5;
/// The exported shaders' uniform palette size in these tests.
const JOINTS: u32 = 256;

/// One skinned primitive: its bind pose with up to eight influences (zero weights padding), a
/// blend map and its palette.
struct Case {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    joints: Vec<[u32; 8]>,
    weights: Vec<[f32; 8]>,
    blends: Vec<f32>,
    /// CoR's centres (dqview's own), one a vertex.
    centers: Vec<Vec3>,
    palette: JointPalette,
    /// The loader's influences, for the CPU reference.
    influences: dqview::influences::Influences,
}

impl Case {
    fn cpu(&self, method: SkinningMode) -> SkinnedVertices {
        let influences = &self.influences;
        let mesh = SkinMesh {
            positions: &self.positions,
            normals: &self.normals,
            tangents: &[],
            influences,
        };
        let mut out = SkinnedVertices::default();
        if method == SkinningMode::Cor {
            skin_vertices_cor(&self.palette, &mesh, &self.centers, &mut out);
            return out;
        }
        skin_vertices(
            &self.palette,
            &mesh,
            method,
            Betas::PerVertex(&self.blends),
            &mut out,
        );
        out
    }
}

/// A blend map with every value in [0, 1] and no pattern the mesh shares.
fn blend_map(n: usize) -> Vec<f32> {
    (0..n)
        .map(|v| ((v as f32 * 12.9898).sin() * 43758.547).fract().abs())
        .collect()
}

/// The skinned primitives of `scene` at `pose`.
fn cases(name: &str, scene: &Scene, pose: &Pose) -> Vec<Case> {
    let mut palettes = PosePalettes::default();
    let mut out = Vec::new();
    let centers =
        SceneCenters::compute(scene, &CorOptions::default(), &CorProgress::new()).expect("centres");
    for node in &scene.nodes {
        let (Some(mesh), Some(skin)) = (node.mesh, node.skin) else {
            continue;
        };
        for (p, prim) in scene.meshes[mesh].primitives.iter().enumerate() {
            let Some(influences) = &prim.influences else {
                continue;
            };
            assert!(
                influences.max_influences() <= 4,
                "{name}: the characters have four influences"
            );
            let palette = palettes.get(scene, pose, skin).expect("palette").clone();
            let n = prim.positions.len();
            let normals = if prim.normals.len() == n {
                prim.normals.clone()
            } else {
                vec![Vec3::Y; n]
            };
            let mut case = case_of(prim.positions.clone(), normals, influences.clone(), palette);
            case.centers.clone_from(&centers.per_primitive[mesh][p]);
            out.push(case);
        }
    }
    assert!(!out.is_empty(), "{name}: no skinned primitive");
    out
}

/// A case of a bind pose, its influences (at most eight a vertex) and its palette.
fn case_of(
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    influences: dqview::influences::Influences,
    palette: JointPalette,
) -> Case {
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    for row in influences.iter() {
        assert!(row.len() <= 8, "the exported shader reads eight influences");
        let (mut j, mut w) = ([0u32; 8], [0f32; 8]);
        for (k, i) in row.iter().enumerate() {
            (j[k], w[k]) = (u32::from(i.joint), i.weight);
        }
        joints.push(j);
        weights.push(w);
    }
    let n = positions.len();
    Case {
        centers: positions.clone(),
        positions,
        normals,
        joints,
        weights,
        blends: blend_map(n),
        palette,
        influences,
    }
}

/// Both characters at a clip pose: (name, cases).
fn characters(test: &str) -> Option<Vec<(String, Vec<Case>)>> {
    let dir = support::characters_dir(test)?;
    let mut out = Vec::new();
    for (file, clip, time_s) in [
        ("RobotExpressive.glb", "Dance", 1.3333),
        ("Adventurer.gltf", "Run", 0.4),
    ] {
        let scene = dqview::scene::load_gltf_path(&dir.join(file)).expect("loads");
        let mut pose = Pose::rest(&scene);
        let clip = find_clip(&scene, clip);
        assert!(clip.is_some(), "{file}: clip");
        pose.sample(&scene, clip, time_s, &JointOverrides::new());
        out.push((file.to_string(), cases(file, &scene, &pose)));
    }
    Some(out)
}

/// Skinned (position, normal) per vertex from the exported compute stage.
fn run_compute(
    d: &Device,
    words: &[u32],
    case: &Case,
    storage: bool,
    influences: usize,
) -> Vec<(Vec3, Vec3)> {
    let stage = wgpu::ShaderStages::COMPUTE;
    let read = wgpu::BufferBindingType::Storage { read_only: true };
    let inputs_layout = d
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("inputs"),
            entries: &[
                buffer_entry(0, stage, read),
                buffer_entry(1, stage, read),
                buffer_entry(2, stage, read),
                buffer_entry(3, stage, read),
                buffer_entry(4, stage, read),
                buffer_entry(
                    5,
                    stage,
                    wgpu::BufferBindingType::Storage { read_only: false },
                ),
                // 6 is DDM's words (unread here); 7 CoR's centres.
                buffer_entry(6, stage, read),
                buffer_entry(7, stage, read),
            ],
        });
    let palette_layout = palette_layout(d, stage, storage);
    let pipeline = compute_pipeline(d, words, &[&palette_layout, &inputs_layout]);
    let n = case.positions.len();
    let palette = palette_buffers(
        d,
        (&case.palette, case.positions.len()),
        1.0,
        if storage { 0 } else { JOINTS as usize },
        Mat4::IDENTITY,
    );
    let storage_init = |label: &str, bytes: Vec<u8>| storage_buffer(d, label, &bytes);
    let flat3 = flat3_bytes;
    let joints: Vec<u8> = case
        .joints
        .iter()
        .flat_map(|j| &j[..influences])
        .flat_map(|j| j.to_le_bytes())
        .collect();
    let inputs = [
        storage_init("positions", flat3(&case.positions)),
        storage_init("normals", flat3(&case.normals)),
        storage_init("joints", joints),
        storage_init(
            "weights",
            bytes_of(
                &case
                    .weights
                    .iter()
                    .flat_map(|w| w[..influences].iter().copied())
                    .collect::<Vec<_>>(),
            ),
        ),
        storage_init("blends", bytes_of(&case.blends)),
    ];
    let output = skinned_buffer(d, n);
    let g0 = bind_group(d, &palette_layout, &palette.iter().collect::<Vec<_>>());
    let unread = storage_init("ddm words", vec![0; 16]);
    let centers = storage_init("centers", flat3(&case.centers));
    let mut g1_buffers: Vec<&wgpu::Buffer> = inputs.iter().collect();
    g1_buffers.extend([&output, &unread, &centers]);
    let g1 = bind_group(d, &inputs_layout, &g1_buffers);
    run_and_read(d, &pipeline, [&g0, &g1], (n, &output))
}

/// Largest position distance over the character / its CPU bounding-box diagonal, and normal distance.
fn distances(cases: &[Case], method: SkinningMode, gpu: &[Vec<(Vec3, Vec3)>]) -> (f32, f32) {
    let cpu: Vec<SkinnedVertices> = cases.iter().map(|c| c.cpu(method)).collect();
    let (lo, hi) = cpu
        .iter()
        .flat_map(|c| &c.positions)
        .fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    let diagonal = (hi - lo).length().max(1e-6);
    let (mut position, mut normal) = (0.0f32, 0.0f32);
    for (c, g) in cpu.iter().zip(gpu) {
        assert_eq!(c.positions.len(), g.len());
        for ((cp, cn), (gp, gn)) in c.positions.iter().zip(&c.normals).zip(g) {
            // NaN (a vertex not drawn) counts as infinitely far.
            position = position.max(if gp.is_finite() {
                (*cp - *gp).length() / diagonal
            } else {
                f32::INFINITY
            });
            normal = normal.max(if gn.is_finite() {
                (*cn - *gn).length()
            } else {
                f32::INFINITY
            });
        }
    }
    (position, normal)
}

fn request(method: SkinningMode, stage: ExportStage, storage: bool) -> ShaderRequest {
    ShaderRequest {
        target: ShaderTarget::Spirv,
        method,
        palette: if storage {
            ExportPalette::Storage
        } else {
            ExportPalette::Uniform(JOINTS)
        },
        stage,
        influences: ExportInfluences::Four,
    }
}

/// Runs `words` (exported for `r`) on every case of a character.
fn run(d: &Device, r: &ShaderRequest, words: &[u32], cases: &[Case]) -> Vec<Vec<(Vec3, Vec3)>> {
    let storage = r.palette == ExportPalette::Storage;
    cases
        .iter()
        .map(|c| match r.stage {
            ExportStage::Compute => {
                run_compute(d, words, c, storage, r.influences.count() as usize)
            }
            ExportStage::Vertex => run_vertex(
                d,
                words,
                &VertexInput {
                    positions: &c.positions,
                    normals: &c.normals,
                    joints: &c.joints,
                    weights: &c.weights,
                    blends: &c.blends,
                    centers: (r.method == SkinningMode::Cor).then_some(c.centers.as_slice()),
                    palette: &c.palette,
                },
                &VertexRun {
                    entry: "vs_skin",
                    storage,
                    uniform_joints: JOINTS,
                    hybrid: r.method == SkinningMode::Hybrid,
                    eight: r.influences == ExportInfluences::Eight,
                    group1: None,
                },
            ),
        })
        .collect()
}

#[test]
fn exported_spirv_matches_the_cpu_reference_on_both_characters() {
    let test = "exported_spirv_matches_the_cpu_reference_on_both_characters";
    let (Some(d), Some(characters)) = (device(test), characters(test)) else {
        return;
    };
    for (name, cases) in &characters {
        for method in [
            SkinningMode::Lbs,
            SkinningMode::Dqs,
            SkinningMode::Hybrid,
            SkinningMode::Cor,
        ] {
            for stage in [ExportStage::Vertex, ExportStage::Compute] {
                for storage in [false, true] {
                    let r = request(method, stage, storage);
                    let shader = export_shader(&r).expect("export");
                    let gpu = run(d, &r, spirv(&shader.code), cases);
                    let (position, normal) = distances(cases, method, &gpu);
                    println!(
                        "{name:<20} {:<6} {:<7} {:<7}: position {position:.2e} x diagonal, normal {normal:.2e}",
                        method.name(),
                        stage.name(),
                        if storage { "storage" } else { "uniform" }
                    );
                    assert!(
                        position <= POSITION_TOLERANCE,
                        "{name} {}: position {position:e} x diagonal",
                        r.command_line()
                    );
                    assert!(
                        normal <= NORMAL_TOLERANCE,
                        "{name} {}: normal {normal:e}",
                        r.command_line()
                    );
                }
            }
        }
    }
}

/// The Adventurer in `dir`, posed 0.4 s into its Run clip.
fn adventurer_running(dir: &std::path::Path) -> (dqview::scene::Scene, Pose) {
    let scene = dqview::scene::load_gltf_path(&dir.join("Adventurer.gltf")).expect("loads");
    let mut pose = Pose::rest(&scene);
    pose.sample(
        &scene,
        find_clip(&scene, "Run"),
        0.4,
        &JointOverrides::new(),
    );
    (scene, pose)
}

/// The antipodality line of dq.wgsl, and the bug: the sign dropped.
const SIGN_LINE: &str = "let signed_w = select(w, -w, dot(q[0], pivot[0]) < 0.0);";
const SIGN_DROPPED: &str = "let signed_w = w;";

#[test]
fn dropped_antipodality_sign_fails_the_run_test() {
    let test = "dropped_antipodality_sign_fails_the_run_test";
    let (Some(d), Some(dir)) = (device(test), support::characters_dir(test)) else {
        return;
    };
    // The Adventurer at a clip pose, every odd joint's dual quaternion negated: the same
    // motions, so a correct DQS gives the CPU's result, but now many vertices blend joints
    // whose rotations lie in opposite hemispheres.
    let (scene, pose) = adventurer_running(&dir);
    let mut cases = cases("Adventurer.gltf", &scene, &pose);
    for case in &mut cases {
        for dq in case.palette.dual_quats.iter_mut().skip(1).step_by(2) {
            dq.real = -dq.real;
            dq.dual = -dq.dual;
        }
    }
    let antipodal = cases
        .iter()
        .flat_map(|c| c.joints.iter().zip(&c.weights).map(move |(j, w)| (c, j, w)))
        .filter(|(c, j, w)| {
            let q = |k: usize| c.palette.dual_quats[j[k] as usize].real;
            (1..4).any(|k| w[k] > 0.0 && q(0).dot(q(k)) < 0.0)
        })
        .count();
    assert!(
        antipodal > 100,
        "only {antipodal} antipodal blends: the bug could not show"
    );
    for stage in [ExportStage::Vertex, ExportStage::Compute] {
        let r = request(SkinningMode::Dqs, stage, false);
        let source = export_wgsl_source(&r).expect("source");
        assert_eq!(
            source.matches(SIGN_LINE).count(),
            1,
            "dq.wgsl's sign line moved: update this test"
        );
        let good = export_shader(&r).expect("export");
        let (good_position, _) = distances(
            &cases,
            SkinningMode::Dqs,
            &run(d, &r, spirv(&good.code), &cases),
        );
        let bad = export_shader_from_source(&r, &source.replace(SIGN_LINE, SIGN_DROPPED))
            .expect("export");
        let (bad_position, _) = distances(
            &cases,
            SkinningMode::Dqs,
            &run(d, &r, spirv(&bad.code), &cases),
        );
        println!(
            "{antipodal} antipodal vertices; {} stage: correct {good_position:.2e}, sign dropped {bad_position:.2e} x diagonal",
            stage.name()
        );
        assert!(
            good_position <= POSITION_TOLERANCE,
            "the correct shader fails: {good_position:e}"
        );
        assert!(
            bad_position > POSITION_TOLERANCE * 1000.0,
            "the planted bug passes: {bad_position:e}"
        );
    }
}

/// Each influence (j, w) of `influences` split into (j, 0.6 w) and (j + 1, 0.4 w) (joint j + 1
/// within the `joints` of the skin): up to eight influences a vertex, as from_rows sorts them.
fn spread_to_eight(
    influences: &dqview::influences::Influences,
    joints: usize,
) -> dqview::influences::Influences {
    dqview::influences::Influences::from_rows(influences.iter().map(|row| {
        row.iter()
            .flat_map(|i| {
                let next = ((usize::from(i.joint) + 1) % joints) as u16;
                [(i.joint, 0.6 * i.weight), (next, 0.4 * i.weight)]
            })
            .collect::<Vec<_>>()
    }))
}

#[test]
fn eight_influence_exports_match_the_cpu_reference() {
    let test = "eight_influence_exports_match_the_cpu_reference";
    let (Some(d), Some(dir)) = (device(test), support::characters_dir(test)) else {
        return;
    };
    // The Adventurer at a clip pose, each of its up to four influences split over two joints.
    let (scene, pose) = adventurer_running(&dir);
    let cases: Vec<Case> = cases("Adventurer.gltf", &scene, &pose)
        .into_iter()
        .map(|c| {
            let joints = c.palette.matrices.len();
            let influences = spread_to_eight(&c.influences, joints);
            let mut eight = case_of(c.positions, c.normals, influences, c.palette);
            eight.centers = c.centers;
            eight
        })
        .collect();
    let wide = cases
        .iter()
        .flat_map(|c| c.influences.iter())
        .filter(|row| row.len() > 4)
        .count();
    assert!(
        wide > 1000,
        "only {wide} vertices with more than four influences"
    );
    for method in [
        SkinningMode::Lbs,
        SkinningMode::Dqs,
        SkinningMode::Hybrid,
        SkinningMode::Cor,
    ] {
        for stage in [ExportStage::Vertex, ExportStage::Compute] {
            let r = ShaderRequest {
                influences: ExportInfluences::Eight,
                ..request(method, stage, false)
            };
            let shader = export_shader(&r).expect("export");
            let gpu = run(d, &r, spirv(&shader.code), &cases);
            let (position, normal) = distances(&cases, method, &gpu);
            println!(
                "{wide} vertices over four influences, {:<6} {:<7}: position {position:.2e} x diagonal, normal {normal:.2e}",
                method.name(),
                stage.name()
            );
            assert!(
                position <= POSITION_TOLERANCE,
                "{}: position {position:e} x diagonal",
                r.command_line()
            );
            assert!(
                normal <= NORMAL_TOLERANCE,
                "{}: normal {normal:e}",
                r.command_line()
            );
        }
    }
    // The four-influence shader, fed the first four, is far off: the other four matter.
    let r = request(SkinningMode::Dqs, ExportStage::Vertex, false);
    let four = export_shader(&r).expect("export");
    let (position, _) = distances(
        &cases,
        SkinningMode::Dqs,
        &run(d, &r, spirv(&four.code), &cases),
    );
    println!("four influences of eight: position {position:.2e} x diagonal");
    assert!(
        position > POSITION_TOLERANCE * 1000.0,
        "four of eight influences pass: {position:e}"
    );
}
