//! A blend map before and after a fit, at the pose under review: the whole mesh and one
//! joint's region, each as its volume ratio and its distance from CoR.
//!
//! The viewer's "Fit to CoR" panel and `dqview blend` show this same table ([`FitTable`]:
//! rounded once, the CLI's lines and the viewer's grid both made from it), so what the fit did
//! to the pose a rigger is looking at is one number in both.

use rayon::prelude::*;

use super::{FOCUS_WEIGHT_THRESHOLD, RestReference};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{
    Betas, PosedPrimitive, SceneBetas, SceneCenters, SkinningMode, bounds, skin_scene,
    skin_scene_cor, skin_scene_hybrid,
};

/// One row's numbers for the whole mesh or a region.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitMeasure {
    /// Volume (or area, for open meshes) over the rest pose's; `None` where the region is not
    /// measurable ([`super::NotMeasurable`]).
    pub ratio: Option<f64>,
    /// Mean vertex distance from the CoR position, over the rest bounding-box diagonal.
    pub cor_mean: f32,
    /// Largest vertex distance from the CoR position, over the diagonal.
    pub cor_max: f32,
}

/// One skinning of the pose: a label and its numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct FitRow {
    /// `LBS`, `hybrid (before)`, `CoR`, ...
    pub label: String,
    /// The whole mesh.
    pub whole: FitMeasure,
    /// The joint's region, when a joint with a region was given.
    pub region: Option<FitMeasure>,
}

/// The table: LBS, each map as a hybrid, DQS, CoR.
#[derive(Clone, Debug, PartialEq)]
pub struct FitComparison {
    /// The region's joint name, when there is one.
    pub joint: Option<String>,
    /// The rows in order.
    pub rows: Vec<FitRow>,
}

/// LBS, the hybrid with each of `maps` (label, betas), DQS and CoR at `pose`, for the whole
/// mesh and for `joint`'s region (its volume as `analyze --joint` measures it; its vertices,
/// for the distance, those weighted at least [`FOCUS_WEIGHT_THRESHOLD`] to the joint).
#[must_use]
pub fn compare_fit(
    scene: &Scene,
    centers: &SceneCenters,
    pose: &Pose,
    joint: Option<usize>,
    maps: &[(&str, &SceneBetas)],
) -> FitComparison {
    let reference = RestReference::at_rest(scene);
    let rest = skin_scene(
        scene,
        &Pose::rest(scene),
        SkinningMode::Lbs,
        Betas::Uniform(0.0),
    );
    let diagonal = bounds(&rest)
        .map_or(1.0, |(lo, hi)| (hi - lo).length())
        .max(1e-12);
    let region = joint.and_then(|j| reference.region(j));
    let cor = skin_scene_cor(scene, pose, centers);
    let in_region = joint.map(|j| region_vertices(scene, &cor, j));
    let mut skinnings: Vec<(String, Vec<PosedPrimitive>)> = vec![(
        "LBS".into(),
        skin_scene(scene, pose, SkinningMode::Lbs, Betas::Uniform(0.0)),
    )];
    skinnings.extend(
        maps.par_iter()
            .map(|(label, betas)| {
                let posed = skin_scene_hybrid(scene, pose, SkinningMode::Hybrid, betas, 1.0);
                ((*label).to_string(), posed)
            })
            .collect::<Vec<_>>(),
    );
    skinnings.push((
        "DQS".into(),
        skin_scene(scene, pose, SkinningMode::Dqs, Betas::Uniform(1.0)),
    ));
    let rows = skinnings
        .iter()
        .map(|(label, posed)| (label.as_str(), posed))
        .chain(std::iter::once(("CoR", &cor)))
        .map(|(label, posed)| {
            let (whole_mean, whole_max) = distances(posed, &cor, None);
            let whole = FitMeasure {
                ratio: Some(reference.whole_ratio(scene, posed)),
                cor_mean: whole_mean / diagonal,
                cor_max: whole_max / diagonal,
            };
            let region = region.map(|r| {
                let (mean, max) = distances(posed, &cor, in_region.as_deref());
                FitMeasure {
                    ratio: r.ratio(posed).ok(),
                    cor_mean: mean / diagonal,
                    cor_max: max / diagonal,
                }
            });
            FitRow {
                label: label.to_string(),
                whole,
                region,
            }
        })
        .collect();
    FitComparison {
        joint: region
            .and_then(|r| scene.nodes.get(r.joint))
            .map(|n| n.name.clone()),
        rows,
    }
}

/// The headings of a [`FitCells`]' three columns, in order.
pub const FIT_COLUMNS: [&str; 3] = ["volume", "CoR mean", "CoR max"];

/// One measure as `blend` prints it and the viewer shows it: each number rounded once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FitCells {
    /// The volume ratio to rest, 4 decimals.
    pub volume: String,
    /// The mean distance from CoR, % of the rest diagonal, 3 decimals and `%`.
    pub cor_mean: String,
    /// The largest distance from CoR, likewise.
    pub cor_max: String,
}

impl FitCells {
    /// Rounds `m` for printing.
    #[must_use]
    pub fn of(m: &FitMeasure) -> Self {
        Self {
            volume: m
                .ratio
                .map_or_else(|| String::from("not measurable"), |r| format!("{r:.4}")),
            cor_mean: format!("{:.3}%", 100.0 * m.cor_mean),
            cor_max: format!("{:.3}%", 100.0 * m.cor_max),
        }
    }

    /// The cells in [`FIT_COLUMNS`]' order.
    #[must_use]
    pub fn cells(&self) -> [&str; 3] {
        [&self.volume, &self.cor_mean, &self.cor_max]
    }
}

/// One row of the printed table: a skinning's label and its rounded numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FitTableRow {
    /// `LBS`, `hybrid fitted`, `CoR`, ...
    pub label: String,
    /// The whole mesh.
    pub whole: FitCells,
    /// The joint's region, when there is one.
    pub region: Option<FitCells>,
}

/// The before/after table as text cells: the one value both `dqview blend`'s lines and the
/// viewer's grid are made from, so they show the same numbers in the same order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FitTable {
    /// The region's joint name, when the rows have a region.
    pub joint: Option<String>,
    /// The rows in [`FitComparison`]'s order.
    pub rows: Vec<FitTableRow>,
}

impl FitTable {
    /// The table as text lines: a heading, then one line per row (the region's numbers beside
    /// the whole mesh's).
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let width = self.rows.iter().map(|r| r.label.len()).max().unwrap_or(0);
        let measure = |c: &FitCells| {
            format!(
                "volume {}, CoR distance {} mean {} max",
                c.volume, c.cor_mean, c.cor_max
            )
        };
        let mut out = vec![match &self.joint {
            Some(name) => format!("{:width$}  whole mesh | region of {name}", ""),
            None => format!("{:width$}  whole mesh", ""),
        }];
        for r in &self.rows {
            let region = r
                .region
                .as_ref()
                .map_or(String::new(), |c| format!(" | {}", measure(c)));
            out.push(format!("{:width$}  {}{region}", r.label, measure(&r.whole)));
        }
        out
    }
}

/// The maps a before/after compares, in order and labelled as `dqview blend` and the viewer
/// both show them: the joint flags' betas, the map before the fit (`painted` or as stored)
/// where it is painted or differs from the flags', then the fitted map.
#[must_use]
pub fn review_maps<'a>(
    flags: &'a SceneBetas,
    before: &'a SceneBetas,
    painted: bool,
    fitted: &'a SceneBetas,
) -> Vec<(&'static str, &'a SceneBetas)> {
    let mut maps = vec![("hybrid joint flags", flags)];
    if painted {
        maps.push(("hybrid painted", before));
    } else if before != flags {
        maps.push(("hybrid as stored", before));
    }
    maps.push(("hybrid fitted", fitted));
    maps
}

impl FitComparison {
    /// The row labelled `label`, if any.
    #[must_use]
    pub fn row(&self, label: &str) -> Option<&FitRow> {
        self.rows.iter().find(|r| r.label == label)
    }

    /// The table rounded for printing (volume ratio to 4 decimals, mean and largest distance
    /// from CoR as % of the diagonal to 3), one row per skinning in order.
    #[must_use]
    pub fn table(&self) -> FitTable {
        FitTable {
            joint: self.joint.clone(),
            rows: self
                .rows
                .iter()
                .map(|r| FitTableRow {
                    label: r.label.clone(),
                    whole: FitCells::of(&r.whole),
                    region: r.region.as_ref().map(FitCells::of),
                })
                .collect(),
        }
    }
}

/// Per posed primitive: whether each vertex is weighted at least the focus threshold to `joint`.
fn region_vertices(scene: &Scene, posed: &[PosedPrimitive], joint: usize) -> Vec<Vec<bool>> {
    posed
        .iter()
        .map(|p| {
            let Some((skin, _, influences)) = p.skinned_source(scene) else {
                return Vec::new();
            };
            let Some(j) = scene
                .skins
                .get(skin)
                .and_then(|s| s.joints.iter().position(|&n| n == joint))
            else {
                return vec![false; p.vertices.positions.len()];
            };
            influences
                .iter()
                .map(|row| {
                    row.iter()
                        .any(|i| i.joint as usize == j && i.weight >= FOCUS_WEIGHT_THRESHOLD)
                })
                .collect()
        })
        .collect()
}

/// Mean and largest distance between `a` and `b` (same primitives in the same order) over the
/// vertices `only` keeps (all when `None`); skinned primitives only.
fn distances(a: &[PosedPrimitive], b: &[PosedPrimitive], only: Option<&[Vec<bool>]>) -> (f32, f32) {
    let (mut sum, mut n, mut max) = (0.0f64, 0usize, 0.0f32);
    for (k, (pa, pb)) in a.iter().zip(b).enumerate() {
        if !pa.skinned {
            continue;
        }
        let keep = only.map(|o| o.get(k).map_or(&[][..], Vec::as_slice));
        for (v, (p, q)) in pa
            .vertices
            .positions
            .iter()
            .zip(&pb.vertices.positions)
            .enumerate()
        {
            if keep.is_some_and(|k| !k.get(v).copied().unwrap_or(false)) {
                continue;
            }
            let d = (*p - *q).length();
            sum += f64::from(d);
            n += 1;
            max = max.max(d);
        }
    }
    if n == 0 {
        (0.0, 0.0)
    } else {
        ((sum / n as f64) as f32, max)
    }
}
