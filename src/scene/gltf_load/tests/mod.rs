//! Unit tests of the glTF loader on tiny files built in code.

mod compat;
mod errors;
mod fixtures;
mod geometry;
mod scene;
