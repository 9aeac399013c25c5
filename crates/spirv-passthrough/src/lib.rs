//! Test-only helper of dqview: a wgpu shader module made from SPIR-V words as they are.
//!
//! dqview forbids `unsafe`; `Device::create_shader_module_passthrough` is unsafe because
//! wgpu does not validate passthrough code. dqview's run test of `dqview shader --target
//! spirv` needs exactly that (running the exported binary, not naga's re-translation of it),
//! so the one call lives here, in a crate dqview uses only as a dev-dependency.

/// A shader module of `words` with entry point `entry`, passed to the backend unvalidated.
///
/// The device must have `wgpu::Features::PASSTHROUGH_SHADERS`. The caller vouches for the
/// code: the tests pass only SPIR-V that `spirv-val` accepts and naga wrote from a validated
/// module.
#[must_use]
pub fn spirv_module(
    device: &wgpu::Device,
    label: &str,
    words: &[u32],
    entry: &str,
) -> wgpu::ShaderModule {
    let desc = wgpu::ShaderModuleDescriptorPassthrough {
        label: Some(label),
        entry_points: std::borrow::Cow::Owned(vec![wgpu::PassthroughShaderEntryPoint {
            name: std::borrow::Cow::Owned(entry.to_string()),
            workgroup_size: (64, 1, 1),
        }]),
        spirv: Some(std::borrow::Cow::Borrowed(words)),
        ..Default::default()
    };
    // SAFETY: the module is naga-validated SPIR-V (see above); wgpu requires no more than
    // valid code for the backend, which the Vulkan driver then checks on pipeline creation.
    unsafe { device.create_shader_module_passthrough(desc) }
}
