//! GPU skinning on wgpu: one core that every draw, crowd, readback and debug view uses.
//!
//! The CPU reference in [`crate::skin`] is the specification; the shaders in `shaders/`
//! mirror it function for function and are tested against it.
//!
//! - [`GpuGeometry`]: one primitive's bind pose, influences, morph deltas, betas and CoR
//!   centres in storage buffers, packed once (bind group 1).
//! - [`PaletteStore`]: every skin's (and rigid node's) palette for every instance in one set
//!   of buffers; a slot's bind group (group 0) is the uniform dual quaternion window where it
//!   fits, storage past that.
//! - [`Renderer`]: the one family of pipelines: `vs_main` with override constants for every
//!   render pipeline (shaded, debug views, blended, wire edges; vertex-skinned or drawing what
//!   the compute pass skinned), `cs_skin` for every compute run.
//! - [`SceneGpu`]: a scene's geometries, palette store and materials for K instances; it draws
//!   (instanced), runs the compute pass and reads it back ([`skin_scene_gpu`]).
//!
//! Groups of the render pipelines: 0 palette slot, 1 geometry, 2 frame uniforms
//! ([`FrameBinding`]), 3 material ([`GpuMaterialBinding`]). Groups of `cs_skin`: 0, 1 and
//! 2 the compute parameters and output.

mod backdrop;
mod context;
mod crowd;
mod debug_view;
mod dm_gpu;
mod dm_pipelines;
mod error;
mod frame;
mod geometry;
mod geometry_buffers;
mod geometry_pack;
pub mod gpu_data;
mod gpu_timer;
mod label;
mod layout;
mod legend;
mod material;
mod offscreen;
mod outline;
mod palette_store;
mod pipelines;
mod readback;
mod region_probe;
mod renderer;
mod scene_draw;
mod scene_gpu;
mod scene_inputs;
pub mod shader_export;
pub mod shaders;
mod views;

pub use backdrop::{BackdropRenderer, GpuBackdrop};
pub use context::{GpuContext, requested_limits};
pub use crowd::{SkinPath, grid_offsets, instance_time_s};
pub use debug_view::{DebugView, ViewParams};
pub use error::RenderError;
pub use frame::{FrameBinding, WIRE_DEPTH_PULL};
pub use geometry::{GeometrySource, GpuGeometry};
pub use geometry_pack::{ddm_words, edges_of};
pub use gpu_timer::GpuTimer;
pub use label::{draw_label, label_size};
pub use layout::GpuLayouts;
pub use legend::{draw_heat_legend, heat_rgb, legend_height, legend_title};
pub use material::GpuMaterialBinding;
pub use offscreen::{OffscreenTarget, RgbaImage, begin_scene_pass};
pub use outline::{OUTLINE_RGBA, draw_outline, is_outline_pixel};
pub use palette_store::{PaletteStore, SlotSpec};
pub use pipelines::{DrawKind, PipelineKey};
pub use readback::{GpuSkinning, MeshSkinning, skin_mesh_gpu, skin_scene_gpu};
pub use region_probe::{
    PROBE_PANE_HEIGHT, ProbeCamera, REGION_PIXEL_MIN, RegionCoverage, count_region_pixels,
    is_region_pixel,
};
pub use renderer::{COLOR_FORMAT, Camera, DEPTH_FORMAT, RenderSettings, Renderer};
pub use scene_draw::{SkinRun, gpu_skinned_vertices};
pub use scene_gpu::{SceneGpu, SceneOptions};
pub use shaders::{PaletteBinding, set_shader_dir, shader_dir};
pub use views::View;
