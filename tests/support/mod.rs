//! Shared helpers for the integration tests.
//!
//! Each test crate uses a different subset, hence the blanket `dead_code` allowance.
#![allow(dead_code)]

mod data;
mod scenes;

pub use data::*;
pub use scenes::*;
