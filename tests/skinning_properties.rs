//! Properties of the dual quaternion math and the CPU reference skinning.

use dqview::dq::{DualQuat, blend, split_rigid};
use dqview::influences::Influences;
use dqview::skin::{Betas, JointPalette, SkinMesh, SkinnedVertices, SkinningMode, skin_vertices};
use glam::{Mat4, Quat, Vec3, Vec4};
use proptest::prelude::*;

fn arb_quat() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_filter_map(
        "non-zero",
        |(x, y, z, w)| {
            let q = Quat::from_xyzw(x, y, z, w);
            (q.length() > 0.1).then(|| q.normalize())
        },
    )
}

fn arb_vec3(range: f32) -> impl Strategy<Value = Vec3> {
    (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn arb_rigid() -> impl Strategy<Value = Mat4> {
    (arb_quat(), arb_vec3(10.0)).prop_map(|(q, t)| Mat4::from_rotation_translation(q, t))
}

/// Skins a single vertex through the whole-array path.
fn skin_one(
    palette: &JointPalette,
    mode: SkinningMode,
    p: Vec3,
    n: Vec3,
    row: Vec<(u16, f32)>,
) -> (Vec3, Vec3) {
    let influences = Influences::from_rows([row]);
    let mesh = SkinMesh {
        positions: &[p],
        normals: &[n],
        tangents: &[],
        influences: &influences,
    };
    let mut out = SkinnedVertices::default();
    skin_vertices(palette, &mesh, mode, Betas::Uniform(0.5), &mut out);
    (out.positions[0], out.normals[0])
}

proptest! {
    #[test]
    fn mat4_to_dq_to_mat4_round_trips(m in arb_rigid()) {
        let back = DualQuat::from_rigid_mat4(m).to_mat4();
        prop_assert!(back.abs_diff_eq(m, 1e-4), "{m} -> {back}");
    }

    #[test]
    fn dq_matches_its_matrix_on_points(m in arb_rigid(), p in arb_vec3(5.0)) {
        let dq = DualQuat::from_rigid_mat4(m);
        prop_assert!(dq.is_normalized());
        let a = dq.transform_point3(p);
        let b = m.transform_point3(p);
        prop_assert!(a.abs_diff_eq(b, 1e-4), "{a} vs {b}");
    }

    #[test]
    fn single_influence_reproduces_rigid_transform(m in arb_rigid(), p in arb_vec3(3.0), n in arb_quat()) {
        let palette = JointPalette::from_matrices(&[Mat4::IDENTITY, m]);
        let normal = n * Vec3::Y;
        for mode in SkinningMode::ALL {
            let (sp, sn) = skin_one(&palette, mode, p, normal, vec![(1, 1.0)]);
            let ep = m.transform_point3(p);
            let en = m.transform_vector3(normal);
            prop_assert!(sp.abs_diff_eq(ep, 1e-5 * (1.0 + ep.length())), "{mode}: {sp} vs {ep}");
            prop_assert!(sn.abs_diff_eq(en, 1e-5), "{mode}: {sn} vs {en}");
        }
    }

    #[test]
    fn shared_transform_makes_dqs_equal_lbs(m in arb_rigid(), p in arb_vec3(3.0), w in 0.05f32..0.95) {
        let palette = JointPalette::from_matrices(&[m, m, m]);
        let row = vec![(0, w), (1, 1.0 - w), (2, 0.3)];
        let (lp, ln) = skin_one(&palette, SkinningMode::Lbs, p, Vec3::Z, row.clone());
        let (dp, dn) = skin_one(&palette, SkinningMode::Dqs, p, Vec3::Z, row);
        prop_assert!(lp.abs_diff_eq(dp, 1e-4), "{lp} vs {dp}");
        prop_assert!(ln.abs_diff_eq(dn, 1e-4), "{ln} vs {dn}");
    }

    #[test]
    fn q_and_minus_q_blend_alike(a in arb_rigid(), b in arb_rigid(), w in 0.0f32..1.0) {
        let qa = DualQuat::from_rigid_mat4(a);
        let qb = DualQuat::from_rigid_mat4(b);
        let neg = DualQuat::from_parts(-qb.real, -qb.dual);
        let x = blend([(qa, w), (qb, 1.0 - w)]);
        let y = blend([(qa, w), (neg, 1.0 - w)]);
        prop_assert!(x.abs_diff_eq(y, 1e-5), "{x:?} vs {y:?}");
        // Flipping the pivot's sign flips the whole result, which is the same transform.
        let negp = DualQuat::from_parts(-qa.real, -qa.dual);
        let z = blend([(negp, w), (qb, 1.0 - w)]);
        let p = Vec3::new(0.3, 1.0, -2.0);
        prop_assert!(x.transform_point3(p).abs_diff_eq(z.transform_point3(p), 1e-4));
    }

    #[test]
    fn normals_stay_unit(ms in proptest::collection::vec(arb_rigid(), 4), w in proptest::collection::vec(0.0f32..1.0, 4), n in arb_quat(), s in 0.2f32..3.0) {
        let mut mats = ms.clone();
        mats[3] *= Mat4::from_scale(Vec3::new(s, 1.0, 1.0 / s));
        let palette = JointPalette::from_matrices(&mats);
        let row: Vec<(u16, f32)> = w.iter().enumerate().map(|(j, &w)| (j as u16, w)).collect();
        for mode in SkinningMode::ALL {
            let (_, sn) = skin_one(&palette, mode, Vec3::ONE, n * Vec3::X, row.clone());
            prop_assert!((sn.length() - 1.0).abs() < 1e-4, "{mode}: |n| = {}", sn.length());
        }
    }

    #[test]
    fn random_inputs_never_give_nan(
        raw in proptest::collection::vec(proptest::num::f32::ANY, 32),
        w in proptest::collection::vec(proptest::num::f32::ANY, 4),
        p in proptest::collection::vec(proptest::num::f32::ANY, 3),
    ) {
        let mats: Vec<Mat4> = raw.chunks(16).map(Mat4::from_cols_slice).collect();
        let palette = JointPalette::from_matrices(&mats);
        prop_assert!(palette.dual_quats.iter().all(|q| q.is_finite()));
        let row: Vec<(u16, f32)> = w.iter().enumerate().map(|(j, &w)| (j as u16 % 3, w)).collect();
        let pos = Vec3::new(p[0], p[1], p[2]);
        for mode in SkinningMode::ALL {
            let (sp, sn) = skin_one(&palette, mode, pos, Vec3::Y, row.clone());
            prop_assert!(sp.is_finite() && sn.is_finite(), "{mode}: {sp} {sn}");
        }
    }

    #[test]
    fn polar_split_is_exact(m in arb_rigid(), s in arb_vec3(3.0)) {
        let m = m * Mat4::from_scale(s);
        let split = split_rigid(m);
        prop_assert!(split.rotation.is_finite() && split.scale_shear.is_finite());
        let a = glam::Mat3::from_quat(split.rotation) * split.scale_shear;
        prop_assert!(a.abs_diff_eq(glam::Mat3::from_mat4(m), 1e-3 * (1.0 + s.abs().max_element())));
    }
}

/// A tube along +Y from y = 0 to y = 2: rings of `segments` vertices every 1/`rings_per_unit`.
struct Tube {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    influences: Influences,
    /// Tip weight of each vertex.
    tip_weight: Vec<f32>,
}

fn tube(radius: f32, segments: usize, rings: usize) -> Tube {
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut rows = Vec::new();
    let mut tip_weight = Vec::new();
    for r in 0..=rings {
        let y = 2.0 * r as f32 / rings as f32;
        // Linear falloff of the tip weight across y in [0.5, 1.5].
        let w = ((y - 0.5) / 1.0).clamp(0.0, 1.0);
        for s in 0..segments {
            let a = std::f32::consts::TAU * s as f32 / segments as f32;
            let n = Vec3::new(a.cos(), 0.0, a.sin());
            positions.push(n * radius + Vec3::Y * y);
            normals.push(n);
            rows.push(vec![(0u16, 1.0 - w), (1u16, w)]);
            tip_weight.push(w);
        }
    }
    Tube {
        positions,
        normals,
        influences: Influences::from_rows(rows),
        tip_weight,
    }
}

/// Twisting the tip joint of a 2-joint tube 180 degrees: the candy wrapper.
#[test]
fn candy_wrapper_lbs_collapses_dqs_keeps_radius() {
    let radius = 0.25;
    let t = tube(radius, 32, 40);
    // Tip joint at y = 1, twisted 180 degrees about its own axis (+Y).
    let pivot = Vec3::Y;
    let twist = Mat4::from_translation(pivot)
        * Mat4::from_quat(Quat::from_rotation_y(std::f32::consts::PI))
        * Mat4::from_translation(-pivot);
    let palette = JointPalette::from_matrices(&[Mat4::IDENTITY, twist]);
    let mesh = SkinMesh {
        positions: &t.positions,
        normals: &t.normals,
        tangents: &[],
        influences: &t.influences,
    };
    let radial = |p: Vec3| Vec3::new(p.x, 0.0, p.z).length();

    let mut dqs = SkinnedVertices::default();
    skin_vertices(
        &palette,
        &mesh,
        SkinningMode::Dqs,
        Betas::Uniform(1.0),
        &mut dqs,
    );
    let worst_dqs = dqs
        .positions
        .iter()
        .map(|&p| (radial(p) - radius).abs())
        .fold(0.0f32, f32::max);
    assert!(worst_dqs < 1e-4, "DQS changed a radius by {worst_dqs}");
    for n in &dqs.normals {
        assert!((n.length() - 1.0).abs() < 1e-5);
    }

    let mut lbs = SkinnedVertices::default();
    skin_vertices(
        &palette,
        &mesh,
        SkinningMode::Lbs,
        Betas::Uniform(0.0),
        &mut lbs,
    );
    // The middle ring (tip weight 0.5) collapses onto the axis under LBS.
    let middle: Vec<f32> = lbs
        .positions
        .iter()
        .zip(&t.tip_weight)
        .filter(|(_, w)| (**w - 0.5).abs() < 1e-6)
        .map(|(p, _)| radial(*p))
        .collect();
    assert!(!middle.is_empty());
    let worst_lbs = middle.iter().copied().fold(0.0f32, f32::max);
    assert!(
        worst_lbs < 1e-5,
        "LBS middle ring radius {worst_lbs}, expected collapse to ~0"
    );
    // Ends are untouched by both: weight 0 at the base, weight 1 (pure twist) at the top.
    for (p, w) in lbs.positions.iter().zip(&t.tip_weight) {
        if *w == 0.0 || *w == 1.0 {
            assert!((radial(*p) - radius).abs() < 1e-5);
        }
    }
    // Hybrid at beta 0.5 sits half way between the two in radius at the middle ring.
    let mut hybrid = SkinnedVertices::default();
    skin_vertices(
        &palette,
        &mesh,
        SkinningMode::Hybrid,
        Betas::Uniform(0.5),
        &mut hybrid,
    );
    for (h, (l, d)) in hybrid
        .positions
        .iter()
        .zip(lbs.positions.iter().zip(&dqs.positions))
    {
        assert!(h.abs_diff_eq((*l + *d) * 0.5, 1e-5));
    }
}

/// A bend, not a twist: DQS keeps the joint ring's radius too while LBS shrinks it.
#[test]
fn bend_of_90_degrees_shrinks_lbs_more_than_dqs() {
    let t = tube(0.25, 32, 40);
    let pivot = Vec3::Y;
    let bend = Mat4::from_translation(pivot)
        * Mat4::from_quat(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2))
        * Mat4::from_translation(-pivot);
    let palette = JointPalette::from_matrices(&[Mat4::IDENTITY, bend]);
    let mesh = SkinMesh {
        positions: &t.positions,
        normals: &t.normals,
        tangents: &[],
        influences: &t.influences,
    };
    let mut lbs = SkinnedVertices::default();
    let mut dqs = SkinnedVertices::default();
    skin_vertices(
        &palette,
        &mesh,
        SkinningMode::Lbs,
        Betas::Uniform(0.0),
        &mut lbs,
    );
    skin_vertices(
        &palette,
        &mesh,
        SkinningMode::Dqs,
        Betas::Uniform(1.0),
        &mut dqs,
    );
    // Distance of the middle ring's points from the pivot's blended position.
    let spread = |ps: &[Vec3]| {
        let ring: Vec<Vec3> = ps
            .iter()
            .zip(&t.tip_weight)
            .filter(|(_, w)| (**w - 0.5).abs() < 1e-6)
            .map(|(p, _)| *p)
            .collect();
        let c = ring.iter().copied().sum::<Vec3>() / ring.len() as f32;
        ring.iter()
            .map(|p| (*p - c).length())
            .fold(f32::MAX, f32::min)
    };
    let l = spread(&lbs.positions);
    let d = spread(&dqs.positions);
    assert!(l < d, "LBS ring {l} should be thinner than DQS ring {d}");
}

/// Non-rigid joints: the two-phase path reproduces the full matrix for one influence,
/// mirrors included, and blending scale keeps positions between the two joints.
#[test]
fn two_phase_scale_shear_and_mirror() {
    let scaled =
        Mat4::from_rotation_translation(Quat::from_rotation_x(0.5), Vec3::new(0.0, 1.0, 0.0))
            * Mat4::from_scale(Vec3::new(2.0, 1.0, 0.5));
    let mirror = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    let palette = JointPalette::from_matrices(&[Mat4::IDENTITY, scaled, mirror]);
    assert!(!palette.is_rigid());
    let p = Vec3::new(0.4, -0.3, 0.8);
    let (sp, _) = skin_one(&palette, SkinningMode::Dqs, p, Vec3::Y, vec![(1, 1.0)]);
    assert!(sp.abs_diff_eq(scaled.transform_point3(p), 1e-5), "{sp}");
    let (mp, mn) = skin_one(&palette, SkinningMode::Dqs, p, Vec3::X, vec![(2, 1.0)]);
    assert!(mp.abs_diff_eq(Vec3::new(-0.4, -0.3, 0.8), 1e-5), "{mp}");
    assert!(mn.abs_diff_eq(-Vec3::X, 1e-5), "{mn}");
    // Half identity, half uniform scale 3 about the origin: DQS scales by 2.
    let palette =
        JointPalette::from_matrices(&[Mat4::IDENTITY, Mat4::from_scale(Vec3::splat(3.0))]);
    let (hp, _) = skin_one(
        &palette,
        SkinningMode::Dqs,
        p,
        Vec3::Y,
        vec![(0, 0.5), (1, 0.5)],
    );
    assert!(hp.abs_diff_eq(p * 2.0, 1e-5), "{hp}");
}

/// Vertices with no weight stay at their bind position and are counted.
#[test]
fn unweighted_vertices_stay_at_bind() {
    let palette = JointPalette::from_matrices(&[Mat4::from_translation(Vec3::X)]);
    let influences = Influences::from_rows([vec![(0u16, 0.0f32)], vec![(0, 1.0)]]);
    assert_eq!(influences.unweighted_vertices(), 1);
    let positions = [Vec3::Y, Vec3::Y];
    let tangents = [Vec4::new(1.0, 0.0, 0.0, -1.0); 2];
    let mesh = SkinMesh {
        positions: &positions,
        normals: &[],
        tangents: &tangents,
        influences: &influences,
    };
    let mut out = SkinnedVertices::default();
    for mode in SkinningMode::ALL {
        skin_vertices(&palette, &mesh, mode, Betas::Uniform(1.0), &mut out);
        assert_eq!(out.positions[0], Vec3::Y);
        assert!(out.positions[1].abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-6));
        assert!(out.normals.is_empty());
        assert_eq!(out.tangents[1].w, -1.0);
    }
}

/// Degenerate joint matrices (zero scale, NaN, Inf) skin to finite values under every mode.
#[test]
fn degenerate_joints_give_finite_output() {
    let mut nan = Mat4::IDENTITY;
    nan.z_axis.y = f32::NAN;
    let mut inf = Mat4::IDENTITY;
    inf.w_axis.x = f32::INFINITY;
    let palette = JointPalette::from_matrices(&[
        Mat4::ZERO,
        Mat4::from_scale(Vec3::new(0.0, 1.0, 1.0)),
        nan,
        inf,
        Mat4::from_scale(Vec3::splat(1e-20)),
    ]);
    assert_eq!(palette.non_finite_joints, 2);
    for row in [
        vec![(0u16, 1.0f32)],
        vec![(1, 0.5), (2, 0.5)],
        vec![(3, 0.7), (4, 0.3)],
        vec![(0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)],
        vec![(9, 1.0)],
    ] {
        for mode in SkinningMode::ALL {
            let (p, n) = skin_one(
                &palette,
                mode,
                Vec3::new(1.0, 2.0, 3.0),
                Vec3::Y,
                row.clone(),
            );
            assert!(p.is_finite() && n.is_finite(), "{mode} {row:?}: {p} {n}");
            assert!(
                (n.length() - 1.0).abs() < 1e-4,
                "{mode} {row:?}: |n| = {}",
                n.length()
            );
        }
    }
}

/// The packed fast path agrees with the reference on random rigs (LBS and DQS, up to 4 influences).
#[test]
fn packed_fast_path_matches_the_reference() {
    use dqview::skin::{PackedMesh, PackedPalette, skin_packed};
    let scene = dqview::builtin::generated_rig(5_000, 12);
    let prim = &scene.meshes[0].primitives[0];
    let influences = prim.influences.as_ref().expect("influences");
    let mesh = SkinMesh {
        positions: &prim.positions,
        normals: &prim.normals,
        tangents: &[],
        influences,
    };
    assert!(PackedMesh::supports(&mesh));
    let packed = PackedMesh::new(&mesh);
    let mut pose = dqview::anim::Pose::rest(&scene);
    for t in [0.3, 1.1, 1.9] {
        pose.sample(&scene, Some(0), t, &dqview::anim::JointOverrides::new());
        let mut m = Vec::new();
        pose.skinning_matrices(&scene, 0, &mut m);
        let palette = JointPalette::from_matrices(&m);
        let mut fast_palette = PackedPalette::default();
        fast_palette.update(&palette);
        for mode in [SkinningMode::Lbs, SkinningMode::Dqs] {
            let mut reference = SkinnedVertices::default();
            let mut fast = SkinnedVertices::default();
            skin_vertices(&palette, &mesh, mode, Betas::Uniform(1.0), &mut reference);
            assert!(skin_packed(&packed, &fast_palette, mode, &mut fast));
            for (v, (a, b)) in reference.positions.iter().zip(&fast.positions).enumerate() {
                assert!(
                    a.abs_diff_eq(*b, 1e-5),
                    "{mode} t={t} vertex {v}: {a} vs {b}"
                );
            }
            for (a, b) in reference.normals.iter().zip(&fast.normals) {
                assert!(a.abs_diff_eq(*b, 1e-4), "{mode} normal {a} vs {b}");
            }
        }
    }
    let mut out = SkinnedVertices::default();
    let mut fast_palette = PackedPalette::default();
    fast_palette.update(&JointPalette::from_matrices(&[Mat4::IDENTITY]));
    assert!(!skin_packed(
        &packed,
        &fast_palette,
        SkinningMode::Hybrid,
        &mut out
    ));
}
