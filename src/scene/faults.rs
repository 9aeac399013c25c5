//! Bad data a loader found in a file and what it did about it, with one rule for how bad each
//! kind is: `check` reports [`DataFault`]s as findings, and `inspect`, the viewer and every other
//! command print the same [`DataFault::message`].

use glam::Mat4;
use serde::Serialize;

/// What was wrong with the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// Vertex positions with a NaN or infinite coordinate.
    NonFinitePositions,
    /// Vertex normals with a NaN or infinite component.
    NonFiniteNormals,
    /// Vertex tangents with a NaN or infinite component.
    NonFiniteTangents,
    /// Texture coordinates with a NaN or infinite component.
    NonFiniteTexCoords,
    /// Vertex colours with a NaN or infinite component.
    NonFiniteColors,
    /// Skin weights that are NaN or infinite.
    NonFiniteWeights,
    /// Morph target (blend shape) offsets with a NaN or infinite component.
    NonFiniteMorphDeltas,
    /// Default morph weights that are NaN or infinite.
    NonFiniteMorphWeights,
    /// Inverse bind (or bind) matrices with a NaN or infinite entry.
    NonFiniteBindMatrices,
    /// Node (or joint rest) transforms with a NaN or infinite value.
    NonFiniteNodeTransforms,
    /// Key times that are NaN or infinite.
    NonFiniteKeyTimes,
    /// Key values that are NaN or infinite.
    NonFiniteKeyValues,
    /// Material factors that are NaN or infinite.
    NonFiniteMaterial,
    /// Rotations (clip keys, node rotations) of length zero: no rotation is defined.
    ZeroRotationKeys,
    /// Bind matrices that cannot be inverted (all zero, or a zero scale).
    SingularBindMatrices,
    /// USD `timeCodesPerSecond` zero, negative or not finite: key times in seconds are undefined.
    TimeCodesPerSecond,
    /// USD `framesPerSecond` zero, negative or not finite, which Pixar's USD refuses.
    FramesPerSecond,
    /// USD `startTimeCode` after `endTimeCode`.
    InvertedTimeRange,
    /// A glTF animation sampler with no keys, which the glTF spec does not allow.
    SamplerWithoutKeys,
    /// A USD `SkelAnimation` with no time samples: its default values hold at every time.
    AnimationWithoutSamples,
    /// `VRMC_node_constraint` constraints no runtime can evaluate (a bad source, weight or
    /// axis, an unknown version, a cycle): ignored, the node keeps its own rotation.
    IgnoredConstraints,
    /// A node with more than one constraint kind (roll, aim, rotation): the first is used.
    ConstraintKinds,
    /// VRM humanoid data runtimes refuse: no bones, no `hips`, a bone on a mesh node.
    InvalidHumanoid,
    /// A VRM `specVersion` dqview does not know: read as the version of its extension.
    UnknownVrmVersion,
}

/// How bad a fault is: an error where the math is undefined or the format refuses the data, a
/// warning where the format documents a fallback that dqview uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultSeverity {
    /// The data is undefined or refused: `check` fails the file.
    Error,
    /// A documented fallback stands in: worth a look.
    Warning,
}

impl FaultSeverity {
    /// `error` or `warning`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

impl FaultKind {
    /// The one rule for how bad a kind is: every non-finite number, zero rotation, singular
    /// bind, undefined time rate and empty glTF sampler is an error; an inverted USD time range
    /// (Pixar opens it, the samples' range is used) and a USD animation without samples (its
    /// default values hold) are warnings.
    #[must_use]
    pub fn severity(self) -> FaultSeverity {
        match self {
            Self::InvertedTimeRange
            | Self::AnimationWithoutSamples
            | Self::ConstraintKinds
            | Self::UnknownVrmVersion => FaultSeverity::Warning,
            _ => FaultSeverity::Error,
        }
    }

    /// Whether the kind is a NaN or infinite number (as opposed to a degenerate rig).
    #[must_use]
    pub fn is_non_finite(self) -> bool {
        matches!(
            self,
            Self::NonFinitePositions
                | Self::NonFiniteNormals
                | Self::NonFiniteTangents
                | Self::NonFiniteTexCoords
                | Self::NonFiniteColors
                | Self::NonFiniteWeights
                | Self::NonFiniteMorphDeltas
                | Self::NonFiniteMorphWeights
                | Self::NonFiniteBindMatrices
                | Self::NonFiniteNodeTransforms
                | Self::NonFiniteKeyTimes
                | Self::NonFiniteKeyValues
                | Self::NonFiniteMaterial
        )
    }

    /// What the counted things are, plural, e.g. `vertex positions were not finite`.
    #[must_use]
    pub fn what(self) -> &'static str {
        match self {
            Self::NonFinitePositions => "vertex positions were not finite",
            Self::NonFiniteNormals => "normals were not finite",
            Self::NonFiniteTangents => "tangents were not finite",
            Self::NonFiniteTexCoords => "texture coordinates were not finite",
            Self::NonFiniteColors => "vertex colours were not finite",
            Self::NonFiniteWeights => "skin weights were not finite",
            Self::NonFiniteMorphDeltas => "morph target offsets were not finite",
            Self::NonFiniteMorphWeights => "morph weights were not finite",
            Self::NonFiniteBindMatrices => "bind matrices had non-finite entries",
            Self::NonFiniteNodeTransforms => "transforms had non-finite values",
            Self::NonFiniteKeyTimes => "key times were not finite",
            Self::NonFiniteKeyValues => "key values were not finite",
            Self::NonFiniteMaterial => "material factors were not finite",
            Self::ZeroRotationKeys => "rotations had zero length (no rotation is defined)",
            Self::SingularBindMatrices => "bind matrices were singular (cannot be inverted)",
            Self::TimeCodesPerSecond => "timeCodesPerSecond was zero, negative or not finite",
            Self::FramesPerSecond => {
                "framesPerSecond was zero, negative or not finite (Pixar's USD refuses it)"
            }
            Self::InvertedTimeRange => "startTimeCode was after endTimeCode",
            Self::SamplerWithoutKeys => "animation samplers had no keys (glTF needs one or more)",
            Self::AnimationWithoutSamples => "SkelAnimations had no time samples",
            Self::IgnoredConstraints => "VRMC_node_constraint constraints cannot be evaluated",
            Self::ConstraintKinds => "VRMC_node_constraint constraints had several kinds",
            Self::InvalidHumanoid => "VRM humanoid problems that runtimes refuse",
            Self::UnknownVrmVersion => "VRM specVersion values were unknown",
        }
    }
}

/// One kind of bad data at one place, how many, and what the loader did about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DataFault {
    /// What was wrong.
    pub kind: FaultKind,
    /// Where: `mesh 0 "Body" primitive 1`, `skin 0 "Armature"`, `animation 2 "Run" channel 5`, `stage`.
    pub place: String,
    /// How many values (vertices, matrices, keys) were bad.
    pub count: usize,
    /// The first bad index at `place` (vertex, joint, key), where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<usize>,
    /// What dqview did instead, e.g. `replaced by identity`.
    pub action: String,
}

impl DataFault {
    /// A fault of `kind` at `place`: `count` values, the first at `first`, handled by `action`.
    #[must_use]
    pub fn new(
        kind: FaultKind,
        place: impl Into<String>,
        count: usize,
        first: Option<usize>,
        action: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            place: place.into(),
            count,
            first,
            action: action.into(),
        }
    }

    /// How bad it is ([`FaultKind::severity`]).
    #[must_use]
    pub fn severity(&self) -> FaultSeverity {
        self.kind.severity()
    }

    /// The one line every command prints, e.g. `mesh 0 "Body" primitive 0: 3 vertex positions
    /// were not finite (first at index 17); ...`.
    #[must_use]
    pub fn message(&self) -> String {
        let first = self
            .first
            .map_or_else(String::new, |i| format!(" (first at index {i})"));
        format!(
            "{}: {} {}{first}; {}",
            self.place,
            self.count,
            self.kind.what(),
            self.action
        )
    }

    /// [`DataFault::message`] after its severity, `error: ...` or `warning: ...`: what the
    /// viewer lists and the commands other than `inspect` write to stderr.
    #[must_use]
    pub fn line(&self) -> String {
        format!("{}: {}", self.severity().name(), self.message())
    }
}

/// Whether a bind (or inverse bind) matrix cannot be inverted: a zero axis, or axes so
/// nearly coplanar that the volume they span is under 1e-6 of the product of their lengths.
#[must_use]
pub fn is_singular_bind(m: &Mat4) -> bool {
    let axes = [
        m.x_axis.truncate(),
        m.y_axis.truncate(),
        m.z_axis.truncate(),
    ];
    let lengths: f32 = axes.iter().map(|a| a.length()).product();
    let volume = axes[0].dot(axes[1].cross(axes[2])).abs();
    !(lengths > 0.0 && volume > 1e-6 * lengths)
}

/// `matrices` with the non-finite and singular ones replaced by the identity, and a fault for
/// each kind found at `place` (the first bad index is the joint's).
#[must_use]
pub fn checked_binds(mut matrices: Vec<Mat4>, place: &str) -> (Vec<Mat4>, Vec<DataFault>) {
    let mut tallies = [(0usize, None::<usize>); 2];
    for (j, m) in matrices.iter_mut().enumerate() {
        let slot = if !m.is_finite() {
            0
        } else if is_singular_bind(m) {
            1
        } else {
            continue;
        };
        tallies[slot].0 += 1;
        tallies[slot].1.get_or_insert(j);
        *m = Mat4::IDENTITY;
    }
    let kinds = [
        FaultKind::NonFiniteBindMatrices,
        FaultKind::SingularBindMatrices,
    ];
    let faults = tallies
        .iter()
        .zip(kinds)
        .filter(|((n, _), _)| *n > 0)
        .map(|(&(n, first), kind)| {
            DataFault::new(kind, place, n, first, "replaced by the identity")
        })
        .collect();
    (matrices, faults)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_says_where_how_many_and_what_was_done() {
        let f = DataFault::new(
            FaultKind::NonFinitePositions,
            "mesh 0 \"Body\" primitive 1",
            3,
            Some(17),
            "their 5 triangles are dropped",
        );
        assert_eq!(
            f.message(),
            "mesh 0 \"Body\" primitive 1: 3 vertex positions were not finite (first at index 17); their 5 triangles are dropped"
        );
        assert_eq!(f.severity(), FaultSeverity::Error);
    }

    #[test]
    fn zero_and_flat_binds_are_singular_and_a_small_scale_is_not() {
        assert!(is_singular_bind(&Mat4::ZERO));
        assert!(is_singular_bind(&Mat4::from_scale(glam::Vec3::new(
            1.0, 0.0, 1.0
        ))));
        assert!(!is_singular_bind(&Mat4::from_scale(glam::Vec3::splat(
            0.01
        ))));
        assert!(!is_singular_bind(&Mat4::from_translation(glam::Vec3::X)));
        let (fixed, faults) = checked_binds(
            vec![
                Mat4::IDENTITY,
                Mat4::ZERO,
                Mat4::from_cols_array(&[f32::NAN; 16]),
            ],
            "skin 0",
        );
        assert!(fixed.iter().all(|m| *m == Mat4::IDENTITY));
        let kinds: Vec<(FaultKind, Option<usize>)> =
            faults.iter().map(|f| (f.kind, f.first)).collect();
        assert_eq!(
            kinds,
            [
                (FaultKind::NonFiniteBindMatrices, Some(2)),
                (FaultKind::SingularBindMatrices, Some(1))
            ]
        );
    }

    #[test]
    fn only_documented_fallbacks_are_warnings() {
        assert_eq!(
            FaultKind::InvertedTimeRange.severity(),
            FaultSeverity::Warning
        );
        assert_eq!(
            FaultKind::AnimationWithoutSamples.severity(),
            FaultSeverity::Warning
        );
        for kind in [
            FaultKind::ZeroRotationKeys,
            FaultKind::SingularBindMatrices,
            FaultKind::TimeCodesPerSecond,
            FaultKind::FramesPerSecond,
            FaultKind::SamplerWithoutKeys,
            FaultKind::NonFiniteKeyTimes,
        ] {
            assert_eq!(kind.severity(), FaultSeverity::Error, "{kind:?}");
        }
        assert!(FaultKind::NonFiniteWeights.is_non_finite());
        assert!(!FaultKind::SingularBindMatrices.is_non_finite());
    }
}
