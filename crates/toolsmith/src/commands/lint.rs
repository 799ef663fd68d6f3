//! `toolsmith lint`: where the docs contradict themselves, per API, with a count per kind.

use std::process::ExitCode;

use anyhow::bail;
use toolsmith_catalog::lint::{LintKind, lint_catalog};

use crate::cli::LintArgs;
use crate::context::Context;
use crate::{printer, table};

/// Runs `toolsmith lint`.
pub(super) fn run(ctx: &Context, args: &LintArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.store()?;
    let catalog = store.catalog(&args.docs.selector(), &args.scope.scope())?;
    if catalog.tools.is_empty() {
        bail!("nothing to lint: no tools match");
    }
    let report = lint_catalog(&catalog);
    if args.json.json {
        printer::json(&serde_json::json!({
            "apis": report.apis,
            "apis_with_findings": report.apis_with_findings(),
            "counts": report.counts(),
            "findings": report.findings,
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    // The kinds that mislead a model most come first (the order of `LintKind`).
    let mut shown: Vec<_> = report.findings.iter().collect();
    shown.sort_by_key(|f| f.kind);
    for finding in shown.into_iter().take(args.limit) {
        let at = match &finding.param {
            Some(p) => format!("{} `{p}`", finding.api),
            None => finding.api.to_string(),
        };
        let fixed = if finding.fixed_at_render {
            " (fixed when rendered)"
        } else {
            ""
        };
        printer::line(format!(
            "{at}: {}: {}{fixed}",
            finding.kind, finding.message
        ))?;
    }
    if report.findings.len() > args.limit {
        printer::line(format!(
            "... {} more (--limit N, or --json for all)",
            report.findings.len() - args.limit
        ))?;
    }
    let counts = report.counts();
    let mut t = table::new(["kind", "findings"]);
    for kind in LintKind::ALL {
        t.add_row(vec![
            kind.to_string(),
            counts.get(&kind).copied().unwrap_or(0).to_string(),
        ]);
    }
    table::align_right(&mut t, [1]);
    table::print(&t)?;
    printer::line(format!(
        "{} of {} APIs have findings",
        report.apis_with_findings(),
        report.apis
    ))?;
    Ok(ExitCode::SUCCESS)
}
