//! Bind group layout entries shared by the compute passes and render pipelines.

use std::num::NonZeroU64;

/// How a compute shader sees a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, read>`.
    Read,
    /// `var<storage, read_write>`.
    ReadWrite,
}

/// A compute-stage buffer at `binding`, at least `min_size` bytes (one element).
pub(crate) fn compute_buffer(
    binding: u32,
    access: Access,
    min_size: usize,
) -> wgpu::BindGroupLayoutEntry {
    let ty = match access {
        Access::Uniform => wgpu::BufferBindingType::Uniform,
        Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
        Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
    };
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(min_size as u64),
        },
        count: None,
    }
}

/// A uniform buffer at `binding` seen by `stages`, at least `min_size` bytes.
pub(crate) fn uniform_buffer(
    binding: u32,
    stages: wgpu::ShaderStages,
    min_size: usize,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: stages,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(min_size as u64),
        },
        count: None,
    }
}
