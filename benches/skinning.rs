//! Criterion benches: palette building and CPU reference skinning per mode.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use dqview::influences::Influences;
use dqview::skin::{
    Betas, JointPalette, PackedMesh, PackedPalette, SkinMesh, SkinnedVertices, SkinningMode,
    skin_packed, skin_packed_hybrid, skin_vertices,
};
use glam::{Mat4, Quat, Vec3};
use std::hint::black_box;

/// Deterministic pseudo-random numbers in [0, 1) (xorshift), so runs compare.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Rigid joint matrices with random rotations and translations.
fn joint_matrices(count: usize, rng: &mut Rng) -> Vec<Mat4> {
    (0..count)
        .map(|_| {
            let axis = Vec3::new(rng.next() - 0.5, rng.next() - 0.5, rng.next() - 0.5)
                .normalize_or(Vec3::Y);
            let rot = Quat::from_axis_angle(axis, rng.next() * 6.0);
            Mat4::from_rotation_translation(rot, Vec3::new(rng.next(), rng.next(), rng.next()))
        })
        .collect()
}

fn bench_palette(c: &mut Criterion) {
    let mut rng = Rng(7);
    let rigid = joint_matrices(1000, &mut rng);
    let scaled: Vec<Mat4> = rigid
        .iter()
        .map(|m| *m * Mat4::from_scale(Vec3::new(1.2, 0.9, 1.0)))
        .collect();
    let mut group = c.benchmark_group("palette_1000_joints");
    group.throughput(Throughput::Elements(1000));
    let mut palette = JointPalette::default();
    group.bench_function("rigid", |b| b.iter(|| palette.rebuild(black_box(&rigid))));
    group.bench_function("scaled", |b| b.iter(|| palette.rebuild(black_box(&scaled))));
    group.finish();
}

fn bench_skinning(c: &mut Criterion) {
    skin_bench(c, 100_000, 64);
    // The comparison point: libigl's igl::dqs, 200k vertices, 20 joints, 4 influences.
    skin_bench(c, 200_000, 20);
}

/// Reference and packed skinning of `vertices` random vertices, 4 influences on `joints` joints.
fn skin_bench(c: &mut Criterion, vertices: usize, joints: usize) {
    let mut rng = Rng(11);
    let positions: Vec<Vec3> = (0..vertices)
        .map(|_| Vec3::new(rng.next(), rng.next() * 2.0, rng.next()))
        .collect();
    let normals: Vec<Vec3> = positions.iter().map(|p| p.normalize_or(Vec3::Y)).collect();
    let rows: Vec<Vec<(u16, f32)>> = (0..vertices)
        .map(|_| {
            (0..4)
                .map(|_| ((rng.next() * joints as f32) as u16, rng.next() + 0.01))
                .collect()
        })
        .collect();
    let influences = Influences::from_rows(rows);
    let mesh = SkinMesh {
        positions: &positions,
        normals: &normals,
        tangents: &[],
        influences: &influences,
    };
    let palette = JointPalette::from_matrices(&joint_matrices(joints, &mut rng));
    let mut out = SkinnedVertices::default();
    let mut group = c.benchmark_group(format!(
        "skin_{}k_vertices_{joints}_joints_4_influences",
        vertices / 1000
    ));
    group.throughput(Throughput::Elements(vertices as u64));
    for mode in SkinningMode::ALL {
        group.bench_with_input(
            BenchmarkId::from_parameter(mode.name()),
            &mode,
            |b, &mode| {
                b.iter(|| skin_vertices(&palette, &mesh, mode, Betas::Uniform(0.5), &mut out));
            },
        );
    }
    // The packed structure-of-arrays fast path (up to 4 influences; DQS and hybrid: rigid palettes).
    let packed = PackedMesh::new(&mesh);
    let mut packed_palette = PackedPalette::default();
    packed_palette.update(&palette);
    for mode in SkinningMode::ALL {
        group.bench_with_input(
            BenchmarkId::new("packed", mode.name()),
            &mode,
            |b, &mode| {
                b.iter(|| match mode {
                    SkinningMode::Hybrid => {
                        skin_packed_hybrid(&packed, &packed_palette, Betas::Uniform(0.5), &mut out)
                    }
                    _ => skin_packed(&packed, &packed_palette, mode, &mut out),
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench_palette, bench_skinning);
criterion_main!(benches);
