//! `toolsmith lint`: where the docs contradict themselves, per API, with a count per kind.

use std::collections::BTreeMap;
use std::fmt;
use std::process::ExitCode;

use anyhow::bail;
use serde::Serialize;
use toolsmith_catalog::lint::{Finding, LintKind, lint_catalog};

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
    let lint = lint_catalog(&catalog);
    let report = Report {
        apis: lint.apis,
        apis_with_findings: lint.apis_with_findings(),
        counts: lint.counts(),
        findings: lint.findings,
        limit: args.limit,
    };
    printer::report(&report, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

/// `toolsmith lint`'s report: every finding and the count of each kind.
#[derive(Serialize)]
struct Report {
    apis: usize,
    apis_with_findings: usize,
    counts: BTreeMap<LintKind, usize>,
    findings: Vec<Finding>,
    /// Findings shown in the text (all in the JSON).
    #[serde(skip)]
    limit: usize,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut shown: Vec<_> = self.findings.iter().collect();
        shown.sort_by_key(|f| f.kind);
        for finding in shown.into_iter().take(self.limit) {
            let at = match &finding.param {
                Some(p) => format!("{} `{p}`", finding.api),
                None => finding.api.to_string(),
            };
            let fixed = if finding.fixed_at_render {
                " (fixed when rendered)"
            } else {
                ""
            };
            writeln!(f, "{at}: {}: {}{fixed}", finding.kind, finding.message)?;
        }
        if self.findings.len() > self.limit {
            writeln!(
                f,
                "... {} more (--limit N, or --json for all)",
                self.findings.len() - self.limit
            )?;
        }
        let mut t = table::new(["kind", "findings"]);
        for kind in LintKind::ALL {
            t.add_row(vec![
                kind.to_string(),
                self.counts.get(&kind).copied().unwrap_or(0).to_string(),
            ]);
        }
        table::align_right(&mut t, [1]);
        writeln!(f, "{}", t.trim_fmt())?;
        write!(
            f,
            "{} of {} APIs have findings",
            self.apis_with_findings, self.apis
        )
    }
}
