//! Overlay drawing for the viewer: coloured line lists (ground grid) and skinned mesh edges
//! (wireframe and the overlay ghost), into the same colour and depth targets as the
//! shaded meshes.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};
use wgpu::util::DeviceExt;

use super::gpu_data::GpuVertexJoints;
use super::layout::uniform_buffer;
use super::palette::GpuPalette;
use super::shaders::{PaletteBinding, module_source, shader_text};
use super::{DEPTH_FORMAT, GpuContext, RenderError, Renderer};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{JointPalette, SkinningMode};

/// Coloured line lists (`vs_lines`, `fs_lines`).
pub const LINES_WGSL: &str = include_str!("../../shaders/lines.wgsl");
/// Skinned edges (`vs_wire`, `fs_wire`); follows the shared skinning code.
pub const WIRE_WGSL: &str = include_str!("../../shaders/wire.wgsl");

/// Per-view overlay constants. Keep in sync with `OverlayUniforms` in `shaders/lines.wgsl` and `shaders/wire.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuOverlayUniforms {
    /// World to clip space.
    pub clip_from_world: [[f32; 4]; 4],
    /// Linear RGBA colour (multiplies vertex colours of lines).
    pub color: [f32; 4],
    /// x: hybrid beta; y: depth pull in clip w units; z: skinning mode (0 LBS, 1 DQS, 2 hybrid).
    pub params: [f32; 4],
}

impl GpuOverlayUniforms {
    /// Uniforms for drawing with `clip_from_world` in `color`, skinning edges with `mode`.
    #[must_use]
    pub fn new(clip_from_world: Mat4, color: Vec4, mode: SkinningMode, beta: f32) -> Self {
        let mode = match mode {
            SkinningMode::Lbs => 0.0,
            SkinningMode::Dqs => 1.0,
            SkinningMode::Hybrid => 2.0,
            // The wire shader has no centers: a CoR ghost is drawn as DQS.
            SkinningMode::Cor => 1.0,
        };
        Self {
            clip_from_world: clip_from_world.to_cols_array_2d(),
            color: color.to_array(),
            params: [beta, 2e-4, mode, 0.0],
        }
    }
}

/// One line vertex. Keep in sync with `LineIn` in `shaders/lines.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuLineVertex {
    /// World position.
    pub position: [f32; 3],
    /// Linear RGBA.
    pub color: [f32; 4],
}

/// The overlay pipelines: lines, and skinned edges depth-tested or on top, per palette kind.
#[derive(Debug)]
pub struct OverlayRenderer {
    uniform_layout: wgpu::BindGroupLayout,
    lines: wgpu::RenderPipeline,
    /// (binding kind, depth tested, on top).
    wire: Vec<(PaletteBinding, wgpu::RenderPipeline, wgpu::RenderPipeline)>,
}

/// One overlay draw's uniforms: a buffer written each frame and its bind group.
#[derive(Debug)]
pub struct OverlayView {
    buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

impl OverlayView {
    /// Overwrites the uniforms (no allocation).
    pub fn write(&self, queue: &wgpu::Queue, uniforms: &GpuOverlayUniforms) {
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(uniforms));
    }
}

impl OverlayRenderer {
    /// Builds the pipelines for `color_format` and the renderer's sample count and palette layouts.
    pub fn new(
        ctx: &GpuContext,
        renderer: &Renderer,
        color_format: wgpu::TextureFormat,
    ) -> Result<Self, RenderError> {
        let samples = renderer.settings().sample_count;
        ctx.scoped("dqview::OverlayRenderer::new", || {
            let device = &ctx.device;
            let uniform_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("dqview::OverlayRenderer::uniform_layout"),
                entries: &[uniform_buffer(0, wgpu::ShaderStages::VERTEX_FRAGMENT, size_of::<GpuOverlayUniforms>())],
            });
            let target = [Some(wgpu::ColorTargetState {
                format: color_format,
                blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                write_mask: wgpu::ColorWrites::ALL,
            })];
            let pipeline = |label: &'static str,
                            layout: &wgpu::PipelineLayout,
                            module: &wgpu::ShaderModule,
                            vs: &'static str,
                            fs: &'static str,
                            buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
                            compare: wgpu::CompareFunction| {
                device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some(label),
                    layout: Some(layout),
                    vertex: wgpu::VertexState {
                        module,
                        entry_point: Some(vs),
                        compilation_options: wgpu::PipelineCompilationOptions::default(),
                        buffers,
                    },
                    primitive: wgpu::PrimitiveState {
                        topology: wgpu::PrimitiveTopology::LineList,
                        ..Default::default()
                    },
                    depth_stencil: Some(wgpu::DepthStencilState {
                        format: DEPTH_FORMAT,
                        depth_write_enabled: Some(false),
                        depth_compare: Some(compare),
                        stencil: wgpu::StencilState::default(),
                        bias: wgpu::DepthBiasState::default(),
                    }),
                    multisample: wgpu::MultisampleState {
                        count: samples,
                        mask: !0,
                        alpha_to_coverage_enabled: false,
                    },
                    fragment: Some(wgpu::FragmentState {
                        module,
                        entry_point: Some(fs),
                        compilation_options: wgpu::PipelineCompilationOptions::default(),
                        targets: &target,
                    }),
                    multiview_mask: None,
                    cache: None,
                })
            };
            let lines_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("dqview::OverlayRenderer::lines_layout"),
                bind_group_layouts: &[Some(&uniform_layout)],
                immediate_size: 0,
            });
            let lines_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("dqview::OverlayRenderer::lines_shader"),
                source: wgpu::ShaderSource::Wgsl(shader_text("lines.wgsl", LINES_WGSL)),
            });
            let line_attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4];
            let lines = pipeline(
                "dqview::OverlayRenderer::rp_lines",
                &lines_layout,
                &lines_module,
                "vs_lines",
                "fs_lines",
                &[Some(wgpu::VertexBufferLayout {
                    array_stride: size_of::<GpuLineVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &line_attributes,
                })],
                wgpu::CompareFunction::LessEqual,
            );
            let position = wgpu::vertex_attr_array![0 => Float32x3];
            let joints = wgpu::vertex_attr_array![2 => Uint16x4, 3 => Uint16x4, 4 => Float32x4, 5 => Float32x4];
            let wire_buffers = [
                Some(wgpu::VertexBufferLayout {
                    array_stride: size_of::<[f32; 3]>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &position,
                }),
                Some(wgpu::VertexBufferLayout {
                    array_stride: size_of::<GpuVertexJoints>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &joints,
                }),
            ];
            let wire = PaletteBinding::ALL
                .into_iter()
                .map(|binding| {
                    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some("dqview::OverlayRenderer::wire_layout"),
                        bind_group_layouts: &[
                            Some(&renderer.palette_layout(binding).layout),
                            Some(&uniform_layout),
                        ],
                        immediate_size: 0,
                    });
                    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                        label: Some("dqview::OverlayRenderer::wire_shader"),
                        source: wgpu::ShaderSource::Wgsl(
                            module_source(binding, &shader_text("wire.wgsl", WIRE_WGSL)).into(),
                        ),
                    });
                    let make = |label, compare| {
                        pipeline(label, &layout, &module, "vs_wire", "fs_wire", &wire_buffers, compare)
                    };
                    (
                        binding,
                        make("dqview::OverlayRenderer::rp_wire", wgpu::CompareFunction::LessEqual),
                        make("dqview::OverlayRenderer::rp_wire_on_top", wgpu::CompareFunction::Always),
                    )
                })
                .collect();
            Self {
                uniform_layout,
                lines,
                wire,
            }
        })
    }

    /// A uniform buffer and bind group for one overlay draw.
    #[must_use]
    pub fn view(&self, ctx: &GpuContext) -> OverlayView {
        let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("dqview::OverlayView::uniforms"),
            size: size_of::<GpuOverlayUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("dqview::OverlayView::bind_group"),
            layout: &self.uniform_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        });
        OverlayView { buffer, bind_group }
    }

    /// Draws `lines` (a line list) depth-tested against the meshes.
    pub fn draw_lines(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        view: &OverlayView,
        lines: &LineMesh,
    ) {
        if lines.vertex_count == 0 {
            return;
        }
        pass.set_pipeline(&self.lines);
        pass.set_bind_group(0, &view.bind_group, &[]);
        pass.set_vertex_buffer(0, lines.buffer.slice(..));
        pass.draw(0..lines.vertex_count, 0..1);
    }

    /// Draws every edge of `wire`, depth-tested or on top of everything.
    pub fn draw_wire(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        view: &OverlayView,
        wire: &WireScene,
        on_top: bool,
    ) {
        pass.set_bind_group(1, &view.bind_group, &[]);
        for prim in &wire.primitives {
            let Some((palette, _)) = wire.palettes.get(prim.palette) else {
                continue;
            };
            let Some((_, tested, top)) = self.wire.iter().find(|(b, _, _)| *b == palette.binding)
            else {
                continue;
            };
            pass.set_pipeline(if on_top { top } else { tested });
            pass.set_bind_group(0, &palette.bind_group, &[]);
            pass.set_vertex_buffer(0, prim.positions.slice(..));
            pass.set_vertex_buffer(1, prim.joints.slice(..));
            pass.set_index_buffer(prim.edges.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..prim.edge_index_count, 0, 0..1);
        }
    }
}

/// A static line list on the GPU.
#[derive(Debug)]
pub struct LineMesh {
    buffer: wgpu::Buffer,
    vertex_count: u32,
}

impl LineMesh {
    /// Uploads `vertices` (pairs form segments).
    #[must_use]
    pub fn new(ctx: &GpuContext, vertices: &[GpuLineVertex]) -> Self {
        let mut bytes = bytemuck::cast_slice(vertices).to_vec();
        bytes.resize(bytes.len().max(4), 0);
        let buffer = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("dqview::LineMesh::vertices"),
                contents: &bytes,
                usage: wgpu::BufferUsages::VERTEX,
            });
        Self {
            buffer,
            vertex_count: u32::try_from(vertices.len()).unwrap_or(0),
        }
    }
}

/// A ground grid of `lines` x `lines` cells of `spacing` world units, centred on `center` in the y = `center.y` plane.
#[must_use]
pub fn grid_lines(center: Vec3, spacing: f32, lines: u32) -> Vec<GpuLineVertex> {
    let half = lines as f32 * 0.5 * spacing;
    let mut out = Vec::with_capacity((lines as usize + 1) * 4);
    for i in 0..=lines {
        let o = -half + i as f32 * spacing;
        let axis = i == lines / 2;
        let c = if axis {
            [0.55, 0.55, 0.6, 0.9]
        } else {
            [0.3, 0.3, 0.34, 0.6]
        };
        for (a, b) in [
            (Vec3::new(o, 0.0, -half), Vec3::new(o, 0.0, half)),
            (Vec3::new(-half, 0.0, o), Vec3::new(half, 0.0, o)),
        ] {
            out.push(GpuLineVertex {
                position: (center + a).to_array(),
                color: c,
            });
            out.push(GpuLineVertex {
                position: (center + b).to_array(),
                color: c,
            });
        }
    }
    out
}

/// Where a wire primitive's palette comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PaletteSource {
    /// Skin index.
    Skin(usize),
    /// A non-skinned mesh node: one joint, the node's global matrix.
    Node(usize),
}

/// One primitive's edges.
#[derive(Debug)]
struct WirePrimitive {
    palette: usize,
    positions: wgpu::Buffer,
    joints: wgpu::Buffer,
    edges: wgpu::Buffer,
    edge_index_count: u32,
}

/// Every mesh node's edges with palettes, for skinned wireframes.
#[derive(Debug)]
pub struct WireScene {
    palettes: Vec<(GpuPalette, PaletteSource)>,
    primitives: Vec<WirePrimitive>,
    /// CPU scratch reused every frame.
    matrices: Vec<Mat4>,
    cpu_palette: JointPalette,
}

impl WireScene {
    /// Uploads the edges of every mesh node's primitives and a palette per skin (or per rigid node).
    pub fn new(
        ctx: &GpuContext,
        renderer: &Renderer,
        scene: &Scene,
        pose: &Pose,
    ) -> Result<Self, RenderError> {
        let mut sources: Vec<PaletteSource> = Vec::new();
        let mut primitives = Vec::new();
        for (n, node) in scene.nodes.iter().enumerate() {
            let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
                continue;
            };
            for prim in &mesh.primitives {
                let skinned = node
                    .skin
                    .filter(|&s| s < scene.skins.len())
                    .zip(prim.influences.as_ref());
                let source = match skinned {
                    Some((s, _)) => PaletteSource::Skin(s),
                    None => PaletteSource::Node(n),
                };
                let palette = sources
                    .iter()
                    .position(|&s| s == source)
                    .unwrap_or_else(|| {
                        sources.push(source);
                        sources.len() - 1
                    });
                let mut joints = vec![GpuVertexJoints::default(); prim.positions.len()];
                match skinned {
                    Some((_, influences)) => {
                        for (set, (js, ws)) in influences.to_fixed_sets(2).iter().enumerate() {
                            for (dst, (j, w)) in joints.iter_mut().zip(js.iter().zip(ws)) {
                                dst.joints[set] = *j;
                                dst.weights[set] = *w;
                            }
                        }
                    }
                    None => joints
                        .iter_mut()
                        .for_each(|j| j.weights[0] = [1.0, 0.0, 0.0, 0.0]),
                }
                let edges = edges_of(&prim.indices, prim.positions.len());
                let positions: Vec<[f32; 3]> =
                    prim.positions.iter().map(|p| p.to_array()).collect();
                let init = |label, bytes: &[u8], usage| {
                    let mut v = bytes.to_vec();
                    v.resize(v.len().max(4), 0);
                    ctx.device
                        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                            label: Some(label),
                            contents: &v,
                            usage,
                        })
                };
                primitives.push(WirePrimitive {
                    palette,
                    positions: init(
                        "dqview::WireScene::positions",
                        bytemuck::cast_slice(&positions),
                        wgpu::BufferUsages::VERTEX,
                    ),
                    joints: init(
                        "dqview::WireScene::joints",
                        bytemuck::cast_slice(&joints),
                        wgpu::BufferUsages::VERTEX,
                    ),
                    edges: init(
                        "dqview::WireScene::edges",
                        bytemuck::cast_slice(&edges),
                        wgpu::BufferUsages::INDEX,
                    ),
                    edge_index_count: u32::try_from(edges.len()).unwrap_or(0),
                });
            }
        }
        let mut wire = Self {
            palettes: Vec::with_capacity(sources.len()),
            primitives,
            matrices: Vec::new(),
            cpu_palette: JointPalette::from_matrices(&[]),
        };
        for source in sources {
            wire.fill_palette(scene, pose, source);
            let binding = PaletteBinding::for_joint_count(wire.cpu_palette.len());
            let gpu = GpuPalette::new(ctx, renderer.palette_layout(binding), &wire.cpu_palette)?;
            wire.palettes.push((gpu, source));
        }
        Ok(wire)
    }

    /// Computes the CPU palette of `source` at `pose` into the scratch palette.
    fn fill_palette(&mut self, scene: &Scene, pose: &Pose, source: PaletteSource) {
        match source {
            PaletteSource::Skin(s) => pose.skinning_matrices(scene, s, &mut self.matrices),
            PaletteSource::Node(n) => {
                self.matrices.clear();
                self.matrices
                    .push(pose.global.get(n).copied().unwrap_or(Mat4::IDENTITY));
            }
        }
        self.cpu_palette.rebuild(&self.matrices);
    }

    /// Writes the palettes of `pose` into the existing buffers (no GPU allocation).
    pub fn update(&mut self, ctx: &GpuContext, scene: &Scene, pose: &Pose) {
        for i in 0..self.palettes.len() {
            let Some(source) = self.palettes.get(i).map(|p| p.1) else {
                continue;
            };
            self.fill_palette(scene, pose, source);
            if let Some((gpu, _)) = self.palettes.get_mut(i)
                && !gpu.write(&ctx.queue, &self.cpu_palette)
            {
                log::warn!(
                    "wireframe palette {i} no longer fits its buffers; edges keep the last pose"
                );
            }
        }
    }
}

/// Unique undirected edges of a triangle list, as a line-list index buffer; bad indices are skipped.
#[must_use]
pub fn edges_of(indices: &[u32], vertex_count: usize) -> Vec<u32> {
    let mut edges: Vec<(u32, u32)> = indices
        .chunks_exact(3)
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .filter(|&(a, b)| a != b && (a as usize) < vertex_count && (b as usize) < vertex_count)
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    edges.into_iter().flat_map(|(a, b)| [a, b]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entry point names of a WGSL module, after naga validated it.
    fn validate(name: &str, source: &str) -> Vec<String> {
        let module = crate::render::shaders::validate_wgsl(name, source);
        let mut names: Vec<String> = module.entry_points.iter().map(|e| e.name.clone()).collect();
        names.sort();
        names
    }

    #[test]
    fn overlay_shaders_validate_with_naga() {
        assert_eq!(validate("lines", LINES_WGSL), ["fs_lines", "vs_lines"]);
        for binding in PaletteBinding::ALL {
            assert_eq!(
                validate("wire", &module_source(binding, WIRE_WGSL)),
                ["fs_wire", "vs_wire"]
            );
        }
    }

    #[test]
    fn gpu_structs_match_wgsl_sizes() {
        assert_eq!(size_of::<GpuOverlayUniforms>(), 96);
        assert_eq!(size_of::<GpuLineVertex>(), 28);
    }

    #[test]
    fn edges_are_unique_and_bounded() {
        // Two triangles sharing an edge: 5 unique edges.
        let e = edges_of(&[0, 1, 2, 2, 1, 3, 0, 0, 9], 4);
        assert_eq!(e.len(), 10);
        assert_eq!(&e[..2], &[0, 1]);
        assert!(e.iter().all(|&i| i < 4));
    }

    #[test]
    fn grid_has_two_lines_per_step() {
        let g = grid_lines(Vec3::ZERO, 1.0, 10);
        assert_eq!(g.len(), 11 * 4);
    }
}
