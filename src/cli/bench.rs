//! `dqview bench`: what LBS, DQS, hybrid, CoR and DDM cost on this machine, measured side by side.

use std::time::Instant;

use anyhow::{Result, bail};
use serde_json::json;

use super::bench_gpu::{GpuFigures, measure_gpu, skin_note};
use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::builtin::generated_rig;
use crate::render::SkinPath;
use crate::skin::ddm::{DdmParams, SceneDdm, skin_vertices_ddm};
use crate::skin::dm::{DmParams, SceneDm, skin_scene_dm};
use crate::skin::{
    Betas, JointPalette, PackedMesh, PackedPalette, SkinMesh, SkinnedVertices, SkinningMode,
    skin_packed, skin_packed_hybrid, skin_vertices,
};

/// Options of `dqview bench`.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Model to measure; `None` generates a rig of `vertices` vertices.
    pub model: Option<String>,
    /// Vertices of the generated rig.
    pub vertices: usize,
    /// Joints of the generated rig.
    pub joints: usize,
    /// Frames per mode.
    pub frames: usize,
    /// Image size.
    pub size: (u32, u32),
    /// Copies drawn per frame, each at its own clip time, in a grid.
    pub instances: usize,
    /// Where the skinning runs.
    pub path: SkinPath,
    /// Leave Direct Delta Mush out (its precompute grows with vertices times joints).
    pub no_ddm: bool,
}

/// What Direct Delta Mush's precompute took.
struct DdmFigures {
    /// The matrices.
    ddm: SceneDdm,
    /// Seconds the precompute took (no cache).
    seconds: f64,
}

/// `--vertices` when not given.
pub const DEFAULT_VERTICES: usize = 1_000_000;
/// `--joints` when not given.
pub const DEFAULT_JOINTS: usize = 64;

/// From this many skinned vertices the DDM precompute takes seconds, and says so first.
const SLOW_DDM_VERTICES: usize = 100_000;

/// Most instances `--instances` takes.
const MAX_INSTANCES: usize = 256;

/// Medians of a list (0 when empty).
pub(super) fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs the bench and prints a table or JSON; `started` is when the process began.
pub fn run(
    options: &BenchOptions,
    as_json: bool,
    started: Instant,
    load: &super::LoadArgs,
) -> Result<()> {
    if options.frames == 0 || !(1..=MAX_INSTANCES).contains(&options.instances) {
        bail!("--frames must be at least 1 and --instances from 1 to 256");
    }
    if options.model.is_none() && !(100..=50_000_000).contains(&options.vertices) {
        bail!(
            "--vertices must be from 100 to 50000000, got {}",
            options.vertices
        );
    }
    refuse_unused(options, load)?;
    let scene = match &options.model {
        Some(m) => super::load(m, load)?,
        None => generated_rig(options.vertices, options.joints),
    };
    let skinned_vertices: usize = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .filter(|p| p.influences.is_some())
        .map(|p| p.positions.len())
        .sum();
    if skinned_vertices == 0 {
        bail!("{} has no skinned vertices to measure", scene.source);
    }
    let clip = (!scene.animations.is_empty()).then_some(0);
    let duration = clip
        .and_then(|c| scene.animations.get(c))
        .map_or(0.0, clip_duration_s);
    let ddm = if options.no_ddm {
        None
    } else {
        if skinned_vertices >= SLOW_DDM_VERTICES {
            eprintln!(
                "dqview: precomputing Direct Delta Mush for {skinned_vertices} vertices (--no-ddm leaves it out)"
            );
        }
        let t0 = Instant::now();
        let ddm = SceneDdm::compute(&scene, DdmParams::DEFAULT)
            .map_err(|e| anyhow::anyhow!("the Direct Delta Mush precompute failed: {e}"))?;
        Some(DdmFigures {
            ddm,
            seconds: t0.elapsed().as_secs_f64(),
        })
    };
    let dm = SceneDm::compute(&scene, DmParams::DEFAULT);
    let gpu = measure_gpu(
        options,
        &scene,
        skinned_vertices,
        started,
        (ddm.as_ref().map(|d| &d.ddm), Some(&dm)),
    )?;
    let cpu = measure_cpu(&scene, (clip, duration), ddm.as_ref().map(|d| &d.ddm), &dm);
    let what = (&scene, skinned_vertices);
    print_report(options, what, &gpu, (&cpu, ddm.as_ref()), as_json)
}

/// Refuses the generated rig's flags with a MODEL, and the load flags without one.
fn refuse_unused(options: &BenchOptions, load: &super::LoadArgs) -> Result<()> {
    let generator = [
        (options.vertices != DEFAULT_VERTICES, "--vertices"),
        (options.joints != DEFAULT_JOINTS, "--joints"),
    ];
    match &options.model {
        Some(model) => {
            if let Some((_, flag)) = generator.iter().find(|(given, _)| *given) {
                bail!("{flag} sizes the generated rig; with a MODEL ({model}) it has no effect");
            }
        }
        None => {
            if let Some(flag) = super::flag_rules::load_given(load).first() {
                bail!(
                    "{flag} limits loading a MODEL; without one a rig is generated (--vertices, --joints)"
                );
            }
        }
    }
    Ok(())
}

/// What the CPU part measured.
struct CpuFigures {
    /// Median palette build time per joint, nanoseconds.
    palette_ns: f64,
    /// Joints of the first skin.
    joints: usize,
    /// `packed` or `reference`: which path the CPU rates are of.
    skin_path: &'static str,
    /// Per mode of [`SkinningMode::ALL`]: the fast path's vertices per second.
    rates: Vec<f64>,
    /// Per mode: the reference's vertices per second.
    reference_rates: Vec<f64>,
}

/// Palette building and CPU skinning (reference and packed), interleaved by mode.
fn measure_cpu(
    scene: &crate::scene::Scene,
    (clip, duration): (Option<usize>, f32),
    ddm: Option<&SceneDdm>,
    scene_dm: &SceneDm,
) -> CpuFigures {
    let none = JointOverrides::new();
    let mut pose = Pose::rest(scene);

    // CPU: palette building and reference skinning, interleaved too.
    let mut matrices = Vec::new();
    pose.sample(scene, clip, duration * 0.5, &none);
    pose.skinning_matrices(scene, 0, &mut matrices);
    let mut palette = JointPalette::default();
    let reps = (200_000 / matrices.len().max(1)).clamp(10, 100_000);
    let mut palette_ns = Vec::new();
    for _ in 0..5 {
        let t0 = Instant::now();
        for _ in 0..reps {
            palette.rebuild(std::hint::black_box(&matrices));
        }
        palette_ns.push(t0.elapsed().as_secs_f64() * 1e9 / (reps * matrices.len().max(1)) as f64);
    }
    // The first skinned primitive, with its mesh's DDM matrices and welded vertices.
    let found = scene.meshes.iter().enumerate().find_map(|(m, mesh)| {
        let (k, prim) = mesh
            .primitives
            .iter()
            .enumerate()
            .find(|(_, p)| p.influences.is_some())?;
        let ddm = ddm
            .and_then(|d| d.per_mesh.get(m)?.as_ref())
            .and_then(|d| Some((d, d.surface.vertex_of.get(k)?)));
        Some((prim, ddm))
    });
    let prim = found.map(|f| f.0);
    let mesh_ddm = found.and_then(|f| f.1);
    // Reference and packed fast path, interleaved (ref L, fast L, ref D, fast D, ...).
    let mut cpu_rate = vec![Vec::new(); SkinningMode::ALL.len()];
    let mut reference_rate = vec![Vec::new(); SkinningMode::ALL.len()];
    let mut skin_path = "reference";
    if let Some(prim) = prim
        && let Some(influences) = &prim.influences
    {
        let mesh = SkinMesh {
            positions: &prim.positions,
            normals: &prim.normals,
            tangents: &[],
            influences,
        };
        let vertices = prim.positions.len() as f64;
        let packed = PackedMesh::supports(&mesh).then(|| PackedMesh::new(&mesh));
        let mut packed_palette = PackedPalette::default();
        packed_palette.update(&palette);
        let betas = Betas::Uniform(0.5);
        let mut out = SkinnedVertices::default();
        // Packed skinning, or None where the fast path does not cover the mesh or palette.
        let fast = |mode: SkinningMode, out: &mut SkinnedVertices| -> Option<f64> {
            let packed = packed.as_ref()?;
            let t0 = Instant::now();
            let done = match mode {
                SkinningMode::Hybrid => skin_packed_hybrid(packed, &packed_palette, betas, out),
                _ => skin_packed(packed, &packed_palette, mode, out),
            };
            done.then(|| vertices / t0.elapsed().as_secs_f64())
        };
        skin_vertices(&palette, &mesh, SkinningMode::Dqs, betas, &mut out);
        let _ = fast(SkinningMode::Dqs, &mut out);
        for _ in 0..7 {
            for (m, mode) in SkinningMode::ALL.into_iter().enumerate() {
                let t0 = Instant::now();
                match (mode, mesh_ddm) {
                    (SkinningMode::Ddm, Some((d, vertex_of))) => {
                        skin_vertices_ddm(&palette, &mesh, d, vertex_of, &mut out);
                    }
                    (SkinningMode::Ddm, None) => {
                        reference_rate[m].push(f64::NAN);
                        cpu_rate[m].push(f64::NAN);
                        continue;
                    }
                    (SkinningMode::Dm, _) => {
                        // Delta Mush poses whole meshes: the scene's rate, LBS included.
                        let posed = skin_scene_dm(scene, &pose, scene_dm);
                        let seconds = t0.elapsed().as_secs_f64();
                        let skinned = posed.iter().filter(|p| p.skinned);
                        let count: usize = skinned.map(|p| p.vertices.positions.len()).sum();
                        let rate = count as f64 / seconds;
                        reference_rate[m].push(rate);
                        cpu_rate[m].push(rate);
                        continue;
                    }
                    _ => skin_vertices(&palette, &mesh, mode, betas, &mut out),
                }
                let reference = vertices / t0.elapsed().as_secs_f64();
                reference_rate[m].push(reference);
                cpu_rate[m].push(fast(mode, &mut out).unwrap_or(reference));
            }
        }
        if packed.is_some() && palette.is_rigid() {
            skin_path = "packed";
        }
    }
    CpuFigures {
        palette_ns: median(palette_ns),
        joints: matrices.len(),
        skin_path,
        rates: cpu_rate.into_iter().map(median).collect(),
        reference_rates: reference_rate.into_iter().map(median).collect(),
    }
}

/// `mode`'s skinning time over LBS's, where both were long enough to time.
fn skin_ratio(gpu: &GpuFigures, mode: SkinningMode) -> Option<f64> {
    Some(gpu_of(gpu, mode)?.1? / gpu_of(gpu, SkinningMode::Lbs)?.1?)
}

/// `mode`'s median frame and skinning milliseconds, if the GPU part measured it.
fn gpu_of(gpu: &GpuFigures, mode: SkinningMode) -> Option<(f64, Option<f64>)> {
    let m = gpu.measured.iter().position(|&g| g == mode)?;
    gpu.modes.get(m).copied()
}

/// `mode`'s frame time over LBS's.
fn frame_ratio(gpu: &GpuFigures, mode: SkinningMode) -> Option<f64> {
    Some(gpu_of(gpu, mode)?.0 / gpu_of(gpu, SkinningMode::Lbs)?.0)
}

/// `x`, or JSON null where it is not a number.
fn finite(x: f64) -> serde_json::Value {
    if x.is_finite() { json!(x) } else { json!(null) }
}

/// Prints what both parts measured, as a table or (`as_json`) one JSON object.
fn print_report(
    options: &BenchOptions,
    (scene, skinned_vertices): (&crate::scene::Scene, usize),
    gpu: &GpuFigures,
    (cpu, ddm): (&CpuFigures, Option<&DdmFigures>),
    as_json: bool,
) -> Result<()> {
    let (width, height) = options.size;
    let total_vertices = (skinned_vertices * options.instances) as f64;
    let (c, r) = (&cpu.rates, &cpu.reference_rates);
    let mode_json = |mode: SkinningMode| {
        let (frame, skin) = gpu_of(gpu, mode)?;
        let rate = skin.map(|skin| total_vertices / (skin / 1e3));
        Some(json!({"frame_ms": frame, "skin_ms": skin, "vertices_per_s": rate}))
    };
    let per_cpu_s = gpu.vertices_per_cpu_s.as_ref().map(|rates| {
        let pairs = gpu.measured.iter().zip(rates);
        pairs
            .map(|(m, r)| (m.name().to_string(), json!(r)))
            .collect::<serde_json::Map<_, _>>()
    });
    let by_mode = |values: &[f64]| {
        SkinningMode::ALL
            .iter()
            .zip(values)
            .map(|(m, &v)| (m.name().to_string(), finite(v)))
            .collect::<serde_json::Map<_, _>>()
    };
    let report = json!({
        "adapter": gpu.adapter,
        "model": scene.source,
        "vertices": skinned_vertices,
        "instances": options.instances,
        "size": [width, height],
        "frames": options.frames,
        "path": options.path.name(),
        "skin_timing": if gpu.timestamps { "gpu_timestamps" } else { "wall" },
        "palette_binding": gpu.palette_binding,
        "palette_uploads": gpu.palette_uploads,
        "skin_vertices_per_cpu_s": per_cpu_s,
        "modes": {
            "lbs": mode_json(SkinningMode::Lbs),
            "dqs": mode_json(SkinningMode::Dqs),
            "hybrid": mode_json(SkinningMode::Hybrid),
            "ddm": mode_json(SkinningMode::Ddm),
            "dm": mode_json(SkinningMode::Dm),
        },
        "dqs_over_lbs": {
            "frame": frame_ratio(gpu, SkinningMode::Dqs),
            "skin": skin_ratio(gpu, SkinningMode::Dqs),
            "skin_cpu_s": gpu.vertices_per_cpu_s.as_ref().map(|r| r[0] / r[1]),
        },
        "ddm_over_lbs": {
            "frame": frame_ratio(gpu, SkinningMode::Ddm),
            "skin": skin_ratio(gpu, SkinningMode::Ddm),
        },
        "dm_over_lbs": {
            "frame": frame_ratio(gpu, SkinningMode::Dm),
            "skin": skin_ratio(gpu, SkinningMode::Dm),
        },
        "dm_gpu": gpu.dm.map(|(welded, bytes)| json!({
            "iterations": DmParams::DEFAULT.iterations,
            "factor": DmParams::DEFAULT.factor,
            "welded_vertices": welded,
            "bytes": bytes,
        })),
        "ddm_precompute": ddm.map(|d| json!({
            "seconds": d.seconds,
            "welded_vertices": d.ddm.welded_vertex_count(),
            "pairs": d.ddm.pair_count(),
            "bytes": d.ddm.bytes(),
        })),
        "cpu": {
            "palette_ns_per_joint": cpu.palette_ns,
            "joints": cpu.joints,
            "skin_path": cpu.skin_path,
            "skin_vertices_per_s": by_mode(c),
            "reference_vertices_per_s": by_mode(r),
        },
        "first_frame_ms": gpu.first_frame_ms,
    });
    if as_json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!("adapter     {}", gpu.adapter);
    println!(
        "model       {} ({skinned_vertices} skinned vertices, {} joints, {} instance(s), {width}x{height}, {} frames a mode)",
        scene.source, cpu.joints, options.instances, options.frames
    );
    println!(
        "{:<8} {:>10} {:>10} {:>16} {:>18} {:>18}",
        "mode", "frame ms", "skin ms", "GPU vertices/s", "CPU vertices/s", "CPU ref vertices/s"
    );
    let rate_text = |x: f64| {
        if x.is_finite() {
            format!("{x:>18.3e}")
        } else {
            format!("{:>18}", "-")
        }
    };
    for (m, mode) in SkinningMode::ALL.into_iter().enumerate() {
        let gpu_columns = gpu_of(gpu, mode).map_or_else(
            || format!("{:>10} {:>10} {:>16}", "-", "-", "-"),
            |(frame, skin)| match skin {
                Some(skin) => {
                    let rate = total_vertices / (skin / 1e3);
                    format!("{frame:>10.3} {skin:>10.3} {rate:>16.3e}")
                }
                None => format!("{frame:>10.3} {:>10} {:>16}", "< 0.005", "-"),
            },
        );
        println!(
            "{:<8} {gpu_columns} {} {}",
            mode.name(),
            rate_text(c[m]),
            rate_text(r[m])
        );
    }
    if let Some(d) = ddm {
        let ratio = frame_ratio(gpu, SkinningMode::Ddm).unwrap_or(f64::NAN);
        println!(
            "ddm         precompute {:.2} s, {} pairs ({:.1} a welded vertex), {:.1} MiB of matrices; ddm/lbs frame {ratio:.3}",
            d.seconds,
            d.ddm.pair_count(),
            d.ddm.pair_count() as f64 / d.ddm.welded_vertex_count().max(1) as f64,
            d.ddm.bytes() as f64 / (1024.0 * 1024.0)
        );
    }
    if let Some((welded, bytes)) = gpu.dm {
        let p = DmParams::DEFAULT;
        println!(
            "dm          {} x {} over {welded} welded vertices, {:.1} MiB on the GPU; dm/lbs frame {:.3}",
            p.iterations,
            p.factor,
            bytes as f64 / (1024.0 * 1024.0),
            frame_ratio(gpu, SkinningMode::Dm).unwrap_or(f64::NAN)
        );
    }
    let skin_ratio = skin_ratio(gpu, SkinningMode::Dqs)
        .map_or_else(|| "not timed".to_owned(), |r| format!("{r:.3}"));
    println!(
        "dqs/lbs     frame {:.3}, skinning {skin_ratio}",
        frame_ratio(gpu, SkinningMode::Dqs).unwrap_or(f64::NAN)
    );
    println!("palette     {:.1} ns a joint", cpu.palette_ns);
    println!("first frame {:.1} ms after start", gpu.first_frame_ms);
    println!(
        "CPU vertices/s: the {} path (packed: structure of arrays, 4 influences, rigid palettes); CPU ref: the reference skin_vertices",
        cpu.skin_path
    );
    println!("{}", skin_note(options.path, gpu.timestamps));
    if let Some(rates) = gpu.vertices_per_cpu_s.as_ref().filter(|_| gpu.software) {
        let [lbs, dqs, hybrid] = [0, 1, 2].map(|m| rates.get(m).copied().unwrap_or(f64::NAN));
        println!(
            "skinning   lbs {lbs:.3e}, dqs {dqs:.3e}, hybrid {hybrid:.3e} vertices per CPU-second of this process; dqs/lbs {:.3} (load-independent on a software adapter)",
            lbs / dqs
        );
    }
    Ok(())
}
