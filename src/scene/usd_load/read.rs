//! Reading composed USD values into glam types, with every failure a one-line [`SceneError::Usd`].

use glam::{DMat4, Quat, Vec2, Vec3};
use openusd::sdf::{self, Value};
use openusd::usd::TimeCode;

use super::flat;
use super::source::UsdStage;
use crate::scene::SceneError;

/// A crate error (an `anyhow` chain) as one line, prefixed with what was being read.
pub(super) fn usd_error(what: &str, e: &anyhow::Error) -> SceneError {
    let text = format!("{e:#}");
    let line: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    SceneError::Usd(format!("{what}: {}", line.join("; ")))
}

/// The property `name` of prim `prim`.
fn property(prim: &str, name: &str) -> Result<sdf::Path, SceneError> {
    sdf::Path::from(prim)
        .append_property(name)
        .map_err(|e| usd_error(&format!("{prim}.{name}"), &e))
}

/// The composed default value of `prim.name`, else its earliest time sample (`None` if unauthored).
pub(super) fn value(stage: &UsdStage, prim: &str, name: &str) -> Result<Option<Value>, SceneError> {
    let path = property(prim, name)?;
    if stage.is_flat() {
        return Ok(flat::value(stage, &path));
    }
    let attr = stage.attribute(path);
    let what = || format!("{prim}.{name}");
    match attr.get::<Value>() {
        Ok(Some(v)) => Ok(Some(v)),
        Ok(None) => attr
            .get_at::<Value>(TimeCode::EARLIEST)
            .map_err(|e| usd_error(&what(), &e)),
        Err(e) => Err(usd_error(&what(), &e)),
    }
}

/// The composed value of `prim.name` at time code `time`.
pub(super) fn value_at(
    stage: &UsdStage,
    prim: &str,
    name: &str,
    time: f64,
) -> Result<Option<Value>, SceneError> {
    let path = property(prim, name)?;
    if stage.is_flat() {
        return Ok(flat::value_at(stage, &path, time));
    }
    stage
        .attribute(path)
        .get_at::<Value>(TimeCode::new(time))
        .map_err(|e| usd_error(&format!("{prim}.{name}"), &e))
}

/// The time codes at which `prim.name` has samples (empty when it has none).
pub(super) fn sample_times(
    stage: &UsdStage,
    prim: &str,
    name: &str,
) -> Result<Vec<f64>, SceneError> {
    let path = property(prim, name)?;
    if stage.is_flat() {
        return Ok(flat::sample_times(stage, &path));
    }
    let times = stage
        .attribute(path)
        .time_sample_times()
        .map_err(|e| usd_error(&format!("{prim}.{name}"), &e))?;
    Ok(times.into_iter().filter(|t| t.is_finite()).collect())
}

/// Every sample of `prim.name` at a finite time, in time order (a blocked one as `None`).
pub(super) fn samples(
    stage: &UsdStage,
    prim: &str,
    name: &str,
) -> Result<Vec<(f64, Option<Value>)>, SceneError> {
    if stage.is_flat() {
        return Ok(flat::samples(stage, &property(prim, name)?));
    }
    sample_times(stage, prim, name)?
        .into_iter()
        .map(|t| Ok((t, value_at(stage, prim, name, t)?)))
        .collect()
}

/// Metadata `key` of attribute `prim.name`.
pub(super) fn metadata(
    stage: &UsdStage,
    prim: &str,
    name: &str,
    key: &str,
) -> Result<Option<Value>, SceneError> {
    let path = property(prim, name)?;
    if stage.is_flat() {
        return Ok(flat::layer_field(stage, &path, key));
    }
    stage
        .attribute(path)
        .get_metadata::<Value>(key)
        .map_err(|e| usd_error(&format!("{prim}.{name}"), &e))
}

/// The first target of relationship `prim.name`.
pub(super) fn target(
    stage: &UsdStage,
    prim: &str,
    name: &str,
) -> Result<Option<String>, SceneError> {
    Ok(targets(stage, prim, name)?.into_iter().next())
}

/// Every target of relationship `prim.name`.
pub(super) fn targets(stage: &UsdStage, prim: &str, name: &str) -> Result<Vec<String>, SceneError> {
    let path = property(prim, name)?;
    if stage.is_flat() {
        return Ok(flat::targets(stage, &path));
    }
    let paths = stage
        .relationship(path)
        .targets()
        .map_err(|e| usd_error(&format!("{prim}.{name}"), &e))?;
    Ok(paths.iter().map(|p| p.as_str().to_owned()).collect())
}

/// The nearest target of `name` authored on `prim` or an ancestor (UsdSkel's inherited bindings).
pub(super) fn inherited_target(
    stage: &UsdStage,
    prim: &str,
    name: &str,
) -> Result<Option<String>, SceneError> {
    let mut path = prim;
    loop {
        if let Some(t) = target(stage, path, name)? {
            return Ok(Some(t));
        }
        match parent_path(path) {
            Some(p) => path = p,
            None => return Ok(None),
        }
    }
}

/// The stage metadata `key` as a number, when authored and numeric.
pub(super) fn stage_number(stage: &UsdStage, key: &str) -> Option<f64> {
    number(stage.stage_metadata(key).ok().flatten())
}

/// The parent prim path of `path` (`None` for a root prim or `/`).
pub(super) fn parent_path(path: &str) -> Option<&str> {
    let cut = path.rfind('/')?;
    (cut > 0).then(|| &path[..cut])
}

/// The last element of a prim or joint path.
pub(super) fn leaf(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A USD row-vector matrix (`p' = p · M`, row-major) as glam's column-vector matrix (`p' = m · p`).
pub(super) fn dmat4(m: &openusd::gf::Matrix4d) -> DMat4 {
    // Row-major M read as column-major is exactly M transposed.
    DMat4::from_cols_array(&m.0)
}

/// A token, token array or string array value as strings.
pub(super) fn tokens(value: Option<Value>) -> Vec<String> {
    match value {
        Some(Value::TokenVec(v)) => v.into_iter().map(|t| t.as_str().to_owned()).collect(),
        Some(Value::StringVec(v)) => v,
        _ => Vec::new(),
    }
}

/// A token or string value.
pub(super) fn token(value: Option<Value>) -> Option<String> {
    match value {
        Some(Value::Token(t)) => Some(t.as_str().to_owned()),
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

/// A matrix array value.
pub(super) fn matrices(value: Option<Value>) -> Vec<DMat4> {
    match value {
        Some(Value::Matrix4dVec(v)) => v.iter().map(dmat4).collect(),
        _ => Vec::new(),
    }
}

/// One matrix value.
pub(super) fn matrix(value: Option<Value>) -> Option<DMat4> {
    match value {
        Some(Value::Matrix4d(m)) => Some(dmat4(&m)),
        _ => None,
    }
}

/// An int array value (64-bit ints narrowed, out-of-range ones as -1).
pub(super) fn ints(value: Option<Value>) -> Vec<i32> {
    match value {
        Some(Value::IntVec(v)) => v,
        Some(Value::Int64Vec(v)) => v
            .into_iter()
            .map(|i| i32::try_from(i).unwrap_or(-1))
            .collect(),
        Some(Value::UintVec(v)) => v
            .into_iter()
            .map(|i| i32::try_from(i).unwrap_or(-1))
            .collect(),
        _ => Vec::new(),
    }
}

/// A scalar int value.
pub(super) fn int(value: Option<Value>) -> Option<i64> {
    match value {
        Some(Value::Int(i)) => Some(i64::from(i)),
        Some(Value::Int64(i)) => Some(i),
        Some(Value::Uint(i)) => Some(i64::from(i)),
        _ => None,
    }
}

/// A scalar number value.
pub(super) fn number(value: Option<Value>) -> Option<f64> {
    match value {
        Some(Value::Double(d)) => Some(d),
        Some(Value::Float(f)) => Some(f64::from(f)),
        Some(Value::Half(h)) => Some(f64::from(h.to_f32())),
        Some(Value::Int(i)) => Some(f64::from(i)),
        Some(Value::Int64(i)) => Some(i as f64),
        _ => None,
    }
}

/// A float array value (doubles and halves converted).
pub(super) fn floats(value: Option<Value>) -> Vec<f32> {
    match value {
        Some(Value::FloatVec(v)) => v,
        Some(Value::DoubleVec(v)) => v.into_iter().map(|d| d as f32).collect(),
        Some(Value::HalfVec(v)) => v.into_iter().map(|h| h.to_f32()).collect(),
        _ => Vec::new(),
    }
}

/// A 3-vector array value (points, normals, offsets, translations, scales).
pub(super) fn vec3s(value: Option<Value>) -> Vec<Vec3> {
    match value {
        Some(Value::Vec3fVec(v)) => v.iter().map(|p| Vec3::new(p.x, p.y, p.z)).collect(),
        Some(Value::Vec3dVec(v)) => v
            .iter()
            .map(|p| Vec3::new(p.x as f32, p.y as f32, p.z as f32))
            .collect(),
        Some(Value::Vec3hVec(v)) => v
            .iter()
            .map(|p| Vec3::new(p.x.to_f32(), p.y.to_f32(), p.z.to_f32()))
            .collect(),
        _ => Vec::new(),
    }
}

/// A 2-vector array value (texture coordinates).
pub(super) fn vec2s(value: Option<Value>) -> Vec<Vec2> {
    match value {
        Some(Value::Vec2fVec(v)) => v.iter().map(|p| Vec2::new(p.x, p.y)).collect(),
        Some(Value::Vec2dVec(v)) => v
            .iter()
            .map(|p| Vec2::new(p.x as f32, p.y as f32))
            .collect(),
        Some(Value::Vec2hVec(v)) => v
            .iter()
            .map(|p| Vec2::new(p.x.to_f32(), p.y.to_f32()))
            .collect(),
        _ => Vec::new(),
    }
}

/// A quaternion array value; USD stores (w, x, y, z), glam (x, y, z, w).
pub(super) fn quats(value: Option<Value>) -> Vec<Quat> {
    match value {
        Some(Value::QuatfVec(v)) => v
            .iter()
            .map(|q| Quat::from_xyzw(q.x, q.y, q.z, q.w))
            .collect(),
        Some(Value::QuatdVec(v)) => v
            .iter()
            .map(|q| Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32))
            .collect(),
        Some(Value::QuathVec(v)) => v
            .iter()
            .map(|q| Quat::from_xyzw(q.x.to_f32(), q.y.to_f32(), q.z.to_f32(), q.w.to_f32()))
            .collect(),
        _ => Vec::new(),
    }
}

/// A colour array value (`color3f[]`), or a single colour.
pub(super) fn color(value: Option<Value>) -> Option<Vec3> {
    match value {
        Some(Value::Vec3f(c)) => Some(Vec3::new(c.x, c.y, c.z)),
        Some(Value::Vec3d(c)) => Some(Vec3::new(c.x as f32, c.y as f32, c.z as f32)),
        other => vec3s(other).first().copied(),
    }
}
