//! `dqview bench --json` on a small generated rig: every key present, every value positive and finite.
//!
//! Needs a GPU adapter (lavapipe in CI): without one it prints SKIPPED, unless `DQVIEW_REQUIRE_GPU=1`.

use std::io::Write as _;
use std::process::Command;

/// Runs `dqview bench --json` with `args`; `None` after a loud skip when there is no adapter.
fn bench_json(test: &str, args: &[&str]) -> Option<serde_json::Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_dqview"))
        .arg("bench")
        .args(args)
        .arg("--json")
        .output()
        .expect("run dqview");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("no GPU adapter") {
        let required = std::env::var("DQVIEW_REQUIRE_GPU").is_ok_and(|v| v == "1");
        assert!(!required, "no adapter, and DQVIEW_REQUIRE_GPU=1: {stderr}");
        let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {stderr}");
        return None;
    }
    assert!(out.status.success(), "{args:?}: {stderr}");
    Some(serde_json::from_slice(&out.stdout).expect("json"))
}

/// Asserts `v` is a finite number above zero.
fn positive(v: &serde_json::Value, what: &str) {
    let x = v
        .as_f64()
        .unwrap_or_else(|| panic!("{what} is not a number: {v}"));
    assert!(x.is_finite() && x > 0.0, "{what} = {x}");
}

/// Every mode has a frame time, a skinning time and a rate.
fn check_modes(report: &serde_json::Value) {
    for mode in ["lbs", "dqs", "hybrid", "ddm"] {
        for key in ["frame_ms", "skin_ms", "vertices_per_s"] {
            positive(&report["modes"][mode][key], &format!("modes.{mode}.{key}"));
        }
    }
    assert!(
        ["gpu_timestamps", "wall"].contains(&report["skin_timing"].as_str().unwrap_or("")),
        "{}",
        report["skin_timing"]
    );
}

#[test]
fn bench_json_has_every_key_with_real_values() {
    let Some(report) = bench_json(
        "bench_json_has_every_key_with_real_values",
        &["--vertices", "10000", "--frames", "5", "--size", "256x256"],
    ) else {
        return;
    };
    assert!(report["adapter"].as_str().is_some_and(|a| !a.is_empty()));
    let vertices = report["vertices"].as_u64().expect("vertices");
    assert!((9_000..11_000).contains(&vertices), "{vertices}");
    assert_eq!(report["path"], "vertex");
    assert_eq!(report["instances"], 1);
    check_modes(&report);
    for mode in ["lbs", "dqs", "hybrid", "cor", "ddm"] {
        positive(
            &report["cpu"]["skin_vertices_per_s"][mode],
            &format!("cpu.skin_vertices_per_s.{mode}"),
        );
    }
    positive(&report["dqs_over_lbs"]["frame"], "dqs_over_lbs.frame");
    positive(&report["dqs_over_lbs"]["skin"], "dqs_over_lbs.skin");
    positive(&report["ddm_over_lbs"]["frame"], "ddm_over_lbs.frame");
    let pre = &report["ddm_precompute"];
    for key in ["seconds", "welded_vertices", "pairs", "bytes"] {
        positive(&pre[key], &format!("ddm_precompute.{key}"));
    }
    // 10 f32 and a joint a pair, 4 bytes an offset: the memory said is the matrices'.
    let (pairs, welded) = (
        pre["pairs"].as_u64().unwrap_or(0),
        pre["welded_vertices"].as_u64().unwrap_or(0),
    );
    assert_eq!(pre["bytes"].as_u64(), Some(42 * pairs + 4 * (welded + 1)));
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
        vec!["bench", "--path", "mesh"],
        vec!["bench", "--instances", "0"],
        vec!["bench", "--instances", "257"],
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

#[test]
fn bench_compute_path_draws_a_crowd_of_a_5000_joint_rig() {
    for path in ["compute", "vertex"] {
        let Some(report) = bench_json(
            "bench_compute_path_draws_a_crowd_of_a_5000_joint_rig",
            &[
                "--path",
                path,
                "--instances",
                "3",
                "--joints",
                "5000",
                "--vertices",
                "2000",
                "--frames",
                "2",
                "--size",
                "128x128",
            ],
        ) else {
            return;
        };
        assert_eq!(report["path"], path);
        assert_eq!(report["instances"], 3);
        assert_eq!(report["cpu"]["joints"], 5000);
        assert_eq!(report["palette_binding"], "storage");
        check_modes(&report);
        // Every measured frame poses the crowd at a new time: one upload each.
        assert!(report["palette_uploads"].as_u64().is_some_and(|n| n >= 2));
    }
}
