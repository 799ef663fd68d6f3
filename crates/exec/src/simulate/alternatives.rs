//! The shapes a union lets a value take: where a schema's `oneOf`/`anyOf` offers several
//! object shapes (TMDB's `known_for` items: a film with `title` and `release_date`, or a
//! show with `name` and `first_air_date`, told apart by `media_type`), the draft shows only
//! one of them. The fill prompt is told the other shapes briefly (their tag and the keys
//! that set them apart), so that each item is answered in the shape true of it; and an
//! answer's item is made to agree with itself: its tag is the one of the shape its keys
//! take, and the keys only another shape has are dropped from a tagged item.

use serde_json::{Map, Value};

use super::synth::resolve;

/// Most notes about other shapes one prompt holds.
const MAX_NOTES: usize = 6;
/// Most keys a note names on each side (those a shape adds, those it lacks).
const MAX_KEYS: usize = 12;
/// How deep in a value unions are looked for.
const MAX_DEPTH: usize = 12;

/// One object shape of a union.
struct Shape<'s> {
    /// The shape's schema, its `$ref` resolved.
    schema: &'s Value,
    /// Its property names, in the schema's order (with those of its `allOf` parts).
    keys: Vec<&'s str>,
}

/// A `oneOf`/`anyOf` of at least two object shapes.
struct Union<'s> {
    shapes: Vec<Shape<'s>>,
    /// The property every shape fixes to a value of its own (`media_type`: `movie` or
    /// `tv`), with each shape's value.
    tag: Option<(&'s str, Vec<&'s Value>)>,
}

impl<'s> Union<'s> {
    /// The union `schema` is, if its alternatives are two or more object shapes.
    fn at(root: &'s Value, schema: &'s Value) -> Option<Self> {
        let alts = ["oneOf", "anyOf"]
            .iter()
            .find_map(|k| schema.get(*k).and_then(Value::as_array))?;
        let shapes: Vec<Shape<'s>> = alts
            .iter()
            .map(|alt| resolve(root, alt))
            .filter(|alt| alt.get("type").and_then(Value::as_str) != Some("null"))
            .map(|alt| Shape {
                schema: alt,
                keys: keys_of(root, alt),
            })
            .collect();
        if shapes.len() < 2 || shapes.iter().any(|s| s.keys.is_empty()) {
            return None;
        }
        let tag = tag_of(root, &shapes);
        Some(Self { shapes, tag })
    }

    /// How many of `map`'s keys only some shapes have, and shape `i` among them.
    fn own_keys(&self, i: usize, map: &Map<String, Value>) -> usize {
        map.keys()
            .filter(|k| self.shapes[i].keys.contains(&k.as_str()) && !self.shared(k))
            .count()
    }

    /// Whether every shape has the key.
    fn shared(&self, key: &str) -> bool {
        self.shapes.iter().all(|s| s.keys.contains(&key))
    }

    /// The shape an object takes: the one its tag names when it holds a key of that
    /// shape's own, else the one most of its own keys belong to, else the one its tag
    /// names. `None` when nothing tells.
    fn shape_of(&self, map: &Map<String, Value>) -> Option<usize> {
        let tagged = self.tag.as_ref().and_then(|(key, values)| {
            let value = map.get(*key)?;
            values.iter().position(|v| *v == value)
        });
        if let Some(t) = tagged.filter(|&t| self.own_keys(t, map) > 0) {
            return Some(t);
        }
        let counts: Vec<usize> = (0..self.shapes.len())
            .map(|i| self.own_keys(i, map))
            .collect();
        let best = counts.iter().copied().max().unwrap_or(0);
        let leaders: Vec<usize> = (0..counts.len()).filter(|&i| counts[i] == best).collect();
        match leaders.as_slice() {
            [one] if best > 0 => Some(*one),
            _ => tagged,
        }
    }

    /// How shape `other` differs from shape `from` (the draft's): its tag, the keys it has
    /// that `from` lacks, and the keys of `from` it lacks.
    fn note(&self, place: &str, from: usize, other: usize) -> String {
        let tag_key = self.tag.as_ref().map(|(k, _)| *k);
        let (a, b) = (&self.shapes[from], &self.shapes[other]);
        let adds: Vec<&str> = b
            .keys
            .iter()
            .copied()
            .filter(|k| !a.keys.contains(k) && Some(*k) != tag_key)
            .collect();
        let lacks: Vec<&str> = a
            .keys
            .iter()
            .copied()
            .filter(|k| !b.keys.contains(k) && Some(*k) != tag_key)
            .collect();
        let mut note = format!("{place} may instead be another shape");
        if let Some((key, values)) = &self.tag {
            note.push_str(&format!(": `{key}` {}", values[other]));
        }
        if !adds.is_empty() {
            note.push_str(&format!(", with {}", listed(&adds)));
        }
        if !lacks.is_empty() {
            note.push_str(&format!(", and without {}", listed(&lacks)));
        }
        note
    }
}

/// The property names of an object schema, with those of its `allOf` parts.
fn keys_of<'s>(root: &'s Value, schema: &'s Value) -> Vec<&'s str> {
    let mut keys: Vec<&str> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    for part in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for key in keys_of(root, resolve(root, part)) {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys
}

/// The property every shape fixes to one value (`const`, or an `enum` of one), a
/// different value in each.
fn tag_of<'s>(root: &'s Value, shapes: &[Shape<'s>]) -> Option<(&'s str, Vec<&'s Value>)> {
    let fixed = |shape: &Shape<'s>, key: &str| -> Option<&'s Value> {
        let sub = resolve(root, shape.schema.get("properties")?.get(key)?);
        match sub.get("enum").and_then(Value::as_array).map(Vec::as_slice) {
            Some([one]) => Some(one),
            _ => sub.get("const"),
        }
    };
    shapes.first()?.keys.iter().find_map(|&key| {
        let values: Vec<&Value> = shapes
            .iter()
            .map(|s| fixed(s, key))
            .collect::<Option<_>>()?;
        let distinct = values
            .iter()
            .enumerate()
            .all(|(i, v)| !values[..i].contains(v));
        distinct.then_some((key, values))
    })
}

/// Keys as the prompt names them, at most [`MAX_KEYS`].
fn listed(keys: &[&str]) -> String {
    let mut out: Vec<String> = keys
        .iter()
        .take(MAX_KEYS)
        .map(|k| format!("`{k}`"))
        .collect();
    if keys.len() > MAX_KEYS {
        out.push("...".to_owned());
    }
    out.join(", ")
}

/// What the fill prompt is told of the draft's unions: for each place where the draft's
/// value took one shape of several, how each other shape differs (its tag, the keys it
/// has instead); distinct notes, at most [`MAX_NOTES`].
pub(crate) fn told(schema: &Value, draft: &Value) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    let mut draft = draft.clone();
    walk(schema, &mut draft, &mut |union, map, place| {
        let from = union.shape_of(map)?;
        for other in (0..union.shapes.len()).filter(|&o| o != from) {
            let note = union.note(place, from, other);
            if notes.len() < MAX_NOTES && !notes.contains(&note) {
                notes.push(note);
            }
        }
        Some(from)
    });
    notes
}

/// Makes each object of `answer` that sits in a tagged union agree with the shape its keys
/// take: its tag is that shape's (a show the model marked `movie`, or left unmarked, is
/// `tv`), and keys only other shapes have are dropped (no film's `title` on a show).
pub(crate) fn agree(schema: &Value, answer: &mut Value) {
    walk(schema, answer, &mut |union, map, _| {
        let shape = union.shape_of(map)?;
        if let Some((key, values)) = &union.tag {
            map.insert((*key).to_owned(), values[shape].clone());
            let own = &union.shapes[shape].keys;
            map.retain(|k, _| {
                own.contains(&k.as_str())
                    || !union.shapes.iter().any(|s| s.keys.contains(&k.as_str()))
            });
        }
        Some(shape)
    });
}

/// What [`walk`] asks at each object in a union: the shape to go on in, if any.
type Visit<'v> = dyn FnMut(&Union<'_>, &mut Map<String, Value>, &str) -> Option<usize> + 'v;

/// Walks `value` beside `schema`, calling `visit` at each object a union of object shapes
/// types, with the place it is at (`an item of \`known_for\``).
fn walk(schema: &Value, value: &mut Value, visit: &mut Visit<'_>) {
    walk_at(schema, schema, value, "the response", visit, 0);
}

fn walk_at(
    root: &Value,
    schema: &Value,
    value: &mut Value,
    place: &str,
    visit: &mut Visit<'_>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = resolve(root, schema);
    if let Some(union) = Union::at(root, schema) {
        if let Value::Object(map) = value
            && let Some(shape) = visit(&union, map, place)
        {
            walk_at(
                root,
                union.shapes[shape].schema,
                value,
                place,
                visit,
                depth + 1,
            );
        }
        return;
    }
    for part in ["allOf", "anyOf", "oneOf"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_array))
        .flatten()
    {
        walk_at(root, part, value, place, visit, depth + 1);
    }
    match value {
        Value::Object(map) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (key, item) in map.iter_mut() {
                if let Some(sub) = props.get(key) {
                    walk_at(root, sub, item, &format!("`{key}`"), visit, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            let Some(sub) = schema.get("items") else {
                return;
            };
            let place = format!("an item of {place}");
            for item in items {
                walk_at(root, sub, item, &place, visit, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A person search whose people are known for films or shows, in TMDB's shapes.
    fn people() -> Value {
        let kind = |k: &str| json!({"type": "string", "enum": [k]});
        json!({"type": "object", "definitions": {
            "film": {"type": "object", "required": ["media_type"], "properties": {
                "id": {"type": "integer"}, "title": {"type": "string"},
                "release_date": {"type": "string"}, "media_type": kind("movie")}},
            "show": {"type": "object", "required": ["media_type"], "properties": {
                "id": {"type": "integer"}, "name": {"type": "string"},
                "first_air_date": {"type": "string"}, "media_type": kind("tv")}}},
            "properties": {"results": {"type": "array", "items": {"type": "object",
                "properties": {"name": {"type": "string"}, "known_for": {"type": "array",
                    "items": {"oneOf": [{"$ref": "#/definitions/film"},
                        {"$ref": "#/definitions/show"}]}}}}}}})
    }

    #[test]
    fn the_other_shape_is_told_by_its_tag_and_its_own_keys() {
        let draft = json!({"results": [{"name": "A", "known_for": [
            {"id": 1, "title": "x", "release_date": "2000-01-01", "media_type": "movie"},
            {"id": 2, "title": "y", "media_type": "movie"}]},
            {"name": "B", "known_for": [{"id": 3, "title": "z", "media_type": "movie"}]}]});
        let notes = told(&people(), &draft);
        assert_eq!(
            notes,
            [
                "an item of `known_for` may instead be another shape: `media_type` \"tv\", \
              with `name`, `first_air_date`, and without `title`, `release_date`"
            ]
        );
        // A value of no union tells nothing.
        assert!(told(&people(), &json!({"results": []})).is_empty());
    }

    #[test]
    fn an_item_takes_the_tag_of_the_shape_its_keys_take() {
        let mut answer = json!({"results": [{"name": "A", "known_for": [
            {"id": 1, "title": "Ice Age", "media_type": "movie"},
            {"id": 2, "name": "Top Gear", "first_air_date": "2002-10-20", "media_type": "movie"},
            {"id": 3, "name": "The Grand Tour"},
            {"id": 4, "name": "Clarkson's Farm", "title": "Clarkson's Farm",
                "release_date": "2021-06-11", "media_type": "tv"},
            {"id": 5, "media_type": "tv"},
            {"id": 6, "extra": true}]}]});
        agree(&people(), &mut answer);
        assert_eq!(
            answer["results"][0]["known_for"],
            json!([
                {"id": 1, "title": "Ice Age", "media_type": "movie"},
                {"id": 2, "name": "Top Gear", "first_air_date": "2002-10-20", "media_type": "tv"},
                {"id": 3, "name": "The Grand Tour", "media_type": "tv"},
                {"id": 4, "name": "Clarkson's Farm", "media_type": "tv"},
                {"id": 5, "media_type": "tv"},
                {"id": 6, "extra": true}])
        );
    }
}
