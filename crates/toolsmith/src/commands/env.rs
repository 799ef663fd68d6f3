//! `toolsmith env`: the tool environment's state (where calls were answered).

use std::fmt;
use std::process::ExitCode;

use anyhow::Context as _;
use serde::Serialize;
use toolsmith_exec::{Coverage as CallCoverage, ResponseCache};

use crate::cli::{EnvAction, EnvArgs};
use crate::context::Context;
use crate::{printer, table};

/// Runs `toolsmith env`.
pub(super) fn run(ctx: &Context, args: &EnvArgs) -> anyhow::Result<ExitCode> {
    let db = ctx.db();
    let cache = ResponseCache::open(db)
        .with_context(|| format!("opening the response cache in {}", db.display()))?;
    match &args.action {
        EnvAction::Coverage { json } => {
            let report = Coverage {
                tools: cache
                    .coverage_by_tool()?
                    .into_iter()
                    .map(|(tool, coverage)| ToolCoverage { tool, coverage })
                    .collect(),
                total: cache.coverage()?,
            };
            printer::report(&report, json.json)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `env coverage`: where each tool's calls were answered, and in all.
#[derive(Serialize)]
struct Coverage {
    tools: Vec<ToolCoverage>,
    total: CallCoverage,
}

/// One tool's line of [`Coverage`].
#[derive(Serialize)]
struct ToolCoverage {
    tool: String,
    coverage: CallCoverage,
}

impl fmt::Display for Coverage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = table::new([
            "tool",
            "live",
            "replayed",
            "simulated",
            "invented",
            "recorded",
        ]);
        let total = ("total", &self.total);
        for (tool, c) in self
            .tools
            .iter()
            .map(|t| (t.tool.as_str(), &t.coverage))
            .chain(std::iter::once(total))
        {
            out.add_row(vec![
                tool.to_owned(),
                c.live.to_string(),
                c.replayed.to_string(),
                c.simulated.to_string(),
                c.invented.to_string(),
                c.recorded.to_string(),
            ]);
        }
        table::align_right(&mut out, 1..6);
        f.write_str(&out.trim_fmt())
    }
}
