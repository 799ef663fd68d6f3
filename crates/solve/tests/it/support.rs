//! A two-API movie tool, a runtime over scripted parts, and helpers.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_catalog::{ApiId, DocSelector, ImportOptions, Scope, Store, read_bytes};
use toolsmith_exec::JqSandbox;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_exec::{ApiBook, Executor, Provenance, Validated};
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_llm::{ChatModel, Message};
use toolsmith_solve::{
    AgentSettings, ConAgents, ConAgentsSettings, Dfsdt, DfsdtSettings, React, ReactSettings,
    RenderOptions, Runtime, Solver, Toolset, Tracer,
};

pub(crate) const SEARCH: &str = "search_movie_for_movies";
pub(crate) const DETAILS: &str = "get_movie_for_movies";

const SPEC: &str = r#"{"openapi": "3.0.0", "info": {"title": "Movies", "version": "1"},
  "servers": [{"url": "https://movies.example"}],
  "paths": {
    "/search/movie": {"get": {"operationId": "search_movie", "description": "Find movies by title.",
       "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
       "responses": {"200": {"description": "ok"}}}},
    "/movie/{movie_id}": {"get": {"operationId": "get_movie", "description": "A movie's details by id.",
       "parameters": [{"name": "movie_id", "in": "path", "schema": {"type": "integer"}}],
       "responses": {"200": {"description": "ok"}}}}}}"#;

pub(crate) fn search_id() -> ApiId {
    "movies/search_movie".parse().unwrap()
}

pub(crate) fn details_id() -> ApiId {
    "movies/get_movie".parse().unwrap()
}

pub(crate) struct Fixture {
    pub toolset: Toolset,
    pub book: Arc<ApiBook>,
}

pub(crate) fn fixture() -> Fixture {
    let batch = read_bytes(
        Path::new("movies.json"),
        SPEC.as_bytes(),
        &ImportOptions::default(),
    )
    .unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let entries: Vec<_> = catalog.apis().map(|(_, a)| a.clone()).collect();
    Fixture {
        toolset: Toolset::new(&entries, &RenderOptions::default()),
        book: Arc::new(ApiBook::from_catalog(&catalog)),
    }
}

/// A runtime whose executor checks arguments against the book's schemas
/// first, as the command line's does.
pub(crate) fn runtime(
    llm: Arc<dyn ChatModel>,
    executor: Arc<dyn Executor>,
    book: Arc<ApiBook>,
) -> Runtime {
    Runtime {
        llm,
        executor: Arc::new(Validated::new(
            executor,
            Arc::clone(&book),
            Provenance::Live,
        )),
        retriever: None,
        book,
        settings: AgentSettings::default(),
        tracer: Tracer::new(),
        jq: None,
    }
}

pub(crate) fn args(value: Value) -> String {
    value.to_string()
}

pub(crate) fn answer(text: &str) -> String {
    json!({"return_type": "give_answer", "final_answer": text}).to_string()
}

pub(crate) fn give_up(reason: &str) -> String {
    json!({"return_type": "give_up_and_restart", "reason": reason}).to_string()
}

/// The grounding agent's system prompt of a ConAgents run on `query` under `settings` that
/// finishes at once.
pub(crate) async fn grounding_prompt(settings: AgentSettings, query: &str) -> String {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([Reply::text(
        r#"{"action": "finish", "answer": "none"}"#,
    )]));
    let mut rt = runtime(llm.clone(), Arc::new(ScriptedExecutor::new()), fx.book);
    rt.settings = settings;
    let sandbox = Arc::new(JqSandbox::new(env!(
        "CARGO_BIN_EXE_toolsmith-solve-sandbox"
    )));
    ConAgents::new(rt, sandbox, ConAgentsSettings::PAPER)
        .solve(query, fx.toolset)
        .await
        .unwrap();
    match llm.requests()[0].messages.first() {
        Some(Message::System(text)) => text.clone(),
        other => panic!("the grounding agent was opened with {other:?}"),
    }
}

/// The system prompt of the first request a ReAct (or, with `dfsdt`, DFSDT) run on `query`
/// under `settings` sent, the model finishing at once with `final_answer`.
pub(crate) async fn agent_prompt(
    settings: AgentSettings,
    query: &str,
    final_answer: &str,
    dfsdt: bool,
) -> String {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([Reply::tool_call(
        "Finish",
        answer(final_answer),
    )]));
    let mut rt = runtime(llm.clone(), Arc::new(ScriptedExecutor::new()), fx.book);
    rt.settings = settings;
    if dfsdt {
        Dfsdt::new(rt, DfsdtSettings::PAPER)
            .solve(query, fx.toolset)
            .await
            .unwrap();
    } else {
        React::new(rt, ReactSettings::PAPER)
            .solve(query, fx.toolset)
            .await
            .unwrap();
    }
    match llm.requests()[0].messages.first() {
        Some(Message::System(text)) => text.clone(),
        other => panic!("the run opened with {other:?}"),
    }
}
