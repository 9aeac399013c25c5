//! The guard before an analysis is printed: every number it holds must be finite.
//!
//! A file's values are range-checked at load ([`crate::scene::check_ranges`]), so a
//! non-finite measure means a pose overflowed f32 anyway (a chain of scaled joints); the
//! command then refuses to print rather than show `null`, `NaN` or `inf`.

use super::{Analysis, RegionAnalysis};

/// The first of `values` that is not finite, with its field name.
fn first_bad<'a>(values: impl IntoIterator<Item = (&'a str, f64)>) -> Option<(String, f64)> {
    values
        .into_iter()
        .find(|(_, v)| !v.is_finite())
        .map(|(name, v)| (name.to_owned(), v))
}

impl Analysis {
    /// The first number that is not finite, as (field, value); `None` when all are finite.
    #[must_use]
    pub fn first_non_finite(&self) -> Option<(String, f64)> {
        let times = self.times_s.iter().map(|&t| ("times", f64::from(t)));
        let top = [
            (
                "max_lbs_dqs_displacement",
                f64::from(self.max_lbs_dqs_displacement),
            ),
            (
                "max_lbs_dqs_displacement_relative",
                f64::from(self.max_lbs_dqs_displacement_relative),
            ),
            (
                "max_displacement_time",
                f64::from(self.max_displacement_time_s),
            ),
        ];
        if let Some(bad) = first_bad(times.chain(top)) {
            return Some(bad);
        }
        for m in &self.modes {
            let optional = [
                ("min_radius", m.min_radius),
                ("bulge", m.bulge),
                ("cor_distance", m.cor_distance),
            ];
            let values = [
                ("min_volume_ratio", m.min_ratio),
                ("max_volume_ratio", m.max_ratio),
                ("worst_time", f64::from(m.worst_time_s)),
            ]
            .into_iter()
            .chain(m.ratios.iter().map(|&r| ("ratios", r)))
            .chain(m.worst_joints.iter().map(|j| ("worst_joints ratio", j.2)))
            .chain(
                optional
                    .into_iter()
                    .filter_map(|(n, v)| v.map(|v| (n, f64::from(v)))),
            );
            if let Some((field, v)) = first_bad(values) {
                return Some((format!("{} {field}", m.mode.name()), v));
            }
        }
        let c = self.dqs_compensated.as_ref()?;
        let bulge = c.bulge.map(|b| ("dqs_compensated bulge", f64::from(b)));
        first_bad(
            [
                ("dqs_compensated min_volume_ratio", c.min_ratio),
                ("dqs_compensated max_volume_ratio", c.max_ratio),
            ]
            .into_iter()
            .chain(bulge),
        )
    }
}

impl RegionAnalysis {
    /// The first number that is not finite, as (field, value); `None` when all are finite.
    #[must_use]
    pub fn first_non_finite(&self) -> Option<(String, f64)> {
        let times = self.times_s.iter().map(|&t| ("times", f64::from(t)));
        if let Some(bad) = first_bad(times) {
            return Some(bad);
        }
        self.modes.iter().find_map(|m| {
            let values = [
                ("min_ratio", m.min_ratio),
                ("max_ratio", m.max_ratio),
                ("min_time", Some(f64::from(m.min_time_s))),
                ("max_time", Some(f64::from(m.max_time_s))),
            ]
            .into_iter()
            .chain(m.ratios.iter().map(|&r| ("ratios", r)))
            .filter_map(|(field, v)| Some((field, v?)));
            first_bad(values).map(|(field, v)| (format!("{} {field}", m.mode.name()), v))
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::{AnalyzeOptions, analyze};

    #[test]
    fn a_finite_analysis_passes_and_one_overflow_is_named() {
        let scene = crate::builtin::builtin_scene("twist").unwrap();
        let options = AnalyzeOptions {
            clip: Some(0),
            samples: 3,
            hybrid_scale: 1.0,
            ..AnalyzeOptions::default()
        };
        let mut analysis = analyze(&scene, &options, &|_, _| {});
        assert_eq!(analysis.first_non_finite(), None);
        analysis.modes[1].ratios[2] = f64::NAN;
        let (field, _) = analysis.first_non_finite().unwrap();
        assert_eq!(field, format!("{} ratios", analysis.modes[1].mode.name()));
        analysis.max_lbs_dqs_displacement = f32::INFINITY;
        assert_eq!(
            analysis.first_non_finite(),
            Some(("max_lbs_dqs_displacement".to_owned(), f64::INFINITY))
        );
    }
}
