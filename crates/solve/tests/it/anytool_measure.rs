//! AnyTool measurements (ignored: slow; run with `--ignored --nocapture`): tokens and calls per
//! part in paper vs search-assisted mode over ToolEnv2404 with [`Policy`], a scripted model that
//! walks to each query's gold APIs the same way in both modes, and wall-clock with concurrent
//! vs sequential agents.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Value, json};
use toolsmith_catalog::{ApiId, DocSelector, ImportOptions, Scope, Store, read_source};
use toolsmith_exec::ApiBook;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};
use toolsmith_llm::{ChatModel, ChatRequest, ChatResponse, Message};
use toolsmith_retrieve::{Bm25Index, Bm25Settings, Corpus, Retriever};
use toolsmith_solve::{
    AnyTool, AnyToolSettings, CategoryBy, Hierarchy, Part, RenderOptions, Run, Solver, Toolset,
    TraceEvent, tokens_by_part,
};

use crate::support::*;
fn data(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(relative)
}

/// The scripted policy, identical in paper and search-assisted mode. It knows the query's gold
/// APIs and acts only on what each agent was shown:
/// - meta agent: `list_categories`, then one `create_category_agent` per category of a gold API
///   it was not told is in the pool (the seeded note names the pool), if that category is in the
///   listing it saw, then `finish_search`;
/// - category agent: `get_tools_in_category`, then one `create_tool_agent` with the gold tools of
///   its category that the listing showed (at most 5), then `finish_search`; re-activated with
///   a wider listing (`reflection_widen`), one `create_tool_agent` with the gold tools it adds;
/// - tool agent: `get_apis_in_tool` for each of its tools, `add_apis_to_pool` with the gold APIs
///   of its tools, `check_if_solvable`, `finish_search`;
/// - solvability check (the tool agents' and the search stage's): YES exactly when every gold
///   API is in the pool it lists; when its prompt asks for a `NEEDED:` line (`trim_pool`), the
///   YES names the gold APIs (a perfect namer: a real model may name more or fewer);
/// - solver: `Finish` with an answer when every gold API is among its tools, else a give-up;
/// - judge: SOLVED.
///
/// Tokens are the scripted model's estimate of each request and reply.
struct Policy {
    gold: Vec<ApiId>,
    gold_functions: Vec<String>,
    hierarchy: Arc<Hierarchy>,
}

fn call(name: &str, args: Value) -> Reply {
    Reply::tool_call(name, args.to_string())
}

impl Policy {
    fn category_of(&self, api: &ApiId) -> String {
        self.hierarchy
            .tool(api.tool())
            .map(|t| t.category.clone())
            .unwrap_or_default()
    }

    fn decide(&self, req: &ChatRequest) -> Reply {
        let opening = req.messages.get(1).map_or("", Message::text);
        let results: Vec<&str> = req
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::Tool { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .collect();
        match req.role.as_str() {
            "anytool_check" | "anytool_search" => {
                let listed: Vec<&str> = req
                    .last_message()
                    .lines()
                    .filter_map(|l| l.split_once(": ").map(|(id, _)| id))
                    .collect();
                let all = self
                    .gold
                    .iter()
                    .all(|g| listed.contains(&g.to_string().as_str()));
                let asked = req
                    .messages
                    .first()
                    .is_some_and(|m| m.text().contains("NEEDED:"));
                if all && asked {
                    let named: Vec<String> = self.gold.iter().map(ToString::to_string).collect();
                    Reply::text(format!(
                        "YES\nNEEDED: {}\nthe pool has what the request needs",
                        named.join(", ")
                    ))
                } else {
                    Reply::text(if all {
                        "YES\nthe pool has what the request needs"
                    } else {
                        "NO\nsome of what the request needs is missing"
                    })
                }
            }
            "anytool_judge" => Reply::text("SOLVED\nit answers"),
            "anytool_meta" => {
                let Some(listing) = results.first() else {
                    return call("list_categories", json!({}));
                };
                let mut wanted: Vec<String> = Vec::new();
                for g in &self.gold {
                    let category = self.category_of(g);
                    if !opening.contains(&g.to_string()) && !wanted.contains(&category) {
                        wanted.push(category);
                    }
                }
                let shown = |c: &str| listing.lines().any(|l| l.starts_with(&format!("{c} (")));
                let created = |c: &str| {
                    results
                        .iter()
                        .any(|r| r.ends_with(&format!("for category {c}")))
                };
                match wanted.iter().find(|c| shown(c) && !created(c)) {
                    Some(c) => call("create_category_agent", json!({"category": c})),
                    None => call("finish_search", json!({})),
                }
            }
            "anytool_category" => {
                let category = opening
                    .rsplit_once("category: ")
                    .and_then(|(_, rest)| rest.split_once(". Pick"))
                    .map_or("", |(c, _)| c);
                let Some(listing) = results.first() else {
                    return call("get_tools_in_category", json!({"category": category}));
                };
                // A reflection round's wider listing: the tools it adds, once.
                let more = req
                    .last_message()
                    .lines()
                    .find(|l| l.starts_with("More tools of category"))
                    .and_then(|l| l.split_once(": "));
                let first_line = match more {
                    Some((_, added)) => added,
                    None => listing.lines().next().unwrap_or(""),
                };
                let shown: Vec<&str> = first_line.split(", ").collect();
                let mut tools: Vec<String> = Vec::new();
                for g in &self.gold {
                    let tool = g.tool().to_string();
                    if self.category_of(g) == category
                        && shown.contains(&tool.as_str())
                        && !tools.contains(&tool)
                    {
                        tools.push(tool);
                    }
                }
                tools.truncate(5);
                if (results.len() == 1 || more.is_some()) && !tools.is_empty() {
                    call("create_tool_agent", json!({"tools": tools}))
                } else {
                    call("finish_search", json!({}))
                }
            }
            "anytool_tool" => {
                let tools: Vec<&str> = opening
                    .rsplit_once("tools: ")
                    .and_then(|(_, rest)| rest.split_once(". Add"))
                    .map_or(Vec::new(), |(t, _)| t.split(", ").collect());
                let step = results.len();
                if let Some(tool) = tools.get(step) {
                    return call("get_apis_in_tool", json!({"tool": tool}));
                }
                let mine: Vec<String> = self
                    .gold
                    .iter()
                    .filter(|g| tools.contains(&g.tool().as_str()))
                    .map(ToString::to_string)
                    .collect();
                match step - tools.len() {
                    0 => call("add_apis_to_pool", json!({"apis": mine})),
                    1 => call("check_if_solvable", json!({})),
                    _ => call("finish_search", json!({})),
                }
            }
            _ => {
                let offered: Vec<&str> = req.tools.iter().map(|t| t.name.as_str()).collect();
                if self
                    .gold_functions
                    .iter()
                    .all(|f| offered.contains(&f.as_str()))
                {
                    Reply::tool_call("Finish", answer("done"))
                } else {
                    Reply::tool_call("Finish", give_up("a needed API is not among my tools"))
                }
            }
        }
    }
}

#[async_trait]
impl ChatModel for Policy {
    async fn chat(&self, req: &ChatRequest) -> toolsmith_llm::Result<ChatResponse> {
        ScriptedLlm::new([self.decide(req)]).chat(req).await
    }

    fn model_name(&self) -> &str {
        "policy"
    }
}

/// One query of a test set with its gold APIs resolved in the catalog.
struct Query {
    text: String,
    gold: Vec<ApiId>,
}

fn queries(hierarchy: &Hierarchy, file: &str, n: usize) -> (Vec<Query>, usize) {
    let raw: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(data(&format!(
            "toolbench/stabletoolbench/test_instruction/{file}"
        )))
        .unwrap(),
    )
    .unwrap();
    let mut out = Vec::new();
    let mut skipped = 0;
    for q in raw.iter().take(n) {
        let relevant = q["relevant APIs"].as_array().unwrap();
        let gold: Vec<ApiId> = relevant
            .iter()
            .filter_map(|g| {
                // A tool name several tools share: the one (first in id order) holding the API,
                // so the same queries are kept on every run.
                let api = g[1].as_str()?;
                hierarchy
                    .tools_named(g[0].as_str()?)
                    .find_map(|t| t.apis.iter().find(|a| a.api.name == api))
                    .map(|a| a.api.id.clone())
            })
            .collect();
        if gold.is_empty() || gold.len() < relevant.len() {
            skipped += 1;
            continue;
        }
        out.push(Query {
            text: q["query"].as_str().unwrap().to_owned(),
            gold,
        });
    }
    (out, skipped)
}

/// Totals of one mode over a query set.
#[derive(Default)]
struct Totals {
    parts: BTreeMap<Part, (u64, usize)>,
    queries: usize,
    answered: usize,
    /// Tokens of the answered queries.
    answered_tokens: u64,
    gold_in_pool: usize,
    without_agents: usize,
    seed_hits: usize,
}

impl Totals {
    fn add(&mut self, run: &Run, gold: &[ApiId]) {
        for (part, (t, c)) in tokens_by_part(&run.trace) {
            let slot = self.parts.entry(part).or_default();
            slot.0 += t;
            slot.1 += c;
        }
        self.queries += 1;
        self.answered += usize::from(run.answer.is_some());
        if run.answer.is_some() {
            self.answered_tokens += tokens_by_part(&run.trace)
                .values()
                .map(|(t, _)| *t)
                .sum::<u64>();
        }
        let mut agents = 0;
        for e in &run.trace {
            match &e.event {
                TraceEvent::PartTokens { pool, .. } => {
                    self.gold_in_pool += usize::from(gold.iter().all(|g| pool.contains(g)));
                }
                TraceEvent::AgentCreated { .. } => agents += 1,
                TraceEvent::Seeded { apis, .. } => {
                    self.seed_hits += gold.iter().filter(|g| apis.contains(g)).count();
                }
                _ => {}
            }
        }
        self.without_agents += usize::from(agents == 0);
    }

    fn tokens(&self) -> f64 {
        self.parts.values().map(|(t, _)| *t).sum::<u64>() as f64 / self.queries.max(1) as f64
    }

    fn report(&self, set: &str, mode: &str, paper: f64) {
        let n = self.queries.max(1) as f64;
        let calls = self.parts.values().map(|(_, c)| *c).sum::<usize>() as f64 / n;
        let parts: Vec<String> = self
            .parts
            .iter()
            .map(|(p, (t, c))| format!("{p:?} {:.0}/{:.1}", *t as f64 / n, *c as f64 / n))
            .collect();
        eprintln!(
            "{set} {mode}: {} queries; per query {:.0} tokens ({:.2}x paper), {calls:.1} calls; \
             answered {} ({:.0} tokens each), gold in pool {}, no agents {}, gold APIs seeded {}; by part (tokens/calls \
             per query): {}",
            self.queries,
            self.tokens(),
            self.tokens() / paper,
            self.answered,
            self.answered_tokens as f64 / self.answered.max(1) as f64,
            self.gold_in_pool,
            self.without_agents,
            self.seed_hits,
            parts.join(", ")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "imports ToolEnv2404 (46,802 APIs); a measurement"]
async fn measure_paper_vs_search_assisted_on_g1_and_g2() {
    let started = Instant::now();
    let batch = read_source(
        &data("toolbench/toolenv2404/toolenv2404_filtered.tar.gz"),
        &ImportOptions {
            keep_going: true,
            ..ImportOptions::default()
        },
    )
    .unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let hierarchy = Arc::new(Hierarchy::from_catalog(&catalog, CategoryBy::Category));
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    let bm25: Arc<dyn Retriever> = Arc::new(Bm25Index::build(
        Arc::new(Corpus::from_catalog(&catalog)),
        Bm25Settings::default(),
    ));
    eprintln!(
        "catalog: {} tools in {} categories, read in {:?}",
        hierarchy.tool_count(),
        hierarchy.categories().count(),
        started.elapsed()
    );
    let n: usize = std::env::var("ANYTOOL_QUERIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    for file in ["G1_instruction.json", "G2_instruction.json"] {
        let (set, skipped) = queries(&hierarchy, file, n);
        eprintln!(
            "{file}: {} queries with every gold API in the catalog ({skipped} skipped)",
            set.len()
        );
        let assisted = AnyToolSettings::default();
        let mut modes: Vec<(String, AnyToolSettings)> = vec![(
            "paper".to_owned(),
            AnyToolSettings {
                search_assisted: false,
                ..AnyToolSettings::PAPER
            },
        )];
        for k in [0, 8, 12] {
            for trim in [false, true] {
                modes.push((
                    format!("search-assisted seed_k={k} trim_pool={trim}"),
                    AnyToolSettings {
                        seed_k: k,
                        trim_pool: trim,
                        ..assisted.clone()
                    },
                ));
            }
        }
        for chars in [0, 60, 150] {
            for cut in [20, 30] {
                modes.push((
                    format!(
                        "search-assisted seed_k=8 trim check_doc_chars={chars} listing_cut={cut}"
                    ),
                    AnyToolSettings {
                        check_doc_chars: chars,
                        listing_cut: cut,
                        ..assisted.clone()
                    },
                ));
            }
        }
        for depth in [300, 1000, 3000] {
            for cut in [20, 30] {
                modes.push((
                    format!("search-assisted seed_k=8 trim search_depth={depth} listing_cut={cut}"),
                    AnyToolSettings {
                        search_depth: depth,
                        listing_cut: cut,
                        ..assisted.clone()
                    },
                ));
            }
        }
        modes.push((
            "search-assisted trim defaults but judge_early_stop=false".to_owned(),
            AnyToolSettings {
                judge_early_stop: false,
                ..assisted.clone()
            },
        ));
        for widen in [1, 2, 3] {
            modes.push((
                format!("search-assisted trim defaults but reflection_widen={widen}"),
                AnyToolSettings {
                    reflection_widen: widen,
                    ..assisted.clone()
                },
            ));
        }
        for stop in [false, true] {
            modes.push((
                format!("search-assisted trim defaults but stop_unchanged={stop}"),
                AnyToolSettings {
                    stop_unchanged: stop,
                    ..assisted.clone()
                },
            ));
        }
        for tools in [0, 3, 5] {
            modes.push((
                format!("search-assisted trim defaults but listing_tools={tools}"),
                AnyToolSettings {
                    listing_tools: tools,
                    ..assisted.clone()
                },
            ));
        }
        for k in [8, 12, 16, 24, 32] {
            modes.push((
                format!("search-assisted trim defaults but seed_k={k}"),
                AnyToolSettings {
                    seed_k: k,
                    ..assisted.clone()
                },
            ));
        }
        if let Ok(only) = std::env::var("ANYTOOL_MODES") {
            modes.retain(|(name, _)| name == "paper" || name.contains(only.as_str()));
        }
        eprintln!("default (search-assisted): {assisted:?}");
        let mut paper = 0.0;
        for (mode, settings) in modes {
            let mut totals = Totals::default();
            for q in &set {
                let entries: Vec<_> = q
                    .gold
                    .iter()
                    .filter_map(|g| hierarchy.api(g).map(|(_, e)| e.clone()))
                    .collect();
                let gold_functions = Toolset::new(&entries, &RenderOptions::default())
                    .api_specs()
                    .into_iter()
                    .map(|s| s.name.clone())
                    .collect();
                let policy = Policy {
                    gold: q.gold.clone(),
                    gold_functions,
                    hierarchy: Arc::clone(&hierarchy),
                };
                let mut rt = runtime(
                    Arc::new(policy),
                    Arc::new(ScriptedExecutor::new()),
                    Arc::clone(&book),
                );
                rt.retriever = Some(Arc::clone(&bm25));
                let run = AnyTool::new(rt, Arc::clone(&hierarchy), settings.clone())
                    .solve(&q.text, Toolset::default())
                    .await
                    .unwrap();
                totals.add(&run, &q.gold);
                if run.answer.is_none() && std::env::var("ANYTOOL_VERBOSE").is_ok() {
                    let gold: Vec<String> = q
                        .gold
                        .iter()
                        .map(|g| {
                            let category =
                                hierarchy.tool(g.tool()).map_or("", |t| t.category.as_str());
                            format!("{g} ({category})")
                        })
                        .collect();
                    let agents: Vec<String> = run
                        .trace
                        .iter()
                        .filter_map(|e| match &e.event {
                            TraceEvent::AgentCreated {
                                level,
                                category,
                                tools,
                                ..
                            } => Some(format!("{level}:{category:?}:{tools:?}")),
                            _ => None,
                        })
                        .collect();
                    eprintln!("  {mode}: unanswered; gold {gold:?}; agents {agents:?}");
                }
            }
            if mode == "paper" {
                paper = totals.tokens();
            }
            totals.report(file, &mode, paper);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "sleeps 300 ms per LLM call; a measurement"]
async fn measure_concurrent_vs_sequential_wall_clock() {
    let mut times = Vec::new();
    for concurrency in [8, 1] {
        let (hierarchy, book) = crate::anytool::world();
        let mut llm = ScriptedLlm::new([])
            .with_delay(Duration::from_millis(300))
            .with_rule_times(
                When::role("anytool_meta"),
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
            .with_rule(When::role("anytool_meta"), call("finish_search", json!({})));
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
        llm = llm
            .with_rule(
                When::role("anytool_category"),
                call("finish_search", json!({})),
            )
            .with_rule_times(
                When::role("anytool_tool").and_last_message_contains("Request:"),
                call("get_apis_in_tool", json!({"tool": "movies"})),
                3,
            )
            .with_rule(When::role("anytool_tool"), call("finish_search", json!({})))
            .with_rule(
                When::role("agent"),
                Reply::tool_call("Finish", answer("done")),
            )
            .with_rule(When::role("anytool_judge"), Reply::text("SOLVED\nok"));
        let rt = runtime(
            Arc::new(llm.clone()),
            Arc::new(ScriptedExecutor::new()),
            book,
        );
        let settings = AnyToolSettings {
            concurrency,
            judge_votes: 1,
            ..AnyToolSettings::PAPER
        };
        let start = Instant::now();
        AnyTool::new(rt, hierarchy, settings)
            .solve("q", Toolset::default())
            .await
            .unwrap();
        let took = start.elapsed();
        eprintln!(
            "concurrency {concurrency}: {} LLM calls in {took:?}",
            llm.requests().len()
        );
        times.push(took);
    }
    eprintln!(
        "speed-up: {:.2}x",
        times[1].as_secs_f64() / times[0].as_secs_f64()
    );
}
