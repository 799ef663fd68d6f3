//! Settings from `toolsmith.toml`, the environment and the command line, in
//! that order (each overrides the one before).

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;
use toolsmith_llm::LlmSettings;
use toolsmith_retrieve::{Method, RetrieveSettings};

use crate::env;

/// The parts of `toolsmith.toml` the commands read.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConfigFile {
    /// The LLM endpoint: `base_url`, `model`, `role_models` (a model per agent
    /// role: agent, grounding, execution, observing, judge, ...), timeouts, retries.
    pub llm: Option<LlmSettings>,
    /// MCP servers by name (`[mcp.servers.NAME]`), which `mcp://NAME` refers to.
    pub mcp: Option<crate::mcp_settings::McpConfig>,
    /// Retrieval: the default method, the embedder, and each method's settings.
    pub retrieve: Option<RetrieveConfig>,
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
pub struct RetrieveConfig {
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
    pub fn settings(&self) -> RetrieveSettings {
        RetrieveSettings {
            bm25: self.bm25,
            dense: self.dense,
            hybrid: self.hybrid,
        }
    }

    /// The method to use: the flag's, else the configured one.
    pub fn method(&self, flag: Option<Method>) -> Method {
        flag.unwrap_or(self.method)
    }
}

/// Where embeddings come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EmbedderKind {
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

/// Retrieval settings: the config file's `[retrieve]` table, then `TOOLSMITH_EMBEDDER`.
pub fn retrieve_config() -> anyhow::Result<RetrieveConfig> {
    let mut config = match config_path() {
        Some(path) => read_config(&path)?.retrieve.unwrap_or_default(),
        None => RetrieveConfig::default(),
    };
    if let Some(raw) = std::env::var(env::EMBEDDER).ok().filter(|v| !v.is_empty()) {
        config.embedder = raw
            .parse()
            .with_context(|| format!("reading {}", env::EMBEDDER))?;
    }
    Ok(config)
}

/// The config file to read: `TOOLSMITH_CONFIG`, else `./toolsmith.toml` if it exists.
pub fn config_path() -> Option<PathBuf> {
    match std::env::var_os(env::CONFIG) {
        Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
        _ => Some(PathBuf::from("toolsmith.toml")).filter(|p| p.exists()),
    }
}

/// Reads a config file.
pub fn read_config(path: &Path) -> anyhow::Result<ConfigFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the config file {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("reading the config file {}", path.display()))
}

/// LLM settings: the config file's `[llm]` table, then the environment, then `--model`.
pub fn llm_settings(model_flag: Option<&str>) -> anyhow::Result<LlmSettings> {
    let from_file = match config_path() {
        Some(path) => read_config(&path)?.llm.unwrap_or_default(),
        None => LlmSettings::default(),
    };
    let mut settings = from_file.with_env();
    if let Some(model) = model_flag {
        settings.model = model.to_owned();
    }
    Ok(settings)
}
