//! [`Redactor`]: takes known secret values (API keys, tokens) out of
//! observations before they are recorded or shown, whatever produced them: a
//! server that echoes its environment or a request must not put a key into
//! the response cache or a model's context.

use crate::observation::{Body, Observation};

/// Parts of a variable name that mark its value as a secret.
const SECRET_NAME_PARTS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
];

/// Shorter values are not redacted: they would match ordinary text.
const MIN_SECRET_CHARS: usize = 8;

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// The secret values to take out of observations.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Longest first, so a secret containing another goes whole.
    secrets: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field("secrets", &self.secrets.len())
            .finish()
    }
}

impl Redactor {
    /// A redactor with no secrets.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a variable's name says it holds a secret (`*KEY*`,
    /// `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*CREDENTIAL*`, `*AUTH*`).
    pub fn is_secret_name(name: &str) -> bool {
        let upper = name.to_ascii_uppercase();
        SECRET_NAME_PARTS.iter().any(|part| upper.contains(part))
    }

    /// The values of the variables whose names say they are secrets.
    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> Self {
        let mut redactor = Self::new();
        for (name, value) in vars {
            if Self::is_secret_name(&name) {
                redactor.add(value);
            }
        }
        redactor
    }

    /// [`Redactor::from_vars`] of this process's environment.
    pub fn from_env() -> Self {
        Self::from_vars(std::env::vars())
    }

    /// Adds a secret value (values under 8 characters are ignored).
    pub fn add(&mut self, value: impl Into<String>) {
        let value = value.into();
        if value.trim().chars().count() < MIN_SECRET_CHARS || self.secrets.contains(&value) {
            return;
        }
        self.secrets.push(value);
        self.secrets
            .sort_by_key(|s| std::cmp::Reverse(s.chars().count()));
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `text` with every secret replaced by [`REDACTED`].
    pub fn redact_text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        out
    }

    /// The observation with every secret replaced by [`REDACTED`] wherever
    /// it appears (body, error message), as plain or JSON-escaped text.
    pub fn redact(&self, observation: Observation) -> Observation {
        if self.is_empty() {
            return observation;
        }
        let Ok(text) = serde_json::to_string(&observation) else {
            return self.redact_body(observation);
        };
        let mut redacted = text.clone();
        for secret in &self.secrets {
            let escaped = serde_json::to_string(secret).unwrap_or_default();
            let inner = escaped
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .unwrap_or(secret);
            if redacted.contains(inner) {
                redacted = redacted.replace(inner, REDACTED);
            }
        }
        if redacted == text {
            return observation;
        }
        match serde_json::from_str(&redacted) {
            Ok(clean) => clean,
            Err(_) => self.redact_body(observation),
        }
    }

    fn redact_body(&self, mut observation: Observation) -> Observation {
        observation.body = Body::Text(self.redact_text(&observation.body.to_text()));
        observation
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;
    use crate::observation::Provenance;

    #[test]
    fn secrets_leave_bodies_and_messages_whatever_their_shape() {
        let redactor = Redactor::from_vars([
            ("OPENAI_API_KEY".to_owned(), "sk-abc\"def-123456".to_owned()),
            (
                "TOOLSMITH_KEY_TMDB".to_owned(),
                "tmdb-0123456789".to_owned(),
            ),
            ("HOME".to_owned(), "/home/someone".to_owned()),
            ("SHORT_TOKEN".to_owned(), "abc".to_owned()),
        ]);
        let obs = Observation::ok_json(
            json!({"env": {"OPENAI_API_KEY": "sk-abc\"def-123456", "HOME": "/home/someone"},
                   "echo": "key=tmdb-0123456789&x=abc"}),
            Provenance::Live,
        );
        let clean = redactor.redact(obs);
        let text = serde_json::to_string(&clean).unwrap();
        assert!(!text.contains("123456"), "{text}");
        assert!(
            text.contains("/home/someone") && text.contains("x=abc"),
            "{text}"
        );
        assert_eq!(
            clean.body.json().unwrap()["env"]["OPENAI_API_KEY"],
            REDACTED
        );
        let failed = Observation::tool_error(
            crate::FailureKind::Unauthorized,
            "bad key tmdb-0123456789",
            Provenance::Live,
        );
        let text = serde_json::to_string(&redactor.redact(failed)).unwrap();
        assert!(text.contains("bad key [redacted]"), "{text}");
    }
}
