//! Heatmap values and ranges: the per-vertex numbers the displacement and collapse views
//! colour, computed on the CPU so a render (or the viewer) can scale its colours to the pose.
//!
//! The values are those of `debug_scalar` in `shaders/debug_views.wgsl`: displacement is the
//! distance between a vertex's LBS and DQS positions over the rest bounding-box diagonal;
//! collapse is the determinant of the blended 3x3 of the mode (the local volume ratio); CoR
//! distance is the distance between a vertex's position in the mode and its CoR position over
//! the diagonal (`cor_distance` in `shaders/draw.wgsl`).

use glam::Mat3;
use thiserror::Error;

use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{
    Betas, JointPalette, PosePalettes, PosedPrimitive, SceneBetas, SceneCenters, SkinningMode,
    skin_scene, skin_scene_cor, skin_scene_hybrid,
};

/// What a heatmap measures per vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeatQuantity {
    /// |LBS - DQS| position distance over the rest bounding-box diagonal (the same in every mode).
    Displacement,
    /// Determinant of the mode's blended 3x3: the local volume ratio (1 keeps volume).
    Collapse,
    /// |mode - CoR| position distance over the rest bounding-box diagonal (0 in CoR).
    CorDistance,
}

impl HeatQuantity {
    /// The range the views use when none is computed: displacement 0..10%, collapse 0..2.
    #[must_use]
    pub fn default_range(self) -> HeatRange {
        match self {
            Self::Displacement | Self::CorDistance => HeatRange { lo: 0.0, hi: 0.1 },
            Self::Collapse => HeatRange { lo: 0.0, hi: 2.0 },
        }
    }

    /// The narrowest range a computed one is widened to, so a near-rest pose is not noise
    /// stretched to full red: 0.1% of the diagonal, or a volume ratio of 1 +- 0.01.
    #[must_use]
    pub fn min_span(self) -> f32 {
        match self {
            Self::Displacement | Self::CorDistance => 1e-3,
            Self::Collapse => 0.01,
        }
    }
}

/// A heatmap's colour scale: `lo` is drawn blue, `hi` red, in the quantity's units
/// (displacement: fraction of the diagonal; collapse: volume ratio).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeatRange {
    /// The value drawn blue.
    pub lo: f32,
    /// The value drawn red.
    pub hi: f32,
}

impl HeatRange {
    /// The smallest range holding both.
    #[must_use]
    pub fn union(self, other: Self) -> Self {
        Self {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// Whether both ends are finite and `lo < hi`.
    #[must_use]
    pub fn is_valid(self) -> bool {
        self.lo.is_finite() && self.hi.is_finite() && self.lo < self.hi
    }
}

/// How the range is chosen: from the pose's values, or fixed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HeatRangeSpec {
    /// A percentile of the values in (0, 100]; 100 is the largest. Displacement spans
    /// 0..p; collapse spans 1 -+ p of |ratio - 1|, so 1 (volume kept) stays green.
    Percentile(f32),
    /// A fixed range in the quantity's units.
    Fixed(HeatRange),
}

impl Default for HeatRangeSpec {
    fn default() -> Self {
        Self::Percentile(100.0)
    }
}

/// Why a `--range` text cannot be read.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum HeatRangeError {
    /// Not one of the accepted forms.
    #[error(
        "--range `{0}`: expected auto, pNN (percentile, e.g. p99), HI or LO:HI (displacement as a fraction like 0.02 or a percentage like 2%; collapse as volume ratios like 0.8:1.2)"
    )]
    Syntax(String),
    /// A percentile outside (0, 100].
    #[error("--range `{0}`: the percentile must be above 0 and at most 100")]
    Percentile(String),
    /// A fixed range that is empty, reversed or not finite.
    #[error("--range `{0}`: LO must be below HI, both finite")]
    Empty(String),
}

impl HeatRangeSpec {
    /// Parses `auto` (= `p100`), `pNN` (percentile, e.g. `p99`, `p99.5`), `HI` (= `0:HI`) or
    /// `LO:HI`; a number may end in `%` (hundredths: `2%` is 0.02).
    pub fn parse(text: &str) -> Result<Self, HeatRangeError> {
        let t = text.trim().to_ascii_lowercase();
        if t == "auto" {
            return Ok(Self::default());
        }
        if let Some(p) = t.strip_prefix('p') {
            let p: f32 = p
                .parse()
                .map_err(|_| HeatRangeError::Syntax(text.to_string()))?;
            if !(p > 0.0 && p <= 100.0) {
                return Err(HeatRangeError::Percentile(text.to_string()));
            }
            return Ok(Self::Percentile(p));
        }
        let number = |s: &str| -> Result<f32, HeatRangeError> {
            let s = s.trim();
            let (s, scale) = match s.strip_suffix('%') {
                Some(s) => (s.trim(), 0.01),
                None => (s, 1.0),
            };
            let v: f32 = s
                .parse()
                .map_err(|_| HeatRangeError::Syntax(text.to_string()))?;
            if v.is_finite() {
                Ok(v * scale)
            } else {
                Err(HeatRangeError::Empty(text.to_string()))
            }
        };
        let range = match t.split_once(':') {
            Some((lo, hi)) => HeatRange {
                lo: number(lo)?,
                hi: number(hi)?,
            },
            None => HeatRange {
                lo: 0.0,
                hi: number(&t)?,
            },
        };
        if !range.is_valid() {
            return Err(HeatRangeError::Empty(text.to_string()));
        }
        Ok(Self::Fixed(range))
    }

    /// The range for `values` (one per vertex, any order; non-finite ones are skipped).
    ///
    /// Linear in the number of values (a selection, not a sort). No values gives the
    /// quantity's default range.
    #[must_use]
    pub fn range_of(self, quantity: HeatQuantity, values: &[f32]) -> HeatRange {
        let p = match self {
            Self::Fixed(range) => return range,
            Self::Percentile(p) => p,
        };
        let mut spread: Vec<f32> = values
            .iter()
            .filter(|v| v.is_finite())
            .map(|&v| match quantity {
                HeatQuantity::Displacement | HeatQuantity::CorDistance => v,
                HeatQuantity::Collapse => (v - 1.0).abs(),
            })
            .collect();
        if spread.is_empty() {
            return quantity.default_range();
        }
        // p * n first: 0.99 * 100 rounds above 99 in f32.
        let rank = ((p * spread.len() as f32 / 100.0).ceil() as usize).clamp(1, spread.len()) - 1;
        let (_, &mut at, _) = spread.select_nth_unstable_by(rank, f32::total_cmp);
        let at = at.max(quantity.min_span());
        match quantity {
            HeatQuantity::Displacement | HeatQuantity::CorDistance => HeatRange { lo: 0.0, hi: at },
            HeatQuantity::Collapse => HeatRange {
                lo: 1.0 - at,
                hi: 1.0 + at,
            },
        }
    }
}

/// Hybrid betas as the pipelines apply them: per vertex (or 1 without) times a scale; and the
/// centers of rotation the CoR distance is measured from.
#[derive(Clone, Copy, Debug)]
pub struct HeatBetas<'a> {
    /// Per-vertex betas (`--hybrid-auto`, `_DQS_BLEND`); `None`: every vertex has beta 1.
    pub betas: Option<&'a SceneBetas>,
    /// The beta scale (the `--beta` of a plain hybrid).
    pub scale: f32,
    /// Centers of rotation of CoR positions; `None`: CoR draws as LBS (as the GPU does).
    pub centers: Option<&'a SceneCenters>,
    /// Direct Delta Mush's matrices of DDM positions; `None`: DDM draws as LBS (as the GPU does).
    pub ddm: Option<&'a crate::skin::ddm::SceneDdm>,
    /// Delta Mush's rest deltas of DM positions; `None`: DM as LBS.
    pub dm: Option<&'a crate::skin::dm::SceneDm>,
}

/// The value `quantity` takes at every vertex of every skinned primitive of `scene` at
/// `pose` in `mode` (primitives in node order, vertices in order; rigid primitives, which
/// neither collapse nor differ between LBS and DQS, are left out).
///
/// Cost: displacement skins the scene twice (LBS and DQS, in parallel over vertices); collapse
/// sums at most eight 3x3 matrices per vertex. A 20k-vertex character takes a few
/// milliseconds either way, so the viewer can call it every frame it poses.
#[must_use]
pub fn heat_values(
    scene: &Scene,
    pose: &Pose,
    quantity: HeatQuantity,
    mode: SkinningMode,
    betas: HeatBetas<'_>,
    diagonal: f32,
) -> Vec<f32> {
    match quantity {
        HeatQuantity::Displacement => displacements(scene, pose, diagonal),
        HeatQuantity::Collapse => collapse_ratios(scene, pose, mode, betas),
        HeatQuantity::CorDistance => cor_distances(scene, pose, mode, betas, diagonal),
    }
}

/// The text of `value` in the quantity's units with `decimals` decimals: percent of the
/// diagonal for displacement (`1.5%`), a plain volume ratio for collapse (`0.85`).
#[must_use]
pub fn heat_value_text(quantity: HeatQuantity, value: f32, decimals: usize) -> String {
    match quantity {
        HeatQuantity::Displacement | HeatQuantity::CorDistance => {
            format!("{:.*}%", decimals, value * 100.0)
        }
        HeatQuantity::Collapse => format!("{value:.decimals$}"),
    }
}

/// Enough decimals that the three numbers of a bar over `range` read apart.
#[must_use]
pub fn heat_decimals(quantity: HeatQuantity, range: HeatRange) -> usize {
    let span = match quantity {
        HeatQuantity::Displacement | HeatQuantity::CorDistance => (range.hi - range.lo) * 100.0,
        HeatQuantity::Collapse => range.hi - range.lo,
    };
    match span {
        s if s >= 20.0 => 0,
        s if s >= 2.0 => 1,
        s if s >= 0.2 => 2,
        _ => 3,
    }
}

/// The range of `quantity` over the panes `modes` at `pose` (one range for every pane, so
/// their colours compare): [`heat_values`] per mode (once for displacement, which every mode
/// shares), then `spec`, then the union over the modes.
#[must_use]
pub fn pose_heat_range(
    scene: &Scene,
    pose: &Pose,
    quantity: HeatQuantity,
    modes: &[SkinningMode],
    betas: HeatBetas<'_>,
    diagonal: f32,
    spec: HeatRangeSpec,
) -> HeatRange {
    super::heat_focus::heat_range_over(scene, pose, (quantity, modes), betas, diagonal, spec, None)
}

/// |LBS - DQS| per vertex of each skinned primitive, over `diagonal`.
fn displacements(scene: &Scene, pose: &Pose, diagonal: f32) -> Vec<f32> {
    let lbs = skin_scene(scene, pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let dqs = skin_scene(scene, pose, SkinningMode::Dqs, Betas::Uniform(1.0));
    distances(&lbs, &dqs, diagonal)
}

/// |`a` - `b`| per vertex of each skinned primitive of `a`, over `diagonal` (1 when it is not
/// a positive number).
fn distances(a: &[PosedPrimitive], b: &[PosedPrimitive], diagonal: f32) -> Vec<f32> {
    let inv = if diagonal.is_finite() && diagonal > 0.0 {
        1.0 / diagonal
    } else {
        1.0
    };
    a.iter()
        .zip(b)
        .filter(|(a, _)| a.skinned)
        .flat_map(|(a, b)| {
            a.vertices
                .positions
                .iter()
                .zip(&b.vertices.positions)
                .map(move |(p, q)| (*p - *q).length() * inv)
        })
        .collect()
}

/// |`mode` - CoR| per vertex of each skinned primitive, over `diagonal` (CoR about
/// `betas.centers`, LBS without them, as the pipelines draw it).
fn cor_distances(
    scene: &Scene,
    pose: &Pose,
    mode: SkinningMode,
    betas: HeatBetas<'_>,
    diagonal: f32,
) -> Vec<f32> {
    let cor = match betas.centers {
        Some(centers) => skin_scene_cor(scene, pose, centers),
        None => skin_scene(scene, pose, SkinningMode::Lbs, Betas::Uniform(0.0)),
    };
    let posed = match (mode, betas.betas) {
        (SkinningMode::Cor, _) => cor.clone(),
        (SkinningMode::Ddm, _) => match betas.ddm {
            Some(ddm) => crate::skin::ddm::skin_scene_ddm(scene, pose, ddm),
            None => skin_scene(scene, pose, SkinningMode::Lbs, Betas::Uniform(0.0)),
        },
        (SkinningMode::Dm, _) => match betas.dm {
            Some(dm) => crate::skin::dm::skin_scene_dm(scene, pose, dm),
            None => skin_scene(scene, pose, SkinningMode::Lbs, Betas::Uniform(0.0)),
        },
        (_, Some(b)) => skin_scene_hybrid(scene, pose, mode, b, betas.scale),
        (_, None) => skin_scene(scene, pose, mode, Betas::Uniform(betas.scale)),
    };
    distances(&posed, &cor, diagonal)
}

/// The determinant of the blended 3x3 of `mode` per vertex of each skinned primitive, as
/// `blended_determinant` in `shaders/debug_views.wgsl` (CoR's linear part is DQS's).
fn collapse_ratios(
    scene: &Scene,
    pose: &Pose,
    mode: SkinningMode,
    betas: HeatBetas<'_>,
) -> Vec<f32> {
    let mut palettes = PosePalettes::default();
    let mut out = Vec::new();
    for node in &scene.nodes {
        let (Some(mesh_index), Some(skin)) = (node.mesh, node.skin) else {
            continue;
        };
        let Some(mesh) = scene.meshes.get(mesh_index) else {
            continue;
        };
        for (prim_index, prim) in mesh.primitives.iter().enumerate() {
            let Some(influences) = &prim.influences else {
                continue;
            };
            let Some(palette) = palettes.get(scene, pose, skin) else {
                continue;
            };
            let beta_of = match betas.betas {
                Some(b) => Betas::Scaled(b.of(mesh_index, prim_index), betas.scale),
                None => Betas::Uniform(betas.scale),
            };
            out.extend(
                influences
                    .iter()
                    .enumerate()
                    .map(|(v, row)| blended_determinant(palette, mode, beta_of.of(v), row)),
            );
        }
    }
    out
}

/// The local volume ratio of one vertex's blended transform (weight gradients left out).
fn blended_determinant(
    palette: &JointPalette,
    mode: SkinningMode,
    beta: f32,
    influences: &[crate::influences::Influence],
) -> f32 {
    if influences.is_empty() {
        return 1.0;
    }
    let mut linear = Mat3::ZERO;
    let mut scale_shear = Mat3::ZERO;
    for i in influences {
        let m = palette
            .matrices
            .get(usize::from(i.joint))
            .copied()
            .unwrap_or(glam::Mat4::IDENTITY);
        linear += Mat3::from_mat4(m) * i.weight;
        if let Some(scales) = &palette.scale_shear {
            scale_shear += scales
                .get(usize::from(i.joint))
                .copied()
                .unwrap_or(Mat3::IDENTITY)
                * i.weight;
        }
    }
    let lbs = linear.determinant();
    // A rigid palette's DQS blend is a rotation: volume ratio 1.
    let dqs = if palette.scale_shear.is_some() {
        scale_shear.determinant()
    } else {
        1.0
    };
    match mode {
        SkinningMode::Lbs => lbs,
        SkinningMode::Dqs | SkinningMode::Cor => dqs,
        SkinningMode::Hybrid => lbs + (dqs - lbs) * beta,
        // Each vertex is moved by a fitted rotation; Delta Mush's smoothing has no per-vertex
        // matrix, so its collapse is LBS's, as the surface before the smoothing.
        SkinningMode::Ddm => 1.0,
        SkinningMode::Dm => lbs,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::anim::twisted_pose;
    use crate::builtin::builtin_scene;
    use crate::skin::rest_bounds;

    /// The twist tube with its tip turned `deg` degrees, and its rest diagonal.
    pub(in crate::analysis) fn twisted(deg: f32) -> (Scene, Pose, f32) {
        let scene = builtin_scene("twist").expect("builtin");
        let pose = twisted_pose(&scene, "tip", deg);
        let (lo, hi) = rest_bounds(&scene).expect("vertices");
        (scene, pose, (hi - lo).length())
    }

    /// Every vertex at beta 1, no centers (CoR as LBS).
    pub(in crate::analysis) const ONE: HeatBetas<'static> = HeatBetas {
        betas: None,
        scale: 1.0,
        centers: None,
        ddm: None,
        dm: None,
    };

    #[test]
    fn displacement_peaks_at_the_twisted_ring_as_analyze_reports() {
        let (scene, pose, diagonal) = twisted(180.0);
        let values = heat_values(
            &scene,
            &pose,
            HeatQuantity::Displacement,
            SkinningMode::Lbs,
            ONE,
            diagonal,
        );
        assert_eq!(values.len(), scene.meshes[0].primitives[0].positions.len());
        let max = values.iter().copied().fold(0.0f32, f32::max);
        // The middle ring: LBS on the axis, DQS at radius 0.25, so 0.25 over the diagonal.
        assert!((max * diagonal - 0.25).abs() < 1e-3, "{}", max * diagonal);
        let range = HeatRangeSpec::default().range_of(HeatQuantity::Displacement, &values);
        assert_eq!(range, HeatRange { lo: 0.0, hi: max });
        // The ends do not move apart: the median is far below the peak.
        let median = HeatRangeSpec::Percentile(50.0).range_of(HeatQuantity::Displacement, &values);
        assert!(median.hi < 0.5 * max, "{median:?} vs {max}");
    }

    #[test]
    fn collapse_is_lbs_pinched_dqs_whole_hybrid_between() {
        let (scene, pose, diagonal) = twisted(180.0);
        let of = |mode, scale| {
            let betas = HeatBetas {
                betas: None,
                scale,
                centers: None,
                ddm: None,
                dm: None,
            };
            heat_values(&scene, &pose, HeatQuantity::Collapse, mode, betas, diagonal)
        };
        let lbs = of(SkinningMode::Lbs, 1.0);
        let min_lbs = lbs.iter().copied().fold(f32::INFINITY, f32::min);
        // Half-way, 0.5 (I + R180) flattens two axes: the determinant is 0.
        assert!(min_lbs.abs() < 1e-3, "{min_lbs}");
        assert!(
            of(SkinningMode::Dqs, 1.0)
                .iter()
                .all(|&d| (d - 1.0).abs() < 1e-5)
        );
        let hybrid = of(SkinningMode::Hybrid, 0.5);
        let min_hybrid = hybrid.iter().copied().fold(f32::INFINITY, f32::min);
        assert!((min_hybrid - 0.5).abs() < 1e-3, "{min_hybrid}");
        let range = HeatRangeSpec::default().range_of(HeatQuantity::Collapse, &lbs);
        assert!(
            (range.lo - 0.0).abs() < 1e-3 && (range.hi - 2.0).abs() < 1e-3,
            "{range:?}"
        );
        let both = pose_heat_range(
            &scene,
            &pose,
            HeatQuantity::Collapse,
            &[SkinningMode::Dqs, SkinningMode::Hybrid],
            HeatBetas {
                betas: None,
                scale: 0.5,
                centers: None,
                ddm: None,
                dm: None,
            },
            diagonal,
            HeatRangeSpec::default(),
        );
        assert!(
            (both.lo - 0.5).abs() < 1e-3 && (both.hi - 1.5).abs() < 1e-3,
            "{both:?}"
        );
    }

    #[test]
    fn the_rest_pose_gets_the_narrowest_range_not_a_zero_one() {
        let (scene, pose, diagonal) = twisted(0.0);
        let modes = [SkinningMode::Lbs, SkinningMode::Dqs];
        let range = |q| {
            pose_heat_range(
                &scene,
                &pose,
                q,
                &modes,
                ONE,
                diagonal,
                HeatRangeSpec::default(),
            )
        };
        assert_eq!(
            range(HeatQuantity::Displacement),
            HeatRange { lo: 0.0, hi: 1e-3 }
        );
        let c = range(HeatQuantity::Collapse);
        assert!(
            (c.lo - 0.99).abs() < 1e-6 && (c.hi - 1.01).abs() < 1e-6,
            "{c:?}"
        );
    }

    #[test]
    fn range_texts_parse_and_refuse() {
        let fixed = |lo, hi| Ok(HeatRangeSpec::Fixed(HeatRange { lo, hi }));
        assert_eq!(
            HeatRangeSpec::parse("auto"),
            Ok(HeatRangeSpec::Percentile(100.0))
        );
        assert_eq!(
            HeatRangeSpec::parse("P99"),
            Ok(HeatRangeSpec::Percentile(99.0))
        );
        assert_eq!(HeatRangeSpec::parse("0.02"), fixed(0.0, 0.02));
        assert_eq!(HeatRangeSpec::parse("2%"), fixed(0.0, 0.02));
        assert_eq!(HeatRangeSpec::parse("0.8:1.2"), fixed(0.8, 1.2));
        for bad in [
            "", "p0", "p101", "pNaN", "x", "1.2:0.8", "0", "-1", "nan", "inf", "1:1", "0:inf",
        ] {
            assert!(HeatRangeSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn percentiles_pick_ranks_and_skip_non_finite_values() {
        let values: Vec<f32> = (1..=100)
            .map(|i| i as f32 / 1000.0)
            .chain([f32::NAN])
            .collect();
        let at = |p| {
            HeatRangeSpec::Percentile(p)
                .range_of(HeatQuantity::Displacement, &values)
                .hi
        };
        assert_eq!(at(100.0), 0.1);
        assert_eq!(at(99.0), 0.099);
        assert_eq!(at(50.0), 0.05);
        assert_eq!(at(0.5), 0.001);
        let none = HeatRangeSpec::default().range_of(HeatQuantity::Collapse, &[]);
        assert_eq!(none, HeatQuantity::Collapse.default_range());
    }
}
