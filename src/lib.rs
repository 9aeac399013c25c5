//! dqview: inspect skinned characters, linear blend vs dual quaternion skinning.
//!
//! Data flows down this list; a module only uses the ones above it.
//! - [`dq`]: dual quaternions, blending, rigid/scale splitting (glam only).
//! - [`influences`]: per-vertex joint influences in load-time convention.
//! - [`scene`]: dqview's scene model, the glTF loader and GLB writer.
//! - [`builtin`]: rigs made by code (`builtin:twist`, `builtin:elbow`, `builtin:arm`).
//! - [`model`]: opening a model by path or built-in name.
//! - [`anim`]: clip sampling, poses, joint overrides.
//! - [`skin`]: joint palettes and the CPU reference skinning.
//! - [`analysis`]: volume and area ratios, joint regions, cross-sections, over clips.
//! - [`rig_report`]: everything `dqview report` measures about a rig, and its HTML page.
//! - [`pose_request`]: pose options (mode, clip, time, joint angles) checked against a scene.
//! - [`check`]: pipeline rules over many files in parallel (`dqview check`).
//! - [`render`]: GPU skinning on wgpu, checked against [`skin`].
//! - [`ui`]: the viewer's panels and camera, egui only (no wgpu).
//! - [`session`]: rig session files (camera, mode, clip, overrides), plain serde data.
//! - [`report`]: errors as one line for the user, for the edges (`app`, `cli`, `main`).
//! - [`interrupt`]: Ctrl+C for commands that write files: cancel before the commit, report after.
//! - [`output_files`]: writing output files all or none (staged, renamed on commit), for the edges.
//! - [`blend_file`]: writing a DQS blend map into a model's file, for the edges (`app`, `cli`).
//! - [`app`]: the viewer window: winit, the wgpu surface, the frame loop.
//! - [`cli`]: the command line; nothing imports it but `main`.

pub mod analysis;
pub mod anim;
pub mod app;
pub mod blend_file;
pub mod builtin;
pub mod check;
pub mod cli;
pub mod cor_file;
pub mod dq;
pub mod influences;
pub mod interrupt;
pub mod model;
pub mod output_files;
pub mod pose_request;
pub mod render;
pub mod report;
pub mod rig_file;
pub mod rig_report;
pub mod scene;
pub mod session;
pub mod skin;
pub mod twist_joints;
pub mod ui;
