//! Names as riggers type them, through every command that takes one: exact, else
//! case-insensitive, else the unique part after a namespace (`LeftForeArm` for
//! `mixamorig:LeftForeArm`); ambiguity names the candidates; an unknown name suggests the
//! three nearest, in a short message even on a 62-joint character.

mod support;

use std::path::PathBuf;
use std::process::Output;

use dqview::builtin::builtin_scene;
use dqview::scene::write_glb;
use support::{characters_dir, dqview_in, scratch_dir, stderr_of};

/// `builtin:arm` with Mixamo-style names: two joints differ only in case, two share a
/// suffix after different namespaces, the clip has Mixamo's `Armature|mixamo.com|Layer0`.
fn mixamo_arm(dir: &std::path::Path) -> String {
    let mut scene = builtin_scene("arm").expect("arm");
    let names = [
        "rigB:LeftArm",
        "mixamorig:LeftArm",
        "mixamorig:LeftForeArm",
        "Twist",
        "twist",
    ];
    for (node, name) in scene.nodes.iter_mut().zip(names) {
        node.name = name.to_string();
    }
    scene.animations[0].name = "Armature|mixamo.com|Layer0".into();
    let path = dir.join("mixamo_arm.glb");
    std::fs::write(&path, write_glb(&scene).expect("glb")).expect("write");
    path.to_str().expect("utf-8").to_string()
}

struct Fixture {
    dir: PathBuf,
    model: String,
}

impl Fixture {
    fn new(test: &str) -> Self {
        let dir = scratch_dir(test);
        let model = mixamo_arm(&dir);
        Self { dir, model }
    }

    fn run(&self, args: &[&str]) -> Output {
        dqview_in(args, &self.dir.join("cache"))
    }

    /// The OBJ `export` writes with `pose` flags.
    fn export(&self, pose: &[&str]) -> Result<String, String> {
        let out = self.dir.join("posed.obj");
        let out_str = out.to_str().expect("utf-8");
        let mut args = vec!["export", self.model.as_str(), "--out", out_str];
        args.extend_from_slice(pose);
        let o = self.run(&args);
        if o.status.success() {
            Ok(std::fs::read_to_string(&out).expect("obj"))
        } else {
            Err(stderr_of(&o))
        }
    }
}

#[test]
fn joint_and_clip_names_match_exactly_then_by_case_then_after_the_namespace() {
    let f = Fixture::new("typed_names_tiers");
    let rest = f.export(&[]).expect("rest");
    let full = f
        .export(&["--twist", "mixamorig:LeftForeArm=90"])
        .expect("full name");
    assert_ne!(full, rest, "the twist moves the mesh");
    for typed in [
        "LeftForeArm=90",
        "leftforearm=90",
        "MIXAMORIG:leftForeArm=90",
    ] {
        assert_eq!(f.export(&["--twist", typed]).as_ref(), Ok(&full), "{typed}");
    }
    // Exact beats case-insensitive: `twist` and `Twist` are two joints (parent and child).
    let lower = f.export(&["--twist", "twist=90"]).expect("twist");
    let upper = f.export(&["--twist", "Twist=90"]).expect("Twist");
    assert_ne!(lower, upper, "exact names pick two different joints");
    assert_eq!(f.export(&["--twist", "4=90"]).as_ref(), Ok(&lower));
    // The clip by the part after its last namespace, any case.
    let clip = f
        .export(&["--clip", "Armature|mixamo.com|Layer0", "--time", "1"])
        .expect("clip");
    assert_ne!(clip, rest);
    assert_eq!(
        f.export(&["--clip", "layer0", "--time", "1"]).as_ref(),
        Ok(&clip)
    );
}

#[test]
fn ambiguous_names_list_the_candidates_for_every_command() {
    let f = Fixture::new("typed_names_ambiguous");
    let err = f.export(&["--twist", "TWIST=30"]).expect_err("ambiguous");
    assert!(
        err.contains(
            "--twist: joint `TWIST` is ambiguous: it matches `Twist` (node 3), `twist` (node 4)"
        ),
        "{err}"
    );
    let err = f.export(&["--bend", "LeftArm=30"]).expect_err("ambiguous");
    assert!(
        err.contains("`rigB:LeftArm` (node 0), `mixamorig:LeftArm` (node 1)"),
        "{err}"
    );
    let json = f.dir.join("map.json");
    let json = json.to_str().expect("utf-8");
    for args in [
        vec!["analyze", &f.model, "--joint", "leftarm"],
        vec!["blend", &f.model, "--out", json, "--sweep", "LeftArm=0:90"],
    ] {
        let o = f.run(&args);
        let err = stderr_of(&o);
        assert!(!o.status.success(), "{args:?}");
        assert!(
            err.contains("is ambiguous") && err.contains("`mixamorig:LeftArm` (node 1)"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn analyze_blend_and_the_suffix_agree_on_the_joint() {
    let f = Fixture::new("typed_names_commands");
    let o = f.run(&["analyze", &f.model, "--joint", "LeftForeArm"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr_of(&o));
    assert!(
        stdout.contains("region      mixamorig:LeftForeArm (node 2)"),
        "{stdout}"
    );
    let json = f.dir.join("map.json");
    let json = json.to_str().expect("utf-8");
    let o = f.run(&[
        "blend",
        &f.model,
        "--out",
        json,
        "--sweep",
        "leftforearm=0:120",
        "--samples",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let o = f.run(&["analyze", &f.model, "--clip", "LAYER0", "--samples", "3"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("samples     3"));
}

#[test]
fn unknown_names_suggest_the_three_nearest_in_one_short_line() {
    let f = Fixture::new("typed_names_unknown");
    let err = f
        .export(&["--twist", "LeftForarm=30"])
        .expect_err("unknown");
    assert!(
        err.contains(
            "--twist: unknown joint `LeftForarm`; did you mean `mixamorig:LeftForeArm`, \
             `rigB:LeftArm` or `mixamorig:LeftArm`?"
        ),
        "{err}"
    );
    let err = f.export(&["--clip", "Layer1"]).expect_err("unknown clip");
    assert!(
        err.contains("--clip: unknown clip `Layer1`; did you mean `Armature|mixamo.com|Layer0`?"),
        "{err}"
    );
    let Some(dir) = characters_dir("unknown_names_suggest_the_three_nearest_in_one_short_line")
    else {
        return;
    };
    let adventurer = dir.join("Adventurer.gltf");
    let adventurer = adventurer.to_str().expect("utf-8");
    for flag in [
        vec!["analyze", adventurer, "--joint", "Forarm_L"],
        vec![
            "export",
            adventurer,
            "--out",
            "/nonexistent/x.obj",
            "--roll",
            "Forarm_L=10",
        ],
    ] {
        let o = f.run(&flag);
        let err = stderr_of(&o);
        assert!(!o.status.success(), "{flag:?}");
        let line = err.trim();
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(line.len() < 260, "{} characters: {line}", line.len());
        let suggested = line.split_once("did you mean ").map_or(0, |(_, rest)| {
            rest.split('?').next().unwrap_or("").matches('`').count() / 2
        });
        assert_eq!(suggested, 3, "{line}");
        assert!(
            line.contains("(`dqview inspect` lists all 62 joints)"),
            "{line}"
        );
    }
}
