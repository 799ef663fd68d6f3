//! `toolsmith docs`: a doc's version history, rollback, and manual edits.

use std::process::ExitCode;

use toolsmith_catalog::{Doc, DocLabel, DocTarget, NewDoc};

use crate::cli::Global;
use crate::commands::open_store;
use crate::printer;

/// Doc versions of a tool or API.
#[derive(Debug, clap::Args)]
pub struct DocsArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: DocsAction,
}

/// What `toolsmith docs` does.
#[derive(Debug, clap::Subcommand)]
pub enum DocsAction {
    /// List every version of a doc, oldest first (`*` marks the active one).
    History {
        /// `tool/api` or `tool`.
        target: DocTarget,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Make a version the active one (rollback or roll forward; nothing is deleted).
    Activate {
        /// `tool/api` or `tool`.
        target: DocTarget,
        /// The version number (see `docs history`).
        version: u32,
    },
    /// Append a version written by hand.
    Add {
        /// `tool/api` or `tool`.
        target: DocTarget,
        /// The new description.
        #[arg(long)]
        description: String,
        /// Its label.
        #[arg(long, default_value = "manual")]
        label: DocLabel,
        /// Make it the active version.
        #[arg(long)]
        activate: bool,
    },
}

/// Runs `toolsmith docs`.
pub fn run(global: &Global, args: &DocsArgs) -> anyhow::Result<ExitCode> {
    let mut store = open_store(global)?;
    match &args.action {
        DocsAction::History { target, json } => {
            let history = store.doc_history(target)?;
            if history.is_empty() {
                anyhow::bail!("{target} has no docs (is the id right? see `toolsmith tools`)");
            }
            if *json {
                printer::json(&history)?;
            } else {
                for v in &history {
                    printer::line(format!(
                        "{} v{} [{}] from {}",
                        if v.active { "*" } else { " " },
                        v.version,
                        v.label,
                        v.source
                    ));
                    printer::line(format!("    {}", v.doc.description.replace('\n', "\n    ")));
                }
            }
        }
        DocsAction::Activate { target, version } => {
            store.activate(target, *version)?;
            printer::line(format!("{target}: version {version} is now active"));
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
            ));
        }
    }
    Ok(ExitCode::SUCCESS)
}
