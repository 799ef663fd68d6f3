//! YAML into JSON values, leniently where JSON can hold the meaning: integers past 64 bits
//! (DigitalOcean's `maximum: 18446744073709552000`) become floats, and non-string keys
//! (`200:`, `true:`) become their text, so a real spec is not refused over a bound.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value read from YAML (see the module docs).
pub(crate) struct YamlJson(pub(crate) Value);

impl<'de> Deserialize<'de> for YamlJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor).map(YamlJson)
    }
}

/// A map key as JSON needs it: a string.
struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = deserializer.deserialize_any(ValueVisitor)?;
        Ok(Key(match value {
            Value::String(s) => s,
            Value::Null => "null".to_owned(),
            other => other.to_string(),
        }))
    }
}

struct ValueVisitor;

/// A float for an integer JSON numbers cannot hold exactly (`null` if not finite).
fn wide(n: f64) -> Value {
    Number::from_f64(n).map_or(Value::Null, Value::Number)
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    #[allow(clippy::cast_precision_loss)]
    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or_else(|_| wide(v as f64), Value::from))
    }
    #[allow(clippy::cast_precision_loss)]
    fn visit_u128<E>(self, v: u128) -> Result<Value, E> {
        Ok(u64::try_from(v).map_or_else(|_| wide(v as f64), Value::from))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(wide(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(YamlJson(item)) = seq.next_element()? {
            out.push(item);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some((Key(key), YamlJson(value))) = map.next_entry()? {
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn wide_integers_become_floats_and_keys_become_text() {
        let text =
            "maximum: 18446744073709552000\nsmall: -3\n200: ok\ntrue: yes\nlist: [1, 2.5, ~]\n";
        let YamlJson(value) = serde_norway::from_str(text).unwrap();
        assert_eq!(
            value["maximum"].as_f64(),
            Some(18_446_744_073_709_552_000.0)
        );
        assert_eq!(value["small"], -3);
        assert_eq!(value["200"], "ok");
        assert_eq!(value["true"], "yes");
        assert_eq!(value["list"], serde_json::json!([1, 2.5, null]));
    }
}
