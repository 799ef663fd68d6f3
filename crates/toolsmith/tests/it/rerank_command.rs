//! Reranking from the command line: `search --rerank --explain` and `bench retrieval
//! --rerank` over a small city API, the model a loopback OpenAI-compatible server that names
//! the candidates fitting the request.

use std::sync::Arc;

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::support::model::{Prompts, TextModel};
use crate::support::{Workspace, json_of, serve_loopback, spec, text_completion};

/// Air, mail and film APIs: the status API shares few words with requests about it.
fn city_spec() -> Value {
    spec::city("Whether a web service is up and running", &[], &[])
}

/// Mostly air and mail words; the status API is what the second half asks for.
const REQUEST: &str = "The latest air quality report of the city of Beijing, and is the \
                       Mailcheap mail provider's API working";

const QUERIES: &str = r#"[
  {"query": "The latest air quality report of the city of Beijing, and is the Mailcheap mail provider's API working", "solution": ["GET /air/quality", "GET /service/uptime"]},
  {"query": "Air quality forecast of the city of Paris for the next days, and is the Fastmail mail provider's API working", "solution": ["GET /air/forecast", "GET /service/uptime"]}
]"#;

/// The numbers of the prompt's candidates whose line holds each of `wanted`, in that order.
fn numbers_of(prompt: &str, wanted: &[&str]) -> Vec<usize> {
    wanted
        .iter()
        .filter_map(|w| {
            prompt.lines().find(|l| l.contains(w)).and_then(|l| {
                let rest = l.strip_prefix('[')?;
                rest.split(']').next()?.parse().ok()
            })
        })
        .collect()
}

/// Names the status API first, then the air API the request is about.
fn ranking_of(prompt: &str) -> String {
    let air = if prompt.contains("Paris") {
        "/air/forecast"
    } else {
        "/air/quality"
    };
    json!({"ranking": numbers_of(prompt, &["/service/uptime", air])}).to_string()
}

/// A workspace with the city API imported, BM25 configured and the model at `addr`.
fn city_workspace(addr: std::net::SocketAddr, extra_toml: &str) -> (Workspace, String) {
    Workspace::bm25_imported(addr, extra_toml, ("city.json", &city_spec()), QUERIES)
}

fn apis(hits: &Value) -> Vec<String> {
    hits.as_array()
        .unwrap()
        .iter()
        .map(|h| h["api"].as_str().unwrap().to_owned())
        .collect()
}

/// The model of [`ranking_of`], finishing agent turns at once (the tests read what was offered).
const RERANKER: TextModel = TextModel::new(ranking_of, (300, 10)).finishing_agents();

async fn loopback() -> (std::net::SocketAddr, Prompts) {
    RERANKER.serve().await
}

#[tokio::test(flavor = "multi_thread")]
async fn search_with_rerank_puts_the_named_apis_first_and_explains_the_move() {
    let (addr, seen) = loopback().await;
    tokio::task::spawn_blocking(move || {
        let (ws, _) = city_workspace(addr, "");
        let plain = json_of(&ws.ok(&["search", REQUEST, "-k", "3", "--json"]));
        assert!(
            !apis(&plain).contains(&"city/service_uptime".to_owned()),
            "the first stage must miss the status API for this test to mean anything: {plain:#}"
        );
        assert!(seen.lock().unwrap().is_empty(), "no model without --rerank");
        let hits = json_of(&ws.ok(&[
            "search",
            REQUEST,
            "-k",
            "3",
            "--rerank",
            "--explain",
            "--json",
        ]));
        assert_eq!(
            apis(&hits)[..2],
            [
                "city/service_uptime".to_owned(),
                "city/air_quality".to_owned()
            ],
            "{hits:#}"
        );
        let top = &hits[0]["explanation"];
        assert_eq!(top["method"], "reranked", "{top:#}");
        assert_eq!(top["rank"], 1);
        assert_eq!(top["picked"], true);
        assert!(top["first_stage_rank"].as_u64().unwrap() > 3, "{top:#}");
        assert_eq!(top["ranking"]["method"], "bm25");
        // The prompt numbers every candidate by its one-line doc.
        let prompts = seen.lock().unwrap().clone();
        assert_eq!(prompts.len(), 1, "search and explain share one question");
        assert!(prompts[0].contains(REQUEST));
        assert!(prompts[0].contains("[8] "), "{}", prompts[0]);
        // The text form says the hit moved.
        let text = ws.ok(&["search", REQUEST, "-k", "3", "--rerank", "--explain"]);
        assert!(text.contains("reranked: moved up to rank 1 from"), "{text}");
        assert_eq!(seen.lock().unwrap().len(), 1, "answered from the cache");
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn bench_retrieval_with_rerank_reports_the_gain_and_the_model_cost() {
    let (addr, seen) = loopback().await;
    tokio::task::spawn_blocking(move || {
        let (ws, queries) = city_workspace(addr, "");
        let bench = |extra: &[&str]| {
            let mut args = vec!["bench", "retrieval", "--dataset", &queries, "--json"];
            args.extend_from_slice(extra);
            json_of(&ws.ok(&args))
        };
        let plain = bench(&[]);
        assert!(plain.get("rerank").is_none(), "{plain:#}");
        let reranked = bench(&["--rerank"]);
        assert_eq!(reranked["ndcg@5"], 100.0, "{reranked:#}");
        assert!(
            plain["ndcg@5"].as_f64().unwrap() < 100.0,
            "the first stage must be imperfect for this test to mean anything: {plain:#}"
        );
        let cost = &reranked["rerank"];
        assert_eq!(cost["depth"], 20);
        assert_eq!(cost["llm_calls"], 1.0, "one question per query: {cost:#}");
        assert_eq!(cost["cache_hits"], 0.0);
        assert_eq!(cost["prompt_tokens"], 300.0);
        assert_eq!(cost["completion_tokens"], 10.0);
        assert_eq!(cost["unusable"], 0);
        assert_eq!(seen.lock().unwrap().len(), 2);
        let again = bench(&["--rerank"]);
        assert_eq!(again["rerank"]["cache_hits"], 1.0, "{again:#}");
        assert_eq!(again["rerank"]["prompt_tokens"], 0.0);
        assert_eq!(again["ndcg@5"], 100.0);
        assert_eq!(seen.lock().unwrap().len(), 2, "the replay asked no model");
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn bench_run_with_rerank_offers_the_reranked_tools_and_notes_their_cost() {
    let (addr, seen) = loopback().await;
    tokio::task::spawn_blocking(move || {
        let (ws, queries) = city_workspace(addr, "");
        let run = |extra: &[&str]| ws.bench_run_top2(&queries, extra);
        let offered = |run: i64, q: usize| ws.offered(run, q);
        let (plain, stderr) = run(&[]);
        assert!(!stderr.contains("reranking"), "{stderr}");
        assert!(offered(plain, 0).iter().all(|a| a != "city/service_uptime"));
        assert!(
            seen.lock().unwrap().is_empty(),
            "no reranking without --rerank"
        );
        let (reranked, stderr) = run(&["--rerank", "--name", "reranked"]);
        assert_eq!(
            offered(reranked, 0),
            ["city/air_quality", "city/service_uptime"]
        );
        assert_eq!(
            offered(reranked, 1),
            ["city/air_forecast", "city/service_uptime"]
        );
        assert!(
            stderr.contains("reranking: 2 LLM call(s) (0 from the cache), 600 prompt + 20"),
            "{stderr}"
        );
        assert_eq!(seen.lock().unwrap().len(), 2);
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_config_turns_rerank_on_and_the_flag_turns_it_off() {
    let (addr, seen) = loopback().await;
    tokio::task::spawn_blocking(move || {
        let (ws, _) = city_workspace(addr, "\n[retrieve.rerank]\nenabled = true\ndepth = 8\n");
        let top = |extra: &[&str]| -> Vec<String> {
            let mut args = vec!["search", REQUEST, "-k", "3", "--json"];
            args.extend_from_slice(extra);
            apis(&json_of(&ws.ok(&args)))
        };
        let off = ws.ok(&["search", REQUEST, "-k", "5", "--json", "--no-rerank"]);
        assert!(seen.lock().unwrap().is_empty(), "--no-rerank asks no model");
        let on = top(&[]);
        assert_eq!(on[0], "city/service_uptime");
        assert_ne!(on, apis(&json_of(&off))[..3]);
        assert_eq!(seen.lock().unwrap().len(), 1);
        // Off, the pipeline ranks exactly as a workspace that never heard of reranking.
        let config = ws.dir.path().join("toolsmith.toml");
        let toml = std::fs::read_to_string(&config).unwrap();
        let before = toml.split("\n[retrieve.rerank]").next().unwrap().to_owned();
        std::fs::write(&config, before).unwrap();
        let plain = ws.ok(&["search", REQUEST, "-k", "5", "--json"]);
        assert_eq!(off, plain);
    })
    .await
    .unwrap();
}

/// Names only the TV show credits, whatever the request.
async fn chat_tv_credits(Json(request): Json<Value>) -> Json<Value> {
    let prompt = request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default();
    let content = json!({"ranking": numbers_of(prompt, &["/tv/{tv_id}/credits"])}).to_string();
    text_completion(&request, content, (300, 10))
}

#[tokio::test(flavor = "multi_thread")]
async fn search_expands_the_reranked_offer_not_the_first_stage() {
    let app = Router::new().route("/v1/chat/completions", post(chat_tv_credits));
    let addr = serve_loopback(app).await;
    tokio::task::spawn_blocking(move || {
        let ws = Workspace::new();
        ws.use_llm(addr);
        ws.ok(&[
            "import",
            &crate::support::shared("restbench-tmdb/restgpt/tmdb_oas.json"),
        ]);
        ws.ok(&["graph", "build", "--no-similarity"]);
        let query = "Get the cast and crew for a movie";
        let args = ["search", query, "-k", "1", "--method", "bm25", "--json"];
        let plain = json_of(&ws.ok(&args));
        assert_eq!(
            plain[0]["api"], "tmdb/get_movie_movie_id_credits",
            "{plain:#}"
        );
        let hits = json_of(&ws.ok(&[&args[..], &["--rerank"]].concat()));
        assert_eq!(hits[0]["api"], "tmdb/get_tv_tv_id_credits", "{hits:#}");
        let added: Vec<&Value> = hits
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|h| h.get("added_for"))
            .collect();
        assert!(
            added
                .iter()
                .any(|a| a["api"] == "tmdb/get_tv_tv_id_credits" && a["param"] == "tv_id"),
            "the producer of the reranked top's id is added: {hits:#}"
        );
        assert!(
            added
                .iter()
                .all(|a| a["api"] != "tmdb/get_movie_movie_id_credits"),
            "nothing is added for the first stage's top: {hits:#}"
        );
    })
    .await
    .unwrap();
}

/// Requests in flight at the model, and the most seen at once.
#[derive(Default)]
struct InFlight {
    now: std::sync::atomic::AtomicUsize,
    most: std::sync::atomic::AtomicUsize,
    changed: tokio::sync::Notify,
    seen: Prompts,
}

/// [`RERANKER`], holding each request until a second one is in flight (or a hang guard passes),
/// so a client that asks one query after another shows 1 at once and a concurrent one 2.
async fn paired_chat(
    axum::extract::State(gate): axum::extract::State<Arc<InFlight>>,
    Json(request): Json<Value>,
) -> Json<Value> {
    use std::sync::atomic::Ordering::SeqCst;
    let now = gate.now.fetch_add(1, SeqCst) + 1;
    gate.most.fetch_max(now, SeqCst);
    gate.changed.notify_waiters();
    let paired = async {
        loop {
            let changed = gate.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if gate.most.load(SeqCst) >= 2 {
                break;
            }
            changed.await;
        }
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), paired).await;
    let reply = RERANKER.answer(&gate.seen, &request);
    gate.now.fetch_sub(1, SeqCst);
    reply
}

#[tokio::test(flavor = "multi_thread")]
async fn bench_retrieval_asks_the_model_about_several_queries_at_once() {
    let gate = Arc::new(InFlight::default());
    let app = Router::new()
        .route("/v1/chat/completions", post(paired_chat))
        .with_state(Arc::clone(&gate));
    let addr = serve_loopback(app).await;
    let report = tokio::task::spawn_blocking(move || {
        let (ws, queries) = city_workspace(addr, "");
        let args = [
            "bench",
            "retrieval",
            "--dataset",
            &queries,
            "--rerank",
            "--json",
        ];
        json_of(&ws.ok(&args))
    })
    .await
    .unwrap();
    assert_eq!(report["ndcg@5"], 100.0, "{report:#}");
    assert_eq!(report["rerank"]["llm_calls"], 1.0, "one question per query");
    assert_eq!(
        gate.most.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "both queries' reranking was asked before either answer came back"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_resumed_run_reranks_as_it_began_and_refuses_a_contrary_flag() {
    let (addr, seen) = loopback().await;
    tokio::task::spawn_blocking(move || {
        let (ws, queries) = city_workspace(addr, "");
        let first = json_of(&ws.ok(&[
            "bench",
            "run",
            "--dataset",
            &queries,
            "--tools",
            "retrieve:2",
            "--rerank",
            "--limit",
            "1",
            "--json",
        ]));
        let run = first["run"].as_i64().unwrap().to_string();
        assert_eq!(first["spec"]["rerank"], true, "{first:#}");
        assert_eq!(seen.lock().unwrap().len(), 1);
        let refused = ws.run(&[
            "bench",
            "run",
            "--resume",
            &run,
            "--no-rerank",
            "--limit",
            "2",
        ]);
        assert!(!refused.status.success());
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(stderr.contains("started with reranking on"), "{stderr}");
        // No flag: the second query is reranked as the first was.
        ws.ok(&["bench", "run", "--resume", &run, "--limit", "2"]);
        assert_eq!(
            seen.lock().unwrap().len(),
            2,
            "the resumed query was reranked"
        );
        let second = json_of(&ws.ok(&["bench", "show", &run, "1", "--json"]));
        let offered: Vec<&str> = second["offered"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert!(offered.contains(&"city/service_uptime"), "{second:#}");
    })
    .await
    .unwrap();
}
