//! Settings from `toolsmith.toml` and the environment, read once per process into a typed
//! [`Config`]. Precedence, highest first: a command's flag, then the environment where it
//! overrides the file (`TOOLSMITH_EMBEDDER`; the `[llm]` variables of
//! [`LlmSettings::with_env`]), then the file, then the libraries' `PAPER`/default values.

mod mcp;

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;
use toolsmith_llm::LlmSettings;
use toolsmith_retrieve::{Method, RetrieveSettings};

pub(crate) use self::mcp::McpConfig;
use crate::env;

/// Everything `toolsmith.toml` configures, with the environment applied.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// `[llm]` of the file, then the environment (`OPENAI_BASE_URL`, `TOOLSMITH_MODEL`, ...).
    pub llm: LlmSettings,
    /// `[retrieve]` of the file, then `TOOLSMITH_EMBEDDER`.
    pub retrieve: RetrieveConfig,
    /// `[mcp]` of the file.
    pub mcp: McpConfig,
    /// `[serve]` of the file: `toolsmith serve`'s limits (result size, body size, ...).
    pub serve: toolsmith_serve::ServeSettings,
}

impl Config {
    /// Reads the config file (`TOOLSMITH_CONFIG`, else `./toolsmith.toml` when present) and
    /// applies the environment.
    pub(crate) fn load() -> anyhow::Result<Self> {
        let file = match config_path() {
            Some(path) => {
                tracing::debug!(path = %path.display(), "reading the config file");
                read_config(&path)?
            }
            None => ConfigFile::default(),
        };
        let embedder = std::env::var(env::EMBEDDER).ok().filter(|v| !v.is_empty());
        Self::resolve(file, embedder.as_deref())
    }

    /// The config of a parsed file, `embedder` being `TOOLSMITH_EMBEDDER` when set.
    fn resolve(file: ConfigFile, embedder: Option<&str>) -> anyhow::Result<Self> {
        let mut retrieve = file.retrieve.unwrap_or_default();
        if let Some(raw) = embedder {
            retrieve.embedder = raw
                .parse()
                .with_context(|| format!("reading {}", env::EMBEDDER))?;
        }
        Ok(Self {
            llm: file.llm.unwrap_or_default().with_env(),
            retrieve,
            mcp: file.mcp.unwrap_or_default(),
            serve: file.serve.unwrap_or_default(),
        })
    }

    /// The LLM settings with `--model` applied when given.
    pub(crate) fn llm_settings(&self, model_flag: Option<&str>) -> LlmSettings {
        let mut settings = self.llm.clone();
        if let Some(model) = model_flag {
            model.clone_into(&mut settings.model);
        }
        settings
    }
}

/// `toolsmith.toml` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ConfigFile {
    /// The LLM endpoint: `base_url`, `model`, `role_models` (a model per agent
    /// role: agent, grounding, execution, observing, judge, ...), timeouts, retries.
    llm: Option<LlmSettings>,
    /// MCP servers by name (`[mcp.servers.NAME]`), which `mcp://NAME` refers to.
    mcp: Option<McpConfig>,
    /// Retrieval: the default method, the embedder, and each method's settings.
    retrieve: Option<RetrieveConfig>,
    /// `toolsmith serve`: `max_result_chars`, `page_chars`, `expose_top_n`, `max_body_bytes`,
    /// `max_concurrent_requests`, ...
    serve: Option<toolsmith_serve::ServeSettings>,
}

/// The `[retrieve]` table:
///
/// ```toml
/// [retrieve]
/// method = "hybrid"        # bm25 | dense | hybrid: what search, solve and bench use by default
/// embedder = "local"       # local (MiniLM on the CPU) | http ([llm] base_url, embedding_model)
/// embedding_dimensions = 1536
/// [retrieve.hybrid]
/// fusion = { kind = "rrf", k = 60.0, dense_weight = 0.5 }
/// ```
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RetrieveConfig {
    /// The method when a command gets no `--method`. By default [`Method::default`], chosen by
    /// measurement on the retrieval benchmarks.
    pub method: Method,
    /// Which embedder dense and hybrid search use. `TOOLSMITH_EMBEDDER` overrides it.
    pub embedder: EmbedderKind,
    /// Vector length of the HTTP embedder's model (1536 for `text-embedding-3-small`).
    pub embedding_dimensions: usize,
    /// BM25's settings.
    pub bm25: toolsmith_retrieve::Bm25Settings,
    /// The dense index's settings.
    pub dense: toolsmith_retrieve::DenseSettings,
    /// The fusion's settings.
    pub hybrid: toolsmith_retrieve::HybridSettings,
}

impl Default for RetrieveConfig {
    fn default() -> Self {
        let settings = RetrieveSettings::default();
        Self {
            method: Method::default(),
            embedder: EmbedderKind::Local,
            embedding_dimensions: 1536,
            bm25: settings.bm25,
            dense: settings.dense,
            hybrid: settings.hybrid,
        }
    }
}

impl RetrieveConfig {
    /// The settings of every method.
    pub(crate) fn settings(&self) -> RetrieveSettings {
        RetrieveSettings {
            bm25: self.bm25,
            dense: self.dense,
            hybrid: self.hybrid,
        }
    }

    /// The method to use: the flag's, else the configured one.
    pub(crate) fn method(&self, flag: Option<Method>) -> Method {
        flag.unwrap_or(self.method)
    }
}

/// Where embeddings come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum EmbedderKind {
    /// all-MiniLM-L6-v2 on the CPU (installed by `scripts/install-model.sh`).
    #[default]
    Local,
    /// The OpenAI-compatible `/embeddings` endpoint of the `[llm]` settings.
    Http,
}

impl std::str::FromStr for EmbedderKind {
    type Err = anyhow::Error;
    fn from_str(raw: &str) -> anyhow::Result<Self> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "local" => Ok(Self::Local),
            "http" => Ok(Self::Http),
            other => anyhow::bail!("unknown embedder `{other}`: expected local or http"),
        }
    }
}

/// The config file to read: `TOOLSMITH_CONFIG`, else `./toolsmith.toml` if it exists.
fn config_path() -> Option<PathBuf> {
    match std::env::var_os(env::CONFIG) {
        Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
        _ => Some(PathBuf::from("toolsmith.toml")).filter(|p| p.exists()),
    }
}

/// Reads a config file.
fn read_config(path: &Path) -> anyhow::Result<ConfigFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the config file {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("reading the config file {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str, embedder: Option<&str>) -> anyhow::Result<Config> {
        Config::resolve(toml::from_str(text)?, embedder)
    }

    #[test]
    fn the_file_sets_retrieval_and_the_environment_overrides_the_embedder() {
        let text = "[retrieve]\nmethod = \"bm25\"\nembedder = \"http\"\n";
        let from_file = config(text, None).unwrap();
        assert_eq!(from_file.retrieve.method, Method::Bm25);
        assert_eq!(from_file.retrieve.embedder, EmbedderKind::Http);
        let overridden = config(text, Some("local")).unwrap();
        assert_eq!(overridden.retrieve.embedder, EmbedderKind::Local);
        assert!(config(text, Some("gpu")).is_err());
    }

    #[test]
    fn a_flag_beats_the_file() {
        let config = config("[retrieve]\nmethod = \"dense\"\n", None).unwrap();
        assert_eq!(config.retrieve.method(None), Method::Dense);
        assert_eq!(config.retrieve.method(Some(Method::Bm25)), Method::Bm25);
        assert_eq!(config.llm_settings(Some("m-flag")).model, "m-flag");
    }

    #[test]
    fn no_file_means_the_defaults_and_unknown_keys_are_errors() {
        let empty = config("", None).unwrap();
        assert_eq!(empty.retrieve.method, Method::default());
        assert!(empty.mcp.servers.is_empty());
        assert!(config("[retrieve]\nmethdo = \"dense\"\n", None).is_err());
        assert!(config("[llmm]\n", None).is_err());
    }
}
