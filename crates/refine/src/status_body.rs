//! Whether a made-up response is only an error or a bare status message. Many catalogs
//! (ToolBench's scraped tools above all) give an API's example response as whatever came back
//! when the catalog was built: `{"message": "You are not subscribed to this API."}`, a
//! problem-details `{"type", "title", "status"}`, a rate-limit text. The simulator answers with
//! such an example when it has nothing else, and a refiner that reads it as evidence documents
//! that "every call returns an error". Such a body says nothing about what the API returns.

use serde_json::Value;
use toolsmith_exec::Body;

/// Keys that carry an error or a message: a status body has at least one (a `{"status": "ok"}`
/// alone is a payload).
const TELLING_KEYS: &[&str] = &[
    "error",
    "errors",
    "error_code",
    "errorcode",
    "error_message",
    "message",
    "messages",
    "msg",
    "detail",
    "details",
];

/// Keys that may stand beside them in a status body; any key in neither list makes it a payload.
const BESIDE_KEYS: &[&str] = &[
    "status",
    "status_code",
    "statuscode",
    "code",
    "title",
    "type",
    "success",
    "reason",
    "info",
    "timestamp",
    "path",
    "instance",
    "request_id",
    "requestid",
    "documentation_url",
    "hint",
];

/// Words of a short text body that make it an error.
const ERROR_WORDS: &[&str] = &[
    "error",
    "invalid",
    "unauthorized",
    "forbidden",
    "not found",
    "not subscribed",
    "rate limit",
    "too many requests",
    "blocked",
    "expired",
    "quota",
];

/// Longest text body read as a bare message, in characters.
const MAX_MESSAGE_CHARS: usize = 300;

/// Whether `body` is only an error or a bare status message (see the module doc).
pub(crate) fn is_status_only(body: &Body) -> bool {
    match body {
        Body::Empty => false,
        Body::Json(v) => status_value(v),
        Body::Text(t) => match serde_json::from_str::<Value>(t) {
            Ok(v) => status_value(&v),
            Err(_) => error_text(t),
        },
    }
}

fn status_value(v: &Value) -> bool {
    match v {
        Value::Object(map) => {
            let key = |k: &String| k.to_ascii_lowercase().replace('-', "_");
            let telling = |k: &String| TELLING_KEYS.contains(&key(k).as_str());
            let beside = |k: &String| BESIDE_KEYS.contains(&key(k).as_str());
            let problem = map.contains_key("title") && map.contains_key("status");
            !map.is_empty()
                && map.keys().all(|k| telling(k) || beside(k))
                && (map.keys().any(telling) || problem)
                && map.values().all(plain)
        }
        Value::String(s) => error_text(s),
        _ => false,
    }
}

/// Whether a value of a status body is only status: a scalar, an error object
/// (`{"code": 401, "message": "bad key"}`), or a list of them. A payload wrapped in a
/// status key (`{"message": {"items": [...]}}`, as some APIs answer a search) is not.
fn plain(v: &Value) -> bool {
    match v {
        Value::Object(_) => status_value(v),
        Value::Array(items) => items.iter().all(plain),
        _ => true,
    }
}

fn error_text(text: &str) -> bool {
    let text = text.trim().to_lowercase();
    text.chars().count() <= MAX_MESSAGE_CHARS && ERROR_WORDS.iter().any(|w| text.contains(w))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn error_and_status_bodies_are_told_from_payloads() {
        let status = [
            json!({"message": "You are not subscribed to this API."}),
            json!({"type": "https://docs.example/problems/not-found", "title": "Not found", "status": 404}),
            json!({"error": {"code": 401, "message": "bad key"}}),
            json!({"errors": [{"message": "bad id", "path": "/id"}, "and a second"]}),
            json!({"Error-Message": "quota", "status": "fail"}),
            json!("Too many requests, slow down"),
        ];
        for body in status {
            assert!(is_status_only(&Body::Json(body.clone())), "{body}");
        }
        assert!(is_status_only(&Body::Text("403 Forbidden".into())));
        let payloads = [
            json!({"status": "ok"}),
            json!({"message": "sent", "id": 7}),
            json!({"title": "Dune", "year": 2021}),
            json!([{"error": "x"}]),
            json!("Paris"),
            // A search result wrapped in a message key is a payload.
            json!({"message": {"kind": "search", "items": [{"id": "v1", "title": "Wheels"}]}}),
            json!({"data": {"error": null}, "message": "ok"}),
        ];
        for body in payloads {
            assert!(!is_status_only(&Body::Json(body.clone())), "{body}");
        }
        assert!(!is_status_only(&Body::Text(
            "a long text about errors ".repeat(20)
        )));
        assert!(!is_status_only(&Body::Empty));
    }
}
