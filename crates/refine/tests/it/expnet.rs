//! ToolExpNet: weights from the actor's accuracy, edges added and removed by the two rules,
//! insights written to the graph and the catalog, a resumed run redoing nothing.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolsmith_catalog::{ApiId, DocLabel, DocSelector, ImportOptions, Scope, Store, read_bytes};
use toolsmith_graph::{BuildInfo, Edge, EdgeKind, Evidence, Feed, Graph, GraphStore, Node, Rule};
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};
use toolsmith_refine::{ExpNet, ExpNetSettings, Method, RefineStore, RunId, RunSpec};

const SPEC: &[u8] = br#"{"openapi": "3.0.0", "info": {"title": "Films", "version": "1"},
  "paths": {
    "/search/movie": {"get": {"summary": "Search movies by title",
      "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
      "responses": {"200": {"description": "ok"}}}},
    "/search/tv": {"get": {"summary": "Search TV shows by title",
      "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
      "responses": {"200": {"description": "ok"}}}},
    "/movie/{movie_id}": {"get": {"summary": "Movie details",
      "parameters": [{"name": "movie_id", "in": "path", "required": true, "schema": {"type": "integer"}}],
      "responses": {"200": {"description": "ok"}}}}
  }}"#;

fn movie() -> ApiId {
    "films/get_search_movie".parse().unwrap()
}
fn tv() -> ApiId {
    "films/get_search_tv".parse().unwrap()
}
fn details() -> ApiId {
    "films/get_movie_movie_id".parse().unwrap()
}

fn store() -> Store {
    let mut store = Store::in_memory().unwrap();
    let batch = read_bytes("films.json".as_ref(), SPEC, &ImportOptions::default()).unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    store
}

/// Three nodes, one dependency edge movie search -> details.
fn graph() -> GraphStore {
    let mut g = GraphStore::in_memory().unwrap();
    let node = |api: ApiId| Node {
        insight: format!("doc of {api}"),
        api,
        lookup: Vec::new(),
    };
    let graph = Graph {
        nodes: vec![node(movie()), node(tv()), node(details())],
        edges: vec![Edge {
            kind: EdgeKind::Dependency,
            from: movie(),
            to: details(),
            weight: 1.0,
            strength: 1.0,
            evidence: Evidence::Dependency {
                feeds: vec![Feed {
                    field: "id".into(),
                    param: "movie_id".into(),
                    rule: Rule::SameName,
                }],
            },
        }],
    };
    g.replace(
        &graph,
        &BuildInfo {
            phi: None,
            embedder: None,
            docs: "original".into(),
            built_at_ms: 0,
        },
    )
    .unwrap();
    g
}

fn insight_rule(llm: ScriptedLlm) -> ScriptedLlm {
    llm.with_rule(
        When::last_message_contains("You maintain the usage notes"),
        Reply::text(
            json!({"differences": "movies, not TV", "dependencies": "its id feeds details",
                "typical_queries": ["find Dune"], "guidance": "Use for films by title."})
            .to_string(),
        ),
    )
}

fn actor(llm: ScriptedLlm, query: &str, tools: &[ApiId]) -> ScriptedLlm {
    let tools: Vec<String> = tools.iter().map(ToString::to_string).collect();
    llm.with_rule(
        When::last_message_contains(format!("User request: {query}")),
        Reply::text(json!({ "tools": tools }).to_string()),
    )
}

fn dependent(llm: ScriptedLlm, queries: serde_json::Value) -> ScriptedLlm {
    llm.with_rule(
        When::last_message_contains("may supply"),
        Reply::text(json!({ "queries": queries }).to_string()),
    )
}

fn one_iteration() -> ExpNetSettings {
    ExpNetSettings {
        iterations: 1,
        ..ExpNetSettings::PAPER
    }
}

fn new_run(refine: &RefineStore) -> RunId {
    refine
        .create_run(&RunSpec {
            method: Method::ExpNet,
            apis: vec![movie(), tv(), details()],
            settings: json!({}),
            mode: toolsmith_exec::Mode::Simulate,
            from_label: "original".parse().unwrap(),
            writer: None,
        })
        .unwrap()
}

fn both() -> Vec<String> {
    vec![movie().to_string(), details().to_string()]
}

#[tokio::test]
async fn weight_is_the_error_rate_and_confusing_unlinked_apis_adds_a_similarity_edge() {
    let store = store();
    let view = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let graph = graph();
    let llm = dependent(
        ScriptedLlm::new([]),
        json!([{"query": "details of Dune", "tools": both()},
               {"query": "cast of Alien", "tools": both()}]),
    );
    let llm = actor(llm, "details of Dune", &[movie(), details()]);
    let llm = insight_rule(actor(llm, "cast of Alien", &[tv(), details()]));
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine);
    let expnet = ExpNet::new(Arc::new(llm), one_iteration()).unwrap();
    let catalog = Mutex::new(store);
    let report = expnet
        .run(run, &view, &catalog, &graph, &refine)
        .await
        .unwrap();

    assert_eq!(
        (report.edges_tried, report.trials, report.correct),
        (1, 2, 1)
    );
    let g = graph.load().unwrap();
    let dep = g.edges_of_kind(EdgeKind::Dependency).next().unwrap();
    assert!((dep.weight - 0.5).abs() < 1e-6, "weight {}", dep.weight);
    let sim: Vec<_> = g.edges_of_kind(EdgeKind::Similarity).collect();
    assert_eq!(sim.len(), 1, "the movie/tv confusion adds an edge");
    assert_eq!((&sim[0].from, &sim[0].to), (&movie(), &tv()));
    assert_eq!(report.added.len(), 1);
    let pool = graph.experiences_of(&details()).unwrap();
    assert_eq!(pool.len(), 2);
    assert!(
        pool.iter()
            .any(|(_, e)| !e.correct && e.answer == [tv(), details()])
    );
}

#[tokio::test]
async fn a_dependency_edge_answered_right_with_one_api_is_removed() {
    let store = store();
    let view = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let graph = graph();
    let llm = dependent(
        ScriptedLlm::new([]),
        json!([{"query": "details of movie 42", "tools": [details().to_string()]},
               {"query": "details of movie 7", "tools": [details().to_string()]}]),
    );
    let llm = actor(llm, "details of movie 42", &[details()]);
    let llm = insight_rule(actor(llm, "details of movie 7", &[details()]));
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine);
    let expnet = ExpNet::new(Arc::new(llm), one_iteration()).unwrap();
    let report = expnet
        .run(run, &view, &Mutex::new(store), &graph, &refine)
        .await
        .unwrap();
    assert_eq!(report.removed.len(), 1);
    assert!(graph.load().unwrap().edges.is_empty());
    assert!(report.added.is_empty());
}

#[tokio::test]
async fn insights_go_to_the_graph_and_to_inactive_expnet_doc_versions_and_a_resumed_run_redoes_nothing()
 {
    let store = store();
    let view = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let graph = graph();
    let llm = dependent(
        ScriptedLlm::new([]),
        json!([{"query": "details of Dune", "tools": both()}]),
    );
    let llm = insight_rule(actor(llm, "details of Dune", &[movie(), details()]));
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine);
    let scripted = llm.clone();
    let expnet = ExpNet::new(Arc::new(llm), one_iteration()).unwrap();
    let catalog = Mutex::new(store);
    let report = expnet
        .run(run, &view, &catalog, &graph, &refine)
        .await
        .unwrap();
    // Two APIs have an edge: movie search and details; TV search is isolated and unchanged.
    let written: Vec<_> = report.insights.iter().map(|(a, _)| a.clone()).collect();
    assert_eq!(written.len(), 2, "{written:?}");
    assert!(written.contains(&movie()) && written.contains(&details()));
    let g = graph.load().unwrap();
    assert!(
        g.node(&movie())
            .unwrap()
            .insight
            .starts_with("Use for films by title.")
    );
    assert_eq!(g.node(&tv()).unwrap().insight, format!("doc of {}", tv()));
    let store = catalog.into_inner().unwrap();
    let label: DocLabel = "expnet".parse().unwrap();
    let expnet_view = store
        .catalog(&DocSelector::Label(label), &Scope::default())
        .unwrap();
    let doc = expnet_view
        .apis()
        .find(|(_, a)| a.api.id == movie())
        .and_then(|(_, a)| a.doc.clone())
        .unwrap();
    assert!(
        doc.doc
            .description
            .contains("Versus similar tools: movies, not TV")
    );
    let active = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let active_doc = active
        .apis()
        .find(|(_, a)| a.api.id == movie())
        .and_then(|(_, a)| a.doc.clone())
        .unwrap();
    assert!(
        !active_doc.doc.description.contains("Versus"),
        "not activated"
    );

    // The same run again: every step is marked done, so no LLM call is made.
    let calls = scripted.requests().len();
    let again = ExpNet::new(Arc::new(ScriptedLlm::new([])), one_iteration()).unwrap();
    let report = again
        .run(run, &view, &Mutex::new(store), &graph, &refine)
        .await
        .unwrap();
    assert_eq!(
        report.already_done,
        1 + 3,
        "the trial step and three insight steps"
    );
    assert_eq!(report.trials, 0);
    assert!(report.insights.is_empty());
    assert_eq!(calls, 1 + 1 + 2);
}

/// Two dependency edges into `details`: from the movie search and from the TV search.
fn two_edge_graph() -> GraphStore {
    let graph = graph();
    graph
        .upsert_edge(&Edge {
            kind: EdgeKind::Dependency,
            from: tv(),
            to: details(),
            weight: 1.0,
            strength: 1.0,
            evidence: Evidence::Dependency {
                feeds: vec![Feed {
                    field: "id".into(),
                    param: "movie_id".into(),
                    rule: Rule::SameName,
                }],
            },
        })
        .unwrap();
    graph
}

/// Answers the dependent-request prompt of either edge (`times` times at most) and the actor.
fn two_edge_llm(times: usize) -> ScriptedLlm {
    let queries = json!([
        {"query": "Q-movie", "tools": both()},
        {"query": "Q-tv", "tools": [tv().to_string(), details().to_string()]}
    ]);
    let llm = ScriptedLlm::new([]).with_rule_times(
        When::last_message_contains("may supply"),
        Reply::text(json!({ "queries": queries }).to_string()),
        times,
    );
    let llm = actor(llm, "Q-movie", &[movie(), details()]);
    insight_rule(actor(llm, "Q-tv", &[details()]))
}

#[tokio::test]
async fn a_trial_step_killed_after_one_edge_resumes_without_trying_it_again() {
    let store = store();
    let view = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let graph = two_edge_graph();
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine);
    let settings = ExpNetSettings {
        similarity: false,
        ..one_iteration()
    };
    let catalog = Mutex::new(store);
    // The model answers one edge's request prompt, then fails: the run stops mid-step.
    let first = ExpNet::new(Arc::new(two_edge_llm(1)), settings.clone()).unwrap();
    let killed = first.run(run, &view, &catalog, &graph, &refine).await;
    assert!(killed.is_err(), "the second edge's prompt fails");
    let count = |api: &ApiId| {
        graph
            .experiences_of(api)
            .unwrap()
            .into_iter()
            .filter(|(k, e)| &k.from == api && e.iteration == 1)
            .count()
    };
    assert_eq!(
        count(&movie()) + count(&tv()),
        1,
        "one edge stored before the stop"
    );

    // Resumed: the stored edge is skipped, the other one is tried, each has one experience.
    let scripted = two_edge_llm(10);
    let resumed = ExpNet::new(Arc::new(scripted.clone()), settings).unwrap();
    let report = resumed
        .run(run, &view, &catalog, &graph, &refine)
        .await
        .unwrap();
    assert_eq!(report.edges_tried, 1, "only the edge not stored is tried");
    assert_eq!(count(&movie()), 1);
    assert_eq!(count(&tv()), 1);
    let prompts = scripted
        .requests()
        .iter()
        .filter(|r| r.last_message().contains("may supply"))
        .count();
    assert_eq!(prompts, 1, "one request prompt on resume");
    // The edge stored before the stop kept the weight it got then.
    let g = graph.load().unwrap();
    assert_eq!(g.edges_of_kind(EdgeKind::Dependency).count(), 2);
    // The movie edge was answered right (weight 0), the TV one wrong (weight 1).
    let weight = |from: &ApiId| {
        g.edges_of_kind(EdgeKind::Dependency)
            .find(|e| &e.from == from)
            .map(|e| e.weight)
            .unwrap()
    };
    assert!(weight(&movie()).abs() < 1e-6);
    assert!((weight(&tv()) - 1.0).abs() < 1e-6);
}

/// The full-execution actor: ReAct over the whole tool set (a scripted agent, a scripted
/// executor) answers each request; the APIs it called, in order, are its answer, scored as the
/// selection actor's would be, and the experience's trace says it executed.
#[tokio::test]
async fn the_execute_actor_answers_with_the_apis_its_solver_called() {
    use toolsmith_exec::ApiBook;
    use toolsmith_exec::testing::ScriptedExecutor;
    use toolsmith_refine::ActorMode;
    use toolsmith_solve::{
        AgentSettings, React, ReactSettings, RenderOptions, Runtime, Toolset, Tracer,
    };

    let (store, spare) = (store(), store());
    let view = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let graph = graph();
    // The refine LLM writes the requests and the insights; it has no actor rule, so a
    // selection actor would get no usable answer.
    let llm = insight_rule(dependent(
        ScriptedLlm::new([]),
        json!([{"query": "details of Dune", "tools": both()},
               {"query": "cast of Alien", "tools": both()}]),
    ));
    let entries: Vec<_> = view.apis().map(|(_, a)| a.clone()).collect();
    let toolset = Toolset::new(&entries, &RenderOptions::default());
    let name = |api: ApiId| toolset.spec(&api).unwrap().name.clone();
    let finish = Reply::tool_call(
        "Finish",
        r#"{"return_type": "give_answer", "final_answer": "done"}"#,
    );
    // Dune: search movies twice, then details (called APIs count once each); Alien: the TV
    // search, then details (the wrong search).
    let agent = ScriptedLlm::new([
        Reply::tool_call(name(movie()), r#"{"query": "Dune"}"#),
        Reply::tool_call(name(movie()), r#"{"query": "Dune 2021"}"#),
        Reply::tool_call(name(details()), r#"{"movie_id": 1}"#),
        finish.clone(),
        Reply::tool_call(name(tv()), r#"{"query": "Alien"}"#),
        Reply::tool_call(name(details()), r#"{"movie_id": 2}"#),
        finish,
    ]);
    let executor = ScriptedExecutor::new()
        .respond(movie(), json!({"results": [{"id": 1}]}))
        .respond(tv(), json!({"results": [{"id": 2}]}))
        .respond(details(), json!({"title": "a film"}));
    let runtime = Runtime {
        llm: Arc::new(agent),
        executor: Arc::new(executor),
        retriever: None,
        book: Arc::new(ApiBook::from_catalog(&view)),
        settings: AgentSettings::default(),
        tracer: Tracer::new(),
        jq: None,
    };
    let settings = ExpNetSettings {
        actor: ActorMode::Execute,
        ..one_iteration()
    };
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine);
    // Without a solver the execute actor is refused up front.
    let bare = ExpNet::new(Arc::new(ScriptedLlm::new([])), settings.clone()).unwrap();
    let err = bare
        .run(run, &view, &Mutex::new(spare), &graph, &refine)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("actor"), "{err}");

    let expnet = ExpNet::new(Arc::new(llm), settings).unwrap().with_solver(
        move || {
            // A fresh tracer per request, as a fresh solver would have.
            let runtime = Runtime {
                tracer: Tracer::new(),
                jq: None,
                ..runtime.clone()
            };
            Box::new(React::new(runtime, ReactSettings::PAPER))
        },
        toolset.clone(),
    );
    let report = expnet
        .run(run, &view, &Mutex::new(store), &graph, &refine)
        .await
        .unwrap();
    assert_eq!(
        (report.edges_tried, report.trials, report.correct),
        (1, 2, 1)
    );
    let pool = graph.experiences_of(&details()).unwrap();
    let dune = pool
        .iter()
        .map(|(_, e)| e)
        .find(|e| e.query == "details of Dune")
        .unwrap();
    assert!(dune.correct);
    assert_eq!(dune.answer, [movie(), details()], "{}", dune.trace);
    assert_eq!(dune.trace["mode"], "execution");
    assert_eq!(dune.trace["calls"].as_array().unwrap().len(), 3);
    let alien = pool
        .iter()
        .map(|(_, e)| e)
        .find(|e| e.query == "cast of Alien")
        .unwrap();
    assert!(!alien.correct);
    assert_eq!(alien.answer, [tv(), details()], "{}", alien.trace);
    // The executed confusion adds the similarity edge as the selection actor's does.
    assert_eq!(report.added.len(), 1);
}

/// A run over part of the graph (`refine --apis`): an edge leaving the run's APIs is not
/// tried, and only the run's APIs get insights (a neighbour outside still informs them).
#[tokio::test]
async fn a_run_over_some_apis_tries_only_their_edges_and_writes_only_their_insights() {
    let store = store();
    let view = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let graph = graph();
    // A dependent-request rule that would be used if the movie -> details edge were tried.
    let llm = insight_rule(dependent(
        ScriptedLlm::new([]),
        json!([{"query": "details of Dune", "tools": both()}]),
    ));
    let scripted = llm.clone();
    let refine = RefineStore::in_memory().unwrap();
    let run = refine
        .create_run(&RunSpec {
            method: Method::ExpNet,
            apis: vec![movie(), tv()],
            settings: json!({}),
            mode: toolsmith_exec::Mode::Simulate,
            from_label: "original".parse().unwrap(),
            writer: None,
        })
        .unwrap();
    let expnet = ExpNet::new(Arc::new(llm), one_iteration()).unwrap();
    let report = expnet
        .run(run, &view, &Mutex::new(store), &graph, &refine)
        .await
        .unwrap();
    assert_eq!((report.edges_tried, report.trials), (0, 0));
    let written: Vec<_> = report.insights.iter().map(|(a, _)| a.clone()).collect();
    assert_eq!(
        written,
        [movie()],
        "details is outside the run, TV is isolated"
    );
    let requests = scripted.requests();
    assert_eq!(requests.len(), 1, "one insight call, no trial call");
    assert!(
        requests[0]
            .last_message()
            .contains(&format!("doc of {}", details())),
        "the neighbour outside the run is shown"
    );
    let g = graph.load().unwrap();
    assert!(
        (g.edges[0].weight - 1.0).abs() < 1e-6,
        "the edge is untouched"
    );
    assert_eq!(
        g.node(&details()).unwrap().insight,
        format!("doc of {}", details())
    );
}

/// An actor that first calls the API producing the id the labelled API needs (the movie search
/// before the details) answers right, and that producer is no confusion: no edge is added.
#[tokio::test]
async fn calling_the_producer_of_a_needed_id_first_is_right_and_adds_no_edge() {
    let store = store();
    let view = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let graph = graph();
    graph
        .upsert_edge(&Edge {
            kind: EdgeKind::Similarity,
            from: details(),
            to: tv(),
            weight: 1.0,
            strength: 0.8,
            evidence: Evidence::Similarity { cosine: 0.8 },
        })
        .unwrap();
    let llm = ScriptedLlm::new([]).with_rule(
        When::last_message_contains("easy to mix up"),
        Reply::text(
            json!({"queries": [
                {"query": "runtime of Dune", "tool": details().to_string()},
                {"query": "the show Dune", "tool": tv().to_string()}]})
            .to_string(),
        ),
    );
    let llm = actor(llm, "runtime of Dune", &[movie(), details()]);
    let llm = insight_rule(actor(llm, "the show Dune", &[movie(), details()]));
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine);
    let settings = ExpNetSettings {
        dependency: false,
        ..one_iteration()
    };
    let expnet = ExpNet::new(Arc::new(llm), settings).unwrap();
    let report = expnet
        .run(run, &view, &Mutex::new(store), &graph, &refine)
        .await
        .unwrap();
    assert_eq!(
        (report.edges_tried, report.trials, report.correct),
        (1, 2, 1),
        "the search before the details is no error; the TV request is"
    );
    assert!(
        report.added.is_empty(),
        "the movie search fed the details: no movie/TV confusion edge, {:?}",
        report.added
    );
    let g = graph.load().unwrap();
    let sim = g.edges_of_kind(EdgeKind::Similarity).next().unwrap();
    assert!((sim.weight - 0.5).abs() < 1e-6, "weight {}", sim.weight);
}
