//! The command line: argument definitions and dispatch to the library.

mod analyze;
mod analyze_joint;
mod bench;
mod bench_gpu;
mod blend;
mod blend_review;
mod check;
mod cor_args;
mod cor_write;
mod ddm_args;
pub mod ddm_data;
mod dm_args;
mod export;
mod flag_rules;
mod helper_joints;
mod inspect;
mod inspect_morphs;
mod inspect_surface;
pub mod painter;
mod pose_args;
pub mod render;
mod render_anim;
mod render_args;
mod render_camera;
mod report;
pub mod report_pictures;
mod shader;

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use crate::scene::LoadOptions;

pub use blend::BlendArgs;
pub use check::CheckArgs;
pub use cor_args::CorArgs;
pub use ddm_args::DdmArgs;
pub use dm_args::DmArgs;
pub use helper_joints::HelperJointsArgs;
pub use pose_args::PoseArgs;
pub use render_args::{CameraFlags, MotionFlags};
pub use report::ReportArgs;
pub use shader::ShaderArgs;

/// dqview: inspect skinned characters, linear blend vs dual quaternion skinning.
#[derive(Debug, Parser)]
#[command(name = "dqview", version, about, long_about = None)]
// The viewer's flags before a subcommand would be ignored by it: clap refuses them instead.
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Model to open in the viewer when no subcommand is given: a .gltf/.glb path or builtin:NAME.
    #[arg(value_name = "MODEL")]
    pub model: Option<String>,
    /// Viewer options (with no subcommand).
    #[command(flatten)]
    pub viewer: ViewerArgs,
    /// Pose at start (with no subcommand).
    #[command(flatten)]
    pub pose: PoseArgs,
}

/// Options of the viewer window and of scripted runs.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ViewerArgs {
    /// View layout: single, split (LBS | DQS), split3 (LBS | DQS | CoR), split4 (LBS | DQS |
    /// hybrid | CoR), a comma list of 2 to 6 modes (`lbs,dqs,ddm,dm`) or overlay (the other
    /// mode as a ghost); the panel picks any 2 to 6 panes.
    /// Given, it wins over the session's view [default: single].
    #[arg(long, value_name = "single|split|split3|split4|overlay")]
    pub view: Option<String>,
    /// Shading: shaded, weights, influences, normals, displacement, joints, collapse, beta.
    /// Given, it wins over the session's [default: shaded].
    #[arg(long)]
    pub shading: Option<String>,
    /// Write the window's final frame to this PNG file.
    #[arg(long, value_name = "FILE.png")]
    pub screenshot: Option<PathBuf>,
    /// Render this many frames, then close (with --screenshot: the image of the last one).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub exit_after_frames: Option<u64>,
    /// Anti-aliasing samples per pixel, 1 or 4 (default: 4 on a GPU, 1 on a software rasterizer).
    #[arg(long, value_name = "1|4", value_parser = parse_msaa)]
    pub msaa: Option<u32>,
    /// Read the WGSL shaders from this folder (a copy of `shaders/`) and rebuild the pipelines
    /// whenever a file in it changes; a shader that fails to compile is shown in the window.
    #[arg(long, value_name = "DIR")]
    pub shader_dir: Option<PathBuf>,
    /// Destroy the GPU device after N frames to test recovery (for tests and bug reports).
    #[arg(long, value_name = "N", hide = true)]
    pub lose_device_at_frame: Option<u64>,
    /// Rig session file: read at start (camera, mode, view, clip, time, overrides), saved at exit.
    /// Without MODEL, opens the model the session names.
    #[arg(long, value_name = "FILE.json")]
    pub session: Option<PathBuf>,
    /// The window's size at start, in logical pixels (default 1280x720).
    #[arg(long, value_name = "WxH", value_parser = parse_window_size)]
    pub window_size: Option<(u32, u32)>,
    /// Scripted clicks, keys, text and dumps at given frames (JSON; for tests and bug reports).
    #[arg(long, value_name = "FILE.json", hide = true)]
    pub ui_script: Option<PathBuf>,
    /// Profile every frame: write a Chrome trace (dqview's stages, egui's and wgpu's scopes) to
    /// this file and print the time per frame of each stage at exit.
    #[arg(long, value_name = "TRACE.json")]
    pub profile: Option<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print what a model contains: meshes, skins, joints, influences, clips, bounds.
    Inspect {
        /// A .gltf/.glb/.vrm, .fbx or USD path, or builtin:NAME (default builtin:twist).
        #[arg(value_name = "MODEL")]
        model: Option<String>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Load limits and URI policy.
        #[command(flatten)]
        load: LoadArgs,
    },
    /// Write the posed mesh in world space as OBJ or GLB (CPU reference, or the GPU with --gpu).
    Export {
        /// A .gltf/.glb/.vrm, .fbx or USD path, or builtin:NAME (default builtin:twist).
        #[arg(value_name = "MODEL")]
        model: Option<String>,
        /// Output file (.obj or .glb).
        #[arg(long, value_name = "FILE.obj|FILE.glb")]
        out: PathBuf,
        /// Skin with the GPU compute pass and read back, instead of the CPU reference.
        #[arg(long)]
        gpu: bool,
        /// Pose options.
        #[command(flatten)]
        pose: PoseArgs,
        /// Load limits and URI policy.
        #[command(flatten)]
        load: LoadArgs,
    },
    /// Render a posed model to a PNG or GIF without a window, or an animation with --frames
    /// (mode may also be `split`: LBS left, DQS right).
    Render(Box<RenderArgs>),
    /// Measure what each skinning mode does to the rig's volume over a clip (or one pose).
    Analyze {
        /// A .gltf/.glb/.vrm, .fbx or USD path, or builtin:NAME (default builtin:twist).
        #[arg(value_name = "MODEL")]
        model: Option<String>,
        /// Samples over the clip, both ends included (not with --time: one moment).
        #[arg(long, default_value_t = analyze::DEFAULT_SAMPLES)]
        samples: usize,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Report only this joint's region (name or node index): the triangles whose first
        /// corner's heaviest influence is the joint, its volume with the openings capped.
        #[arg(long, value_name = "JOINT")]
        joint: Option<String>,
        /// Pose options: `--time` measures that one moment of the clip instead of sampling it;
        /// `--mode` does not apply (every mode is measured).
        #[command(flatten)]
        pose: PoseArgs,
        /// Load limits and URI policy.
        #[command(flatten)]
        load: LoadArgs,
    },
    /// Measure LBS, DQS and hybrid on the GPU and CPU, interleaved in one process (medians).
    Bench {
        /// A .gltf/.glb/.vrm, .fbx or USD path, or builtin:NAME; without it a rig of --vertices vertices is generated.
        #[arg(value_name = "MODEL")]
        model: Option<String>,
        /// Vertices of the generated rig.
        #[arg(long, default_value_t = bench::DEFAULT_VERTICES)]
        vertices: usize,
        /// Joints of the generated rig (4 influences a vertex).
        #[arg(long, default_value_t = bench::DEFAULT_JOINTS)]
        joints: usize,
        /// Frames measured per mode.
        #[arg(long, default_value_t = 20)]
        frames: usize,
        /// Image size.
        #[arg(long, value_name = "WxH", default_value = "1280x720")]
        size: String,
        /// Skinning path: vertex (in the vertex shader) or compute (a compute pass into vertex buffers, then a plain draw).
        #[arg(long, default_value = "vertex")]
        path: String,
        /// Copies drawn per frame in a grid, instance i at clip time t + i * duration / K (1-256).
        #[arg(long, default_value_t = 1)]
        instances: usize,
        /// Leave Direct Delta Mush out (its precompute grows with vertices times joints).
        #[arg(long)]
        no_ddm: bool,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Load limits and URI policy.
        #[command(flatten)]
        load: LoadArgs,
    },
    /// Fit per-vertex DQS blend weights that bring the hybrid closest to CoR over a clip, all
    /// clips and/or joint sweeps, and write them into the file as `_DQS_BLEND` (or as JSON).
    Blend(BlendArgs),
    /// Precompute each skinned vertex's centre of rotation and write it into the model as
    /// `_COR_CENTER` (a USD layer for USD), so engines can skin with CoR.
    Cor(cor_write::CorWriteArgs),
    /// Add helper joints (twist and bend) where LBS collapses or pinches, with weights fitted so
    /// plain LBS follows CoR (or DQS): VRMC_node_constraint constraints and baked clip channels,
    /// written into the file, so the fix plays in any LBS engine. `twist-joints` is the same.
    #[command(alias = "twist-joints")]
    HelperJoints(HelperJointsArgs),
    /// Write one self-contained HTML report of a rig: volume per mode over each clip, the worst
    /// joint regions with renders, DQS flips, influences, a fitted blend map, advice.
    Report(Box<ReportArgs>),
    /// Check many rigs in parallel against pipeline rules (weights, joint scale, DQS flips,
    /// LBS collapse, ...): one line per file and a summary; exit status 1 when a file fails.
    Check(CheckArgs),
    /// Write dqview's LBS, DQS, hybrid or DDM skinning as a shader for an engine (WGSL, GLSL,
    /// GLSL ES, HLSL, MSL, SPIR-V), translated by naga from the renderer's WGSL.
    Shader(ShaderArgs),
    /// Write Direct Delta Mush's matrices of every skinned primitive for the exported
    /// `--method ddm` shaders (binary, layout in docs/engines.md).
    Ddm(ddm_data::DdmDataArgs),
    /// Write a built-in rig (twist, elbow, arm) as a .glb file.
    Builtin {
        /// Rig name: twist, elbow or arm.
        name: String,
        /// Output file (.glb).
        #[arg(long, value_name = "FILE.glb")]
        out: PathBuf,
    },
}

/// `render`'s options: model, output, size, look, camera, motion, pose and load flags.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// A .gltf/.glb/.vrm, .fbx or USD path, or builtin:NAME (default builtin:twist).
    #[arg(value_name = "MODEL")]
    pub model: Option<String>,
    /// Output file: .png (a still, or APNG with --frames) or .gif.
    #[arg(long, value_name = "FILE.png|FILE.gif")]
    pub out: PathBuf,
    /// Image size.
    #[arg(long, value_name = "WxH", default_value = "1024x512")]
    pub size: String,
    /// Debug view, heat range, hybrid betas.
    #[command(flatten)]
    pub look: RenderFlags,
    /// Camera: joint to frame, orbit angles, distance.
    #[command(flatten)]
    pub camera: CameraFlags,
    /// Animation: frames, clip span, sweep, turntable.
    #[command(flatten)]
    pub motion: MotionFlags,
    /// Pose options.
    #[command(flatten)]
    pub pose: PoseArgs,
    /// Load limits and URI policy.
    #[command(flatten)]
    pub load: LoadArgs,
}

/// What `render` colours by, and how hybrid betas are chosen.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct RenderFlags {
    /// Debug view: shaded, weights, influences, normals, displacement, joints, collapse, beta,
    /// mask (the mesh flat white on black, no labels), cor-distance (each pane's distance from
    /// the CoR position).
    #[arg(long, default_value = "shaded")]
    pub view: String,
    /// Joint (name or node index) whose weights the weights view shows.
    #[arg(long, value_name = "JOINT")]
    pub joint: Option<String>,
    /// Hybrid betas per vertex from joint flags (twist/roll joints, joints the clip or --twist turns
    /// about their own axis) even where the file stores a `_DQS_BLEND` map (used as stored by
    /// default); refused with --beta or without a hybrid pane.
    #[arg(long)]
    pub hybrid_auto: bool,
    /// Heat range of the displacement and collapse views: auto (the pose's largest value, the
    /// default), pNN (a percentile, e.g. p99), HI or LO:HI fixed (displacement over the
    /// diagonal, `0.02` or `2%`; collapse as volume ratios, `0.8:1.2`).
    #[arg(long, value_name = "auto|pNN|LO:HI")]
    pub range: Option<String>,
    /// With --focus: outline the joint's region (the triangles `analyze` measures) in every
    /// pane, as `report`'s region pictures do.
    #[arg(long)]
    pub outline: bool,
}

/// Limits and URI policy for loading a model file (see [`LoadOptions`]).
#[derive(Clone, Debug, Args)]
pub struct LoadArgs {
    /// Refuse files with more vertices than this (summed over primitives).
    #[arg(long, value_name = "N", default_value_t = LoadOptions::DEFAULT_MAX_VERTICES)]
    pub max_vertices: u64,
    /// Refuse files with more joints than this (summed over skins).
    #[arg(long, value_name = "N", default_value_t = LoadOptions::DEFAULT_MAX_JOINTS)]
    pub max_joints: u64,
    /// Refuse files with more bytes of buffers than this (default 2 GiB).
    #[arg(long, value_name = "BYTES", default_value_t = LoadOptions::DEFAULT_MAX_BUFFER_BYTES)]
    pub max_buffer_bytes: u64,
    /// Let buffer and image URIs name files outside the model's folder (absolute paths, `..`, file:).
    #[arg(long)]
    pub allow_external_uris: bool,
}

impl Default for LoadArgs {
    fn default() -> Self {
        Self {
            max_vertices: LoadOptions::DEFAULT_MAX_VERTICES,
            max_joints: LoadOptions::DEFAULT_MAX_JOINTS,
            max_buffer_bytes: LoadOptions::DEFAULT_MAX_BUFFER_BYTES,
            allow_external_uris: false,
        }
    }
}

impl LoadArgs {
    /// The loader options these flags give (texture limits keep their defaults).
    #[must_use]
    pub fn to_options(&self) -> LoadOptions {
        LoadOptions {
            max_vertices: self.max_vertices,
            max_joints: self.max_joints,
            max_buffer_bytes: self.max_buffer_bytes,
            allow_external_uris: self.allow_external_uris,
            ..LoadOptions::DEFAULT
        }
    }
}

/// An exit status other than success or plain failure, for `main` to return.
///
/// `check` exits 1 when a file fails (its report already printed, so `message` is
/// empty) and 2 when its inputs are wrong, like clap's own usage errors.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Exit {
    /// The process exit status.
    pub code: u8,
    /// One line for stderr; empty for none.
    pub message: String,
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let started = std::time::Instant::now();
    match cli.command {
        Some(Command::Inspect { model, json, load }) => {
            inspect::run(&model_or_default(model), json, &load)
        }
        Some(Command::Export {
            model,
            out,
            gpu,
            pose,
            load,
        }) => export::run(&model_or_default(model), &out, &pose, gpu, &load),
        Some(Command::Render(args)) => render::run(&args),
        Some(Command::Analyze {
            model,
            samples,
            json,
            joint,
            pose,
            load,
        }) => {
            let what = analyze::What {
                samples,
                as_json: json,
                joint: joint.as_deref(),
            };
            analyze::run(&model_or_default(model), &pose, &what, &load)
        }
        Some(Command::Bench {
            model,
            vertices,
            joints,
            frames,
            size,
            path,
            instances,
            json,
            no_ddm,
            load,
        }) => {
            let path = crate::render::SkinPath::from_name(&path).ok_or_else(|| {
                anyhow::anyhow!("unknown --path `{path}` (valid: vertex, compute)")
            })?;
            let options = bench::BenchOptions {
                model,
                vertices,
                joints,
                frames,
                size: render::parse_size(&size)?,
                instances,
                path,
                no_ddm,
            };
            bench::run(&options, json, started, &load)
        }
        Some(Command::Blend(args)) => blend::run(&args),
        Some(Command::Cor(args)) => cor_write::run(&args),
        Some(Command::HelperJoints(args)) => helper_joints::run(&args),
        Some(Command::Report(args)) => report::run(&args),
        Some(Command::Check(args)) => check::run(&args),
        Some(Command::Shader(args)) => shader::run(&args),
        Some(Command::Ddm(args)) => ddm_data::run(&args),
        Some(Command::Builtin { name, out }) => {
            let bytes = crate::builtin::builtin_glb(&name)?;
            std::fs::write(&out, bytes)
                .with_context(|| format!("cannot write {}", out.display()))?;
            println!("wrote builtin:{name} to {}", out.display());
            Ok(())
        }
        None => {
            let view = cli.viewer.view.as_deref().map(|name| {
                crate::ui::parse_view(name).ok_or_else(|| {
                    anyhow::anyhow!(
                        "unknown view `{name}` (valid: single, split, split3, split4, overlay, or two or more modes such as lbs,dqs,ddm,cor)"
                    )
                })
            });
            let view = view.transpose()?;
            let shading = cli.viewer.shading.as_deref().map(|name| {
                crate::render::DebugView::from_name(name).ok_or_else(|| {
                    let names: Vec<&str> = crate::render::DebugView::ALL
                        .iter()
                        .map(|v| v.name())
                        .collect();
                    anyhow::anyhow!("unknown shading `{name}` (valid: {})", names.join(", "))
                })
            });
            let shading = shading.transpose()?;
            // The pose options' --bulge-compensation is the panel's "DQS bulge fix" at start.
            let bulge = cli.pose.cor.bulge_amount()?;
            flag_rules::refuse_cor_precompute(
                &cli.pose.cor,
                "the viewer precomputes CoR with the defaults (they apply to export, render, analyze, blend and report)",
            )?;
            if let Some(dir) = &cli.viewer.shader_dir
                && !dir.is_dir()
            {
                anyhow::bail!("--shader-dir {}: not a folder", dir.display());
            }
            let model = cli.model.or_else(|| {
                let path = cli.viewer.session.as_deref()?;
                let session = crate::session::Session::read(path).ok()?;
                Some(session.model.path).filter(|p| !p.is_empty())
            });
            crate::app::run(crate::app::ViewerOptions {
                model: model_or_default(model),
                view,
                shading,
                pose: cli.pose.request(),
                screenshot: cli.viewer.screenshot,
                exit_after_frames: cli.viewer.exit_after_frames,
                msaa: cli.viewer.msaa,
                bulge_compensation: bulge,
                ddm: cli.pose.ddm.params()?,
                dm: cli.pose.dm.params()?,
                shader_dir: cli.viewer.shader_dir,
                lose_device_at_frame: cli.viewer.lose_device_at_frame,
                session: cli.viewer.session,
                ui_script: cli.viewer.ui_script,
                window_size: cli.viewer.window_size,
                profile: cli.viewer.profile,
            })
        }
    }
}

/// `--window-size`: `WIDTHxHEIGHT`, each from 320 to 8192.
fn parse_window_size(text: &str) -> Result<(u32, u32), String> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)));
    match parsed {
        Some((w, h)) if (320..=8192).contains(&w) && (240..=8192).contains(&h) => Ok((w, h)),
        _ => Err(format!(
            "expected WIDTHxHEIGHT with a width from 320 and a height from 240 to 8192, got `{text}`"
        )),
    }
}

/// `--msaa`: 1 or 4, the sample counts every adapter supports for the surface formats.
fn parse_msaa(text: &str) -> Result<u32, String> {
    match text {
        "1" => Ok(1),
        "4" => Ok(4),
        _ => Err(format!("`{text}` is not 1 or 4")),
    }
}

/// Ctrl+C for the commands that write files (`blend`, `twist-joints`): one per process.
static INTERRUPT: crate::interrupt::Interrupt = crate::interrupt::Interrupt::new();

/// Installs the Ctrl+C handler once per process (a second install, e.g. in tests, is a no-op)
/// and returns what it sets: it cancels the work until the files are committed, then only
/// says they were written.
fn interrupt_on_ctrl_c() -> &'static crate::interrupt::Interrupt {
    if let Err(e) = ctrlc::set_handler(|| {
        let line = INTERRUPT.interrupt();
        // Not eprintln!: a closed stderr is no reason to panic in a signal handler's thread.
        let _ = writeln!(std::io::stderr(), "\n{line}");
    }) {
        log::debug!("Ctrl+C handler not installed: {e}");
    }
    &INTERRUPT
}

/// The model named, or the default built-in rig.
fn model_or_default(model: Option<String>) -> String {
    model.unwrap_or_else(|| crate::model::DEFAULT_MODEL.to_string())
}

/// Loads a model like [`load_quiet`] and says on stderr, in `inspect`'s words, each bad value
/// the loader replaced or dropped and how ([`crate::scene::DataFault::line`]).
fn load(model: &str, args: &LoadArgs) -> Result<crate::scene::Scene> {
    let scene = load_quiet(model, args)?;
    for fault in &scene.faults {
        eprintln!("{model}: {}", fault.line());
    }
    Ok(scene)
}

/// Loads a model within the limits of `args`, with an error message that names it; a built-in
/// rig refuses the load flags (it is made by code, no file is read).
fn load_quiet(model: &str, args: &LoadArgs) -> Result<crate::scene::Scene> {
    if model.starts_with("builtin:")
        && let Some(flag) = flag_rules::load_given(args).first()
    {
        anyhow::bail!("{flag} limits loading a file; {model} is made by code, so it has no effect");
    }
    crate::model::load_model_with(model, &args.to_options())
        .with_context(|| format!("cannot load {model}"))
}
