//! Intent extraction from the command line: `bench retrieval --intents` and `search --intents
//! --explain` over a small city API, the model a loopback OpenAI-compatible server.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::support::model::{Prompts, TextModel};
use crate::support::{Workspace, json_of, spec};

/// Air and city APIs, mail APIs sharing the status API's words, and some film APIs: a request
/// mixing air and mail words ranks the air APIs and the other mail APIs above the status API.
fn city_spec() -> Value {
    spec::city(
        "Whether a mail provider's API is operational",
        &[(
            "mail_keys",
            "/mail/keys",
            "Rotate the API keys of an account at a mail provider",
        )],
        &[
            ("top_rated", "/movie/top", "The top rated movies"),
            (
                "movie_reviews",
                "/movie/reviews",
                "What reviewers wrote about a movie",
            ),
        ],
    )
}

/// Two requests that need two APIs each, mostly in air and city words.
const QUERIES: &str = r#"[
  {"query": "The latest air quality report for the city of Beijing, the air quality of the city, and is the Mailcheap mail provider API working", "solution": ["GET /air/quality", "GET /service/uptime"]},
  {"query": "Air quality forecast of the city of Paris for the next days, the air of the city, and is the Fastmail mail provider API working", "solution": ["GET /air/forecast", "GET /service/uptime"]}
]"#;

/// What the loopback model says the intents of a request are.
fn intents_of(prompt: &str) -> Value {
    if prompt.contains("Beijing") {
        json!({"intents": ["latest air quality report of a city", "mail provider API operational"]})
    } else if prompt.contains("Paris") {
        json!({"intents": ["air quality forecast of a city", "mail provider API operational"]})
    } else {
        json!({"intents": []})
    }
}

/// A model answering each intents request from [`intents_of`], recording the prompts, and
/// finishing agent turns at once (the tests read what was offered).
async fn loopback() -> (std::net::SocketAddr, Prompts) {
    let reply = |prompt: &str| intents_of(prompt).to_string();
    TextModel::new(reply, (100, 20))
        .finishing_agents()
        .serve()
        .await
}

fn number(report: &Value, key: &str) -> f64 {
    report[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no {key}: {report:#}"))
}

/// Whole-path coverage of the plain top 2 (`--coverage-k 2`), %.
fn two(report: &Value) -> f64 {
    let point = &report["coverage_curve"][0];
    assert_eq!(point["k"], 2, "{report:#}");
    point["plain"].as_f64().unwrap()
}

/// A workspace with the city API imported, BM25 configured and the model at `addr`.
fn city_workspace(addr: std::net::SocketAddr) -> (Workspace, String) {
    Workspace::bm25_imported(addr, "", ("city.json", &city_spec()), QUERIES)
}

#[tokio::test(flavor = "multi_thread")]
async fn bench_retrieval_with_intents_covers_both_apis_and_reports_the_model_cost() {
    let (addr, seen) = loopback().await;
    let probe = Arc::clone(&seen);
    tokio::task::spawn_blocking(move || {
        let (ws, queries) = city_workspace(addr);
        let bench = |extra: &[&str]| {
            let mut args = vec![
                "bench",
                "retrieval",
                "--dataset",
                &queries,
                "--coverage-k",
                "2",
                "--json",
            ];
            args.extend_from_slice(extra);
            json_of(&ws.ok(&args))
        };
        let blob = bench(&[]);
        assert!(blob.get("intents").is_none(), "{blob:#}");
        assert_eq!(probe.lock().unwrap().len(), 0, "no model without --intents");
        let split = bench(&["--intents"]);
        // The blob's top 2 misses the status API for both requests; per intent it is found.
        assert_eq!(two(&blob), 0.0, "{blob:#}");
        assert_eq!(two(&split), 100.0, "{split:#}");
        // The blob's top 5 misses it for the Beijing request too.
        assert_eq!(number(&blob, "recall@5"), 75.0, "{blob:#}");
        assert_eq!(number(&split, "recall@5"), 100.0, "{split:#}");
        let cost = &split["intents"];
        assert_eq!(cost["fusion"], "round_robin");
        assert_eq!(cost["llm_calls"], 1.0, "one extraction per query: {cost:#}");
        assert_eq!(cost["cache_hits"], 0.0);
        assert_eq!(cost["prompt_tokens"], 100.0);
        assert_eq!(cost["completion_tokens"], 20.0);
        assert_eq!(probe.lock().unwrap().len(), 2);
        // Again: every extraction comes from the cache, the model is not asked.
        let again = bench(&["--intents"]);
        assert_eq!(again["intents"]["cache_hits"], 1.0, "{again:#}");
        assert_eq!(again["intents"]["prompt_tokens"], 0.0);
        assert_eq!(two(&again), 100.0);
        assert_eq!(probe.lock().unwrap().len(), 2);
        // `search --intents --explain` says which intent brought each hit.
        let hits = json_of(&ws.ok(&[
            "search",
            "The latest air quality report for the city of Beijing, the air quality of the city, \
             and is the Mailcheap mail provider API working",
            "-k",
            "2",
            "--intents",
            "--explain",
            "--json",
        ]));
        let by: Vec<(String, String)> = hits
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["api"].as_str().unwrap().to_owned(),
                    h["explanation"]["intent"]
                        .as_str()
                        .unwrap_or("-")
                        .to_owned(),
                )
            })
            .collect();
        assert_eq!(
            by,
            [
                (
                    "city/air_quality".to_owned(),
                    "latest air quality report of a city".to_owned()
                ),
                (
                    "city/service_uptime".to_owned(),
                    "mail provider API operational".to_owned()
                ),
            ],
            "{hits:#}"
        );
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn bench_run_with_intents_offers_the_fused_tools_and_notes_their_cost() {
    let (addr, seen) = loopback().await;
    let probe = Arc::clone(&seen);
    tokio::task::spawn_blocking(move || {
        let (ws, queries) = city_workspace(addr);
        let run = |extra: &[&str]| ws.bench_run_top2(&queries, extra);
        let offered =
            |run: i64| -> Vec<Vec<String>> { (0..2).map(|q| ws.offered(run, q)).collect() };
        let (plain, stderr) = run(&[]);
        assert!(!stderr.contains("intent extraction"), "{stderr}");
        assert!(offered(plain)[0].iter().all(|a| a != "city/service_uptime"));
        assert!(
            probe.lock().unwrap().is_empty(),
            "no extraction without --intents"
        );
        let (split, stderr) = run(&["--intents", "--name", "split"]);
        assert_eq!(
            offered(split),
            [
                ["city/air_quality", "city/service_uptime"],
                ["city/air_forecast", "city/service_uptime"],
            ]
        );
        assert!(
            stderr.contains("intent extraction: 2 LLM call(s) (0 from the cache), 200 prompt + 40"),
            "{stderr}"
        );
        assert_eq!(probe.lock().unwrap().len(), 2);
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_config_turns_intents_on_for_search_and_the_flag_turns_them_off() {
    let (addr, _) = loopback().await;
    tokio::task::spawn_blocking(move || {
        let (ws, _) = city_workspace(addr);
        let config = ws.dir.path().join("toolsmith.toml");
        let mut toml = std::fs::read_to_string(&config).unwrap();
        toml.push_str("\n[retrieve.intents]\nenabled = true\nfusion = \"rrf\"\n");
        std::fs::write(&config, toml).unwrap();
        let request = "The latest air quality report for the city of Beijing, the air quality \
                       of the city, and is the Mailcheap mail provider API working";
        let top2 = |extra: &[&str]| -> Vec<String> {
            let mut args = vec!["search", request, "-k", "2", "--json"];
            args.extend_from_slice(extra);
            let hits = json_of(&ws.ok(&args));
            let mut apis: Vec<String> = hits
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["api"].as_str().unwrap().to_owned())
                .collect();
            apis.sort();
            apis
        };
        assert_eq!(top2(&[]), ["city/air_quality", "city/service_uptime"]);
        assert_eq!(
            top2(&["--no-intents"]),
            ["city/air_quality", "city/city_report"]
        );
    })
    .await
    .unwrap();
}
