//! GPU skinning on wgpu: context, palette buffers, WGSL modules, compute skinner, offscreen renderer.
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
//! - group 1, the render pipelines ([`Renderer`]): 0 `FrameUniforms` uniform
//!   ([`FrameBinding`]); vertex buffers 0 (`GpuMeshVertex`) and 1 (`GpuVertexJoints`).
//! - group 1, the crowd compute pass ([`Crowd`], `cs_skin_draw`): 0 `ComputeParams`,
//!   1 bind positions and normals, 2 packed influences, 3 skinned vertices (also a vertex buffer).
//! - group 2, the render pipelines: 0 `MaterialUniforms`, 1 base colour texture,
//!   2 sampler ([`GpuMaterialBinding`]).

mod backdrop;
mod compute_scene;
mod compute_skin;
mod context;
mod crowd;
mod crowd_draw;
mod crowd_palette;
mod crowd_skin;
mod debug_view;
mod error;
mod frame;
pub mod gpu_data;
mod gpu_timer;
mod label;
mod layout;
mod material;
mod mesh;
mod offscreen;
mod overlay;
mod palette;
mod pipelines;
mod renderer;
mod scene_gpu;
pub mod shaders;
mod views;

pub use backdrop::{BackdropRenderer, GpuBackdrop};
pub use compute_scene::{skin_scene_gpu, skin_scene_gpu_cor};
pub use compute_skin::ComputeSkinner;
pub use context::GpuContext;
pub use crowd::{Crowd, SkinPath};
pub use debug_view::{DebugView, ViewParams};
pub use error::RenderError;
pub use frame::FrameBinding;
pub use gpu_timer::GpuTimer;
pub use label::draw_label;
pub use material::GpuMaterialBinding;
pub use mesh::GpuMesh;
pub use offscreen::{OffscreenTarget, RgbaImage, begin_scene_pass};
pub use overlay::{
    GpuLineVertex, GpuOverlayUniforms, LineMesh, OverlayRenderer, OverlayView, WireScene, edges_of,
    grid_lines,
};
pub use palette::{GpuPalette, PaletteLayout};
pub use renderer::{COLOR_FORMAT, Camera, DEPTH_FORMAT, RenderSettings, Renderer};
pub use scene_gpu::SceneGpu;
pub use shaders::{PaletteBinding, set_shader_dir, shader_dir};
pub use views::View;
