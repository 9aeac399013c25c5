//! A hand-written ASCII FBX 7.4 file with blend shapes, for the FBX morph target tests.
//!
//! Two unit cubes (control point `i` at `(i & 1, (i >> 1) & 1, (i >> 2) & 1)`),
//! each face with its own normals, so every corner is three dqview vertices:
//!
//! - `Box`: unskinned, node at (5, 0, 0), geometric translation (0, 3, 0) and
//!   scaling (2, 1, 1). Blend channel `Lift` (default 0 %, animated 0 % at 0 s to
//!   100 % at 1 s) moves control point 7 by [`LIFT`] (normal by [`LIFT_NORMAL`]);
//!   channel `Pinch` (40 %, not animated) has an in-between shape at 50 % and its
//!   full shape moves control points 0 and 1 by [`PINCH`].
//! - `Skinned`: skinned to the single bone `Bone` (at (1, 0, 0), turning about +Y
//!   from 0 degrees at 0 s to 90 degrees at 1 s) with weight 1 everywhere.
//!   Channel `Bulge` (default 0 %, animated like `Lift`) moves control point 6 by
//!   [`BULGE`]; its shape also names control point 99, which does not exist.
//!   Channel `Half` (25 %, not animated) reaches its only shape, which moves
//!   control point 5 by [`HALF`], at 50 % (`FullWeights`), so at 25 % it is half on.
//!
//! All curves are linear, at 30 frames per second.

use std::fmt::Write as _;

/// FBX time units per second.
const TICKS_PER_SECOND: i64 = 46_186_158_000;

/// `Lift`'s displacement of control point 7 in the file's numbers (before the geometric scaling).
pub const LIFT: [f32; 3] = [0.5, 0.0, 0.25];
/// `Lift`'s normal displacement of control point 7 in the file's numbers.
pub const LIFT_NORMAL: [f32; 3] = [0.1, 0.0, 0.0];
/// `Pinch`'s full-shape displacements of control points 0 and 1.
pub const PINCH: [[f32; 3]; 2] = [[0.0, 0.0, -0.25], [0.0, 0.0, -0.5]];
/// `Pinch`'s default weight (`DeformPercent` / 100).
pub const PINCH_DEFAULT: f32 = 0.4;
/// `Bulge`'s displacement of control point 6.
pub const BULGE: [f32; 3] = [0.0, 0.0, 1.0];
/// `Half`'s displacement of control point 5, reached at 50 %.
pub const HALF: [f32; 3] = [0.0, 0.2, 0.0];
/// `Half`'s default weight (`DeformPercent` / 100).
pub const HALF_DEFAULT: f32 = 0.25;
/// The percentage at which `Half` reaches its shape, / 100.
pub const HALF_FULL: f32 = 0.5;
/// The `Box` node's translation.
pub const BOX_TRANSLATION: [f32; 3] = [5.0, 0.0, 0.0];
/// The `Box` node's geometric translation and scaling.
pub const BOX_GEOMETRIC: ([f32; 3], [f32; 3]) = ([0.0, 3.0, 0.0], [2.0, 1.0, 1.0]);
/// The bone's translation (also its bind position).
pub const BONE_TRANSLATION: [f32; 3] = [1.0, 0.0, 0.0];
/// The bone's rotation about +Y at 1 s, in degrees (0 at 0 s).
pub const BONE_TURN_DEG: f32 = 90.0;

/// Control point `i` of the cubes.
pub fn cube_point(i: usize) -> [f32; 3] {
    [(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32]
}

/// The cube's quads (outward, counter-clockwise) with their normals.
const FACES: [([u32; 4], [i32; 3]); 6] = [
    ([0, 2, 3, 1], [0, 0, -1]),
    ([4, 5, 7, 6], [0, 0, 1]),
    ([0, 1, 5, 4], [0, -1, 0]),
    ([2, 6, 7, 3], [0, 1, 0]),
    ([0, 4, 6, 2], [-1, 0, 0]),
    ([1, 3, 7, 5], [1, 0, 0]),
];

/// Comma-separated values.
fn list<T: ToString>(values: impl IntoIterator<Item = T>) -> String {
    values
        .into_iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// An FBX array property: `Name: *N { a: ... }`.
fn array<T: ToString>(name: &str, values: Vec<T>) -> String {
    format!(
        "\t\t{name}: *{} {{\n\t\t\ta: {}\n\t\t}}\n",
        values.len(),
        list(values)
    )
}

/// The cube mesh geometry `id` named `name`, with per-corner normals.
fn cube_geometry(id: u64, name: &str) -> String {
    let points: Vec<f32> = (0..8).flat_map(cube_point).collect();
    let mut indices = Vec::new();
    let mut normals = Vec::new();
    for (quad, normal) in FACES {
        for (k, &i) in quad.iter().enumerate() {
            let i = i as i64;
            indices.push(if k == 3 { -i - 1 } else { i });
            normals.extend(normal);
        }
    }
    format!(
        "\tGeometry: {id}, \"Geometry::{name}\", \"Mesh\" {{\n{}{}\t\tGeometryVersion: 124\n\
         \t\tLayerElementNormal: 0 {{\n\t\t\tVersion: 101\n\t\t\tName: \"\"\n\
         \t\t\tMappingInformationType: \"ByPolygonVertex\"\n\
         \t\t\tReferenceInformationType: \"Direct\"\n{}\t\t}}\n\
         \t\tLayer: 0 {{\n\t\t\tVersion: 100\n\t\t\tLayerElement:  {{\n\
         \t\t\t\tType: \"LayerElementNormal\"\n\t\t\t\tTypedIndex: 0\n\t\t\t}}\n\t\t}}\n\t}}\n",
        array("Vertices", points),
        array("PolygonVertexIndex", indices),
        array("Normals", normals),
    )
}

/// A `Properties70` block of `P:` lines.
fn props(lines: &[String]) -> String {
    let mut out = String::from("\t\tProperties70:  {\n");
    for l in lines {
        let _ = writeln!(out, "\t\t\tP: {l}");
    }
    out.push_str("\t\t}\n");
    out
}

/// A vector property line.
fn vec_prop(name: &str, kind: &str, v: [f32; 3]) -> String {
    format!(
        "\"{name}\", \"{kind}\", \"\", \"A\",{},{},{}",
        v[0], v[1], v[2]
    )
}

/// A model (node) `id`.
fn model(id: u64, name: &str, class: &str, lines: &[String]) -> String {
    format!(
        "\tModel: {id}, \"Model::{name}\", \"{class}\" {{\n\t\tVersion: 232\n{}\t}}\n",
        props(lines)
    )
}

/// A blend shape channel `id` with default `percent` and the full weights of its shapes.
fn channel(id: u64, name: &str, percent: f32, full_weights: Vec<f32>) -> String {
    format!(
        "\tDeformer: {id}, \"SubDeformer::{name}\", \"BlendShapeChannel\" {{\n\t\tVersion: 100\n\
         \t\tDeformPercent: {percent}\n{}{}\t}}\n",
        array("FullWeights", full_weights),
        props(&[format!(
            "\"DeformPercent\", \"Number\", \"\", \"A\",{percent}"
        )]),
    )
}

/// A shape geometry `id` moving `offsets` (control point, position delta, normal delta).
fn shape(id: u64, name: &str, offsets: &[(i64, [f32; 3], [f32; 3])]) -> String {
    format!(
        "\tGeometry: {id}, \"Geometry::{name}\", \"Shape\" {{\n\t\tVersion: 100\n{}{}{}\t}}\n",
        array("Indexes", offsets.iter().map(|o| o.0).collect()),
        array("Vertices", offsets.iter().flat_map(|o| o.1).collect()),
        array("Normals", offsets.iter().flat_map(|o| o.2).collect()),
    )
}

/// A linear curve `id` from `from` at 0 s to `to` at 1 s.
fn curve(id: u64, from: f32, to: f32) -> String {
    format!(
        "\tAnimationCurve: {id}, \"AnimCurve::\", \"\" {{\n\t\tDefault: {from}\n\t\tKeyVer: 4009\n\
         {}{}{}{}{}\t}}\n",
        array("KeyTime", vec![0, TICKS_PER_SECOND]),
        array("KeyValueFloat", vec![from, to]),
        array("KeyAttrFlags", vec![4]),
        array("KeyAttrDataFloat", vec![0, 0, 0, 0]),
        array("KeyAttrRefCount", vec![2]),
    )
}

/// A curve node `id` named `name` with the channels `channels` (all 0 by default).
fn curve_node(id: u64, name: &str, channels: &[&str]) -> String {
    let lines: Vec<String> = channels
        .iter()
        .map(|c| format!("\"d|{c}\", \"Number\", \"\", \"A\",0"))
        .collect();
    format!(
        "\tAnimationCurveNode: {id}, \"AnimCurveNode::{name}\", \"\" {{\n{}\t}}\n",
        props(&lines)
    )
}

/// The 4x4 identity and a translation by `t`, column-major, as FBX stores matrices.
fn translation_matrix(t: [f32; 3]) -> Vec<f32> {
    vec![
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, t[0], t[1], t[2], 1.0,
    ]
}

/// The whole file as ASCII FBX 7.4.
pub fn blend_shape_fbx() -> String {
    let zero = [0.0; 3];
    let mut objects = String::new();
    objects += &cube_geometry(100, "BoxGeo");
    objects += &model(
        200,
        "Box",
        "Mesh",
        &[
            vec_prop("Lcl Translation", "Lcl Translation", BOX_TRANSLATION),
            vec_prop("GeometricTranslation", "Vector3D", BOX_GEOMETRIC.0),
            vec_prop("GeometricScaling", "Vector3D", BOX_GEOMETRIC.1),
        ],
    );
    objects += "\tDeformer: 300, \"Deformer::BoxMorph\", \"BlendShape\" {\n\t\tVersion: 100\n\t}\n";
    objects += &channel(310, "Lift", 0.0, vec![100.0]);
    objects += &shape(311, "LiftShape", &[(7, LIFT, LIFT_NORMAL)]);
    objects += &channel(320, "Pinch", 100.0 * PINCH_DEFAULT, vec![50.0, 100.0]);
    objects += &shape(
        321,
        "PinchHalf",
        &[(0, [0.0, 0.0, -0.1], zero), (1, [0.0, 0.0, -0.1], zero)],
    );
    // Listed out of order on purpose: ufbx sorts a shape's offsets.
    objects += &shape(
        322,
        "PinchFull",
        &[(1, PINCH[1], zero), (0, PINCH[0], zero)],
    );

    objects += &cube_geometry(400, "SkinnedGeo");
    objects += &model(500, "Skinned", "Mesh", &[]);
    objects += &model(
        600,
        "Bone",
        "LimbNode",
        &[vec_prop(
            "Lcl Translation",
            "Lcl Translation",
            BONE_TRANSLATION,
        )],
    );
    objects += "\tDeformer: 700, \"Deformer::Skin\", \"Skin\" {\n\t\tVersion: 101\n\t}\n";
    objects += &format!(
        "\tDeformer: 710, \"SubDeformer::Cluster\", \"Cluster\" {{\n\t\tVersion: 100\n{}{}{}{}\t}}\n",
        array("Indexes", (0..8).collect()),
        array("Weights", vec![1; 8]),
        // As the tools write it: the mesh (at the origin) in the bone's space at bind time.
        array(
            "Transform",
            translation_matrix(BONE_TRANSLATION.map(|x| -x)),
        ),
        array("TransformLink", translation_matrix(BONE_TRANSLATION)),
    );
    objects +=
        "\tDeformer: 800, \"Deformer::SkinMorph\", \"BlendShape\" {\n\t\tVersion: 100\n\t}\n";
    objects += &channel(810, "Bulge", 0.0, vec![100.0]);
    objects += &shape(
        811,
        "BulgeShape",
        &[(6, BULGE, zero), (99, [9.0, 9.0, 9.0], zero)],
    );
    objects += &channel(820, "Half", 100.0 * HALF_DEFAULT, vec![100.0 * HALF_FULL]);
    objects += &shape(821, "HalfShape", &[(5, HALF, zero)]);

    objects += &format!(
        "\tAnimationStack: 900, \"AnimStack::Take\", \"\" {{\n{}\t}}\n",
        props(&[
            "\"LocalStart\", \"KTime\", \"Time\", \"\",0".to_owned(),
            format!("\"LocalStop\", \"KTime\", \"Time\", \"\",{TICKS_PER_SECOND}"),
        ])
    );
    objects += "\tAnimationLayer: 910, \"AnimLayer::BaseLayer\", \"\" {\n\t}\n";
    objects += &curve_node(920, "DeformPercent", &["DeformPercent"]);
    objects += &curve(921, 0.0, 100.0);
    objects += &curve_node(930, "DeformPercent", &["DeformPercent"]);
    objects += &curve(931, 0.0, 100.0);
    objects += &curve_node(940, "R", &["X", "Y", "Z"]);
    objects += &curve(941, 0.0, BONE_TURN_DEG);

    let connections = [
        "\"OO\",200,0",
        "\"OO\",100,200",
        "\"OO\",300,100",
        "\"OO\",310,300",
        "\"OO\",311,310",
        "\"OO\",320,300",
        "\"OO\",321,320",
        "\"OO\",322,320",
        "\"OO\",500,0",
        "\"OO\",600,0",
        "\"OO\",400,500",
        "\"OO\",700,400",
        "\"OO\",710,700",
        "\"OO\",600,710",
        "\"OO\",800,400",
        "\"OO\",810,800",
        "\"OO\",811,810",
        "\"OO\",820,800",
        "\"OO\",821,820",
        "\"OO\",910,900",
        "\"OO\",920,910",
        "\"OO\",930,910",
        "\"OO\",940,910",
        "\"OP\",920,310, \"DeformPercent\"",
        "\"OP\",921,920, \"d|DeformPercent\"",
        "\"OP\",930,810, \"DeformPercent\"",
        "\"OP\",931,930, \"d|DeformPercent\"",
        "\"OP\",940,600, \"Lcl Rotation\"",
        "\"OP\",941,940, \"d|Y\"",
    ];
    let mut text = String::from(
        "; FBX 7.4.0 project file\n\
         FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n\
         \tCreator: \"dqview tests\"\n}\n\
         GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n\
         \t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n\
         \t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n\
         \t\tP: \"TimeMode\", \"enum\", \"\", \"\",6\n\t}\n}\n",
    );
    text += "Objects:  {\n";
    text += &objects;
    text += "}\nConnections:  {\n";
    for c in connections {
        let _ = writeln!(text, "\tC: {c}");
    }
    text += "}\n";
    text
}
