//! A stage that is one layer with no composition arcs, read from that layer's specs.
//!
//! On such a stage composition is the identity: each prim's opinions are its one spec's. openusd
//! 0.6 still composes every prim by walking and hashing its ancestors' whole path strings
//! (`enclosing_instance`, `ensure_index`, `collect_ancestor_arcs`), about `d^3` for a chain `d`
//! deep: 30 s at 2,400 levels, half an hour at 10,000. dqview reads these stages' specs itself,
//! in time linear in their size; any stage with an arc, a sublayer, a variant, instancing or
//! value clips goes through the crate's composition as before.

use std::borrow::Cow;

use openusd::gf;
use openusd::sdf::{self, AbstractData, SpecType, Specifier, Value};
use openusd::usd::Stage;

/// Prim and layer fields that make composition more than reading the one spec (the orderings
/// too: rare, and left to the crate rather than redone here).
const ARC_FIELDS: &[&str] = &[
    "references",
    "payload",
    "inheritPaths",
    "specializes",
    "variantSetNames",
    "variantSelection",
    "relocates",
    "layerRelocates",
    "clips",
    "clipSets",
    "subLayers",
    "primOrder",
    "propertyOrder",
];

/// Whether `stage` composes as its root layer read alone.
pub(super) fn is_flat(stage: &Stage) -> bool {
    if stage.layer_count() != 1 || stage.has_session_layer() || !stage.load_rules().is_empty() {
        return false;
    }
    if !stage.mask().is_all() {
        return false;
    }
    let layer = stage.root_layer();
    let data = layer.data();
    // Walked from the pseudo-root through each prim's children, one path at a time: the
    // layer's own list of spec paths is a copy of every path, `d^2` bytes for a chain `d` deep.
    let mut stack = vec![sdf::Path::abs_root()];
    while let Some(path) = stack.pop() {
        if !prim_is_flat(data, &path) {
            return false;
        }
        let children = sdf::ChildrenKey::PrimChildren.as_str();
        if let Some(Value::TokenVec(names)) = field(data, &path, children).as_deref() {
            for name in names {
                match path.append_path(name.as_str()) {
                    Ok(child) => stack.push(child),
                    Err(_) => return false,
                }
            }
        }
    }
    true
}

/// Whether the prim (or pseudo-root) spec at `path` has no arc, instancing or variant set.
fn prim_is_flat(data: &dyn AbstractData, path: &sdf::Path) -> bool {
    let arcs = ARC_FIELDS.iter().any(|key| authored(data, path, key));
    let instanced = matches!(
        field(data, path, "instanceable").as_deref(),
        Some(Value::Bool(true))
    );
    let variants = authored(data, path, sdf::ChildrenKey::VariantSetChildren.as_str());
    !arcs && !instanced && !variants
}

/// Whether `key` holds anything on `path` (an empty list op or list is nothing).
fn authored(data: &dyn AbstractData, path: &sdf::Path, key: &str) -> bool {
    match field(data, path, key).as_deref() {
        None | Some(Value::None | Value::ValueBlock) => false,
        Some(Value::TokenVec(v)) => !v.is_empty(),
        Some(Value::StringVec(v)) => !v.is_empty(),
        Some(Value::PathListOp(op)) => !op.flatten().is_empty() || !op.deleted_items.is_empty(),
        Some(Value::ReferenceListOp(op)) => !op.flatten().is_empty(),
        Some(Value::PayloadListOp(op)) => !op.flatten().is_empty(),
        Some(_) => true,
    }
}

/// The field `key` of the spec at `path`, if authored.
fn field<'a>(data: &'a dyn AbstractData, path: &sdf::Path, key: &str) -> Option<Cow<'a, Value>> {
    data.try_field(path, key).ok().flatten()
}

/// A field of the root layer's spec at `path`, owned.
pub(super) fn layer_field(stage: &Stage, path: &sdf::Path, key: &str) -> Option<Value> {
    let layer = stage.root_layer();
    field(layer.data(), path, key).map(Cow::into_owned)
}

/// `None` for a blocked or empty value, else the value.
fn unblocked(value: Value) -> Option<Value> {
    (!matches!(value, Value::None | Value::ValueBlock)).then_some(value)
}

/// `f` of the attribute's time samples as the layer holds them (in time order, as the crate's
/// own interpolation assumes; empty when it has none), borrowed rather than copied.
fn with_samples<R>(stage: &Stage, attr: &sdf::Path, f: impl FnOnce(&[(f64, Value)]) -> R) -> R {
    let layer = stage.root_layer();
    match field(layer.data(), attr, "timeSamples").as_deref() {
        Some(Value::TimeSamples(map)) => f(map),
        _ => f(&[]),
    }
}

/// The attribute's samples at finite times, a blocked one as `None`.
pub(super) fn samples(stage: &Stage, attr: &sdf::Path) -> Vec<(f64, Option<Value>)> {
    with_samples(stage, attr, |samples| {
        samples
            .iter()
            .filter(|(t, _)| t.is_finite())
            .map(|(t, v)| (*t, unblocked(v.clone())))
            .collect()
    })
}

/// The attribute's finite sample times.
pub(super) fn sample_times(stage: &Stage, attr: &sdf::Path) -> Vec<f64> {
    with_samples(stage, attr, |samples| {
        samples
            .iter()
            .map(|(t, _)| *t)
            .filter(|t| t.is_finite())
            .collect()
    })
}

/// The attribute's default value, else its earliest sample (what the crate's `get` then
/// `get_at(EARLIEST)` return).
pub(super) fn value(stage: &Stage, attr: &sdf::Path) -> Option<Value> {
    if let Some(v) = layer_field(stage, attr, "default").and_then(unblocked) {
        return Some(v);
    }
    with_samples(stage, attr, |samples| {
        samples.first().and_then(|(_, v)| unblocked(v.clone()))
    })
}

/// The attribute's value at time code `time`: its samples interpolated as the crate does
/// (linear, quaternions slerped, clamped at the ends), else its default.
pub(super) fn value_at(stage: &Stage, attr: &sdf::Path, time: f64) -> Option<Value> {
    let sampled = with_samples(stage, attr, |samples| {
        (!samples.is_empty()).then(|| interpolate(samples, time))
    });
    match sampled {
        Some(value) => value,
        None => layer_field(stage, attr, "default").and_then(unblocked),
    }
}

/// Non-empty `samples` at `time`, cloning only the samples used.
fn interpolate(samples: &[(f64, Value)], time: f64) -> Option<Value> {
    let after = samples.partition_point(|(t, _)| *t <= time);
    if after == 0 {
        return unblocked(samples[0].1.clone());
    }
    let (t_lo, v_lo) = &samples[after - 1];
    if *t_lo == time || after == samples.len() {
        return unblocked(v_lo.clone());
    }
    let (t_hi, v_hi) = &samples[after];
    let v_lo = unblocked(v_lo.clone())?;
    let v_hi = unblocked(v_hi.clone())?;
    let t = (time - t_lo) / (t_hi - t_lo);
    Some(lerp(&v_lo, &v_hi, t).unwrap_or(v_lo))
}

/// Linear interpolation of the value kinds a transform op holds (`None`: held).
fn lerp(a: &Value, b: &Value, t: f64) -> Option<Value> {
    let t32 = t as f32;
    Some(match (a, b) {
        (Value::Half(x), Value::Half(y)) => Value::Half(gf::lerp_half(*x, *y, t32)),
        (Value::Float(x), Value::Float(y)) => Value::Float(gf::lerp(*x, *y, t32)),
        (Value::Double(x), Value::Double(y)) => Value::Double(gf::lerp(*x, *y, t)),
        (Value::Vec3h(x), Value::Vec3h(y)) => Value::Vec3h(x.lerp(*y, t32)),
        (Value::Vec3f(x), Value::Vec3f(y)) => Value::Vec3f(x.lerp(*y, t32)),
        (Value::Vec3d(x), Value::Vec3d(y)) => Value::Vec3d(x.lerp(*y, t)),
        (Value::Quath(x), Value::Quath(y)) => Value::Quath(x.slerp(*y, t)),
        (Value::Quatf(x), Value::Quatf(y)) => Value::Quatf(x.slerp(*y, t)),
        (Value::Quatd(x), Value::Quatd(y)) => Value::Quatd(x.slerp(*y, t)),
        (Value::Matrix4d(x), Value::Matrix4d(y)) => Value::Matrix4d(x.lerp(*y, t)),
        _ => return None,
    })
}

/// The relationship's targets, made absolute against its prim.
pub(super) fn targets(stage: &Stage, rel: &sdf::Path) -> Vec<String> {
    let Some(Value::PathListOp(op)) = layer_field(stage, rel, "targetPaths") else {
        return Vec::new();
    };
    let prim = rel.prim_path();
    op.flatten()
        .iter()
        .map(|p| prim.make_absolute(p).as_str().to_owned())
        .collect()
}

/// The names in a token-list field of `path` (`primChildren`, `propertyChildren`).
pub(super) fn names(stage: &Stage, path: &sdf::Path, key: &str) -> Vec<String> {
    match layer_field(stage, path, key) {
        Some(Value::TokenVec(v)) => v.iter().map(|t| t.as_str().to_owned()).collect(),
        _ => Vec::new(),
    }
}

/// Whether the prim at `path` has a spec that is defined (`def`) and not deactivated.
pub(super) fn defined_and_active(stage: &Stage, path: &sdf::Path) -> bool {
    let layer = stage.root_layer();
    let data = layer.data();
    if data.spec_type(path) != Some(SpecType::Prim) {
        return false;
    }
    let active = !matches!(
        field(data, path, "active").as_deref(),
        Some(Value::Bool(false))
    );
    let def = matches!(
        field(data, path, "specifier").as_deref(),
        Some(Value::Specifier(Specifier::Def))
    );
    active && def
}
