//! `dqview inspect`'s surface facts: vertex colours per primitive, alpha mode per material.

use serde_json::{Value, json};

use crate::scene::Scene;

/// Primitives listed one per line in the text report; `--json` has them all.
const MAX_LISTED: usize = 32;

/// One entry per primitive: mesh, index, vertex count, topology (`triangles`, or a USD curve's
/// `lines` and `points`) and its element count, whether it has vertex colours, material.
#[must_use]
pub fn primitive_facts(scene: &Scene) -> Vec<Value> {
    scene
        .meshes
        .iter()
        .enumerate()
        .flat_map(|(m, mesh)| {
            mesh.primitives.iter().enumerate().map(move |(p, prim)| {
                json!({
                    "mesh": m,
                    "mesh_name": mesh.name,
                    "primitive": p,
                    "vertices": prim.positions.len(),
                    "topology": prim.topology.name(),
                    "elements": prim.indices.len() / prim.topology.arity(),
                    "vertex_colors": prim.colors.is_some(),
                    "material": prim.material,
                })
            })
        })
        .collect()
}

/// One entry per material: name, alpha mode (glTF's name), cutoff (MASK only), double-sidedness.
#[must_use]
pub fn material_facts(scene: &Scene) -> Vec<Value> {
    scene
        .materials
        .iter()
        .map(|m| {
            json!({
                "name": m.name,
                "alpha_mode": m.alpha_mode.name(),
                "alpha_cutoff": m.alpha_mode.cutoff(),
                "double_sided": m.double_sided,
                "textured": m.base_color_texture.is_some(),
            })
        })
        .collect()
}

/// The text lines of the facts above (`primitive_list` and `materials` of the JSON).
pub fn text_lines(s: &mut String, f: &Value) {
    use std::fmt::Write;
    let primitives = f["primitive_list"].as_array().cloned().unwrap_or_default();
    let colored = primitives
        .iter()
        .filter(|p| p["vertex_colors"].as_bool() == Some(true))
        .count();
    let _ = writeln!(
        s,
        "colours     {colored} of {} primitives have vertex colours",
        primitives.len()
    );
    for p in primitives.iter().take(MAX_LISTED) {
        let material = p["material"]
            .as_u64()
            .map_or_else(|| "no material".to_owned(), |m| format!("material {m}"));
        let colours = if p["vertex_colors"].as_bool() == Some(true) {
            "vertex colours"
        } else {
            "no vertex colours"
        };
        // Triangles are said by the totals; a USD curve's or point set's kind is said here.
        let shape = match p["topology"].as_str() {
            Some("lines") => format!(" ({} line segments)", p["elements"]),
            Some("points") => String::from(" (points)"),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "  mesh {} \"{}\" primitive {}: {} vertices{shape}, {colours}, {material}",
            p["mesh"],
            p["mesh_name"].as_str().unwrap_or(""),
            p["primitive"],
            p["vertices"]
        );
    }
    if primitives.len() > MAX_LISTED {
        let _ = writeln!(
            s,
            "  ... {} more (all in --json)",
            primitives.len() - MAX_LISTED
        );
    }
    let materials = f["materials"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(s, "materials   {}", materials.len());
    for (i, m) in materials.iter().enumerate() {
        let cutoff = m["alpha_cutoff"]
            .as_f64()
            .map_or_else(String::new, |c| format!(" (cutoff {c})"));
        let _ = writeln!(
            s,
            "  {i} \"{}\": {}{cutoff}{}",
            m["name"].as_str().unwrap_or(""),
            m["alpha_mode"].as_str().unwrap_or(""),
            if m["double_sided"].as_bool() == Some(true) {
                ", double-sided"
            } else {
                ""
            }
        );
    }
}
