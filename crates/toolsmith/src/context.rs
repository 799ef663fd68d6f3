//! What every command starts from: the global flags and the config, resolved once per
//! process. The config file is read on first use (a command that needs no setting never
//! fails on a bad `toolsmith.toml`), the catalog is opened when a command asks for it.

use std::cell::OnceCell;
use std::path::Path;

use anyhow::Context as _;
use toolsmith_catalog::Store;

use crate::cli::Global;
use crate::progress::Progress;
use crate::settings::Config;

/// The resolved global options and settings a command runs with.
#[derive(Debug)]
pub(crate) struct Context {
    db: std::path::PathBuf,
    progress: Progress,
    config: OnceCell<Config>,
}

impl Context {
    /// The context of the global flags; the config file is not read yet.
    pub(crate) fn new(global: &Global) -> Self {
        Self {
            db: global.db.clone(),
            progress: Progress::new(global.quiet),
            config: OnceCell::new(),
        }
    }

    /// The catalog database's path (`--db`); also home of the caches and runs.
    pub(crate) fn db(&self) -> &Path {
        &self.db
    }

    /// Opens the catalog named by `--db`.
    pub(crate) fn store(&self) -> anyhow::Result<Store> {
        tracing::debug!(db = %self.db.display(), "opening the catalog");
        Store::open(&self.db).with_context(|| format!("opening the catalog {}", self.db.display()))
    }

    /// The settings of `toolsmith.toml` and the environment, read on the first call only.
    pub(crate) fn config(&self) -> anyhow::Result<&Config> {
        if let Some(config) = self.config.get() {
            return Ok(config);
        }
        let config = Config::load()?;
        Ok(self.config.get_or_init(|| config))
    }

    /// Progress bars and spinners on stderr (hidden with `--quiet` or off a terminal).
    pub(crate) fn progress(&self) -> &Progress {
        &self.progress
    }

    /// A runtime for the async parts of a command (embedding, tool calls, the LLM).
    pub(crate) fn runtime(&self) -> anyhow::Result<tokio::runtime::Runtime> {
        Ok(toolsmith_exec::runtime()?)
    }
}
