//! `dqview bench`, the GPU part: frames and skinning passes of a crowd, interleaved by mode.

use std::time::Instant;

use anyhow::Result;

use super::bench::{BenchOptions, median};
use crate::anim::{JointOverrides, Pose};
use crate::render::{
    FrameBinding, GpuContext, GpuTimer, OffscreenTarget, RenderSettings, Renderer, SceneGpu,
    SceneOptions, SkinPath, SkinRun, View, ViewParams,
};
use crate::scene::Scene;
use crate::skin::ddm::SceneDdm;
use crate::skin::dm::SceneDm;
use crate::skin::{SkinningMode, rest_bounds};

/// Skinning times below this (milliseconds, over the empty pass) are not told apart from a
/// pass's own cost: a real GPU skins a small rig in a few microseconds, about what starting a
/// pass costs, so a rate from such a difference would be noise (13.7 G vertices/s for the
/// Adventurer on an H200, where the compute path measures 24 G at a million vertices).
pub(super) const MIN_SKIN_MS: f64 = 0.005;

/// What the GPU part measured.
pub(super) struct GpuFigures {
    /// The adapter, in words.
    pub adapter: String,
    /// Whether the adapter is a software rasterizer.
    pub software: bool,
    /// The modes measured, in order: LBS, DQS, hybrid, and DDM and DM when their data was given.
    pub measured: Vec<SkinningMode>,
    /// Per mode of `measured`: median frame and skinning milliseconds (`None`: the skinning
    /// took less than [`MIN_SKIN_MS`] over the empty pass, too little to time).
    pub modes: Vec<(f64, Option<f64>)>,
    /// Process start to the first waited frame, milliseconds.
    pub first_frame_ms: f64,
    /// Per mode of `measured`: skinning vertices per CPU-second of this process (software adapters only).
    pub vertices_per_cpu_s: Option<Vec<f64>>,
    /// Whether pass times came from GPU timestamps.
    pub timestamps: bool,
    /// The first palette slot's binding kind.
    pub palette_binding: &'static str,
    /// Palette uploads over the run.
    pub palette_uploads: u64,
    /// Delta Mush's welded vertices and GPU bytes, when it was measured.
    pub dm: Option<(usize, u64)>,
}

/// Runs the GPU part on `scene`; every GPU object is gone when it returns, so the CPU part
/// after it does not stack on the GPU copies.
pub(super) fn measure_gpu(
    options: &BenchOptions,
    scene: &Scene,
    skinned_vertices: usize,
    started: Instant,
    (ddm, dm): (Option<&SceneDdm>, Option<&SceneDm>),
) -> Result<GpuFigures> {
    let (width, height) = options.size;
    let ctx = GpuContext::headless()?;
    let renderer = Renderer::new(
        &ctx,
        RenderSettings {
            width,
            height,
            ..RenderSettings::default()
        },
    )?;
    let target = OffscreenTarget::new(&ctx, &renderer)?;
    let scene_options = SceneOptions {
        instances: options.instances,
        path: options.path,
        tangents: false,
    };
    let mut crowd =
        SceneGpu::with_options(&ctx, &renderer, scene, &Pose::rest(scene), &scene_options)?;
    let mut measured = vec![SkinningMode::Lbs, SkinningMode::Dqs, SkinningMode::Hybrid];
    if let Some(ddm) = ddm {
        match crowd.set_ddm(&ctx, &renderer, ddm) {
            Ok(()) => measured.push(SkinningMode::Ddm),
            Err(e) => eprintln!("dqview: DDM left out of the GPU part: {e}"),
        }
    }
    let mut dm_figures = None;
    if let Some(dm) = dm {
        match crowd.set_dm(&ctx, &renderer, dm) {
            Ok(()) => {
                measured.push(SkinningMode::Dm);
                dm_figures = Some((dm.welded_vertex_count(), crowd.dm_bytes()));
            }
            Err(e) => eprintln!("dqview: DM left out of the GPU part: {e}"),
        }
    }
    let (min, max) = rest_bounds(scene).unwrap_or((glam::Vec3::splat(-1.0), glam::Vec3::ONE));
    let (min, max) = crowd.bounds(min, max);
    let params = ViewParams::shaded(0.5);
    let view = View::side_by_side(
        width,
        height,
        &[SkinningMode::Lbs],
        params,
        [min, max],
        crate::cli::render::CAMERA_DIRECTION,
    )[0];
    let frame = FrameBinding::new(&ctx, &renderer)?;
    let uniforms = renderer.settings().to_gpu_view(&view.camera, &params);
    frame.write(&ctx.queue, &uniforms);
    // Software rasterisers are timed by the wall clock: lavapipe has TIMESTAMP_QUERY, but its
    // end-of-compute-pass timestamp does not wait for the dispatches (0.02 ms measured for a
    // 200,000-vertex pass that takes over 50 ms), so its pass times cannot be trusted.
    let software = ctx.info.device_type == wgpu::DeviceType::Cpu;
    let timer = if software { None } else { GpuTimer::new(&ctx)? };
    let mut measure = Measure {
        ctx: &ctx,
        scene,
        clip: (!scene.animations.is_empty()).then_some(0),
        renderer: &renderer,
        target: &target,
        frame: &frame,
        timer: timer.as_ref(),
        overrides: JointOverrides::new(),
        skin_cpu_s: vec![Vec::new(); measured.len()],
        modes: measured.clone(),
    };
    measure.frame(&mut crowd, SkinningMode::Dqs, 0, Part::Frame)?;
    let first_frame_ms = started.elapsed().as_secs_f64() * 1e3;
    let modes = measure.interleaved(&mut crowd, options)?;
    // Per mode, the vertices skinned over the CPU-seconds all its skinning runs took (software
    // adapters only; `None` under MIN_CPU_S, where the clock's 10 ms ticks would be the number).
    let vertices = (skinned_vertices * options.instances) as f64;
    let vertices_per_cpu_s = software
        .then(|| {
            measure
                .skin_cpu_s
                .iter()
                .map(|runs| {
                    let total: f64 = runs.iter().sum();
                    (total >= MIN_CPU_S).then(|| vertices * runs.len() as f64 / total)
                })
                .collect::<Option<Vec<f64>>>()
        })
        .flatten();
    Ok(GpuFigures {
        measured,
        adapter: ctx.describe(),
        software,
        modes,
        first_frame_ms,
        vertices_per_cpu_s,
        timestamps: timer.is_some(),
        palette_binding: crowd.palette_binding().map_or("none", |b| b.name()),
        palette_uploads: crowd.palette_uploads(),
        dm: dm_figures,
    })
}

/// Most vertices one waited submission draws on a software adapter (a frame draws in slices).
///
/// lavapipe bins every triangle of a submission before its threads rasterise it and keeps
/// several binned scenes in flight: one 4,000,000-vertex draw held about 2 GB of them. Slices
/// with a wait between bound that to one slice's worth; the frame's wall time covers them all.
/// Smaller slices save more memory and cost more time (each wait stops lavapipe's pipelining).
const SLICE_VERTICES: usize = 500_000;

/// Least CPU time a mode's skinning runs must add up to for a CPU rate (the clock ticks in 10 ms).
const MIN_CPU_S: f64 = 0.5;

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
    skin_cpu_s: Vec<Vec<f64>>,
    /// The modes measured.
    modes: Vec<SkinningMode>,
}

impl Measure<'_> {
    /// Frames and skinning passes interleaved L D H L D H ..., so drift hits every mode alike:
    /// per mode, the median frame and skinning milliseconds.
    fn interleaved(
        &mut self,
        crowd: &mut SceneGpu,
        options: &BenchOptions,
    ) -> Result<Vec<(f64, Option<f64>)>> {
        let modes = self.modes.clone();
        let mode_count = modes.len();
        let mut frame_ms = vec![Vec::new(); mode_count];
        let mut skin_ms = vec![Vec::new(); mode_count];
        let mut empty_ms = Vec::new();
        // One untimed frame and pass of each mode first: its pipelines are built on first use
        // (a second on lavapipe for DDM's), which is not the cost of a frame.
        for &mode in &modes {
            self.frame(crowd, mode, 0, Part::Frame)?;
            self.frame(crowd, mode, 0, Part::Skinning)?;
        }
        for f in 0..options.frames {
            for (m, &mode) in modes.iter().enumerate() {
                frame_ms[m].push(self.frame(crowd, mode, f, Part::Frame)?);
                skin_ms[m].push(self.frame(crowd, mode, f, Part::Skinning)?);
            }
            if options.path == SkinPath::Vertex {
                empty_ms.push(self.frame(crowd, SkinningMode::Lbs, f, Part::EmptyPass)?);
            }
        }
        // The vertex path cannot run skinning alone: a 1x1 viewport minus an empty pass.
        let empty = median(empty_ms);
        Ok((0..mode_count)
            .map(|m| {
                let skin = median(skin_ms[m].clone()) - empty;
                (
                    median(frame_ms[m].clone()),
                    (skin >= MIN_SKIN_MS).then_some(skin),
                )
            })
            .collect())
    }

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
        let slices = if timer.is_none() && part == Part::Frame {
            crowd.drawn_vertices().div_ceil(SLICE_VERTICES).max(1)
        } else {
            1
        };
        for k in 0..slices {
            let commands = self.encode(crowd, mode, part, timer, (k, slices))?;
            self.ctx.queue.submit([commands]);
            self.ctx
                .device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| anyhow::anyhow!("GPU wait failed: {e}"))?;
        }
        let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
        if part == Part::Skinning
            && let (Some(a), Some(b)) = (cpu0, process_cpu_s())
        {
            let m = self.modes.iter().position(|&g| g == mode).unwrap_or(0);
            self.skin_cpu_s[m].push(b - a);
        }
        match timer {
            Some(timer) => Ok(timer.read_ms(self.ctx)?),
            None => Ok(wall_ms),
        }
    }

    /// Encodes slice `k` of `n` of `part` (skinning and timestamps with the first and last
    /// slice): the whole of it when `n` is 1.
    fn encode(
        &self,
        crowd: &mut SceneGpu,
        mode: SkinningMode,
        part: Part,
        timer: Option<&GpuTimer>,
        (k, n): (usize, usize),
    ) -> Result<wgpu::CommandBuffer> {
        let compute = crowd.path() == SkinPath::Compute;
        let mut encoder = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("dqview::bench"),
            });
        // Delta Mush runs compute passes on either path (the vertex path draws their output).
        if k == 0 && (compute || mode == SkinningMode::Dm) && part != Part::EmptyPass {
            let writes = timer.map(GpuTimer::compute_writes);
            let run = SkinRun::new(mode, 0.5);
            crowd.encode_skinning(self.ctx, &mut encoder, self.renderer, run, writes)?;
        }
        if !(compute && part == Part::Skinning) {
            let writes = timer.filter(|_| !compute).map(GpuTimer::render_writes);
            let mut pass = if k == 0 {
                self.target
                    .begin_pass_timed(&mut encoder, [0.0, 0.0, 0.0, 1.0], writes)
            } else {
                self.target.begin_pass_continued(&mut encoder)
            };
            match part {
                Part::Frame => crowd.draw_slice(&mut pass, self.renderer, self.frame, mode, (k, n)),
                Part::Skinning => {
                    // One pixel: the vertex shader (skinning) runs, rasterisation nearly does not.
                    pass.set_viewport(0.0, 0.0, 1.0, 1.0, 0.0, 1.0);
                    crowd.draw(&mut pass, self.renderer, self.frame, mode);
                }
                Part::EmptyPass => {}
            }
        }
        if let Some(timer) = timer.filter(|_| k + 1 == n) {
            timer.resolve(&mut encoder);
        }
        Ok(encoder.finish())
    }
}

/// The footnote saying how `skin ms` was measured.
pub(super) fn skin_note(path: SkinPath, timestamps: bool) -> String {
    let how = if timestamps {
        "GPU timestamps at the pass's start and end"
    } else {
        "wall time around a waited submission"
    };
    match path {
        SkinPath::Compute => format!(
            "skin ms: median time of the compute skinning pass ({how}); under {MIN_SKIN_MS} ms \
             it is not told apart from the pass's own cost"
        ),
        SkinPath::Vertex => format!(
            "skin ms: median time of the same draws into a 1x1 viewport minus an empty pass ({how}); \
             under {MIN_SKIN_MS} ms it is not told apart from the pass's own cost"
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
