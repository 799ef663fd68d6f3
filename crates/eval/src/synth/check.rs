//! The optional answer check: does what the gold path returned answer the request? The model
//! says so and writes a short reference answer from the responses, or says it does not.

use async_trait::async_trait;
use serde_json::Value;

use super::writer::WriteError;

/// Whether a request is answered by its responses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answered {
    /// Yes, with a short reference answer.
    Yes(String),
    /// No.
    No,
}

/// Judges whether the responses of a request's calls answer it.
#[async_trait]
pub trait AnswerCheck: Send + Sync {
    /// The verdict for `request` given the `responses` of its calls, in order.
    async fn check(&self, request: &str, responses: &[Value]) -> Result<Answered, WriteError>;
}
