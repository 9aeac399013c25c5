//! GPU skinning on wgpu: context, palette buffers, WGSL modules and the compute skinner.
//!
//! The CPU reference in [`crate::skin`] is the specification; the shaders in
//! `shaders/` mirror it function for function and are tested against it.
//!
//! Bind groups of every skinning pipeline:
//! - group 0, the joint palette ([`GpuPalette`], layout [`PaletteLayout`]):
//!   0 `SkinParams` uniform, 1 dual quaternions (`array<mat2x4<f32>, 2048>`
//!   uniform, or a storage array past 2048 joints), 2 LBS matrices (storage
//!   `array<mat4x4<f32>>`), 3 scale/shear matrices (storage `array<mat3x3<f32>>`,
//!   one identity for rigid skins).
//! - group 1, the compute pass ([`ComputeSkinner`]): 0 `ComputeParams` uniform,
//!   1 bind vertices, 2 influences (read-only storage), 3 skinned vertices (storage).

mod compute_skin;
mod context;
mod error;
pub mod gpu_data;
mod palette;
pub mod shaders;

pub use compute_skin::ComputeSkinner;
pub use context::GpuContext;
pub use error::RenderError;
pub use palette::{GpuPalette, PaletteLayout};
pub use shaders::PaletteBinding;
