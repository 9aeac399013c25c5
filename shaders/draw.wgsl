// The render pipelines' entry points: vs_main (every mesh and wire draw), fs_main (shaded
// and debug views) and fs_wire (wireframe and ghost edges).
//
// Twins in src/render/gpu_data.rs (`GpuFrameUniforms`, `GpuMaterial`), checked by a naga
// layout test. Needs dq.wgsl, palette.wgsl, skin.wgsl, cor.wgsl, bulge.wgsl, geometry.wgsl
// and debug_views.wgsl in the same module. Vertices are pulled from the geometry's storage
// buffers by index (no vertex buffers), so the vertex shaders and the compute pass read
// one and the same data.

// Mirrors `GpuFrameUniforms`.
struct FrameUniforms {
    clip_from_world: mat4x4<f32>,
    // xyz: unit direction towards the light (world space); w: intensity.
    key_light: vec4<f32>,
    fill_light: vec4<f32>,
    // rgb: linear base colour; a: ambient term.
    base_color: vec4<f32>,
    // x: hybrid beta scale (times the per-vertex beta); y: selected joint (weights view);
    // z: 1 / bounding-box diagonal; w: debug view id (0 shaded).
    params: vec4<f32>,
    // Linear RGBA of wire edges (fs_wire).
    wire_color: vec4<f32>,
    // x: DQS bulge compensation in [0, 1]; y: depth pull towards the eye (clip w units;
    // wires); z: cut depth: fragments outside the selected joint's region (params.y) nearer
    // than this depth (0..1) are not drawn, so 0 cuts nothing and 1 leaves the region alone;
    // w: 1 when wire edges take their vertex colours too (line lists such as the grid).
    extra: vec4<f32>,
    // x: the value the displacement or collapse view draws blue, y: the value it draws red
    // (displacement over the diagonal, collapse as a volume ratio); z, w unused.
    heat_range: vec4<f32>,
}

// Positions and normals a compute pass skinned (PRESKINNED pipelines): instance i's
// vertex v at (i * vertex_count + v) * geometry.skinned_words.
@group(1) @binding(6) var<storage, read> skinned_vertices: array<f32>;

@group(2) @binding(0) var<uniform> frame: FrameUniforms;

// Mirrors `GpuMaterial`.
struct MaterialUniforms {
    // Linear RGBA base colour factor.
    base_color: vec4<f32>,
    // x: alpha cutoff (ALPHA_MASK); y: ALPHA_* mode.
    alpha: vec4<f32>,
}

// Keep in sync with `GPU_ALPHA_*` in src/render/gpu_data.rs (a unit test reads them).
const ALPHA_MASK: u32 = 1u;
const ALPHA_BLEND: u32 = 2u;

@group(3) @binding(0) var<uniform> material: MaterialUniforms;
@group(3) @binding(1) var base_color_texture: texture_2d<f32>;
@group(3) @binding(2) var base_color_sampler: sampler;

// False in the pipelines for the shaded view: the debug scalar (a second skinning) is then
// compiled out. A software rasterizer runs both sides of a uniform branch, so a runtime
// check alone does not save that work.
override DEBUG_VIEWS: bool = false;
// True: positions and normals come from `skinned_vertices` (the compute path) instead of
// being skinned here; the debug views still read the geometry.
override PRESKINNED: bool = false;

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    // The debug view's scalar and the heaviest joint (flat).
    @location(2) debug_value: f32,
    @location(3) @interpolate(flat) heaviest: u32,
    @location(4) color: vec4<f32>,
    // 1 where the triangle is in the selected joint's region (params.y): its first corner,
    // the provoking vertex of flat interpolation, has that joint as its heaviest influence.
    @location(5) @interpolate(flat) in_region: u32,
}

// Instance `instance`'s vertex `index` as the compute pass wrote it.
fn read_skinned(instance: u32, index: u32) -> Skinned {
    let i = (instance * geometry.vertex_count + index) * geometry.skinned_words;
    let p = vec3<f32>(skinned_vertices[i], skinned_vertices[i + 1u], skinned_vertices[i + 2u]);
    let n = vec3<f32>(skinned_vertices[i + 3u], skinned_vertices[i + 4u], skinned_vertices[i + 5u]);
    return Skinned(p, n, UNUSED_TANGENT);
}

// The debug views' mode: CoR's linear part is DQS's rotation (times its phase-1
// scale/shear), so its local volume ratio (collapse view) is DQS's.
fn debug_mode() -> u32 {
    return select(SKIN_MODE, SKIN_MODE_DQS, SKIN_MODE == SKIN_MODE_COR);
}

@vertex
fn vs_main(@builtin(vertex_index) index: u32, @builtin(instance_index) instance: u32) -> VertexOut {
    select_instance(instance);
    let v = fetch_vertex(index);
    var s: Skinned;
    if PRESKINNED {
        s = read_skinned(instance, index);
    } else {
        s = skin_geometry_vertex(v, index, frame.params.x, frame.extra.x);
    }
    var clip = frame.clip_from_world * vec4<f32>(s.position, 1.0);
    // Wires are pulled slightly towards the eye so they win the depth test against their faces.
    clip.z = clip.z - frame.extra.y * clip.w;
    let view = u32(frame.params.w);
    var value = 0.0;
    var heaviest = 0u;
    if DEBUG_VIEWS && view != 0u {
        let beta = hybrid_beta(index, frame.params.x);
        value = debug_scalar(v, view, debug_mode(), beta, u32(frame.params.y), frame.params.z);
        if view == VIEW_COR_DISTANCE {
            value = cor_distance(v, index, s.position) * frame.params.z;
        }
        heaviest = v.joints0.x;
    }
    // Rigid primitives (no influences) belong to no joint's region.
    let in_region = u32(geometry.influence_words != 0u && v.joints0.x == u32(frame.params.y));
    return VertexOut(clip, s.normal, vertex_uv(index), value, heaviest, vertex_color(index), in_region);
}

// Distance from `position` (the pipeline's mode) to vertex `index`'s CoR position: 0 in CoR
// panes, which skin the same way.
fn cor_distance(v: SkinInput, index: u32, position: vec3<f32>) -> f32 {
    return length(position - skin_cor(v, vertex_center(index, v.position)).position);
}

// Half-Lambert (Valve): (0.5 n.l + 0.5)^2 keeps the unlit side readable.
fn half_lambert(n: vec3<f32>, light: vec4<f32>) -> f32 {
    let h = 0.5 * dot(n, light.xyz) + 0.5;
    return light.w * h * h;
}

// Key + fill half-Lambert; back faces are lit with the flipped normal.
// Base colour = factor * texture * vertex colour; its alpha is dropped (OPAQUE),
// cuts out below the cutoff (MASK) or is written for blending (BLEND).
@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let n0 = normalize_or(in.world_normal, vec3<f32>(0.0, 1.0, 0.0));
    let n = select(-n0, n0, front_facing);
    let light = frame.base_color.a + half_lambert(n, frame.key_light) + half_lambert(n, frame.fill_light);
    // The texture is sRGB-encoded, so sampling returns linear colour.
    let base = material.base_color * textureSample(base_color_texture, base_color_sampler, in.uv) * in.color;
    let alpha_mode = u32(material.alpha.y);
    let view = u32(frame.params.w);
    // A cut-away: what hides the region in front of the cut depth is not drawn.
    if in.in_region == 0u && in.clip_position.z < frame.extra.z {
        discard;
    }
    // The region mask: the selected joint's region white, everything else black, unlit (drawn
    // by the shaded pipelines: it needs no debug scalar).
    if view == VIEW_REGION {
        return vec4<f32>(vec3<f32>(f32(in.in_region)), 1.0);
    }
    // The mask is the geometry's silhouette: every fragment white, whatever its alpha.
    if DEBUG_VIEWS && view == VIEW_MASK {
        return vec4<f32>(1.0);
    }
    if alpha_mode == ALPHA_MASK && base.a < material.alpha.x {
        discard;
    }
    var alpha = select(1.0, clamp(base.a, 0.0, 1.0), alpha_mode == ALPHA_BLEND);
    var albedo = frame.base_color.rgb * base.rgb;
    if DEBUG_VIEWS && view != 0u {
        // Debug colours are lit too, so shape stays readable; normals are shown unlit.
        albedo = debug_color(view, in.debug_value, in.heaviest, n, frame.heat_range.xy);
        alpha = 1.0;
        if view == VIEW_NORMALS {
            return vec4<f32>(albedo, 1.0);
        }
    }
    // Linear output: the sRGB target encodes it.
    return vec4<f32>(albedo * light, alpha);
}

// Wire edges in one flat colour, tinted by the vertex colours for line lists.
@fragment
fn fs_wire(in: VertexOut) -> @location(0) vec4<f32> {
    return frame.wire_color * select(vec4<f32>(1.0), in.color, frame.extra.w != 0.0);
}
