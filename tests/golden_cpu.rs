//! The CPU reference skinning against posed meshes from an independent implementation.
//!
//! ../shared/testdata/golden (via DQVIEW_GOLDEN) holds LBS and DQS poses of the
//! sample models (via DQVIEW_SAMPLES); INDEX.md lists model, clip, time and mode.

mod support;

use dqview::anim::{JointOverrides, Pose};
use dqview::model::load_model;
use dqview::skin::{Betas, SkinningMode, bounds, skin_scene};

#[test]
fn cpu_skinning_matches_golden_meshes() {
    let (Some(golden), Some(samples)) = (
        support::data_dir("DQVIEW_GOLDEN", "cpu_skinning_matches_golden_meshes"),
        support::data_dir("DQVIEW_SAMPLES", "cpu_skinning_matches_golden_meshes"),
    ) else {
        return;
    };
    let index = std::fs::read_to_string(golden.join("INDEX.md")).expect("golden INDEX.md");
    let cases = support::golden_cases(&index);
    assert!(cases.len() >= 18, "INDEX.md lists {} cases", cases.len());
    let mut other_mode_far = 0;
    for case in &cases {
        let model = samples.join(&case.model);
        let scene = load_model(model.to_str().expect("utf-8 path")).expect("sample model loads");
        let mut pose = Pose::rest(&scene);
        pose.sample(&scene, Some(case.clip), case.time_s, &JointOverrides::new());
        let posed = skin_scene(&scene, &pose, case.mode, Betas::Uniform(1.0));
        let other = match case.mode {
            SkinningMode::Lbs => SkinningMode::Dqs,
            _ => SkinningMode::Lbs,
        };
        let posed_other = skin_scene(&scene, &pose, other, Betas::Uniform(1.0));
        let (lo, hi) = bounds(&posed).expect("vertices");
        let tolerance = 1e-5 * (hi - lo).length();

        let text = std::fs::read_to_string(golden.join(&case.file)).expect("golden obj");
        let groups = support::obj_groups(&text);
        let skinned: Vec<_> = posed
            .iter()
            .zip(&posed_other)
            .filter(|(p, _)| p.skinned)
            .collect();
        assert_eq!(groups.len(), skinned.len(), "{}: group count", case.file);
        let mut worst_other = 0.0f32;
        for ((name, expected), (mine, mine_other)) in groups.iter().zip(&skinned) {
            assert_eq!(
                name,
                &format!("node{}_mesh{}_prim{}", mine.node, mine.mesh, mine.primitive),
                "{}",
                case.file
            );
            assert_eq!(
                expected.len(),
                mine.vertices.positions.len(),
                "{} {name}: vertex count",
                case.file
            );
            for (v, (e, p)) in expected.iter().zip(&mine.vertices.positions).enumerate() {
                let err = (*e - *p).length();
                assert!(
                    err <= tolerance,
                    "{} {name} vertex {v}: {p} vs golden {e} (error {err}, tolerance {tolerance})",
                    case.file
                );
            }
            for (e, p) in expected.iter().zip(&mine_other.vertices.positions) {
                worst_other = worst_other.max((*e - *p).length());
            }
        }
        if worst_other > 10.0 * tolerance {
            other_mode_far += 1;
        }
    }
    // The tolerance tells LBS from DQS: on most poses the other mode misses the golden mesh.
    assert!(
        other_mode_far >= cases.len() / 2,
        "only {other_mode_far} of {} cases tell LBS from DQS",
        cases.len()
    );
}
