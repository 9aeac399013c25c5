//! A capped tube along +Y, shared by every built-in rig.

use std::f32::consts::TAU;

use glam::{Vec2, Vec3};

/// Shape and tessellation of a tube along +Y; the radius tapers linearly.
#[derive(Clone, Copy, Debug)]
pub(super) struct TubeSpec {
    /// Height of the bottom cap.
    pub y_start: f32,
    /// Height of the top cap.
    pub y_end: f32,
    /// Radius at `y_start`.
    pub radius_start: f32,
    /// Radius at `y_end`.
    pub radius_end: f32,
    /// Vertices around each ring (the seam vertex is duplicated for the UVs).
    pub segments: u32,
    /// Rings along the length, both ends included.
    pub rings: u32,
}

/// Vertex data of a tube: a smooth side plus two flat caps.
#[derive(Clone, Debug, Default)]
pub(super) struct TubeMesh {
    /// Positions in the rig's bind space.
    pub positions: Vec<Vec3>,
    /// Unit normals: radial (tilted by the taper) on the side, ±Y on the caps.
    pub normals: Vec<Vec3>,
    /// Side: u around, v down the length (0 at the top); caps: a disc mapping.
    pub uvs: Vec<Vec2>,
    /// Counter-clockwise triangles seen from outside.
    pub indices: Vec<u32>,
}

impl TubeSpec {
    /// Vertex count of the generated mesh: the side grid plus a centre and a ring per cap.
    pub fn vertex_count(&self) -> usize {
        let ring = self.segments as usize + 1;
        ring * self.rings as usize + 2 * (1 + ring)
    }
}

/// Builds the tube. Angle 0 points at +Z and grows towards +X.
pub(super) fn tube(spec: &TubeSpec) -> TubeMesh {
    let segments = spec.segments.max(3);
    let rings = spec.rings.max(2);
    let length = spec.y_end - spec.y_start;
    // The side of a cone leans by the taper, so its normal tilts along Y.
    let slope = (spec.radius_end - spec.radius_start) / length;
    let capacity = spec.vertex_count();
    let mut mesh = TubeMesh {
        positions: Vec::with_capacity(capacity),
        normals: Vec::with_capacity(capacity),
        uvs: Vec::with_capacity(capacity),
        indices: Vec::new(),
    };
    let ring_len = segments + 1;

    for r in 0..rings {
        let t = r as f32 / (rings - 1) as f32;
        let y = spec.y_start + t * length;
        let radius = spec.radius_start + t * (spec.radius_end - spec.radius_start);
        for s in 0..ring_len {
            let u = s as f32 / segments as f32;
            let (sin, cos) = (u * TAU).sin_cos();
            mesh.positions
                .push(Vec3::new(radius * sin, y, radius * cos));
            mesh.normals
                .push(Vec3::new(sin, -slope, cos).normalize_or(Vec3::Z));
            mesh.uvs.push(Vec2::new(u, 1.0 - t));
        }
    }
    for r in 0..rings - 1 {
        for s in 0..segments {
            let a = r * ring_len + s;
            let b = a + 1;
            let c = b + ring_len;
            let d = a + ring_len;
            // a→b runs around the tube and b→c up it, so (a, b, c) faces outwards.
            mesh.indices.extend_from_slice(&[a, b, c, a, c, d]);
        }
    }

    for (y, radius, up) in [
        (spec.y_start, spec.radius_start, false),
        (spec.y_end, spec.radius_end, true),
    ] {
        let normal = if up { Vec3::Y } else { Vec3::NEG_Y };
        let centre = mesh.positions.len() as u32;
        mesh.positions.push(Vec3::new(0.0, y, 0.0));
        mesh.normals.push(normal);
        mesh.uvs.push(Vec2::splat(0.5));
        for s in 0..ring_len {
            let (sin, cos) = (s as f32 / segments as f32 * TAU).sin_cos();
            mesh.positions
                .push(Vec3::new(radius * sin, y, radius * cos));
            mesh.normals.push(normal);
            mesh.uvs.push(Vec2::new(0.5 + 0.5 * sin, 0.5 - 0.5 * cos));
        }
        for s in 0..segments {
            let (a, b) = (centre + 1 + s, centre + 2 + s);
            // Going round with growing angle is counter-clockwise seen from +Y.
            if up {
                mesh.indices.extend_from_slice(&[centre, a, b]);
            } else {
                mesh.indices.extend_from_slice(&[centre, b, a]);
            }
        }
    }
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: TubeSpec = TubeSpec {
        y_start: 0.0,
        y_end: 2.0,
        radius_start: 0.3,
        radius_end: 0.2,
        segments: 16,
        rings: 9,
    };

    #[test]
    fn counts_match_the_spec() {
        let m = tube(&SPEC);
        assert_eq!(m.positions.len(), SPEC.vertex_count());
        assert_eq!(m.normals.len(), m.positions.len());
        assert_eq!(m.uvs.len(), m.positions.len());
        let triangles = 2 * 16 * 8 + 2 * 16;
        assert_eq!(m.indices.len(), 3 * triangles);
        assert!(m.indices.iter().all(|&i| (i as usize) < m.positions.len()));
    }

    #[test]
    fn triangles_face_outwards_and_agree_with_normals() {
        let m = tube(&SPEC);
        for tri in m.indices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| m.positions[tri[k] as usize]);
            let face = (b - a).cross(c - a);
            let avg: Vec3 = tri.iter().map(|&i| m.normals[i as usize]).sum();
            assert!(face.dot(avg) > 0.0, "triangle {tri:?} is wound inwards");
        }
    }

    #[test]
    fn normals_are_unit_and_positions_on_the_surface() {
        let m = tube(&SPEC);
        for n in &m.normals {
            assert!((n.length() - 1.0).abs() < 1e-5);
        }
        let side = (SPEC.segments as usize + 1) * SPEC.rings as usize;
        for p in &m.positions[..side] {
            let t = p.y / 2.0;
            let radius = 0.3 - 0.1 * t;
            assert!((Vec2::new(p.x, p.z).length() - radius).abs() < 1e-5);
        }
    }
}
