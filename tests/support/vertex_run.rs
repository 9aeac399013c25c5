//! Running an exported vertex stage (`dqview shader --stage vertex`) on lavapipe: each vertex
//! drawn as one point into its own 1x1 viewport, its outputs captured in float targets.

use glam::{Mat4, Vec3, Vec4};
use wgpu::util::DeviceExt as _;

use super::spirv_run::{Device, bind_group, bytes_of, palette_buffers, palette_layout, read_back};
use dqview::skin::JointPalette;

/// Bytes of one vertex of the vertex test: position, normal, joints 0-3, weights 0-3, blend,
/// joints 4-7, weights 4-7.
const VERTEX_STRIDE: u64 = 104;
/// Width of the vertex test's render targets: one pixel per vertex.
const TARGET_WIDTH: u32 = 256;

/// One skinned primitive as the vertex stage reads it: up to eight influences a vertex (zero
/// weights padding) and a blend map.
pub struct VertexInput<'a> {
    /// Bind positions.
    pub positions: &'a [Vec3],
    /// Bind normals.
    pub normals: &'a [Vec3],
    /// Joints 0 to 7 a vertex.
    pub joints: &'a [[u32; 8]],
    /// Weights 0 to 7 a vertex.
    pub weights: &'a [[f32; 8]],
    /// The hybrid's blend a vertex.
    pub blends: &'a [f32],
    /// CoR's centre a vertex, at location 7 (`None`: not read).
    pub centers: Option<&'a [Vec3]>,
    /// The palette.
    pub palette: &'a JointPalette,
}

/// How to run an exported vertex stage.
pub struct VertexRun<'a> {
    /// The entry point (`vs_skin`, `vs_skin_ddm`, ...).
    pub entry: &'a str,
    /// A storage palette (else uniform arrays of `uniform_joints`).
    pub storage: bool,
    /// Joints in the uniform arrays.
    pub uniform_joints: u32,
    /// Whether the stage reads the blend at location 4.
    pub hybrid: bool,
    /// Whether influences 4 to 7 go to locations 5 and 6.
    pub eight: bool,
    /// A bind group 1 the stage reads (DDM's words), with its layout.
    pub group1: Option<(&'a wgpu::BindGroupLayout, &'a wgpu::BindGroup)>,
}

/// The fragment stage of the vertex test: writes the exported stage's outputs to two targets.
const CAPTURE_WGSL: &str = "
struct Outs { @location(0) position: vec4<f32>, @location(1) normal: vec4<f32> }
@fragment
fn fs_capture(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>) -> Outs {
    return Outs(vec4<f32>(position, 1.0), vec4<f32>(normal, 1.0));
}
";

/// [`CAPTURE_WGSL`] as SPIR-V.
fn capture_spirv() -> Vec<u32> {
    let module = naga::front::wgsl::parse_str(CAPTURE_WGSL).expect("capture parses");
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .expect("capture validates");
    naga::back::spv::write_vec(&module, &info, &naga::back::spv::Options::default(), None)
        .expect("capture SPIR-V")
}

/// Skinned (position, normal) per vertex from the exported vertex stage `words`: each vertex is
/// drawn as one point into its own 1x1 viewport (clip_from_model maps every point to the
/// centre), and its outputs are captured in rgba32float targets.
pub fn run_vertex(
    d: &Device,
    words: &[u32],
    case: &VertexInput<'_>,
    run: &VertexRun<'_>,
) -> Vec<(Vec3, Vec3)> {
    let (storage, hybrid, eight) = (run.storage, run.hybrid, run.eight);
    let module = dqview_spirv_passthrough::spirv_module(&d.device, run.entry, words, run.entry);
    // Passthrough too: wgpu cannot match a naga-reflected stage against a passthrough one.
    let capture = dqview_spirv_passthrough::spirv_module(
        &d.device,
        "fs_capture",
        &capture_spirv(),
        "fs_capture",
    );
    let palette_layout = palette_layout(d, wgpu::ShaderStages::VERTEX, storage);
    let mut layouts = vec![Some(&palette_layout)];
    layouts.extend(run.group1.map(|(l, _)| Some(l)));
    let layout = d
        .device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &layouts,
            immediate_size: 0,
        });
    let n = case.positions.len();
    let mut attributes = vec![
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 0,
            shader_location: 0,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 12,
            shader_location: 1,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Uint32x4,
            offset: 24,
            shader_location: 2,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 40,
            shader_location: 3,
        },
    ];
    if hybrid {
        attributes.push(wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32,
            offset: 56,
            shader_location: 4,
        });
    }
    if eight {
        attributes.push(wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Uint32x4,
            offset: 60,
            shader_location: 5,
        });
        attributes.push(wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 76,
            shader_location: 6,
        });
    }
    if case.centers.is_some() {
        attributes.push(wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 92,
            shader_location: 7,
        });
    }
    let mut vertices: Vec<u8> = Vec::with_capacity(n * VERTEX_STRIDE as usize);
    for v in 0..n {
        vertices.extend(bytes_of(&case.positions[v].to_array()));
        vertices.extend(bytes_of(&case.normals[v].to_array()));
        vertices.extend(case.joints[v][..4].iter().flat_map(|j| j.to_le_bytes()));
        vertices.extend(bytes_of(&case.weights[v][..4]));
        vertices.extend(case.blends[v].to_le_bytes());
        vertices.extend(case.joints[v][4..].iter().flat_map(|j| j.to_le_bytes()));
        vertices.extend(bytes_of(&case.weights[v][4..]));
        let center = case.centers.map_or(Vec3::ZERO, |c| c[v]);
        vertices.extend(bytes_of(&center.to_array()));
    }
    let vertex_buffer = d
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("vertices"),
            contents: &vertices,
            usage: wgpu::BufferUsages::VERTEX,
        });
    let format = wgpu::TextureFormat::Rgba32Float;
    let targets = [
        Some(wgpu::ColorTargetState::from(format)),
        Some(wgpu::ColorTargetState::from(format)),
    ];
    let pipeline = d
        .device
        .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(run.entry),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some(run.entry),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: VERTEX_STRIDE,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &attributes,
                })],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::PointList,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &capture,
                entry_point: Some("fs_capture"),
                compilation_options: Default::default(),
                targets: &targets,
            }),
            multiview_mask: None,
            cache: None,
        });
    // Every point at the clip-space origin: column 3 = (0, 0, 0, 1), the rest zero.
    let to_centre = Mat4::from_cols(Vec4::ZERO, Vec4::ZERO, Vec4::ZERO, Vec4::W);
    let palette = palette_buffers(
        d,
        (case.palette, case.positions.len()),
        1.0,
        if storage {
            0
        } else {
            run.uniform_joints as usize
        },
        to_centre,
    );
    let g0 = bind_group(d, &palette_layout, &palette.iter().collect::<Vec<_>>());
    let height = (n as u32).div_ceil(TARGET_WIDTH);
    let texture = |label: &str| {
        d.device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: TARGET_WIDTH,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        })
    };
    let textures = [texture("positions"), texture("normals")];
    let views: Vec<_> = textures
        .iter()
        .map(|t| t.create_view(&Default::default()))
        .collect();
    let mut encoder = d.device.create_command_encoder(&Default::default());
    {
        let attachments: Vec<_> = views
            .iter()
            .map(|view| {
                Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: f64::NAN,
                            g: 0.0,
                            b: 0.0,
                            a: 0.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })
            })
            .collect();
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("capture"),
            color_attachments: &attachments,
            ..Default::default()
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &g0, &[]);
        if let Some((_, g1)) = run.group1 {
            pass.set_bind_group(1, g1, &[]);
        }
        pass.set_vertex_buffer(0, vertex_buffer.slice(..));
        for v in 0..n as u32 {
            let (x, y) = (v % TARGET_WIDTH, v / TARGET_WIDTH);
            pass.set_viewport(x as f32, y as f32, 1.0, 1.0, 0.0, 1.0);
            pass.draw(v..v + 1, 0..1);
        }
    }
    let row_bytes = TARGET_WIDTH * 16;
    let size = u64::from(row_bytes * height);
    let readbacks: Vec<_> = textures
        .iter()
        .map(|t| {
            let buffer = d.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            encoder.copy_texture_to_buffer(
                t.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer: &buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(row_bytes),
                        rows_per_image: Some(height),
                    },
                },
                wgpu::Extent3d {
                    width: TARGET_WIDTH,
                    height,
                    depth_or_array_layers: 1,
                },
            );
            buffer
        })
        .collect();
    d.queue.submit([encoder.finish()]);
    let mut streams = readbacks
        .iter()
        .map(|b| read_back(d, d.device.create_command_encoder(&Default::default()), b));
    let (positions, normals) = (
        streams.next().expect("positions"),
        streams.next().expect("normals"),
    );
    (0..n)
        .map(|v| {
            let (p, q) = (&positions[4 * v..4 * v + 4], &normals[4 * v..4 * v + 4]);
            (Vec3::new(p[0], p[1], p[2]), Vec3::new(q[0], q[1], q[2]))
        })
        .collect()
}
