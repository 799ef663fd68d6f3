//! [`Harness`]: runs a solver over a dataset's queries concurrently, scores each finished
//! query and stores it at once, so a stopped run loses nothing finished and a resumed one
//! redoes nothing finished.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use serde_json::Value;
use toolsmith_catalog::ApiId;
use toolsmith_llm::{Budget, BudgetLimits, ChatModel, Metered};
use toolsmith_retrieve::Filter;
use toolsmith_solve::{
    RenderOptions, Run, Runtime, SEARCH_TOOLS, Solver, Toolset, TraceEvent, Tracer,
};

use crate::dataset::ResolvedQuery;
use crate::error::{Error, Result};
use crate::harness::observer::BenchObserver;
use crate::harness::query::QueryResult;
use crate::harness::score::{QueryScores, RunSummary};
use crate::harness::spec::{BenchSpec, ToolsOffered};
use crate::harness::store::{BenchStore, RunId};
use crate::run::RunRecord;

/// Builds the solver for one query over a runtime of its own (a fresh tracer, and the
/// per-query budget). Closures `Fn(Runtime) -> Box<dyn Solver>` are factories.
pub trait SolverFactory: Send + Sync {
    /// The solver for one query.
    fn solver(&self, runtime: Runtime) -> Box<dyn Solver>;
}

impl<F> SolverFactory for F
where
    F: Fn(Runtime) -> Box<dyn Solver> + Send + Sync,
{
    fn solver(&self, runtime: Runtime) -> Box<dyn Solver> {
        self(runtime)
    }
}

/// Runs a solver over a dataset. The runtime is a template: each query gets a clone with a
/// fresh tracer, a fresh session for its task ([`toolsmith_exec::task_session`]), and a fresh
/// budget when [`Harness::with_query_budget`] set one.
pub struct Harness {
    runtime: Runtime,
    solvers: Arc<dyn SolverFactory>,
    render: RenderOptions,
    budget: Option<BudgetLimits>,
}

impl Harness {
    /// A harness building solvers with `solvers` over clones of `runtime`.
    pub fn new(runtime: Runtime, solvers: impl SolverFactory + 'static) -> Self {
        Self {
            runtime,
            solvers: Arc::new(solvers),
            render: RenderOptions::default(),
            budget: None,
        }
    }

    /// How tools are rendered for the model. By default, without usage examples.
    pub fn with_render(mut self, render: RenderOptions) -> Self {
        self.render = render;
        self
    }

    /// Gives each query its own LLM budget. By default, none beyond the runtime's model's.
    pub fn with_query_budget(mut self, limits: BudgetLimits) -> Self {
        self.budget = Some(limits);
        self
    }

    /// Runs (or resumes) the stored run `run` of `spec` over `queries` (the dataset's resolved
    /// queries, in file order): the first `spec.limit` of them, minus those the store already
    /// holds a result for (a result that ended in [`Finish::Error`](toolsmith_solve::Finish),
    /// an LLM failure, is redone), `spec.concurrency` at a time. Each finished query is
    /// stored in its own transaction before the next is awaited; the run is marked finished
    /// when every selected query has a result. Returns the summary of every stored result.
    pub async fn run(
        &self,
        store: &BenchStore,
        run: RunId,
        spec: &BenchSpec,
        queries: &[ResolvedQuery],
        observer: &dyn BenchObserver,
    ) -> Result<RunSummary> {
        let selected: Vec<&ResolvedQuery> = queries
            .iter()
            .take(spec.limit.unwrap_or(usize::MAX))
            .collect();
        let done: HashSet<String> = store.finished_queries(run)?;
        let todo: Vec<&ResolvedQuery> = selected
            .iter()
            .copied()
            .filter(|q| !done.contains(&q.id))
            .collect();
        observer.run_started(selected.len(), selected.len() - todo.len());
        let mut results = futures::stream::iter(todo)
            .map(|query| async move {
                observer.query_started(&query.id);
                self.solve(spec, query).await
            })
            .buffer_unordered(spec.concurrency.max(1));
        while let Some(result) = results.next().await {
            let result = result?;
            store.save_result(run, &result)?;
            observer.query_finished(&result.query_id, &result.scores);
        }
        drop(results);
        let finished = store.finished_queries(run)?;
        if selected.iter().all(|q| finished.contains(&q.id)) {
            store.mark_finished(run)?;
        }
        store.summary(run)
    }

    /// Solves and scores one query.
    pub async fn solve(&self, spec: &BenchSpec, query: &ResolvedQuery) -> Result<QueryResult> {
        let toolset = self.toolset(spec, query).await?;
        let mut offered: Vec<ApiId> = toolset.api_ids().cloned().collect();
        let mut runtime = self.runtime.clone();
        runtime.tracer = Tracer::new();
        // A session of its own: no query sees what another created or deleted, whatever
        // the order or the concurrency.
        runtime.executor = toolsmith_exec::task_session(&runtime.executor, &query.text);
        if let Some(limits) = self.budget {
            let llm: Arc<dyn ChatModel> = Arc::new(Metered::new(
                Arc::clone(&runtime.llm),
                Arc::new(Budget::new(limits)),
            ));
            runtime.llm = llm;
        }
        let solver = self.solvers.solver(runtime);
        let started = Instant::now();
        let run = solver
            .solve(&query.text, toolset)
            .await
            .map_err(|source| Error::Solve {
                query: query.id.clone(),
                source: Box::new(source),
            })?;
        let wall_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        for api in self.searched(&run) {
            if !offered.contains(&api) {
                offered.push(api);
            }
        }
        let record = RunRecord::from_run(&run);
        let scores = QueryScores::of(&run, &record, &query.gold, &offered, wall_ms)
            .with_gold_answer(&record, query.answer);
        Ok(QueryResult {
            query_id: query.id.clone(),
            run,
            record,
            offered,
            scores,
        })
    }

    /// The tools `query` is offered under `spec`.
    async fn toolset(&self, spec: &BenchSpec, query: &ResolvedQuery) -> Result<Toolset> {
        let book = &self.runtime.book;
        let mut toolset = Toolset::default();
        let mut add = |ids: &[ApiId]| {
            for id in ids {
                if let Some(entry) = book.get(id) {
                    toolset.add(&entry.api, &self.render);
                }
            }
        };
        match spec.tools {
            ToolsOffered::Candidates => {
                if query.candidates.is_empty() {
                    return Err(Error::NoCandidates {
                        query: query.id.clone(),
                    });
                }
                add(&shuffled(&query.candidates, spec.seed, &query.id));
            }
            ToolsOffered::All => {
                let mut all: Vec<ApiId> = book.ids().cloned().collect();
                all.sort();
                add(&all);
            }
            ToolsOffered::Retrieve { k, search } => {
                let retriever = self
                    .runtime
                    .retriever
                    .as_ref()
                    .ok_or(Error::NoRetriever { tools: spec.tools })?;
                let hits = retriever
                    .search(&query.text, k, &Filter::default())
                    .await
                    .map_err(|source| Error::Retrieve {
                        query: query.id.clone(),
                        source: Box::new(source),
                    })?;
                let ids: Vec<ApiId> = hits.into_iter().map(|h| h.api).collect();
                add(&ids);
                if search {
                    toolset = toolset.with_search_tool();
                }
            }
            ToolsOffered::SearchTool => {
                if self.runtime.retriever.is_none() {
                    return Err(Error::NoRetriever { tools: spec.tools });
                }
                toolset = toolset.with_search_tool();
            }
        }
        Ok(toolset)
    }

    /// The APIs `search_tools` calls of a run found (its observations name their functions).
    fn searched(&self, run: &Run) -> Vec<ApiId> {
        let calls: Vec<&str> = run
            .trace
            .iter()
            .filter_map(|e| match &e.event {
                TraceEvent::ToolCall {
                    function,
                    api: None,
                    observation,
                    ..
                } if function == SEARCH_TOOLS => Some(observation.as_str()),
                _ => None,
            })
            .collect();
        if calls.is_empty() {
            return Vec::new();
        }
        let by_function: HashMap<String, &ApiId> = self
            .runtime
            .book
            .ids()
            .map(|id| (toolsmith_catalog::export::function_name(id), id))
            .collect();
        let mut found = Vec::new();
        for observation in calls {
            let Ok(value) = serde_json::from_str::<Value>(observation) else {
                continue;
            };
            let hits = value.get("response").and_then(Value::as_array);
            for hit in hits.into_iter().flatten() {
                let api = hit
                    .get("function")
                    .and_then(Value::as_str)
                    .and_then(|f| by_function.get(f));
                if let Some(api) = api {
                    found.push((*api).clone());
                }
            }
        }
        found
    }
}

/// `items` in an order fixed by the run's seed and the query (so a query's order does not
/// depend on which other queries run).
pub(crate) fn shuffled(items: &[ApiId], seed: u64, query_id: &str) -> Vec<ApiId> {
    let mut out = items.to_vec();
    out.shuffle(&mut StdRng::seed_from_u64(seed ^ fnv1a(query_id)));
    out
}

/// FNV-1a of a string: a stable, dependency-free hash for seeding.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_are_fixed_by_seed_and_query_and_keep_every_item()
    -> std::result::Result<(), Box<dyn std::error::Error>> {
        let items: Vec<ApiId> = (0..8)
            .map(|i| format!("t/api_{i}").parse())
            .collect::<std::result::Result<_, _>>()?;
        let a = shuffled(&items, 7, "q1");
        assert_eq!(a, shuffled(&items, 7, "q1"));
        assert_ne!(a, items, "the gold-first order is broken");
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, items);
        assert_ne!(a, shuffled(&items, 8, "q1"));
        Ok(())
    }
}
