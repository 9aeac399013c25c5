//! Poses to test skinning at, and the GPU-against-CPU comparison of posed primitives.

use dqview::anim::{JointAngles, JointOverrides, Pose, clip_duration_s};
use dqview::scene::Scene;
use dqview::skin::{Betas, PosedPrimitive, SkinningMode, bounds, skin_scene};

/// Positions may differ by this fraction of the bounding-box diagonal.
pub const POSITION_TOLERANCE: f32 = 1e-5;
/// Unit normals may differ by this much.
pub const NORMAL_TOLERANCE: f32 = 1e-3;

/// Asserts that `gpu` matches `cpu` (positions within [`POSITION_TOLERANCE`] of the diagonal,
/// normals within [`NORMAL_TOLERANCE`]); returns the worst relative position error.
pub fn assert_posed_match(what: &str, cpu: &[PosedPrimitive], gpu: &[PosedPrimitive]) -> f32 {
    let (lo, hi) = bounds(cpu).expect("vertices");
    let diagonal = (hi - lo).length().max(1e-6);
    assert_eq!(cpu.len(), gpu.len(), "{what}: primitive count");
    let mut worst = 0.0f32;
    for (c, g) in cpu.iter().zip(gpu) {
        let (cv, gv) = (&c.vertices, &g.vertices);
        assert_eq!(
            cv.positions.len(),
            gv.positions.len(),
            "{what}: vertex count"
        );
        for (v, (a, b)) in cv.positions.iter().zip(&gv.positions).enumerate() {
            let rel = (*a - *b).length() / diagonal;
            worst = worst.max(rel);
            assert!(
                rel <= POSITION_TOLERANCE,
                "{what} node {} vertex {v}: CPU {a} GPU {b} ({rel:e} of the diagonal)",
                c.node
            );
        }
        for (v, (a, b)) in cv.normals.iter().zip(&gv.normals).enumerate() {
            assert!(
                (*a - *b).length() <= NORMAL_TOLERANCE,
                "{what} node {} vertex {v}: normal CPU {a} GPU {b}",
                c.node
            );
        }
    }
    worst
}

/// Rest; clip 0 at `clip_fractions` of its length; and, per angle of `twists_deg`, that twist
/// (with a bend of twist / `bend_divisor`) on the first three joints with children, on top of
/// clip 0 at its start when `on_clip` (else the rest pose).
pub fn test_poses(
    scene: &Scene,
    clip_fractions: &[f32],
    twists_deg: &[f32],
    bend_divisor: f32,
    on_clip: bool,
) -> Vec<(String, Pose)> {
    let mut out = vec![("rest".to_string(), Pose::rest(scene))];
    if let Some(anim) = scene.animations.first() {
        let d = clip_duration_s(anim);
        for f in clip_fractions {
            let t = f * d;
            let mut pose = Pose::rest(scene);
            pose.sample(scene, Some(0), t, &JointOverrides::new());
            out.push((format!("clip 0 at {t:.3} s"), pose));
        }
    }
    let joints: Vec<usize> = scene
        .skins
        .iter()
        .flat_map(|s| s.joints.iter().copied())
        .filter(|&j| !scene.nodes[j].children.is_empty())
        .take(3)
        .collect();
    let base_clip = scene.animations.first().filter(|_| on_clip).map(|_| 0);
    for &deg in twists_deg {
        let mut overrides = JointOverrides::new();
        for &j in &joints {
            overrides.set(
                j,
                JointAngles {
                    twist_deg: deg,
                    bend_deg: deg / bend_divisor,
                    roll_deg: 0.0,
                },
            );
        }
        let mut pose = Pose::rest(scene);
        pose.sample(scene, base_clip, 0.0, &overrides);
        out.push((format!("twist {deg}"), pose));
    }
    out
}

/// The CPU reference posing of `scene` in `mode`: about `centers` for CoR, with per-vertex
/// `betas` (scale 1) for hybrid, else the uniform beta 1.
pub fn cpu_posed(
    scene: &dqview::scene::Scene,
    pose: &dqview::anim::Pose,
    mode: dqview::skin::SkinningMode,
    betas: Option<&dqview::skin::SceneBetas>,
    centers: Option<&dqview::skin::SceneCenters>,
) -> Vec<PosedPrimitive> {
    use dqview::skin::{Betas, SkinningMode, skin_scene, skin_scene_cor, skin_scene_hybrid};
    match (mode, centers, betas) {
        (SkinningMode::Cor, Some(c), _) => skin_scene_cor(scene, pose, c),
        (_, _, Some(b)) => skin_scene_hybrid(scene, pose, mode, b, 1.0),
        _ => skin_scene(scene, pose, mode, Betas::Uniform(1.0)),
    }
}

/// LBS of every primitive of `scene` at `clip` (`None`: rest) and `time_s`, with `overrides`.
pub fn lbs_at(
    scene: &Scene,
    clip: Option<usize>,
    time_s: f32,
    overrides: &JointOverrides,
) -> Vec<PosedPrimitive> {
    let mut pose = Pose::rest(scene);
    pose.sample(scene, clip, time_s, overrides);
    skin_scene(scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0))
}

/// The largest vertex distance between two posings of the same mesh, over `diagonal`.
pub fn largest_offset(a: &[PosedPrimitive], b: &[PosedPrimitive], diagonal: f32) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(p, q)| {
            assert_eq!(p.vertices.positions.len(), q.vertices.positions.len());
            p.vertices
                .positions
                .iter()
                .zip(&q.vertices.positions)
                .map(|(x, y)| x.distance(*y))
        })
        .fold(0.0, f32::max)
        / diagonal
}

/// Panics where two primitive vertices welded into one (`surfaces[mesh]`: that mesh's welded
/// surface, `None` for a mesh without one) land more than 1e-5 apart in `posed`.
pub fn assert_seams_closed(
    surfaces: &[Option<&dqview::skin::ddm::WeldedSurface>],
    posed: &[PosedPrimitive],
    what: &str,
) {
    let mut at: std::collections::HashMap<(usize, usize, u32), glam::Vec3> =
        std::collections::HashMap::new();
    for prim in posed.iter().filter(|p| p.skinned) {
        let Some(surface) = surfaces.get(prim.mesh).copied().flatten() else {
            continue;
        };
        let map = &surface.vertex_of[prim.primitive];
        for (v, p) in prim.vertices.positions.iter().enumerate() {
            let key = (prim.node, prim.mesh, map[v]);
            let first = *at.entry(key).or_insert(*p);
            assert!(first.distance(*p) < 1e-5, "{what}: a seam opens at {key:?}");
        }
    }
}
