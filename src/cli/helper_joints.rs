//! `dqview helper-joints` (also `twist-joints`): add twist and bend helper joints where LBS
//! collapses, fit their weights to CoR or DQS, measure them at held-out poses, write the rig.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};

use super::{CorArgs, LoadArgs};
use crate::analysis::RestReference;
use crate::scene::{Scene, names};
use crate::skin::SceneCenters;
use crate::twist_joints::{
    DEFAULT_COUNT, Family, FitTarget, HeldOut, METHODS, PickedJoint, RegionFigures,
    SWEEP_TWIST_DEG, TwistOptions, TwistRequest, TwistRig, add_twist_joints, bone_requests,
    earlier_requests, judge_held_out, pick_joints, without_helpers,
};

/// Prints a line to stdout; a closed pipe (`| head`) is not worth a panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Time the analysis may spend on the clips when it picks the joints.
const PICK_BUDGET: Duration = Duration::from_secs(120);

/// Options of `dqview helper-joints`.
#[derive(Clone, Debug, clap::Args)]
pub struct HelperJointsArgs {
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
    /// Clips to bake helper-joint channels into (name or index), or `all` (the default).
    #[arg(long, value_name = "NAME|INDEX|all")]
    pub clip: Option<String>,
    /// Drop the junctions an earlier run of this command fixed in MODEL (by default they are
    /// kept, rebuilt beside the new ones).
    #[arg(long)]
    pub drop_earlier: bool,
    /// What the helper weights are fitted to, on the input rig: cor, dqs, ddm or dm.
    #[arg(long, value_name = "cor|dqs|ddm|dm", default_value = "cor")]
    pub target: String,
    /// CoR precompute options (`--bulge-compensation` does not apply).
    #[command(flatten)]
    pub cor: CorArgs,
    /// Direct Delta Mush's parameters (`--target ddm`).
    #[command(flatten)]
    pub ddm: super::DdmArgs,
    /// Delta Mush's parameters (`--target dm`).
    #[command(flatten)]
    pub dm: super::DmArgs,
    /// Load limits and URI policy.
    #[command(flatten)]
    pub load: LoadArgs,
}

/// Picks or takes the joints, adds roll joints, prints what they gain and writes the file.
pub fn run(args: &HelperJointsArgs) -> Result<()> {
    let interrupt = super::interrupt_on_ctrl_c();
    if args.cor.bulge_amount()? != 0.0 {
        bail!(
            "--bulge-compensation has no effect on helper-joints (it measures against CoR); drop it"
        );
    }
    let target = match args.target.as_str() {
        "cor" => FitTarget::Cor,
        "dqs" => FitTarget::Dqs,
        "ddm" => FitTarget::Ddm,
        "dm" => FitTarget::Dm,
        other => bail!("--target {other}: give cor, dqs, ddm or dm"),
    };
    if target != FitTarget::Ddm {
        args.ddm.refuse_unused(&format!(
            "the target is {} (add --target ddm)",
            target.name()
        ))?;
    }
    if target != FitTarget::Dm {
        args.dm.refuse_unused(&format!(
            "the target is {} (add --target dm)",
            target.name()
        ))?;
    }
    crate::rig_file::output_is_binary(&args.model, &args.out)?;
    let scene = super::load(&args.model, &args.load)?;
    // Refused before the analysis; `write_twist_rig` refuses too (the viewer's path).
    crate::output_files::refuse_faulty_gltf(&scene, &args.model)?;
    let clips = match args.clip.as_deref() {
        None | Some("all") => (0..scene.animations.len()).collect(),
        Some(c) => super::blend::clip_indices(&scene, c)?,
    };
    // The fit's target is the rig without an earlier run's helpers (their weights given back).
    let (base, _) = without_helpers(&scene)?;
    let centers = args.cor.centers_cancellable(&base, interrupt.flag())?;
    // Picked and measured on that rig too: "LBS before" is plain LBS on a re-run as well.
    let reference = RestReference::at_rest(&base);
    if args.drop_earlier && earlier_requests(&scene).is_empty() {
        bail!(
            "--drop-earlier has no effect: {} has no helper joints of an earlier run; drop it",
            args.model
        );
    }
    let mut picked = chosen_joints(&base, args, &reference, &centers)?;
    keep_earlier(&scene, args.drop_earlier, &mut picked);
    let requests: Vec<TwistRequest> = picked.iter().map(|(r, _)| *r).collect();
    let options = TwistOptions {
        max_influences: args.max_influences,
        clips,
        target,
        ddm: args.ddm.params()?,
        dm: args.dm.params()?,
    };
    let rig = add_twist_joints(&scene, &requests, &options, &centers)?;
    print_rig(&scene, &rig);
    say!(
        "fitted the weights of {} vertices over {} poses to {}: mean RMS distance from it {:.5} -> {:.5} of the diagonal{}",
        rig.fit.vertices,
        rig.fit.poses,
        target.name(),
        rig.fit.rms_before,
        rig.fit.rms_after,
        if rig.fit.kept > 0 {
            format!(
                " ({} vertices kept their weights: more rest classes than --max-influences)",
                rig.fit.kept
            )
        } else {
            String::new()
        }
    );
    let diagonal = crate::skin::rest_bounds(&scene).map_or(1.0, |(lo, hi)| lo.distance(hi));
    let joints: Vec<usize> = requests.iter().map(|r| r.joint).collect();
    eprintln!("measuring at poses the fit did not see ...");
    let judged = judge_held_out(&base, &rig.scene, &joints, &reference, &centers, diagonal);
    for (request, pick) in &picked {
        match judged.iter().find(|h| h.joint == request.joint) {
            Some(h) => print_figures(&scene, h, pick.as_ref()),
            None => say!(
                "{}: no region to measure (no triangle has it as the heaviest influence)",
                scene.nodes[request.joint].name
            ),
        }
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

/// Adds the junctions an earlier run fixed in `scene` that `picked` does not name (unless
/// `drop`), and says which were kept and which are new.
fn keep_earlier(scene: &Scene, drop: bool, picked: &mut Vec<(TwistRequest, Option<PickedJoint>)>) {
    let earlier = earlier_requests(scene);
    if earlier.is_empty() {
        return;
    }
    let name = |r: &TwistRequest| format!("{} ({})", scene.nodes[r.joint].name, r.count);
    let list = |rs: Vec<String>| {
        if rs.is_empty() {
            "none".into()
        } else {
            rs.join(", ")
        }
    };
    if drop {
        say!(
            "dropped the earlier run's junctions (--drop-earlier): {}",
            list(earlier.iter().map(name).collect())
        );
        return;
    }
    let added: Vec<String> = picked
        .iter()
        .filter(|(r, _)| !earlier.iter().any(|e| e.joint == r.joint))
        .map(|(r, _)| name(r))
        .collect();
    let changed: Vec<String> = picked
        .iter()
        .filter_map(|(r, _)| {
            let e = earlier
                .iter()
                .find(|e| e.joint == r.joint && e.count != r.count)?;
            Some(format!(
                "{} ({} -> {})",
                scene.nodes[r.joint].name, e.count, r.count
            ))
        })
        .collect();
    let mut kept = Vec::new();
    for e in earlier {
        if !picked.iter().any(|(r, _)| r.joint == e.joint) {
            kept.push(name(&e));
            picked.push((e, None));
        }
    }
    say!(
        "the earlier run's junctions (helpers per family): kept {}; changed {}; added {} (--drop-earlier drops the earlier ones)",
        list(kept),
        list(changed),
        list(added)
    );
}

/// `--joint` as (joint node, count): a joint given twice with one count is taken once, with
/// two counts it is an error (the later count is never dropped unsaid).
fn given_joints(scene: &Scene, args: &HelperJointsArgs) -> Result<Vec<(usize, usize)>> {
    let mut joints: Vec<(usize, usize, &str)> = Vec::new();
    for spec in &args.joint {
        let (name, count) = match spec.split_once('=') {
            Some((n, c)) => (
                n,
                c.trim().parse::<usize>().map_err(|_| {
                    anyhow::anyhow!("--joint {spec}: the count after = must be a whole number")
                })?,
            ),
            None => (spec.as_str(), args.count),
        };
        let joint = names::joint(scene, name.trim())?;
        match joints.iter().find(|(j, _, _)| *j == joint) {
            Some((_, c, _)) if *c == count => {}
            Some((_, c, earlier)) => bail!(
                "--joint {earlier} and --joint {spec} name the same joint with {c} and {count} helpers per family; give it once"
            ),
            None => joints.push((joint, count, spec)),
        }
    }
    Ok(joints.into_iter().map(|(j, c, _)| (j, c)).collect())
}

/// The requests: `--joint` as given, else the analysis's picks (printed with the reason).
fn chosen_joints(
    scene: &Scene,
    args: &HelperJointsArgs,
    reference: &RestReference,
    centers: &SceneCenters,
) -> Result<Vec<(TwistRequest, Option<PickedJoint>)>> {
    if !args.joint.is_empty() {
        let joints = given_joints(scene, args)?;
        return Ok(bone_requests(scene, &joints)
            .into_iter()
            .map(|r| (r, None))
            .collect());
    }
    eprintln!(
        "analysing the clips, a {SWEEP_TWIST_DEG:.0} degree twist and a bend sweep of each joint ..."
    );
    let picks = pick_joints(scene, reference, centers, PICK_BUDGET);
    for note in &picks.notes {
        say!("note: {note}");
    }
    if picks.joints.is_empty() {
        bail!(
            "the analysis found no joint where LBS collapses (in the clips, at a {SWEEP_TWIST_DEG:.0} degree twist or bent up to 120 degrees); name joints with --joint"
        );
    }
    Ok(picks
        .joints
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

/// The region's figures at the held-out poses.
fn print_figures(scene: &Scene, h: &HeldOut, pick: Option<&PickedJoint>) {
    let name = &scene.nodes[h.joint].name;
    if let Some(p) = pick {
        say!("{name}: picked because {}", p.reason);
    }
    say!(
        "{name} region, at poses the fit did not see | volume ratio to rest: {} | distance from CoR / diagonal, mean (max): {}",
        METHODS.join(", "),
        METHODS[..3].join(", ")
    );
    print_row("twisted 170", &h.twist);
    print_row("bent 120", &h.bend);
    if let Some((pose, f)) = &h.worst {
        let clip = pose
            .clip
            .and_then(|c| scene.animations.get(c))
            .map_or("", |a| a.name.as_str());
        print_row(&format!("worst: {clip} {:.3} s", pose.time_s), f);
    }
    if h.moments > 0 {
        let [m0, m1, m2] = h.moments_mean_distance;
        say!(
            "  {} held-out clip moments: mean distance from CoR {m0:.5} {m1:.5} {m2:.5} (LBS, LBS + helpers, DQS); LBS + helpers at most DQS's (+1e-4) at {}, no farther than LBS at {}, volume within 0.03 of CoR's at {}",
            h.moments,
            h.at_most_dqs,
            h.not_worse_than_lbs,
            h.volume_near_cor
        );
    }
}

/// One row of figures.
fn print_row(label: &str, f: &RegionFigures) {
    let [v0, v1, v2, v3] = f
        .volume
        .map(|v| v.map_or_else(|_| String::from("-"), |r| format!("{r:.3}")));
    let [m0, m1, m2] = f.mean_distance;
    let [x0, x1, x2] = f.max_distance;
    let why = f
        .volume
        .iter()
        .find_map(|v| v.err())
        .map_or_else(String::new, |why| {
            format!(" | volume not measurable (-): {}", why.text())
        });
    say!(
        "  {label:<26} {v0:>6} {v1:>6} {v2:>6} {v3:>6} | {m0:.5} ({x0:.4})  {m1:.5} ({x1:.4})  {m2:.5} ({x2:.4}){why}"
    );
}
