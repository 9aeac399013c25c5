//! `dqview cor MODEL --out OUT`: each skinned vertex's centre of rotation written into the model
//! so CoR ships. On the shared characters: the `.gltf` and `.glb` get `_COR_CENTER` (VEC3 per
//! vertex of every skinned primitive, in POSITION's space) equal to the centres dqview computes
//! itself, the validator finds nothing new, the input is untouched, and a second run on its own
//! output overwrites the centres in place; a USD input gets a layer whose
//! `primvars:dqview:corCenter` Pixar's USD reads per point with nothing to validate against it;
//! outputs that cannot be written are refused with the reason.

mod support;

use std::path::Path;
use std::process::Command;

use dqview::model::load_model;
use dqview::scene::{Scene, file_primitive_indices};
use dqview::skin::{CorOptions, CorProgress, SceneCenters};
use serde_json::Value;
use support::{dqview_in, scratch_dir, stderr_of};

/// dqview's own centres of `scene`, computed as `dqview cor` does by default.
fn own_centers(scene: &Scene) -> SceneCenters {
    SceneCenters::compute(scene, &CorOptions::default(), &CorProgress::new()).expect("centres")
}

/// The glTF JSON and the bytes of buffer 0 (a GLB's BIN chunk) or of every buffer by URI.
fn json_and_buffers(path: &Path) -> (Value, Vec<Vec<u8>>) {
    let bytes = std::fs::read(path).expect("read");
    let gltf = gltf::Gltf::from_slice(&bytes).expect("parses");
    let buffers = gltf::import_buffers(&gltf.document, path.parent(), gltf.blob.clone())
        .expect("buffers")
        .into_iter()
        .map(|b| b.0)
        .collect();
    let json = serde_json::to_value(gltf.document.into_json()).expect("json");
    (json, buffers)
}

/// The `_COR_CENTER` floats of file primitive (mesh, primitive), if it has them.
fn cor_floats(json: &Value, buffers: &[Vec<u8>], mesh: usize, prim: usize) -> Option<Vec<f32>> {
    let index = json["meshes"][mesh]["primitives"][prim]["attributes"]["_COR_CENTER"].as_u64()?;
    let acc = &json["accessors"][index as usize];
    assert_eq!(acc["type"], "VEC3");
    assert_eq!(acc["componentType"], 5126);
    let view = &json["bufferViews"][acc["bufferView"].as_u64()? as usize];
    let start = (view["byteOffset"].as_u64().unwrap_or(0) + acc["byteOffset"].as_u64().unwrap_or(0))
        as usize;
    let count = acc["count"].as_u64()? as usize;
    let data = &buffers[view["buffer"].as_u64()? as usize][start..start + 12 * count];
    let floats: Vec<f32> = data
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    // The accessor's bounds are the values' (the validator checks them too).
    for c in 0..3 {
        let lo = floats
            .iter()
            .skip(c)
            .step_by(3)
            .copied()
            .fold(f32::INFINITY, f32::min);
        assert_eq!(acc["min"][c].as_f64().map(|x| x as f32), Some(lo));
    }
    Some(floats)
}

/// Asserts that `out` holds exactly `centers` as `_COR_CENTER`, and only where they exist.
fn assert_written(out: &Path, model: &Path, centers: &SceneCenters) -> usize {
    let (json, buffers) = json_and_buffers(out);
    let file_prims = file_primitive_indices(&std::fs::read(model).expect("model")).expect("prims");
    let mut written = 0;
    for (m, prims) in centers.per_primitive.iter().enumerate() {
        for (p, c) in prims.iter().enumerate() {
            let read = cor_floats(&json, &buffers, m, file_prims[m][p]);
            if c.is_empty() {
                assert!(read.is_none(), "mesh {m} primitive {p} is not skinned");
                continue;
            }
            let expected: Vec<f32> = c.iter().flat_map(|v| v.to_array()).collect();
            assert_eq!(read.as_ref(), Some(&expected), "mesh {m} primitive {p}");
            written += 1;
        }
    }
    written
}

#[test]
fn characters_get_dqviews_own_centres_and_nothing_else() {
    let test = "characters_get_dqviews_own_centres_and_nothing_else";
    let Some(chars) = support::characters_dir(test) else {
        return;
    };
    let validator = support::gltf_validator(test);
    let dir = scratch_dir("cor-files");
    for (file, out_name) in [
        ("Adventurer.gltf", "adventurer cor.gltf"),
        ("RobotExpressive.glb", "robot_cor.glb"),
    ] {
        let input = chars.join(file);
        let before = std::fs::read(&input).expect("input");
        let out = dir.join(out_name);
        let args = [
            "cor",
            input.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
        ];
        let run = dqview_in(&args, &dir.join("cache"));
        assert!(run.status.success(), "{file}: {}", stderr_of(&run));
        let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
        assert!(
            stdout.contains("wrote") && stdout.contains("centres"),
            "{stdout}"
        );
        assert_eq!(
            std::fs::read(&input).expect("input"),
            before,
            "{file}: input untouched"
        );
        let scene = load_model(input.to_str().expect("utf-8")).expect("input loads");
        let centers = own_centers(&scene);
        let written = assert_written(&out, &input, &centers);
        assert!(written >= 4, "{file}: {written} primitives");
        // The output still loads with its geometry as it was.
        let back = load_model(out.to_str().expect("utf-8")).expect("output loads");
        for (a, b) in back.meshes.iter().zip(&scene.meshes) {
            for (pa, pb) in a.primitives.iter().zip(&b.primitives) {
                assert_eq!(pa.positions, pb.positions, "{file}");
            }
        }
        if let Some(v) = &validator {
            let (mut a, mut b) = (
                support::validate_gltf(v, &input).messages,
                support::validate_gltf(v, &out).messages,
            );
            a.sort();
            b.sort();
            assert_eq!(a, b, "{file}: the validator's errors changed");
        }
        // Again on its own output: the old centres are overwritten in place, nothing grows.
        let again = dir.join(format!("again_{out_name}"));
        let args = [
            "cor",
            out.to_str().expect("utf-8"),
            "--out",
            again.to_str().expect("utf-8"),
        ];
        let run = dqview_in(&args, &dir.join("cache"));
        assert!(run.status.success(), "{file}: {}", stderr_of(&run));
        let said = String::from_utf8_lossy(&run.stdout);
        assert!(said.contains("replaced in place"), "{file}: {said}");
        assert_eq!(
            std::fs::metadata(&again).expect("again").len(),
            std::fs::metadata(&out).expect("out").len(),
            "{file}: the second run grew the file"
        );
        assert_written(&again, &out, &centers);
    }
}

/// Pixar's view of the layer: validation errors and each mesh's centres and point count.
const PXR_SCRIPT: &str = r#"
import json, sys
from pxr import Usd, UsdValidation
stage = Usd.Stage.Open(sys.argv[1])
ctx = UsdValidation.ValidationContext(UsdValidation.ValidationRegistry().GetOrLoadAllValidators())
errors = [f"{e.GetName()}: {e.GetMessage()}" for e in ctx.Validate(stage)]
meshes = {}
for prim in stage.Traverse():
    attr = prim.GetAttribute("primvars:dqview:corCenter")
    if attr and attr.HasAuthoredValue():
        meshes[str(prim.GetPath())] = {"centers": [list(c) for c in attr.Get()],
            "interpolation": attr.GetMetadata("interpolation"), "type": str(attr.GetTypeName()),
            "points": len(prim.GetAttribute("points").Get())}
print(json.dumps({"errors": errors, "meshes": meshes}))
"#;

#[test]
fn a_usd_input_gets_a_layer_pixar_reads_per_point() {
    let test = "a_usd_input_gets_a_layer_pixar_reads_per_point";
    let Some(usd) = support::data_dir("DQVIEW_USD", test) else {
        return;
    };
    if !support::pxr_available(test) {
        return;
    }
    let model = usd.join("Adventurer.usdc");
    let dir = scratch_dir("cor-usd");
    let layer = dir.join("adventurer_cor.usda");
    let args = [
        "cor",
        model.to_str().expect("utf-8"),
        "--out",
        layer.to_str().expect("utf-8"),
    ];
    let run = dqview_in(&args, &dir.join("cache"));
    assert!(run.status.success(), "{}", stderr_of(&run));
    let o = Command::new("python3")
        .args(["-c", PXR_SCRIPT])
        .arg(&layer)
        .output()
        .expect("python3");
    assert!(o.status.success(), "{}", stderr_of(&o));
    let report: Value = serde_json::from_slice(&o.stdout).expect("json");
    let errors = report["errors"].as_array().expect("errors");
    assert!(errors.is_empty(), "{errors:?}");
    let scene = load_model(model.to_str().expect("utf-8")).expect("loads");
    let centers = own_centers(&scene);
    let meshes = report["meshes"].as_object().expect("meshes");
    let mut checked = 0;
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let Some(c) = centers.per_primitive[m].first().filter(|c| !c.is_empty()) else {
            continue;
        };
        let read = &meshes[&mesh.name];
        assert_eq!(read["interpolation"], "vertex");
        assert_eq!(read["type"], "float3[]");
        let points = read["points"].as_u64().expect("points") as usize;
        let values = read["centers"].as_array().expect("centers");
        assert_eq!(values.len(), points, "{}: one centre per point", mesh.name);
        for (v, want) in values.iter().zip(c) {
            let got: Vec<f32> = v
                .as_array()
                .expect("xyz")
                .iter()
                .map(|x| x.as_f64().expect("f") as f32)
                .collect();
            assert_eq!(got, want.to_array().to_vec(), "{}", mesh.name);
        }
        checked += 1;
    }
    assert_eq!(checked, meshes.len());
    assert!(checked >= 4, "{checked} meshes");
}

#[test]
fn outputs_that_cannot_hold_centres_are_refused_with_the_reason() {
    let dir = scratch_dir("cor-refused");
    let cases: [(&[&str], &str); 4] = [
        (&["cor", "builtin:twist", "--out", "x.json"], "_COR_CENTER"),
        (
            &["cor", "builtin:twist", "--out", "x.gltf"],
            "use --out FILE.glb",
        ),
        (&["cor", "builtin:twist", "--out", "x.usda"], "not USD"),
        (
            &[
                "cor",
                "builtin:twist",
                "--out",
                "x.glb",
                "--bulge-compensation",
                "0.5",
            ],
            "no effect on cor",
        ),
    ];
    for (args, says) in cases {
        let o = dqview_in(args, &dir.join("cache"));
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr_of(&o).contains(says), "{args:?}: {}", stderr_of(&o));
        assert!(!Path::new("x.glb").exists() && !dir.join("x.glb").exists());
    }
    // A built-in rig is written whole, with its centres.
    let out = dir.join("twist_cor.glb");
    let o = dqview_in(
        &[
            "cor",
            "builtin:twist",
            "--out",
            out.to_str().expect("utf-8"),
        ],
        &dir.join("cache"),
    );
    assert!(o.status.success(), "{}", stderr_of(&o));
    let scene = load_model("builtin:twist").expect("builtin");
    let (json, buffers) = json_and_buffers(&out);
    let read = cor_floats(&json, &buffers, 0, 0).expect("_COR_CENTER");
    let want: Vec<f32> = own_centers(&scene).per_primitive[0][0]
        .iter()
        .flat_map(|v| v.to_array())
        .collect();
    assert_eq!(read, want);
}
