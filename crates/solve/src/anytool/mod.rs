//! AnyTool (Du et al., 2024): a hierarchical API retriever (a meta agent picks categories,
//! category agents pick tools, tool agents pick APIs into a shared candidate pool), DFSDT over
//! the pool, and self-reflection when the answer fails, all within one token budget.
//!
//! toolsmith's search-assisted mode (on unless the protocol is the paper's) adds search as a
//! first stage (the top `seed_k` hits, with the producers their ids need when a tool graph is
//! stored, seed the pool; when a solvability check finds them enough, the solver runs without
//! any agent), and orders and cuts the meta and category agents' listings by the search's
//! relevance to the query (with the dependency producers of the listed tools).

mod agents;
mod failures;
mod hierarchy;
mod judge;
pub(crate) mod labels;
mod pool;
mod reflect;
mod settings;
mod warm;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tokio::sync::Semaphore;
use toolsmith_catalog::ApiId;
use toolsmith_llm::{Budget, BudgetLimits, Message, Metered};
use toolsmith_retrieve::{ExpandingRetriever, Filter, Hit, Link};

pub use self::hierarchy::{CategoryBy, Hierarchy, Relevance, ToolNode};
pub use self::judge::{AnswerCheck, JUDGE_ROLE, Judgement, LlmJudge};
pub use self::labels::{AgentLevel, AgentStatus, Part, Verdict};
pub use self::settings::{AnyToolSettings, ReflectionHistory};

use self::agents::{CHECK_ROLE, Pool, SEARCH_ROLE, Shared};
use self::failures::Failures;
use self::pool::{same_apis, trimmed};
use self::reflect::reflect;
use crate::dfsdt::Dfsdt;
use crate::error::Result;
use crate::finish::Finish;
use crate::run::Run;
use crate::runtime::{Runtime, Stop};
use crate::solver::{End, Solver, finished, started};
use crate::toolset::{RenderOptions, Toolset};
use crate::trace::{RunLimit, Stamped, TraceEvent, TraceSink, Tracer};

/// Tokens (prompt + completion) and LLM calls per part of an AnyTool trace.
pub fn tokens_by_part(events: &[Stamped]) -> BTreeMap<Part, (u64, usize)> {
    let mut parts: BTreeMap<Part, (u64, usize)> = BTreeMap::new();
    let mut reflecting = false;
    for e in events {
        match &e.event {
            TraceEvent::Reflection { .. } => reflecting = true,
            TraceEvent::LlmCall {
                role,
                prompt_tokens,
                completion_tokens,
                ..
            } => {
                let role = role.to_string();
                let part = match role.as_str() {
                    _ if reflecting && role.starts_with("anytool_") && role != JUDGE_ROLE => {
                        Part::Reflection
                    }
                    "anytool_meta" => Part::Meta,
                    "anytool_category" => Part::Category,
                    "anytool_tool" | CHECK_ROLE => Part::Tool,
                    SEARCH_ROLE => Part::Search,
                    JUDGE_ROLE => Part::Judge,
                    _ => Part::Solver,
                };
                let slot = parts.entry(part).or_default();
                slot.0 += prompt_tokens + completion_tokens;
                slot.1 += 1;
            }
            _ => {}
        }
    }
    parts
}

/// The AnyTool solver over a catalog hierarchy.
pub struct AnyTool {
    runtime: Runtime,
    hierarchy: Arc<Hierarchy>,
    settings: AnyToolSettings,
    judge: Option<Arc<dyn AnswerCheck>>,
    expander: Option<Arc<ExpandingRetriever>>,
}

impl AnyTool {
    /// AnyTool over `hierarchy`; search assistance uses `runtime.retriever` when set.
    pub fn new(runtime: Runtime, hierarchy: Arc<Hierarchy>, settings: AnyToolSettings) -> Self {
        Self {
            runtime,
            hierarchy,
            settings,
            judge: None,
            expander: None,
        }
    }

    /// Searches through `expander` (a retriever with the stored tool graph's dependency
    /// producers) instead of `runtime.retriever`: the seeded pool gets the producers its APIs
    /// need, and listings show the producers of the tools they list.
    pub fn with_expansion(mut self, expander: Arc<ExpandingRetriever>) -> Self {
        self.expander = Some(expander);
        self
    }

    /// Checks answers with `judge` instead of [`LlmJudge`].
    pub fn with_judge(mut self, judge: Arc<dyn AnswerCheck>) -> Self {
        self.judge = Some(judge);
        self
    }
}

/// Forwards a nested solver's events, but not its own start and end.
struct Forward(Tracer);

impl TraceSink for Forward {
    fn event(&self, event: &Stamped) {
        if !matches!(
            event.event,
            TraceEvent::Started { .. } | TraceEvent::Finished { .. }
        ) {
            self.0.emit(event.event.clone());
        }
    }
}

/// How one solver attempt ended.
struct Attempt {
    run: Run,
    /// The last path it walked, after the opening.
    path: Vec<Message>,
    /// Its function names and the APIs they call.
    names: Vec<(String, ApiId)>,
}

/// What the search stage put in the pool and what the check said of it.
struct Seed {
    apis: Vec<ApiId>,
    solvable: bool,
    reason: String,
}

/// The earlier attempt a reflection round re-runs from, and why each attempt so far failed.
struct Earlier<'a> {
    attempt: &'a Attempt,
    reasons: &'a [String],
}

impl AnyTool {
    async fn relevance(&self, query: &str) -> Option<Relevance> {
        if !self.settings.search_assisted {
            return None;
        }
        let found = match &self.expander {
            Some(expander) => {
                Relevance::search_expanded(
                    expander,
                    &self.hierarchy,
                    query,
                    self.settings.search_depth,
                )
                .await
            }
            None => {
                let retriever = self.runtime.retriever.as_ref()?;
                Relevance::search(
                    retriever.as_ref(),
                    &self.hierarchy,
                    query,
                    self.settings.search_depth,
                )
                .await
            }
        };
        match found {
            Ok(r) => Some(r),
            Err(e) => {
                tracing::warn!("AnyTool search assistance is off for this query: {e}");
                None
            }
        }
    }

    /// The search stage: the top `seed_k` hits (and their producers) into the pool, then the
    /// solvability check of that pool. `None` when seeding is off or found nothing.
    async fn seed(&self, shared: &Shared, query: &str) -> Option<Seed> {
        let k = self.settings.seed_k;
        if !self.settings.search_assisted || k == 0 {
            return None;
        }
        let filter = Filter::default();
        let hits: toolsmith_retrieve::Result<Vec<Hit>> = match &self.expander {
            Some(expander) => {
                expander
                    .search_expanded(query, k, &filter)
                    .await
                    .map(|(hits, added)| {
                        if let Ok(mut links) = shared.producers.lock() {
                            for a in added.iter().filter(|a| a.link == Link::Producer) {
                                let feeds = links.entry(a.feeds.clone()).or_default();
                                if !feeds.contains(&a.api) {
                                    feeds.push(a.api.clone());
                                }
                            }
                        }
                        hits
                    })
            }
            None => {
                self.runtime
                    .retriever
                    .as_ref()?
                    .search(query, k, &filter)
                    .await
            }
        };
        let hits = match hits {
            Ok(hits) => hits,
            Err(e) => {
                tracing::warn!("AnyTool's search stage is off for this query: {e}");
                return None;
            }
        };
        let mut apis: Vec<ApiId> = Vec::new();
        for hit in hits {
            if apis.len() < self.settings.pool_cap
                && self.hierarchy.api(&hit.api).is_some()
                && !apis.contains(&hit.api)
            {
                apis.push(hit.api);
            }
        }
        if apis.is_empty() {
            return None;
        }
        if let Ok(mut pool) = shared.pool.lock() {
            pool.apis.clone_from(&apis);
        }
        let (solvable, reason) = match shared.ask_solvable(SEARCH_ROLE).await {
            Ok(check) => {
                if check.solvable {
                    shared.keep_needed(check.needed);
                }
                (check.solvable, check.reason)
            }
            Err(stop) => {
                let reason = stop.detail.clone();
                shared.halt(stop);
                (false, reason)
            }
        };
        shared.runtime.tracer.emit(TraceEvent::Seeded {
            apis: apis.clone(),
            solvable,
            reason: reason.clone(),
        });
        Some(Seed {
            apis,
            solvable,
            reason,
        })
    }

    /// DFSDT over the pool. With an `earlier` attempt (the paper's reflection), the solver continues its cleaned path.
    async fn solve_pool(
        &self,
        runtime: &Runtime,
        query: &str,
        pool: &[ApiId],
        earlier: Option<Earlier<'_>>,
    ) -> Result<Attempt> {
        let entries: Vec<_> = pool
            .iter()
            .filter_map(|id| self.hierarchy.api(id).map(|(_, e)| e.clone()))
            .collect();
        let toolset = Toolset::new(&entries, &RenderOptions::default());
        let names: Vec<(String, ApiId)> = toolset
            .api_specs()
            .into_iter()
            .filter_map(|s| {
                toolset
                    .resolve(&s.name)
                    .map(|id| (s.name.clone(), id.clone()))
            })
            .collect();
        let inner = Runtime {
            tracer: Tracer::new().with_sink(Arc::new(Forward(runtime.tracer.clone()))),
            ..runtime.clone()
        };
        let prior = match earlier {
            Some(earlier) if self.settings.reflection_history == ReflectionHistory::Cleaned => {
                let keep = |function: &str| {
                    earlier
                        .attempt
                        .names
                        .iter()
                        .find(|(name, _)| name == function)
                        .is_none_or(|(_, id)| pool.contains(id))
                };
                warm::cleaned(&earlier.attempt.path, keep, earlier.reasons)
            }
            _ => Vec::new(),
        };
        let (run, path) = Dfsdt::new(inner, self.settings.dfsdt.clone())
            .solve_from(query, toolset, prior)
            .await?;
        Ok(Attempt { run, path, names })
    }
}

#[async_trait]
impl Solver for AnyTool {
    fn name(&self) -> &str {
        "anytool"
    }

    async fn solve(&self, query: &str, _toolset: Toolset) -> Result<Run> {
        let tracer = self.runtime.tracer.clone();
        started(&tracer, self.name(), query, &Toolset::default());
        let budget = Arc::new(Budget::new(BudgetLimits {
            max_calls: None,
            max_tokens: Some(self.settings.token_budget),
        }));
        let runtime = Runtime {
            llm: Arc::new(Metered::new(Arc::clone(&self.runtime.llm), budget)),
            ..self.runtime.clone()
        };
        let judge: Arc<dyn AnswerCheck> = match &self.judge {
            Some(j) => Arc::clone(j),
            None => Arc::new(
                LlmJudge::new(runtime.clone(), self.settings.judge_votes)
                    .with_early_stop(self.settings.judge_early_stop),
            ),
        };
        let relevance = self.relevance(query).await;
        let shared = Arc::new(Shared {
            runtime: runtime.clone(),
            hierarchy: Arc::clone(&self.hierarchy),
            producers: Mutex::new(
                relevance
                    .as_ref()
                    .map(Relevance::api_producer_links)
                    .unwrap_or_default(),
            ),
            relevance,
            settings: self.settings.clone(),
            query: query.to_owned(),
            agents: Mutex::new(Vec::new()),
            pool: Mutex::new(Pool::default()),
            stop: AtomicBool::new(false),
            halt: Mutex::new(None),
            permits: Semaphore::new(self.settings.concurrency.max(1)),
            handles: Mutex::new(Vec::new()),
            needed: Mutex::new(None),
        });
        match self.seed(&shared, query).await {
            // The seeded pool is enough: the solver runs without any agent.
            Some(seed) if seed.solvable => shared.stop.store(true, Ordering::SeqCst),
            seed => {
                let note = seed.map(|seed| seeded_note(&seed));
                let meta = shared.create(AgentLevel::Meta, None, None, Vec::new(), note);
                shared.spawn(meta);
                shared.join().await;
            }
        }

        let mut last: Option<Run> = None;
        let mut earlier: Option<Attempt> = None;
        // Why each attempt failed, oldest first, and every attempt's calls.
        let mut reasons: Vec<String> = Vec::new();
        let mut failures = Failures::default();
        let mut given: Option<Vec<ApiId>> = None;
        let mut round = 0;
        // Whether the last reflection round widened a category listing (`reflection_widen`).
        let mut widened = false;
        let end = loop {
            if let Some(stop) = take_halt(&shared) {
                break budget_end(stop, last.as_ref());
            }
            // The first attempt gets what the check named; a reflection round the whole pool.
            let pool = if earlier.is_none() && self.settings.trim_pool {
                trimmed(&shared)
            } else {
                shared.pool()
            };
            if self.settings.stop_unchanged
                && let (Some(before), Some(reason)) = (&given, reasons.last())
                && same_apis(before, &pool)
            {
                // A listing the round widened may widen further: another round of search,
                // without re-running the solver on the same APIs.
                if widened && round < self.settings.reflection_rounds {
                    round += 1;
                    let reason = reason.clone();
                    widened =
                        reflect(&shared, self.settings.pool_cap, round, &reason, &failures).await;
                    continue;
                }
                break final_end(
                    last.as_ref(),
                    format!(
                        "{reason}; reflection stopped: its search left the solver the same APIs"
                    ),
                );
            }
            given = Some(pool.clone());
            let attempt = self
                .solve_pool(
                    &runtime,
                    query,
                    &pool,
                    earlier.as_ref().map(|attempt| Earlier {
                        attempt,
                        reasons: &reasons,
                    }),
                )
                .await?;
            let reason;
            match (attempt.run.finish, attempt.run.answer.clone()) {
                (Finish::Answered, Some(answer)) => {
                    let judgement = match judge.check(query, &answer).await {
                        Ok(j) => j,
                        Err(stop) => break budget_end(stop, Some(&attempt.run)),
                    };
                    tracer.emit(TraceEvent::Judged {
                        verdict: judgement.verdict,
                        reason: judgement.reason.clone(),
                    });
                    if judgement.verdict == Verdict::Solved {
                        break End::answered(answer);
                    }
                    reason = format!(
                        "the answer was judged {:?}: {}",
                        judgement.verdict, judgement.reason
                    );
                }
                (Finish::BudgetExhausted, _) => {
                    break budget_end(
                        Stop::limit(
                            Finish::BudgetExhausted,
                            RunLimit::LlmBudget,
                            attempt.run.detail.clone().unwrap_or_default(),
                        ),
                        last.as_ref(),
                    );
                }
                (finish, _) => {
                    reason = format!(
                        "the solver ended ({}): {}",
                        finish.as_str(),
                        attempt.run.detail.clone().unwrap_or_default()
                    );
                }
            }
            failures.record(&attempt.run, &attempt.names);
            last = Some(attempt.run.clone());
            if round >= self.settings.reflection_rounds {
                break final_end(last.as_ref(), reason);
            }
            round += 1;
            reasons.push(reason.clone());
            widened = reflect(&shared, self.settings.pool_cap, round, &reason, &failures).await;
            earlier = Some(attempt);
        };
        let parts = tokens_by_part(&tracer.events());
        tracer.emit(TraceEvent::PartTokens {
            parts: parts.iter().map(|(p, (t, _))| (*p, *t)).collect(),
            calls: parts.iter().map(|(p, (_, c))| (*p, *c)).collect(),
            pool: shared.pool(),
        });
        Ok(finished(&tracer, self.name(), query, end))
    }
}

/// What the meta agent hears of the search stage when the seeded pool was not enough.
fn seeded_note(seed: &Seed) -> String {
    let apis: Vec<String> = seed.apis.iter().map(ToString::to_string).collect();
    format!(
        "A search already put {} APIs in the pool: {}. A check found them not enough: {} \
         Find what is missing.",
        apis.len(),
        apis.join(", "),
        seed.reason
    )
}

fn take_halt(shared: &Shared) -> Option<Stop> {
    shared.halt.lock().ok().and_then(|mut h| h.take())
}

/// The end when the budget ran out: the last answer if there was one, with the limit.
fn budget_end(stop: Stop, last: Option<&Run>) -> End {
    End {
        answer: last.and_then(|r| r.answer.clone()),
        ..End::stopped(stop)
    }
}

/// The end after the last reflection round: the last answer (judged unsolved) or the give-up.
fn final_end(last: Option<&Run>, reason: String) -> End {
    match last.and_then(|r| r.answer.clone()) {
        Some(answer) => End {
            detail: Some(reason),
            ..End::answered(answer)
        },
        None => End::without(last.map_or(Finish::GaveUp, |r| r.finish), reason),
    }
}
