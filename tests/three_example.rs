//! The three.js package's example page (`integrations/three/example.html`), served and run in
//! headless Chromium through its self-check (`example-check.mjs`): it loads the Adventurer in its
//! own materials with shadows, lists its joints and clips, opens paused, and with the panel a
//! 170 degree forearm twist under DQS draws differently from three's own skinning, hybrid
//! without a map (beta 1) as DQS, CoR is refused on the file without centres (the panel names
//! `dqview cor` and keeps its method) and drawn, apart from DQS, on the file `dqview cor` wrote,
//! and scrubbing the Run clip moves the picture.

mod support;

use std::process::Command;

use support::three::integration_dir;

#[test]
fn the_example_page_loads_twists_switches_and_scrubs() {
    let test = "the_example_page_loads_twists_switches_and_scrubs";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let dir = support::scratch_dir("three_example");
    let picture = dir.join("example_hybrid_twist.png");
    // The served models: the Adventurer as shipped and as `dqview cor` amends it.
    let models = dir.join("models");
    std::fs::create_dir_all(&models).expect("models folder");
    let original = models.join("Adventurer.gltf");
    std::fs::copy(characters.join("Adventurer.gltf"), &original).expect("copy");
    let with_centres = models.join("Adventurer_cor.gltf");
    support::dqview_ok(
        &[
            "cor",
            original.to_str().expect("utf-8"),
            "--out",
            with_centres.to_str().expect("utf-8"),
        ],
        &dir,
    );
    let o = Command::new("node")
        .arg(integration_dir().join("example-check.mjs"))
        .arg("--models")
        .arg(&models)
        .arg("--browser")
        .arg(&chromium)
        .arg("--picture")
        .arg(&picture)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}{}", support::stderr_of(&o));
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).expect("the check's JSON");
    println!("{report}");
    let number = |key: &str| {
        report[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {report}"))
    };
    assert_eq!(number("meshes"), 17, "the Adventurer's skinned meshes");
    assert!(number("joints") >= 40 && number("clips") == 24, "{report}");
    assert_eq!(report["paused"], true, "a clip opens paused");
    // The twisted forearm: DQS keeps what LBS collapses (about 2,000 pixels at 800 x 600).
    assert!(number("stockVsDqs") > 500, "{report}");
    assert!(number("stockVsDqs") > 3 * number("stockVsLbs"), "{report}");
    assert_eq!(
        number("dqsVsHybrid"),
        0,
        "hybrid at beta 1 without a map is DQS"
    );
    let refused = &report["corRefused"];
    assert_eq!(
        refused["method"], "hybrid",
        "a refused CoR keeps the method: {report}"
    );
    assert!(
        refused["status"]
            .as_str()
            .is_some_and(|s| s.contains("`dqview cor MODEL")),
        "{report}"
    );
    assert_eq!(number("withCenters"), 17);
    assert_eq!(report["corMethod"], "cor");
    assert_eq!(
        number("sameModelDqs"),
        0,
        "the centres change nothing but CoR"
    );
    assert!(number("corVsDqs") > 50, "CoR draws as DQS: {report}");
    assert!(
        number("scrubbed") > 1000,
        "scrubbing the clip did not move it: {report}"
    );
    assert!(picture.is_file());
}
