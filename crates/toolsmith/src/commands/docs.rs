//! `toolsmith docs`: a doc's version history (with the refinement rounds and gate decisions
//! behind it), word diffs between versions, rollback by version or label or of a whole gate
//! round, gated activation of refined docs, and manual edits.

use std::fmt;
use std::io::IsTerminal as _;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use serde::Serialize;
use toolsmith_catalog::{
    Doc, DocDecision, DocLabel, DocSelector, DocTarget, DocVersion, NewDoc, Scope, Store,
};
use toolsmith_eval::gate::GateScope;
use toolsmith_refine::{RefineStore, StoredRound};

use crate::cli::{DocsAction, DocsArgs, DocsGateArgs, GateScopeArg, UntestedDocs};
use crate::context::Context;
use crate::{doc_gate, printer};

/// Runs `toolsmith docs`.
pub(super) fn run(ctx: &Context, args: &DocsArgs) -> anyhow::Result<ExitCode> {
    let mut store = ctx.store()?;
    match &args.action {
        DocsAction::History {
            target,
            rounds,
            json,
        } => {
            let history = store.doc_history(target)?;
            if history.is_empty() {
                bail!("{target} has no docs (is the id right? see `toolsmith tools`)");
            }
            let decisions = gate_decisions(&store, *rounds, target)?;
            let rounds = match (rounds, target) {
                (true, DocTarget::Api(api)) => RefineStore::open(ctx.db())?.history(api)?,
                _ => Vec::new(),
            };
            let report = History {
                versions: history,
                rounds,
                decisions,
            };
            printer::report(&report, json.json)?;
        }
        DocsAction::Diff { target, from, to } => {
            let history = store.doc_history(target)?;
            let old = pick(&history, target, from)?;
            let new = pick(&history, target, to)?;
            printer::line(format!(
                "{target}: v{} [{}] -> v{} [{}]",
                old.version, old.label, new.version, new.label
            ))?;
            printer::line(word_diff(
                &doc_text(&old.doc),
                &doc_text(&new.doc),
                std::io::stdout().is_terminal(),
            ))?;
        }
        DocsAction::Activate { all, args } => activate(&mut store, *all, args)?,
        DocsAction::Gate(args) => gate(ctx, args)?,
        DocsAction::Rollback { round } => rollback(&mut store, *round)?,
        DocsAction::Add {
            target,
            description,
            queries,
            label,
            activate,
        } => {
            let doc = NewDoc {
                label: label.clone(),
                source: "manual".to_owned(),
                doc: Doc {
                    queries: queries.clone(),
                    ..Doc::text(description.clone())
                },
            };
            let version =
                store.add_doc(target, doc, toolsmith_catalog::Activate::from(*activate))?;
            printer::line(format!(
                "{target}: stored version {}{}",
                version.version,
                if version.active { " (active)" } else { "" }
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `docs history`: a doc's versions, newest last, with the refinement rounds behind them.
#[derive(Serialize)]
struct History {
    versions: Vec<DocVersion>,
    rounds: Vec<StoredRound>,
    /// The gate's decisions on this API (with `--rounds`).
    decisions: Vec<DocDecision>,
}

impl History {
    /// The rounds of the refinement run that produced this version: a round's own version
    /// (`draft.r2`) shows that round; a run's final version shows them all unless each
    /// already has its own version in the history.
    fn rounds_of(&self, v: &DocVersion) -> Vec<&StoredRound> {
        let Some((run, round)) = refine_source(&v.source) else {
            return Vec::new();
        };
        let per_round = self
            .versions
            .iter()
            .any(|h| refine_source(&h.source).is_some_and(|(r, n)| r == run && n.is_some()));
        if round.is_none() && per_round {
            return Vec::new();
        }
        self.rounds
            .iter()
            .filter(|r| r.run.0 == run && round.is_none_or(|n| r.round.round == n))
            .collect()
    }
}

/// A refinement round in lines: what it explored, suggested, kept and dropped, and why it
/// stopped.
fn round_lines(r: &StoredRound) -> Vec<String> {
    let round = &r.round;
    let mut lines = vec![format!("    round {}:", round.round)];
    for rejected in &round.rejected_queries {
        lines.push(format!(
            "      refused query (cosine {:.2} with {:?}): {}",
            rejected.cosine, rejected.similar_to, rejected.query
        ));
    }
    if let Some(t) = &round.exploration {
        lines.push(format!("      explored: {} {}", t.query, t.arguments));
        if !t.defaults.is_empty() {
            lines.push(format!(
                "      with schema defaults: {}",
                serde_json::Value::Object(t.defaults.clone())
            ));
        }
        lines.push(format!(
            "      observed ({}, {}): {}",
            if t.ok { "ok" } else { "failed" },
            t.provenance.as_str(),
            toolsmith_plumbing::text::truncate_chars(&t.observation, 160)
        ));
    }
    if let Some(s) = &round.suggestions {
        lines.push(format!("      suggested: {s}"));
    }
    for e in &round.examples {
        lines.push(format!("      example kept: {} {}", e.query, e.arguments));
    }
    for q in &round.queries {
        lines.push(format!("      request written: {q}"));
    }
    for d in &round.dropped {
        lines.push(format!(
            "      example dropped: {} ({})",
            d.example.query, d.reason
        ));
    }
    for q in &round.invented_quotes {
        let fate = if q.removed {
            "sentence removed"
        } else {
            "kept"
        };
        lines.push(format!(
            "      quoted an invented value {:?} ({fate}): {}",
            q.value, q.sentence
        ));
    }
    if let Some(reason) = &round.refused {
        lines.push(format!("      refused output: {reason}"));
    }
    if let Some(delta) = round.delta {
        lines.push(format!("      delta: {delta:.3}"));
    }
    if let Some(stop) = round.stop {
        lines.push(format!("      stop: {}", stop.as_str()));
    }
    lines
}

impl fmt::Display for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines = Vec::new();
        for v in &self.versions {
            lines.push(format!(
                "{} v{} [{}] from {}",
                if v.active { "*" } else { " " },
                v.version,
                v.label,
                v.source
            ));
            lines.push(format!("    {}", v.doc.description.replace('\n', "\n    ")));
            lines.extend(v.doc.queries.iter().map(|q| format!("    request: {q}")));
            lines.extend(self.rounds_of(v).into_iter().flat_map(round_lines));
        }
        lines.extend(self.decisions.iter().map(doc_gate::stored_line));
        f.write_str(&lines.join("\n"))
    }
}

/// The run (and round, for a per-round version) named by a version's source:
/// `refine run 3 (draft)` or `refine run 3 (draft, round 2)`.
fn refine_source(source: &str) -> Option<(i64, Option<u32>)> {
    let rest = source.strip_prefix("refine run ")?;
    let run = rest.split_whitespace().next()?.parse().ok()?;
    let round = rest
        .split_once(", round ")
        .and_then(|(_, n)| n.trim_end_matches(')').trim().parse().ok());
    Some((run, round))
}

/// A version by number, or the latest version with a label.
fn pick<'a>(
    history: &'a [DocVersion],
    target: &DocTarget,
    which: &str,
) -> anyhow::Result<&'a DocVersion> {
    let found = match which.parse::<u32>() {
        Ok(n) => history.iter().find(|v| v.version == n),
        Err(_) => history.iter().rev().find(|v| v.label.as_str() == which),
    };
    found.with_context(|| {
        format!("{target} has no doc version {which} (see `toolsmith docs history {target}`)")
    })
}

/// The text a diff compares: the description, then each example's request and arguments,
/// then each synthetic request.
fn doc_text(doc: &Doc) -> String {
    let mut text = doc.description.clone();
    for e in &doc.examples {
        text.push_str(&format!("\nExample: {} {}", e.query, e.arguments));
    }
    for q in &doc.queries {
        text.push_str(&format!("\nRequest: {q}"));
    }
    text
}

/// Word-level diff (eval's, the one the report shows): removed words as `[-...-]`, added as
/// `{+...+}`, or red and green on a terminal.
fn word_diff(old: &str, new: &str, color: bool) -> String {
    use toolsmith_eval::report::WordChange;
    let mut out = String::new();
    for change in toolsmith_eval::report::word_diff(old, new) {
        match (change, color) {
            (WordChange::Same(value), _) => out.push_str(&value),
            (WordChange::Removed(value), true) => {
                out.push_str(&format!("\x1b[31;9m{value}\x1b[0m"))
            }
            (WordChange::Added(value), true) => out.push_str(&format!("\x1b[32m{value}\x1b[0m")),
            (WordChange::Removed(value), false) => out.push_str(&format!("[-{value}-]")),
            (WordChange::Added(value), false) => out.push_str(&format!("{{+{value}+}}")),
        }
    }
    out
}

/// `docs activate TARGET VERSION|LABEL` or `docs activate --all LABEL`.
fn activate(store: &mut Store, all: bool, args: &[String]) -> anyhow::Result<()> {
    match (all, args) {
        (true, [label]) => {
            let label: DocLabel = label.parse()?;
            let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
            let mut targets = Vec::new();
            for tool in &catalog.tools {
                targets.push(DocTarget::Tool(tool.tool.id.clone()));
                targets.extend(tool.apis.iter().map(|a| DocTarget::Api(a.api.id.clone())));
            }
            let mut switched = 0;
            for target in &targets {
                let history = store.doc_history(target)?;
                if let Some(v) = history.iter().rev().find(|v| v.label == label) {
                    if !v.active {
                        store.activate(target, v.version)?;
                    }
                    switched += 1;
                }
            }
            if switched == 0 {
                bail!("no doc has the label `{label}` (see `toolsmith stats`)");
            }
            printer::line(format!("{switched} docs now show their `{label}` version"))?;
        }
        (false, [target, which]) => {
            let target: DocTarget = target.parse()?;
            let history = store.doc_history(&target)?;
            let version = pick(&history, &target, which)?.version;
            store.activate(&target, version)?;
            printer::line(format!("{target}: version {version} is now active"))?;
        }
        (true, _) => bail!("`docs activate --all` takes one LABEL"),
        (false, _) => bail!("`docs activate` takes TARGET and a VERSION or LABEL (or --all LABEL)"),
    }
    Ok(())
}

/// The gate decisions `docs history --rounds` shows: an API's, oldest round first.
fn gate_decisions(
    store: &Store,
    rounds: bool,
    target: &DocTarget,
) -> anyhow::Result<Vec<DocDecision>> {
    match (rounds, target) {
        (true, DocTarget::Api(api)) => Ok(store.doc_decisions(api)?),
        _ => Ok(Vec::new()),
    }
}

/// `docs gate LABEL`: runs the gate on the named eval set, else the newest eval split.
fn gate(ctx: &Context, args: &DocsGateArgs) -> anyhow::Result<()> {
    let dataset = match &args.dataset {
        Some(dataset) => dataset.clone(),
        None => doc_gate::default_eval_split(ctx)?.with_context(
            || "no eval set: name one with --dataset (a benchmark or a query file with gold paths)",
        )?,
    };
    let request = doc_gate::GateRequest {
        label: args.label.clone(),
        dataset,
        data_dir: args.data.path(),
        untested: match args.untested {
            UntestedDocs::Activate => doc_gate::Untested::Activate,
            UntestedDocs::Keep => doc_gate::Untested::Keep,
        },
        method: args.method.method.map(Into::into),
        scope: args.scope.map(|scope| match scope {
            GateScopeArg::Label => GateScope::Label,
            GateScopeArg::Api => GateScope::Api,
        }),
    };
    let report = doc_gate::run(ctx, &request)?;
    printer::report(&report, args.json.json)
}

/// `docs rollback [ROUND]`: undoes a gate round (the latest by default).
fn rollback(store: &mut Store, round: Option<u32>) -> anyhow::Result<()> {
    let decisions = store.gate_round(round)?;
    let Some(round) = decisions.first().map(|d| d.round) else {
        bail!("no gate round to roll back (see `toolsmith docs gate`)");
    };
    let restored = store.roll_back_gate_round(round)?;
    printer::line(format!(
        "gate round {round} undone: {} APIs show their previous doc again",
        restored.len()
    ))?;
    for r in &restored {
        printer::line(format!("  {}: version {} is active", r.api, r.version))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_diff_marks_removed_and_added_words() {
        assert_eq!(
            word_diff("Search movies by title", "Search films by title", false),
            "Search [-movies-]{+films+} by title"
        );
        assert!(word_diff("a b", "a c", true).contains("\x1b[32mc"));
    }

    #[test]
    fn a_refine_source_names_its_run_and_round() {
        assert_eq!(refine_source("refine run 3 (draft)"), Some((3, None)));
        assert_eq!(
            refine_source("refine run 12 (draft, round 2)"),
            Some((12, Some(2)))
        );
        assert_eq!(refine_source("manual"), None);
    }
}
