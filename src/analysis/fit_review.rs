//! A blend map before and after a fit, at the pose under review: the whole mesh and one
//! joint's region, each as its volume ratio and its distance from CoR.
//!
//! The viewer's "Fit to CoR" panel and `dqview blend` print this same table, so what the
//! fit did to the pose a rigger is looking at is one number in both.

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
    /// Volume (or area, for open meshes) over the rest pose's.
    pub ratio: f64,
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
                ratio: reference.whole_ratio(scene, posed),
                cor_mean: whole_mean / diagonal,
                cor_max: whole_max / diagonal,
            };
            let region = region.map(|r| {
                let (mean, max) = distances(posed, &cor, in_region.as_deref());
                FitMeasure {
                    ratio: r.ratio(posed),
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

impl FitComparison {
    /// The row labelled `label`, if any.
    #[must_use]
    pub fn row(&self, label: &str) -> Option<&FitRow> {
        self.rows.iter().find(|r| r.label == label)
    }

    /// The table as text lines, one per row (volume ratio, mean and largest distance from CoR
    /// as % of the diagonal; the region's beside the whole mesh's).
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let width = self.rows.iter().map(|r| r.label.len()).max().unwrap_or(0);
        let measure = |m: &FitMeasure| {
            format!(
                "volume {:.4}, CoR distance {:.3}% mean {:.3}% max",
                m.ratio,
                100.0 * m.cor_mean,
                100.0 * m.cor_max
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
                .map_or(String::new(), |m| format!(" | {}", measure(m)));
            out.push(format!("{:width$}  {}{region}", r.label, measure(&r.whole)));
        }
        out
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
