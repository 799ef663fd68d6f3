//! AnyTool: the agent tree fills the pool, limits hold, reflection re-activates bottom-up and
//! prunes, the token budget ends the loop, search assistance orders the listings.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use toolsmith_catalog::{ApiId, DocSelector, ImportOptions, Scope, Store, ToolId, read_bytes};
use toolsmith_exec::ApiBook;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};
use toolsmith_retrieve::{Filter, Hit, Retriever};
use toolsmith_solve::{
    AgentLevel, AnyTool, AnyToolSettings, CategoryBy, Finish, Hierarchy, Part, Run, RunLimit,
    Solver, Toolset, TraceEvent,
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
        store.import(&batch, false).unwrap();
    }
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    (
        Arc::new(Hierarchy::from_catalog(&catalog, CategoryBy::Category)),
        Arc::new(ApiBook::from_catalog(&catalog)),
    )
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
    AnyTool::new(rt, hierarchy, settings)
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
    let assisted = listing(AnyToolSettings {
        search_assisted: true,
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
