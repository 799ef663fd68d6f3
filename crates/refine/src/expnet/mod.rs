//! ToolExpNet (Zhang et al., Findings of ACL 2025), §3: contrastive trial and error on the tool
//! graph, then insight refinement per API.
//!
//! Each iteration has two checkpointed steps in the run's `refine_done` marks:
//! - `t:trial`: sample up to `max_try` edges of each kind by weight ([`sample_edges`]); the LLM
//!   writes labelled requests for each (a similarity edge: requests telling its two APIs apart;
//!   a dependency edge: requests needing both, in order); the actor picks APIs for each from the
//!   whole set; the outcomes go to the edge's experience pool and its weight becomes the error
//!   rate ([`updated_weight`]). Edges are added or removed by the two rules of §3.1.
//! - `t:insight:API`: the LLM reflects on the API's insight, its neighbours' insights and its
//!   edges' experiences and writes a structured insight, stored in the graph and as a catalog doc
//!   version labelled `expnet` (not activated).
//!
//! The trial step is checkpointed per edge: the sampled edges are kept in the run's steps
//! (`t:trial:plan:i:EDGE`), and each edge's experiences and weight are stored in one
//! transaction, so a resumed run tries each planned edge once.
//!
//! The actor ([`ActorMode`], a setting) either selects APIs for a request from their docs in one
//! LLM call (`select`), or solves it with a solver of `toolsmith-solve` (ReAct, say) over the
//! whole tool set, its calls answered by the executor it was built with (the simulator, say),
//! its answer being the APIs it called, in order (`execute`, [`ExpNet::with_solver`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::json;
use toolsmith_catalog::{ApiId, Catalog, Doc, DocTarget, NewDoc, Store};
use toolsmith_graph::{
    Edge, EdgeKey, EdgeKind, Evidence, Experience, GraphStore, sample_edges, updated_weight,
};
use toolsmith_llm::{ChatModel, Prompt, Role};
use toolsmith_plumbing::store::{from_column, to_column};
use toolsmith_solve::{Solver, Toolset};

use crate::ask::{At, ask, first_message};
use crate::error::{Error, Result};
use crate::observer::{NoObserver, RefineObserver};
use crate::prompts::{EXPNET_ACTOR, EXPNET_DEPENDENT, EXPNET_INSIGHT, EXPNET_SIMILAR};
use crate::record::{Method, RunId};
use crate::run::{CHARS_PER_TOKEN, Estimate};
use crate::store::RefineStore;

/// What every step of one run reads and writes: the run, the docs the actor answers from,
/// the APIs the run covers, and the three stores (catalog, tool graph, refine's tables).
#[derive(Clone, Copy)]
struct RunCtx<'a> {
    run: RunId,
    view: &'a Catalog,
    docs: &'a BTreeMap<ApiId, String>,
    selected: &'a BTreeSet<ApiId>,
    catalog: &'a Mutex<Store>,
    graph: &'a GraphStore,
    refine: &'a RefineStore,
}

/// Tokens of a call's instructions and reply beyond the docs it shows (dry-run estimate).
const CALL_OVERHEAD_TOKENS: u64 = 700;
/// Tokens one experience adds to a reflection prompt (dry-run estimate).
const EXPERIENCE_TOKENS: u64 = 60;

/// ToolExpNet's knobs. Every field is a setting; `Default` is the paper's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExpNetSettings {
    /// Iterations of trial and insight refinement.
    pub iterations: u32,
    /// Edges of each kind sampled per iteration at most.
    pub max_try: usize,
    /// Requests the LLM writes per API of a similarity edge (and per dependency edge).
    pub queries_per_tool: usize,
    /// Try similarity edges (off: the `--no-similarity` ablation).
    pub similarity: bool,
    /// Try dependency edges (off: the `--no-dependency` ablation).
    pub dependency: bool,
    /// Run the trial step at all (off: the `--no-trial` ablation; insights from neighbours only).
    pub trial: bool,
    /// Experiences shown to the reflection per API at most (the latest).
    pub max_experiences: usize,
    /// Seed of the edge sampling (iteration t uses seed + t).
    pub seed: u64,
    /// Sampling temperature of every call.
    pub temperature: f32,
    /// How the actor answers the trial's requests.
    pub actor: ActorMode,
}

/// How ToolExpNet's actor answers a trial request (§3.1: "an actor ... tool selection or full
/// execution").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActorMode {
    /// One LLM call picks the APIs from every API's doc.
    #[default]
    Select,
    /// A solver runs the request over the whole tool set; the APIs it called are its answer.
    Execute,
}

impl ExpNetSettings {
    /// ToolExpNet §3 and §4: 3 iterations (performance saturates there, studied 1-5), at
    /// least 5 contrastive requests per tool, temperature 0. The paper gives no `max_try`;
    /// 10 edges per kind is this project's choice (a ToolBench iteration used at most 100
    /// requests: 10 edges x 2 tools x 5 requests).
    pub const PAPER: Self = Self {
        iterations: 3,
        max_try: 10,
        queries_per_tool: 5,
        similarity: true,
        dependency: true,
        trial: true,
        max_experiences: 20,
        seed: 0,
        temperature: 0.0,
        actor: ActorMode::Select,
    };

    /// Refuses values no run can use.
    pub fn validate(&self) -> Result<()> {
        let bad = |field, reason: &str| {
            Err(Error::Setting {
                field,
                reason: reason.to_owned(),
            })
        };
        if self.iterations == 0 {
            return bad("iterations", "must be at least 1");
        }
        if self.max_try == 0 {
            return bad("max_try", "must be at least 1");
        }
        if self.queries_per_tool == 0 {
            return bad("queries_per_tool", "must be at least 1");
        }
        if !(0.0..=2.0).contains(&self.temperature) {
            return bad("temperature", "must be within 0..=2");
        }
        Ok(())
    }
}

impl Default for ExpNetSettings {
    fn default() -> Self {
        Self::PAPER
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExpNetReport {
    /// Steps skipped because an earlier attempt of the run finished them.
    pub already_done: usize,
    /// Edges tried.
    pub edges_tried: usize,
    /// Requests answered by the actor.
    pub trials: usize,
    /// Of those, answered right.
    pub correct: usize,
    /// Similarity edges added on confusion.
    pub added: Vec<EdgeKey>,
    /// Dependency edges removed for showing no dependency.
    pub removed: Vec<EdgeKey>,
    /// Insights written: the API and its new `expnet` doc version.
    pub insights: Vec<(ApiId, u32)>,
}

/// ToolExpNet's loop over a stored graph.
pub struct ExpNet {
    llm: Arc<dyn ChatModel>,
    settings: ExpNetSettings,
    observer: Arc<dyn RefineObserver>,
    solver: Option<(MakeSolver, Toolset)>,
}

pub use toolsmith_solve::MakeSolver;

impl std::fmt::Debug for ExpNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExpNet")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct SimilarQuery {
    query: String,
    tool: String,
}

#[derive(Deserialize)]
struct SimilarReply {
    queries: Vec<SimilarQuery>,
}

#[derive(Deserialize)]
struct DependentQuery {
    query: String,
    tools: Vec<String>,
}

#[derive(Deserialize)]
struct DependentReply {
    queries: Vec<DependentQuery>,
}

#[derive(Deserialize)]
struct ActorReply {
    tools: Vec<String>,
}

#[derive(Deserialize)]
struct InsightReply {
    differences: String,
    dependencies: String,
    #[serde(default)]
    typical_queries: Vec<String>,
    guidance: String,
}

impl InsightReply {
    fn render(&self) -> String {
        let mut out = format!(
            "{}\nVersus similar tools: {}\nDependencies and order: {}",
            self.guidance.trim(),
            self.differences.trim(),
            self.dependencies.trim()
        );
        if !self.typical_queries.is_empty() {
            out.push_str("\nTypical requests:");
            for q in &self.typical_queries {
                out.push_str("\n- ");
                out.push_str(q.trim());
            }
        }
        out
    }
}

/// The APIs of `names` that exist in the view, in order (unknown names dropped).
fn parse_ids(names: &[String], known: &BTreeMap<ApiId, String>) -> Vec<ApiId> {
    names
        .iter()
        .filter_map(|n| n.trim().parse::<ApiId>().ok())
        .filter(|id| known.contains_key(id))
        .collect()
}

fn step_trial(t: u32) -> String {
    format!("{t}:trial")
}

fn step_insight(t: u32, api: &ApiId) -> String {
    format!("{t}:insight:{api}")
}

impl ExpNet {
    /// A loop with `settings` (validated).
    pub fn new(llm: Arc<dyn ChatModel>, settings: ExpNetSettings) -> Result<Self> {
        settings.validate()?;
        Ok(Self {
            llm,
            settings,
            observer: Arc::new(NoObserver),
            solver: None,
        })
    }

    /// The solver (made fresh per request by `make`) and the tool set of the
    /// full-execution actor ([`ActorMode::Execute`]).
    #[must_use]
    pub fn with_solver(
        mut self,
        make: impl Fn() -> Box<dyn Solver> + Send + Sync + 'static,
        toolset: Toolset,
    ) -> Self {
        self.solver = Some((Arc::new(make), toolset));
        self
    }

    /// Reports progress to `observer`: each trial step's edges ([`RefineObserver::trial_started`],
    /// [`RefineObserver::edge_tried`]) and each API's insight step
    /// ([`RefineObserver::api_finished`], `None` when nothing was written).
    #[must_use]
    pub fn with_observer(mut self, observer: Arc<dyn RefineObserver>) -> Self {
        self.observer = observer;
        self
    }

    /// What a run over the `apis` of `graph` costs at most (`refine --dry-run`): per iteration,
    /// one request-writing call per sampled edge, the actor's calls per request (one when it
    /// selects; `actor_steps`, the solver's step limit, when it executes), and one reflection
    /// per API. Tokens are rough: each call shows the docs it needs (every API's for the
    /// actor). Edges the trial adds are not foreseen.
    pub fn estimate(
        &self,
        view: &Catalog,
        graph: &toolsmith_graph::Graph,
        apis: &[ApiId],
        actor_steps: u64,
    ) -> Estimate {
        let selected: BTreeSet<&ApiId> = apis.iter().collect();
        let doc_tokens: BTreeMap<&ApiId, u64> = view
            .apis()
            .map(|(_, a)| (&a.api.id, (a.description().len() / CHARS_PER_TOKEN) as u64))
            .collect();
        let doc = |id: &ApiId| doc_tokens.get(id).copied().unwrap_or(0);
        let s = &self.settings;
        let sampled = |kind: EdgeKind, on: bool| -> Vec<&Edge> {
            let mut edges: Vec<&Edge> = graph
                .edges_of_kind(kind)
                .filter(|e| on && s.trial && selected.contains(&e.from) && selected.contains(&e.to))
                .collect();
            edges.truncate(s.max_try);
            edges
        };
        let sim = sampled(EdgeKind::Similarity, s.similarity);
        let dep = sampled(EdgeKind::Dependency, s.dependency);
        let q = s.queries_per_tool as u64;
        let requests = sim.len() as u64 * 2 * q + dep.len() as u64 * q;
        let write_tokens: u64 = sim
            .iter()
            .chain(&dep)
            .map(|e| doc(&e.from) + doc(&e.to) + CALL_OVERHEAD_TOKENS)
            .sum();
        let (actor_calls, tool_calls, actor_prompt) = match (s.actor, &self.solver) {
            (ActorMode::Execute, Some((_, toolset))) => {
                let specs = serde_json::to_string(&toolset.specs()).map_or(0, |t| t.len());
                let steps = actor_steps.max(1);
                (
                    requests * steps,
                    requests * steps,
                    (specs / CHARS_PER_TOKEN) as u64,
                )
            }
            _ => (requests, 0, doc_tokens.values().sum()),
        };
        let nodes: Vec<&ApiId> = graph
            .nodes
            .iter()
            .map(|n| &n.api)
            .filter(|a| selected.contains(a))
            .collect();
        let insight_tokens: u64 = nodes
            .iter()
            .map(|a| {
                let neighbours: u64 = graph
                    .edges_of(a)
                    .map(|e| doc(if &e.from == *a { &e.to } else { &e.from }))
                    .sum();
                doc(a)
                    + neighbours
                    + s.max_experiences as u64 * EXPERIENCE_TOKENS
                    + CALL_OVERHEAD_TOKENS
            })
            .sum();
        let t = u64::from(s.iterations);
        let requests = t * ((sim.len() + dep.len()) as u64 + actor_calls + nodes.len() as u64);
        // Each request may take its repairs too: the bound counts them.
        let replies = crate::ask::max_replies_per_request();
        Estimate {
            llm_calls: requests * replies,
            requests,
            tokens: replies
                * t
                * (write_tokens
                    + actor_calls * (actor_prompt + CALL_OVERHEAD_TOKENS)
                    + insight_tokens),
            tool_calls: t * tool_calls,
        }
    }

    /// Runs every iteration of `run` over the graph in `graph`, reading docs from `view` and
    /// writing `expnet` doc versions into `catalog`. Steps `refine` marks done are skipped.
    ///
    /// The run's APIs (its spec's `apis`, `refine --apis`) bound the work: only edges with
    /// both ends among them are tried and only their insights are written; the actor still
    /// answers from every API of `view`, and neighbours outside the run still inform insights.
    pub async fn run(
        &self,
        run: RunId,
        view: &Catalog,
        catalog: &Mutex<Store>,
        graph: &GraphStore,
        refine: &RefineStore,
    ) -> Result<ExpNetReport> {
        let docs: BTreeMap<ApiId, String> = view
            .apis()
            .map(|(_, a)| (a.api.id.clone(), a.description().to_owned()))
            .collect();
        if self.settings.actor == ActorMode::Execute && self.solver.is_none() {
            return Err(Error::Setting {
                field: "actor",
                reason: "`execute` needs a solver (ExpNet::with_solver)".to_owned(),
            });
        }
        let selected: BTreeSet<ApiId> = refine.run(run)?.spec.apis.into_iter().collect();
        let ctx = RunCtx {
            run,
            view,
            docs: &docs,
            selected: &selected,
            catalog,
            graph,
            refine,
        };
        let mut report = ExpNetReport::default();
        for t in 1..=self.settings.iterations {
            if refine.step_done(run, &step_trial(t))? {
                report.already_done += 1;
            } else {
                if self.settings.trial {
                    self.trial(t, &ctx, &mut report).await?;
                }
                refine.finish_step(run, &step_trial(t))?;
            }
            self.refine_insights(t, &ctx, &mut report).await?;
        }
        Ok(report)
    }

    async fn ask<T: for<'de> Deserialize<'de>>(
        &self,
        role: &str,
        prompt: &Prompt,
        ctx: &serde_json::Value,
        api: &ApiId,
        t: u32,
        what: &'static str,
    ) -> Result<Option<T>> {
        let at = At {
            api,
            round: t,
            what,
        };
        let reply = ask::<T>(
            self.llm.as_ref(),
            role,
            prompt,
            vec![first_message(prompt, ctx)?],
            self.settings.temperature,
            at,
        )
        .await?;
        Ok(match reply {
            Ok(v) => Some(v.value),
            Err(reason) => {
                tracing::warn!(%api, %reason, "expnet: unusable reply");
                None
            }
        })
    }

    /// The labelled requests of one edge.
    async fn queries(
        &self,
        t: u32,
        edge: &Edge,
        docs: &BTreeMap<ApiId, String>,
    ) -> Result<Vec<(String, Vec<ApiId>)>> {
        let doc = |id: &ApiId| docs.get(id).cloned().unwrap_or_default();
        let n = self.settings.queries_per_tool;
        match edge.kind {
            EdgeKind::Similarity => {
                let ctx = json!({"a": edge.from.to_string(), "a_doc": doc(&edge.from),
                    "b": edge.to.to_string(), "b_doc": doc(&edge.to), "count": n});
                let reply: Option<SimilarReply> = self
                    .ask(
                        Role::EXPLORER,
                        &EXPNET_SIMILAR,
                        &ctx,
                        &edge.from,
                        t,
                        "contrastive requests",
                    )
                    .await?;
                // A label must be one of the edge's two APIs.
                Ok(reply
                    .map(|r| r.queries)
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|q| {
                        let id = q.tool.trim().parse::<ApiId>().ok()?;
                        (id == edge.from || id == edge.to).then(|| (q.query, vec![id]))
                    })
                    .collect())
            }
            EdgeKind::Dependency => {
                let ctx = json!({"from": edge.from.to_string(), "from_doc": doc(&edge.from),
                    "to": edge.to.to_string(), "to_doc": doc(&edge.to),
                    "params": edge.params().collect::<Vec<_>>(), "count": n});
                let reply: Option<DependentReply> = self
                    .ask(
                        Role::EXPLORER,
                        &EXPNET_DEPENDENT,
                        &ctx,
                        &edge.from,
                        t,
                        "dependent requests",
                    )
                    .await?;
                // A gold sequence is both APIs in order, or one of them alone.
                let both = vec![edge.from.clone(), edge.to.clone()];
                Ok(reply
                    .map(|r| r.queries)
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|q| {
                        let label = parse_ids(&q.tools, docs);
                        let alone =
                            q.tools.len() == 1 && label.len() == 1 && both.contains(&label[0]);
                        let ok = label == both || alone;
                        ok.then_some((q.query, label))
                    })
                    .collect())
            }
        }
    }

    /// The actor's answer to one request, from every API of the view, and its trace.
    async fn act(
        &self,
        t: u32,
        query: &str,
        at: &ApiId,
        docs: &BTreeMap<ApiId, String>,
    ) -> Result<(Vec<ApiId>, serde_json::Value)> {
        if let (ActorMode::Execute, Some((make, toolset))) = (self.settings.actor, &self.solver) {
            let run = make()
                .solve(query, toolset.clone())
                .await
                .map_err(|source| Error::Solve {
                    query: query.to_owned(),
                    source: Box::new(source),
                })?;
            // The APIs called, each once, in the order first called.
            let mut called: Vec<ApiId> = Vec::new();
            for api in run.api_calls() {
                if !called.contains(&api) {
                    called.push(api);
                }
            }
            let trace = json!({"mode": "execution", "solver": run.solver,
                "finish": run.finish, "calls": run.api_calls(), "answer": run.answer});
            return Ok((called, trace));
        }
        let tools: Vec<_> = docs
            .iter()
            .map(|(id, d)| json!({"id": id.to_string(), "description": d}))
            .collect();
        let ctx = json!({"tools": tools, "query": query});
        let reply: Option<ActorReply> = self
            .ask(Role::AGENT, &EXPNET_ACTOR, &ctx, at, t, "actor")
            .await?;
        let answer = reply.map(|r| parse_ids(&r.tools, docs)).unwrap_or_default();
        Ok((answer, json!({"mode": "selection"})))
    }

    /// The edges iteration `t` tries: sampled once and kept in the run's steps
    /// (`t:trial:plan:i:EDGE`), so a resumed step tries the same edges with the weights they
    /// had when sampled. Only edges between `selected` APIs are sampled.
    fn plan(
        &self,
        t: u32,
        run: RunId,
        selected: &BTreeSet<ApiId>,
        graph: &GraphStore,
        refine: &RefineStore,
    ) -> Result<Vec<Edge>> {
        let prefix = format!("{t}:trial:plan:");
        if refine.step_done(run, &format!("{t}:trial:planned"))? {
            let mut planned: Vec<(usize, Edge)> = Vec::new();
            for step in refine.steps(run, &prefix)? {
                let rest = step.strip_prefix(&prefix).unwrap_or_default();
                let (i, edge) = rest.split_once(':').unwrap_or(("", rest));
                let i: usize = from_column("trial plan step", i)?;
                let edge: Edge = from_column("trial plan step", edge)?;
                planned.push((i, edge));
            }
            planned.sort_by_key(|(i, _)| *i);
            return Ok(planned.into_iter().map(|(_, e)| e).collect());
        }
        let edges: Vec<Edge> = graph
            .load()?
            .edges
            .into_iter()
            .filter(|e| selected.contains(&e.from) && selected.contains(&e.to))
            .collect();
        let mut sampled: Vec<Edge> = Vec::new();
        let seed = self.settings.seed.wrapping_add(u64::from(t));
        for (kind, on) in [
            (EdgeKind::Similarity, self.settings.similarity),
            (EdgeKind::Dependency, self.settings.dependency),
        ] {
            if on {
                sampled.extend(
                    sample_edges(&edges, kind, self.settings.max_try, seed)
                        .into_iter()
                        .cloned(),
                );
            }
        }
        for (i, edge) in sampled.iter().enumerate() {
            let json = to_column("trial plan edge", edge)?;
            refine.finish_step(run, &format!("{prefix}{i}:{json}"))?;
        }
        refine.finish_step(run, &format!("{t}:trial:planned"))?;
        Ok(sampled)
    }

    /// One iteration's trial step, checkpointed per edge: each edge's experiences and its
    /// new weight (or removal) are stored in one transaction, and an edge whose trial is
    /// stored is not tried again on resume.
    async fn trial(&self, t: u32, ctx: &RunCtx<'_>, report: &mut ExpNetReport) -> Result<()> {
        let RunCtx {
            run,
            docs,
            selected,
            graph,
            refine,
            ..
        } = *ctx;
        let plan = self.plan(t, run, selected, graph, refine)?;
        self.observer.trial_started(t, plan.len());
        for edge in &plan {
            let key = EdgeKey::of(edge);
            if graph.trial_recorded(&key, t)? {
                report.already_done += 1;
                self.observer.edge_tried(&key, None);
                continue;
            }
            let queries = self.queries(t, edge, docs).await?;
            let mut experiences = Vec::with_capacity(queries.len());
            let mut correct = 0;
            let mut single_only = true;
            for (query, label) in &queries {
                let (answer, trace) = self.act(t, query, &edge.from, docs).await?;
                let right = judge(label, &answer, edge);
                correct += usize::from(right);
                single_only &= label.len() == 1;
                experiences.push(Experience {
                    iteration: t,
                    query: query.clone(),
                    label: label.clone(),
                    answer,
                    correct: right,
                    trace,
                });
            }
            report.edges_tried += 1;
            report.trials += queries.len();
            report.correct += correct;
            // Rule 2 (§3.1: an E_d edge showing no real dependency is removed): every request
            // of this dependency edge needed one of its APIs alone, and the actor got each right.
            let remove = edge.kind == EdgeKind::Dependency
                && !queries.is_empty()
                && single_only
                && correct == queries.len();
            let weight = (!remove).then(|| updated_weight(edge.weight, correct, queries.len()));
            graph.record_trial(&key, &experiences, weight)?;
            if remove {
                report.removed.push(key.clone());
            }
            self.observer
                .edge_tried(&key, Some((correct, queries.len())));
        }
        // Rule 1 (§3.1: confusing two unlinked tools adds an E_s edge): the actor chose one API
        // where another was right, and no edge joins the two. An API called before one it
        // feeds (a dependency edge) was a prerequisite, not a confusion: searching the movie
        // before asking for its credits. Read from the stored experiences of this iteration,
        // so edges tried before a resume count too.
        let g = graph.load()?;
        let feeds: BTreeSet<(&ApiId, &ApiId)> = g
            .edges_of_kind(EdgeKind::Dependency)
            .map(|e| (&e.from, &e.to))
            .collect();
        let linked: BTreeSet<(ApiId, ApiId)> =
            g.edges.iter().map(|e| ordered(&e.from, &e.to)).collect();
        let planned: BTreeSet<EdgeKey> = plan.iter().map(EdgeKey::of).collect();
        let mut confused: BTreeSet<(ApiId, ApiId)> = BTreeSet::new();
        let ends: BTreeSet<&ApiId> = plan.iter().map(|e| &e.from).collect();
        for api in ends {
            for (key, e) in graph.experiences_of(api)? {
                if e.iteration != t || !planned.contains(&key) {
                    continue;
                }
                let prerequisite = |i: usize, y: &ApiId| {
                    e.answer.iter().skip(i + 1).any(|z| feeds.contains(&(y, z)))
                };
                for x in e.label.iter().filter(|x| !e.answer.contains(x)) {
                    for (i, y) in e.answer.iter().enumerate() {
                        if !e.label.contains(y) && !prerequisite(i, y) {
                            confused.insert(ordered(x, y));
                        }
                    }
                }
            }
        }
        for (a, b) in confused {
            if linked.contains(&(a.clone(), b.clone())) {
                continue;
            }
            let edge = Edge {
                kind: EdgeKind::Similarity,
                from: a,
                to: b,
                weight: 1.0,
                strength: 0.0,
                evidence: Evidence::Similarity { cosine: 0.0 },
            };
            graph.upsert_edge(&edge)?;
            report.added.push(EdgeKey::of(&edge));
        }
        Ok(())
    }

    async fn refine_insights(
        &self,
        t: u32,
        ctx: &RunCtx<'_>,
        report: &mut ExpNetReport,
    ) -> Result<()> {
        let RunCtx {
            run,
            view,
            catalog,
            graph,
            refine,
            selected,
            ..
        } = *ctx;
        let g = graph.load()?;
        for node in g.nodes.iter().filter(|n| selected.contains(&n.api)) {
            let api = &node.api;
            let step = step_insight(t, api);
            if refine.step_done(run, &step)? {
                report.already_done += 1;
                self.observer.api_finished(api, None);
                continue;
            }
            let mut experiences: Vec<Experience> = graph
                .experiences_of(api)?
                .into_iter()
                .map(|(_, e)| e)
                .collect();
            let neighbours: Vec<_> = g
                .edges_of(api)
                .filter_map(|e| {
                    let (other, relation) = match (e.kind, &e.from == api) {
                        (EdgeKind::Similarity, true) => (&e.to, "similar"),
                        (EdgeKind::Similarity, false) => (&e.from, "similar"),
                        (EdgeKind::Dependency, true) => (&e.to, "fed by it"),
                        (EdgeKind::Dependency, false) => (&e.from, "feeds it"),
                    };
                    let insight = g.node(other)?.insight.clone();
                    Some(
                        json!({"api": other.to_string(), "relation": relation, "insight": insight}),
                    )
                })
                .collect();
            // Nothing to learn from: an isolated API without experiences keeps its insight.
            if neighbours.is_empty() && experiences.is_empty() {
                refine.finish_step(run, &step)?;
                self.observer.api_finished(api, None);
                continue;
            }
            let skip = experiences
                .len()
                .saturating_sub(self.settings.max_experiences);
            experiences.drain(..skip);
            let shown: Vec<_> = experiences
                .iter()
                .map(|e| {
                    json!({"query": e.query,
                        "label": e.label.iter().map(ToString::to_string).collect::<Vec<_>>(),
                        "answer": e.answer.iter().map(ToString::to_string).collect::<Vec<_>>(),
                        "correct": e.correct})
                })
                .collect();
            let ctx = json!({"api": api.to_string(), "insight": node.insight,
                "neighbours": neighbours, "experiences": shown});
            let reply: Option<InsightReply> = self
                .ask(Role::REWRITER, &EXPNET_INSIGHT, &ctx, api, t, "insight")
                .await?;
            let mut written = None;
            if let Some(reply) = reply {
                let text = reply.render();
                graph.set_insight(api, &text)?;
                let mut doc = view
                    .apis()
                    .find(|(_, a)| &a.api.id == api)
                    .and_then(|(_, a)| a.doc.as_ref().map(|d| d.doc.clone()))
                    .unwrap_or_else(|| Doc::text(String::new()));
                doc.description = text;
                let new = NewDoc {
                    label: Method::ExpNet.label(),
                    source: format!("refine run {run} (expnet, iteration {t})"),
                    doc,
                };
                let version = {
                    let mut store = toolsmith_plumbing::sqlite::lock(catalog);
                    store
                        .add_doc(
                            &DocTarget::Api(api.clone()),
                            new,
                            toolsmith_catalog::Activate::IfNoneActive,
                        )?
                        .version
                };
                report.insights.push((api.clone(), version));
                written = Some(version);
            }
            refine.finish_step(run, &step)?;
            self.observer.api_finished(api, written);
        }
        Ok(())
    }
}

/// Whether `answer` (the APIs the actor chose or called, in order) gets a request of `edge`
/// labelled `label` right: the labelled APIs come in the label's order (other APIs may come
/// between or before, as the search that finds an id the labelled API needs), and no API of
/// the edge outside the label was used (the contrast the request tests). Exact equality
/// would count every executed request whose API needs an id as wrong.
fn judge(label: &[ApiId], answer: &[ApiId], edge: &Edge) -> bool {
    let mut rest = answer.iter();
    let in_order = label.iter().all(|l| rest.any(|a| a == l));
    let contrast = [&edge.from, &edge.to]
        .into_iter()
        .any(|x| !label.contains(x) && answer.contains(x));
    !label.is_empty() && in_order && !contrast
}

/// A pair in id order (similarity edges join the smaller id to the larger).
fn ordered(a: &ApiId, b: &ApiId) -> (ApiId, ApiId) {
    if a <= b {
        (a.clone(), b.clone())
    } else {
        (b.clone(), a.clone())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn id(s: &str) -> ApiId {
        format!("films/{s}").parse().unwrap()
    }

    fn edge(kind: EdgeKind, from: &str, to: &str) -> Edge {
        Edge {
            kind,
            from: id(from),
            to: id(to),
            weight: 1.0,
            strength: 1.0,
            evidence: Evidence::Similarity { cosine: 0.9 },
        }
    }

    #[test]
    fn a_prerequisite_call_is_no_error_but_the_contrasted_api_is() {
        let sim = edge(EdgeKind::Similarity, "movie_credits", "person_credits");
        let label = [id("movie_credits")];
        let with_search = [id("search_movie"), id("movie_credits")];
        assert!(
            judge(&label, &with_search, &sim),
            "the id search before is fine"
        );
        assert!(judge(&label, &label, &sim));
        let both = [id("movie_credits"), id("person_credits")];
        assert!(
            !judge(&label, &both, &sim),
            "the other API of the edge was used"
        );
        assert!(!judge(&label, &[id("person_credits")], &sim));
        assert!(!judge(&label, &[], &sim));

        let dep = edge(EdgeKind::Dependency, "discover", "details");
        let gold = [id("discover"), id("details")];
        let more = [id("genres"), id("discover"), id("details")];
        assert!(judge(&gold, &more, &dep));
        assert!(
            !judge(&gold, &[id("details"), id("discover")], &dep),
            "order"
        );
        assert!(!judge(&gold, &[id("genres"), id("discover")], &dep));
        // A request needing `details` alone, answered by also calling its producer: the
        // dependency showed, so it does not count toward removing the edge.
        assert!(!judge(&[id("details")], &gold, &dep));
        assert!(judge(&[id("details")], &[id("details")], &dep));
    }
}
