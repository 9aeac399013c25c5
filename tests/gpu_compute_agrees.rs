//! The compute skinning shader agrees with the CPU reference (`skin::skin_vertices`).
//!
//! Needs a GPU adapter (lavapipe is enough). Without one every test prints
//! `SKIPPED` and passes, unless `DQVIEW_REQUIRE_GPU=1`, which makes it fail.
//!
//! Tolerances: positions within 1e-5 x the bounding-box diagonal of the CPU
//! output, normals and tangent directions within 1e-3, tangent handedness equal.
//! The inputs are kept well-conditioned (no blend of a mirrored and an unmirrored
//! scale of equal weight, no twist ring at exactly half weight), where the
//! normal's direction is decided by rounding, not by the algorithm.

mod support;

use support::{Gpu, gpu};

use dqview::influences::Influences;
use dqview::render::{MeshSkinning, PaletteBinding, SkinRun, skin_mesh_gpu};
use dqview::skin::{Betas, JointPalette, SkinMesh, SkinnedVertices, SkinningMode, skin_vertices};
use glam::{Mat3, Mat4, Quat, Vec3, Vec4};

/// Deterministic SplitMix64 random numbers, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.f32()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    fn vec3(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
    }
    fn unit(&mut self) -> Vec3 {
        loop {
            let v = self.vec3(1.0);
            if (0.01..=1.0).contains(&v.length_squared()) {
                return v.normalize();
            }
        }
    }
    fn quat(&mut self) -> Quat {
        Quat::from_axis_angle(
            self.unit(),
            self.range(-std::f32::consts::PI, std::f32::consts::PI),
        )
    }
    fn rigid(&mut self, translation: f32) -> Mat4 {
        Mat4::from_rotation_translation(self.quat(), self.vec3(translation))
    }
    /// `count` distinct joints below `joints`.
    fn joints(&mut self, count: usize, joints: usize) -> Vec<u16> {
        let mut out: Vec<u16> = Vec::with_capacity(count);
        while out.len() < count {
            let j = self.below(joints) as u16;
            if !out.contains(&j) {
                out.push(j);
            }
        }
        out
    }
}

/// Bind-pose vertex data owned by a test.
struct Mesh {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    tangents: Vec<Vec4>,
    influences: Influences,
}

impl Mesh {
    fn view(&self) -> SkinMesh<'_> {
        SkinMesh {
            positions: &self.positions,
            normals: &self.normals,
            tangents: &self.tangents,
            influences: &self.influences,
        }
    }

    /// Random points, unit normals, tangents orthogonal to them, one row of influences each.
    fn random(rng: &mut Rng, rows: Vec<Vec<(u16, f32)>>) -> Self {
        let mut mesh = Self {
            positions: Vec::new(),
            normals: Vec::new(),
            tangents: Vec::new(),
            influences: Influences::from_rows(rows.iter().cloned()),
        };
        for _ in &rows {
            let n = rng.unit();
            let t = n.any_orthonormal_vector();
            let w = if rng.f32() < 0.5 { -1.0 } else { 1.0 };
            mesh.positions.push(rng.vec3(1.0));
            mesh.normals.push(n);
            mesh.tangents.push(t.extend(w));
        }
        mesh
    }
}

/// Largest errors of one comparison.
#[derive(Debug, Default)]
struct Errors {
    position: f32,
    diagonal: f32,
    normal: f32,
    tangent: f32,
}

/// Skins on both sides and checks the tolerances; prints the measured errors.
fn compare(
    gpu: &Gpu,
    case: &str,
    palette: &JointPalette,
    mesh: &Mesh,
    mode: SkinningMode,
) -> Errors {
    let beta = 0.3;
    let view = mesh.view();
    let mut cpu = SkinnedVertices::default();
    skin_vertices(palette, &view, mode, Betas::Uniform(beta), &mut cpu);
    let run = SkinRun::new(mode, beta);
    let out = skin_mesh_gpu(
        &gpu.ctx,
        &gpu.renderer,
        palette,
        &view,
        run,
        &MeshSkinning::default(),
    )
    .unwrap_or_else(|e| panic!("{case} {mode}: {e}"));
    assert_eq!(out.positions.len(), cpu.positions.len(), "{case} {mode}");
    assert_eq!(out.normals.len(), cpu.normals.len(), "{case} {mode}");
    assert_eq!(out.tangents.len(), cpu.tangents.len(), "{case} {mode}");

    let (lo, hi) = cpu.positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    let mut e = Errors {
        diagonal: (hi - lo).length().max(1e-6),
        ..Errors::default()
    };
    for (v, (g, c)) in out.positions.iter().zip(&cpu.positions).enumerate() {
        assert!(g.is_finite(), "{case} {mode}: vertex {v} position {g}");
        e.position = e.position.max((*g - *c).length());
    }
    for (v, (g, c)) in out.normals.iter().zip(&cpu.normals).enumerate() {
        assert!(g.is_finite(), "{case} {mode}: vertex {v} normal {g}");
        e.normal = e.normal.max((*g - *c).length());
    }
    for (v, (g, c)) in out.tangents.iter().zip(&cpu.tangents).enumerate() {
        assert!(g.is_finite(), "{case} {mode}: vertex {v} tangent {g}");
        assert_eq!(g.w, c.w, "{case} {mode}: vertex {v} handedness");
        e.tangent = e.tangent.max((g.truncate() - c.truncate()).length());
    }
    let conditioning = min_conditioning(palette, &mesh.influences);
    println!(
        "{case:<28} {mode:<6} min |det| {conditioning:.1e}, max position error {:.2e} ({:.2e} x diagonal {:.2}), normal {:.2e}, tangent {:.2e}",
        e.position,
        e.position / e.diagonal,
        e.diagonal,
        e.normal,
        e.tangent
    );
    assert!(
        e.position <= 1e-5 * e.diagonal,
        "{case} {mode}: position error {} > 1e-5 x {}",
        e.position,
        e.diagonal
    );
    assert!(e.normal <= 1e-3, "{case} {mode}: normal error {}", e.normal);
    assert!(
        e.tangent <= 1e-3,
        "{case} {mode}: tangent error {}",
        e.tangent
    );
    e
}

/// Smallest |det A| / (|A|_F / sqrt 3)^3 over vertices, A the LBS-blended 3x3:
/// 1 for a rotation, 0 where the normal's direction is decided by rounding.
fn min_conditioning(palette: &JointPalette, influences: &Influences) -> f32 {
    influences
        .iter()
        .filter(|row| !row.is_empty())
        .map(|row| {
            let a = row.iter().fold(Mat3::ZERO, |a, i| {
                a + Mat3::from_mat4(palette.matrices[usize::from(i.joint)]) * i.weight
            });
            let norm =
                (a.x_axis.length_squared() + a.y_axis.length_squared() + a.z_axis.length_squared())
                    .sqrt();
            a.determinant().abs() / (norm / 3f32.sqrt()).powi(3)
        })
        .fold(f32::MAX, f32::min)
}

fn compare_all_modes(gpu: &Gpu, case: &str, palette: &JointPalette, mesh: &Mesh) {
    for mode in dqview::skin::SkinningMode::ALL {
        compare(gpu, case, palette, mesh, mode);
    }
}

/// A tube along +X from x = 0 to 2 around joint 0 (fixed) and joint 1 (twisted about +X at x = 1).
fn twist_tube() -> Mesh {
    let (segments, rings, radius) = (24, 24, 0.25);
    let mut mesh = Mesh {
        positions: Vec::new(),
        normals: Vec::new(),
        tangents: Vec::new(),
        influences: Influences::default(),
    };
    let mut rows = Vec::new();
    for r in 0..rings {
        // 24 rings: none sits at x = 1, where both weights would be exactly 0.5.
        let x = 2.0 * r as f32 / (rings - 1) as f32;
        let s = ((x - 0.5) / 1.0).clamp(0.0, 1.0);
        let w = s * s * (3.0 - 2.0 * s);
        for k in 0..segments {
            let a = std::f32::consts::TAU * k as f32 / segments as f32;
            let n = Vec3::new(0.0, a.cos(), a.sin());
            mesh.positions.push(Vec3::X * x + n * radius);
            mesh.normals.push(n);
            mesh.tangents.push(Vec4::new(1.0, 0.0, 0.0, 1.0));
            rows.push(vec![(0u16, 1.0 - w), (1u16, w)]);
        }
    }
    mesh.influences = Influences::from_rows(rows);
    mesh
}

#[test]
fn twist_tube_agrees() {
    let Some(gpu) = gpu("twist_tube_agrees") else {
        return;
    };
    let mesh = twist_tube();
    for degrees in [0.0f32, 90.0, 180.0, 270.0] {
        let twist = Mat4::from_translation(Vec3::X)
            * Mat4::from_rotation_x(degrees.to_radians())
            * Mat4::from_translation(-Vec3::X);
        let palette = JointPalette::from_matrices(&[Mat4::IDENTITY, twist]);
        assert!(palette.is_rigid());
        compare_all_modes(gpu, &format!("twist tube {degrees} deg"), &palette, &mesh);
    }
}

/// Rows of up to eight influences with random weights; every 50th vertex unweighted.
fn random_rows(
    rng: &mut Rng,
    vertices: usize,
    joints: usize,
    max_influences: usize,
) -> Vec<Vec<(u16, f32)>> {
    (0..vertices)
        .map(|v| {
            if v % 50 == 49 {
                return Vec::new();
            }
            let count = if v % 2 == 0 {
                max_influences
            } else {
                1 + rng.below(max_influences)
            };
            rng.joints(count, joints)
                .into_iter()
                .map(|j| (j, rng.range(0.01, 1.0)))
                .collect()
        })
        .collect()
}

#[test]
fn random_rigid_palettes_with_eight_influences_agree() {
    let Some(gpu) = gpu("random_rigid_palettes_with_eight_influences_agree") else {
        return;
    };
    for seed in 1..=3u64 {
        let mut rng = Rng(seed);
        let matrices: Vec<Mat4> = (0..32).map(|_| rng.rigid(2.0)).collect();
        let palette = JointPalette::from_matrices(&matrices);
        assert!(palette.is_rigid());
        let rows = random_rows(&mut rng, 3000, 32, 8);
        let mesh = Mesh::random(&mut rng, rows);
        assert_eq!(mesh.influences.max_influences(), 8);
        compare_all_modes(gpu, &format!("random rigid seed {seed}"), &palette, &mesh);
    }
}

/// `T * R * S`: S symmetric positive definite (scale along random axes, i.e. shear),
/// negated for a mirror; R within 30 degrees of the identity, so that LBS blends
/// of neighbouring joints stay far from singular, as in a real rig.
fn scaled_joint(rng: &mut Rng, mirror: bool) -> Mat4 {
    let q = Mat3::from_quat(rng.quat());
    let scale = Vec3::new(
        rng.range(0.6, 1.6),
        rng.range(0.6, 1.6),
        rng.range(0.6, 1.6),
    );
    let s = q * Mat3::from_diagonal(scale) * q.transpose();
    let s = if mirror { -s } else { s };
    let r = Quat::from_axis_angle(rng.unit(), rng.range(0.0, 30f32.to_radians()));
    let a = Mat3::from_quat(r) * s;
    Mat4::from_cols(
        a.x_axis.extend(0.0),
        a.y_axis.extend(0.0),
        a.z_axis.extend(0.0),
        rng.vec3(1.5).extend(1.0),
    )
}

#[test]
fn scaled_sheared_mirrored_palette_agrees() {
    let Some(gpu) = gpu("scaled_sheared_mirrored_palette_agrees") else {
        return;
    };
    let mut rng = Rng(42);
    // Joints 0..8 keep orientation, 8..16 mirror; joint 16 is rigid.
    let mut matrices: Vec<Mat4> = (0..16).map(|j| scaled_joint(&mut rng, j >= 8)).collect();
    matrices.push(rng.rigid(1.0));
    let palette = JointPalette::from_matrices(&matrices);
    assert!(!palette.is_rigid());
    // Each vertex mostly blends one family; the other family gets at most 2 x 4 percent
    // and the rigid joint 10 percent of the family's weight, so the blended S stays
    // definite (|eigenvalues| >= 0.6 x 0.82 - 0.08 x 1.6 - 0.1 > 0.2).
    let rows: Vec<Vec<(u16, f32)>> = (0..3000)
        .map(|v| {
            let family = (v % 2) as u16 * 8;
            // At most 5 + 2 + 1 = 8 influences: the GPU keeps eight.
            let own = 1 + rng.below(5);
            let mut row: Vec<(u16, f32)> = rng
                .joints(own, 8)
                .into_iter()
                .map(|j| (j + family, rng.range(0.1, 1.0)))
                .collect();
            let own_sum: f32 = row.iter().map(|r| r.1).sum();
            if v % 3 == 0 {
                let other = 8 - family;
                for j in rng.joints(2, 8) {
                    row.push((j + other, own_sum * rng.range(0.0, 0.04)));
                }
            }
            if v % 5 == 0 {
                row.push((16, own_sum * rng.range(0.0, 0.1)));
            }
            row
        })
        .collect();
    let mesh = Mesh::random(&mut rng, rows);
    compare_all_modes(gpu, "scaled/sheared/mirrored", &palette, &mesh);
}

#[test]
fn five_thousand_joints_use_the_storage_path_and_agree() {
    let Some(gpu) = gpu("five_thousand_joints_use_the_storage_path_and_agree") else {
        return;
    };
    let mut rng = Rng(5000);
    let matrices: Vec<Mat4> = (0..5000).map(|_| rng.rigid(3.0)).collect();
    let palette = JointPalette::from_matrices(&matrices);
    assert_eq!(
        PaletteBinding::for_joint_count(palette.len()),
        PaletteBinding::Storage
    );
    let rows = random_rows(&mut rng, 4000, 5000, 4);
    let mesh = Mesh::random(&mut rng, rows);
    assert!(mesh.influences.max_joint().is_some_and(|j| j > 4000));
    compare_all_modes(gpu, "5000 joints (storage)", &palette, &mesh);
}

#[test]
fn nan_poisoned_palette_gives_finite_output() {
    let Some(gpu) = gpu("nan_poisoned_palette_gives_finite_output") else {
        return;
    };
    let mut rng = Rng(7);
    let mut matrices: Vec<Mat4> = (0..8).map(|_| rng.rigid(1.0)).collect();
    matrices[1].w_axis.y = f32::NAN;
    matrices[3].x_axis.x = f32::INFINITY;
    matrices[5] = Mat4::from_cols_array(&[f32::NAN; 16]);
    let palette = JointPalette::from_matrices(&matrices);
    assert_eq!(palette.non_finite_joints, 3);
    let rows = random_rows(&mut rng, 1000, 8, 8);
    let mesh = Mesh::random(&mut rng, rows);
    // `compare` also asserts every output is finite.
    compare_all_modes(gpu, "NaN-poisoned palette", &palette, &mesh);
}

#[test]
fn mesh_without_normals_or_tangents_gives_positions_only() {
    let Some(gpu) = gpu("mesh_without_normals_or_tangents_gives_positions_only") else {
        return;
    };
    let mut mesh = twist_tube();
    mesh.normals.clear();
    mesh.tangents.clear();
    let twist = Mat4::from_rotation_x(1.0);
    let palette = JointPalette::from_matrices(&[Mat4::IDENTITY, twist]);
    compare_all_modes(gpu, "twist tube, positions only", &palette, &mesh);
}
