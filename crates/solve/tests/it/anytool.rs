//! AnyTool: the agent tree fills the pool, limits hold, reflection re-activates bottom-up and
//! prunes, the token budget ends the loop, search assistance orders the listings.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use toolsmith_catalog::{
    ApiId, Catalog, DocSelector, ImportOptions, Scope, Store, ToolId, read_bytes,
};
use toolsmith_exec::ApiBook;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_graph::{Need, Producer};
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};
use toolsmith_retrieve::{Corpus, ExpandSettings, ExpandingRetriever, Filter, Hit, Retriever};
use toolsmith_solve::{
    AgentLevel, AnyTool, AnyToolSettings, CategoryBy, DfsdtSettings, Finish, Hierarchy, Part,
    ReflectionHistory, Run, RunLimit, Solver, Toolset, TraceEvent,
};

use crate::support::*;

fn spec(title: &str, ops: &[(&str, &str)]) -> String {
    let paths: serde_json::Map<String, serde_json::Value> = ops
        .iter()
        .map(|(op, desc)| {
            (
                format!("/{op}"),
                json!({"get": {"operationId": op, "description": desc,
                    "parameters": [{"name": "q", "in": "query", "required": false, "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "ok"}}}}),
            )
        })
        .collect();
    json!({"openapi": "3.0.0", "info": {"title": title, "version": "1"},
        "servers": [{"url": "https://x.example"}], "paths": paths})
    .to_string()
}

/// Three categories: Movies (movies, cinema), Weather (weather), Finance (stocks).
pub(crate) fn world() -> (Arc<Hierarchy>, Arc<ApiBook>) {
    let catalog = world_catalog();
    (
        Arc::new(Hierarchy::from_catalog(&catalog, CategoryBy::Category)),
        Arc::new(ApiBook::from_catalog(&catalog)),
    )
}

fn world_catalog() -> Catalog {
    let mut store = Store::in_memory().unwrap();
    for (tool, category, ops) in [
        (
            "movies",
            "Movies",
            vec![
                ("search_movie", "Find movies by title."),
                ("get_movie", "A movie by id."),
            ],
        ),
        ("cinema", "Movies", vec![("showtimes", "Cinema showtimes.")]),
        (
            "weather",
            "Weather",
            vec![("forecast", "Weather forecast for a city.")],
        ),
        ("stocks", "Finance", vec![("quote", "A stock quote.")]),
    ] {
        let options = ImportOptions {
            tool: Some(tool.to_owned()),
            category: Some(category.to_owned()),
            ..ImportOptions::default()
        };
        let batch = read_bytes(
            Path::new(&format!("{tool}.json")),
            spec(tool, &ops).as_bytes(),
            &options,
        )
        .unwrap();
        store
            .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
            .unwrap();
    }
    store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap()
}

fn api(id: &str) -> ApiId {
    id.parse().unwrap()
}

fn call(name: &str, args: serde_json::Value) -> Reply {
    Reply::tool_call(name, args.to_string())
}

fn role(r: &str) -> When {
    When::role(r)
}

fn settings() -> AnyToolSettings {
    AnyToolSettings {
        judge_votes: 1,
        ..AnyToolSettings::PAPER
    }
}

async fn solve(
    llm: ScriptedLlm,
    settings: AnyToolSettings,
    retriever: Option<Arc<dyn Retriever>>,
) -> Run {
    solve_with(llm, settings, retriever, None).await
}

async fn solve_with(
    llm: ScriptedLlm,
    settings: AnyToolSettings,
    retriever: Option<Arc<dyn Retriever>>,
    expander: Option<Arc<ExpandingRetriever>>,
) -> Run {
    let (hierarchy, book) = world();
    let tools = Arc::new(
        ScriptedExecutor::new()
            .respond(
                api("movies/search_movie"),
                json!({"results": [{"title": "Dune", "id": 1}]}),
            )
            .respond(
                api("movies/get_movie"),
                json!({"title": "Dune", "year": 2021}),
            ),
    );
    let mut rt = runtime(Arc::new(llm), tools, book);
    rt.retriever = retriever;
    let anytool = AnyTool::new(rt, hierarchy, settings);
    let anytool = match expander {
        Some(expander) => anytool.with_expansion(expander),
        None => anytool,
    };
    anytool
        .solve("When did Dune come out?", Toolset::default())
        .await
        .unwrap()
}

fn created(run: &Run) -> Vec<(AgentLevel, Vec<String>)> {
    let mut out: Vec<_> = run
        .trace
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::AgentCreated {
                level,
                category,
                tools,
                ..
            } => {
                let mut scope: Vec<String> = category.iter().cloned().collect();
                scope.extend(tools.iter().map(ToString::to_string));
                Some((*level, scope))
            }
            _ => None,
        })
        .collect();
    out.sort();
    out
}

fn final_pool(run: &Run) -> Vec<ApiId> {
    run.trace
        .iter()
        .find_map(|e| match &e.event {
            TraceEvent::PartTokens { pool, .. } => Some(pool.clone()),
            _ => None,
        })
        .unwrap()
}

/// The solver and judge: search, answer, judged solved.
fn answering(llm: ScriptedLlm) -> ScriptedLlm {
    llm.with_rule_times(
        role("agent"),
        call("search_movie_for_movies", json!({"q": "Dune"})),
        1,
    )
    .with_rule(
        role("agent"),
        Reply::tool_call("Finish", answer("Dune came out in 2021.")),
    )
    .with_rule(
        role("anytool_judge"),
        Reply::text("SOLVED\nit gives the year"),
    )
}

#[tokio::test]
async fn the_tree_creates_its_agents_and_fills_the_pool() {
    let llm = ScriptedLlm::new([])
        .with_rule_times(
            role("anytool_meta"),
            call("create_category_agent", json!({"category": "movies"})),
            1,
        )
        .with_rule(role("anytool_meta"), call("finish_search", json!({})))
        .with_rule_times(
            role("anytool_category"),
            call("create_tool_agent", json!({"tools": ["movies"]})),
            1,
        )
        .with_rule(role("anytool_category"), call("finish_search", json!({})))
        .with_rule_times(
            role("anytool_tool"),
            call(
                "add_apis_to_pool",
                json!({"apis": ["movies/search_movie", "movies/get_movie"]}),
            ),
            1,
        )
        .with_rule(role("anytool_tool"), call("check_if_solvable", json!({})))
        .with_rule(
            role("anytool_check"),
            Reply::text("YES\nsearch and details"),
        );
    let run = solve(answering(llm), settings(), None).await;
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    assert_eq!(run.answer.as_deref(), Some("Dune came out in 2021."));
    assert_eq!(
        created(&run),
        vec![
            (AgentLevel::Meta, vec![]),
            (AgentLevel::Category, vec!["Movies".to_owned()]),
            (
                AgentLevel::Tool,
                vec!["Movies".to_owned(), "movies".to_owned()]
            ),
        ]
    );
    assert_eq!(
        final_pool(&run),
        vec![api("movies/search_movie"), api("movies/get_movie")]
    );
    assert_eq!(run.api_calls(), vec![api("movies/search_movie")]);
    let parts = toolsmith_solve::tokens_by_part(&run.trace);
    for part in [
        Part::Meta,
        Part::Category,
        Part::Tool,
        Part::Solver,
        Part::Judge,
    ] {
        assert!(
            parts.get(&part).is_some_and(|(t, c)| *t > 0 && *c > 0),
            "{part:?}: {parts:?}"
        );
    }
    assert!(!parts.contains_key(&Part::Reflection));
}

#[tokio::test]
async fn the_pool_cap_and_the_five_tools_limit_hold() {
    let llm = ScriptedLlm::new([])
        .with_rule_times(
            role("anytool_meta"),
            call("create_category_agent", json!({"category": "Movies"})),
            1,
        )
        .with_rule(role("anytool_meta"), call("finish_search", json!({})))
        .with_rule_times(
            role("anytool_category"),
            call(
                "create_tool_agent",
                json!({"tools": ["movies", "cinema", "weather", "stocks", "a", "b"]}),
            ),
            1,
        )
        .with_rule_times(
            role("anytool_category"),
            call("create_tool_agent", json!({"tools": ["movies", "cinema"]})),
            1,
        )
        .with_rule(role("anytool_category"), call("finish_search", json!({})))
        .with_rule_times(
            role("anytool_tool"),
            call(
                "add_apis_to_pool",
                json!({"apis": ["movies/search_movie", "movies/get_movie", "cinema/showtimes"]}),
            ),
            1,
        )
        .with_rule(role("anytool_tool"), call("finish_search", json!({})));
    let llm = answering(llm);
    let run = solve(
        llm.clone(),
        AnyToolSettings {
            pool_cap: 2,
            ..settings()
        },
        None,
    )
    .await;
    let tool_agents: Vec<_> = created(&run)
        .into_iter()
        .filter(|(l, _)| *l == AgentLevel::Tool)
        .collect();
    assert_eq!(
        tool_agents,
        vec![(
            AgentLevel::Tool,
            vec![
                "Movies".to_owned(),
                "movies".to_owned(),
                "cinema".to_owned()
            ]
        )]
    );
    let refused = llm.requests().iter().any(|r| {
        r.messages
            .iter()
            .any(|m| m.text().contains("at most 5 tools; you named 6"))
    });
    assert!(refused);
    assert_eq!(
        final_pool(&run),
        vec![api("movies/search_movie"), api("movies/get_movie")]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_agents_lose_no_pool_additions() {
    let mut llm = ScriptedLlm::new([])
        .with_delay(Duration::from_millis(20))
        .with_rule_times(
            role("anytool_meta"),
            Reply::tool_calls([
                (
                    "create_category_agent",
                    json!({"category": "Movies"}).to_string(),
                ),
                (
                    "create_category_agent",
                    json!({"category": "Weather"}).to_string(),
                ),
                (
                    "create_category_agent",
                    json!({"category": "Finance"}).to_string(),
                ),
            ]),
            1,
        )
        .with_rule(role("anytool_meta"), call("finish_search", json!({})));
    for (category, tools) in [
        ("Movies", json!(["movies", "cinema"])),
        ("Weather", json!(["weather"])),
        ("Finance", json!(["stocks"])),
    ] {
        llm = llm.with_rule_times(
            When::role("anytool_category")
                .and_last_message_contains(format!("category: {category}")),
            call("create_tool_agent", json!({"tools": tools})),
            1,
        );
    }
    llm = llm.with_rule(role("anytool_category"), call("finish_search", json!({})));
    for (tools, apis) in [
        (
            "movies, cinema",
            json!([
                "movies/search_movie",
                "movies/get_movie",
                "cinema/showtimes"
            ]),
        ),
        ("weather", json!(["weather/forecast"])),
        ("stocks", json!(["stocks/quote"])),
    ] {
        llm = llm.with_rule_times(
            When::role("anytool_tool").and_last_message_contains(format!("tools: {tools}.")),
            call("add_apis_to_pool", json!({"apis": apis})),
            1,
        );
    }
    llm = llm.with_rule(role("anytool_tool"), call("finish_search", json!({})));
    let run = solve(answering(llm), settings(), None).await;
    let mut pool = final_pool(&run);
    pool.sort();
    let mut want = vec![
        api("cinema/showtimes"),
        api("movies/get_movie"),
        api("movies/search_movie"),
        api("stocks/quote"),
        api("weather/forecast"),
    ];
    want.sort();
    assert_eq!(pool, want);
    let added: usize = run
        .trace
        .iter()
        .map(|e| match &e.event {
            TraceEvent::PoolChanged { added, .. } => added.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(added, 5);
    assert_eq!(created(&run).len(), 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_give_up_reactivates_bottom_up_and_prunes_the_named_apis() {
    let llm = ScriptedLlm::new([])
        .with_delay(Duration::from_millis(10))
        .with_rule_times(
            role("anytool_meta"),
            call("create_category_agent", json!({"category": "Movies"})),
            1,
        )
        .with_rule(role("anytool_meta"), call("list_categories", json!({})))
        .with_rule_times(
            role("anytool_category"),
            call("create_tool_agent", json!({"tools": ["movies"]})),
            1,
        )
        .with_rule(
            role("anytool_category"),
            call("get_tools_in_category", json!({"category": "Movies"})),
        )
        .with_rule_times(
            role("anytool_tool"),
            call(
                "add_apis_to_pool",
                json!({"apis": ["movies/search_movie", "movies/get_movie"]}),
            ),
            1,
        )
        .with_rule(role("anytool_tool"), call("check_if_solvable", json!({})))
        .with_rule(role("anytool_check"), Reply::text("YES"))
        .with_rule(
            role("agent"),
            Reply::tool_call("Finish", give_up("search_movie_for_movies does not answer")),
        );
    let run = solve(
        llm.clone(),
        AnyToolSettings {
            reflection_rounds: 1,
            ..settings()
        },
        None,
    )
    .await;
    assert_eq!(run.finish, Finish::GaveUp);
    let reflections: Vec<_> = run
        .trace
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::Reflection {
                round,
                failing,
                reactivated,
                ..
            } => Some((*round, failing.clone(), reactivated.clone())),
            _ => None,
        })
        .collect();
    // Agents 0 (meta), 1 (category), 2 (tool): re-activated tool, category, meta.
    assert_eq!(
        reflections,
        vec![(1, vec![api("movies/search_movie")], vec![2, 1, 0])]
    );
    assert_eq!(final_pool(&run), vec![api("movies/get_movie")]);
    // The reason reached the re-activated tool agent's history.
    let tool_asked_again = llm.requests().iter().any(|r| {
        r.role.as_str() == "anytool_tool"
            && r.messages
                .iter()
                .any(|m| m.text().contains("not solved yet"))
    });
    assert!(tool_asked_again);
    let parts = toolsmith_solve::tokens_by_part(&run.trace);
    assert!(parts.contains_key(&Part::Reflection), "{parts:?}");
}

#[tokio::test]
async fn the_token_budget_ends_the_loop_with_a_final_state() {
    let llm =
        ScriptedLlm::new([]).with_rule(role("anytool_meta"), call("list_categories", json!({})));
    let run = solve(
        llm,
        AnyToolSettings {
            token_budget: 2_000,
            ..settings()
        },
        None,
    )
    .await;
    assert_eq!(run.finish, Finish::BudgetExhausted);
    assert_eq!(run.limit(), Some(RunLimit::LlmBudget));
    assert!(run.tokens() < 4_000, "{}", run.tokens());
    assert!(matches!(
        run.trace.last().map(|e| &e.event),
        Some(TraceEvent::Finished { .. })
    ));
    assert!(final_pool(&run).is_empty());
}

/// Scores weather first, then stocks; nothing else.
struct Fixed;

#[async_trait]
impl Retriever for Fixed {
    async fn search(
        &self,
        _query: &str,
        _k: usize,
        _filter: &Filter,
    ) -> toolsmith_retrieve::Result<Vec<Hit>> {
        let hit = |api: &str, tool: &str, score: f32| Hit {
            api: api.parse().unwrap(),
            tool: tool.parse::<ToolId>().unwrap(),
            score,
            text: String::new(),
        };
        Ok(vec![
            hit("weather/forecast", "weather", 0.9),
            hit("stocks/quote", "stocks", 0.5),
        ])
    }
}

async fn listing(settings: AnyToolSettings) -> String {
    let llm = ScriptedLlm::new([])
        .with_rule_times(role("anytool_meta"), call("list_categories", json!({})), 1)
        .with_rule(role("anytool_meta"), call("finish_search", json!({})))
        .with_rule(
            role("agent"),
            Reply::tool_call("Finish", give_up("no tools")),
        );
    let run = solve(
        llm.clone(),
        AnyToolSettings {
            reflection_rounds: 0,
            ..settings
        },
        Some(Arc::new(Fixed)),
    )
    .await;
    assert_eq!(run.finish, Finish::GaveUp);
    let requests = llm.requests();
    let second = requests
        .iter()
        .filter(|r| r.role.as_str() == "anytool_meta")
        .nth(1)
        .unwrap();
    second.messages.last().unwrap().text().to_owned()
}

#[tokio::test]
async fn search_assisted_listings_are_ordered_by_relevance_and_cut() {
    // The listings alone: no search stage.
    let assisted = listing(AnyToolSettings {
        search_assisted: true,
        seed_k: 0,
        listing_cut: 2,
        ..settings()
    })
    .await;
    let lines: Vec<&str> = assisted.lines().collect();
    assert_eq!(lines.len(), 2, "{assisted}");
    assert!(lines[0].starts_with("Weather"), "{assisted}");
    assert!(lines[1].starts_with("Finance"), "{assisted}");
    let paper = listing(settings()).await;
    let lines: Vec<&str> = paper
        .lines()
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(lines, vec!["Finance", "Movies", "Weather"], "{paper}");
}

/// Finds the given APIs, best first.
struct Finds(Vec<&'static str>);

#[async_trait]
impl Retriever for Finds {
    async fn search(
        &self,
        _query: &str,
        k: usize,
        _filter: &Filter,
    ) -> toolsmith_retrieve::Result<Vec<Hit>> {
        Ok(self
            .0
            .iter()
            .take(k)
            .enumerate()
            .map(|(i, api)| {
                let api: ApiId = api.parse().unwrap();
                Hit {
                    tool: api.tool().clone(),
                    api,
                    score: 1.0 / (1.0 + i as f32),
                    text: String::new(),
                }
            })
            .collect())
    }
}

/// Search-assisted settings, one vote, seeding from `seed_k` hits.
fn seeding(seed_k: usize) -> AnyToolSettings {
    AnyToolSettings {
        judge_votes: 1,
        seed_k,
        ..AnyToolSettings::default()
    }
}

fn seeded(run: &Run) -> Vec<(Vec<ApiId>, bool)> {
    run.trace
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::Seeded { apis, solvable, .. } => Some((apis.clone(), *solvable)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_seeded_pool_judged_solvable_goes_to_the_solver_without_agents() {
    let llm = answering(
        ScriptedLlm::new([]).with_rule(role("anytool_search"), Reply::text("YES\nsearch finds it")),
    );
    let run = solve(
        llm.clone(),
        seeding(2),
        Some(Arc::new(Finds(vec![
            "movies/search_movie",
            "movies/get_movie",
            "cinema/showtimes",
        ]))),
    )
    .await;
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    assert_eq!(
        seeded(&run),
        vec![(
            vec![api("movies/search_movie"), api("movies/get_movie")],
            true
        )]
    );
    assert!(created(&run).is_empty(), "{:?}", created(&run));
    assert_eq!(
        final_pool(&run),
        vec![api("movies/search_movie"), api("movies/get_movie")]
    );
    let roles: Vec<String> = llm.requests().iter().map(|r| r.role.to_string()).collect();
    assert_eq!(roles[0], "anytool_search", "{roles:?}");
    assert!(!roles.iter().any(|r| r == "anytool_meta"), "{roles:?}");
    let parts = toolsmith_solve::tokens_by_part(&run.trace);
    assert_eq!(parts.get(&Part::Search).map(|p| p.1), Some(1), "{parts:?}");
    assert!(!parts.contains_key(&Part::Meta), "{parts:?}");
}

#[tokio::test]
async fn a_seeded_pool_judged_unsolvable_starts_the_agents_with_the_reason() {
    let llm = answering(
        ScriptedLlm::new([])
            .with_rule(
                role("anytool_search"),
                Reply::text("NO\nnothing gives the release year"),
            )
            .with_rule(role("anytool_meta"), call("finish_search", json!({}))),
    );
    let run = solve(
        llm.clone(),
        seeding(1),
        Some(Arc::new(Finds(vec!["movies/search_movie"]))),
    )
    .await;
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    assert_eq!(
        seeded(&run),
        vec![(vec![api("movies/search_movie")], false)]
    );
    assert_eq!(created(&run), vec![(AgentLevel::Meta, vec![])]);
    let requests = llm.requests();
    let meta = requests
        .iter()
        .find(|r| r.role.as_str() == "anytool_meta")
        .unwrap();
    let opening = meta.messages[1].text();
    assert!(
        opening.contains("nothing gives the release year"),
        "{opening}"
    );
    assert!(opening.contains("movies/search_movie"), "{opening}");
    // The agents start from the seeded pool.
    assert_eq!(final_pool(&run), vec![api("movies/search_movie")]);
}

/// The solver searches, reads details, then gives up naming the details API (one branch per
/// node, so the last path is that chain); a re-run told why answers.
fn failing_then_answering(llm: ScriptedLlm) -> ScriptedLlm {
    llm.with_rule(role("anytool_search"), Reply::text("YES"))
        .with_rule(role("anytool_meta"), call("finish_search", json!({})))
        .with_rule(
            role("agent").and_last_message_contains("did not solve the request"),
            Reply::tool_call("Finish", answer("Dune came out in 2021.")),
        )
        .with_rule_times(
            role("agent"),
            call("search_movie_for_movies", json!({"q": "Dune"})),
            1,
        )
        .with_rule_times(
            role("agent"),
            call("get_movie_for_movies", json!({"q": "1"})),
            1,
        )
        .with_rule(
            role("agent"),
            Reply::tool_call("Finish", give_up("get_movie_for_movies does not answer")),
        )
        .with_rule(
            role("anytool_judge"),
            Reply::text("SOLVED\nit gives the year"),
        )
}

fn one_branch(history: ReflectionHistory) -> AnyToolSettings {
    AnyToolSettings {
        reflection_rounds: 1,
        reflection_history: history,
        dfsdt: DfsdtSettings {
            width: 1,
            ..AnyToolSettings::PAPER.dfsdt
        },
        ..seeding(2)
    }
}

#[tokio::test]
async fn the_papers_reflection_reruns_the_solver_from_the_cleaned_history() {
    let llm = failing_then_answering(ScriptedLlm::new([]));
    let run = solve(
        llm.clone(),
        one_branch(ReflectionHistory::Cleaned),
        Some(Arc::new(Finds(vec![
            "movies/search_movie",
            "movies/get_movie",
        ]))),
    )
    .await;
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    assert_eq!(final_pool(&run), vec![api("movies/search_movie")]);
    // The meta agent starts at the reflection, told why (the seeded pool had no agents).
    assert_eq!(created(&run), vec![(AgentLevel::Meta, vec![])]);
    let requests = llm.requests();
    let rerun = requests
        .iter()
        .find(|r| r.role.as_str() == "agent" && r.last_message().contains("did not solve"))
        .unwrap();
    let texts: Vec<String> = rerun.messages.iter().map(|m| format!("{m:?}")).collect();
    let all = texts.join("\n");
    // Kept: the search step and its result; gone: the pruned API's step and the give-up.
    assert!(all.contains("search_movie_for_movies"), "{all}");
    assert!(
        rerun
            .messages
            .iter()
            .any(|m| matches!(m, toolsmith_llm::Message::Tool { content, .. } if content.contains("results"))),
        "the search's result is kept: {all}"
    );
    let called: Vec<&str> = rerun
        .messages
        .iter()
        .flat_map(|m| match m {
            toolsmith_llm::Message::Assistant { tool_calls, .. } => {
                tool_calls.iter().map(|c| c.name.as_str()).collect()
            }
            _ => Vec::new(),
        })
        .collect();
    assert_eq!(called, vec!["search_movie_for_movies"], "{all}");
    assert!(
        !rerun.messages.iter().any(|m| m.text().contains("2021")),
        "the pruned step's result is gone: {all}"
    );
    assert!(
        rerun
            .last_message()
            .contains("get_movie_for_movies does not answer"),
        "the reason closes the history: {all}"
    );
    // The re-run offers only the pool's APIs.
    let offered: Vec<&str> = rerun.tools.iter().map(|t| t.name.as_str()).collect();
    assert!(!offered.contains(&"get_movie_for_movies"), "{offered:?}");
}

#[tokio::test]
async fn the_fresh_reflection_reruns_the_solver_from_the_opening() {
    let llm = failing_then_answering(ScriptedLlm::new([]));
    let run = solve(
        llm.clone(),
        one_branch(ReflectionHistory::Fresh),
        Some(Arc::new(Finds(vec![
            "movies/search_movie",
            "movies/get_movie",
        ]))),
    )
    .await;
    let requests = llm.requests();
    let openings: Vec<usize> = requests
        .iter()
        .filter(|r| r.role.as_str() == "agent" && r.messages.len() == 2)
        .map(|r| r.tools.len())
        .collect();
    // Both attempts began at the opening: two tools then one, plus Finish.
    assert_eq!(openings, vec![3, 2], "{:?}", run.detail);
    assert!(
        !requests
            .iter()
            .any(|r| r.role.as_str() == "agent" && r.last_message().contains("did not solve"))
    );
}

#[tokio::test]
async fn graph_expanded_listings_name_the_producers_and_seed_them() {
    // weather/forecast needs `q`, which stocks/quote produces (a made-up edge).
    let needs = std::collections::BTreeMap::from([(
        api("weather/forecast"),
        vec![Need {
            param: "q".to_owned(),
            producers: vec![Producer {
                api: api("stocks/quote"),
                strength: 1.0,
                lookup: true,
            }],
        }],
    )]);
    let catalog = world_catalog();
    let expander = Arc::new(ExpandingRetriever::new(
        Arc::new(Finds(vec!["weather/forecast"])),
        &Corpus::from_catalog(&catalog),
        needs,
        ExpandSettings::default(),
    ));
    let llm = ScriptedLlm::new([])
        .with_rule(role("anytool_search"), Reply::text("NO\nno quotes"))
        .with_rule_times(
            role("anytool_meta"),
            call("get_tools_in_category", json!({"category": "Weather"})),
            1,
        )
        .with_rule(role("anytool_meta"), call("finish_search", json!({})))
        .with_rule(
            role("agent"),
            Reply::tool_call("Finish", give_up("no tools")),
        );
    let run = solve_with(
        llm.clone(),
        AnyToolSettings {
            reflection_rounds: 0,
            ..seeding(1)
        },
        None,
        Some(expander),
    )
    .await;
    assert_eq!(
        seeded(&run),
        vec![(vec![api("weather/forecast"), api("stocks/quote")], false)]
    );
    let requests = llm.requests();
    let listing = requests
        .iter()
        .filter(|r| r.role.as_str() == "anytool_meta")
        .nth(1)
        .unwrap()
        .last_message()
        .to_owned();
    assert!(listing.starts_with("weather"), "{listing}");
    assert!(
        listing.contains("stocks (category Finance; feeds weather)"),
        "{listing}"
    );
}

fn trims(run: &Run) -> Vec<(Vec<ApiId>, bool)> {
    run.trace
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::PoolTrimmed { kept, whole, .. } => Some((kept.clone(), *whole)),
            _ => None,
        })
        .collect()
}

/// The function names offered to each solver request that opens an attempt.
fn solver_openings(llm: &ScriptedLlm) -> Vec<Vec<String>> {
    llm.requests()
        .iter()
        .filter(|r| r.role.as_str() == "agent" && r.messages.len() == 2)
        .map(|r| r.tools.iter().map(|t| t.name.clone()).collect())
        .collect()
}

fn three_hits() -> Option<Arc<dyn Retriever>> {
    Some(Arc::new(Finds(vec![
        "movies/search_movie",
        "movies/get_movie",
        "cinema/showtimes",
    ])))
}

#[tokio::test]
async fn a_trimmed_pool_gives_the_solver_only_the_apis_the_check_named() {
    let llm = answering(ScriptedLlm::new([]).with_rule(
        role("anytool_search"),
        Reply::text("YES\nNEEDED: movies/search_movie\nthe search finds the film"),
    ));
    let run = solve(llm.clone(), seeding(3), three_hits()).await;
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    assert_eq!(trims(&run), vec![(vec![api("movies/search_movie")], false)]);
    assert_eq!(
        solver_openings(&llm),
        vec![vec![
            "search_movie_for_movies".to_owned(),
            "Finish".to_owned()
        ]]
    );
    // The check was asked to name them; the pool itself is unchanged.
    let requests = llm.requests();
    let check = requests
        .iter()
        .find(|r| r.role.as_str() == "anytool_search")
        .unwrap();
    assert!(check.messages[0].text().contains("NEEDED:"));
    assert_eq!(final_pool(&run).len(), 3);
}

#[tokio::test]
async fn unknown_or_no_named_apis_fall_back_to_the_whole_pool() {
    for reply in [
        "YES\nNEEDED: movies/search_movie, movies/no_such_api\nenough",
        "YES\nNEEDED: cinema\nenough",
        "YES\nenough",
        "YES\nNEEDED:\nenough",
    ] {
        let llm =
            answering(ScriptedLlm::new([]).with_rule(role("anytool_search"), Reply::text(reply)));
        let run = solve(llm.clone(), seeding(3), three_hits()).await;
        assert_eq!(run.finish, Finish::Answered, "{reply}: {:?}", run.detail);
        let all = vec![
            api("movies/search_movie"),
            api("movies/get_movie"),
            api("cinema/showtimes"),
        ];
        assert_eq!(trims(&run), vec![(all, true)], "{reply}");
        assert_eq!(
            solver_openings(&llm)
                .iter()
                .map(Vec::len)
                .collect::<Vec<_>>(),
            vec![4],
            "{reply}"
        );
    }
}

#[tokio::test]
async fn a_reflection_round_gives_the_solver_the_whole_pool_again() {
    let llm = ScriptedLlm::new([])
        .with_rule(
            role("anytool_search"),
            Reply::text("YES\nNEEDED: movies/get_movie\nthe details have the year"),
        )
        .with_rule(role("anytool_meta"), call("finish_search", json!({})))
        .with_rule_times(
            role("agent"),
            Reply::tool_call("Finish", give_up("no id to look up")),
            1,
        )
        .with_rule(
            role("agent"),
            Reply::tool_call("Finish", answer("Dune came out in 2021.")),
        )
        .with_rule(role("anytool_judge"), Reply::text("SOLVED\nok"));
    let run = solve(
        llm.clone(),
        AnyToolSettings {
            reflection_rounds: 1,
            reflection_history: ReflectionHistory::Fresh,
            dfsdt: DfsdtSettings {
                width: 1,
                ..AnyToolSettings::PAPER.dfsdt
            },
            ..seeding(3)
        },
        three_hits(),
    )
    .await;
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    assert_eq!(trims(&run), vec![(vec![api("movies/get_movie")], false)]);
    let openings = solver_openings(&llm);
    assert_eq!(openings.len(), 2, "{openings:?}");
    assert_eq!(openings[0], vec!["get_movie_for_movies", "Finish"]);
    assert_eq!(openings[1].len(), 4, "{openings:?}");
}

#[tokio::test]
async fn a_trimmed_pool_keeps_the_producers_the_named_apis_need() {
    let needs = std::collections::BTreeMap::from([(
        api("weather/forecast"),
        vec![Need {
            param: "q".to_owned(),
            producers: vec![Producer {
                api: api("stocks/quote"),
                strength: 1.0,
                lookup: true,
            }],
        }],
    )]);
    let catalog = world_catalog();
    let expander = Arc::new(ExpandingRetriever::new(
        Arc::new(Finds(vec!["weather/forecast", "movies/search_movie"])),
        &Corpus::from_catalog(&catalog),
        needs,
        ExpandSettings::default(),
    ));
    let llm = answering(ScriptedLlm::new([]).with_rule(
        role("anytool_search"),
        Reply::text("YES\nNEEDED: weather/forecast\nthe forecast"),
    ));
    let run = solve_with(llm.clone(), seeding(2), None, Some(expander)).await;
    assert_eq!(seeded(&run)[0].0.len(), 3, "{:?}", seeded(&run));
    assert_eq!(
        trims(&run),
        vec![(vec![api("weather/forecast"), api("stocks/quote")], false)]
    );
    assert_eq!(
        solver_openings(&llm),
        vec![vec![
            "forecast_for_weather".to_owned(),
            "quote_for_stocks".to_owned(),
            "Finish".to_owned()
        ]]
    );
}

#[tokio::test]
async fn the_papers_protocol_gives_the_solver_the_whole_pool_unasked() {
    let llm = answering(
        ScriptedLlm::new([])
            .with_rule_times(
                role("anytool_meta"),
                call("create_category_agent", json!({"category": "Movies"})),
                1,
            )
            .with_rule(role("anytool_meta"), call("finish_search", json!({})))
            .with_rule_times(
                role("anytool_category"),
                call("create_tool_agent", json!({"tools": ["movies"]})),
                1,
            )
            .with_rule(role("anytool_category"), call("finish_search", json!({})))
            .with_rule_times(
                role("anytool_tool"),
                call(
                    "add_apis_to_pool",
                    json!({"apis": ["movies/search_movie", "movies/get_movie"]}),
                ),
                1,
            )
            .with_rule_times(
                role("anytool_tool"),
                call("check_if_solvable", json!({})),
                1,
            )
            .with_rule(role("anytool_tool"), call("finish_search", json!({})))
            .with_rule(
                role("anytool_check"),
                Reply::text("YES\nNEEDED: movies/search_movie\nok"),
            ),
    );
    const { assert!(!AnyToolSettings::PAPER.trim_pool) };
    let run = solve(llm.clone(), settings(), None).await;
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    assert!(trims(&run).is_empty());
    assert_eq!(solver_openings(&llm)[0].len(), 3);
    let requests = llm.requests();
    let check = requests
        .iter()
        .find(|r| r.role.as_str() == "anytool_check")
        .unwrap();
    assert!(!check.messages[0].text().contains("NEEDED"));
}

#[tokio::test]
async fn reflection_stops_when_its_search_changes_nothing_unless_told_otherwise() {
    for stop_unchanged in [true, false] {
        let llm = ScriptedLlm::new([])
            .with_rule(role("anytool_search"), Reply::text("NO\nnot enough"))
            .with_rule(role("anytool_meta"), call("finish_search", json!({})))
            .with_rule(
                role("agent"),
                Reply::tool_call("Finish", give_up("nothing here gives the year")),
            );
        let run = solve(
            llm.clone(),
            AnyToolSettings {
                reflection_rounds: 3,
                reflection_history: ReflectionHistory::Fresh,
                stop_unchanged,
                dfsdt: DfsdtSettings {
                    width: 1,
                    ..AnyToolSettings::PAPER.dfsdt
                },
                ..seeding(2)
            },
            three_hits(),
        )
        .await;
        assert_eq!(run.answer, None);
        let reflections = run
            .trace
            .iter()
            .filter(|e| matches!(e.event, TraceEvent::Reflection { .. }))
            .count();
        let attempts = solver_openings(&llm).len();
        if stop_unchanged {
            assert_eq!((reflections, attempts), (1, 1));
            assert!(
                run.detail
                    .as_deref()
                    .unwrap_or("")
                    .contains("reflection stopped"),
                "{:?}",
                run.detail
            );
        } else {
            assert_eq!((reflections, attempts), (3, 4));
        }
    }
}

#[tokio::test]
async fn the_answer_check_stops_voting_at_a_majority_when_told() {
    for (early, replies, calls) in [
        (true, vec!["SOLVED\na", "SOLVED\nb", "UNSOLVED\nc"], 2),
        (true, vec!["SOLVED\na", "UNSOLVED\nb", "SOLVED\nc"], 3),
        (false, vec!["SOLVED\na", "SOLVED\nb", "UNSOLVED\nc"], 3),
    ] {
        let mut llm = ScriptedLlm::new([])
            .with_rule(role("anytool_search"), Reply::text("YES\nenough"))
            .with_rule(
                role("agent"),
                Reply::tool_call("Finish", answer("Dune came out in 2021.")),
            );
        for reply in &replies {
            llm = llm.with_rule_times(role("anytool_judge"), Reply::text(*reply), 1);
        }
        let run = solve(
            llm.clone(),
            AnyToolSettings {
                judge_votes: 3,
                judge_early_stop: early,
                ..seeding(2)
            },
            three_hits(),
        )
        .await;
        assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
        let judged = llm
            .requests()
            .iter()
            .filter(|r| r.role.as_str() == "anytool_judge")
            .count();
        assert_eq!(judged, calls, "{early} {replies:?}");
        let verdict = run.trace.iter().find_map(|e| match &e.event {
            TraceEvent::Judged { verdict, reason } => Some((*verdict, reason.clone())),
            _ => None,
        });
        assert_eq!(
            verdict,
            Some((toolsmith_solve::Verdict::Solved, "a".to_owned()))
        );
    }
}

#[test]
fn a_tool_name_two_tools_share_resolves_to_the_first_in_id_order_on_every_build() {
    let mut store = Store::in_memory().unwrap();
    for (tool, category, op) in [
        ("temp_mail_b", "Tools", "get_emails"),
        ("temp_mail_a", "Email", "mail_list"),
    ] {
        let options = ImportOptions {
            tool: Some(tool.to_owned()),
            category: Some(category.to_owned()),
            ..ImportOptions::default()
        };
        let batch = read_bytes(
            Path::new(&format!("{tool}.json")),
            spec("Temp Mail", &[(op, "Mail.")]).as_bytes(),
            &options,
        )
        .unwrap();
        store
            .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
            .unwrap();
    }
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let mut ids: Vec<String> = catalog
        .tools
        .iter()
        .map(|t| t.tool.id.to_string())
        .collect();
    ids.sort();
    assert_eq!(ids.len(), 2);
    for _ in 0..5 {
        let hierarchy = Hierarchy::from_catalog(&catalog, CategoryBy::Category);
        let found = hierarchy.find_tool("temp mail").unwrap();
        assert_eq!(found.id.to_string(), ids[0]);
        assert_eq!(found.category, "Email");
        let named: Vec<String> = hierarchy
            .tools_named("Temp Mail")
            .map(|t| t.id.to_string())
            .collect();
        assert_eq!(named, ids);
    }
}

#[tokio::test]
async fn a_reflection_round_widens_a_cut_category_listing_and_reactivates_its_agent() {
    for widen in [2, 1] {
        let llm = ScriptedLlm::new([])
            .with_rule_times(
                role("anytool_meta"),
                call("create_category_agent", json!({"category": "Movies"})),
                1,
            )
            .with_rule(role("anytool_meta"), call("finish_search", json!({})))
            .with_rule_times(
                role("anytool_category").and_last_message_contains("More tools of category Movies"),
                call("create_tool_agent", json!({"tools": ["cinema"]})),
                1,
            )
            .with_rule_times(
                role("anytool_category").and_last_message_contains("category: Movies. Pick"),
                call("get_tools_in_category", json!({"category": "Movies"})),
                1,
            )
            .with_rule_times(
                role("anytool_category"),
                call("create_tool_agent", json!({"tools": ["movies"]})),
                1,
            )
            .with_rule(role("anytool_category"), call("finish_search", json!({})))
            .with_rule_times(
                role("anytool_tool").and_last_message_contains("tools: movies."),
                call("add_apis_to_pool", json!({"apis": ["movies/search_movie"]})),
                1,
            )
            .with_rule_times(
                role("anytool_tool").and_last_message_contains("tools: cinema."),
                call("add_apis_to_pool", json!({"apis": ["cinema/showtimes"]})),
                1,
            )
            .with_rule(role("anytool_tool"), call("finish_search", json!({})))
            .with_rule_times(
                role("agent"),
                Reply::tool_call("Finish", give_up("no showtimes among my tools")),
                1,
            )
            .with_rule(
                role("agent"),
                Reply::tool_call("Finish", answer("Dune plays at 8.")),
            )
            .with_rule(role("anytool_judge"), Reply::text("SOLVED\nok"));
        let run = solve(
            llm.clone(),
            AnyToolSettings {
                listing_cut: 1,
                reflection_widen: widen,
                reflection_rounds: 2,
                dfsdt: DfsdtSettings {
                    width: 1,
                    ..AnyToolSettings::PAPER.dfsdt
                },
                ..seeding(0)
            },
            Some(Arc::new(Finds(vec![
                "movies/search_movie",
                "cinema/showtimes",
            ]))),
        )
        .await;
        let tool_agents: Vec<Vec<ToolId>> = run
            .trace
            .iter()
            .filter_map(|e| match &e.event {
                TraceEvent::AgentCreated {
                    level: AgentLevel::Tool,
                    tools,
                    ..
                } => Some(tools.clone()),
                _ => None,
            })
            .collect();
        let requests = llm.requests();
        let widened: Vec<&str> = requests
            .iter()
            .filter(|r| r.role.as_str() == "anytool_category")
            .map(|r| r.last_message())
            .filter(|m| m.contains("More tools of category"))
            .collect();
        if widen == 2 {
            // The first listing showed `movies` alone; the round added `cinema` and the
            // finished category agent ran again on it.
            assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
            assert_eq!(
                widened,
                vec!["More tools of category Movies, the next 1 by relevance: cinema"]
            );
            assert_eq!(
                tool_agents,
                vec![
                    vec!["movies".parse::<ToolId>().unwrap()],
                    vec!["cinema".parse::<ToolId>().unwrap()]
                ]
            );
            assert!(run.trace.iter().any(|e| matches!(
                &e.event,
                TraceEvent::PoolChanged { added, .. }
                    if added.contains(&api("cinema/showtimes"))
            )));
        } else {
            assert_eq!(run.answer, None);
            assert!(widened.is_empty());
            assert_eq!(tool_agents.len(), 1);
        }
    }
}

/// AnyTool over the world with `executor`, seeded with both movie APIs (one solver branch per
/// node, one reflection round, the cleaned history).
async fn solve_over(llm: ScriptedLlm, executor: ScriptedExecutor) -> Run {
    let (hierarchy, book) = world();
    let mut rt = runtime(Arc::new(llm), Arc::new(executor), book);
    rt.retriever = Some(Arc::new(Finds(vec![
        "movies/search_movie",
        "movies/get_movie",
    ])));
    AnyTool::new(rt, hierarchy, one_branch(ReflectionHistory::Cleaned))
        .solve("When did Dune come out?", Toolset::default())
        .await
        .unwrap()
}

/// The movie APIs; `get_movie` fails for `{"q": "bad"}`.
fn movies_failing_on_bad() -> ScriptedExecutor {
    ScriptedExecutor::new()
        .respond(
            api("movies/search_movie"),
            json!({"results": [{"title": "Dune", "id": 1}]}),
        )
        .respond(
            api("movies/get_movie"),
            json!({"title": "Dune", "year": 2021}),
        )
        .respond_to(
            api("movies/get_movie"),
            &json!({"q": "bad"}),
            toolsmith_exec::Observation::tool_error(
                toolsmith_exec::FailureKind::ALL[0],
                "no such movie",
                toolsmith_exec::Provenance::Live,
            ),
        )
}

fn reflected_failing(run: &Run) -> Vec<Vec<ApiId>> {
    run.trace
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::Reflection { failing, .. } => Some(failing.clone()),
            _ => None,
        })
        .collect()
}

/// An API that worked once and then failed three times, in a give-up that names nothing, is
/// named in the retry note with its count and leaves the pool (the note used to say "none").
#[tokio::test]
async fn an_api_failing_most_of_its_calls_is_named_in_the_retry_note_and_removed() {
    let llm = ScriptedLlm::new([])
        .with_rule(role("anytool_search"), Reply::text("YES"))
        .with_rule(role("anytool_meta"), call("finish_search", json!({})))
        .with_rule(
            role("agent").and_last_message_contains("did not solve the request"),
            Reply::tool_call("Finish", answer("Dune came out in 2021.")),
        )
        .with_rule_times(
            role("agent"),
            call("get_movie_for_movies", json!({"q": "1"})),
            1,
        )
        .with_rule_times(
            role("agent"),
            call("get_movie_for_movies", json!({"q": "bad"})),
            3,
        )
        .with_rule(
            role("agent"),
            Reply::tool_call("Finish", give_up("nothing worked")),
        )
        .with_rule(
            role("anytool_judge"),
            Reply::text("SOLVED\nit gives the year"),
        );
    let run = solve_over(llm.clone(), movies_failing_on_bad()).await;
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    assert_eq!(reflected_failing(&run), vec![vec![api("movies/get_movie")]]);
    assert_eq!(final_pool(&run), vec![api("movies/search_movie")]);
    let requests = llm.requests();
    let meta = requests
        .iter()
        .find(|r| r.role.as_str() == "anytool_meta")
        .unwrap();
    let told = meta
        .messages
        .iter()
        .map(|m| m.text())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        told.contains("Removed from the pool as failing: movies/get_movie (3 of 4 calls failed)"),
        "{told}"
    );
    assert!(!told.contains("failing: none"), "{told}");
}

/// A step that called a removed API and a still-allowed one keeps the allowed call and its
/// result in the re-run's history; only the removed call and its result go.
#[tokio::test]
async fn pruning_a_removed_api_keeps_the_allowed_call_of_its_step() {
    let llm = ScriptedLlm::new([])
        .with_rule(role("anytool_search"), Reply::text("YES"))
        .with_rule(role("anytool_meta"), call("finish_search", json!({})))
        .with_rule(
            role("agent").and_last_message_contains("did not solve the request"),
            Reply::tool_call("Finish", answer("Dune came out in 2021.")),
        )
        .with_rule_times(
            role("agent"),
            Reply::tool_calls([
                ("search_movie_for_movies", json!({"q": "Dune"}).to_string()),
                ("get_movie_for_movies", json!({"q": "bad"}).to_string()),
            ]),
            1,
        )
        .with_rule(
            role("agent"),
            Reply::tool_call("Finish", give_up("get_movie_for_movies does not answer")),
        )
        .with_rule(
            role("anytool_judge"),
            Reply::text("SOLVED\nit gives the year"),
        );
    let run = solve_over(llm.clone(), movies_failing_on_bad()).await;
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    assert_eq!(reflected_failing(&run), vec![vec![api("movies/get_movie")]]);
    let requests = llm.requests();
    let rerun = requests
        .iter()
        .find(|r| r.role.as_str() == "agent" && r.last_message().contains("did not solve"))
        .unwrap();
    let called: Vec<&str> = rerun
        .messages
        .iter()
        .flat_map(|m| match m {
            toolsmith_llm::Message::Assistant { tool_calls, .. } => {
                tool_calls.iter().map(|c| c.name.as_str()).collect()
            }
            _ => Vec::new(),
        })
        .collect();
    assert_eq!(
        called,
        vec!["search_movie_for_movies"],
        "{:?}",
        rerun.messages
    );
    let results: Vec<&str> = rerun
        .messages
        .iter()
        .filter_map(|m| match m {
            toolsmith_llm::Message::Tool { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].contains("Dune"), "{results:?}");
}
