//! The API's JSON error (`{"error": {"code", "message"}}`), below the router and the
//! guards that both answer with it.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::error::Error;

/// An error as the API returns it: `{"error": {"code", "message"}}` with a status.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    extra: Option<Value>,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            extra: None,
        }
    }
}

impl From<Error> for ApiError {
    fn from(err: Error) -> Self {
        let status = match &err {
            Error::UnknownTool { .. } | Error::UnknownHandle(_) | Error::RunNotFound(_) => {
                StatusCode::NOT_FOUND
            }
            Error::BadRequest(_) | Error::Jq(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Error::NoSandbox | Error::SolveUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        if !err.is_client_error() {
            // The cause stays in the log; the caller gets a generic message.
            tracing::error!(error = %err, source = ?std::error::Error::source(&err), "request failed");
            return Self::new(status, err.code(), "internal error; see the server log");
        }
        let extra = match &err {
            Error::UnknownTool { closest, .. } => Some(json!({ "closest": closest })),
            _ => None,
        };
        Self {
            extra,
            ..Self::new(status, err.code(), err.to_string())
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut error = json!({"code": self.code, "message": self.message});
        if let (Some(Value::Object(extra)), Some(map)) = (self.extra, error.as_object_mut()) {
            map.extend(extra);
        }
        (self.status, Json(json!({ "error": error }))).into_response()
    }
}
