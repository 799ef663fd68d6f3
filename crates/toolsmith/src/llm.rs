//! The configured chat model, built one way for every command that asks one: the
//! OpenAI-compatible client of `[llm]` (and the environment), behind the response cache in the
//! catalog's database, so a re-run costs nothing and `--cache replay` needs no endpoint.

use anyhow::Context as _;
use toolsmith_llm::{CacheDb, CacheMode, CachedChat, LlmSettings, OpenAiClient, env};

use crate::context::Context;

/// The configured model (`model` overrides the configured name), behind the cache. With no
/// endpoint configured it fails at once with how to configure one (unless `cache` is `replay`,
/// which needs no endpoint), instead of retrying OpenAI's public address without a key.
/// The model `role`'s calls go to under the config and a `--model` flag: stored as the writer
/// of what those calls write (refined docs, synthetic requests), for the shared-writer check.
pub(crate) fn model_for_role(
    ctx: &Context,
    model: Option<&str>,
    role: &str,
) -> anyhow::Result<String> {
    let settings = ctx.config()?.llm_settings(model);
    Ok(settings.model_for(&role.into()).to_owned())
}

pub(crate) fn cached_chat(
    ctx: &Context,
    model: Option<&str>,
    cache: CacheMode,
) -> anyhow::Result<CachedChat<OpenAiClient>> {
    let settings = ctx.config()?.llm_settings(model);
    if cache != CacheMode::Replay && !is_configured(&settings) {
        anyhow::bail!("{}", not_configured_help());
    }
    let client = OpenAiClient::new(&settings).context("configuring the LLM client")?;
    let db = CacheDb::open(ctx.db()).context("opening the LLM cache")?;
    Ok(CachedChat::new(client, db, cache))
}

/// Whether the user pointed toolsmith at an endpoint: a key, or an address other than the
/// default (a local server needs no key).
pub(crate) fn is_configured(llm: &LlmSettings) -> bool {
    llm.api_key.is_some() || llm.base_url != LlmSettings::default().base_url
}

/// What to do when no LLM is configured: the three variables, or `[llm]` of `toolsmith.toml`.
pub(crate) fn not_configured_help() -> String {
    format!(
        "no LLM is configured (no base URL and no API key). Point toolsmith at any OpenAI-compatible endpoint:\n\
         \x20 export {}=http://127.0.0.1:11434/v1   # your server (vLLM, Ollama, llama.cpp, OpenAI)\n\
         \x20 export {}=...                         # when the server needs a key\n\
         \x20 export {}=MODEL                       # the model to ask\n\
         or in toolsmith.toml:\n\
         \x20 [llm]\n\
         \x20 base_url = \"http://127.0.0.1:11434/v1\"\n\
         \x20 model = \"MODEL\"",
        env::OPENAI_BASE_URL,
        env::OPENAI_API_KEY,
        env::TOOLSMITH_MODEL
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_counts_as_configured_by_key_or_address() {
        let mut llm = LlmSettings::default();
        assert!(!is_configured(&llm));
        llm.base_url = "http://127.0.0.1:11434/v1".into();
        assert!(is_configured(&llm));
    }
}
