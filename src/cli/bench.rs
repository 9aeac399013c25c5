//! `dqview bench`: what LBS, DQS and hybrid cost on this machine, measured side by side.

use std::time::Instant;

use anyhow::{Result, bail};
use serde_json::json;

use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::builtin::generated_rig;
use crate::render::{
    FrameBinding, GpuContext, OffscreenTarget, RenderSettings, Renderer, SceneGpu, View, ViewParams,
};
use crate::skin::{
    Betas, JointPalette, PackedMesh, PackedPalette, SkinMesh, SkinnedVertices, SkinningMode,
    rest_bounds, skin_packed, skin_packed_hybrid, skin_vertices,
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
    /// Copies drawn per frame, each at its own clip time, in a grid of viewports.
    pub instances: usize,
}

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
    if options.frames == 0 || options.instances == 0 || options.instances > 256 {
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

    // GPU: one renderer, one SceneGpu per instance (own palettes, own clip time).
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
    let mut pose = Pose::rest(&scene);
    let (min, max) = rest_bounds(&scene).unwrap_or((glam::Vec3::splat(-1.0), glam::Vec3::ONE));
    let mut gpus = Vec::with_capacity(options.instances);
    for _ in 0..options.instances {
        gpus.push(SceneGpu::new(&ctx, &renderer, &scene, &pose)?);
    }
    let columns = (options.instances as f64).sqrt().ceil() as u32;
    let rows = (options.instances as u32).div_ceil(columns);
    let (tile_w, tile_h) = ((width / columns).max(1), (height / rows).max(1));
    let views: Vec<View> = (0..options.instances as u32)
        .map(|i| {
            let mut v = View::side_by_side(
                tile_w,
                tile_h,
                &[SkinningMode::Lbs],
                ViewParams::shaded(0.5),
                [min, max],
                crate::cli::render::CAMERA_DIRECTION,
            )[0];
            v.x = (i % columns) * tile_w;
            v.y = (i / columns) * tile_h;
            v
        })
        .collect();
    let frames: Vec<FrameBinding> = views
        .iter()
        .map(|_| FrameBinding::new(&ctx, &renderer))
        .collect::<Result<_, _>>()?;

    // One frame: pose each instance, write palettes, draw into `viewport` (None: the views).
    let mut draw =
        |mode: SkinningMode, frame_index: usize, tiny: bool, skip_draw: bool| -> Result<f64> {
            let t0 = Instant::now();
            for (i, gpu) in gpus.iter_mut().enumerate() {
                let t = if duration > 0.0 {
                    (frame_index as f32 / 30.0 + i as f32 * 0.37) % duration
                } else {
                    0.0
                };
                pose.sample(&scene, clip, t, &none);
                gpu.update(&ctx, &scene, &pose);
            }
            for (view, frame) in views.iter().zip(&frames) {
                frame.write(
                    &ctx.queue,
                    &renderer
                        .settings()
                        .to_gpu_view(&view.camera, &ViewParams::shaded(0.5)),
                );
            }
            let mut encoder = ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("dqview::bench"),
                });
            {
                let mut pass = target.begin_pass(&mut encoder, [0.0, 0.0, 0.0, 1.0]);
                if !skip_draw {
                    for ((view, frame), gpu) in views.iter().zip(&frames).zip(&gpus) {
                        if tiny {
                            // One pixel: the vertex shader (skinning) runs, rasterisation nearly does not.
                            pass.set_viewport(0.0, 0.0, 1.0, 1.0, 0.0, 1.0);
                        } else {
                            pass.set_viewport(
                                view.x as f32,
                                view.y as f32,
                                view.width as f32,
                                view.height as f32,
                                0.0,
                                1.0,
                            );
                        }
                        gpu.draw(&mut pass, &renderer, frame, mode);
                    }
                }
            }
            ctx.queue.submit([encoder.finish()]);
            ctx.device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| anyhow::anyhow!("GPU wait failed: {e}"))?;
            Ok(t0.elapsed().as_secs_f64() * 1e3)
        };
    draw(SkinningMode::Dqs, 0, false, false)?;
    let first_frame_ms = started.elapsed().as_secs_f64() * 1e3;

    // Interleaved: LBS DQS hybrid CoR LBS DQS ..., so drift hits every mode alike. CoR runs
    // about the buffer's default centers (the bind positions): the same work as real centers.
    let mode_count = SkinningMode::ALL.len();
    let mut frame_ms = vec![Vec::new(); mode_count];
    let mut tiny_ms = vec![Vec::new(); mode_count];
    let mut empty_ms = Vec::new();
    for f in 0..options.frames {
        for (m, mode) in SkinningMode::ALL.into_iter().enumerate() {
            frame_ms[m].push(draw(mode, f, false, false)?);
            tiny_ms[m].push(draw(mode, f, true, false)?);
        }
        empty_ms.push(draw(SkinningMode::Lbs, f, true, true)?);
    }
    let empty = median(empty_ms);
    let total_vertices = (skinned_vertices * options.instances) as f64;
    let gpu_modes: Vec<(f64, f64)> = (0..mode_count)
        .map(|m| {
            let skin = (median(tiny_ms[m].clone()) - empty).max(1e-3);
            (median(frame_ms[m].clone()), skin)
        })
        .collect();

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
    let mut cpu_rate = vec![Vec::new(); mode_count];
    let mut reference_rate = vec![Vec::new(); mode_count];
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
        "path": "vertex",
        "modes": {"lbs": mode_json(0), "dqs": mode_json(1), "hybrid": mode_json(2), "cor": mode_json(3)},
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
        let (frame, skin) = gpu_modes[m];
        println!(
            "{:<8} {frame:>10.3} {skin:>10.3} {:>16.3e} {:>18.3e} {:>18.3e}",
            mode.name(),
            total_vertices / (skin / 1e3),
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
    println!(
        "skin ms: median time of the same draws into a 1x1 viewport minus an empty pass (wall time around a waited submission)"
    );
    Ok(())
}
