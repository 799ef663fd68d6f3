//! The HTTP layer shared by the chat and embedding clients: one `reqwest` client, a semaphore
//! bounding requests in flight, and the retry loop (exponential backoff with jitter,
//! `Retry-After` honoured).

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};
use tokio::sync::Semaphore;
use toolsmith_plumbing::retry::parse_retry_after;
use toolsmith_plumbing::text::truncate_chars;

use crate::error::{Error, MAX_MESSAGE_CHARS, Result};
use crate::redact::redact_url;
use crate::settings::{LlmSettings, RetrySettings, Secret};

/// A JSON-posting client with bounded concurrency and retries.
#[derive(Clone, Debug)]
pub(crate) struct HttpCore {
    client: reqwest::Client,
    in_flight: Arc<Semaphore>,
    base_url: String,
    api_key: Option<Secret>,
    retry: RetrySettings,
    timeout: Duration,
}

impl HttpCore {
    pub(crate) fn new(settings: &LlmSettings) -> Result<Self> {
        settings.validate()?;
        let client = reqwest::Client::builder()
            .timeout(settings.request_timeout())
            .connect_timeout(Duration::from_millis(settings.connect_timeout_ms))
            .build()
            .map_err(|e| Error::Config {
                field: "http client",
                reason: e.to_string(),
            })?;
        Ok(Self {
            client,
            in_flight: Arc::new(Semaphore::new(settings.max_in_flight)),
            base_url: settings.base_url.trim_end_matches('/').to_owned(),
            api_key: settings.api_key.clone(),
            retry: settings.retry.clone(),
            timeout: settings.request_timeout(),
        })
    }

    /// `base_url` + `/` + `path`.
    pub(crate) fn endpoint(&self, path: &str) -> String {
        format!("{}/{}", self.base_url, path.trim_start_matches('/'))
    }

    /// Posts `body` to `path`, retrying retryable failures, and returns the raw success body.
    pub(crate) async fn post_json(&self, path: &str, body: &serde_json::Value) -> Result<String> {
        let url = self.endpoint(path);
        let safe_url = redact_url(&url);
        let mut attempt: u32 = 0;
        loop {
            attempt = attempt.saturating_add(1);
            let result = self.attempt(&url, &safe_url, body).await;
            let err = match result {
                Ok(text) => return Ok(text),
                Err(err) => err,
            };
            if !err.is_retryable() {
                return Err(err);
            }
            if !self.retry.allows_retry_after(attempt) {
                return Err(Error::GaveUp {
                    attempts: attempt,
                    last: Box::new(err),
                });
            }
            let wait = self.wait_before_retry(attempt, &err);
            tracing::debug!(url = %safe_url, attempt, ?wait, error = %err, "retrying");
            tokio::time::sleep(wait).await;
        }
    }

    async fn attempt(&self, url: &str, safe_url: &str, body: &serde_json::Value) -> Result<String> {
        // Held only while the request is on the wire, not during backoff.
        let _permit = self
            .in_flight
            .acquire()
            .await
            .map_err(|_| Error::Task("request semaphore closed".into()))?;
        let mut request = self.client.post(url).json(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key.expose());
        }
        let response = request
            .send()
            .await
            .map_err(|e| self.transport(safe_url, e))?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let text = response
            .text()
            .await
            .map_err(|e| self.transport(safe_url, e))?;
        if status.is_success() {
            return Ok(text);
        }
        Err(Error::Status {
            status: status.as_u16(),
            url: safe_url.to_owned(),
            message: server_message(&text),
            retry_after,
        })
    }

    fn transport(&self, safe_url: &str, source: reqwest::Error) -> Error {
        if source.is_timeout() {
            Error::Timeout {
                url: safe_url.to_owned(),
                after: self.timeout,
            }
        } else {
            // reqwest's message would repeat the full URL; ours carries the redacted one.
            Error::Connection {
                url: safe_url.to_owned(),
                source: source.without_url(),
            }
        }
    }

    /// How long to wait before retry number `attempt`: the shared policy
    /// ([`RetrySettings::delay`]), given the server's `Retry-After` when it sent one.
    fn wait_before_retry(&self, attempt: u32, err: &Error) -> Duration {
        let retry_after = match err {
            Error::Status { retry_after, .. } => *retry_after,
            _ => None,
        };
        self.retry.delay(attempt, retry_after)
    }
}

fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    parse_retry_after(headers.get(RETRY_AFTER)?.to_str().ok()?)
}

/// The `error.message` of an OpenAI-style error body, else the body's start.
pub(crate) fn server_message(body: &str) -> String {
    let from_json = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            let msg = v
                .pointer("/error/message")
                .or_else(|| v.get("error"))
                .or_else(|| v.get("detail"))?;
            Some(match msg {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
        });
    let text = from_json.unwrap_or_else(|| body.split_whitespace().collect::<Vec<_>>().join(" "));
    truncate_chars(&text, MAX_MESSAGE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_credentials_and_queries() {
        assert_eq!(
            redact_url("https://user:pw@example.com/v1/chat?key=sk-1"),
            "https://example.com/v1/chat"
        );
        assert_eq!(
            redact_url("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/v1"
        );
    }

    #[test]
    fn server_messages_come_from_json_or_text() {
        assert_eq!(
            server_message(r#"{"error":{"message":"bad key","type":"x"}}"#),
            "bad key"
        );
        assert_eq!(
            server_message("<html>\n<body>502 Bad Gateway</body></html>"),
            "<html> <body>502 Bad Gateway</body></html>"
        );
        assert!(server_message(&"x".repeat(1000)).chars().count() <= MAX_MESSAGE_CHARS + 1);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let settings = LlmSettings {
            retry: RetrySettings {
                initial_backoff_ms: 100,
                max_backoff_ms: 350,
                ..RetrySettings::DEFAULT
            },
            ..LlmSettings::default()
        };
        let core = HttpCore::new(&settings).unwrap();
        let err = Error::Timeout {
            url: String::new(),
            after: Duration::ZERO,
        };
        for _ in 0..20 {
            let first = core.wait_before_retry(1, &err);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
            let fifth = core.wait_before_retry(5, &err);
            assert!(fifth <= Duration::from_millis(350));
        }
        let limited = Error::Status {
            status: 429,
            url: String::new(),
            message: String::new(),
            retry_after: Some(Duration::from_secs(1000)),
        };
        assert_eq!(
            core.wait_before_retry(1, &limited),
            Duration::from_millis(120_000)
        );
    }
}
