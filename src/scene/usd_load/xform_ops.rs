//! A prim's `xformOpOrder` composed into its local-to-parent matrix at a time code, op by op as
//! UsdGeomXformable does (the crate's `local_to_parent_transform`, with its `gf` math), from
//! values read through [`UsdStage`] so flat and composed stages read alike.

use glam::DMat4;
use openusd::gf::Matrix4d;
use openusd::sdf::Value;

use super::read::{self, usd_error};
use super::source::UsdStage;
use crate::scene::SceneError;

/// The first entry of an order that ignores the parent's transform.
const RESET_XFORM_STACK: &str = "!resetXformStack!";

/// The prefix of an op applied inverted.
const INVERT: &str = "!invert!";

/// The prim's `xformOpOrder` (empty when unauthored).
pub(super) fn op_order(stage: &UsdStage, prim: &str) -> Result<Vec<String>, SceneError> {
    Ok(read::tokens(read::value(stage, prim, "xformOpOrder")?))
}

/// Whether `order` starts by resetting the transform stack (the prim ignores its parent).
pub(super) fn resets_stack(order: &[String]) -> bool {
    order.first().is_some_and(|op| op == RESET_XFORM_STACK)
}

/// The attribute names of the ops in `order` (inversion and the reset stripped).
pub(super) fn op_attributes(order: &[String]) -> impl Iterator<Item = &str> {
    order
        .iter()
        .map(|op| op.strip_prefix(INVERT).unwrap_or(op))
        .filter(|name| name.starts_with("xformOp:"))
}

/// The local-to-parent matrix of `prim` at time code `time` (column vectors, as glam).
pub(super) fn local_transform(
    stage: &UsdStage,
    prim: &str,
    order: &[String],
    time: f64,
) -> Result<DMat4, SceneError> {
    let mut m = Matrix4d::IDENTITY;
    for (i, op) in order.iter().enumerate() {
        if op == RESET_XFORM_STACK {
            if i == 0 {
                continue;
            }
            return Err(SceneError::Usd(format!(
                "{prim}: xformOpOrder has {RESET_XFORM_STACK} at index {i}; it is valid only first"
            )));
        }
        let (inverted, name) = match op.strip_prefix(INVERT) {
            Some(name) => (true, name),
            None => (false, op.as_str()),
        };
        let value = read::value_at(stage, prim, name, time)?;
        let op_matrix = value.map_or(Matrix4d::IDENTITY, |v| op_matrix(name, &v));
        let op_matrix = if inverted {
            op_matrix.inverse().ok_or_else(|| {
                usd_error(
                    prim,
                    &anyhow::anyhow!("xformOp `{op}` is singular and cannot be inverted"),
                )
            })?
        } else {
            op_matrix
        };
        // Row vectors: the last op listed is the most local, so each op multiplies on the left.
        m = op_matrix * m;
    }
    Ok(read::dmat4(&m))
}

/// The row-vector matrix of one op `name` (`xformOp:KIND[:SUFFIX]`) holding `value`.
fn op_matrix(name: &str, value: &Value) -> Matrix4d {
    let kind = name.strip_prefix("xformOp:").unwrap_or(name);
    let kind = kind.split(':').next().unwrap_or(kind);
    let v3 = |fallback: f64| vec3(value).unwrap_or([fallback; 3]);
    let s = |fallback: f64| read::number(Some(value.clone())).unwrap_or(fallback);
    match kind {
        "translate" => Matrix4d::translation(v3(0.0)),
        "translateX" => Matrix4d::translation([s(0.0), 0.0, 0.0]),
        "translateY" => Matrix4d::translation([0.0, s(0.0), 0.0]),
        "translateZ" => Matrix4d::translation([0.0, 0.0, s(0.0)]),
        "scale" => Matrix4d::scale(v3(1.0)),
        "scaleX" => Matrix4d::scale([s(1.0), 1.0, 1.0]),
        "scaleY" => Matrix4d::scale([1.0, s(1.0), 1.0]),
        "scaleZ" => Matrix4d::scale([1.0, 1.0, s(1.0)]),
        "orient" => Matrix4d::from_quat(quat_wxyz(value).unwrap_or([1.0, 0.0, 0.0, 0.0])),
        "rotateX" => Matrix4d::rotation_x(s(0.0).to_radians()),
        "rotateY" => Matrix4d::rotation_y(s(0.0).to_radians()),
        "rotateZ" => Matrix4d::rotation_z(s(0.0).to_radians()),
        "transform" => match value {
            Value::Matrix4d(m) => *m,
            _ => Matrix4d::IDENTITY,
        },
        _ => euler(kind, v3(0.0)).unwrap_or(Matrix4d::IDENTITY),
    }
}

/// A three-angle rotation op (`rotateXYZ`, ...; degrees), its axes applied in the order spelled.
fn euler(kind: &str, degrees: [f64; 3]) -> Option<Matrix4d> {
    let x = Matrix4d::rotation_x(degrees[0].to_radians());
    let y = Matrix4d::rotation_y(degrees[1].to_radians());
    let z = Matrix4d::rotation_z(degrees[2].to_radians());
    Some(match kind {
        "rotateXYZ" => x * y * z,
        "rotateYXZ" => y * x * z,
        "rotateZXY" => z * x * y,
        "rotateXZY" => x * z * y,
        "rotateYZX" => y * z * x,
        "rotateZYX" => z * y * x,
        _ => return None,
    })
}

/// A 3-vector value in double precision.
fn vec3(value: &Value) -> Option<[f64; 3]> {
    match value {
        Value::Vec3d(a) => Some([a.x, a.y, a.z]),
        Value::Vec3f(a) => Some([f64::from(a.x), f64::from(a.y), f64::from(a.z)]),
        Value::Vec3h(a) => Some([a.x, a.y, a.z].map(|h| f64::from(h.to_f32()))),
        _ => None,
    }
}

/// A quaternion value as (w, x, y, z) in double precision.
fn quat_wxyz(value: &Value) -> Option<[f64; 4]> {
    match value {
        Value::Quatd(q) => Some([q.w, q.x, q.y, q.z]),
        Value::Quatf(q) => Some([q.w, q.x, q.y, q.z].map(f64::from)),
        Value::Quath(q) => Some([q.w, q.x, q.y, q.z].map(|h| f64::from(h.to_f32()))),
        _ => None,
    }
}
