//! Non-finite numbers a USD file may hold, replaced once at load so no output holds one:
//! positions, offsets and key values by 0 (rotations by identity, scales by 1), normals by
//! smooth ones, matrices by identity. Each kind counted in [`Scene::sanitized`] and a warning.

use glam::{Mat4, Vec2, Vec3};

use crate::scene::{NodeTransform, Property, Scene, Trs};

/// Replaces every non-finite number of `scene`; returns how many were replaced.
pub(super) fn sanitize(scene: &mut Scene) -> usize {
    let mut counts = [0usize; 4];
    for mesh in &mut scene.meshes {
        for prim in &mut mesh.primitives {
            counts[0] += fix_vec3s(&mut prim.positions, Vec3::ZERO);
            counts[0] += fix_vec3s(&mut prim.normals, Vec3::Y);
            if let Some(uvs) = &mut prim.uvs {
                for uv in uvs.iter_mut().filter(|uv| !uv.is_finite()) {
                    *uv = Vec2::ZERO;
                    counts[0] += 1;
                }
            }
            for target in &mut prim.morph_targets {
                counts[1] += fix_vec3s(&mut target.positions, Vec3::ZERO);
                counts[1] += fix_vec3s(&mut target.normals, Vec3::ZERO);
            }
        }
    }
    for skin in &mut scene.skins {
        for m in skin.inverse_bind.iter_mut().filter(|m| !m.is_finite()) {
            *m = Mat4::IDENTITY;
            counts[2] += 1;
        }
    }
    for node in &mut scene.nodes {
        let bad = match node.transform {
            NodeTransform::Trs(t) => {
                !(t.translation.is_finite() && t.rotation.is_finite() && t.scale.is_finite())
            }
            NodeTransform::Matrix(m) => !m.is_finite(),
        };
        if bad {
            node.transform = NodeTransform::Trs(Trs::IDENTITY);
            counts[2] += 1;
        }
    }
    for anim in &mut scene.animations {
        for channel in &mut anim.channels {
            for t in channel.times_s.iter_mut().filter(|t| !t.is_finite()) {
                *t = 0.0;
                counts[3] += 1;
            }
            // Times must not go backwards.
            let mut last = f32::MIN;
            for t in &mut channel.times_s {
                *t = t.max(last);
                last = *t;
            }
            let fallback: &[f32] = match channel.property {
                Property::Rotation => &[0.0, 0.0, 0.0, 1.0],
                Property::Scale => &[1.0, 1.0, 1.0],
                _ => &[0.0],
            };
            let width = fallback.len();
            for (i, v) in channel.values.iter_mut().enumerate() {
                if !v.is_finite() {
                    *v = fallback[if width == 1 { 0 } else { i % width }];
                    counts[3] += 1;
                }
            }
        }
    }
    let names = [
        "vertex positions, normals or texture coordinates",
        "blend shape offsets",
        "matrices (bind, rest or node transforms)",
        "key times or values",
    ];
    for (n, what) in counts.iter().zip(names) {
        if *n > 0 {
            scene.warnings.push(format!(
                "{n} non-finite {what} were replaced (0, identity or unit)"
            ));
        }
    }
    counts.iter().sum()
}

/// Replaces non-finite vectors by `fallback`; returns how many.
fn fix_vec3s(values: &mut [Vec3], fallback: Vec3) -> usize {
    let mut n = 0;
    for v in values.iter_mut().filter(|v| !v.is_finite()) {
        *v = fallback;
        n += 1;
    }
    n
}
