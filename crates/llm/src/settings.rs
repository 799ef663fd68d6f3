//! Plain settings for the LLM clients: where the server is, which model each role uses, how
//! long to wait, how often to retry, how many requests may be in flight.
//!
//! The binary layers `toolsmith.toml` and CLI flags over [`LlmSettings::from_env`]; this crate
//! only reads the environment in that one helper (and in [`default_models_dir`]).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::redact::redact_url;
use crate::role::Role;

/// Names of the environment variables toolsmith reads (`OPENAI_BASE_URL`, `OPENAI_API_KEY`,
/// `TOOLSMITH_MODEL`, `TOOLSMITH_MODELS` and `TOOLSMITH_SKIP_MODEL_TESTS` here), kept once in
/// plumbing.
pub use toolsmith_plumbing::env;

/// An API key: usable, never printed, never serialized (the one shared type).
pub use toolsmith_plumbing::Secret;

/// When and how to retry a failed request (the policy shared with every HTTP client).
pub use toolsmith_plumbing::retry::RetrySettings;

/// Everything the OpenAI-compatible clients need. `Default` is OpenAI's endpoint with
/// `gpt-4o-mini` and no key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmSettings {
    /// Base URL including `/v1`. By default, `https://api.openai.com/v1`.
    pub base_url: String,
    /// Sent as a bearer token when set. Never serialized. By default, none.
    #[serde(skip_serializing)]
    pub api_key: Option<Secret>,
    /// The chat model for roles without their own. By default, `gpt-4o-mini`.
    pub model: String,
    /// A model per role, overriding `model`. By default, empty.
    pub role_models: BTreeMap<Role, String>,
    /// The embeddings model used by the HTTP embedder. By default, `text-embedding-3-small`.
    pub embedding_model: String,
    /// Timeout of one HTTP request, connection included. By default, 120 s.
    pub request_timeout_ms: u64,
    /// Timeout of establishing the connection. By default, 10 s.
    pub connect_timeout_ms: u64,
    /// Retry policy.
    pub retry: RetrySettings,
    /// Requests in flight at once per client. By default, 8.
    pub max_in_flight: usize,
    /// The models' context in tokens: a request whose prompt plus `max_tokens` exceeds it is
    /// refused before it is sent. `None` checks nothing. By default, 128,000 (gpt-4o-mini's).
    pub context_tokens: Option<u64>,
}

impl Default for LlmSettings {
    fn default() -> Self {
        Self {
            base_url: "https://api.openai.com/v1".into(),
            api_key: None,
            model: "gpt-4o-mini".into(),
            role_models: BTreeMap::new(),
            embedding_model: "text-embedding-3-small".into(),
            request_timeout_ms: 120_000,
            connect_timeout_ms: 10_000,
            retry: RetrySettings::DEFAULT,
            max_in_flight: 8,
            context_tokens: Some(128_000),
        }
    }
}

impl LlmSettings {
    /// The defaults, with `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `TOOLSMITH_MODEL` applied where
    /// set and non-empty.
    pub fn from_env() -> Self {
        Self::default().with_env()
    }

    /// These settings with `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `TOOLSMITH_MODEL` applied
    /// where set and non-empty (a config file's values, overridden by the environment).
    pub fn with_env(self) -> Self {
        let mut settings = self;
        if let Some(url) = non_empty_env(env::OPENAI_BASE_URL) {
            settings.base_url = url;
        }
        if let Some(key) = non_empty_env(env::OPENAI_API_KEY) {
            settings.api_key = Some(Secret::new(key));
        }
        if let Some(model) = non_empty_env(env::TOOLSMITH_MODEL) {
            settings.model = model;
        }
        settings
    }

    /// The model a role uses: its own from `role_models`, else `model`.
    pub fn model_for(&self, role: &Role) -> &str {
        self.role_models
            .get(role)
            .map_or(self.model.as_str(), String::as_str)
    }

    /// [`LlmSettings::request_timeout_ms`] as a duration.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }

    /// Checks the settings that can be wrong before any request is sent.
    pub fn validate(&self) -> Result<()> {
        let url = reqwest::Url::parse(&self.base_url).map_err(|e| Error::Config {
            field: "base_url",
            reason: format!("`{}`: {e}", redact_url(&self.base_url)),
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Error::Config {
                field: "base_url",
                reason: format!("scheme `{}` is not http or https", url.scheme()),
            });
        }
        if self.max_in_flight == 0 {
            return Err(Error::Config {
                field: "max_in_flight",
                reason: "must be at least 1".into(),
            });
        }
        if self.model.is_empty() {
            return Err(Error::Config {
                field: "model",
                reason: "must not be empty".into(),
            });
        }
        Ok(())
    }
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Where local models are installed: `$TOOLSMITH_MODELS`, else
/// `${XDG_DATA_HOME:-$HOME/.local/share}/toolsmith/models` (the same rule as
/// `scripts/install-model.sh`). Falls back to `./toolsmith-models` when no home is known.
pub fn default_models_dir() -> PathBuf {
    if let Some(dir) = non_empty_env(env::TOOLSMITH_MODELS) {
        return PathBuf::from(dir);
    }
    let data = non_empty_env("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| non_empty_env("HOME").map(|home| PathBuf::from(home).join(".local/share")));
    match data {
        Some(data) => data.join("toolsmith").join("models"),
        None => PathBuf::from("toolsmith-models"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("sk-very-secret");
        assert_eq!(format!("{s:?}"), "Secret(***)");
        assert_eq!(format!("{s}"), "***");
        let settings = LlmSettings {
            api_key: Some(s),
            ..LlmSettings::default()
        };
        assert!(!format!("{settings:?}").contains("very-secret"));
        let json = serde_json::to_string(&settings).unwrap();
        assert!(!json.contains("very-secret"), "{json}");
        assert!(!json.contains("api_key"), "{json}");
    }

    #[test]
    fn role_models_override_the_default_model() {
        let mut settings = LlmSettings::default();
        settings
            .role_models
            .insert(Role::new(Role::JUDGE), "big-judge".into());
        assert_eq!(settings.model_for(&Role::new(Role::JUDGE)), "big-judge");
        assert_eq!(settings.model_for(&Role::agent()), "gpt-4o-mini");
    }

    #[test]
    fn settings_read_from_toml_like_json_with_a_key() {
        let s: LlmSettings = serde_json::from_str(
            r#"{"base_url":"http://localhost:8000/v1","api_key":"k","role_models":{"judge":"j"}}"#,
        )
        .unwrap();
        assert_eq!(s.api_key.as_ref().map(Secret::expose), Some("k"));
        assert_eq!(s.model_for(&Role::new("judge")), "j");
        assert_eq!(s.retry, RetrySettings::DEFAULT);
    }

    #[test]
    fn validation_rejects_bad_urls_and_zero_concurrency() {
        let bad = LlmSettings {
            base_url: "not a url".into(),
            ..LlmSettings::default()
        };
        assert!(matches!(
            bad.validate(),
            Err(Error::Config {
                field: "base_url",
                ..
            })
        ));
        let zero = LlmSettings {
            max_in_flight: 0,
            ..LlmSettings::default()
        };
        assert!(matches!(
            zero.validate(),
            Err(Error::Config {
                field: "max_in_flight",
                ..
            })
        ));
        assert!(LlmSettings::default().validate().is_ok());
    }
}
