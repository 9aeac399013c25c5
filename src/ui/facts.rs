//! The Model section: counts and warnings of the loaded model.

use crate::scene::Scene;

/// What the Model section shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelFacts {
    /// Where the model came from.
    pub source: String,
    /// Vertices over all primitives.
    pub vertices: usize,
    /// Triangles over all primitives.
    pub triangles: usize,
    /// Joints over all skins.
    pub joints: usize,
    /// Skins.
    pub skins: usize,
    /// Most influences on one vertex.
    pub max_influences: usize,
    /// Loader warnings.
    pub warnings: Vec<String>,
    /// Where the rest pose is not the bind pose ([`crate::analysis::rest_bind`]): the line
    /// `inspect` prints; `None` where it is.
    pub rest_bind: Option<String>,
    /// The same as two short lines for the heat views' colour bar.
    pub rest_bind_legend: Option<[String; 2]>,
}

impl ModelFacts {
    /// Counts the facts of `scene`.
    #[must_use]
    pub fn of(scene: &Scene) -> Self {
        let primitives = scene.meshes.iter().flat_map(|m| &m.primitives);
        let mut facts = Self {
            source: scene.source.clone(),
            skins: scene.skins.len(),
            joints: scene.skins.iter().map(|s| s.joints.len()).sum(),
            warnings: scene.warning_lines(),
            ..Self::default()
        };
        let rest_bind = crate::analysis::rest_bind(scene);
        facts.rest_bind = rest_bind.text();
        facts.rest_bind_legend = rest_bind.legend_lines();
        for p in primitives {
            facts.vertices += p.positions.len();
            facts.triangles += p.triangles().len() / 3;
            let max = p.influences.as_ref().map_or(0, |i| i.max_influences());
            facts.max_influences = facts.max_influences.max(max);
        }
        facts
    }
}

/// Shows the facts as a two-column grid, then the warnings.
pub fn facts_ui(ui: &mut egui::Ui, facts: &ModelFacts) {
    egui::Grid::new("model_facts")
        .num_columns(2)
        .show(ui, |ui| {
            for (k, v) in [
                ("vertices", facts.vertices),
                ("triangles", facts.triangles),
                ("skins", facts.skins),
                ("joints", facts.joints),
                ("max influences", facts.max_influences),
            ] {
                ui.label(k);
                ui.label(v.to_string());
                ui.end_row();
            }
        });
    if let Some(rest) = &facts.rest_bind {
        ui.label(format!("{rest}: the heat views show colour there at rest"));
    }
    if facts.warnings.is_empty() {
        ui.label("no warnings");
    }
    for w in &facts.warnings {
        ui.colored_label(egui::Color32::from_rgb(240, 200, 90), format!("⚠ {w}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_of_builtin_twist() {
        let scene = crate::model::load_model("builtin:twist").unwrap();
        let f = ModelFacts::of(&scene);
        assert!(f.vertices > 0 && f.triangles > 0);
        assert_eq!(f.skins, 1);
        assert!(f.joints >= 2);
        assert!(f.max_influences >= 1);
        assert_eq!(f.source, "builtin:twist");
        assert_eq!((f.rest_bind, f.rest_bind_legend), (None, None));
    }
}
