//! `toolsmith docs`: a doc's version history, rollback, and manual edits.

use std::process::ExitCode;

use toolsmith_catalog::{Doc, NewDoc};

use crate::cli::{DocsAction, DocsArgs};
use crate::context::Context;
use crate::printer;

/// Runs `toolsmith docs`.
pub(super) fn run(ctx: &Context, args: &DocsArgs) -> anyhow::Result<ExitCode> {
    let mut store = ctx.store()?;
    match &args.action {
        DocsAction::History { target, json } => {
            let history = store.doc_history(target)?;
            if history.is_empty() {
                anyhow::bail!("{target} has no docs (is the id right? see `toolsmith tools`)");
            }
            if json.json {
                printer::json(&history)?;
            } else {
                for v in &history {
                    printer::line(format!(
                        "{} v{} [{}] from {}",
                        if v.active { "*" } else { " " },
                        v.version,
                        v.label,
                        v.source
                    ))?;
                    printer::line(format!("    {}", v.doc.description.replace('\n', "\n    ")))?;
                }
            }
        }
        DocsAction::Activate { target, version } => {
            store.activate(target, *version)?;
            printer::line(format!("{target}: version {version} is now active"))?;
        }
        DocsAction::Add {
            target,
            description,
            label,
            activate,
        } => {
            let doc = NewDoc {
                label: label.clone(),
                source: "manual".to_owned(),
                doc: Doc::text(description.clone()),
            };
            let version = store.add_doc(target, doc, *activate)?;
            printer::line(format!(
                "{target}: stored version {}{}",
                version.version,
                if version.active { " (active)" } else { "" }
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
