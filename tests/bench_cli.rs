//! `dqview bench --json` on a small generated rig: every key present, every value positive and finite.
//!
//! Needs a GPU adapter (lavapipe in CI): without one it prints SKIPPED, unless `DQVIEW_REQUIRE_GPU=1`.

use std::io::Write as _;
use std::process::Command;

#[test]
fn bench_json_has_every_key_with_real_values() {
    let out = Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args([
            "bench",
            "--vertices",
            "10000",
            "--frames",
            "5",
            "--size",
            "256x256",
            "--json",
        ])
        .output()
        .expect("run dqview");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("no GPU adapter") {
        let required = std::env::var("DQVIEW_REQUIRE_GPU").is_ok_and(|v| v == "1");
        assert!(!required, "no adapter, and DQVIEW_REQUIRE_GPU=1: {stderr}");
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED bench_json_has_every_key_with_real_values: {stderr}"
        );
        return;
    }
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let positive = |v: &serde_json::Value, what: &str| {
        let x = v
            .as_f64()
            .unwrap_or_else(|| panic!("{what} is not a number: {v}"));
        assert!(x.is_finite() && x > 0.0, "{what} = {x}");
    };
    assert!(report["adapter"].as_str().is_some_and(|a| !a.is_empty()));
    let vertices = report["vertices"].as_u64().expect("vertices");
    assert!((9_000..11_000).contains(&vertices), "{vertices}");
    for mode in ["lbs", "dqs", "hybrid"] {
        for key in ["frame_ms", "skin_ms", "vertices_per_s"] {
            positive(&report["modes"][mode][key], &format!("modes.{mode}.{key}"));
        }
        positive(
            &report["cpu"]["skin_vertices_per_s"][mode],
            &format!("cpu.skin_vertices_per_s.{mode}"),
        );
    }
    positive(&report["dqs_over_lbs"]["frame"], "dqs_over_lbs.frame");
    positive(&report["dqs_over_lbs"]["skin"], "dqs_over_lbs.skin");
    positive(
        &report["cpu"]["palette_ns_per_joint"],
        "cpu.palette_ns_per_joint",
    );
    positive(&report["first_frame_ms"], "first_frame_ms");
}

#[test]
fn bench_refuses_bad_options() {
    for args in [
        vec!["bench", "--vertices", "5"],
        vec!["bench", "--frames", "0"],
        vec!["bench", "--path", "compute"],
        vec!["bench", "--size", "0x0"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_dqview"))
            .args(&args)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).starts_with("dqview: "),
            "{args:?}"
        );
    }
}
