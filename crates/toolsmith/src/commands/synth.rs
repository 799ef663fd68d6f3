//! `toolsmith synth run|list|show|export`: an evaluation set made from the user's own catalog
//! (`toolsmith_eval::synth`), with refine's query writer as the writer, the configured
//! executor (simulated by default) for the solvability filter, and the model as the answer
//! check. The set lives in the catalog database; `--dataset synth:NAME` measures on its eval
//! split.

use std::collections::BTreeMap;
use std::fmt;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use async_trait::async_trait;
use indicatif::ProgressBar;
use serde::Serialize;
use toolsmith_catalog::{ApiId, Catalog, DocLabel, DocSelector};
use toolsmith_eval::synth::{
    self, AnswerCheck, Estimate, ExportFormat, Fate, GoldPath, LlmAnswerCheck, PathKind,
    PathWriter, Phrasing, SampleSizes, SetSpec, SetSummary, Split, SynthObserver, SynthQuery,
    SynthSet, SynthStore, Synthesizer, WriteAsk, WriteError, WrittenQuery,
};
use toolsmith_exec::ApiBook;
use toolsmith_graph::{GraphStore, build_graph};
use toolsmith_llm::{Budget, BudgetLimits, CacheMode, ChatModel, Metered};
use toolsmith_refine::{QueryWriter, QueryWriterSettings};

use crate::cli::{SynthExportArgs, SynthFormat, SynthRunArgs, SynthShowArgs, SynthSplit};
use crate::context::Context;
use crate::{executor, printer, retrieval, table};

fn open(ctx: &Context) -> anyhow::Result<SynthStore> {
    let db = ctx.db();
    SynthStore::open(db)
        .with_context(|| format!("opening the synthesized sets in {}", db.display()))
}

fn named(store: &SynthStore, name: &str) -> anyhow::Result<SynthSet> {
    store
        .set(name)?
        .with_context(|| format!("no synthesized set `{name}`: see `toolsmith synth list`"))
}

/// Runs `synth run`: makes the set, or resumes it when a run of it stopped.
pub(super) fn run(ctx: &Context, args: &SynthRunArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.store()?;
    // The writer reads the imported docs, never a refined one: the set later judges those.
    let catalog = store
        .catalog(
            &DocSelector::Label(DocLabel::original()),
            &args.scope.scope(),
        )
        .map(synth::blind_to_refinement)
        .context("reading the catalog")?;
    if catalog.api_count() == 0 {
        bail!(
            "the catalog {} has no APIs: import some first",
            ctx.db().display()
        );
    }
    let sets = open(ctx)?;
    let existing = sets.set(&args.name)?;
    let (spec, paths) = match &existing {
        Some(set) => {
            printer::note(format!("resuming the set `{}` as it was made", set.name));
            let pending = sets.paths(set.id)?.into_iter().filter(|p| !p.done);
            (set.spec.clone(), pending.map(|p| p.path).collect())
        }
        None => {
            let spec = spec(ctx, args)?;
            let paths = synth::sample_paths(&catalog, &producers(ctx, &catalog)?, &spec.sizes);
            (spec, paths)
        }
    };
    if args.dry_run {
        let estimate = synth::estimate(&paths, &catalog, &spec);
        printer::report(&DryRun(estimate), args.json.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    let set = match existing {
        Some(set) => set,
        None => {
            sets.create_set(&args.name, &spec, &paths)?;
            named(&sets, &args.name)?
        }
    };
    let summary = synthesize(ctx, args, &sets, &set, &catalog)?;
    printer::report(&summary, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

/// The set's recipe from the flags, else `[synth]`.
fn spec(ctx: &Context, args: &SynthRunArgs) -> anyhow::Result<SetSpec> {
    let cfg = &ctx.config()?.synth;
    let spec = SetSpec {
        sizes: SampleSizes {
            single: args.single.unwrap_or(cfg.single),
            chains: args.chains.unwrap_or(cfg.chains),
            combos: args.combos.unwrap_or(cfg.combos),
            seed: args.seed.unwrap_or(cfg.seed),
            two_step_share: cfg.two_step_share,
            chain_start: cfg.chain_start,
        },
        per_path: args.per_path.unwrap_or(cfg.per_path),
        phrasings: Phrasing::ALL.to_vec(),
        eval_share: args.eval_share.unwrap_or(cfg.eval_share),
        dedup_threshold: cfg.dedup_threshold,
        mode: args.mode.mode.into(),
        answer_check: cfg.answer_check && !args.no_answer_check,
        doc_echo_max: args.doc_echo_max.unwrap_or(cfg.doc_echo_max),
        doc_echo_min: args.doc_echo_min.unwrap_or(cfg.doc_echo_min),
        writer: Some(crate::llm::model_for_role(
            ctx,
            args.model.as_deref(),
            toolsmith_llm::Role::SYNTH,
        )?),
    };
    spec.validate()
        .map_err(|e| anyhow::anyhow!("[synth] or its flags: {e}"))?;
    Ok(spec)
}

/// Per API, the APIs whose output feeds one of its parameters, strongest first: from the
/// stored tool graph (`graph build`), else derived now from the catalog's schemas.
fn producers(ctx: &Context, catalog: &Catalog) -> anyhow::Result<BTreeMap<ApiId, Vec<ApiId>>> {
    let stored = GraphStore::open(ctx.db()).context("opening the tool graph")?;
    let graph = match stored.build_info()? {
        Some(_) => stored.load().context("reading the tool graph")?,
        None => build_graph(catalog, None, &ctx.config()?.graph),
    };
    Ok(graph
        .needs()
        .into_iter()
        .map(|(api, needs)| {
            let mut producers: Vec<ApiId> = Vec::new();
            for p in needs.into_iter().flat_map(|n| n.producers) {
                if !producers.contains(&p.api) {
                    producers.push(p.api);
                }
            }
            (api, producers)
        })
        .collect())
}

/// Builds the writer, executor, answer check and embedder, and runs the set to its end.
fn synthesize(
    ctx: &Context,
    args: &SynthRunArgs,
    sets: &SynthStore,
    set: &SynthSet,
    catalog: &Catalog,
) -> anyhow::Result<RunReport> {
    let config = ctx.config()?;
    let budget = Arc::new(Budget::new(BudgetLimits {
        max_calls: args.max_llm_calls,
        max_tokens: args.max_tokens,
    }));
    let chat = crate::llm::cached_chat(ctx, args.model.as_deref(), args.cache.into())?;
    let llm: Arc<dyn ChatModel> = Arc::new(Metered::new(chat, Arc::clone(&budget)));
    let embedder = match retrieval::embedder(ctx, CacheMode::ReadWrite) {
        Ok(e) => Some(e),
        Err(e) => {
            printer::note(format!(
                "de-duplicating by exact words: no embedder ({e:#})"
            ));
            None
        }
    };
    let writer = QueryWriter::new(
        Arc::clone(&llm),
        embedder.clone(),
        QueryWriterSettings {
            count: set.spec.per_path,
            dedup_threshold: set.spec.dedup_threshold,
            ..QueryWriterSettings::default()
        },
    )?;
    let book = Arc::new(ApiBook::from_catalog(catalog));
    let executor = executor::build_charged(
        ctx,
        book,
        set.spec.mode,
        args.cache.into(),
        Some(Arc::clone(&budget)),
        executor::Writes::Agent(&args.writes.allow_write),
    )?;
    let checker = set
        .spec
        .answer_check
        .then(|| Arc::new(LlmAnswerCheck::new(Arc::clone(&llm))) as Arc<dyn AnswerCheck>);
    let synthesizer = Synthesizer {
        writer: Arc::new(Writer(writer)),
        executor,
        checker,
        embedder,
        concurrency: args.concurrency.unwrap_or(config.synth.concurrency),
    };
    let paths = sets.paths(set.id)?;
    let bar = Bar(ctx
        .progress()
        .bar(paths.len(), format!("synthesizing {}", set.name)));
    bar.0
        .set_position(paths.iter().filter(|p| p.done).count() as u64);
    let summary = ctx
        .runtime()?
        .block_on(synthesizer.run(sets, set, catalog, &bar))?;
    bar.0.finish_and_clear();
    let used = budget.used();
    Ok(RunReport {
        summary,
        llm_calls: used.calls,
        tokens: used.tokens(),
    })
}

/// refine's query writer as the set's [`PathWriter`].
struct Writer(QueryWriter);

#[async_trait]
impl PathWriter for Writer {
    async fn write(&self, ask: &WriteAsk) -> Result<Vec<WrittenQuery>, WriteError> {
        use toolsmith_refine::{PathStep, Voice, WriteRequest};
        let single = ask.steps.len() < 2;
        let chained = ask.path.kind == PathKind::Chain;
        // A chain's producer feeds the next step (a dependency edge of the tool graph); the
        // source's recorded example responses give the writer real entities to name.
        let steps = ask.steps.iter().enumerate().map(|(i, api)| PathStep {
            observed: api.api.response_examples.first().cloned(),
            fed_by: (chained && i > 0).then(|| i - 1),
            api: api.clone(),
        });
        let request = WriteRequest {
            steps: steps.collect(),
            count: ask.count,
            phrasings: ask
                .phrasings
                .iter()
                .copied()
                .filter(|p| !(single && *p == Phrasing::MultiIntent))
                .collect(),
            avoid: Vec::new(),
            voice: Voice::User,
        };
        self.0
            .write(&request)
            .await
            .map_err(|e| WriteError(format!("{e:#}")))
    }
}

/// The progress bar, one step per path.
struct Bar(ProgressBar);

impl SynthObserver for Bar {
    fn path_done(&self, done: usize, _total: usize) {
        self.0.set_position(done as u64);
    }

    fn path_failed(&self, idx: usize, why: &str) {
        self.0
            .suspend(|| printer::note(format!("path {idx} left for a later run: {why}")));
    }
}

/// `synth run --dry-run`.
#[derive(Serialize)]
#[serde(transparent)]
struct DryRun(Estimate);

impl fmt::Display for DryRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.0;
        write!(
            f,
            "{} paths, {} requests asked for: about {} LLM calls, {} prompt and {} completion tokens",
            e.paths, e.requests, e.llm_calls, e.prompt_tokens, e.completion_tokens
        )
    }
}

/// `synth run`: the set's figures and what the run spent.
#[derive(Serialize)]
struct RunReport {
    #[serde(flatten)]
    summary: SetSummary,
    llm_calls: u64,
    tokens: u64,
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Figures(&self.summary))?;
        write!(
            f,
            "\n{} LLM calls, {} tokens; measure with `--dataset synth:{}`",
            self.llm_calls, self.tokens, self.summary.name
        )
    }
}

/// A set's figures as text.
struct Figures<'a>(&'a SetSummary);

impl fmt::Display for Figures<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        let count = |m: &BTreeMap<String, usize>, k: &str| m.get(k).copied().unwrap_or(0);
        let list = |m: &BTreeMap<String, usize>| {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(
            f,
            "set {}: {}/{} paths done; kept {} eval, {} index ({} APIs on eval paths)",
            s.name,
            s.paths_done,
            s.paths,
            count(&s.kept, "eval"),
            count(&s.kept, "index"),
            s.eval_apis
        )?;
        writeln!(f, "kinds: {}", list(&s.kinds))?;
        let lengths: Vec<String> = s.lengths.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        writeln!(f, "path lengths: {}", lengths.join(", "))?;
        let dropped = list(&s.dropped);
        write!(
            f,
            "dropped: {}",
            if dropped.is_empty() {
                "none".into()
            } else {
                dropped
            }
        )
    }
}

/// Runs `synth list`.
pub(super) fn list(ctx: &Context, json: bool) -> anyhow::Result<ExitCode> {
    let store = open(ctx)?;
    let summaries = store
        .sets()?
        .iter()
        .map(|s| SetSummary::of(&store, s))
        .collect::<Result<Vec<_>, _>>()?;
    printer::report(&Listing(summaries), json)?;
    Ok(ExitCode::SUCCESS)
}

/// `synth list`.
#[derive(Serialize)]
#[serde(transparent)]
struct Listing(Vec<SetSummary>);

impl fmt::Display for Listing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("no synthesized sets: make one with `toolsmith synth run NAME`");
        }
        let mut out = table::new(["set", "paths", "done", "eval", "index", "dropped"]);
        for s in &self.0 {
            out.add_row(vec![
                s.name.clone(),
                s.paths.to_string(),
                s.paths_done.to_string(),
                s.kept.get("eval").copied().unwrap_or(0).to_string(),
                s.kept.get("index").copied().unwrap_or(0).to_string(),
                s.dropped.values().sum::<usize>().to_string(),
            ]);
        }
        table::align_right(&mut out, 1..6);
        f.write_str(&out.trim_fmt())
    }
}

fn of_split(queries: Vec<SynthQuery>, split: SynthSplit) -> Vec<SynthQuery> {
    queries
        .into_iter()
        .filter(|q| match (&q.fate, split) {
            (Fate::Kept { split: s, .. }, SynthSplit::Eval) => *s == Split::Eval,
            (Fate::Kept { split: s, .. }, SynthSplit::Index) => *s == Split::Index,
            (Fate::Dropped { .. }, SynthSplit::Dropped) => true,
            _ => false,
        })
        .collect()
}

/// Runs `synth show`.
pub(super) fn show(ctx: &Context, args: &SynthShowArgs) -> anyhow::Result<ExitCode> {
    let store = open(ctx)?;
    let set = named(&store, &args.name)?;
    let report = Shown {
        summary: SetSummary::of(&store, &set)?,
        queries: of_split(store.queries(set.id)?, args.split),
    };
    printer::report(&report, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

/// `synth show`.
#[derive(Serialize)]
struct Shown {
    summary: SetSummary,
    queries: Vec<SynthQuery>,
}

fn gold(path: &GoldPath) -> String {
    path.apis
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" -> ")
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", Figures(&self.summary))?;
        let mut out = table::new(["id", "kind", "phrasing", "request", "gold path", "fate"]);
        for q in &self.queries {
            let fate = match &q.fate {
                Fate::Kept { reference, .. } => reference
                    .as_deref()
                    .map_or_else(|| "kept".to_owned(), |r| table::first_line(r, 40)),
                Fate::Dropped { reason } => reason.to_string(),
            };
            out.add_row(vec![
                q.id.clone(),
                q.path.kind.to_string(),
                q.phrasing.to_string(),
                table::first_line(&q.text, 70),
                gold(&q.path),
                fate,
            ]);
        }
        f.write_str(&out.trim_fmt())
    }
}

/// Runs `synth export`.
pub(super) fn export(ctx: &Context, args: &SynthExportArgs) -> anyhow::Result<ExitCode> {
    if args.split == SynthSplit::Dropped {
        bail!("export writes a split of kept requests: --split eval or index");
    }
    let sets = open(ctx)?;
    let set = named(&sets, &args.name)?;
    let queries = of_split(sets.queries(set.id)?, args.split);
    let format = match args.format {
        SynthFormat::Restbench => ExportFormat::Restbench,
        SynthFormat::Toolbench => ExportFormat::Toolbench,
    };
    let (file, unresolvable) = synth::export(&queries, &ctx.store()?, format)?;
    if unresolvable > 0 {
        printer::note(format!(
            "{unresolvable} gold names will not resolve back to their API in this catalog \
             (ToolBench names exist for tools imported from ToolBench): use --format restbench"
        ));
    }
    let text = serde_json::to_string_pretty(&file)?;
    match &args.out {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
            printer::note(format!(
                "{} requests written to {}",
                queries.len(),
                path.display()
            ));
        }
        None => printer::line(text)?,
    }
    Ok(ExitCode::SUCCESS)
}
