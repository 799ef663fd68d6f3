//! Prompts as files: a [`Prompt`] is a name and a minijinja template, usually loaded with
//! `include_str!("../prompts/x.j2")`.
//!
//! Rendering uses `UndefinedBehavior::Strict`, so a slot the caller forgot is an error, never
//! an empty string. [`Prompt::id`] (`name@hash`) goes into [`crate::ChatRequest::prompt_id`]
//! and so into the cache key: editing a prompt invalidates its cached answers.

use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;
use toolsmith_plumbing::json::sha256_hex;

use crate::error::{Error, Result};

/// Hex characters of the text's sha256 kept in [`Prompt::id`].
const ID_HASH_CHARS: usize = 12;

/// A named prompt template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prompt {
    name: &'static str,
    template: &'static str,
}

impl Prompt {
    /// A prompt; usable in `const` items.
    pub const fn new(name: &'static str, template: &'static str) -> Self {
        Self { name, template }
    }

    /// The prompt's name (`draft/explorer`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The template text.
    pub fn template(&self) -> &'static str {
        self.template
    }

    /// `name@` and the first 12 hex characters of the sha256 of the template.
    pub fn id(&self) -> String {
        let hash = sha256_hex(self.template.as_bytes());
        format!("{}@{}", self.name, &hash[..ID_HASH_CHARS])
    }

    /// Renders with `ctx` (a struct, `serde_json::json!`, or `minijinja::context!`). A missing
    /// slot or a syntax error is [`Error::Prompt`].
    pub fn render<S: Serialize>(&self, ctx: &S) -> Result<String> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        let err = |source| Error::Prompt {
            name: self.name.to_owned(),
            source,
        };
        let template = env
            .template_from_named_str(self.name, self.template)
            .map_err(err)?;
        template
            .render(minijinja::Value::from(minijinja::value::Serde(ctx)))
            .map_err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const GREET: Prompt = Prompt::new(
        "test/greet",
        "Hello {{ name }}{% for t in tools %}, {{ t }}{% endfor %}!\n",
    );

    #[test]
    fn renders_slots_and_loops() {
        let text = GREET
            .render(&json!({"name": "Ada", "tools": ["a", "b"]}))
            .unwrap();
        assert_eq!(text, "Hello Ada, a, b!");
    }

    #[test]
    fn a_missing_slot_is_an_error() {
        let err = GREET.render(&json!({"tools": []})).unwrap_err();
        assert!(
            matches!(err, Error::Prompt { ref name, .. } if name == "test/greet"),
            "{err}"
        );
    }

    #[test]
    fn id_changes_with_the_text() {
        let other = Prompt::new("test/greet", "Hi {{ name }}");
        assert!(GREET.id().starts_with("test/greet@"));
        assert_eq!(GREET.id().len(), "test/greet@".len() + 12);
        assert_ne!(GREET.id(), other.id());
    }
}
