//! Delta Mush against Blender's Corrective Smooth (bpy 5.0.1): smooth type Simple, rest
//! source Original Coordinates, the same iterations and factor, on the shared characters.
//!
//! `tests/support/blender_pose.py --mode dm` welds each skinned Blender mesh as dqview welds
//! the surface it smooths, adds the modifier after the Armature modifier and plays the clip;
//! with 0 iterations the same script gives the welded LBS mesh, vertex for vertex, which
//! pairs each Blender vertex with dqview's welded vertex. Blender computes in single
//! precision; dqview's reference in double. Where strong smoothing collapses a corner to
//! rounding noise dqview drops that corner (`MIN_CORNER_HEIGHT_ROUNDINGS`) and Blender does
//! not, so those vertices are counted and left out; every other vertex must agree.
//!
//! The shared data folder is read-only, so Blender's meshes are made here, by the script the
//! stored LBS references came from, rather than stored beside them.

mod support;

use std::path::Path;

use dqview::anim::{JointOverrides, Pose};
use dqview::skin::dm::{DmParams, SceneDm, joint_scales, mush_welded};
use dqview::skin::{Betas, SkinningMode, rest_bounds, skin_scene};
use glam::{DVec3, Vec3};

/// Largest allowed distance from a Blender vertex to dqview's, over the rest diagonal.
const TOLERANCE_RELATIVE: f32 = 1e-4;

/// Blender's welded LBS and dqview's welded LBS pair vertices within this (both f32 LBS).
const PAIRING_RELATIVE: f32 = 1e-5;

#[test]
fn delta_mush_equals_blenders_corrective_smooth_on_the_shared_characters() {
    let test = "delta_mush_equals_blenders_corrective_smooth";
    let Some(characters) = support::characters_dir(test) else {
        return;
    };
    let Some(()) = support::bpy_available(test) else {
        return;
    };
    let dir = support::scratch_dir("dm_blender");
    let cases = [
        ("Adventurer.gltf", "Idle", 20.0 / 24.0, DmParams::DEFAULT),
        (
            "Adventurer.gltf",
            "Punch_Left",
            10.0 / 24.0,
            DmParams {
                iterations: 5,
                factor: 0.5,
            },
        ),
        (
            "RobotExpressive.glb",
            "Dance",
            32.0 / 24.0,
            DmParams::DEFAULT,
        ),
        (
            "RobotExpressive.glb",
            "Dance",
            50.0 / 24.0,
            DmParams {
                iterations: 20,
                factor: 0.8,
            },
        ),
    ];
    for (model, clip, time_s, params) in cases {
        let path = characters.join(model);
        let case = Case::run(&path, clip, time_s, params, &dir);
        eprintln!(
            "{model} {clip} {time_s:.4} s, {} x {}: {}",
            params.iterations,
            params.factor,
            case.summary()
        );
        assert!(
            case.worst <= TOLERANCE_RELATIVE,
            "{model} {clip}: a Blender vertex is {:e} of the diagonal from dqview's Delta Mush",
            case.worst
        );
        // The case tells Delta Mush from LBS: Blender's smoothing moved vertices far more.
        assert!(
            case.moved > 100.0 * TOLERANCE_RELATIVE,
            "{model} {clip}: Corrective Smooth moved no vertex from LBS ({:e})",
            case.moved
        );
        // Dropped corners are rare at these settings: at most 5% of the vertices (4.3% on the
        // robot's low-poly hands at 20 iterations of 0.8).
        assert!(
            case.stabilised * 20 <= case.blender,
            "{model} {clip}: {} of {} vertices stabilised",
            case.stabilised,
            case.blender
        );
    }
}

/// One clip pose of one character in Blender and in dqview.
struct Case {
    /// Largest distance over the vertices compared, over the diagonal.
    worst: f32,
    /// Largest distance Blender's Corrective Smooth moved a vertex from its LBS, over the diagonal.
    moved: f32,
    /// Blender's vertices.
    blender: usize,
    /// Vertices left out because dqview dropped one of their corners.
    stabilised: usize,
}

impl Case {
    /// Runs Blender (Delta Mush, and LBS on the welded mesh) and dqview's reference.
    fn run(model: &Path, clip: &str, time_s: f32, params: DmParams, dir: &Path) -> Self {
        let stem = model
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("model");
        let name = format!("{stem}_{clip}_{time_s:.4}_{}", params.iterations);
        let no_smoothing = DmParams {
            iterations: 0,
            ..params
        };
        let [dm, lbs] = [(params, "dm"), (no_smoothing, "lbs")].map(|(p, what)| {
            let out = dir.join(format!("{name}_{what}.obj"));
            blender(model, clip, time_s, p, &out)
        });
        assert_eq!(dm.len(), lbs.len(), "Blender's two runs differ in meshes");

        let scene = dqview::model::load_model(model.to_str().expect("UTF-8")).expect("load");
        let (lo, hi) = rest_bounds(&scene).expect("bounds");
        let diagonal = lo.distance(hi);
        let mut case = Self {
            worst: 0.0,
            moved: 0.0,
            blender: 0,
            stabilised: 0,
        };
        for ((object, b_dm), (_, b_lbs)) in dm.iter().zip(&lbs) {
            assert_eq!(b_dm.len(), b_lbs.len(), "{object}: vertex counts differ");
            let ours = Welded::at(&scene, object, (clip, time_s), params);
            for (b_dm, b_lbs) in b_dm.iter().zip(b_lbs) {
                let (j, gap) = ours.nearest_lbs(*b_lbs);
                assert!(
                    gap <= PAIRING_RELATIVE * diagonal,
                    "{object}: no dqview vertex within {gap} of Blender's LBS vertex {b_lbs}"
                );
                case.moved = case.moved.max(b_dm.distance(*b_lbs) / diagonal);
                case.blender += 1;
                if ours.stabilised[j] {
                    case.stabilised += 1;
                    continue;
                }
                case.worst = case.worst.max(b_dm.distance(ours.dm[j]) / diagonal);
            }
        }
        case
    }

    /// One line for the log.
    fn summary(&self) -> String {
        format!(
            "worst {:.1e} of the diagonal, Blender moved up to {:.1e} from LBS, {} of {} vertices stabilised",
            self.worst, self.moved, self.stabilised, self.blender
        )
    }
}

/// `blender_pose.py --mode dm` with `params` (0 iterations: the welded LBS mesh): each mesh
/// object's name and vertices.
fn blender(
    model: &Path,
    clip: &str,
    time_s: f32,
    params: DmParams,
    out: &Path,
) -> Vec<(String, Vec<Vec3>)> {
    let run = std::process::Command::new("python3")
        .arg(support::blender_pose_script())
        .arg(model)
        .arg(clip)
        .arg(time_s.to_string())
        .arg(out)
        .args(["--mode", "dm"])
        .args(["--dm-iterations", &params.iterations.to_string()])
        .args(["--dm-factor", &params.factor.to_string()])
        .output()
        .expect("run python3");
    assert!(
        run.status.success(),
        "blender_pose.py --mode dm: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    support::obj_groups(&std::fs::read_to_string(out).expect("Blender's OBJ"))
}

/// dqview's welded vertices of one skinned mesh node at one pose: LBS, Delta Mush, stabilised.
struct Welded {
    lbs: Vec<Vec3>,
    dm: Vec<Vec3>,
    stabilised: Vec<bool>,
}

impl Welded {
    /// The skinned mesh node named `node` of `scene` at `clip`'s `time_s`, by dqview's reference.
    fn at(
        scene: &dqview::scene::Scene,
        node: &str,
        (clip, time_s): (&str, f32),
        params: DmParams,
    ) -> Self {
        let clip = scene
            .animations
            .iter()
            .position(|a| a.name == clip)
            .expect("the clip");
        let mut pose = Pose::rest(scene);
        pose.sample(scene, Some(clip), time_s, &JointOverrides::new());
        let posed = skin_scene(scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
        let data = SceneDm::compute(scene, params);
        let mut out = Self {
            lbs: Vec::new(),
            dm: Vec::new(),
            stabilised: Vec::new(),
        };
        let named = |p: &&dqview::skin::PosedPrimitive| scene.nodes[p.node].name == node;
        if let Some(first) = posed.iter().filter(|p| p.skinned).find(named) {
            let mesh = data.per_mesh[first.mesh].as_ref().expect("DM data");
            let lbs: Vec<DVec3> = mesh
                .source
                .iter()
                .map(|&(prim, v)| {
                    let p = posed
                        .iter()
                        .find(|p| p.node == first.node && p.primitive == prim as usize)
                        .expect("the source primitive is posed");
                    p.vertices.positions[v as usize].as_dvec3()
                })
                .collect();
            let scales = joint_scales(scene, &pose, first.node, mesh);
            assert!(
                scales.iter().all(|s| (s - 1.0).abs() < 1e-4),
                "a scaled joint"
            );
            let mushed = mush_welded(mesh, &lbs, &scales);
            out.lbs.extend(lbs.iter().map(|p| p.as_vec3()));
            out.dm.extend(mushed.positions.iter().map(|p| p.as_vec3()));
            out.stabilised.extend(mushed.stabilised);
        }
        out
    }

    /// The welded vertex whose LBS position is nearest `p`, and how far it is.
    fn nearest_lbs(&self, p: Vec3) -> (usize, f32) {
        self.lbs
            .iter()
            .enumerate()
            .map(|(i, q)| (i, q.distance(p)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("dqview has welded vertices")
    }
}
