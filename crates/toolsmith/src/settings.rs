//! Settings from `toolsmith.toml`, the environment and the command line, in
//! that order (each overrides the one before).

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;
use toolsmith_llm::LlmSettings;

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
