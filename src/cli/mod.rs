//! The command line: argument definitions and dispatch to the library.

mod export;
mod inspect;
mod pose_args;
mod render;

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use crate::scene::LoadOptions;

pub use pose_args::PoseArgs;

/// dqview: inspect skinned characters, linear blend vs dual quaternion skinning.
#[derive(Debug, Parser)]
#[command(name = "dqview", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Model to open when no subcommand is given: a .gltf/.glb path or builtin:NAME.
    #[arg(value_name = "MODEL")]
    pub model: Option<String>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print what a model contains: meshes, skins, joints, influences, clips, bounds.
    Inspect {
        /// A .gltf/.glb path or builtin:NAME (default builtin:twist).
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
        /// A .gltf/.glb path or builtin:NAME (default builtin:twist).
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
    /// Render a posed model to a PNG without a window (mode may also be `split`: LBS left, DQS right).
    Render {
        /// A .gltf/.glb path or builtin:NAME (default builtin:twist).
        #[arg(value_name = "MODEL")]
        model: Option<String>,
        /// Output file (.png).
        #[arg(long, value_name = "FILE.png")]
        out: PathBuf,
        /// Image size.
        #[arg(long, value_name = "WxH", default_value = "1024x512")]
        size: String,
        /// Pose options.
        #[command(flatten)]
        pose: PoseArgs,
        /// Load limits and URI policy.
        #[command(flatten)]
        load: LoadArgs,
    },
    /// Write a built-in rig (twist, elbow, arm) as a .glb file.
    Builtin {
        /// Rig name: twist, elbow or arm.
        name: String,
        /// Output file (.glb).
        #[arg(long, value_name = "FILE.glb")]
        out: PathBuf,
    },
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

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<()> {
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
        Some(Command::Render {
            model,
            out,
            size,
            pose,
            load,
        }) => render::run(&model_or_default(model), &out, &pose, &size, &load),
        Some(Command::Builtin { name, out }) => {
            let bytes = crate::builtin::builtin_glb(&name)?;
            std::fs::write(&out, bytes)
                .with_context(|| format!("cannot write {}", out.display()))?;
            println!("wrote builtin:{name} to {}", out.display());
            Ok(())
        }
        None => {
            // The viewer window comes with the renderer; until then, describe the model.
            inspect::run(&model_or_default(cli.model), false, &LoadArgs::default())
        }
    }
}

/// The model named, or the default built-in rig.
fn model_or_default(model: Option<String>) -> String {
    model.unwrap_or_else(|| crate::model::DEFAULT_MODEL.to_string())
}

/// Loads a model within the limits of `args`, with an error message that names it.
fn load(model: &str, args: &LoadArgs) -> Result<crate::scene::Scene> {
    crate::model::load_model_with(model, &args.to_options())
        .with_context(|| format!("cannot load {model}"))
}

/// One line for the user: the error and its causes, leaving out causes a message already quotes.
#[must_use]
pub fn error_message(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}
