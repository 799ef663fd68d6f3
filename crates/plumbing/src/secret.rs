//! [`Secret`]: an API key or token that can be used but never shown.

use std::fmt;

use serde::Deserialize;

/// An API key or token: usable, never printed (`Debug` shows `Secret(***)`, `Display` shows
/// `***`), never serialized (it implements `Deserialize` only, so a config file can hold one).
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a key or token.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself; call it only where a request is built or a text is redacted.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_printed_but_usable_and_readable_from_config() {
        let secret = Secret::new("sk-123");
        assert_eq!(format!("{secret:?}"), "Secret(***)");
        assert_eq!(secret.to_string(), "***");
        assert_eq!(format!("{:?}", Some(&secret)), "Some(Secret(***))");
        assert_eq!(secret.expose(), "sk-123");
        let read: Secret = serde_json::from_str("\"sk-9\"").unwrap();
        assert_eq!(read, Secret::new("sk-9"));
    }
}
