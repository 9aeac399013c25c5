//! `write_glb` on scenes that use every feature the writer knows, and on scenes it must refuse.

mod support;

use dqview::influences::Influences;
use dqview::scene::{
    AlphaMode, Animation, Channel, Interpolation, MAX_SKIN_JOINTS, Material, Mesh, MorphTarget,
    Node, NodeTransform, Primitive, Property, Scene, SceneError, Skin, Texture, Trs, write_glb,
};
use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use support::{assert_scenes_match, check_glb_container, scene_from_glb};

/// A scene touching every feature: matrix and TRS nodes, tangents, a texture, eight
/// influences (two sets), morph targets, and STEP / LINEAR / CUBICSPLINE channels.
fn kitchen_sink() -> Scene {
    let positions = vec![
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(1.0, 1.0, -0.5),
    ];
    let influences = Influences::from_rows((0..4u16).map(|v| {
        // Vertex 0 gets eight joints, so two JOINTS/WEIGHTS sets are needed.
        let count = if v == 0 { 8 } else { 1 + v };
        (0..count).map(move |j| (j, 1.0 + f32::from(j)))
    }));
    let primitive = Primitive {
        positions,
        normals: vec![Vec3::Z; 4],
        tangents: Some(vec![Vec4::new(1.0, 0.0, 0.0, -1.0); 4]),
        uvs: Some(vec![
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
        ]),
        colors: Some(vec![
            Vec4::new(1.0, 0.0, 0.0, 1.0),
            Vec4::new(0.0, 1.0, 0.0, 0.5),
            Vec4::new(0.0, 0.0, 1.0, 0.25),
            Vec4::new(128.0 / 255.0, 0.125, 0.0, 0.0),
        ]),
        dqs_blend: Some(vec![0.0, 0.25, 0.5, 1.0]),
        skinning_method: None,
        control_points: None,
        indices: vec![0, 1, 2, 2, 1, 3],
        topology: dqview::scene::Topology::Triangles,
        influences: Some(influences),
        material: Some(1),
        morph_targets: vec![
            MorphTarget {
                name: String::from("lift"),
                positions: vec![Vec3::new(0.0, 0.0, 0.5); 4],
                normals: vec![Vec3::new(0.0, 0.125, 0.0); 4],
                tangents: Vec::new(),
            },
            MorphTarget {
                name: String::from("spread"),
                positions: (0..4)
                    .map(|v| Vec3::new(0.25 * v as f32, 0.0, 0.0))
                    .collect(),
                normals: Vec::new(),
                tangents: vec![Vec3::new(0.0, 0.0, 0.25); 4],
            },
        ],
    };
    let mut nodes: Vec<Node> = (0..8)
        .map(|j| Node {
            name: format!("joint{j}"),
            parent: (j > 0).then(|| j - 1),
            children: if j < 7 { vec![j + 1] } else { Vec::new() },
            transform: NodeTransform::Trs(Trs {
                translation: Vec3::new(0.0, 0.25, 0.0),
                rotation: Quat::from_rotation_x(0.1 * j as f32),
                scale: Vec3::splat(1.0 + 0.01 * j as f32),
            }),
            ..Node::default()
        })
        .collect();
    // Animated nodes must use TRS, so the matrices sit on nodes no channel targets.
    nodes.push(Node {
        name: String::from("mesh"),
        mesh: Some(0),
        skin: Some(0),
        morph_weights: vec![0.75, 0.125],
        ..Node::default()
    });
    nodes.push(Node {
        name: String::from("matrix"),
        transform: NodeTransform::Matrix(Mat4::from_cols_array(&[
            1.0, 0.5, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 2.0, 0.0, 0.0, 1.0,
        ])),
        ..Node::default()
    });
    nodes.push(Node {
        name: String::from("identity matrix"),
        transform: NodeTransform::Matrix(Mat4::IDENTITY),
        ..Node::default()
    });
    let times = vec![0.0, 0.5, 1.25];
    Scene {
        source: String::from("test"),
        nodes,
        roots: vec![0, 8, 9, 10],
        meshes: vec![Mesh {
            name: String::from("quad"),
            primitives: vec![primitive],
            morph_weights: vec![0.25, 0.5],
        }],
        skins: vec![Skin {
            name: String::from("skin"),
            joints: (0..8).collect(),
            inverse_bind: (0..8)
                .map(|j| Mat4::from_translation(Vec3::new(0.0, -0.25 * j as f32, 0.0)))
                .collect(),
            skeleton: None,
        }],
        materials: vec![
            Material::default(),
            Material {
                name: String::from("textured"),
                base_color_factor: Vec4::new(0.5, 0.25, 0.125, 0.75),
                base_color_texture: Some(0),
                double_sided: true,
                alpha_mode: AlphaMode::Mask { cutoff: 0.375 },
            },
            Material {
                name: String::from("glass"),
                alpha_mode: AlphaMode::Blend,
                ..Material::default()
            },
        ],
        textures: vec![Texture {
            width: 2,
            height: 2,
            rgba8: vec![255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 10, 20, 30, 40],
        }],
        animations: vec![
            Animation {
                name: String::from("all kinds"),
                channels: vec![
                    Channel {
                        node: 1,
                        property: Property::Translation,
                        interpolation: Interpolation::Step,
                        times_s: times.clone(),
                        values: (0..9).map(|i| i as f32 * 0.1).collect(),
                    },
                    Channel {
                        node: 2,
                        property: Property::Rotation,
                        interpolation: Interpolation::Linear,
                        times_s: times.clone(),
                        values: [0.0, 0.5, 1.0]
                            .iter()
                            .flat_map(|&a| Quat::from_rotation_z(a).to_array())
                            .collect(),
                    },
                    Channel {
                        node: 3,
                        property: Property::Scale,
                        interpolation: Interpolation::CubicSpline,
                        times_s: times.clone(),
                        values: (0..27).map(|i| 1.0 + i as f32 * 0.01).collect(),
                    },
                    Channel {
                        node: 8,
                        property: Property::MorphWeights(2),
                        interpolation: Interpolation::Linear,
                        times_s: times,
                        values: vec![0.0, 1.0, 0.5, 0.5, 1.0, 0.0],
                    },
                ],
            },
            Animation {
                name: String::from("second"),
                channels: vec![Channel {
                    node: 0,
                    property: Property::Translation,
                    interpolation: Interpolation::Linear,
                    times_s: vec![0.0],
                    values: vec![1.0, 2.0, 3.0],
                }],
            },
        ],
        warnings: vec![String::from("not written")],
        sanitized: 0,
        ..Scene::default()
    }
}

#[test]
fn kitchen_sink_round_trips() {
    let scene = kitchen_sink();
    let glb = write_glb(&scene).unwrap();
    check_glb_container(&glb);
    let gltf = gltf::Gltf::from_slice(&glb).unwrap();
    let prim = gltf.meshes().next().unwrap().primitives().next().unwrap();
    assert!(prim.get(&gltf::Semantic::Joints(1)).is_some());
    assert!(prim.get(&gltf::Semantic::Joints(2)).is_none());
    assert_eq!(prim.morph_targets().len(), 2);
    let back = scene_from_glb(&glb);
    assert_scenes_match(&scene, &back, 1e-6);
    assert_eq!(
        back.meshes[0].primitives[0]
            .influences
            .as_ref()
            .unwrap()
            .of(0)
            .len(),
        8
    );
}

#[test]
fn writing_is_deterministic() {
    let scene = kitchen_sink();
    assert_eq!(write_glb(&scene).unwrap(), write_glb(&scene).unwrap());
}

#[test]
fn empty_parts_are_left_out() {
    let mut scene = kitchen_sink();
    // Mesh 1 has only an empty primitive, so node 9's reference to it is dropped.
    scene.meshes.push(Mesh {
        name: String::from("empty"),
        primitives: vec![Primitive::default()],
        morph_weights: Vec::new(),
    });
    scene.nodes[9].mesh = Some(1);
    scene.animations.push(Animation {
        name: String::from("keyless"),
        channels: vec![Channel {
            node: 0,
            property: Property::Rotation,
            interpolation: Interpolation::Linear,
            times_s: Vec::new(),
            values: Vec::new(),
        }],
    });
    let glb = write_glb(&scene).unwrap();
    let back = scene_from_glb(&glb);
    assert_eq!(back.meshes.len(), 1);
    assert_eq!(back.nodes[9].mesh, None);
    assert_eq!(back.animations.len(), 2);
}

fn assert_write_error(scene: &Scene, needle: &str) {
    match write_glb(scene) {
        Err(SceneError::Write(msg)) => assert!(msg.contains(needle), "{msg:?} lacks {needle:?}"),
        other => panic!("expected a write error about {needle}, got {other:?}"),
    }
}

#[test]
fn bad_scenes_are_refused_with_context() {
    let mut s = kitchen_sink();
    s.skins[0].joints = vec![0; MAX_SKIN_JOINTS + 1];
    s.skins[0].inverse_bind = Vec::new();
    assert_write_error(&s, "joints");

    let mut s = kitchen_sink();
    s.nodes[9].mesh = Some(5);
    assert_write_error(&s, "node 9 mesh");

    let mut s = kitchen_sink();
    s.meshes[0].primitives[0].normals.pop();
    assert_write_error(&s, "NORMAL");

    let mut s = kitchen_sink();
    s.meshes[0].primitives[0].indices.push(4);
    assert_write_error(&s, "index 4");

    let mut s = kitchen_sink();
    s.meshes[0].primitives[0].positions[2].x = f32::NAN;
    assert_write_error(&s, "POSITION");

    let mut s = kitchen_sink();
    s.nodes[0].transform = NodeTransform::Trs(Trs {
        translation: Vec3::new(f32::INFINITY, 0.0, 0.0),
        ..Trs::IDENTITY
    });
    assert_write_error(&s, "node 0 transform");

    let mut s = kitchen_sink();
    s.animations[0].channels[2].values.pop();
    assert_write_error(&s, "channel 2 output");

    let mut s = kitchen_sink();
    s.textures[0].rgba8.pop();
    assert_write_error(&s, "texture 0");

    let mut s = kitchen_sink();
    s.skins[0].inverse_bind.pop();
    assert_write_error(&s, "inverse bind");
}
