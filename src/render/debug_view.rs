//! Debug views: what the render pipelines colour a mesh by.

use crate::analysis::{HeatQuantity, HeatRange};

/// What the fragment colour shows. Ids mirror the `VIEW_*` constants in `shaders/debug_views.wgsl`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DebugView {
    /// Lit base colour and texture.
    #[default]
    Shaded,
    /// Weight of the selected joint, heat map 0 (blue) to 1 (red).
    Weights,
    /// Influence count per vertex, one colour per count.
    Influences,
    /// World normals as RGB.
    Normals,
    /// LBS-DQS distance per vertex over the bounding-box diagonal: 0 blue, the range's top
    /// (10% by default) red.
    Displacement,
    /// Heaviest joint per vertex, one colour per joint.
    Joints,
    /// Local volume ratio of the blended transform: the range's bottom (0 by default,
    /// collapsed) blue, its middle (1) green, its top (2) red.
    Collapse,
    /// Hybrid beta per vertex: 0 (LBS) blue to 1 (DQS) red.
    Beta,
    /// The mesh in flat white, unlit (on black in `render`: a silhouette for comparisons).
    Mask,
    /// Distance per vertex from the pane's position to its CoR position, over the bounding-box
    /// diagonal: 0 blue (CoR panes are all 0), the range's top (10% by default) red.
    CorDistance,
    /// The selected joint's region (triangles whose first corner has the joint as its
    /// heaviest influence) flat white, everything else flat black, unlit: the mask `report`
    /// counts a region's pixels with and outlines it by. Not offered in menus or `--view`.
    Region,
}

impl DebugView {
    /// Every view offered in menus and `--view`, in menu order ([`DebugView::Region`] is not).
    pub const ALL: [Self; 10] = [
        Self::Shaded,
        Self::Weights,
        Self::Influences,
        Self::Normals,
        Self::Displacement,
        Self::Joints,
        Self::Collapse,
        Self::Beta,
        Self::Mask,
        Self::CorDistance,
    ];

    /// The view id the shader switches on.
    #[must_use]
    pub fn id(self) -> u32 {
        match self {
            Self::Shaded => 0,
            Self::Weights => 1,
            Self::Influences => 2,
            Self::Normals => 3,
            Self::Displacement => 4,
            Self::Joints => 5,
            Self::Collapse => 6,
            Self::Beta => 7,
            Self::Mask => 8,
            Self::CorDistance => 9,
            Self::Region => 10,
        }
    }

    /// Lower-case name for flags and menus.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Shaded => "shaded",
            Self::Weights => "weights",
            Self::Influences => "influences",
            Self::Normals => "normals",
            Self::Displacement => "displacement",
            Self::Joints => "joints",
            Self::Collapse => "collapse",
            Self::Beta => "beta",
            Self::Mask => "mask",
            Self::CorDistance => "cor-distance",
            Self::Region => "region",
        }
    }

    /// Parses a name as printed by [`DebugView::name`] (case-insensitive).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(name))
    }

    /// One line explaining the colours at the default ranges, for legends.
    #[must_use]
    pub fn legend(self) -> &'static str {
        match self {
            Self::Shaded => "base colour, key + fill light",
            Self::Weights => "selected joint's weight: 0 blue .. 1 red",
            Self::Influences => "influences per vertex: one colour per count",
            Self::Normals => "normal xyz as rgb",
            Self::Displacement => "LBS-DQS distance / bbox diagonal: 0 blue .. 10% red",
            Self::Joints => "heaviest joint: one colour per joint",
            Self::Collapse => "local volume ratio: 0 blue, 1 green, 2 red",
            Self::Beta => "hybrid beta: 0 LBS blue .. 1 DQS red",
            Self::Mask => "the mesh in flat white, unlit",
            Self::CorDistance => {
                "distance from the CoR position / bbox diagonal: 0 blue .. 10% red"
            }
            Self::Region => "the selected joint's region in flat white, the rest black",
        }
    }
}

/// Per-view inputs of the debug views, packed into `GpuFrameUniforms::params` with the beta scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewParams {
    /// Hybrid beta scale (multiplies each vertex's beta).
    pub beta: f32,
    /// What to show.
    pub view: DebugView,
    /// Joint index in the skin whose weights the weights view shows.
    pub selected_joint: u32,
    /// The rest-pose bounding-box diagonal, for the displacement view.
    pub diagonal: f32,
    /// DQS bulge compensation in [0, 1] (0 off).
    pub bulge: f32,
    /// The values the displacement, collapse and CoR distance views draw blue and red (see
    /// [`crate::analysis::pose_heat_range`]); `None` (or an invalid range): the view's default.
    pub heat_range: Option<HeatRange>,
    /// Cut-away depth in 0..1 (clip depth): what is outside the selected joint's region and
    /// nearer than this is not drawn. 0 cuts nothing; 1 leaves the region alone.
    pub cut_depth: f32,
}

impl DebugView {
    /// The quantity this view colours on a heat scale whose range can follow the pose.
    #[must_use]
    pub fn heat_quantity(self) -> Option<HeatQuantity> {
        match self {
            Self::Displacement => Some(HeatQuantity::Displacement),
            Self::Collapse => Some(HeatQuantity::Collapse),
            Self::CorDistance => Some(HeatQuantity::CorDistance),
            _ => None,
        }
    }
}

impl ViewParams {
    /// Shaded view with hybrid scale `beta`.
    #[must_use]
    pub fn shaded(beta: f32) -> Self {
        Self {
            beta,
            view: DebugView::Shaded,
            selected_joint: 0,
            diagonal: 1.0,
            bulge: 0.0,
            heat_range: None,
            cut_depth: 0.0,
        }
    }

    /// The `extra` vector of the frame uniforms: bulge compensation (NaN as off), no depth
    /// pull, the cut depth (NaN as none); w unused here.
    #[must_use]
    pub fn to_extra(self) -> [f32; 4] {
        let unit = |v: f32| {
            if v.is_finite() {
                v.clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        [unit(self.bulge), 0.0, unit(self.cut_depth), 0.0]
    }

    /// The `heat_range` vector of the frame uniforms: (lo, hi, 0, 0) of the view's range, the
    /// quantity's default when none (or an invalid one) is set; displacement's for other views.
    #[must_use]
    pub fn to_heat_range(self) -> [f32; 4] {
        let quantity = self
            .view
            .heat_quantity()
            .unwrap_or(HeatQuantity::Displacement);
        let range = self
            .heat_range
            .filter(|r| r.is_valid())
            .unwrap_or_else(|| quantity.default_range());
        [range.lo, range.hi, 0.0, 0.0]
    }

    /// The `params` vector of the frame uniforms.
    #[must_use]
    pub fn to_params(self) -> [f32; 4] {
        let beta = if self.beta.is_nan() {
            1.0
        } else {
            self.beta.clamp(0.0, 1.0)
        };
        let inv = if self.diagonal.is_finite() && self.diagonal > 0.0 {
            1.0 / self.diagonal
        } else {
            1.0
        };
        [beta, self.selected_joint as f32, inv, self.view.id() as f32]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_ids_match_the_shader() {
        for v in DebugView::ALL {
            assert_eq!(DebugView::from_name(v.name()), Some(v));
        }
        // The region mask is report's own: no flag or menu offers it.
        assert_eq!(DebugView::from_name("region"), None);
        for v in DebugView::ALL.into_iter().chain([DebugView::Region]) {
            let constant = format!(
                "const VIEW_{}: u32 = {}u;",
                match v {
                    DebugView::Shaded => "SHADED",
                    DebugView::Weights => "WEIGHTS",
                    DebugView::Influences => "INFLUENCES",
                    DebugView::Normals => "NORMALS",
                    DebugView::Displacement => "DISPLACEMENT",
                    DebugView::Joints => "JOINTS",
                    DebugView::Collapse => "COLLAPSE",
                    DebugView::Beta => "BETA",
                    DebugView::Mask => "MASK",
                    DebugView::CorDistance => "COR_DISTANCE",
                    DebugView::Region => "REGION",
                },
                v.id()
            );
            assert!(
                super::super::shaders::DEBUG_VIEWS_WGSL.contains(&constant),
                "{constant}"
            );
        }
        assert_eq!(DebugView::from_name("nope"), None);
    }
}
