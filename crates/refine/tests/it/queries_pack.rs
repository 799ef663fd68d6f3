//! `refine --method queries` with `pack_tools`: the partial chunks of small tools share one
//! model request, each tool shown once with its APIs after it, every API keeps its own views,
//! and a resumed run asks the very same prompts.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolsmith_catalog::{ApiId, DocSelector, ImportOptions, Scope, Store, ToolEntry, read_bytes};
use toolsmith_llm::testing::{Reply, ScriptedEmbedder, ScriptedLlm, When};
use toolsmith_refine::{
    Estimate, Method, QueryExpansion, QueryWriter, QueryWriterSettings, RefineStore, Round, RunId,
    RunReport, RunSpec, Runner, Stop,
};

use crate::support::{Recorder, queries_of};

/// Three tools of 2, 1 and 4 APIs, in tool-id order: with five APIs a chunk, packing merges
/// the first two (3 APIs) and leaves the third (4 more would make 7) on its own.
const TOOLS: [(&str, &[&str]); 3] = [
    ("Aviary", &["/birds", "/cages"]),
    ("Bakery", &["/loaves"]),
    ("Circus", &["/acts", "/clowns", "/tents", "/tickets"]),
];

fn spec(title: &str, paths: &[&str]) -> Vec<u8> {
    let paths: serde_json::Map<String, Value> = paths
        .iter()
        .map(|p| {
            let summary = format!("List the {}", p.trim_start_matches('/'));
            ((*p).to_owned(), json!({"get": {"summary": summary}}))
        })
        .collect();
    let description = format!("Everything about the {title}.");
    json!({"openapi": "3.0.0", "paths": paths,
           "info": {"title": title, "version": "1", "description": description}})
    .to_string()
    .into_bytes()
}

fn store() -> Store {
    let mut store = Store::in_memory().unwrap();
    for (title, paths) in TOOLS {
        let name = format!("{title}.json");
        let batch = read_bytes(
            name.as_ref(),
            &spec(title, paths),
            &ImportOptions::default(),
        )
        .unwrap();
        store
            .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
            .unwrap();
    }
    store
}

/// Every API, tool by tool, each tool's sorted by id.
fn apis() -> Vec<ApiId> {
    let mut apis: Vec<ApiId> = TOOLS
        .iter()
        .flat_map(|(title, paths)| {
            paths.iter().map(move |p| {
                let tool = title.to_lowercase();
                format!("{tool}/get_{}", p.trim_start_matches('/'))
                    .parse()
                    .unwrap()
            })
        })
        .collect();
    apis.sort();
    apis
}

fn planned(store: &Store) -> Vec<ToolEntry> {
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let apis = apis();
    toolsmith_refine::plan(&catalog, |api| apis.contains(api))
}

fn settings(pack_tools: bool) -> QueryWriterSettings {
    QueryWriterSettings {
        count: 3,
        apis_per_call: 5,
        pack_tools,
        ..QueryWriterSettings::PAPER
    }
}

/// The three views of the `n`th API (of [`apis`]): words no other view shares.
fn views(n: usize) -> Vec<String> {
    (0..3)
        .map(|k| format!("w{n}x{k}a w{n}x{k}b w{n}x{k}c w{n}x{k}d"))
        .collect()
}

/// Replies by the first API a request shows: the packed Aviary and Bakery (or Aviary
/// alone), Bakery alone, Circus.
fn llm() -> ScriptedLlm {
    let reply = |first: usize, len: usize| {
        let lists: serde_json::Map<String, Value> = (0..len)
            .map(|i| ((i + 1).to_string(), json!(views(first + i))))
            .collect();
        Reply::text(Value::Object(lists).to_string())
    };
    ScriptedLlm::new([])
        .with_rule(
            When::last_message_contains("### aviary/get_birds"),
            reply(0, 3),
        )
        .with_rule(
            When::last_message_contains("### bakery/get_loaves"),
            reply(2, 1),
        )
        .with_rule(
            When::last_message_contains("### circus/get_acts"),
            reply(3, 4),
        )
}

fn new_run(refine: &RefineStore, pack_tools: bool) -> RunId {
    refine
        .create_run(&RunSpec {
            method: Method::Queries,
            apis: apis(),
            settings: serde_json::to_value(settings(pack_tools)).unwrap(),
            mode: toolsmith_exec::Mode::Simulate,
            from_label: "original".parse().unwrap(),
            writer: None,
        })
        .unwrap()
}

/// Runs the expansion over every API, three at once, asking `llm`.
async fn run(
    llm: &ScriptedLlm,
    catalog: &Mutex<Store>,
    refine: &RefineStore,
    run: RunId,
    pack_tools: bool,
) -> RunReport {
    let tools = planned(&toolsmith_plumbing::sqlite::lock(catalog));
    let embedder = Arc::new(ScriptedEmbedder::default());
    let writer =
        QueryWriter::new(Arc::new(llm.clone()), Some(embedder), settings(pack_tools)).unwrap();
    Runner::new(
        &QueryExpansion::new(writer),
        catalog,
        refine,
        &Recorder::default(),
        3,
    )
    .run(run, &tools)
    .await
    .unwrap()
}

fn sorted_prompts(llm: &ScriptedLlm) -> Vec<String> {
    let mut prompts: Vec<String> = llm
        .requests()
        .iter()
        .map(|r| r.last_message().to_owned())
        .collect();
    prompts.sort();
    prompts
}

/// Runs every API with `pack_tools`: the model requests made, and each API's views stored.
async fn requests_and_views(pack_tools: bool) -> (Vec<String>, Vec<Vec<String>>) {
    let catalog = Mutex::new(store());
    let refine = RefineStore::in_memory().unwrap();
    let id = new_run(&refine, pack_tools);
    let scripted = llm();
    let report = run(&scripted, &catalog, &refine, id, pack_tools).await;
    assert_eq!(report.apis.len(), 7);
    assert!(
        report.failed.is_empty() && report.refused.is_empty(),
        "{report:?}"
    );
    let store = catalog.into_inner().unwrap();
    let stored = apis().iter().map(|api| queries_of(&store, api)).collect();
    (sorted_prompts(&scripted), stored)
}

#[tokio::test]
async fn packed_small_tools_share_a_request_and_every_api_keeps_its_own_views() {
    let expected: Vec<Vec<String>> = (0..7).map(views).collect();
    let (packed, stored) = requests_and_views(true).await;
    assert_eq!(
        packed.len(),
        2,
        "Aviary with Bakery, then Circus: {packed:#?}"
    );
    assert_eq!(stored, expected);

    let (unpacked, stored) = requests_and_views(false).await;
    assert_eq!(unpacked.len(), 3, "a request per tool: {unpacked:#?}");
    assert_eq!(stored, expected);
}

#[tokio::test]
async fn the_packed_prompt_shows_each_tool_once_with_its_apis_under_it() {
    let (prompts, _) = requests_and_views(true).await;
    let packed = prompts
        .iter()
        .find(|p| p.contains("### aviary/get_birds"))
        .unwrap();
    let at = |needle: &str| {
        assert_eq!(packed.matches(needle).count(), 1, "{needle} in\n{packed}");
        packed.find(needle).unwrap()
    };
    let order = [
        at("can use the tools below"),
        at("The tool:\n## Aviary (`aviary`)"),
        at("Everything about the Aviary."),
        at("API 1 (write 3 request(s)):\n### aviary/get_birds\n"),
        at("API 2 (write 3 request(s)):\n### aviary/get_cages\n"),
        at("The tool:\n## Bakery (`bakery`)"),
        at("Everything about the Bakery."),
        at("API 3 (write 3 request(s)):\n### bakery/get_loaves\n"),
    ];
    assert!(order.is_sorted(), "{order:?} in\n{packed}");
    assert!(!packed.contains("circus"), "{packed}");
    assert!(!packed.contains("API 4 ("), "{packed}");

    // The chunk of one tool is asked as before packing.
    let alone = prompts
        .iter()
        .find(|p| p.contains("### circus/get_acts"))
        .unwrap();
    assert!(
        alone.starts_with("Imagine people talking to an assistant that can use the tool below.")
    );
    assert!(
        alone.contains("The tool:\n## Circus (`circus`)\n"),
        "{alone}"
    );
    assert!(alone.contains("API 4 (write 3 request(s)):\n### circus/get_tickets\n"));
}

#[tokio::test]
async fn a_resumed_packed_run_asks_the_very_same_prompts() {
    let (first_attempt, _) = requests_and_views(true).await;
    assert_eq!(first_attempt.len(), 2, "packed: {first_attempt:#?}");

    // An earlier attempt finished Bakery's API, the packed chunk's last, and nothing else.
    let catalog = Mutex::new(store());
    let refine = RefineStore::in_memory().unwrap();
    let id = new_run(&refine, true);
    let loaves: ApiId = "bakery/get_loaves".parse().unwrap();
    let mut finished = Round::new(1, "List the loaves");
    finished.queries = vec!["a view from before".into()];
    finished.stop = Some(Stop::Done);
    refine.save_round(id, &loaves, &finished).unwrap();
    refine.finish_api(id, &loaves, None).unwrap();

    let resumed = llm();
    let report = run(&resumed, &catalog, &refine, id, true).await;
    assert_eq!((report.already_done, report.apis.len()), (1, 6));
    assert_eq!(
        sorted_prompts(&resumed),
        first_attempt,
        "the same prompts, so the response cache answers them"
    );
    assert_eq!(refine.rounds(id, &loaves).unwrap(), [finished]);
    let store = catalog.into_inner().unwrap();
    assert_eq!(queries_of(&store, &apis()[1]), views(1));
}

#[tokio::test]
async fn a_packed_follow_up_asks_only_the_short_api_under_its_own_tool() {
    let catalog = Mutex::new(store());
    let refine = RefineStore::in_memory().unwrap();
    let id = new_run(&refine, true);
    // Bakery's API (number 3) gets one view of three at first.
    let first = json!({"1": views(0), "2": views(1), "3": [views(2)[0]]});
    let follow_up = json!({"1": views(2)[1..]});
    let scripted = ScriptedLlm::new([])
        .with_rule_times(
            When::last_message_contains("### aviary/get_birds"),
            Reply::text(first.to_string()),
            1,
        )
        .with_rule(
            When::last_message_contains("### bakery/get_loaves"),
            Reply::text(follow_up.to_string()),
        )
        .with_rule(
            When::last_message_contains("### circus/get_acts"),
            Reply::text(
                json!({"1": views(3), "2": views(4), "3": views(5), "4": views(6)}).to_string(),
            ),
        );
    let report = run(&scripted, &catalog, &refine, id, true).await;
    assert!(report.failed.is_empty(), "{report:?}");

    let prompts = sorted_prompts(&scripted);
    assert_eq!(prompts.len(), 3, "{prompts:#?}");
    let again = prompts
        .iter()
        .find(|p| p.contains("### bakery/get_loaves") && !p.contains("aviary"))
        .unwrap();
    assert!(again.contains("can use the tool below"), "{again}");
    assert!(
        again.contains("The tool:\n## Bakery (`bakery`)\n"),
        "{again}"
    );
    assert!(
        again.contains("API 1 (write 2 request(s)):\n### bakery/get_loaves\n"),
        "{again}"
    );
    let store = catalog.into_inner().unwrap();
    assert_eq!(queries_of(&store, &apis()[2]), views(2));
    assert_eq!(queries_of(&store, &apis()[0]), views(0));
}

#[test]
fn the_estimate_counts_a_packed_chunk_once() {
    let jobs = toolsmith_refine::jobs(&planned(&store()));
    let total = |s: &QueryWriterSettings| {
        let mut sum = Estimate::default();
        for job in &jobs {
            sum += s.estimate(job);
        }
        sum
    };
    let asks = u64::from(QueryWriterSettings::PAPER.max_asks);
    assert_eq!(total(&settings(false)).requests, 3 * asks);
    assert_eq!(total(&settings(true)).requests, 2 * asks);
    let counted: Vec<String> = jobs
        .iter()
        .filter(|job| settings(true).estimate(job).requests > 0)
        .map(|job| job.id().to_string())
        .collect();
    assert_eq!(counted, ["aviary/get_birds", "circus/get_acts"]);
}

#[test]
fn a_stored_setting_without_pack_tools_reads_as_off() {
    let read: QueryWriterSettings =
        serde_json::from_value(json!({"count": 3, "apis_per_call": 5})).unwrap();
    assert!(!read.pack_tools, "old runs resume with the chunks they had");
}
