//! JSON objects and arrays whose members stay raw text, so untouched values are written back byte for byte.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;

use super::container::amend_err;
use crate::scene::SceneError;

/// A raw JSON value: its exact text.
pub(super) type Raw = Box<RawValue>;

/// A JSON object as (key, raw value) pairs in file order.
#[derive(Debug, Default)]
pub(super) struct RawObject(Vec<(String, Raw)>);

impl RawObject {
    /// Parses an object from JSON text.
    pub(super) fn parse(text: &str, what: &str) -> Result<Self, SceneError> {
        serde_json::from_str(text)
            .map_err(|e| amend_err(format!("{what} is not a JSON object: {e}")))
    }

    /// The raw value of `key` (the last one when a key repeats, as JSON parsers keep).
    pub(super) fn get(&self, key: &str) -> Option<&RawValue> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| &**v)
    }

    /// Sets `key` in place (its position kept) or appends it; returns whether it was there.
    pub(super) fn set(&mut self, key: &str, value: Raw) -> bool {
        match self.0.iter_mut().rev().find(|(k, _)| k == key) {
            Some(slot) => {
                slot.1 = value;
                true
            }
            None => {
                self.0.push((key.to_owned(), value));
                false
            }
        }
    }

    /// Removes every member named `key`; returns whether there was one.
    pub(super) fn remove(&mut self, key: &str) -> bool {
        let before = self.0.len();
        self.0.retain(|(k, _)| k != key);
        self.0.len() != before
    }

    /// The members of the array at `key` (empty when absent).
    pub(super) fn array(&self, key: &str) -> Result<Vec<Raw>, SceneError> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(raw) => parse_array(raw, key),
        }
    }

    /// This object as raw text.
    pub(super) fn to_raw(&self) -> Result<Raw, SceneError> {
        to_raw(self)
    }
}

/// The members of a raw JSON array.
pub(super) fn parse_array(raw: &RawValue, what: &str) -> Result<Vec<Raw>, SceneError> {
    serde_json::from_str(raw.get()).map_err(|e| amend_err(format!("`{what}` is not an array: {e}")))
}

/// Serialises `value` (a `serde_json::Value`, a raw list, an object) as raw text.
pub(super) fn to_raw<T: Serialize + ?Sized>(value: &T) -> Result<Raw, SceneError> {
    serde_json::value::to_raw_value(value).map_err(|e| amend_err(format!("JSON: {e}")))
}

impl Serialize for RawObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for RawObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// Collects the members of a map in order.
        struct Members;

        impl<'de> Visitor<'de> for Members {
            type Value = RawObject;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<RawObject, A::Error> {
                let mut members = Vec::new();
                while let Some((k, v)) = access.next_entry::<String, Raw>()? {
                    members.push((k, v));
                }
                Ok(RawObject(members))
            }
        }

        deserializer.deserialize_map(Members)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untouched_members_keep_their_text_and_order() {
        let text = r#"{"b": 1.50, "a": {"x": [1e3, 2]}, "c": "s"}"#;
        let mut obj = RawObject::parse(text, "test").unwrap();
        assert!(obj.set("a", to_raw(&serde_json::json!(7)).unwrap()));
        assert!(!obj.set("d", to_raw(&serde_json::json!(null)).unwrap()));
        let out = serde_json::to_string(&obj).unwrap();
        assert_eq!(out, r#"{"b":1.50,"a":7,"c":"s","d":null}"#);
        assert!(RawObject::parse("[1]", "test").is_err());
        assert!(obj.array("b").is_err());
        assert!(obj.array("missing").unwrap().is_empty());
    }
}
