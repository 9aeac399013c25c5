//! Shared helpers for the integration tests.
//!
//! Each test crate uses a different subset, hence the blanket `dead_code` allowance.
#![allow(dead_code)]

mod blender;
mod cli;
mod data;
pub mod fbx_shapes;
mod findings;
mod gltf_build;
pub mod gltf_transform;
mod gpu;
pub mod hierarchy;
mod nearest;
mod posing;
mod scenes;
pub mod spirv_run;
pub mod three;
mod usd_pxr;
pub mod usd_stages;
pub mod vertex_run;
mod x_server;
mod xvfb;

#[allow(unused_imports)]
pub use blender::*;
#[allow(unused_imports)]
pub use cli::*;
#[allow(unused_imports)]
pub use data::*;
#[allow(unused_imports)]
pub use findings::*;
#[allow(unused_imports)]
pub use gltf_build::*;
#[allow(unused_imports)]
pub use gpu::*;
#[allow(unused_imports)]
pub use nearest::*;
#[allow(unused_imports)]
pub use posing::*;
#[allow(unused_imports)]
pub use scenes::*;
#[allow(unused_imports)]
pub use usd_pxr::*;
#[allow(unused_imports)]
pub use x_server::*;
#[allow(unused_imports)]
pub use xvfb::*;
