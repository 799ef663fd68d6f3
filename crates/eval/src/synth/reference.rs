//! References from one planned call's arguments into an earlier call's response:
//! `{"$from": i, "path": ".results[0].id"}`, resolved by a small walk over jq's simple paths
//! (`.field`, `.["field"]`, `[n]`, negative `n` from the end) or a JSON pointer (`/results/0/id`).

use serde_json::{Map, Value};

/// Why a reference did not resolve.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// `$from` names no earlier call.
    #[error("`$from` {0} is not an earlier call")]
    NotEarlier(u64),
    /// The path is not a simple jq path or JSON pointer.
    #[error("cannot read the path `{0}`")]
    BadPath(String),
    /// The path leads nowhere (or to `null`) in that response.
    #[error("`{path}` finds nothing in the response of call {from}")]
    Missing {
        /// The call referred to.
        from: u64,
        /// The path.
        path: String,
    },
}

/// `arguments` with every reference replaced by the value it points at in `responses` (the
/// responses of the calls before this one, in order).
pub fn resolve_arguments(arguments: &Value, responses: &[Value]) -> Result<Value, RefError> {
    match arguments {
        Value::Object(map) => {
            if let Some((from, path)) = as_reference(map) {
                let response = usize::try_from(from)
                    .ok()
                    .and_then(|i| responses.get(i))
                    .ok_or(RefError::NotEarlier(from))?;
                return match walk(response, path)? {
                    Some(v) if !v.is_null() => Ok(v.clone()),
                    _ => Err(RefError::Missing {
                        from,
                        path: path.to_owned(),
                    }),
                };
            }
            map.iter()
                .map(|(k, v)| Ok((k.clone(), resolve_arguments(v, responses)?)))
                .collect::<Result<Map<_, _>, _>>()
                .map(Value::Object)
        }
        Value::Array(items) => items
            .iter()
            .map(|v| resolve_arguments(v, responses))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => Ok(other.clone()),
    }
}

/// Whether `arguments` holds a reference anywhere.
pub fn has_reference(arguments: &Value) -> bool {
    match arguments {
        Value::Object(map) => as_reference(map).is_some() || map.values().any(has_reference),
        Value::Array(items) => items.iter().any(has_reference),
        _ => false,
    }
}

fn as_reference(map: &Map<String, Value>) -> Option<(u64, &str)> {
    let from = map.get("$from")?.as_u64()?;
    let path = map.get("path").and_then(Value::as_str).unwrap_or(".");
    Some((from, path))
}

/// The value at `path` in `value` (`None` when a step finds nothing).
fn walk<'a>(value: &'a Value, path: &str) -> Result<Option<&'a Value>, RefError> {
    let steps = if path.starts_with('/') || path.is_empty() {
        pointer_steps(path)
    } else {
        jq_steps(path).ok_or_else(|| RefError::BadPath(path.to_owned()))?
    };
    let mut here = value;
    for step in &steps {
        let next = match (step, here) {
            (Step::Key(k), Value::Object(m)) => m.get(k),
            (Step::Index(i), Value::Array(a)) => index(a, *i),
            // A pointer's numeric segment names an array element or an object key.
            (Step::Key(k), Value::Array(a)) => k.parse::<i64>().ok().and_then(|i| index(a, i)),
            _ => None,
        };
        match next {
            Some(v) => here = v,
            None => return Ok(None),
        }
    }
    Ok(Some(here))
}

fn index(items: &[Value], i: i64) -> Option<&Value> {
    let at = if i < 0 {
        items
            .len()
            .checked_sub(usize::try_from(i.unsigned_abs()).ok()?)?
    } else {
        usize::try_from(i).ok()?
    };
    items.get(at)
}

#[derive(Debug, PartialEq)]
enum Step {
    Key(String),
    Index(i64),
}

fn pointer_steps(path: &str) -> Vec<Step> {
    path.split('/')
        .skip(1)
        .map(|s| Step::Key(s.replace("~1", "/").replace("~0", "~")))
        .collect()
}

/// The steps of a simple jq path; `None` for anything else (pipes, functions, `[]`).
fn jq_steps(path: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let mut rest = path.trim();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('[') {
            let (inner, tail) = after.split_once(']')?;
            let inner = inner.trim();
            steps.push(match inner.strip_prefix('"') {
                Some(quoted) => Step::Key(quoted.strip_suffix('"')?.to_owned()),
                None => Step::Index(inner.parse().ok()?),
            });
            rest = tail;
        } else if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let (key, tail) = after.split_at(end);
            if !key.is_empty() {
                if !key
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
                {
                    return None;
                }
                steps.push(Step::Key(key.to_owned()));
            }
            rest = tail;
        } else {
            return None;
        }
    }
    Some(steps)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn references_resolve_by_jq_path_and_pointer() {
        let responses = [json!({"results": [{"id": 7, "name": "Dune"}, {"id": 9}]})];
        let args = json!({
            "a": {"$from": 0, "path": ".results[0].id"},
            "b": {"$from": 0, "path": "/results/1/id"},
            "c": {"$from": 0, "path": ".results[-1].id"},
            "d": {"$from": 0, "path": ".[\"results\"][0].name"},
            "plain": 3
        });
        let out = resolve_arguments(&args, &responses).unwrap();
        assert_eq!(
            out,
            json!({"a": 7, "b": 9, "c": 9, "d": "Dune", "plain": 3})
        );
        assert!(has_reference(&args));
        assert!(!has_reference(&out));
    }

    #[test]
    fn a_reference_that_finds_nothing_is_an_error() {
        let responses = [json!({"results": []})];
        let missing = json!({"id": {"$from": 0, "path": ".results[0].id"}});
        assert!(matches!(
            resolve_arguments(&missing, &responses),
            Err(RefError::Missing { from: 0, .. })
        ));
        let later = json!({"id": {"$from": 1, "path": ".id"}});
        assert_eq!(
            resolve_arguments(&later, &responses),
            Err(RefError::NotEarlier(1))
        );
        let piped = json!({"id": {"$from": 0, "path": ".results | first"}});
        assert!(matches!(
            resolve_arguments(&piped, &responses),
            Err(RefError::BadPath(_))
        ));
    }
}
