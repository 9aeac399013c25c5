//! Crowds: where each of K instances of a scene stands and which clip time it plays.
//!
//! A crowd is a [`super::SceneGpu`] with K instances: one palette per instance in the
//! shared palette store, drawn by instancing (vertex path) or skinned by one compute
//! dispatch per primitive for every instance (compute path).

use glam::Vec3;

/// Where the skinning of a scene's draws runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SkinPath {
    /// In the vertex shader of every draw.
    #[default]
    Vertex,
    /// In a compute pass into a buffer, then a draw that reads it.
    Compute,
}

impl SkinPath {
    /// Lower-case name (`vertex`, `compute`), as the CLI spells it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Vertex => "vertex",
            Self::Compute => "compute",
        }
    }

    /// Parses a name, ignoring case.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Vertex, Self::Compute]
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
    }
}

/// Grid cells for `instances` models of size `extent`: columns along x, rows along z, centred.
#[must_use]
pub fn grid_offsets(instances: usize, extent: Vec3) -> Vec<Vec3> {
    let instances = instances.max(1);
    let columns = (instances as f64).sqrt().ceil().max(1.0) as usize;
    let rows = instances.div_ceil(columns);
    // A model's footprint plus a fifth between neighbours; never zero (a flat model).
    let spacing = (extent.x.max(extent.z) * 1.2).max(extent.y * 0.5).max(1e-3);
    (0..instances)
        .map(|i| {
            let column = (i % columns) as f32 - (columns - 1) as f32 * 0.5;
            let row = (i / columns) as f32 - (rows - 1) as f32 * 0.5;
            Vec3::new(column * spacing, 0.0, row * spacing)
        })
        .collect()
}

/// Clip time of `instance` of `instances` when the crowd is at `time_s`: offset by
/// `instance * duration / instances`, wrapped into the clip.
#[must_use]
pub fn instance_time_s(instance: usize, instances: usize, time_s: f32, duration_s: f32) -> f32 {
    if duration_s <= 0.0 || !duration_s.is_finite() {
        return time_s;
    }
    let k = instances.max(1) as f32;
    (time_s + instance as f32 * duration_s / k).rem_euclid(duration_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_is_centred_and_cells_do_not_overlap() {
        let extent = Vec3::new(2.0, 3.0, 1.0);
        let cells = grid_offsets(5, extent);
        assert_eq!(cells.len(), 5);
        let centre = cells.iter().sum::<Vec3>() / 5.0;
        assert!(centre.x.abs() < 2.0 && centre.z.abs() < 2.0, "{centre}");
        for (i, a) in cells.iter().enumerate() {
            for b in &cells[i + 1..] {
                let d = (*a - *b).abs();
                assert!(d.x >= 2.0 || d.z >= 2.0, "{a} {b}");
            }
        }
        assert_eq!(grid_offsets(1, extent), vec![Vec3::ZERO]);
    }

    #[test]
    fn instance_times_spread_over_the_clip() {
        assert!((instance_time_s(1, 4, 0.5, 2.0) - 1.0).abs() < 1e-6);
        assert!(
            (instance_time_s(3, 4, 1.0, 2.0) - 0.5).abs() < 1e-6,
            "wraps"
        );
        assert_eq!(
            instance_time_s(2, 4, 0.7, 0.0),
            0.7,
            "no clip: the time as given"
        );
    }

    #[test]
    fn path_names_round_trip() {
        for p in [SkinPath::Vertex, SkinPath::Compute] {
            assert_eq!(SkinPath::from_name(p.name()), Some(p));
        }
        assert_eq!(SkinPath::from_name("COMPUTE"), Some(SkinPath::Compute));
        assert_eq!(SkinPath::from_name("mesh"), None);
    }
}
