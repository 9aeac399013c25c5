//! Second-chance parsing for valid glTF that gltf-json 1.4 refuses to deserialize.
//!
//! Two cases are repaired, and only after the normal parse has failed:
//! - an animation channel without `target.node` (legal in glTF 2.0, used by
//!   KHR_animation_pointer) is dropped: dqview can only animate nodes;
//! - an integer written as a float (`"count": 3.0`) is read as the integer.
//!
//! The repaired JSON is parsed again; if it still fails the caller reports the first error.

use gltf::json::Value;

/// Repairs the JSON of a glTF file; `None` when there was nothing to repair or it did not help.
///
/// `bytes` is the whole file (JSON or GLB); warnings describe each repair.
pub(super) fn reparse(bytes: &[u8]) -> Option<(gltf::Gltf, Vec<String>)> {
    let (json, blob) = if bytes.starts_with(b"glTF") {
        let glb = gltf::binary::Glb::from_slice(bytes).ok()?;
        (glb.json.into_owned(), glb.bin.map(|b| b.into_owned()))
    } else {
        (bytes.to_vec(), None)
    };
    let mut value: Value = gltf::json::deserialize::from_slice(&json).ok()?;
    let mut warnings = drop_nodeless_channels(&mut value);
    let floats = integers_from_floats(&mut value);
    if floats > 0 {
        warnings.push(format!(
            "{floats} numbers written as floats with no fraction (e.g. 1.0) were read as integers"
        ));
    }
    if warnings.is_empty() {
        return None;
    }
    let text = gltf::json::serialize::to_vec(&value).ok()?;
    let root = gltf::json::deserialize::from_slice(&text).ok()?;
    let document = gltf::Document::from_json_without_validation(root);
    Some((gltf::Gltf { document, blob }, warnings))
}

/// Removes animation channels whose target names no node; returns a warning per animation touched.
fn drop_nodeless_channels(root: &mut Value) -> Vec<String> {
    let mut warnings = Vec::new();
    let Some(animations) = root.get_mut("animations").and_then(Value::as_array_mut) else {
        return warnings;
    };
    for (a, animation) in animations.iter_mut().enumerate() {
        let Some(channels) = animation.get_mut("channels").and_then(Value::as_array_mut) else {
            continue;
        };
        let before = channels.len();
        channels.retain(|c| c.get("target").and_then(|t| t.get("node")).is_some());
        let dropped = before - channels.len();
        if dropped > 0 {
            warnings.push(format!(
                "animation {a}: {dropped} channels target no node (e.g. KHR_animation_pointer); dropped, later channels renumbered"
            ));
        }
    }
    warnings
}

/// Rewrites every float with no fractional part (and exactly representable) as an integer; returns how many.
fn integers_from_floats(value: &mut Value) -> usize {
    match value {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            // 2^53: beyond it not every integer is a float. Negative zero stays a float.
            let exact = f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0;
            if !exact || (f == 0.0 && f.is_sign_negative()) {
                return 0;
            }
            *value = if f >= 0.0 {
                Value::from(f as u64)
            } else {
                Value::from(f as i64)
            };
            1
        }
        Value::Array(items) => items.iter_mut().map(integers_from_floats).sum(),
        Value::Object(map) => map.values_mut().map(integers_from_floats).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_floats_become_integers() {
        let mut v: Value = gltf::json::deserialize::from_str(
            r#"{"a": [1.0, -2.0, 0.5, 3, -0.0], "b": {"c": 4.0}}"#,
        )
        .unwrap();
        assert_eq!(integers_from_floats(&mut v), 3);
        assert_eq!(v.to_string(), r#"{"a":[1,-2,0.5,3,-0.0],"b":{"c":4}}"#);
    }

    #[test]
    fn nothing_to_repair_gives_none() {
        assert!(reparse(br#"{"asset": {"version": "2.0"}}"#).is_none());
        assert!(reparse(b"not json").is_none());
    }
}
