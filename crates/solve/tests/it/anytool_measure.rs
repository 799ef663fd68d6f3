//! AnyTool measurements (ignored: slow; run with `--ignored --nocapture`): tokens and calls per
//! part in paper vs search-assisted mode over ToolEnv2404 with a scripted policy that walks
//! to each query's gold tools, and wall-clock with concurrent vs sequential agents.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_source};
use toolsmith_exec::ApiBook;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};
use toolsmith_retrieve::{Bm25Index, Bm25Settings, Corpus, Retriever};
use toolsmith_solve::{
    AnyTool, AnyToolSettings, CategoryBy, Hierarchy, Part, Solver, Toolset, tokens_by_part,
};

use crate::support::*;

fn data(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(relative)
}

fn call(name: &str, args: Value) -> Reply {
    Reply::tool_call(name, args.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "imports ToolEnv2404 (46,802 APIs); a measurement"]
async fn measure_paper_vs_search_assisted_on_g1() {
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
    store.import(&batch, false).unwrap();
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
    let queries: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(data(
            "toolbench/stabletoolbench/test_instruction/G1_instruction.json",
        ))
        .unwrap(),
    )
    .unwrap();
    for (mode, assisted) in [("paper", false), ("search-assisted", true)] {
        let mut total: std::collections::BTreeMap<Part, (u64, usize)> = Default::default();
        let mut n = 0;
        for q in queries.iter().take(20) {
            let query = q["query"].as_str().unwrap();
            let gold = &q["relevant APIs"][0];
            let Some(tool) = hierarchy.find_tool(gold[0].as_str().unwrap()) else {
                continue;
            };
            let apis: Vec<String> = q["relevant APIs"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|g| {
                    let t = hierarchy.find_tool(g[0].as_str()?)?;
                    let a = t
                        .apis
                        .iter()
                        .find(|a| a.api.name == g[1].as_str().unwrap_or(""))?;
                    Some(a.api.id.to_string())
                })
                .collect();
            let llm = ScriptedLlm::new([])
                .with_rule_times(
                    When::role("anytool_meta"),
                    call("list_categories", json!({})),
                    1,
                )
                .with_rule_times(
                    When::role("anytool_meta"),
                    call("create_category_agent", json!({"category": tool.category})),
                    1,
                )
                .with_rule(When::role("anytool_meta"), call("finish_search", json!({})))
                .with_rule_times(
                    When::role("anytool_category"),
                    call("get_tools_in_category", json!({"category": tool.category})),
                    1,
                )
                .with_rule_times(
                    When::role("anytool_category"),
                    call("create_tool_agent", json!({"tools": [tool.id.to_string()]})),
                    1,
                )
                .with_rule(
                    When::role("anytool_category"),
                    call("finish_search", json!({})),
                )
                .with_rule_times(
                    When::role("anytool_tool"),
                    call("get_apis_in_tool", json!({"tool": tool.id.to_string()})),
                    1,
                )
                .with_rule_times(
                    When::role("anytool_tool"),
                    call("add_apis_to_pool", json!({"apis": apis})),
                    1,
                )
                .with_rule(
                    When::role("anytool_tool"),
                    call("check_if_solvable", json!({})),
                )
                .with_rule(When::role("anytool_check"), Reply::text("YES"))
                .with_rule(
                    When::role("agent"),
                    Reply::tool_call("Finish", answer("done")),
                )
                .with_rule(When::role("anytool_judge"), Reply::text("SOLVED\nok"));
            let mut rt = runtime(
                Arc::new(llm),
                Arc::new(ScriptedExecutor::new()),
                Arc::clone(&book),
            );
            rt.retriever = Some(Arc::clone(&bm25));
            let settings = AnyToolSettings {
                search_assisted: assisted,
                ..AnyToolSettings::default()
            };
            let run = AnyTool::new(rt, Arc::clone(&hierarchy), settings)
                .solve(query, Toolset::default())
                .await
                .unwrap();
            for (part, (t, c)) in tokens_by_part(&run.trace) {
                let slot = total.entry(part).or_default();
                slot.0 += t;
                slot.1 += c;
            }
            n += 1;
        }
        let tokens: u64 = total.values().map(|(t, _)| t).sum();
        let calls: usize = total.values().map(|(_, c)| c).sum();
        eprintln!(
            "{mode}: {n} queries, per query {} tokens, {} calls; by part (tokens, calls) over all: {total:?}",
            tokens / n.max(1) as u64,
            calls / n.max(1)
        );
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
