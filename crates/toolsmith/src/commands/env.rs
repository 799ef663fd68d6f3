//! `toolsmith env`: the tool environment's state (where calls were answered).

use std::process::ExitCode;

use anyhow::Context;
use serde_json::json;
use toolsmith_exec::ResponseCache;

use crate::cli::Global;
use crate::printer;

/// The tool environment: how calls were answered.
#[derive(Debug, clap::Args)]
pub struct EnvArgs {
    /// What to show.
    #[command(subcommand)]
    pub action: EnvAction,
}

/// What `toolsmith env` shows.
#[derive(Debug, clap::Subcommand)]
pub enum EnvAction {
    /// Calls answered live, replayed or simulated, and responses recorded, per tool.
    Coverage {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `toolsmith env`.
pub fn run(global: &Global, args: &EnvArgs) -> anyhow::Result<ExitCode> {
    let cache = ResponseCache::open(&global.db)
        .with_context(|| format!("opening the response cache in {}", global.db.display()))?;
    match &args.action {
        EnvAction::Coverage { json } => {
            let rows = cache.coverage_by_tool()?;
            let total = cache.coverage()?;
            if *json {
                let tools: Vec<_> = rows
                    .iter()
                    .map(|(tool, c)| json!({"tool": tool, "coverage": c}))
                    .collect();
                printer::json(&json!({"tools": tools, "total": total}))?;
                return Ok(ExitCode::SUCCESS);
            }
            printer::line(format!(
                "{:<40} {:>9} {:>9} {:>9} {:>9}",
                "tool", "live", "replayed", "simulated", "recorded"
            ));
            for (tool, c) in rows
                .iter()
                .chain(std::iter::once(&("total".to_owned(), total)))
            {
                printer::line(format!(
                    "{tool:<40} {:>9} {:>9} {:>9} {:>9}",
                    c.live, c.replayed, c.simulated, c.recorded
                ));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
