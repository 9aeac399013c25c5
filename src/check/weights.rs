//! Influence rules: `weights_not_normalized`, `zero_weight_vertices`, `influences_over_8`.

use super::{CheckOptions, Finding, Rule};
use crate::influences::Influences;
use crate::scene::Scene;

/// Influences the GPU keeps per vertex at most; heavier ones past this are dropped.
const KEPT_INFLUENCES: usize = 8;

/// Every skinned primitive's influences once (a mesh drawn by several skinned nodes counts once),
/// with a label naming the mesh and primitive.
fn skinned_influences(scene: &Scene) -> Vec<(String, &Influences)> {
    let mut out = Vec::new();
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let skinned = scene
            .nodes
            .iter()
            .any(|n| n.mesh == Some(m) && n.skin.is_some());
        if !skinned {
            continue;
        }
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if let Some(influences) = &prim.influences {
                out.push((
                    format!("mesh {m} \"{}\" primitive {p}", mesh.name),
                    influences,
                ));
            }
        }
    }
    out
}

/// The influence rules' findings for `scene`.
#[must_use]
pub(super) fn check(scene: &Scene, options: &CheckOptions) -> Vec<Finding> {
    let all = skinned_influences(scene);
    let mut findings = Vec::new();
    findings.extend(not_normalized(&all, options.weight_tolerance));
    let zero: usize = all.iter().map(|(_, i)| i.unweighted_vertices()).sum();
    if zero > 0 {
        let mut f = Finding::new(
            Rule::ZeroWeightVertices,
            format!(
                "{zero} skinned vertices have weights summing to 0 (they stay at their bind position; many engines move them to the origin)"
            ),
        );
        f.count = Some(zero);
        findings.push(f);
    }
    findings.extend(over_8(&all));
    findings
}

/// `weights_not_normalized`: vertices whose stored sums are off 1 by more than `tolerance`.
fn not_normalized(all: &[(String, &Influences)], tolerance: f32) -> Option<Finding> {
    let mut count = 0;
    let mut worst: Option<(f32, &str)> = None;
    for (label, influences) in all {
        let (n, w) = influences.sums_off_by(tolerance);
        count += n;
        if let Some(w) = w
            && worst.is_none_or(|(best, _)| (w - 1.0).abs() > (best - 1.0).abs())
        {
            worst = Some((w, label));
        }
    }
    let (sum, label) = worst?;
    let mut f = Finding::new(
        Rule::WeightsNotNormalized,
        format!(
            "{count} vertices have weights summing off 1 by more than {tolerance}; worst sum {sum:.4} ({label})"
        ),
    );
    f.count = Some(count);
    f.worst_sum = Some(sum);
    Some(f)
}

/// `influences_over_8`: vertices with more influences than the GPU keeps.
fn over_8(all: &[(String, &Influences)]) -> Option<Finding> {
    let mut count = 0;
    let mut most = 0;
    let mut dropped = 0.0f32;
    for (_, influences) in all {
        count += influences.vertices_with_more_than(KEPT_INFLUENCES);
        most = most.max(influences.max_influences());
        for row in influences.iter() {
            // Rows are sorted heaviest first: entry 8 is the heaviest one dropped.
            if let Some(first_dropped) = row.get(KEPT_INFLUENCES) {
                dropped = dropped.max(first_dropped.weight);
            }
        }
    }
    if count == 0 {
        return None;
    }
    let mut f = Finding::new(
        Rule::InfluencesOver8,
        format!(
            "{count} vertices have more than {KEPT_INFLUENCES} influences (up to {most}); the heaviest weight dropped is {dropped:.4}"
        ),
    );
    f.count = Some(count);
    f.max_influences = Some(most);
    f.largest_dropped_weight = Some(dropped);
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_8_reports_the_heaviest_dropped_weight() {
        let row: Vec<(u16, f32)> = (0..10u16).map(|j| (j, 0.1 + f32::from(j) * 0.01)).collect();
        let inf = Influences::from_rows([row, vec![(0, 1.0)]]);
        let f = over_8(&[(String::from("p"), &inf)]).expect("one vertex over 8");
        assert_eq!(f.count, Some(1));
        assert_eq!(f.max_influences, Some(10));
        // The 9th heaviest is joint 1 (0.11) of a total of 1.45.
        let expected = 0.11 / 1.45;
        assert!((f.largest_dropped_weight.unwrap() - expected).abs() < 1e-6);
    }

    #[test]
    fn sums_within_tolerance_pass() {
        let inf = Influences::from_rows([vec![(0, 0.5), (1, 0.5005)], vec![(0, 0.9)]]);
        let all = [(String::from("p"), &inf)];
        let f = not_normalized(&all, 1e-3).expect("0.9 is off by 0.1");
        assert_eq!((f.count, f.worst_sum), (Some(1), Some(0.9)));
        assert!(not_normalized(&all, 0.2).is_none());
    }
}
