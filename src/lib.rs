//! dqview: inspect skinned characters, linear blend vs dual quaternion skinning.
//!
//! Data flows down this list; a module only uses the ones above it.
//! - [`dq`]: dual quaternions, blending, rigid/scale splitting (glam only).
//! - [`influences`]: per-vertex joint influences in load-time convention.
//! - [`scene`]: dqview's scene model, the glTF loader and the GLB writer.
//! - [`builtin`]: the built-in rigs (`builtin:twist`, `builtin:elbow`, `builtin:arm`).
//! - [`anim`]: clip sampling, poses, joint overrides.
//! - [`skin`]: joint palettes and the CPU reference skinning.
//! - [`cli`]: the command line.

pub mod builtin;
pub mod dq;
pub mod influences;
pub mod scene;
pub mod skin;
