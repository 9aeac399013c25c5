//! Why a joint region is measured by area instead of volume, or not measured at all, and the
//! thresholds that decide it (see [`super::JointRegion`]).

/// A capped region whose rest volume is below this share of a ball's of the same surface
/// (openings' caps included) encloses too little for its size to measure by volume: a card
/// modelled as two faces back to back, a shallow shell capped across its rim. A ball is 1, a
/// tube 10 radii long 0.59, 200 radii long 0.15; a shell 10% as deep as it is wide about 0.1.
pub const MIN_ROUNDNESS: f64 = 0.1;

/// A capped region whose caps are more than this share of its surface is mostly cap, so its
/// volume says more about the fans across its openings than about the mesh: measured by area.
pub const MAX_CAP_SHARE: f64 = 0.8;

/// A region with fewer triangles than this is not measured: capped across its openings, a
/// few triangles make a solid whose size is mostly the caps' guess (a 12-vertex thumb of a
/// low-poly character reads -0.45 of its volume under DQS), and its area is a handful of faces.
pub const MIN_TRIANGLES: usize = 24;

/// A region whose rest measure is below this share of the rest diagonal's square (area) or
/// cube (volume) has no size to compare with.
pub const MIN_REST_SHARE: f64 = 1e-9;

/// Why a region is measured by its area rather than its capped volume.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AreaReason {
    /// Its triangles do not close around a volume (an edge used three or more times,
    /// triangles wound both ways, openings that do not chain into loops).
    NotClosed,
    /// The caps across its openings are this share of its surface (above [`MAX_CAP_SHARE`]).
    MostlyCaps(f64),
    /// Its rest volume is this share of a ball's of the same surface (below [`MIN_ROUNDNESS`]).
    Flat(f64),
}

impl AreaReason {
    /// One line for a person, e.g. `encloses 0.3% of a ball's volume for its surface`.
    #[must_use]
    pub fn text(self) -> String {
        match self {
            Self::NotClosed => String::from(
                "does not close (an edge shared by three or more triangles, triangles wound both ways, or openings that do not chain)",
            ),
            Self::MostlyCaps(share) => format!(
                "its openings' caps are {:.0}% of its surface (more than {:.0}%)",
                100.0 * share,
                100.0 * MAX_CAP_SHARE
            ),
            Self::Flat(roundness) => format!(
                "encloses {:.1}% of a ball's volume for its surface (less than {:.0}%): open or flat",
                100.0 * roundness,
                100.0 * MIN_ROUNDNESS
            ),
        }
    }
}

/// Why a region's ratio to rest says nothing about its size: reported as such, never as a number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NotMeasurable {
    /// It has this many triangles, fewer than [`MIN_TRIANGLES`].
    FewTriangles(usize),
    /// Its rest measure is zero or nearly so (below [`MIN_REST_SHARE`] of the diagonal's power).
    RestNearZero,
    /// Its capped volume turned inside out at the pose: this ratio, below 0.
    InsideOut(f64),
}

impl NotMeasurable {
    /// One line for a person, e.g. `12 triangles, fewer than 24`.
    #[must_use]
    pub fn text(self) -> String {
        match self {
            Self::FewTriangles(n) => {
                format!("{n} triangles, fewer than {MIN_TRIANGLES}: too few to measure")
            }
            Self::RestNearZero => String::from("its rest size is zero or nearly so"),
            Self::InsideOut(ratio) => format!(
                "its capped volume turns inside out ({ratio:.2} of rest): the caps, not the mesh"
            ),
        }
    }
}
