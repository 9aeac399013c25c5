//! `dqview report`: the HTML page of a rig, on the real characters and the built-in rigs, and
//! the page as headless Chromium shows it.
//!
//! The characters come from `DQVIEW_CHARACTERS` (skipped without it, a failure with
//! `DQVIEW_REQUIRE_DATA=1`). The browser test needs `chromium` on PATH; with
//! `DQVIEW_REQUIRE_BROWSER=1` or `DQVIEW_REQUIRE_DISPLAY=1` a missing one fails the test.
//! With `DQVIEW_REQUIRE_GPU=1` the report must carry its GPU renders.

#[path = "report_html/page.rs"]
mod page;
mod support;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use dqview::builtin::builtin_scene;
use dqview::influences::Influences;
use dqview::scene::{Channel, Interpolation, Property};
use std::process::Command;
use std::sync::OnceLock;

use page::{SECTIONS, cell, fit_row, png_size, section, worst_rows};

/// Runs `dqview report` on `model` into `dir/name.html` with `extra` flags; the page's text.
fn report(model: &str, dir: &Path, name: &str, extra: &[&str]) -> (PathBuf, String) {
    let (out, html, _) = report_printing(model, dir, name, extra);
    (out, html)
}

/// As [`report`], with what the command printed on stdout as well.
fn report_printing(
    model: &str,
    dir: &Path,
    name: &str,
    extra: &[&str],
) -> (PathBuf, String, String) {
    let out = dir.join(format!("{name}.html"));
    let out_text = out.to_str().expect("utf-8 path").to_string();
    let mut args = vec!["report", model, "--out", &out_text];
    args.extend_from_slice(extra);
    let o = support::dqview_in(&args, &dir.join("cache"));
    assert!(
        o.status.success(),
        "report {model} failed: {}",
        support::stderr_of(&o)
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("wrote "), "{stdout}");
    let html = std::fs::read_to_string(&out).expect("report written");
    (out, html, stdout.into_owned())
}

/// The checks every page passes: sections, no scripts or fetched resources, renders.
fn check_page(html: &str) {
    let mut last = 0;
    for id in SECTIONS {
        let at = html
            .find(&format!("id=\"{id}\""))
            .unwrap_or_else(|| panic!("section {id} missing"));
        assert!(at > last, "section {id} out of order");
        last = at;
    }
    assert!(
        !html.to_ascii_lowercase().contains("<script"),
        "the report has no scripts"
    );
    for fetched in ["src=\"http", "href=\"http", "url(", "@import"] {
        assert!(
            !html.contains(fetched),
            "the report fetches nothing: {fetched}"
        );
    }
    assert!(html.contains("<svg"), "inline SVG plots");
    let gpu_required = std::env::var("DQVIEW_REQUIRE_GPU").is_ok_and(|v| v == "1");
    if gpu_required {
        assert!(
            !html.contains("GPU renders left out"),
            "renders missing with DQVIEW_REQUIRE_GPU=1"
        );
        assert!(html.matches("<img src=\"data:image/png;base64,").count() >= 3);
    }
}

/// The robot's report, made once for the tests that read it.
fn robot_report() -> Option<&'static (PathBuf, String)> {
    static REPORT: OnceLock<Option<(PathBuf, String)>> = OnceLock::new();
    REPORT
        .get_or_init(|| {
            let dir = support::characters_dir("report_html robot")?;
            let model = dir.join("RobotExpressive.glb");
            let scratch = support::scratch_dir("report_html_robot");
            Some(report(model.to_str()?, &scratch, "robot", &[]))
        })
        .as_ref()
}

#[test]
fn robot_report_has_its_real_numbers() {
    let Some((_, html)) = robot_report() else {
        return;
    };
    check_page(html);
    // Stored (not renormalised) weight sums: the robot's worst is 1.755.
    let worst: f64 = cell(html, "worst stored weight sum")
        .parse()
        .expect("number");
    assert!((worst - 1.755).abs() < 0.001, "worst stored sum {worst}");
    let unnormalised: usize = cell(html, "stored weight sums not 1 (off by more than 0.001)")
        .parse()
        .expect("count");
    assert!(unnormalised > 100, "{unnormalised} unnormalised vertices");
    // Influence counts agree with the model: its two hands are the skinned primitives.
    let scene = dqview::model::load_model(
        support::characters_dir("robot")
            .expect("folder")
            .join("RobotExpressive.glb")
            .to_str()
            .expect("path"),
    )
    .expect("robot loads");
    let skinned: usize = dqview::skin::skinned_primitives(&scene)
        .iter()
        .map(|&(m, p)| scene.meshes[m].primitives[p].positions.len())
        .sum();
    assert_eq!(cell(html, "skinned vertices"), skinned.to_string());
    assert_eq!(cell(html, "most influences on a vertex"), "4");
    assert_eq!(cell(html, "vertices over 8 (the GPU keeps 8)"), "0");
    for clip in &scene.animations {
        assert!(
            html.contains(&format!("<h3>{}</h3>", clip.name)),
            "clip {}",
            clip.name
        );
    }
    // One whole-mesh plot per clip, with numbered axes and a legend.
    assert_eq!(
        html.matches(": whole mesh</title>").count(),
        scene.animations.len()
    );
    assert!(html.contains(">time (s)</text>") && html.contains(">LBS</text>"));
    // The robot's right thumb collapses most under LBS, in Wave.
    assert!(
        html.contains("<td>Thumb.R</td><td>Wave</td>"),
        "worst region"
    );
    // The fitted map is closer to CoR than the joint flags.
    let (before, _) = fit_row(html, "hybrid (joint flags)");
    let (after, _) = fit_row(html, "hybrid (fitted map)");
    assert!(after < before, "fit {before}% -> {after}%");
    assert!(
        html.contains("uniform scale"),
        "the robot's joints carry scale"
    );
}

#[test]
fn adventurer_report_flags_joints_and_finds_flips() {
    let Some(dir) = support::characters_dir("adventurer_report") else {
        return;
    };
    let scratch = support::scratch_dir("report_html_adventurer");
    let model = dir.join("Adventurer.gltf");
    let (_, html, printed) =
        report_printing(model.to_str().expect("path"), &scratch, "adventurer", &[]);
    check_page(&html);
    summary_ranks_loss_and_growth_apart(&printed);
    assert_eq!(
        cell(&html, "stored weight sums not 1 (off by more than 0.001)"),
        "0"
    );
    assert_eq!(cell(&html, "skinned vertices"), "13715");
    assert!(html.contains("Flag <b>"), "joints to flag for DQS");
    // Flip angles of twisting joints lie near half a turn.
    let flips = &html[html.find("id=\"flips\"").expect("flips")
        ..html.find("id=\"influences\"").expect("influences")];
    // Rows: joint, flip below, flip above, pairs.
    let angles: Vec<f64> = flips
        .split("<tr><td>")
        .skip(1)
        .flat_map(|row| {
            row.split("<td class=\"n\">")
                .skip(1)
                .take(2)
                .filter_map(|c| c.split('<').next()?.parse::<f64>().ok())
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(!angles.is_empty(), "flip angles");
    assert!(
        angles.iter().all(|a| (100.0..=260.0).contains(&a.abs())),
        "{angles:?}"
    );
    assert!(flips.contains("twist of ") && flips.contains(">twist (degrees)</text>"));
    // Losses and growths are ranked apart: the finger that swells under LBS (Index1.R, 1.79 in
    // Sword_Slash) is a growth, and every listed LBS loss keeps less than its rest volume.
    let (loss, growth) = (
        worst_rows(&html, "LBS (linear blend)", "Loses the most"),
        worst_rows(&html, "LBS (linear blend)", "Grows the most"),
    );
    assert!(
        !loss.is_empty() && !growth.is_empty(),
        "{loss:?} {growth:?}"
    );
    assert!(loss.iter().all(|(_, r)| *r < 1.0), "losses: {loss:?}");
    assert!(growth.iter().all(|(_, r)| *r > 1.0), "growths: {growth:?}");
    assert!(
        loss.windows(2).all(|w| w[0].1 <= w[1].1),
        "lowest first: {loss:?}"
    );
    assert!(
        growth.windows(2).all(|w| w[0].1 >= w[1].1),
        "highest first: {growth:?}"
    );
    let (top, ratio) = &growth[0];
    assert!(
        top == "Index1.R" && *ratio > 1.5,
        "largest LBS growth: {growth:?}"
    );
    assert!(!loss.iter().any(|(n, _)| n == "Index1.R"), "{loss:?}");
    // Its rest pose is not its bind pose (the arms rest lowered from the stored T-pose): said.
    let rest = cell(&html, "rest pose");
    assert!(
        rest.starts_with("not the bind pose: ") && rest.contains("largest at UpperArm.L"),
        "{rest}"
    );
}

/// The Adventurer's printed summary: `loss LBS` and `growth LBS` lines, the swelling finger
/// (Index1.R, LBS 1.79) first among the growths and not among the losses; one `rest pose` line.
fn summary_ranks_loss_and_growth_apart(printed: &str) {
    let line = |start: &str| {
        (printed.lines())
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no `{start}` line in {printed}"))
            .to_owned()
    };
    let (loss, growth) = (line("loss LBS "), line("growth LBS "));
    assert!(!loss.contains("Index1.R"), "{loss}");
    assert!(growth.starts_with("growth LBS    Index1.R 1.7"), "{growth}");
    assert!(!printed.contains("worst LBS"), "{printed}");
    let rest = line("rest pose");
    assert!(
        rest.starts_with("rest pose   not the bind pose: ") && rest.contains("UpperArm.L"),
        "{rest}"
    );
}

#[test]
fn builtin_rigs_report_their_known_numbers() {
    let scratch = support::scratch_dir("report_html_builtin");
    let (_, twist) = report("builtin:twist", &scratch, "twist", &[]);
    check_page(&twist);
    // It rests in its bind pose; LBS's worst loss is base's region at the half turn.
    assert!(cell(&twist, "rest pose").starts_with("the bind pose"));
    let loss = worst_rows(&twist, "LBS (linear blend)", "Loses the most");
    assert_eq!(
        loss.first().map(|(n, _)| n.as_str()),
        Some("base"),
        "{loss:?}"
    );
    // The tip's flip is at exactly half a turn either way.
    assert!(
        twist.contains("<tr><td>tip</td><td class=\"n\">-180.0</td><td class=\"n\">180.0</td>")
    );
    let (_, arm) = report(
        "builtin:arm",
        &scratch,
        "arm",
        &["--samples", "8", "--no-renders"],
    );
    assert!(arm.contains("Renders left out (--no-renders)."));
    assert!(arm.contains("forearm_twist"));
}

#[test]
fn bad_flags_and_files_are_clear_errors() {
    let scratch = support::scratch_dir("report_html_errors");
    let out = scratch.join("r.html");
    let out = out.to_str().expect("path");
    let cases: [(&[&str], &str); 7] = [
        (
            &["report", "builtin:twist", "--out", "r.txt"],
            "--out must end in .html",
        ),
        (
            &["report", "builtin:twist", "--out", out, "--mode", "dqs"],
            "--mode dqs does not apply",
        ),
        (
            &["report", "builtin:twist", "--out", out, "--clip", "nope"],
            "unknown clip `nope`",
        ),
        (
            &["report", "builtin:twist", "--out", out, "--samples", "1"],
            "--samples must be from 2",
        ),
        (
            &["report", "builtin:twist", "--out", out, "--time", "1"],
            "--time 1 does not apply",
        ),
        (
            &["report", "/no/such/file.glb", "--out", out],
            "cannot load /no/such/file.glb",
        ),
        (
            &[
                "report",
                "builtin:twist",
                "--out",
                out,
                "--no-renders",
                "--renders",
                "3",
            ],
            "no effect with --no-renders",
        ),
    ];
    for (args, message) in cases {
        let o = support::dqview_in(args, &scratch.join("cache"));
        let err = support::stderr_of(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

/// Chromium on PATH, or `None` after a skip message (a failure when a browser is required).
fn chromium(test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("chromium"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        let required = ["DQVIEW_REQUIRE_BROWSER", "DQVIEW_REQUIRE_DISPLAY"]
            .iter()
            .any(|v| std::env::var(v).is_ok_and(|x| x == "1"));
        assert!(
            !required,
            "{test}: chromium is not on PATH but a browser is required"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: chromium is not on PATH (apt-get install chromium; DQVIEW_REQUIRE_BROWSER=1 makes this a failure)"
        );
    }
    found
}

/// Runs headless Chromium on `page` with `flags`; (stdout, stderr).
fn run_chromium(browser: &Path, profile: &Path, flags: &[&str], page: &Path) -> (String, String) {
    let o = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(flags)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "chromium failed: {err}");
    (out, err)
}

/// A script for a test copy of the page: image sizes and script errors into the DOM.
const PROBE: &str = "<script>window.__errors=[];window.addEventListener('error',e=>window.__errors.push(String(e.message||e.type)),true);\
window.addEventListener('load',()=>{const p=document.createElement('pre');p.id='probe';\
p.textContent='IMAGES '+[...document.images].map(i=>(i.complete?'ok':'wait')+':'+i.naturalWidth+'x'+i.naturalHeight).join(' ')+' ERRORS '+window.__errors.length;\
document.body.appendChild(p);});</script>";

#[test]
fn chromium_shows_the_robot_report() {
    let Some(browser) = chromium("chromium_shows_the_robot_report") else {
        return;
    };
    let Some((page, html)) = robot_report() else {
        return;
    };
    let scratch = support::scratch_dir("report_html_chromium");
    let shot = scratch.join("shot.png");
    let (_, log) = run_chromium(
        &browser,
        &scratch.join("profile1"),
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1200,2400",
            "--enable-logging=stderr",
            "--v=0",
        ],
        page,
    );
    for line in log.lines().filter(|l| l.contains("CONSOLE")) {
        assert!(
            !line.to_ascii_lowercase().contains("error"),
            "console error: {line}"
        );
    }
    let image = image::open(&shot).expect("screenshot").to_rgb8();
    let mut colours: Vec<[u8; 3]> = image.pixels().map(|p| p.0).collect();
    let not_white = colours
        .iter()
        .filter(|c| c.iter().any(|&v| v < 240))
        .count();
    colours.sort_unstable();
    colours.dedup();
    assert!(
        colours.len() > 500,
        "{} distinct colours: blank?",
        colours.len()
    );
    assert!(
        not_white * 10 > image.len() / 3,
        "mostly white: {not_white} pixels drawn"
    );
    // A test-only copy with the probe script: every image decodes with a size, no script errors.
    let probed = scratch.join("probed.html");
    std::fs::write(&probed, html.replace("</body>", &format!("{PROBE}</body>"))).expect("copy");
    let (dom, _) = run_chromium(
        &browser,
        &scratch.join("profile2"),
        &["--dump-dom", "--virtual-time-budget=10000"],
        &probed,
    );
    let probe = dom
        .split("<pre id=\"probe\">IMAGES ")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .expect("probe output in the DOM");
    let (images, errors) = probe.split_once(" ERRORS ").expect("probe format");
    assert_eq!(errors.trim(), "0", "script errors");
    let sizes: Vec<&str> = images.split_whitespace().collect();
    assert_eq!(sizes.len(), html.matches("<img ").count(), "{probe}");
    for s in sizes {
        let (state, size) = s.split_once(':').expect("state:size");
        let (w, h) = size.split_once('x').expect("WxH");
        assert!(
            state == "ok" && w.parse::<u32>().unwrap_or(0) > 0 && h.parse::<u32>().unwrap_or(0) > 0,
            "{probe}"
        );
    }
}

#[test]
fn a_loss_every_mode_shares_is_drawn_once_and_called_the_pose() {
    // builtin:twist with hard weights (each vertex follows one joint) and a clip that shrinks
    // the tip uniformly to 0.6: LBS, DQS, hybrid and CoR pose every vertex alike, so the
    // regions lose the same volume in every mode: the pose, not the method.
    let mut scene = builtin_scene("twist").expect("builtin");
    let prim = &mut scene.meshes[0].primitives[0];
    let rows: Vec<Vec<(u16, f32)>> = prim
        .positions
        .iter()
        .map(|p| vec![(u16::from(p.y > 1.0), 1.0)])
        .collect();
    prim.influences = Some(Influences::from_rows(rows));
    scene.animations[0].name = String::from("shrink");
    scene.animations[0].channels = vec![Channel {
        node: 1,
        property: Property::Scale,
        interpolation: Interpolation::Linear,
        times_s: vec![0.0, 2.0],
        values: vec![1.0, 1.0, 1.0, 0.6, 0.6, 0.6],
    }];
    let scratch = support::scratch_dir("report_html_pose");
    let model = scratch.join("shrink.glb");
    std::fs::write(&model, dqview::scene::write_glb(&scene).expect("glb")).expect("write");
    let (_, html) = report(
        model.to_str().expect("path"),
        &scratch,
        "shrink",
        &["--samples", "9"],
    );
    check_page(&html);
    let worst = section(&html, "worst-regions");
    let rows = worst.matches("<tr><td>").count();
    assert!(rows >= 4, "{worst}");
    assert_eq!(
        worst.matches("the pose (every mode alike)</td>").count(),
        rows,
        "{worst}"
    );
    // The tip region keeps 0.6^3 of its volume at the end, in every mode.
    assert!(worst.contains("<td>tip</td><td>shrink</td>"), "{worst}");
    let figures: Vec<&str> = worst.split("<figure>").skip(1).collect();
    if html.contains("GPU renders left out") {
        return;
    }
    assert!(!figures.is_empty(), "renders of the worst regions");
    // One picture per region, each one pane wide (1800 / 6), said to be the pose.
    let mut named: Vec<&str> = figures
        .iter()
        .map(|f| {
            f.split("Region <b>")
                .nth(1)
                .and_then(|n| n.split('<').next())
                .expect("name")
        })
        .collect();
    named.sort_unstable();
    named.dedup();
    assert_eq!(
        named.len(),
        figures.len(),
        "each region drawn once: {figures:?}"
    );
    for f in &figures {
        assert!(
            f.contains("the pose takes the volume, not the skinning method"),
            "{f}"
        );
        assert!(f.contains("instead of six alike"), "{f}");
        assert_eq!(png_size(f), (300, 360), "one pane of the 1800x360 picture");
    }
    // A pose loss is no reason to flag a joint for DQS.
    assert!(
        !section(&html, "recommendations").contains("Flag <b>"),
        "{html}"
    );
}

#[test]
fn advice_is_specific_to_the_rig() {
    let scratch = support::scratch_dir("report_html_advice");
    let (_, twist) = report("builtin:twist", &scratch, "twist", &["--no-renders"]);
    let advice = section(&twist, "recommendations");
    // The tip flips at exactly half a turn, as any blended pair does, and the clip stops at 180
    // (not past it): no twist range to keep is advice for this rig.
    assert!(!advice.contains("Keep the twist"), "{advice}");
    // What is specific stays: LBS collapses base's region where DQS and CoR keep it.
    assert!(advice.contains("Flag <b>base</b> for DQS"), "{advice}");
    // A command to run names this file, no placeholder.
    assert!(!advice.contains("MODEL"), "{advice}");
    assert!(advice.contains("--out twist_blend.glb"), "{advice}");
    assert!(!advice.contains("gains little"), "{advice}");
    for item in advice.split("<li>").skip(1) {
        assert!(
            item.contains("<b>")
                || item.contains("builtin:twist")
                || item.contains("<code>dqview check"),
            "advice names a joint, the file or the check: {item}"
        );
    }
    let Some((_, robot)) = robot_report() else {
        return;
    };
    let advice = section(robot, "recommendations");
    // Every joint of the robot carries the same uniform scale 100: it blends like none, no advice.
    assert!(!advice.contains("uniform scale"), "{advice}");
    assert!(advice.contains("752 vertices store weights"), "{advice}");
}
