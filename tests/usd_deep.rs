//! Deep USD hierarchies (issue 35, item 4): Pixar opens a 10,000-deep Xform chain, and so does
//! dqview (one layer without arcs is read from its specs; a chain with an arc goes through
//! openusd's composition, about cubic in the depth); a 10,000-joint chain skins. Text nesting past [`USD_MAX_NESTING`]
//! is refused by name. Every file is written by its test, and every load starts on a 2 MiB
//! thread, the stack a `dqview check` worker has: the loader must not need the caller's stack.

use std::path::PathBuf;

use dqview::anim::{JointOverrides, Pose};
use dqview::scene::{LoadOptions, Scene, SceneError, USD_MAX_NESTING, load_usd_path_with};
use dqview::skin::{Betas, SkinningMode, skin_scene};
use glam::vec3;

/// How deep the chains are: what Pixar was seen to open.
const DEPTH: usize = 10_000;

/// The caller's stack: a `dqview check` worker's.
const CALLER_STACK: usize = 2 << 20;

/// Writes `text` as `name` in a folder of this test process and loads it on a 2 MiB thread.
fn load_on_small_stack(name: &str, text: &str) -> Result<Scene, SceneError> {
    let dir = std::env::temp_dir().join(format!("dqview-usd-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("test folder");
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, text).expect("write the stage");
    let loaded = std::thread::Builder::new()
        .stack_size(CALLER_STACK)
        .spawn(move || load_usd_path_with(&path, &LoadOptions::DEFAULT))
        .expect("a 2 MiB thread")
        .join()
        .expect("the load returns");
    std::fs::remove_file(dir.join(name)).expect("remove the stage");
    loaded
}

/// `depth` Xforms, each inside the last and each 1 up the y axis from its parent.
fn xform_chain(depth: usize) -> String {
    let prim = "def Xform \"a\"\n{\n    double3 xformOp:translate = (0, 1, 0)\n    uniform token[] xformOpOrder = [\"xformOp:translate\"]\n";
    format!("#usda 1.0\n{}{}", prim.repeat(depth), "}\n".repeat(depth))
}

/// `depth` prims, each inside the last, under an inactive root: parsed, never composed.
fn inactive_chain(depth: usize) -> String {
    format!(
        "#usda 1.0\ndef Xform \"Off\" (\n    active = false\n)\n{{\n{}{}}}\n",
        "def \"a\"\n{\n".repeat(depth - 1),
        "}\n".repeat(depth - 1)
    )
}

/// `depth` brackets of nested dictionaries: the layer's metadata, `customLayerData`, then
/// `depth - 2` dictionaries.
fn nested_dictionaries(depth: usize) -> String {
    format!(
        "#usda 1.0\n(\n    customLayerData = {{\n{}{}    }}\n)\ndef Xform \"A\"\n{{\n}}\n",
        "dictionary a = {\n".repeat(depth - 2),
        "}\n".repeat(depth - 2)
    )
}

/// A Skeleton of `depth` joints in one chain (`a`, `a/a`, ...), each 1 up the y axis from its
/// parent, a triangle bound to the last joint, and a SkelAnimation moving the first joint 2
/// along x at time 1 (the joints below follow only through their parents).
fn joint_chain(depth: usize) -> String {
    let mut joints = String::new();
    let mut bind = String::new();
    let mut name = String::from("a");
    for i in 0..depth {
        if i > 0 {
            joints.push_str(", ");
            bind.push_str(", ");
            name.push_str("/a");
        }
        joints.push_str(&format!("\"{name}\""));
        bind.push_str(&format!(
            "((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, {}, 0, 1))",
            i + 1
        ));
    }
    let rest = vec!["((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 1, 0, 1))"; depth].join(", ");
    let last = depth - 1;
    format!(
        r#"#usda 1.0
(
    startTimeCode = 0
    endTimeCode = 1
    timeCodesPerSecond = 1
)
def SkelRoot "Root"
{{
    def Skeleton "Skel" (
        prepend apiSchemas = ["SkelBindingAPI"]
    )
    {{
        uniform token[] joints = [{joints}]
        uniform matrix4d[] bindTransforms = [{bind}]
        uniform matrix4d[] restTransforms = [{rest}]
        rel skel:animationSource = </Root/Skel/Anim>

        def SkelAnimation "Anim"
        {{
            uniform token[] joints = ["a"]
            float3[] translations.timeSamples = {{ 0: [(0, 1, 0)], 1: [(2, 1, 0)] }}
            quatf[] rotations = [(1, 0, 0, 0)]
            half3[] scales = [(1, 1, 1)]
        }}
    }}

    def Mesh "M" (
        prepend apiSchemas = ["SkelBindingAPI"]
    )
    {{
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        point3f[] points = [(0, {depth}, 0), (1, {depth}, 0), (0, {depth}, 1)]
        int[] primvars:skel:jointIndices = [{last}, {last}, {last}] (
            elementSize = 1
            interpolation = "vertex"
        )
        float[] primvars:skel:jointWeights = [1, 1, 1] (
            elementSize = 1
            interpolation = "vertex"
        )
        rel skel:skeleton = </Root/Skel>
    }}
}}
"#
    )
}

/// Loads `text`, an Xform chain `depth` deep, and checks that each prim is under the last.
fn xform_chain_opens(text: &str, depth: usize) {
    let name = format!("xforms-{depth}.usda");
    let scene = load_on_small_stack(&name, text).unwrap_or_else(|e| panic!("{depth} Xforms: {e}"));
    assert_eq!(scene.nodes.len(), depth);
    assert_eq!(scene.roots, [0]);
    for (i, node) in scene.nodes.iter().enumerate() {
        assert_eq!(node.parent, i.checked_sub(1), "node {i}");
    }
    // Each Xform is 1 up from its parent: a wrong parent anywhere puts the last one lower.
    let pose = Pose::rest(&scene);
    assert_eq!(pose.global[depth - 1].w_axis.y, depth as f32);
}

#[test]
fn a_10000_deep_xform_chain_opens_with_each_prim_under_the_last() {
    // One layer without arcs: read from its specs, linear in its size (scene::usd_load::flat).
    xform_chain_opens(&xform_chain(DEPTH), DEPTH);
}

#[test]
fn a_deep_chain_with_an_arc_is_composed_with_each_prim_under_the_last() {
    // An inherit arc puts the stage through openusd's composition, which costs about d^3 in
    // the depth (2.7 s at 1,000 levels, 30 s at 2,400): 400 levels keep the test short.
    let text = xform_chain(400).replacen(
        "def Xform \"a\"\n",
        "class \"Base\"\n{\n}\ndef Xform \"a\" (\n    inherits = </Base>\n)\n",
        1,
    );
    xform_chain_opens(&text, 400);
}

#[test]
fn a_10000_joint_chain_skins_through_every_parent() {
    let scene = load_on_small_stack("joints.usda", &joint_chain(DEPTH)).unwrap();
    assert_eq!(scene.skins.len(), 1);
    let joints = &scene.skins[0].joints;
    assert_eq!(joints.len(), DEPTH);
    for pair in joints.windows(2) {
        assert_eq!(scene.nodes[pair[1]].parent, Some(pair[0]));
    }
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, Some(0), 1.0, &JointOverrides::new());
    // The first joint moved 2 along x; the triangle on the last joint follows it through all
    // 9,999 parents, and stays where it was bound in y and z.
    let skinned = skin_scene(&scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let y = DEPTH as f32;
    assert_eq!(
        skinned[0].vertices.positions,
        [vec3(2.0, y, 0.0), vec3(3.0, y, 0.0), vec3(2.0, y, 1.0)]
    );
}

#[test]
fn nesting_at_the_bound_opens_and_past_it_is_refused_by_name() {
    // Prims nested to the bound, parsed (the parser recurses per prim) but under an inactive root.
    let scene = load_on_small_stack("prims.usda", &inactive_chain(USD_MAX_NESTING)).unwrap();
    assert!(scene.nodes.is_empty());
    let scene = load_on_small_stack("dicts.usda", &nested_dictionaries(USD_MAX_NESTING)).unwrap();
    assert_eq!(scene.nodes.len(), 1);
    for (name, text, line) in [
        (
            "prims-past.usda",
            inactive_chain(USD_MAX_NESTING + 1),
            2 * USD_MAX_NESTING + 5,
        ),
        (
            "dicts-past.usda",
            nested_dictionaries(USD_MAX_NESTING + 1),
            USD_MAX_NESTING + 2,
        ),
    ] {
        let err = load_on_small_stack(name, &text).unwrap_err().to_string();
        let expected =
            format!("more than 20,000 deep (line {line}): past dqview's bound USD_MAX_NESTING");
        assert!(err.contains(&expected), "{name}: {err}");
    }
}
