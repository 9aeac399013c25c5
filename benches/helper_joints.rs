//! The helper-joint fit on the Adventurer's arms and legs (needs DQVIEW_CHARACTERS): the whole
//! `add_twist_joints` (layout, fit, bake) and the held-out measuring, at K = 4 and K = 8, median
//! of `DQVIEW_HELPER_ROUNDS` rounds (default 5) each, interleaved, with their ratio.

mod stats;

use std::time::Instant;

use dqview::analysis::RestReference;
use dqview::skin::{CorOptions, CorProgress, SceneCenters, rest_bounds};
use dqview::twist_joints::{
    FitTarget, TwistOptions, add_twist_joints, bone_requests, judge_held_out,
};

/// Both arms and both legs.
const LIMBS: [&str; 8] = [
    "UpperArm.L",
    "LowerArm.L",
    "UpperArm.R",
    "LowerArm.R",
    "UpperLeg.L",
    "LowerLeg.L",
    "UpperLeg.R",
    "LowerLeg.R",
];

use stats::median;

fn main() {
    let Some(dir) = std::env::var_os("DQVIEW_CHARACTERS") else {
        println!("helper_joints bench: DQVIEW_CHARACTERS is not set; nothing measured");
        return;
    };
    let path = std::path::Path::new(&dir).join("Adventurer.gltf");
    let scene = dqview::model::load_model(path.to_str().expect("utf-8")).expect("load");
    let rounds: usize = std::env::var("DQVIEW_HELPER_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
        .max(1);
    let started = Instant::now();
    let centers =
        SceneCenters::compute(&scene, &CorOptions::default(), &CorProgress::new()).expect("CoR");
    println!(
        "CoR centres (computed once, not timed below): {:.2} s",
        started.elapsed().as_secs_f64()
    );
    let chosen: Vec<(usize, usize)> = LIMBS
        .iter()
        .map(|j| (dqview::scene::names::joint(&scene, j).expect("joint"), 2))
        .collect();
    let requests = bone_requests(&scene, &chosen);
    let reference = RestReference::at_rest(&scene);
    let diagonal = rest_bounds(&scene).map_or(1.0, |(lo, hi)| lo.distance(hi));
    let joints: Vec<usize> = requests.iter().map(|r| r.joint).collect();
    let mut fit_s = [Vec::new(), Vec::new()];
    let mut measure_s = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        // Interleaved (4 8, 8 4, ...) so a change in the machine's load hits both alike.
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for k in order {
            let options = TwistOptions {
                max_influences: [4, 8][k],
                clips: (0..scene.animations.len()).collect(),
                target: FitTarget::Cor,
                ddm: dqview::skin::ddm::DdmParams::DEFAULT,
                dm: dqview::skin::dm::DmParams::DEFAULT,
            };
            let t = Instant::now();
            let rig = add_twist_joints(&scene, &requests, &options, &centers).expect("fit");
            fit_s[k].push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let judged =
                judge_held_out(&scene, &rig.scene, &joints, &reference, &centers, diagonal);
            measure_s[k].push(t.elapsed().as_secs_f64());
            if round == 0 {
                println!(
                    "K = {}: {} junctions, {} vertices over {} poses, RMS distance from CoR {:.5} -> {:.5}; {} regions judged",
                    options.max_influences,
                    requests.len(),
                    rig.fit.vertices,
                    rig.fit.poses,
                    rig.fit.rms_before,
                    rig.fit.rms_after,
                    judged.len()
                );
            }
        }
    }
    let [f4, f8] = fit_s.each_mut().map(|t| median(t));
    let [m4, m8] = measure_s.each_mut().map(|t| median(t));
    println!(
        "add helper joints (layout, fit, bake), median of {rounds}: K = 4 {f4:.3} s, K = 8 {f8:.3} s (ratio {:.2})",
        f8 / f4
    );
    println!(
        "measure at held-out poses, median of {rounds}: K = 4 {m4:.3} s, K = 8 {m8:.3} s (ratio {:.2})",
        m8 / m4
    );
    println!(
        "threads: {} (rayon); the issue's bound is 10 s for the fit on 2 cores",
        rayon::current_num_threads()
    );
}
