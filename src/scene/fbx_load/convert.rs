//! ufbx's f64 vectors, quaternions and affine matrices as glam's f32 types.

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

/// A ufbx vector as glam's; non-finite components become 0.
pub(super) fn vec3(v: ufbx::Vec3) -> Vec3 {
    finite3(Vec3::new(v.x as f32, v.y as f32, v.z as f32))
}

/// A ufbx 2D vector as glam's; non-finite components become 0.
pub(super) fn vec2(v: ufbx::Vec2) -> Vec2 {
    let out = Vec2::new(v.x as f32, v.y as f32);
    Vec2::select(out.is_finite_mask(), out, Vec2::ZERO)
}

/// A ufbx 4D vector as glam's; non-finite components become 0.
pub(super) fn vec4(v: ufbx::Vec4) -> Vec4 {
    let out = Vec4::new(v.x as f32, v.y as f32, v.z as f32, v.w as f32);
    Vec4::select(out.is_finite_mask(), out, Vec4::ZERO)
}

/// Replaces non-finite components by 0.
fn finite3(v: Vec3) -> Vec3 {
    Vec3::select(v.is_finite_mask(), v, Vec3::ZERO)
}

/// A ufbx quaternion as a unit glam quaternion (identity when degenerate).
pub(super) fn quat(q: ufbx::Quat) -> Quat {
    let out = Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32);
    if out.is_finite() && out.length_squared() > 1e-12 {
        out.normalize()
    } else {
        Quat::IDENTITY
    }
}

/// A ufbx affine 3x4 matrix (column-major `mRC`) as a glam 4x4 (identity when non-finite).
pub(super) fn mat4(m: &ufbx::Matrix) -> Mat4 {
    let out = Mat4::from_cols_array(&[
        m.m00 as f32,
        m.m10 as f32,
        m.m20 as f32,
        0.0,
        m.m01 as f32,
        m.m11 as f32,
        m.m21 as f32,
        0.0,
        m.m02 as f32,
        m.m12 as f32,
        m.m22 as f32,
        0.0,
        m.m03 as f32,
        m.m13 as f32,
        m.m23 as f32,
        1.0,
    ]);
    if out.is_finite() { out } else { Mat4::IDENTITY }
}

/// An FBX coordinate axis as `+X` .. `-Z`, or `?` when the file does not say.
pub(super) fn axis_name(axis: ufbx::CoordinateAxis) -> &'static str {
    match axis {
        ufbx::CoordinateAxis::PositiveX => "+X",
        ufbx::CoordinateAxis::NegativeX => "-X",
        ufbx::CoordinateAxis::PositiveY => "+Y",
        ufbx::CoordinateAxis::NegativeY => "-Y",
        ufbx::CoordinateAxis::PositiveZ => "+Z",
        ufbx::CoordinateAxis::NegativeZ => "-Z",
        ufbx::CoordinateAxis::Unknown => "?",
    }
}
