//! One joint region over the samples of an analysis: per mode, its smallest and largest ratio and when.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::AnalyzeOptions;
use super::metrics::{Measure, RestReference};
use super::region::{NotMeasurable, RegionError};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{SkinningMode, skin_scene_cor, skin_scene_hybrid};

/// One mode's region ratios over the samples.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionModeReport {
    /// The mode.
    pub mode: SkinningMode,
    /// The region's ratio to rest at each sample time; `None` where it is not measurable.
    pub ratios: Vec<Option<f64>>,
    /// Smallest measured ratio (`None`: no sample measured).
    pub min_ratio: Option<f64>,
    /// Time of the smallest ratio, seconds (the first such sample).
    pub min_time_s: f32,
    /// Largest measured ratio.
    pub max_ratio: Option<f64>,
    /// Time of the largest ratio, seconds (the first such sample).
    pub max_time_s: f32,
    /// Why the first sample that was not measured was not, and how many were not.
    pub not_measured: Option<(NotMeasurable, usize)>,
}

/// One joint region measured over the samples of [`AnalyzeOptions`].
#[derive(Clone, Debug, PartialEq)]
pub struct RegionAnalysis {
    /// The joint (node index).
    pub joint: usize,
    /// The joint's name.
    pub name: String,
    /// Mesh vertices in the region.
    pub vertices: usize,
    /// Triangles in the region.
    pub triangles: usize,
    /// Openings capped for the volume.
    pub openings: usize,
    /// Volume (closed region, openings capped) or area (see [`super::JointRegion`]).
    pub measure: Measure,
    /// Why the region is not measured at all (then `modes` is empty).
    pub not_measurable: Option<NotMeasurable>,
    /// Sample times in seconds.
    pub times_s: Vec<f32>,
    /// One report per mode (LBS, DQS, hybrid, and CoR when centers were given).
    pub modes: Vec<RegionModeReport>,
}

/// Measures joint node `joint`'s region at the samples `analyze` takes for `options`, in
/// parallel; `progress(done, total)` is called after each sample.
///
/// The hybrid uses `options.hybrid` scaled by `options.hybrid_scale`; CoR is measured when
/// `options.cor_centers` is given. Focus joint and bulge compensation are not used.
/// Errors: the joint has no region ([`RegionError::NoRegion`]).
pub fn analyze_region(
    scene: &Scene,
    options: &AnalyzeOptions,
    joint: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<RegionAnalysis, RegionError> {
    let reference = RestReference::at_rest(scene);
    let region = reference.region_of(scene, joint)?;
    let times_s = super::sample_times(scene, options);
    let modes: Vec<SkinningMode> = SkinningMode::ALL
        .into_iter()
        .filter(|&m| m != SkinningMode::Cor || options.cor_centers.is_some())
        .filter(|_| region.is_measurable())
        .collect();
    let done = AtomicUsize::new(0);
    let rows: Vec<Vec<Result<f64, NotMeasurable>>> = times_s
        .par_iter()
        .map(|&t| {
            let mut pose = Pose::rest(scene);
            pose.sample(scene, options.clip, t, &options.overrides);
            let row = modes
                .iter()
                .map(|&mode| {
                    let posed = match (mode, &options.cor_centers) {
                        (SkinningMode::Cor, Some(centers)) => skin_scene_cor(scene, &pose, centers),
                        _ => skin_scene_hybrid(
                            scene,
                            &pose,
                            mode,
                            &options.hybrid,
                            options.hybrid_scale,
                        ),
                    };
                    region.ratio(&posed)
                })
                .collect();
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, times_s.len());
            row
        })
        .collect();
    let modes = modes
        .iter()
        .enumerate()
        .map(|(m, &mode)| {
            let ratios: Vec<_> = rows.iter().filter_map(|r| r.get(m).copied()).collect();
            mode_report(mode, &ratios, &times_s)
        })
        .collect();
    Ok(RegionAnalysis {
        joint,
        name: scene
            .nodes
            .get(joint)
            .map_or_else(String::new, |n| n.name.clone()),
        vertices: region.vertices,
        triangles: region.triangles,
        openings: region.openings,
        measure: region.measure,
        not_measurable: region.not_measurable,
        times_s,
        modes,
    })
}

/// Smallest and largest of one mode's measured ratios, with their (first) sample times.
fn mode_report(
    mode: SkinningMode,
    ratios: &[Result<f64, NotMeasurable>],
    times_s: &[f32],
) -> RegionModeReport {
    let time = |i: Option<usize>| i.and_then(|i| times_s.get(i)).copied().unwrap_or(0.0);
    let measured = || {
        ratios
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, *r.as_ref().ok()?)))
    };
    let min = measured().min_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
    let max = measured().max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
    let missing = ratios.iter().filter(|r| r.is_err()).count();
    let first_reason = ratios.iter().find_map(|r| r.err());
    RegionModeReport {
        mode,
        min_ratio: min.map(|m| m.1),
        min_time_s: time(min.map(|m| m.0)),
        max_ratio: max.map(|m| m.1),
        max_time_s: time(max.map(|m| m.0)),
        ratios: ratios.iter().map(|r| r.ok()).collect(),
        not_measured: first_reason.map(|why| (why, missing)),
    }
}
