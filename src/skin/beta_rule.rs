//! The one rule for a hybrid's per-vertex betas, used by every command and the viewer.
//!
//! Sources, in order: a uniform override (`--beta B`) wins everywhere; else a map given by the
//! caller (painted or fitted in the viewer), else the file's `_DQS_BLEND` (or FBX DQ weights),
//! used as stored; joint flags where a primitive has neither (or everywhere with
//! [`BetaChoice::JointFlags`], `render --hybrid-auto`). A strength (the viewer's control, 1 as
//! stored) multiplies the result. The betas come out spelled per vertex, so every consumer
//! skins with a scale of 1 and nothing multiplies them again.

use super::{HybridFlags, SceneBetas};
use crate::anim::JointOverrides;
use crate::scene::Scene;

/// Which source decides the betas.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum BetaChoice {
    /// The map as stored (the caller's, else the file's), joint flags where there is none.
    #[default]
    Stored,
    /// Joint flags everywhere, even where a map exists.
    JointFlags,
    /// One beta for every vertex, over any map or flags.
    Uniform(f32),
}

/// What a hybrid's betas may come from.
#[derive(Clone, Copy, Debug)]
pub struct BetaSources<'a> {
    /// Which source wins.
    pub choice: BetaChoice,
    /// A map that replaces the file's where it has a primitive's betas (painted or fitted).
    pub map: Option<&'a SceneBetas>,
    /// Joint flags per skin; `None`: the defaults for `clip` and `overrides`.
    pub flags: Option<&'a [HybridFlags]>,
    /// The clip the default flags look at.
    pub clip: Option<usize>,
    /// The joint angles the default flags look at.
    pub overrides: &'a JointOverrides,
    /// Multiplies every beta (1: as stored).
    pub strength: f32,
}

impl<'a> BetaSources<'a> {
    /// The map as stored, default joint flags where there is none, at full strength.
    #[must_use]
    pub fn stored(clip: Option<usize>, overrides: &'a JointOverrides) -> Self {
        Self {
            choice: BetaChoice::Stored,
            map: None,
            flags: None,
            clip,
            overrides,
            strength: 1.0,
        }
    }
}

/// Where one primitive's betas came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Given,
    File,
    Flags,
    Uniform,
}

/// A hybrid's betas and where they came from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HybridBetas {
    /// One beta per vertex of every skinned primitive (empty lists elsewhere), strength applied.
    pub betas: SceneBetas,
    /// Where they came from, for a label or a line (`file _DQS_BLEND`, `joint flags`, ...).
    pub source: String,
    /// A line for stderr when an override replaces a stored map (`None`: nothing to say).
    pub notice: Option<String>,
}

/// Decides every skinned primitive's betas from `sources` (see the module comment).
#[must_use]
pub fn hybrid_betas(scene: &Scene, sources: &BetaSources<'_>) -> HybridBetas {
    let default_flags: Vec<HybridFlags>;
    let flags = match sources.flags {
        Some(f) => f,
        None => {
            default_flags = (0..scene.skins.len())
                .map(|s| HybridFlags::defaults(scene, s, sources.clip, sources.overrides))
                .collect();
            &default_flags
        }
    };
    let strength = if sources.strength.is_finite() {
        sources.strength.clamp(0.0, 1.0)
    } else {
        1.0
    };
    let mut per_primitive: Vec<Vec<Vec<f32>>> = scene
        .meshes
        .iter()
        .map(|m| vec![Vec::new(); m.primitives.len()])
        .collect();
    let mut origins: Vec<Origin> = Vec::new();
    let mut stored_maps = 0usize;
    for node in &scene.nodes {
        let (Some(m), Some(skin)) = (node.mesh, node.skin) else {
            continue;
        };
        let (Some(mesh), Some(f)) = (scene.meshes.get(m), flags.get(skin)) else {
            continue;
        };
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let Some(influences) = &prim.influences else {
                continue;
            };
            let n = prim.positions.len();
            let given = sources
                .map
                .map(|map| map.of(m, p))
                .filter(|b| b.len() == n && n > 0);
            let file = prim.dqs_blend.as_deref().filter(|b| b.len() == n);
            stored_maps += usize::from(given.is_some() || file.is_some());
            let (betas, origin) = match (sources.choice, given, file) {
                (BetaChoice::Uniform(b), _, _) => (vec![b; n], Origin::Uniform),
                (BetaChoice::JointFlags, _, _) => (f.betas(influences, None), Origin::Flags),
                (BetaChoice::Stored, Some(g), _) => (clean(g), Origin::Given),
                (BetaChoice::Stored, None, Some(b)) => (clean(b), Origin::File),
                (BetaChoice::Stored, None, None) => (f.betas(influences, None), Origin::Flags),
            };
            per_primitive[m][p] = betas
                .iter()
                .map(|b| (b * strength).clamp(0.0, 1.0))
                .collect();
            origins.push(origin);
        }
    }
    let source = describe(&origins, sources.choice, strength);
    let notice = notice(sources.choice, stored_maps, origins.len());
    HybridBetas {
        betas: SceneBetas { per_primitive },
        source,
        notice,
    }
}

/// Betas in [0, 1], NaN as 1 (DQS), as the skinning reads them.
fn clean(betas: &[f32]) -> Vec<f32> {
    betas
        .iter()
        .map(|b| if b.is_nan() { 1.0 } else { b.clamp(0.0, 1.0) })
        .collect()
}

/// The sources in words, with the strength when it is not 1.
fn describe(origins: &[Origin], choice: BetaChoice, strength: f32) -> String {
    let count = |o: Origin| origins.iter().filter(|&&x| x == o).count();
    let total = origins.len();
    let mut text = match choice {
        BetaChoice::Uniform(b) => format!("uniform {b:.2} (--beta)"),
        _ if total == 0 => "no skinned primitive".to_string(),
        _ => {
            let parts: Vec<String> = [
                (Origin::Given, "painted/fitted map"),
                (Origin::File, "file _DQS_BLEND"),
                (Origin::Flags, "joint flags"),
            ]
            .into_iter()
            .filter_map(|(o, name)| match count(o) {
                0 => None,
                n if n == total => Some(name.to_string()),
                n => Some(format!("{name} on {n} of {total} skinned primitives")),
            })
            .collect();
            parts.join(", ")
        }
    };
    if strength != 1.0 {
        text.push_str(&format!(" x {strength:.2}"));
    }
    text
}

/// What an override replaces, for stderr.
fn notice(choice: BetaChoice, stored_maps: usize, total: usize) -> Option<String> {
    match choice {
        BetaChoice::Uniform(b) if stored_maps > 0 => Some(format!(
            "--beta {b}: one beta for every vertex, over the stored blend map of \
             {stored_maps} of {total} skinned primitives (drop --beta to use the map)"
        )),
        BetaChoice::Uniform(b) => Some(format!(
            "--beta {b}: one beta for every vertex instead of the joint flags"
        )),
        BetaChoice::JointFlags if stored_maps > 0 => Some(format!(
            "--hybrid-auto: joint flags over the stored blend map of {stored_maps} of {total} \
             skinned primitives"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::builtin_scene;

    fn skinned(scene: &Scene) -> (usize, usize, usize) {
        for node in &scene.nodes {
            if let (Some(m), Some(_)) = (node.mesh, node.skin) {
                for (p, prim) in scene.meshes[m].primitives.iter().enumerate() {
                    if prim.influences.is_some() {
                        return (m, p, prim.positions.len());
                    }
                }
            }
        }
        panic!("no skinned primitive");
    }

    #[test]
    fn stored_map_wins_as_stored_then_overrides_say_so() {
        let mut scene = builtin_scene("twist").expect("builtin");
        let (m, p, n) = skinned(&scene);
        let none = JointOverrides::new();
        // No map: the joint flags, no notice.
        let flags = hybrid_betas(&scene, &BetaSources::stored(None, &none));
        assert_eq!(flags.source, "joint flags");
        assert_eq!(flags.notice, None);
        let stored: Vec<f32> = (0..n).map(|i| (i % 7) as f32 / 6.0).collect();
        scene.meshes[m].primitives[p].dqs_blend = Some(stored.clone());
        let got = hybrid_betas(&scene, &BetaSources::stored(None, &none));
        assert_eq!(got.betas.of(m, p), stored.as_slice());
        assert_eq!(got.source, "file _DQS_BLEND");
        // A given map replaces the file's; strength scales it and says so.
        let painted = SceneBetas {
            per_primitive: {
                let mut pp = got.betas.per_primitive.clone();
                pp[m][p] = vec![0.8; n];
                pp
            },
        };
        let half = BetaSources {
            map: Some(&painted),
            strength: 0.5,
            ..BetaSources::stored(None, &none)
        };
        let got = hybrid_betas(&scene, &half);
        assert!(got.betas.of(m, p).iter().all(|&b| (b - 0.4).abs() < 1e-6));
        assert_eq!(got.source, "painted/fitted map x 0.50");
        // --beta: uniform over the map, with a notice naming it.
        let uniform = BetaSources {
            choice: BetaChoice::Uniform(0.3),
            ..BetaSources::stored(None, &none)
        };
        let got = hybrid_betas(&scene, &uniform);
        assert_eq!(got.betas.of(m, p), vec![0.3; n].as_slice());
        assert!(
            got.notice
                .as_deref()
                .is_some_and(|t| t.contains("over the stored"))
        );
        // --hybrid-auto: the flags even with a map.
        let auto = BetaSources {
            choice: BetaChoice::JointFlags,
            ..BetaSources::stored(None, &none)
        };
        let got = hybrid_betas(&scene, &auto);
        assert_eq!(got.betas.of(m, p), flags.betas.of(m, p));
        assert_ne!(got.betas.of(m, p), stored.as_slice());
    }
}
