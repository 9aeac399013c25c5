//! `dqview twist-joints`: add roll joints where LBS collapses, measure them, write the rig.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};

use super::{CorArgs, LoadArgs};
use crate::analysis::RestReference;
use crate::scene::{Scene, names};
use crate::skin::SceneCenters;
use crate::twist_joints::{
    DEFAULT_COUNT, Family, MeasurePose, PickedJoint, RegionFigures, SWEEP_TWIST_DEG, TwistOptions,
    TwistRequest, TwistRig, add_twist_joints, bone_requests, measure_region, pick_joints,
    twist_pose,
};

/// Prints a line to stdout; a closed pipe (`| head`) is not worth a panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Time the analysis may spend on the clips when it picks the joints.
const PICK_BUDGET: Duration = Duration::from_secs(120);

/// Options of `dqview twist-joints`.
#[derive(Clone, Debug, clap::Args)]
pub struct TwistJointsArgs {
    /// A .gltf, .glb or .vrm path.
    #[arg(value_name = "MODEL")]
    pub model: String,
    /// Output: the input amended (.glb or .vrm for a binary input, .gltf for a JSON one).
    #[arg(long, value_name = "OUT.glb|OUT.gltf|OUT.vrm")]
    pub out: PathBuf,
    /// A joint to add roll joints to, with its own count: JOINT or JOINT=N; repeatable.
    /// Without it the analysis picks the joints whose twist collapses LBS.
    #[arg(long, value_name = "JOINT[=N]")]
    pub joint: Vec<String>,
    /// Roll joints per family (along the bone, and at its base) for joints without `=N`.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_COUNT)]
    pub count: usize,
    /// Most influences per vertex written: 4 (JOINTS_0) or 8 (JOINTS_0 and JOINTS_1).
    #[arg(long, value_name = "K", default_value_t = 4)]
    pub max_influences: usize,
    /// Clips to bake roll-joint channels into (name or index), or `all` (the default).
    #[arg(long, value_name = "NAME|INDEX|all")]
    pub clip: Option<String>,
    /// CoR precompute options (`--bulge-compensation` does not apply).
    #[command(flatten)]
    pub cor: CorArgs,
    /// Load limits and URI policy.
    #[command(flatten)]
    pub load: LoadArgs,
}

/// Picks or takes the joints, adds roll joints, prints what they gain and writes the file.
pub fn run(args: &TwistJointsArgs) -> Result<()> {
    let interrupt = super::interrupt_on_ctrl_c();
    if args.cor.bulge_amount()? != 0.0 {
        bail!(
            "--bulge-compensation has no effect on twist-joints (it measures against CoR); drop it"
        );
    }
    crate::rig_file::output_is_binary(&args.model, &args.out)?;
    let scene = super::load(&args.model, &args.load)?;
    // Refused before the analysis; `write_twist_rig` refuses too (the viewer's path).
    crate::output_files::refuse_faulty_gltf(&scene, &args.model)?;
    let clips = match args.clip.as_deref() {
        None | Some("all") => (0..scene.animations.len()).collect(),
        Some(c) => super::blend::clip_indices(&scene, c)?,
    };
    let centers = args.cor.centers_cancellable(&scene, interrupt.flag())?;
    let reference = RestReference::at_rest(&scene);
    let picked = chosen_joints(&scene, args, &reference, &centers)?;
    let requests: Vec<TwistRequest> = picked.iter().map(|(r, _)| *r).collect();
    let options = TwistOptions {
        max_influences: args.max_influences,
        clips,
    };
    let rig = add_twist_joints(&scene, &requests, &options)?;
    print_rig(&scene, &rig);
    let diagonal = crate::skin::rest_bounds(&scene).map_or(1.0, |(lo, hi)| lo.distance(hi));
    for (request, pick) in &picked {
        print_figures(
            &scene,
            &rig,
            &reference,
            &centers,
            request.joint,
            pick.as_ref(),
            diagonal,
        );
    }
    if interrupt.is_cancelled() {
        bail!("cancelled: no file written");
    }
    let report = crate::rig_file::write_twist_rig(
        &args.model,
        &args.out,
        &rig,
        args.max_influences,
        interrupt,
    )?;
    for note in &report.notes {
        say!("note: {note}");
    }
    for file in &report.files {
        say!("wrote {}", file.display());
    }
    Ok(())
}

/// The requests: `--joint` as given, else the analysis's picks (printed with the reason).
fn chosen_joints(
    scene: &Scene,
    args: &TwistJointsArgs,
    reference: &RestReference,
    centers: &SceneCenters,
) -> Result<Vec<(TwistRequest, Option<PickedJoint>)>> {
    if !args.joint.is_empty() {
        return args
            .joint
            .iter()
            .map(|spec| {
                let (name, count) = match spec.split_once('=') {
                    Some((n, c)) => (
                        n,
                        c.trim().parse::<usize>().map_err(|_| {
                            anyhow::anyhow!(
                                "--joint {spec}: the count after = must be a whole number"
                            )
                        })?,
                    ),
                    None => (spec.as_str(), args.count),
                };
                Ok((names::joint(scene, name.trim())?, count))
            })
            .collect::<Result<Vec<_>>>()
            .map(|joints| {
                bone_requests(scene, &joints)
                    .into_iter()
                    .map(|r| (r, None))
                    .collect()
            });
    }
    eprintln!("analysing the clips and a {SWEEP_TWIST_DEG:.0} degree twist of each joint ...");
    let picked = pick_joints(scene, reference, centers, PICK_BUDGET);
    if picked.is_empty() {
        bail!(
            "the analysis found no joint whose twist collapses LBS (in the clips or at a {SWEEP_TWIST_DEG:.0} degree twist); name joints with --joint"
        );
    }
    Ok(picked
        .into_iter()
        .map(|p| {
            say!("picked {}: {}", scene.nodes[p.joint].name, p.reason);
            (
                TwistRequest {
                    joint: p.joint,
                    count: args.count,
                },
                Some(p),
            )
        })
        .collect())
}

/// One line per junction: its twist joints; then the bake.
fn print_rig(scene: &Scene, rig: &TwistRig) {
    if rig.removed_nodes > 0 {
        say!(
            "replaced {} nodes of an earlier twist-joints run",
            rig.removed_nodes
        );
    }
    let mut joints: Vec<usize> = rig.roll_joints.iter().map(|r| r.joint).collect();
    joints.dedup();
    for k in joints {
        let names = |f: Family| -> Vec<&str> {
            rig.roll_joints
                .iter()
                .filter(|r| r.joint == k && r.family == f)
                .map(|r| r.name.as_str())
                .collect()
        };
        let (own, parent) = (names(Family::Joint), names(Family::Parent));
        let p = scene.nodes[k]
            .parent
            .map_or("", |p| scene.nodes[p].name.as_str());
        say!(
            "{}: {} twist joints following it ({}) and {} following {p} ({}), in steps of 1/{} of its turn",
            scene.nodes[k].name,
            own.len(),
            own.join(", "),
            parent.len(),
            parent.join(", "),
            own.len() + 1
        );
    }
    let keys: usize = rig.baked.iter().map(|(_, k)| k).sum();
    say!(
        "baked {} of {} clips ({keys} key times; a clip that moves none of these joints needs none)",
        rig.baked.len(),
        scene.animations.len()
    );
}

/// The region's figures at the joint's worst pose and at a 170 degree twist.
fn print_figures(
    scene: &Scene,
    rig: &TwistRig,
    reference: &RestReference,
    centers: &SceneCenters,
    joint: usize,
    pick: Option<&PickedJoint>,
    diagonal: f32,
) {
    let Some(region) = reference.region(joint) else {
        say!(
            "{}: no region to measure (no triangle has it as the heaviest influence)",
            scene.nodes[joint].name
        );
        return;
    };
    say!(
        "{} region ({} vertices)      volume ratio to rest: LBS before  after   DQS    CoR | mean distance from CoR / diagonal: LBS before  after   DQS",
        scene.nodes[joint].name,
        region.vertices
    );
    let mut poses: Vec<(String, MeasurePose)> = Vec::new();
    if let Some(p) = pick.filter(|p| p.worst.clip.is_some()) {
        let clip = p
            .worst
            .clip
            .map_or("", |c| scene.animations[c].name.as_str());
        poses.push((
            format!("worst: {clip} {:.3} s", p.worst.time_s),
            p.worst.clone(),
        ));
    }
    poses.push((
        format!("twisted {SWEEP_TWIST_DEG:.0}"),
        twist_pose(joint, SWEEP_TWIST_DEG),
    ));
    for (label, pose) in poses {
        let f = measure_region(scene, &rig.scene, region, centers, &pose, diagonal);
        print_row(&label, &f);
    }
}

/// One row of figures.
fn print_row(label: &str, f: &RegionFigures) {
    say!(
        "  {label:<28} {:>7.3} {:>7.3} {:>6.3} {:>6.3}  ({:>4.0}% of the way to CoR) | {:>9.5} {:>8.5} {:>8.5}",
        f.lbs_before,
        f.lbs_after,
        f.dqs,
        f.cor,
        100.0 * f.gain_towards_cor(),
        f.cor_distance_before,
        f.cor_distance_after,
        f.cor_distance_dqs
    );
}
