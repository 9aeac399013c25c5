//! `dqview bench`: what LBS, DQS and hybrid cost on this machine, measured side by side.

use std::time::Instant;

use anyhow::{Result, bail};
use serde_json::json;

use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::builtin::generated_rig;
use crate::render::{
    FrameBinding, GpuContext, GpuTimer, OffscreenTarget, RenderSettings, Renderer, SceneGpu,
    SceneOptions, SkinPath, SkinRun, View, ViewParams,
};
use crate::skin::{
    Betas, JointPalette, PackedMesh, PackedPalette, SkinMesh, SkinnedVertices, SkinningMode,
    rest_bounds, skin_packed, skin_packed_hybrid, skin_vertices,
};

/// The modes the GPU part measures (CoR runs on the CPU part only).
const GPU_MODES: [SkinningMode; 3] = [SkinningMode::Lbs, SkinningMode::Dqs, SkinningMode::Hybrid];

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
}

/// Most instances `--instances` takes.
const MAX_INSTANCES: usize = 256;

/// Medians of a list (0 when empty).
fn median(mut v: Vec<f64>) -> f64 {
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
    let none = JointOverrides::new();

    // GPU: one renderer, one crowd of K instances (each its own palettes and clip time).
    let (width, height) = options.size;
    let ctx = GpuContext::headless()?;
    let renderer = Renderer::new(
        &ctx,
        RenderSettings {
            width,
            height,
            base_color: [1.0; 3],
            ..RenderSettings::TESTING
        },
    )?;
    let target = OffscreenTarget::new(&ctx, &renderer)?;
    let scene_options = SceneOptions {
        instances: options.instances,
        path: options.path,
        tangents: false,
    };
    let mut crowd =
        SceneGpu::with_options(&ctx, &renderer, &scene, &Pose::rest(&scene), &scene_options)?;
    let (min, max) = rest_bounds(&scene).unwrap_or((glam::Vec3::splat(-1.0), glam::Vec3::ONE));
    let (min, max) = crowd.bounds(min, max);
    let view = View::side_by_side(
        width,
        height,
        &[SkinningMode::Lbs],
        ViewParams::shaded(0.5),
        [min, max],
        crate::cli::render::CAMERA_DIRECTION,
    )[0];
    let frame = FrameBinding::new(&ctx, &renderer)?;
    frame.write(
        &ctx.queue,
        &renderer
            .settings()
            .to_gpu_view(&view.camera, &ViewParams::shaded(0.5)),
    );
    // Software rasterisers are timed by the wall clock: lavapipe has TIMESTAMP_QUERY, but its
    // end-of-compute-pass timestamp does not wait for the dispatches (0.02 ms measured for a
    // 200,000-vertex pass that takes over 50 ms), so its pass times cannot be trusted.
    let timer = if ctx.info.device_type == wgpu::DeviceType::Cpu {
        None
    } else {
        GpuTimer::new(&ctx)?
    };
    let mut measure = Measure {
        ctx: &ctx,
        scene: &scene,
        clip,
        renderer: &renderer,
        target: &target,
        frame: &frame,
        timer: timer.as_ref(),
        overrides: JointOverrides::new(),
        skin_cpu_s: Vec::new(),
    };
    measure.frame(&mut crowd, SkinningMode::Dqs, 0, Part::Frame)?;
    let first_frame_ms = started.elapsed().as_secs_f64() * 1e3;

    // Interleaved: LBS DQS hybrid LBS DQS hybrid ..., so drift hits every mode alike. CoR is
    // measured on the CPU only: the crowd path has no per-vertex centers.
    let mode_count = GPU_MODES.len();
    let mut frame_ms = vec![Vec::new(); mode_count];
    let mut skin_ms = vec![Vec::new(); mode_count];
    let mut empty_ms = Vec::new();
    let vertex_path = options.path == SkinPath::Vertex;
    for f in 0..options.frames {
        for (m, mode) in GPU_MODES.into_iter().enumerate() {
            frame_ms[m].push(measure.frame(&mut crowd, mode, f, Part::Frame)?);
            skin_ms[m].push(measure.frame(&mut crowd, mode, f, Part::Skinning)?);
        }
        if vertex_path {
            empty_ms.push(measure.frame(&mut crowd, SkinningMode::Lbs, f, Part::EmptyPass)?);
        }
    }
    // The vertex path cannot run skinning alone: a 1x1 viewport minus an empty pass.
    let empty = median(empty_ms);
    let total_vertices = (skinned_vertices * options.instances) as f64;
    let gpu_modes: Vec<(f64, f64)> = (0..mode_count)
        .map(|m| {
            let skin = (median(skin_ms[m].clone()) - empty).max(1e-3);
            (median(frame_ms[m].clone()), skin)
        })
        .collect();
    // Per skinning run, all modes: CPU-seconds over the vertices skinned (software adapters only).
    let skin_cpu_s = std::mem::take(&mut measure.skin_cpu_s);
    let cpu_per_pass_s = skin_cpu_s.iter().sum::<f64>() / skin_cpu_s.len().max(1) as f64;
    let vertices_per_cpu_s = (ctx.info.device_type == wgpu::DeviceType::Cpu
        && cpu_per_pass_s > 0.0)
        .then(|| (skinned_vertices * options.instances) as f64 / cpu_per_pass_s);
    let skin_timing = if timer.is_some() {
        "gpu_timestamps"
    } else {
        "wall"
    };
    let mut pose = Pose::rest(&scene);

    // CPU: palette building and reference skinning, interleaved too.
    let mut matrices = Vec::new();
    pose.sample(&scene, clip, duration * 0.5, &none);
    pose.skinning_matrices(&scene, 0, &mut matrices);
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
    let prim = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .find(|p| p.influences.is_some());
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
                skin_vertices(&palette, &mesh, mode, betas, &mut out);
                let reference = vertices / t0.elapsed().as_secs_f64();
                reference_rate[m].push(reference);
                cpu_rate[m].push(fast(mode, &mut out).unwrap_or(reference));
            }
        }
        if packed.is_some() && palette.is_rigid() {
            skin_path = "packed";
        }
    }
    let cpu_rates: Vec<f64> = cpu_rate.into_iter().map(median).collect();
    let reference_rates: Vec<f64> = reference_rate.into_iter().map(median).collect();

    let mode_json = |m: usize| {
        let (frame, skin) = gpu_modes[m];
        json!({"frame_ms": frame, "skin_ms": skin, "vertices_per_s": total_vertices / (skin / 1e3)})
    };
    let report = json!({
        "adapter": ctx.describe(),
        "model": scene.source,
        "vertices": skinned_vertices,
        "instances": options.instances,
        "size": [width, height],
        "frames": options.frames,
        "path": options.path.name(),
        "skin_timing": skin_timing,
        "palette_binding": crowd.palette_binding().map_or("none", |b| b.name()),
        "palette_uploads": crowd.palette_uploads(),
        "skin_vertices_per_cpu_s": vertices_per_cpu_s,
        "modes": {"lbs": mode_json(0), "dqs": mode_json(1), "hybrid": mode_json(2)},
        "dqs_over_lbs": {"frame": gpu_modes[1].0 / gpu_modes[0].0, "skin": gpu_modes[1].1 / gpu_modes[0].1},
        "cpu": {
            "palette_ns_per_joint": median(palette_ns),
            "joints": matrices.len(),
            "skin_path": skin_path,
            "skin_vertices_per_s": {"lbs": cpu_rates[0], "dqs": cpu_rates[1], "hybrid": cpu_rates[2], "cor": cpu_rates[3]},
            "reference_vertices_per_s": {"lbs": reference_rates[0], "dqs": reference_rates[1], "hybrid": reference_rates[2], "cor": reference_rates[3]},
        },
        "first_frame_ms": first_frame_ms,
    });
    if as_json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!("adapter     {}", ctx.describe());
    println!(
        "model       {} ({skinned_vertices} skinned vertices, {} joints, {} instance(s), {width}x{height}, {} frames a mode)",
        scene.source,
        matrices.len(),
        options.instances,
        options.frames
    );
    println!(
        "{:<8} {:>10} {:>10} {:>16} {:>18} {:>18}",
        "mode", "frame ms", "skin ms", "GPU vertices/s", "CPU vertices/s", "CPU ref vertices/s"
    );
    for (m, mode) in SkinningMode::ALL.into_iter().enumerate() {
        let gpu = gpu_modes.get(m).map_or_else(
            || format!("{:>10} {:>10} {:>16}", "-", "-", "-"),
            |(frame, skin)| {
                format!(
                    "{frame:>10.3} {skin:>10.3} {:>16.3e}",
                    total_vertices / (skin / 1e3)
                )
            },
        );
        println!(
            "{:<8} {gpu} {:>18.3e} {:>18.3e}",
            mode.name(),
            cpu_rates[m],
            reference_rates[m]
        );
    }
    println!(
        "dqs/lbs     frame {:.3}, skinning {:.3}",
        gpu_modes[1].0 / gpu_modes[0].0,
        gpu_modes[1].1 / gpu_modes[0].1
    );
    println!(
        "palette     {:.1} ns a joint",
        median(
            report["cpu"]["palette_ns_per_joint"]
                .as_f64()
                .map(|x| vec![x])
                .unwrap_or_default()
        )
    );
    println!("first frame {first_frame_ms:.1} ms after start");
    println!(
        "CPU vertices/s: the {skin_path} path (packed: structure of arrays, 4 influences, rigid palettes); CPU ref: the reference skin_vertices"
    );
    println!("{}", skin_note(options.path, timer.is_some()));
    if let Some(rate) = vertices_per_cpu_s {
        println!(
            "skinning   {rate:.3e} vertices per CPU-second of this process (all modes; load-independent on a software adapter)"
        );
    }
    Ok(())
}

/// Which part of a frame one measurement runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Pose, skinning and the draw at full size.
    Frame,
    /// The skinning alone: the compute pass, or (vertex path) the draws into a 1x1 viewport.
    Skinning,
    /// A render pass with no draws (subtracted from the vertex path's skinning).
    EmptyPass,
}

/// What one measured frame needs.
struct Measure<'a> {
    ctx: &'a GpuContext,
    scene: &'a crate::scene::Scene,
    clip: Option<usize>,
    renderer: &'a Renderer,
    target: &'a OffscreenTarget,
    frame: &'a FrameBinding,
    timer: Option<&'a GpuTimer>,
    overrides: JointOverrides,
    /// Process CPU seconds of each [`Part::Skinning`] run (software rasterisers run in-process).
    skin_cpu_s: Vec<f64>,
}

impl Measure<'_> {
    /// Runs `part` of frame `frame_index` in `mode`; milliseconds (GPU time of the timed pass where
    /// the device has timestamps and `part` is not the whole frame, else wall time around a waited submission).
    fn frame(
        &mut self,
        crowd: &mut SceneGpu,
        mode: SkinningMode,
        frame_index: usize,
        part: Part,
    ) -> Result<f64> {
        let frame_start = Instant::now();
        crowd.update_crowd(
            self.ctx,
            self.scene,
            self.clip,
            frame_index as f32 / 30.0,
            &self.overrides,
        );
        // A whole frame includes posing; a part is the GPU work alone.
        let t0 = if part == Part::Frame {
            frame_start
        } else {
            Instant::now()
        };
        let cpu0 = process_cpu_s();
        let timer = self.timer.filter(|_| part != Part::Frame);
        let compute = crowd.path() == SkinPath::Compute;
        let mut encoder = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("dqview::bench"),
            });
        if compute && part != Part::EmptyPass {
            let writes = timer.map(GpuTimer::compute_writes);
            let run = SkinRun::new(mode, 0.5);
            crowd.encode_skinning(self.ctx, &mut encoder, self.renderer, run, writes)?;
        }
        if !(compute && part == Part::Skinning) {
            let writes = timer.filter(|_| !compute).map(GpuTimer::render_writes);
            let mut pass = self
                .target
                .begin_pass_timed(&mut encoder, [0.0, 0.0, 0.0, 1.0], writes);
            match part {
                Part::Frame => crowd.draw(&mut pass, self.renderer, self.frame, mode),
                Part::Skinning => {
                    // One pixel: the vertex shader (skinning) runs, rasterisation nearly does not.
                    pass.set_viewport(0.0, 0.0, 1.0, 1.0, 0.0, 1.0);
                    crowd.draw(&mut pass, self.renderer, self.frame, mode);
                }
                Part::EmptyPass => {}
            }
        }
        if let Some(timer) = timer {
            timer.resolve(&mut encoder);
        }
        self.ctx.queue.submit([encoder.finish()]);
        self.ctx
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| anyhow::anyhow!("GPU wait failed: {e}"))?;
        let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
        if part == Part::Skinning
            && let (Some(a), Some(b)) = (cpu0, process_cpu_s())
        {
            self.skin_cpu_s.push(b - a);
        }
        match timer {
            Some(timer) => Ok(timer.read_ms(self.ctx)?),
            None => Ok(wall_ms),
        }
    }
}

/// The footnote saying how `skin ms` was measured.
fn skin_note(path: SkinPath, timestamps: bool) -> String {
    let how = if timestamps {
        "GPU timestamps at the pass's start and end"
    } else {
        "wall time around a waited submission"
    };
    match path {
        SkinPath::Compute => format!("skin ms: median time of the compute skinning pass ({how})"),
        SkinPath::Vertex => format!(
            "skin ms: median time of the same draws into a 1x1 viewport minus an empty pass ({how})"
        ),
    }
}

/// CPU seconds this process has used, all threads (Linux `/proc/self/stat`, 100 ticks a second).
///
/// On a software rasteriser the GPU work runs on this process's threads, so this
/// measures it even when other processes hold the cores and stretch the wall time.
fn process_cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start at its closing parenthesis.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let mut fields = rest.split(' ').skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some((user + system) as f64 / 100.0)
}
