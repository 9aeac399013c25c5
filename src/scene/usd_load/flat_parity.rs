//! Test-only (compiled under `#[cfg(test)]` in `usd_load`, so its unwraps are test asserts):
//! flat reading ([`super::flat`]) against the crate's composition: the shared characters and a
//! hand-made stage load to the same scene both ways, and [`super::xform_ops`] composes every
//! op kind as the crate's `Xformable` does, between samples too.

use openusd::schemas::geom::{Imageable, Xformable};
use openusd::usd::{Prim, SchemaBase, SchemaKind, Stage, TimeCode};

use super::crate_check::tests::{SHARED_USD_FILES, shared_usd_path};
use super::source::UsdStage;
use super::{convert, open_stage, read, xform_ops};
use crate::scene::LoadOptions;

/// The scene of the stage at `path`, read flat and composed, and whether it was flat.
fn both_ways(path: &std::path::Path) -> (String, String, bool) {
    let name = path.to_str().expect("UTF-8 path");
    let cap = LoadOptions::DEFAULT_MAX_BUFFER_BYTES;
    let flat = UsdStage::new(open_stage(name, cap).expect("open"));
    let composed = UsdStage::composed(open_stage(name, cap).expect("open"));
    let is_flat = flat.is_flat();
    let scene = |stage: &UsdStage| {
        let scene = convert(stage, name, &LoadOptions::DEFAULT).expect("convert");
        format!("{scene:?}")
    };
    (scene(&flat), scene(&composed), is_flat)
}

/// `text` written as `name` in a folder of this test.
fn write_stage(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dqview-flat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("folder");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

#[test]
fn the_shared_characters_load_the_same_flat_and_composed() {
    for name in SHARED_USD_FILES {
        let Some(path) = shared_usd_path(name) else {
            return;
        };
        let (flat, composed, is_flat) = both_ways(&path);
        assert!(is_flat, "{name}: one layer without arcs");
        assert!(flat == composed, "{name}: flat and composed scenes differ");
    }
}

/// Op kinds, inverted and suffixed ops, samples at different times, a stack reset, a relative
/// target, a material and primvar metadata: what the loader reads, all in one layer.
const FEATURES: &str = r#"#usda 1.0
(
    timeCodesPerSecond = 24
)
def Xform "Root"
{
    double3 xformOp:translate.timeSamples = { 0: (1, 2, 3), 10: (5, 2, -3) }
    float3 xformOp:rotateZYX.timeSamples = { 5: (10, 20, 30), 15: (-40, 0, 90) }
    quatf xformOp:orient.timeSamples = { 0: (1, 0, 0, 0), 12: (0, 0.6, 0.8, 0) }
    float3 xformOp:scale = (1, 2, 0.5)
    double xformOp:rotateX:tilt = 15
    double3 xformOp:translate:pivot = (0.5, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:translate:pivot", "xformOp:rotateZYX", "xformOp:orient", "xformOp:rotateX:tilt", "xformOp:scale", "!invert!xformOp:translate:pivot"]
    def Xform "Child"
    {
        float xformOp:rotateY.timeSamples = { 2: 0, 8: 90 }
        matrix4d xformOp:transform = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 3, 0, 1))
        float xformOp:scaleX = 2
        uniform token[] xformOpOrder = ["xformOp:transform", "xformOp:rotateY", "xformOp:scaleX"]
        def Mesh "M" (
            prepend apiSchemas = ["MaterialBindingAPI"]
        )
        {
            int[] faceVertexCounts = [3]
            int[] faceVertexIndices = [0, 1, 2]
            point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
            color3f[] primvars:displayColor = [(1, 0, 0)] (
                interpolation = "constant"
            )
            rel material:binding = <../../Looks/Red>
        }
    }
    def Xform "Alone"
    {
        double3 xformOp:translate = (0, 0, 9)
        uniform token[] xformOpOrder = ["!resetXformStack!", "xformOp:translate"]
    }
    def Scope "Looks"
    {
        def Material "Red"
        {
            def Shader "Surface"
            {
                uniform token info:id = "UsdPreviewSurface"
                color3f inputs:diffuseColor = (0.2, 0.4, 0.6)
            }
        }
    }
}
"#;

#[test]
fn a_stage_of_every_feature_loads_the_same_flat_and_composed() {
    let path = write_stage("features.usda", FEATURES);
    let (flat, composed, is_flat) = both_ways(&path);
    assert!(is_flat);
    assert_eq!(flat, composed);
    assert!(flat.contains("Child"), "{flat}");
    // Prim by prim, what the loader asks of a stage answers the same both ways.
    let name = path.to_str().unwrap();
    let cap = LoadOptions::DEFAULT_MAX_BUFFER_BYTES;
    let flat = UsdStage::new(open_stage(name, cap).unwrap());
    let composed = UsdStage::composed(open_stage(name, cap).unwrap());
    let prims = super::traverse::prim_paths(&composed).unwrap();
    assert_eq!(super::traverse::prim_paths(&flat).unwrap(), prims);
    for prim in &prims {
        for stage in [&flat, &composed] {
            let names = stage.property_names(prim).unwrap();
            assert!(&**prim != "/Root" || names.len() == 7, "{prim}: {names:?}");
        }
        assert_eq!(
            flat.type_name(prim).unwrap(),
            composed.type_name(prim).unwrap()
        );
        assert_eq!(
            flat.children(prim).unwrap(),
            composed.children(prim).unwrap()
        );
        let names = flat.property_names(prim).unwrap();
        assert_eq!(names, composed.property_names(prim).unwrap(), "{prim}");
        for property in &names {
            let values = [&flat, &composed].map(|s| read::value(s, prim, property).unwrap());
            assert_eq!(
                format!("{:?}", values[0]),
                format!("{:?}", values[1]),
                "{prim}.{property}"
            );
            let targets = [&flat, &composed].map(|s| read::targets(s, prim, property).unwrap());
            assert_eq!(targets[0], targets[1], "{prim}.{property}");
        }
    }
}

/// Any prim as the crate's `Xformable`, the independent reading of its ops.
struct AnyXformable(Prim);

impl SchemaBase for AnyXformable {
    const KIND: SchemaKind = SchemaKind::ConcreteTyped;

    fn prim(&self) -> &Prim {
        &self.0
    }
}
impl Imageable for AnyXformable {}
impl Xformable for AnyXformable {}

#[test]
fn ops_compose_as_the_crates_xformable_between_samples_too() {
    let path = write_stage("ops.usda", FEATURES);
    let name = path.to_str().unwrap();
    let stage = UsdStage::new(open_stage(name, LoadOptions::DEFAULT_MAX_BUFFER_BYTES).unwrap());
    assert!(stage.is_flat());
    let crate_stage = Stage::open(name).unwrap();
    for prim in ["/Root", "/Root/Child", "/Root/Alone"] {
        let order = xform_ops::op_order(&stage, prim).unwrap();
        let theirs = AnyXformable(crate_stage.prim(prim));
        for time in [-1.0, 0.0, 2.5, 5.0, 7.0, 11.0, 20.0] {
            let ours = xform_ops::local_transform(&stage, prim, &order, time).unwrap();
            let m = theirs
                .local_to_parent_transform(TimeCode::new(time))
                .unwrap();
            let expected = read::dmat4(&m);
            let off = (ours - expected).abs().to_cols_array();
            let worst = off.iter().fold(0.0_f64, |a, &b| a.max(b));
            assert!(worst < 1e-6, "{prim} at {time}: {ours} vs {expected}");
        }
    }
    // Between samples the ops move: the root's translate is halfway at 5.
    let order = xform_ops::op_order(&stage, "/Root").unwrap();
    let at = |t| xform_ops::local_transform(&stage, "/Root", &order, t).unwrap();
    assert!(at(5.0) != at(0.0) && at(5.0) != at(10.0));
    assert!(xform_ops::resets_stack(
        &xform_ops::op_order(&stage, "/Root/Alone").unwrap()
    ));
}

#[test]
fn an_arc_variant_or_instance_anywhere_in_the_tree_is_composed() {
    // Each deep in the tree, under plain prims: the walk from the pseudo-root must reach it.
    let inner = [
        "references = @other.usda@",
        "inherits = </Base>",
        "variants = {\n string v = \"a\"\n }\n prepend variantSets = \"v\"",
        "instanceable = true",
    ];
    let stage = |meta: &str| {
        format!(
            "#usda 1.0\ndef Xform \"A\"\n{{\n def Xform \"B\"\n {{\n  def Xform \"C\" (\n {meta}\n )\n  {{\n  }}\n }}\n}}\n"
        )
    };
    let flat_at = |name: &str, text: &str| {
        let path = write_stage(name, text);
        let cap = LoadOptions::DEFAULT_MAX_BUFFER_BYTES;
        UsdStage::new(open_stage(path.to_str().unwrap(), cap).unwrap()).is_flat()
    };
    assert!(flat_at("plain.usda", &stage("kind = \"component\"")));
    std::fs::write(write_stage("other.usda", "#usda 1.0\n"), "#usda 1.0\n").unwrap();
    for (i, meta) in inner.iter().enumerate() {
        assert!(!flat_at(&format!("arc{i}.usda"), &stage(meta)), "{meta}");
    }
    // A variant set authored in the body, without the `variantSets` metadata.
    let body = "#usda 1.0\ndef Xform \"A\"\n{\n def Xform \"B\"\n {\n  variantSet \"v\" = {\n   \"a\" {\n   }\n  }\n }\n}\n";
    assert!(!flat_at("body.usda", body));
}
