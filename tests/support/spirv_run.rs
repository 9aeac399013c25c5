//! Running exported SPIR-V as written: a passthrough device, the exported palette's buffers and
//! layouts, bind groups and readback (`tests/shader_run.rs`, `tests/shader_run_ddm.rs`).

use std::io::Write as _;
use std::sync::OnceLock;

use dqview::render::shader_export::ShaderCode;
use dqview::skin::JointPalette;
use glam::Mat4;
use wgpu::util::DeviceExt as _;

/// A device that takes SPIR-V as written (passthrough), and its queue.
pub struct Device {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

/// A device with passthrough shaders, or `None` after a loud skip.
pub fn device(test: &str) -> Option<&'static Device> {
    static DEVICE: OnceLock<Result<Device, String>> = OnceLock::new();
    let result = DEVICE.get_or_init(|| {
        pollster::block_on(async {
            let instance = wgpu::Instance::new(
                wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
            );
            let adapter = instance
                .request_adapter(&wgpu::RequestAdapterOptions::default())
                .await
                .map_err(|e| e.to_string())?;
            if !adapter
                .features()
                .contains(wgpu::Features::PASSTHROUGH_SHADERS)
            {
                return Err(format!(
                    "{} has no PASSTHROUGH_SHADERS",
                    adapter.get_info().name
                ));
            }
            let (device, queue) = adapter
                .request_device(&wgpu::DeviceDescriptor {
                    label: Some("shader_run"),
                    required_features: wgpu::Features::PASSTHROUGH_SHADERS,
                    required_limits: adapter.limits(),
                    ..Default::default()
                })
                .await
                .map_err(|e| e.to_string())?;
            Ok(Device { device, queue })
        })
    });
    match result {
        Ok(d) => Some(d),
        Err(why) => {
            let required = std::env::var("DQVIEW_REQUIRE_GPU").is_ok_and(|v| v == "1");
            assert!(!required, "{test}: {why}, and DQVIEW_REQUIRE_GPU=1");
            let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
            None
        }
    }
}

/// Little-endian bytes of `floats`.
pub fn bytes_of(floats: &[f32]) -> Vec<u8> {
    floats.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// The palette buffers (params, dual quaternions, matrices, scale/shear) for `capacity` joints.
pub fn palette_buffers(
    d: &Device,
    (p, vertex_count): (&JointPalette, usize),
    beta_scale: f32,
    capacity: usize,
    clip: Mat4,
) -> [wgpu::Buffer; 4] {
    let count = p.len();
    let mut params = bytes_of(&clip.to_cols_array());
    params.extend((count as u32).to_le_bytes());
    params.extend(u32::from(!p.is_rigid()).to_le_bytes());
    params.extend(beta_scale.to_le_bytes());
    params.extend((vertex_count as u32).to_le_bytes());
    let (mut dq, mut m, mut s) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..capacity.max(count) {
        let gpu = p.to_gpu_dual_quats().get(j).copied().unwrap_or_default();
        dq.extend(gpu.real.iter().chain(&gpu.dual));
        m.extend(
            p.matrices
                .get(j)
                .copied()
                .unwrap_or(Mat4::IDENTITY)
                .to_cols_array(),
        );
        let sj = p
            .scale_shear
            .as_ref()
            .and_then(|all| all.get(j).copied())
            .unwrap_or(glam::Mat3::IDENTITY);
        for c in [sj.x_axis, sj.y_axis, sj.z_axis] {
            s.extend([c.x, c.y, c.z, 0.0]);
        }
    }
    let usage = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::STORAGE;
    let buffer = |label: &str, bytes: &[u8]| {
        d.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage,
            })
    };
    [
        buffer("params", &params),
        buffer("dual quats", &bytes_of(&dq)),
        buffer("matrices", &bytes_of(&m)),
        buffer("scale shear", &bytes_of(&s)),
    ]
}

/// A buffer entry of no minimum size at `binding`.
pub fn buffer_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Group 0: params (uniform) and the three palette arrays (uniform or read-only storage).
pub fn palette_layout(
    d: &Device,
    stage: wgpu::ShaderStages,
    storage: bool,
) -> wgpu::BindGroupLayout {
    let array = if storage {
        wgpu::BufferBindingType::Storage { read_only: true }
    } else {
        wgpu::BufferBindingType::Uniform
    };
    let entries = [
        buffer_entry(0, stage, wgpu::BufferBindingType::Uniform),
        buffer_entry(1, stage, array),
        buffer_entry(2, stage, array),
        buffer_entry(3, stage, array),
    ];
    d.device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("palette"),
            entries: &entries,
        })
}

/// A bind group of `buffers` whole, at bindings 0, 1, ...
pub fn bind_group(
    d: &Device,
    layout: &wgpu::BindGroupLayout,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    let entries: Vec<_> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    d.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout,
        entries: &entries,
    })
}

/// Reads `size` bytes of `buffer` back as floats.
pub fn read_back(d: &Device, encoder: wgpu::CommandEncoder, buffer: &wgpu::Buffer) -> Vec<f32> {
    d.queue.submit([encoder.finish()]);
    let slice = buffer.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    d.device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    let data = slice.get_mapped_range().expect("mapped");
    let out = data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    drop(data);
    buffer.unmap();
    out
}

/// The words of SPIR-V `code` (panics on text).
pub fn spirv(code: &ShaderCode) -> &[u32] {
    match code {
        ShaderCode::Spirv(words) => words,
        ShaderCode::Text(_) => panic!("not SPIR-V"),
    }
}

/// The compute pipeline of SPIR-V `words`' `cs_skin`, its groups laid out as `groups`.
pub fn compute_pipeline(
    d: &Device,
    words: &[u32],
    groups: &[&wgpu::BindGroupLayout],
) -> wgpu::ComputePipeline {
    let module = dqview_spirv_passthrough::spirv_module(&d.device, "cs_skin", words, "cs_skin");
    let groups: Vec<Option<&wgpu::BindGroupLayout>> = groups.iter().copied().map(Some).collect();
    let layout = d
        .device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &groups,
            immediate_size: 0,
        });
    d.device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("cs_skin"),
            layout: Some(&layout),
            module: &module,
            entry_point: Some("cs_skin"),
            compilation_options: Default::default(),
            cache: None,
        })
}

/// The compute stage's output buffer for `n` vertices (position and normal, 6 floats each).
pub fn skinned_buffer(d: &Device, n: usize) -> wgpu::Buffer {
    d.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("skinned"),
        size: (n * 6 * 4) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// Runs `pipeline` over `n` vertices with `groups` bound and reads `output` back as
/// (position, normal) per vertex.
pub fn run_and_read(
    d: &Device,
    pipeline: &wgpu::ComputePipeline,
    groups: [&wgpu::BindGroup; 2],
    (n, output): (usize, &wgpu::Buffer),
) -> Vec<(glam::Vec3, glam::Vec3)> {
    let readback = d.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: output.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = d.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        for (i, group) in groups.iter().enumerate() {
            pass.set_bind_group(i as u32, *group, &[]);
        }
        pass.dispatch_workgroups((n as u32).div_ceil(64), 1, 1);
    }
    encoder.copy_buffer_to_buffer(output, 0, &readback, 0, output.size());
    read_back(d, encoder, &readback)
        .chunks_exact(6)
        .map(|c| {
            (
                glam::Vec3::new(c[0], c[1], c[2]),
                glam::Vec3::new(c[3], c[4], c[5]),
            )
        })
        .collect()
}

/// A read-only storage buffer holding `bytes`.
pub fn storage_buffer(d: &Device, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    d.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytes,
            usage: wgpu::BufferUsages::STORAGE,
        })
}

/// Little-endian bytes of `points`, three floats each.
pub fn flat3_bytes(points: &[glam::Vec3]) -> Vec<u8> {
    bytes_of(&points.iter().flat_map(|p| p.to_array()).collect::<Vec<_>>())
}
