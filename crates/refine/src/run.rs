//! The run machinery every method shares (EasyTool, DRAFT, and ToolExpNet later): a
//! [`Refiner`] refines one API at a time from its stored rounds; the [`Runner`] drives it over
//! many APIs with bounded concurrency, stores each round as a checkpoint (and, for methods
//! that rewrite per round, as a doc version `<method>.r<N>`), writes the final doc as a new
//! catalog version, rewrites each tool's description once its APIs are done,
//! and stops cleanly when the LLM budget runs out, keeping everything finished so far.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::StreamExt;
use serde::Serialize;
use toolsmith_catalog::lint::{self, Finding, LintKind};
use toolsmith_catalog::{
    ApiEntry, ApiId, Catalog, Doc, DocTarget, NewDoc, Store, ToolEntry, render,
};

use crate::chunking::{Chunk, Chunking, PlannedTools};
use crate::error::{Error, Result};
use crate::observer::RefineObserver;
use crate::record::{Method, Round, RunEnd, RunId};
use crate::store::RefineStore;

/// Characters per token in the dry-run estimate (English prose and JSON average about 4).
pub(crate) const CHARS_PER_TOKEN: usize = 4;

/// Lint kinds that are the spec's own, which no doc text can correct: refinement prompts
/// leave them out (a repaired `"maximum": "50"` in a response schema names no parameter the
/// writer could describe).
const SPEC_ONLY: [LintKind; 2] = [LintKind::NoResponseSchema, LintKind::NumberAsString];

/// One API to refine: the API with the doc refinement starts from, and its tool's name.
#[derive(Clone, Debug)]
pub struct ApiJob {
    /// The tool's display name.
    pub tool_name: String,
    /// The API and its starting doc.
    pub entry: ApiEntry,
    /// Lint findings only the whole tool shows (the starting description is another API's
    /// too), from [`lint::lint_catalog`] over the tool.
    pub tool_findings: Vec<Finding>,
    /// The planned tool (its doc and the run's APIs of it, this one among them), shared by
    /// its jobs.
    pub tool: Arc<ToolEntry>,
    /// The run's planned tools, shared by every job of the run: what a method that writes
    /// for several APIs at once cuts into chunks ([`chunk`](Self::chunk)).
    pub(crate) planned: Arc<PlannedTools>,
}

impl ApiJob {
    /// The API's id.
    pub fn id(&self) -> &ApiId {
        &self.entry.api.id
    }

    /// The chunk of the run's planned APIs this API is written with under `chunking`; an
    /// API missing from the plan is a chunk of its own.
    pub(crate) fn chunk(&self, chunking: Chunking) -> Arc<Chunk> {
        self.planned
            .chunk_of(self.id(), chunking)
            .unwrap_or_else(|| {
                Arc::new(Chunk {
                    tools: vec![ToolEntry {
                        tool: self.tool.tool.clone(),
                        doc: self.tool.doc.clone(),
                        apis: vec![self.entry.clone()],
                    }],
                })
            })
    }

    /// The starting description.
    pub fn original(&self) -> &str {
        self.entry.description()
    }

    /// The API as a model reads it (call line, parameters), with `description` as its doc.
    pub fn render_with(&self, description: &str) -> String {
        render::api_markdown(&self.entry_with(description))
    }

    /// The lint findings of the API with `description` as its doc that a doc can correct
    /// (a missing response schema and a number the importer repaired are the spec's, not the
    /// doc's), each as one line for a prompt: the facts refinement is told to fix.
    pub fn findings(&self, description: &str) -> Vec<String> {
        self.findings_where(description, |_| true)
    }

    /// The findings of [`findings`](Self::findings) that rewriting `description` can remove
    /// (it is empty, names a parameter the API lacks, or repeats another API's; the schema's
    /// own findings are left out): what a loop that rewrites the doc every round is told
    /// after its first round.
    pub fn description_findings(&self, description: &str) -> Vec<String> {
        self.findings_where(description, |f| {
            fixed_by_description(&self.entry.api, f, description)
        })
    }

    fn findings_where(&self, description: &str, keep: impl Fn(&Finding) -> bool) -> Vec<String> {
        let own = lint::lint_api(&self.entry_with(description));
        let shared = self
            .tool_findings
            .iter()
            .filter(|_| description.trim() == self.original().trim());
        own.iter()
            .chain(shared)
            .filter(|f| !SPEC_ONLY.contains(&f.kind) && keep(f))
            .map(|f| match &f.param {
                Some(p) => format!("parameter `{p}`: {} ({})", f.message, f.kind),
                None => format!("{} ({})", f.message, f.kind),
            })
            .collect()
    }

    fn entry_with(&self, description: &str) -> ApiEntry {
        let mut entry = self.entry.clone();
        let mut doc = entry.doc.take().map(|v| v.doc).unwrap_or_default();
        description.clone_into(&mut doc.description);
        doc.examples.clear();
        entry.doc = Some(toolsmith_catalog::DocVersion {
            version: 0,
            label: toolsmith_catalog::DocLabel::original(),
            source: String::new(),
            created_at_ms: 0,
            active: false,
            doc,
        });
        entry
    }
}

/// Whether rewriting the API's description can remove `finding`: the description is empty,
/// names a parameter `api` lacks, or repeats another API's. Every other finding is the
/// schema's (a parameter's type, default or description, shown from the schema on the
/// `Parameters:` lines), which no rewrite of the description changes.
fn fixed_by_description(
    api: &toolsmith_catalog::Api,
    finding: &Finding,
    description: &str,
) -> bool {
    match finding.kind {
        LintKind::EmptyDescription | LintKind::DuplicateDescription => finding.param.is_none(),
        LintKind::UnknownParamInDescription => lint::unknown_params_named(api, description)
            .iter()
            .any(|name| finding.message.contains(&format!("`{name}`"))),
        _ => false,
    }
}

/// The dry-run estimate of one API's work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Estimate {
    /// LLM calls at most, every repair of a malformed reply included: a true bound.
    pub llm_calls: u64,
    /// LLM requests at most when every reply parses the first time (no repair).
    pub requests: u64,
    /// Tokens (prompt and completion) at most, roughly.
    pub tokens: u64,
    /// Tool calls at most.
    pub tool_calls: u64,
}

impl Estimate {
    /// `requests` LLM requests of about `tokens_each` tokens and `tool_calls` tool calls; each
    /// request may take [`max_replies_per_request`](crate::max_replies_per_request) calls.
    pub fn of_requests(requests: u64, tokens_each: u64, tool_calls: u64) -> Self {
        let llm_calls = requests * crate::ask::max_replies_per_request();
        Self {
            llm_calls,
            requests,
            tokens: llm_calls * tokens_each,
            tool_calls,
        }
    }
}

impl std::ops::AddAssign for Estimate {
    fn add_assign(&mut self, other: Self) {
        self.llm_calls += other.llm_calls;
        self.requests += other.requests;
        self.tokens += other.tokens;
        self.tool_calls += other.tool_calls;
    }
}

/// Where a refiner stores each finished round of the API it refines.
pub trait RoundSink: Send + Sync {
    /// Stores `round` (one transaction) and reports it.
    fn save(&self, round: &Round) -> Result<()>;
}

/// A refinement method. Object-safe: the binary picks one from `--method`.
#[async_trait]
pub trait Refiner: Send + Sync {
    /// Which method this is (and the label of the docs it writes).
    fn method(&self) -> Method;

    /// Its settings as JSON, stored with the run.
    fn settings_json(&self) -> serde_json::Value;

    /// Refines one API, continuing after the `done` rounds a previous attempt stored (their
    /// last one has `stop` set when the API was finished). Each finished round goes to `sink`
    /// before the next starts. The API's new doc is the last round's description and examples.
    async fn refine_api(&self, job: &ApiJob, done: Vec<Round>, sink: &dyn RoundSink) -> Result<()>;

    /// A new tool description from its APIs' refined docs; `None` keeps the current one.
    async fn describe_tool(&self, tool: &ToolEntry) -> Result<Option<String>>;

    /// The most one API can cost. Work shared by several APIs (one request writing for a
    /// chunk of APIs) is counted once, on one of them, so the sum over a run's APIs
    /// is the run's bound.
    fn estimate(&self, job: &ApiJob) -> Estimate;

    /// Whether every round's doc is also stored as a doc version of its own (labelled
    /// [`Method::round_label`], never activated), so the trajectory can be listed and diffed.
    /// Off by default; DRAFT, whose rounds each rewrite the doc, turns it on.
    fn round_versions(&self) -> bool {
        false
    }
}

/// What a run did.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// The run.
    pub run: RunId,
    /// The method.
    pub method: Method,
    /// APIs finished by this attempt, with the doc version stored (`None`: doc unchanged).
    pub apis: Vec<(ApiId, Option<u32>)>,
    /// APIs an earlier attempt had finished (not redone).
    pub already_done: usize,
    /// APIs that failed, with the error.
    pub failed: Vec<(ApiId, String)>,
    /// APIs of `apis` whose every round's model output was refused (a reply still malformed
    /// after its repairs, an empty or overlong doc), with the last reason: they finished, but
    /// the model wrote nothing of their doc, so they count as failures too.
    pub refused: Vec<(ApiId, String)>,
    /// Tools whose description was rewritten, with the version stored.
    pub tools: Vec<(toolsmith_catalog::ToolId, Option<u32>)>,
    /// How the run ended.
    pub end: RunEnd,
}

/// The tools (with only the chosen APIs) of `catalog` to refine; `keep` picks the APIs.
pub fn plan(catalog: &Catalog, keep: impl Fn(&ApiId) -> bool) -> Vec<ToolEntry> {
    catalog
        .tools
        .iter()
        .filter_map(|tool| {
            let apis: Vec<ApiEntry> = tool
                .apis
                .iter()
                .filter(|a| keep(&a.api.id))
                .cloned()
                .collect();
            (!apis.is_empty()).then(|| ToolEntry {
                apis,
                ..tool.clone()
            })
        })
        .collect()
}

/// The jobs of planned tools, tool by tool; they share the plan, so a method's chunks are
/// cut from it once.
pub fn jobs(tools: &[ToolEntry]) -> Vec<ApiJob> {
    let shared: Vec<Arc<ToolEntry>> = tools.iter().cloned().map(Arc::new).collect();
    let planned = Arc::new(PlannedTools::new(shared.clone()));
    shared
        .iter()
        .flat_map(|tool| {
            let t = tool.as_ref();
            let report = lint::lint_catalog(&Catalog {
                tools: vec![t.clone()],
            });
            t.apis
                .iter()
                .map(|a| ApiJob {
                    tool_name: t.tool.name.clone(),
                    tool: Arc::clone(tool),
                    planned: Arc::clone(&planned),
                    entry: a.clone(),
                    tool_findings: report
                        .findings
                        .iter()
                        .filter(|f| {
                            f.api == a.api.id
                                && f.param.is_none()
                                && f.kind == LintKind::DuplicateDescription
                        })
                        .cloned()
                        .collect(),
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Drives a [`Refiner`] over planned tools.
pub struct Runner<'a> {
    refiner: &'a dyn Refiner,
    catalog: &'a Mutex<Store>,
    store: &'a RefineStore,
    observer: &'a dyn RefineObserver,
    concurrency: usize,
}

enum ApiResult {
    /// Finished: the version stored, the final doc, and why the model's output was refused
    /// when every round's was.
    Done(ApiId, Option<u32>, Doc, Option<String>),
    AlreadyDone(ApiId, Doc),
    Failed(ApiId, String),
    Budget(String),
    Skipped,
}

impl<'a> Runner<'a> {
    /// A runner writing docs into `catalog` and rounds into `store`, `concurrency` APIs at once.
    pub fn new(
        refiner: &'a dyn Refiner,
        catalog: &'a Mutex<Store>,
        store: &'a RefineStore,
        observer: &'a dyn RefineObserver,
        concurrency: usize,
    ) -> Self {
        Self {
            refiner,
            catalog,
            store,
            observer,
            concurrency: concurrency.max(1),
        }
    }

    /// Runs (or resumes) `run` over `tools`.
    pub async fn run(&self, run: RunId, tools: &[ToolEntry]) -> Result<RunReport> {
        let jobs = jobs(tools);
        let mut already = 0;
        for job in &jobs {
            if self.store.api_done(run, job.id())? {
                already += 1;
            }
        }
        self.observer.run_started(run, jobs.len(), already);
        let stop = AtomicBool::new(false);
        let results: Vec<Result<ApiResult>> = futures::stream::iter(jobs.iter())
            .map(|job| self.one_api(run, job, &stop))
            .buffer_unordered(self.concurrency)
            .collect()
            .await;
        let mut report = RunReport {
            run,
            method: self.refiner.method(),
            apis: Vec::new(),
            already_done: 0,
            failed: Vec::new(),
            refused: Vec::new(),
            tools: Vec::new(),
            end: RunEnd::Finished,
        };
        let mut refined: HashMap<ApiId, Doc> = HashMap::new();
        for result in results {
            match result? {
                ApiResult::Done(id, version, doc, refused) => {
                    refined.insert(id.clone(), doc);
                    if let Some(reason) = refused {
                        report.refused.push((id.clone(), reason));
                    }
                    report.apis.push((id, version));
                }
                ApiResult::AlreadyDone(id, doc) => {
                    refined.insert(id, doc);
                    report.already_done += 1;
                }
                ApiResult::Failed(id, error) => report.failed.push((id, error)),
                ApiResult::Budget(why) => report.end = RunEnd::Budget(why),
                ApiResult::Skipped => {}
            }
        }
        if report.end == RunEnd::Finished {
            self.describe_tools(run, tools, &refined, &mut report)
                .await?;
        }
        self.store.end_run(run, &report.end)?;
        self.observer.stopped(&report.end);
        Ok(report)
    }

    async fn one_api(&self, run: RunId, job: &ApiJob, stop: &AtomicBool) -> Result<ApiResult> {
        let id = job.id().clone();
        let rounds = self.store.rounds(run, &id)?;
        if self.store.api_done(run, &id)? {
            return Ok(ApiResult::AlreadyDone(id, final_doc(job, &rounds)));
        }
        if stop.load(Ordering::SeqCst) {
            return Ok(ApiResult::Skipped);
        }
        self.observer.api_started(&id, rounds.len());
        let sink = ApiSink {
            run,
            api: &id,
            start: job.entry.doc.as_ref().map(|v| &v.doc),
            runner: self,
        };
        // A run killed between a round's checkpoint and its doc version gets the version now
        // (storing an unchanged doc under its label again is a no-op).
        if let Some(last) = rounds.last() {
            sink.round_version(last)?;
        }
        match self.refiner.refine_api(job, rounds, &sink).await {
            Ok(()) => {}
            Err(e) if e.is_budget() => {
                stop.store(true, Ordering::SeqCst);
                return Ok(ApiResult::Budget(error_chain(&e)));
            }
            Err(e) => {
                let message = error_chain(&e);
                tracing::warn!(api = %id, error = %message, "refinement failed");
                self.observer.api_failed(&id, &message);
                return Ok(ApiResult::Failed(id, message));
            }
        }
        let rounds = self.store.rounds(run, &id)?;
        let doc = final_doc(job, &rounds);
        let version = self.store_doc(run, &DocTarget::Api(id.clone()), job, &doc)?;
        self.store.finish_api(run, &id, version)?;
        let refused = all_refused(&rounds);
        match &refused {
            Some(reason) => self.observer.api_failed(&id, reason),
            None => self.observer.api_finished(&id, version),
        }
        Ok(ApiResult::Done(id, version, doc, refused))
    }

    /// Stores `doc` as a new version unless it is the starting doc unchanged.
    fn store_doc(
        &self,
        run: RunId,
        target: &DocTarget,
        job: &ApiJob,
        doc: &Doc,
    ) -> Result<Option<u32>> {
        let start = job.entry.doc.as_ref().map(|v| &v.doc);
        // A doc with no description is stored only for the synthetic requests it adds.
        let new_queries =
            !doc.queries.is_empty() && start.map(|s| &s.queries) != Some(&doc.queries);
        if start == Some(doc) || (doc.description.is_empty() && !new_queries) {
            return Ok(None);
        }
        self.add_doc(run, target, doc.clone()).map(Some)
    }

    fn add_doc(&self, run: RunId, target: &DocTarget, doc: Doc) -> Result<u32> {
        let method = self.refiner.method();
        let new = NewDoc {
            label: method.label(),
            source: format!("refine run {run} ({method})"),
            doc,
        };
        let mut catalog = toolsmith_plumbing::sqlite::lock(self.catalog);
        Ok(catalog
            .add_doc(target, new, toolsmith_catalog::Activate::IfNoneActive)?
            .version)
    }

    async fn describe_tools(
        &self,
        run: RunId,
        tools: &[ToolEntry],
        refined: &HashMap<ApiId, Doc>,
        report: &mut RunReport,
    ) -> Result<()> {
        for tool in tools {
            let id = &tool.tool.id;
            let all_done = tool.apis.iter().all(|a| refined.contains_key(&a.api.id));
            if !all_done || self.store.tool_done(run, id)? {
                continue;
            }
            let mut view = tool.clone();
            for api in &mut view.apis {
                if let (Some(doc), Some(version)) = (refined.get(&api.api.id), api.doc.as_mut()) {
                    version.doc = doc.clone();
                }
            }
            let description = match self.refiner.describe_tool(&view).await {
                Ok(d) => d,
                Err(e) if e.is_budget() => {
                    report.end = RunEnd::Budget(error_chain(&e));
                    return Ok(());
                }
                Err(e) => {
                    report.failed.push((
                        tool.apis.first().map(|a| a.api.id.clone()).ok_or_else(|| {
                            Error::Setting {
                                field: "tools",
                                reason: format!("tool {id} has no API"),
                            }
                        })?,
                        format!("tool description: {}", error_chain(&e)),
                    ));
                    continue;
                }
            };
            let current = tool.doc.as_ref().map(|v| v.doc.description.as_str());
            let version = match description {
                Some(text) if Some(text.as_str()) != current => {
                    Some(self.add_doc(run, &DocTarget::Tool(id.clone()), Doc::text(text))?)
                }
                _ => None,
            };
            self.store.finish_tool(run, id, version)?;
            self.observer.tool_finished(id, version);
            report.tools.push((id.clone(), version));
        }
        Ok(())
    }
}

/// The last refusal, when every round refused the model's output (no round, none refused).
fn all_refused(rounds: &[Round]) -> Option<String> {
    let mut reason = None;
    for round in rounds {
        reason = Some(round.refused.clone()?);
    }
    reason
}

/// The doc an API ends with: the last round's description and examples, or the start.
fn final_doc(job: &ApiJob, rounds: &[Round]) -> Doc {
    match rounds.last() {
        Some(last) => Doc {
            description: last.description.clone(),
            examples: last.examples.clone(),
            queries: if last.queries.is_empty() {
                job.entry
                    .doc
                    .as_ref()
                    .map(|v| v.doc.queries.clone())
                    .unwrap_or_default()
            } else {
                last.queries.clone()
            },
        },
        None => job
            .entry
            .doc
            .as_ref()
            .map(|v| v.doc.clone())
            .unwrap_or_default(),
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

struct ApiSink<'a> {
    run: RunId,
    api: &'a ApiId,
    /// The doc refinement started from: a round that left it as it was stores no version.
    start: Option<&'a Doc>,
    runner: &'a Runner<'a>,
}

impl ApiSink<'_> {
    /// Stores `round`'s doc as the version labelled for its round, when the method keeps
    /// one per round and the round's doc is not the starting doc unchanged. The catalog skips
    /// a doc identical to the latest of its label, so storing a round twice (a resumed run)
    /// adds nothing.
    fn round_version(&self, round: &Round) -> Result<Option<u32>> {
        let refiner = self.runner.refiner;
        let doc = Doc {
            description: round.description.clone(),
            examples: round.examples.clone(),
            queries: self.start.map(|d| d.queries.clone()).unwrap_or_default(),
        };
        if !refiner.round_versions()
            || doc.description.trim().is_empty()
            || self.start == Some(&doc)
        {
            return Ok(None);
        }
        let method = refiner.method();
        let new = NewDoc {
            label: method.round_label(round.round),
            source: format!("refine run {} ({method}, round {})", self.run, round.round),
            doc,
        };
        let mut catalog = toolsmith_plumbing::sqlite::lock(self.runner.catalog);
        let target = DocTarget::Api(self.api.clone());
        Ok(Some(
            catalog
                .add_doc(&target, new, toolsmith_catalog::Activate::IfNoneActive)?
                .version,
        ))
    }
}

impl RoundSink for ApiSink<'_> {
    fn save(&self, round: &Round) -> Result<()> {
        self.runner.store.save_round(self.run, self.api, round)?;
        self.round_version(round)?;
        self.runner.observer.round_finished(self.api, round);
        Ok(())
    }
}
