//! dqview's own scene model: nodes, skinned meshes, skins, materials and keyframes.
//!
//! Loaders (glTF, FBX, USD, built-in rigs) convert into these types once, at load time;
//! nothing downstream sees the gltf crate. [`write_glb`] goes the other way;
//! [`amend_dqs_blend`] adds a `_DQS_BLEND` attribute to a glTF file without rewriting the rest.

pub mod constraint;
mod error;
pub mod faults;
mod fbx_load;
mod file_read;
mod glb_write;
mod gltf_amend;
mod gltf_load;
pub mod humanoid;
pub mod names;
mod options;
mod ranges;
mod source_info;
mod unplaced;
mod usd_layer;
mod usd_load;

pub use constraint::{ConstraintKind, NodeConstraint};
pub use error::{SceneError, panic_text};
pub use faults::{DataFault, FaultKind, FaultSeverity};
pub use fbx_load::{load_fbx_path_with, load_fbx_slice_with};
pub use file_read::{FileReadError, NotAFile, read_model_file, read_regular_file};
pub use glb_write::{MAX_SKIN_JOINTS, glb_container, write_glb};
pub use gltf_amend::{
    AmendTarget, Amended, AttributeSpec, COR_CENTER_ATTRIBUTE, COR_CENTER_SPEC,
    DQS_BLEND_ATTRIBUTE, DQS_BLEND_SPEC, ExternalFile, PrimitiveValues, RigChannel, RigEdit,
    RigInfluences, RigNode, RigSkin, amend_attribute, amend_dqs_blend, amend_rig,
    file_primitive_indices,
};
pub use gltf_load::{load_gltf_path, load_gltf_path_with, load_gltf_slice, load_gltf_slice_with};
pub use humanoid::HumanoidBone;
pub use options::LoadOptions;
pub use ranges::{MAX_KEY_TIME_S, MAX_MAGNITUDE, check_ranges};
pub use source_info::{SkinningMethod, SourceInfo};
pub use usd_layer::{
    DQS_METHOD_MEAN_BETA, USD_COR_CENTER_PRIMVAR, USD_DQS_BLEND_PRIMVAR, UsdMeshBlend, UsdMeshCor,
    UsdStageMetadata, should_run_dqs, usd_blend_layer, usd_cor_layer,
};
pub use usd_load::{USD_EXTENSIONS, USD_MAX_NESTING, is_usd_path, load_usd_path_with};

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

use crate::influences::Influences;

/// A loaded file: node hierarchy, meshes, skins, materials and animations.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Where the scene came from (a path or `builtin:NAME`), for messages.
    pub source: String,
    /// The file's format, units and axes (glTF's for glTF and built-in rigs; a VRM 0.x file faces -Z).
    pub source_info: SourceInfo,
    /// All nodes; indices are stable and match the file's.
    pub nodes: Vec<Node>,
    /// Root nodes of the scene that is shown (the file's default scene, else scene 0, else every parentless node).
    pub roots: Vec<usize>,
    /// Meshes, referenced by `Node::mesh`.
    pub meshes: Vec<Mesh>,
    /// Skins, referenced by `Node::skin`.
    pub skins: Vec<Skin>,
    /// Materials, referenced by `Primitive::material`.
    pub materials: Vec<Material>,
    /// Decoded textures, referenced by `Material::base_color_texture`.
    pub textures: Vec<Texture>,
    /// Animations as keyframe data; `anim` samples them.
    pub animations: Vec<Animation>,
    /// Node constraints (`VRMC_node_constraint`), in evaluation order: each after those it reads.
    pub constraints: Vec<NodeConstraint>,
    /// VRM humanoid bones (`hips`, `leftLowerArm`, ...), in VRM's order; empty when the file has no humanoid map.
    pub humanoid: Vec<HumanoidBone>,
    /// Bad data the loader found and what it did about it (non-finite numbers, degenerate rigs
    /// and times); `check` reports each, every command prints [`Scene::warning_lines`].
    pub faults: Vec<DataFault>,
    /// Things that were odd but loadable (repaired references, dropped primitives, ...).
    pub warnings: Vec<String>,
    /// For the record: what the file uses that dqview ignores or shows plainly (an optional
    /// extension not read, a texture format shown by its factor).
    pub notes: Vec<String>,
    /// Per mesh with compressed geometry, what it used, e.g. `mesh 0 "Body": draco` (glTF's
    /// Draco, meshopt and quantization; read in full).
    pub compression: Vec<String>,
    /// How many values the loader sanitised: non-finite node transforms, inverse bind
    /// matrices, key times and values, positions, normals, tangents, UVs, vertex colours,
    /// morph weights, colour factors and alpha cutoffs it replaced, plus negative or non-finite skin weights it
    /// dropped. Each kind also has a line in `warnings`.
    pub sanitized: usize,
}

impl Scene {
    /// Every fault's message (prefixed `error: ` or `warning: `), then every warning: what
    /// `inspect`, the viewer and each command's stderr show.
    #[must_use]
    pub fn warning_lines(&self) -> Vec<String> {
        self.faults
            .iter()
            .map(DataFault::line)
            .chain(self.warnings.iter().cloned())
            .collect()
    }

    /// Every skin's joint nodes, ascending, each once (only indices of existing nodes).
    #[must_use]
    pub fn joint_nodes(&self) -> Vec<usize> {
        let mut joints: Vec<usize> = self
            .skins
            .iter()
            .flat_map(|s| s.joints.iter().copied())
            .filter(|&n| n < self.nodes.len())
            .collect();
        joints.sort_unstable();
        joints.dedup();
        joints
    }
}

/// One node of the hierarchy.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// The node's name, or `node N` when the file has none.
    pub name: String,
    /// Parent node index, `None` for roots.
    pub parent: Option<usize>,
    /// Child node indices in file order.
    pub children: Vec<usize>,
    /// Rest transform relative to the parent.
    pub transform: NodeTransform,
    /// Mesh drawn at this node.
    pub mesh: Option<usize>,
    /// Skin that deforms this node's mesh.
    pub skin: Option<usize>,
    /// Default morph weights of this node's mesh instance; empty means the mesh's own.
    pub morph_weights: Vec<f32>,
}

/// A node's local transform as the file stores it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NodeTransform {
    /// Translation, rotation, scale (the only form animations may target).
    Trs(Trs),
    /// A full matrix, which may carry shear; `parent_from_local`.
    Matrix(Mat4),
}

impl Default for NodeTransform {
    fn default() -> Self {
        Self::Trs(Trs::IDENTITY)
    }
}

impl NodeTransform {
    /// The local matrix, `parent_from_local`.
    #[must_use]
    pub fn to_mat4(&self) -> Mat4 {
        match self {
            Self::Trs(trs) => trs.to_mat4(),
            Self::Matrix(m) => *m,
        }
    }
}

/// Translation, rotation and scale, applied as T * R * S.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    /// Translation in the parent's units.
    pub translation: Vec3,
    /// Unit rotation quaternion.
    pub rotation: Quat,
    /// Per-axis scale.
    pub scale: Vec3,
}

impl Default for Trs {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Trs {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// The matrix T * R * S.
    #[must_use]
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// A mesh: a list of primitives drawn together.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    /// The mesh's name, or `mesh N`.
    pub name: String,
    /// Primitives: triangles (glTF's other modes are dropped with a warning), or USD curves and points.
    pub primitives: Vec<Primitive>,
    /// Default morph target weights, one per target (nodes may override them).
    pub morph_weights: Vec<f32>,
}

/// A triangle list (or a USD curve or point set) with its vertex attributes, in the mesh's bind space.
#[derive(Clone, Debug, Default)]
pub struct Primitive {
    /// Vertex positions.
    pub positions: Vec<Vec3>,
    /// Unit vertex normals (computed smooth when the file has none).
    pub normals: Vec<Vec3>,
    /// Tangents with handedness in w, when the file has them.
    pub tangents: Option<Vec<Vec4>>,
    /// First texture coordinate set.
    pub uvs: Option<Vec<Vec2>>,
    /// Linear RGBA vertex colours (glTF `COLOR_0`; RGB ones get alpha 1), multiplied into the base colour.
    pub colors: Option<Vec<Vec4>>,
    /// Indices in `topology`: a triangle list (generated 0..n when the file has none), line
    /// pairs or points.
    pub indices: Vec<u32>,
    /// How `indices` join the vertices: triangles (every glTF and FBX primitive), or the
    /// segments and points of USD `BasisCurves` and `Points`.
    pub topology: Topology,
    /// Per-vertex hybrid beta from the custom attribute `_DQS_BLEND` (0 LBS .. 1 DQS), when present.
    pub dqs_blend: Option<Vec<f32>>,
    /// The skinning method the file stored for this mesh (FBX); `None` for glTF.
    pub skinning_method: Option<SkinningMethod>,
    /// FBX: the mesh control point each vertex came from (see the FBX loader); `None` for glTF.
    pub control_points: Option<Vec<u32>>,
    /// Joint influences, for primitives of skinned meshes with JOINTS_n/WEIGHTS_n.
    pub influences: Option<Influences>,
    /// Material index.
    pub material: Option<usize>,
    /// Morph targets (blend shapes), applied in bind space before skinning.
    pub morph_targets: Vec<MorphTarget>,
}

/// How a primitive's `indices` join its vertices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Topology {
    /// A triangle list: three indices a triangle.
    #[default]
    Triangles,
    /// A line list: two indices a segment (USD `BasisCurves`, through their points).
    Lines,
    /// A point list: one index a point (USD `Points`).
    Points,
}

impl Topology {
    /// The name `inspect` prints: `triangles`, `lines` or `points`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Triangles => "triangles",
            Self::Lines => "lines",
            Self::Points => "points",
        }
    }

    /// Indices per element: 3, 2 or 1.
    #[must_use]
    pub fn arity(self) -> usize {
        match self {
            Self::Triangles => 3,
            Self::Lines => 2,
            Self::Points => 1,
        }
    }
}

impl Primitive {
    /// The triangle list: `indices` for a triangle primitive, empty for lines and points (so
    /// area, volume, neighbours and CoR pass them over).
    #[must_use]
    pub fn triangles(&self) -> &[u32] {
        match self.topology {
            Topology::Triangles => &self.indices,
            Topology::Lines | Topology::Points => &[],
        }
    }
}

/// One morph target: displacements added to the bind-pose vertices, scaled by the target's weight.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    /// The target's name (glTF: the mesh's `extras.targetNames`; FBX: the blend channel's), or empty.
    pub name: String,
    /// Position displacement per vertex (empty when the target moves no position).
    pub positions: Vec<Vec3>,
    /// Normal displacement per vertex (empty when the target has none).
    pub normals: Vec<Vec3>,
    /// Tangent xyz displacement per vertex; handedness is not morphed (empty when none).
    pub tangents: Vec<Vec3>,
}

impl MorphTarget {
    /// Whether the target displaces nothing at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty() && self.normals.is_empty() && self.tangents.is_empty()
    }
}

/// A skin: the joints that deform a mesh and their inverse bind matrices.
#[derive(Clone, Debug, Default)]
pub struct Skin {
    /// The skin's name, or `skin N`.
    pub name: String,
    /// Node index of each joint; `Influence::joint` indexes this list.
    pub joints: Vec<usize>,
    /// Per joint, `joint_from_bind`: the inverse of the joint's global matrix at bind time.
    pub inverse_bind: Vec<Mat4>,
    /// Suggested skeleton root node.
    pub skeleton: Option<usize>,
}

/// A base-colour material.
#[derive(Clone, Debug)]
pub struct Material {
    /// The material's name, or `material N`.
    pub name: String,
    /// Linear RGBA base colour factor.
    pub base_color_factor: Vec4,
    /// Index into `Scene::textures`.
    pub base_color_texture: Option<usize>,
    /// Whether back faces are drawn.
    pub double_sided: bool,
    /// How the base colour's alpha is used: ignored, as a cut-out, or blended.
    pub alpha_mode: AlphaMode,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: String::from("default"),
            base_color_factor: Vec4::ONE,
            base_color_texture: None,
            double_sided: false,
            alpha_mode: AlphaMode::Opaque,
        }
    }
}

/// A material's alpha mode, as glTF defines it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum AlphaMode {
    /// Alpha is ignored: the surface is fully opaque.
    #[default]
    Opaque,
    /// Fragments with alpha below `cutoff` are discarded, the rest are opaque.
    Mask {
        /// The alpha threshold (glTF's `alphaCutoff`, default [`AlphaMode::DEFAULT_CUTOFF`]).
        cutoff: f32,
    },
    /// The surface is blended over what is behind it by its alpha.
    Blend,
}

impl AlphaMode {
    /// glTF's default `alphaCutoff`.
    pub const DEFAULT_CUTOFF: f32 = 0.5;

    /// The glTF name of the mode (`OPAQUE`, `MASK`, `BLEND`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Opaque => "OPAQUE",
            Self::Mask { .. } => "MASK",
            Self::Blend => "BLEND",
        }
    }

    /// The cutoff of a `Mask` mode, else `None`.
    #[must_use]
    pub fn cutoff(self) -> Option<f32> {
        match self {
            Self::Mask { cutoff } => Some(cutoff),
            _ => None,
        }
    }
}

/// A decoded texture as 8-bit sRGB RGBA.
#[derive(Clone, Debug, Default)]
pub struct Texture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Row-major RGBA8 pixels, `width * height * 4` bytes.
    pub rgba8: Vec<u8>,
}

/// Keyframe data of one animation as stored in the file.
#[derive(Clone, Debug, Default)]
pub struct Animation {
    /// The animation's name, or `clip N`.
    pub name: String,
    /// Channels, each driving one property of one node.
    pub channels: Vec<Channel>,
}

/// One animated property of one node.
#[derive(Clone, Debug)]
pub struct Channel {
    /// Target node index.
    pub node: usize,
    /// Which property is driven.
    pub property: Property,
    /// How values between keys are found.
    pub interpolation: Interpolation,
    /// Key times in seconds, non-decreasing (the loader clamps times that go backwards).
    pub times_s: Vec<f32>,
    /// Output values, flat. Per key: `components` floats (STEP, LINEAR) or
    /// `3 * components` floats as (in-tangent, value, out-tangent) (CUBICSPLINE).
    pub values: Vec<f32>,
}

impl Channel {
    /// Floats per value: 3 (translation, scale), 4 (rotation xyzw) or the morph target count.
    #[must_use]
    pub fn components(&self) -> usize {
        match self.property {
            Property::Translation | Property::Scale => 3,
            Property::Rotation => 4,
            Property::MorphWeights(n) => n,
        }
    }
}

/// The property a channel animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// Node translation.
    Translation,
    /// Node rotation (quaternion xyzw).
    Rotation,
    /// Node scale.
    Scale,
    /// Morph target weights; the count of targets.
    MorphWeights(usize),
}

/// Keyframe interpolation, as glTF defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Hold the previous key's value.
    Step,
    /// Linear (slerp for rotations, shortest arc).
    Linear,
    /// Cubic Hermite with in/out tangents.
    CubicSpline,
}

impl Interpolation {
    /// The glTF name of the mode.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Step => "STEP",
            Self::Linear => "LINEAR",
            Self::CubicSpline => "CUBICSPLINE",
        }
    }
}
