//! The three.js package's example page (`integrations/three/example.html`), served and run in
//! headless Chromium through its self-check (`example-check.mjs`): it loads the Adventurer in its
//! own materials with shadows, lists its joints and clips, opens paused, and with the panel a
//! 170 degree forearm twist under DQS draws differently from three's own skinning, hybrid
//! without a map (beta 1) as DQS, and scrubbing the Run clip moves the picture.

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
    let o = Command::new("node")
        .arg(integration_dir().join("example-check.mjs"))
        .arg("--models")
        .arg(&characters)
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
    assert!(
        number("scrubbed") > 1000,
        "scrubbing the clip did not move it: {report}"
    );
    assert!(picture.is_file());
}
