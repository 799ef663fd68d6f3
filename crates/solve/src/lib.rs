//! Solvers: agents that answer a query by calling tools.
//!
//! - [`Toolset`] is what an agent sees: catalog APIs as function tools, plus
//!   `Finish` and optionally `search_tools`;
//! - [`Runtime`] holds the model, the executor and the tracer every agent
//!   shares, and answers each turn's tool calls concurrently, turning unknown
//!   tools, bad arguments and tool errors into observations;
//! - [`React`] (ToolBench's CoT@n), [`Dfsdt`] (depth-first search over agent
//!   states, width 2) and [`ConAgents`] (grounding, execution and observing
//!   agents with iterative calibration) implement [`Solver`]; so does [`AnyTool`]
//!   (meta, category and tool agents pick APIs from a catalog [`Hierarchy`] into a pool,
//!   DFSDT answers from it, an [`AnswerCheck`] decides whether to reflect and retry);
//! - every [`Run`] ends in a [`Finish`] state with a full trace of
//!   [`TraceEvent`]s, which sinks ([`JsonlSink`], a terminal renderer) receive
//!   as they happen and [`RunStore`] keeps in the SQLite file. Traces are
//!   typed and versioned ([`TRACE_VERSION`]); older ones stay readable
//!   ([`read_jsonl`]).
//!
//! A scripted model and a scripted API stand in for real ones below:
//!
//! ```
//! use std::sync::Arc;
//! use serde_json::json;
//! use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
//! use toolsmith_exec::{ApiBook, testing::ScriptedExecutor};
//! use toolsmith_llm::testing::{Reply, ScriptedLlm};
//! use toolsmith_solve::{AgentSettings, Finish, React, ReactSettings, RenderOptions, Runtime, Solver, Toolset, Tracer};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let spec = br#"{"openapi": "3.0.0", "info": {"title": "Movies", "version": "1"},
//!   "paths": {"/search/movie": {"get": {"operationId": "search_movie", "description": "Find movies by title.",
//!     "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
//!     "responses": {"200": {"description": "ok"}}}}}}"#;
//! let mut store = Store::in_memory()?;
//! store.import(&read_bytes("movies.json".as_ref(), spec, &ImportOptions::default())?, toolsmith_catalog::Activate::IfNoneActive)?;
//! let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
//! let entries: Vec<_> = catalog.apis().map(|(_, api)| api.clone()).collect();
//! let search = "movies/search_movie".parse()?;
//!
//! let llm = ScriptedLlm::new([
//!     Reply::tool_call("search_movie_for_movies", r#"{"query": "Dune"}"#),
//!     Reply::tool_call("Finish", r#"{"return_type": "give_answer", "final_answer": "Dune (2021)"}"#),
//! ]);
//! let api = ScriptedExecutor::new().respond(search, json!({"results": [{"title": "Dune", "year": 2021}]}));
//! let runtime = Runtime {
//!     llm: Arc::new(llm),
//!     executor: Arc::new(api),
//!     retriever: None,
//!     book: Arc::new(ApiBook::from_catalog(&catalog)),
//!     settings: AgentSettings::default(),
//!     tracer: Tracer::new(),
//!     jq: None,
//! };
//! let toolset = Toolset::new(&entries, &RenderOptions::default());
//! let run = React::new(runtime, ReactSettings::PAPER).solve("When did Dune come out?", toolset).await?;
//! assert_eq!(run.finish, Finish::Answered);
//! assert_eq!(run.answer.as_deref(), Some("Dune (2021)"));
//! assert_eq!(run.api_calls().len(), 1);
//! # Ok(()) }
//! ```

pub use crate::agent_role::ConAgentsRole;
pub use crate::anytool::{
    AgentLevel, AgentStatus, AnswerCheck, AnyTool, AnyToolSettings, CategoryBy, Hierarchy,
    JUDGE_ROLE, Judgement, LlmJudge, Part, ReflectionHistory, Relevance, ToolNode, Verdict,
    tokens_by_part,
};
pub use crate::conagents::ConAgents;
pub use crate::dfsdt::Dfsdt;
pub use crate::error::{Error, Result};
pub use crate::finish::Finish;
pub use crate::names::{FINISH, READ_RESULT, SEARCH_TOOLS};
pub use crate::react::React;
pub use crate::refusal::is_refusal;
pub use crate::run::Run;
pub use crate::runtime::{Answered, Asking, Runtime, Stop};
pub use crate::settings::{
    AgentSettings, ConAgentsSettings, DfsdtSettings, ItemRecords, ObservationStyle, Protocol,
    ReactSettings,
};
pub use crate::solver::{MakeSolver, Solver};
pub use crate::store::RunStore;
pub use crate::toolset::{Added, NameClash, RenderOptions, Toolset};
pub use crate::trace::{
    BacktrackReason, CallCounts, CallOutcome, JsonlSink, RunLimit, Stamped, TRACE_VERSION,
    TraceEvent, TraceSink, Tracer, cut, read_jsonl, render,
};

mod agent_role;
mod anytool;
mod call_ids;
mod conagents;
mod dfsdt;
mod error;
mod finish;
mod names;
mod prompts;
mod react;
mod refusal;
mod results;
mod run;
mod runtime;
mod settings;
mod solver;
mod store;
mod toolset;
mod trace;
