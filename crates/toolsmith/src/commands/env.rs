//! `toolsmith env`: the tool environment's state (where calls were answered).

use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::json;
use toolsmith_exec::ResponseCache;

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
            let rows = cache.coverage_by_tool()?;
            let total = cache.coverage()?;
            if json.json {
                let tools: Vec<_> = rows
                    .iter()
                    .map(|(tool, c)| json!({"tool": tool, "coverage": c}))
                    .collect();
                printer::json(&json!({"tools": tools, "total": total}))?;
                return Ok(ExitCode::SUCCESS);
            }
            let mut out = table::new(["tool", "live", "replayed", "simulated", "recorded"]);
            for (tool, c) in rows
                .iter()
                .chain(std::iter::once(&("total".to_owned(), total)))
            {
                out.add_row(vec![
                    tool.clone(),
                    c.live.to_string(),
                    c.replayed.to_string(),
                    c.simulated.to_string(),
                    c.recorded.to_string(),
                ]);
            }
            table::align_right(&mut out, 1..5);
            table::print(&out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
