//! CPU skinning on arbitrary palettes (matrices from raw f32 bits: NaN, infinities, huge and
//! singular included), weights and joint indices (past the palette included), in every mode.
//! Every skinned position, normal and tangent must be finite, and the palette too.
#![no_main]

use dqview::influences::Influences;
use dqview::skin::{Betas, JointPalette, SkinMesh, SkinnedVertices, SkinningMode, skin_vertices};
use glam::{Mat4, Vec3, Vec4};
use libfuzzer_sys::fuzz_target;

/// Reads little-endian values off the front of the input; zeros once it runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
        self.0 = rest;
        first
    }
    fn f32(&mut self) -> f32 {
        f32::from_bits(u32::from_le_bytes([
            self.u8(),
            self.u8(),
            self.u8(),
            self.u8(),
        ]))
    }
    fn f32s<const N: usize>(&mut self) -> [f32; N] {
        std::array::from_fn(|_| self.f32())
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let joints = usize::from(b.u8() % 8) + 1;
    let vertices = usize::from(b.u8() % 16) + 1;
    let beta = b.f32();
    let matrices: Vec<Mat4> = (0..joints)
        .map(|_| Mat4::from_cols_array(&b.f32s::<16>()))
        .collect();
    let palette = JointPalette::from_matrices(&matrices);
    assert_eq!(palette.len(), joints);
    assert!(palette.matrices.iter().all(|m| m.is_finite()));
    assert!(palette.dual_quats.iter().all(|q| q.is_finite()));
    assert!(palette.scale_shear.iter().flatten().all(|s| s.is_finite()));

    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut tangents = Vec::new();
    let mut rows = Vec::new();
    for _ in 0..vertices {
        positions.push(Vec3::from_array(b.f32s::<3>()));
        normals.push(Vec3::from_array(b.f32s::<3>()));
        tangents.push(Vec4::from_array(b.f32s::<4>()));
        let count = b.u8() % 9;
        // Joint indices may reach two past the palette: those count as the identity.
        let row: Vec<(u16, f32)> = (0..count)
            .map(|_| (u16::from(b.u8()) % (joints as u16 + 2), b.f32()))
            .collect();
        rows.push(row);
    }
    let influences = Influences::from_rows(rows);
    for row in influences.iter() {
        assert!(row.iter().all(|i| i.weight.is_finite() && i.weight > 0.0));
    }
    let mesh = SkinMesh {
        positions: &positions,
        normals: &normals,
        tangents: &tangents,
        influences: &influences,
    };
    let mut out = SkinnedVertices::default();
    for mode in SkinningMode::ALL {
        skin_vertices(&palette, &mesh, mode, Betas::Uniform(beta), &mut out);
        for v in 0..vertices {
            assert!(
                out.positions[v].is_finite(),
                "{mode} position {v}: {:?}",
                out.positions[v]
            );
            assert!(
                out.normals[v].is_finite(),
                "{mode} normal {v}: {:?}",
                out.normals[v]
            );
            assert!(
                out.tangents[v].is_finite(),
                "{mode} tangent {v}: {:?}",
                out.tangents[v]
            );
        }
    }
});
