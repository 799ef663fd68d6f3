//! Arguments read the way their documentation wrote them: a list parameter documented as
//! "a comma-separated list" (Spotify's search `type`) is often given as one string,
//! `"album,track"`, which the schema's `array` refuses. Such a string is split on commas into
//! the list when every piece is a valid item; the change is returned so that the caller can
//! say what was sent.

use std::fmt;

use serde_json::{Map, Value};

/// One argument sent in another form than the one given.
#[derive(Clone, Debug, PartialEq)]
pub struct Coercion {
    /// The parameter.
    pub param: String,
    /// The value given.
    pub given: Value,
    /// The value sent instead.
    pub sent: Value,
}

impl fmt::Display for Coercion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "parameter `{}`: the string {} was sent as the list {}",
            self.param, self.given, self.sent
        )
    }
}

/// `args` with every string given for a parameter whose schema (in `schema`'s `properties`)
/// is a list of scalars split on commas into that list, each piece trimmed and typed as the
/// items are, when every piece is valid against the item schema; and the changes made. Any
/// other argument, and any string a piece of which is not a valid item, is left as given.
pub fn coerce_lists(schema: &Value, args: &Value) -> (Value, Vec<Coercion>) {
    let (Some(props), Some(given)) = (
        schema.get("properties").and_then(Value::as_object),
        args.as_object(),
    ) else {
        return (args.clone(), Vec::new());
    };
    let mut out = Map::new();
    let mut changes = Vec::new();
    for (name, value) in given {
        let list = match (value, props.get(name)) {
            (Value::String(text), Some(prop)) => split_list(text, prop),
            _ => None,
        };
        match list {
            Some(sent) => {
                changes.push(Coercion {
                    param: name.clone(),
                    given: value.clone(),
                    sent: sent.clone(),
                });
                out.insert(name.clone(), sent);
            }
            None => {
                out.insert(name.clone(), value.clone());
            }
        }
    }
    (Value::Object(out), changes)
}

/// `text` as the list `prop` asks for, when `prop` is a list of scalars and every non-empty
/// comma-separated piece of `text` is a valid item.
fn split_list(text: &str, prop: &Value) -> Option<Value> {
    if prop.get("type").and_then(Value::as_str) != Some("array") {
        return None;
    }
    let items = prop.get("items")?;
    let item_type = items
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    let validator = jsonschema::validator_for(items).ok()?;
    let pieces: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if pieces.is_empty() {
        return None;
    }
    let mut list = Vec::with_capacity(pieces.len());
    for piece in pieces {
        let value = typed(piece, item_type)?;
        if !validator.is_valid(&value) {
            return None;
        }
        list.push(value);
    }
    Some(Value::Array(list))
}

/// A piece of text as a scalar of JSON Schema type `item_type`; `None` for a piece that is not
/// one, or a type that is not a scalar's.
fn typed(piece: &str, item_type: &str) -> Option<Value> {
    match item_type {
        "string" => Some(Value::String(piece.to_owned())),
        "integer" | "number" => serde_json::from_str::<Value>(piece)
            .ok()
            .filter(Value::is_number),
        "boolean" => match piece {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "q": {"type": "string"},
            "type": {"type": "array", "items": {"type": "string",
                     "enum": ["album", "artist", "playlist", "track"]}},
            "ids": {"type": "array", "items": {"type": "integer"}},
            "pairs": {"type": "array", "items": {"type": "array"}}}})
    }

    #[test]
    fn a_comma_separated_string_becomes_the_list_when_every_piece_is_an_item() {
        let (args, changes) = coerce_lists(
            &schema(),
            &json!({"q": "a,b", "type": "album, track", "ids": "3,5"}),
        );
        assert_eq!(
            args,
            json!({"q": "a,b", "type": ["album", "track"], "ids": [3, 5]})
        );
        assert_eq!(changes.len(), 2);
        assert_eq!(
            changes[0].to_string(),
            r#"parameter `type`: the string "album, track" was sent as the list ["album","track"]"#
        );
        let (args, _) = coerce_lists(&schema(), &json!({"type": "track"}));
        assert_eq!(args, json!({"type": ["track"]}));
    }

    #[test]
    fn a_string_with_a_piece_that_is_no_item_is_left_as_given() {
        for given in [
            json!({"type": "album,song"}),
            json!({"ids": "3,five"}),
            json!({"ids": "3.5"}),
            json!({"type": " , "}),
            json!({"pairs": "a,b"}),
            json!({"type": ["album"]}),
        ] {
            let (args, changes) = coerce_lists(&schema(), &given);
            assert_eq!(args, given);
            assert!(changes.is_empty(), "{given}");
        }
    }
}
