//! GPU skinning on wgpu: context, palette buffers, WGSL modules and the compute skinner.
//!
//! The CPU reference in [`crate::skin`] is the specification; the shaders in
//! `shaders/` mirror it function for function and are tested against it.

mod context;
mod error;
pub mod gpu_data;
pub mod shaders;

pub use context::GpuContext;
pub use error::RenderError;
pub use shaders::PaletteBinding;
