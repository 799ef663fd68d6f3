//! Calls about a record that does not exist, answered as the API would: a
//! `404` whose body says so, reported as a failed call (`not_found`). A record
//! is missing when the session deleted it (`state`), or when the path names
//! it by an id no record can have: a negative one, or zero where the
//! parameter's `minimum` makes ids positive. Nothing else is made to fail: a
//! stand-in still answers every plausible call.

use serde_json::{Value, json};
use toolsmith_catalog::{ApiId, ParamLocation};

use super::idshape::names_id;
use crate::executor::BookEntry;
use crate::observation::{Body, FailureKind, Observation, Provenance};

/// The status of an answer about a missing record.
pub(crate) const NOT_FOUND: u16 = 404;

/// Why the call's path names no record, when one of its id parameters holds an id no
/// record can have (`-1`; `0` under `minimum: 1`).
pub(crate) fn impossible_id(
    entry: &BookEntry,
    args: &serde_json::Map<String, Value>,
) -> Option<String> {
    entry
        .api
        .api
        .params
        .iter()
        .filter(|p| p.location == ParamLocation::Path && names_id(&p.name))
        .find_map(|p| {
            let n = integer_of(args.get(&p.name)?)?;
            let positive = p
                .schema
                .get("minimum")
                .and_then(Value::as_f64)
                .is_some_and(|min| min >= 1.0)
                || p.schema
                    .get("exclusiveMinimum")
                    .and_then(Value::as_f64)
                    .is_some_and(|min| min >= 0.0);
            (n < 0 || (n == 0 && positive)).then(|| format!("no record has the {} {n}", p.name))
        })
}

/// The failed observation of a call about a missing record: status `404`, and a small
/// body that says what was not found (the catalog keeps no error schema of the spec).
pub(crate) fn not_found(api: &ApiId, why: &str, provenance: Provenance) -> Observation {
    let body = json!({"error": format!("not found: {why}"), "status": NOT_FOUND});
    let message = format!("`{api}`: not found: {why}");
    let mut obs = Observation::tool_error(FailureKind::NotFound, message, provenance);
    obs.status = Some(NOT_FOUND);
    obs.bytes = body.to_string().len();
    obs.body = Body::Json(body);
    obs
}

/// A whole number given as a number or as text (`-1`, `"-1"`).
fn integer_of(value: &Value) -> Option<i64> {
    value
        .as_i64()
        .or_else(|| value.as_str()?.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_name_and_an_integer_are_read_as_apis_write_them() {
        for name in ["id", "pet_id", "userId", "order-id"] {
            assert!(names_id(name), "{name}");
        }
        for name in ["paid", "valid", "width", "android"] {
            assert!(!names_id(name), "{name}");
        }
        assert_eq!(integer_of(&json!(-1)), Some(-1));
        assert_eq!(integer_of(&json!(" -7 ")), Some(-7));
        assert_eq!(integer_of(&json!("abc")), None);
    }
}
