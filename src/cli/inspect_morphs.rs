//! `dqview inspect`'s morph facts: targets per mesh, their default weights, the clips that animate them.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::scene::{Property, Scene};

/// One entry per mesh with morph targets: target names, default weights, animating clips.
#[must_use]
pub fn morph_facts(scene: &Scene) -> Vec<Value> {
    scene
        .meshes
        .iter()
        .enumerate()
        .filter_map(|(m, mesh)| {
            let count = mesh
                .primitives
                .iter()
                .map(|p| p.morph_targets.len())
                .max()
                .unwrap_or(0);
            if count == 0 {
                return None;
            }
            // A target's name is on whichever primitive carries one (glTF names them per mesh).
            let names: Vec<String> = (0..count)
                .map(|t| {
                    mesh.primitives
                        .iter()
                        .filter_map(|p| p.morph_targets.get(t))
                        .map(|target| target.name.clone())
                        .find(|name| !name.is_empty())
                        .unwrap_or_else(|| format!("target {t}"))
                })
                .collect();
            let animated_by: Vec<usize> = scene
                .animations
                .iter()
                .enumerate()
                .filter(|(_, clip)| {
                    clip.channels.iter().any(|c| {
                        matches!(c.property, Property::MorphWeights(_))
                            && scene.nodes.get(c.node).and_then(|n| n.mesh) == Some(m)
                    })
                })
                .map(|(i, _)| i)
                .collect();
            Some(json!({
                "mesh": m,
                "mesh_name": mesh.name,
                "targets": names,
                "default_weights": mesh.morph_weights,
                "animated_by": animated_by,
            }))
        })
        .collect()
}

/// The text lines of [`morph_facts`] (`morph_targets` of the JSON).
pub fn text_lines(s: &mut String, f: &Value) {
    let meshes = f["morph_targets"].as_array().cloned().unwrap_or_default();
    let total: usize = meshes
        .iter()
        .map(|m| m["targets"].as_array().map_or(0, Vec::len))
        .sum();
    let plural = if meshes.len() == 1 { "" } else { "es" };
    let _ = writeln!(
        s,
        "morphs      {total} targets on {} mesh{plural}",
        meshes.len()
    );
    for m in &meshes {
        let names = m["targets"].as_array().cloned().unwrap_or_default();
        let weights = m["default_weights"].as_array().cloned().unwrap_or_default();
        let targets: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let weight = weights.get(i).and_then(Value::as_f64).unwrap_or(0.0);
                format!("{} = {weight:.3}", name.as_str().unwrap_or(""))
            })
            .collect();
        let clips: Vec<String> = m["animated_by"]
            .as_array()
            .map(|a| a.iter().map(|c| format!("clip {c}")).collect())
            .unwrap_or_default();
        let animated = if clips.is_empty() {
            String::from("not animated")
        } else {
            format!("animated by {}", clips.join(", "))
        };
        let _ = writeln!(
            s,
            "  mesh {} \"{}\": {}; {animated}",
            m["mesh"],
            m["mesh_name"].as_str().unwrap_or(""),
            targets.join(", ")
        );
    }
}
