//! What a scene's file says about itself: format, units, axes, frame rate.

use crate::scene::UsdStageMetadata;

/// The file's own conventions, kept as authored (dqview converts no units or axes).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceInfo {
    /// File format and version, e.g. `glTF`, `glTF (VRM 1.0)` or `FBX 7500 binary`.
    pub format: String,
    /// The tool that wrote the file, when it says (e.g. `Blender (stable FBX IO)`).
    pub creator: Option<String>,
    /// Length of one scene unit in metres (glTF: 1; Maya's default centimetres: 0.01).
    pub unit_meters: f32,
    /// The file's up axis, e.g. `+Y`.
    pub up_axis: &'static str,
    /// The file's front axis, e.g. `+Z`.
    pub front_axis: &'static str,
    /// The file's right axis, e.g. `+X`.
    pub right_axis: &'static str,
    /// The file's frame rate in frames per second, when it stores one.
    pub frames_per_second: Option<f32>,
    /// A USD stage's metadata as authored, which a layer over it must repeat (`None` for
    /// other formats): read with the stage, so writing a layer does not open it again.
    pub usd_metadata: Option<UsdStageMetadata>,
}

impl Default for SourceInfo {
    /// glTF's conventions: metres, +Y up, +Z front, +X right.
    fn default() -> Self {
        Self {
            format: String::from("glTF"),
            creator: None,
            unit_meters: 1.0,
            up_axis: "+Y",
            front_axis: "+Z",
            right_axis: "+X",
            frames_per_second: None,
            usd_metadata: None,
        }
    }
}

impl SourceInfo {
    /// Axes in one phrase, e.g. `+Y up, +Z front, +X right`.
    #[must_use]
    pub fn axes_text(&self) -> String {
        format!(
            "{} up, {} front, {} right",
            self.up_axis, self.front_axis, self.right_axis
        )
    }
}

/// A skinning method an authoring tool stored with a skin (FBX `SkinningType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkinningMethod {
    /// Linear blend skinning (also FBX "Rigid").
    Linear,
    /// Dual quaternion skinning.
    DualQuaternion,
    /// Per-vertex blend of linear and dual quaternion results (Maya "Weight Blended").
    Blended,
}

impl SkinningMethod {
    /// Short name as `inspect` prints it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Linear => "linear",
            Self::DualQuaternion => "dual quaternion",
            Self::Blended => "blended (per-vertex DQ weights)",
        }
    }
}
