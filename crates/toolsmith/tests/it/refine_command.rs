//! `toolsmith refine --method draft` end to end: a loopback OpenAI-compatible server plays the
//! explorer, analyzer, rewriter and the embedding endpoint; TMDB's API is simulated.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::support::{WEATHER_FUNCTION, Workspace, serve_loopback, shared, text_completion};

const REFINED: &str =
    "Finds movies by a title text; returns results with id, title and release date.";

const QUERIES: &[&str] = &[
    "Find the movie Dune",
    "Which films are called Alien",
    "Look up Heat from 1995",
    "Search for Amelie",
    "Is there a film named Up",
    "Titanic please",
    "Show The Matrix",
];

#[derive(Clone, Default)]
struct State {
    explorer_calls: Arc<AtomicUsize>,
}

async fn chat(state: axum::extract::State<State>, Json(request): Json<Value>) -> Json<Value> {
    let last = request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_owned();
    let reply = if last.contains("You are testing an API") || last.contains("too close") {
        let n = state.explorer_calls.fetch_add(1, Ordering::SeqCst);
        let query = QUERIES[n % QUERIES.len()];
        json!({"query": query, "arguments": {"query": query}})
    } else if last.contains("You review API documentation") {
        json!({"suggestions": "Say that results carry ids and release dates."})
    } else if last.contains("You maintain the documentation") {
        json!({"description": REFINED, "next_exploration": "try a title with a year"})
    } else {
        json!({"description": "TMDB: movie data. Functions: search movies by title."})
    };
    text_completion(&request, reply.to_string(), (200, 40))
}

/// 8 dimensions: how many words start with each letter group, so texts sharing words are close.
async fn embeddings(Json(request): Json<Value>) -> Json<Value> {
    let inputs: Vec<String> = request["input"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let mut v = vec![0.01f32; 8];
            for word in text.split_whitespace() {
                let b = word.to_lowercase().bytes().next().unwrap_or(0);
                v[usize::from(b) % 8] += 1.0;
            }
            json!({"index": i, "embedding": v})
        })
        .collect();
    Json(json!({"data": data}))
}

/// A workspace with RestBench's TMDB imported and its model (chat and embeddings) at a
/// loopback server that plays explorer, analyzer and rewriter.
async fn tmdb_with_loopback_model() -> Workspace {
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/embeddings", post(embeddings))
        .with_state(State::default());
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        format!(
            "[llm]\nbase_url = \"http://{addr}/v1\"\nmodel = \"loopback-model\"\n\
             [retrieve]\nembedder = \"http\"\nembedding_dimensions = 8\n"
        ),
    )
    .unwrap();
    ws
}

#[tokio::test(flavor = "multi_thread")]
async fn refine_draft_stores_a_draft_doc_version_with_its_rounds() {
    let ws = tmdb_with_loopback_model().await;
    let api = "tmdb/get_search_movie";
    let ws = tokio::task::spawn_blocking(move || {
        let dry = ws.ok(&["refine", "--method", "draft", "--apis", api, "--dry-run"]);
        assert!(
            dry.contains("draft on 1 APIs of 1 tools: at most 78 LLM calls (26 requests"),
            "{dry}"
        );
        let out = ws.ok(&[
            "refine",
            "--method",
            "draft",
            "--apis",
            api,
            "--concurrency",
            "2",
        ]);
        assert!(
            out.contains("1 APIs refined (1 new `draft` doc versions)"),
            "{out}"
        );

        let history: Value =
            serde_json::from_str(&ws.ok(&["docs", "history", api, "--rounds", "--json"])).unwrap();
        let versions = history["versions"].as_array().unwrap();
        let draft = versions.iter().find(|v| v["label"] == "draft").unwrap();
        assert_eq!(draft["doc"]["description"], REFINED);
        assert_eq!(draft["active"], false, "refine never activates");
        let rounds = history["rounds"].as_array().unwrap();
        assert_eq!(rounds.len(), 2, "the doc settled in round 2: {rounds:?}");
        assert_eq!(rounds[1]["round"]["stop"], "settled");
        assert!(rounds[0]["round"]["exploration"]["query"].is_string());

        let text = ws.ok(&["docs", "history", api, "--rounds"]);
        assert!(
            text.contains("round 1:") && text.contains("explored: Find the movie Dune"),
            "{text}"
        );
        // The simulator filled the spec's defaults of what the explorer left out.
        assert!(
            text.contains(r#"with schema defaults: {"page":1,"include_adult":false}"#),
            "{text}"
        );
        let diff = ws.ok(&["docs", "diff", api, "original", "draft"]);
        assert!(diff.contains("{+") && diff.contains("[-"), "{diff}");

        // Every round's doc is a version of its own: the trajectory, addressable by label.
        let labels: Vec<&str> = versions
            .iter()
            .map(|v| v["label"].as_str().unwrap())
            .filter(|l| l.starts_with("draft"))
            .collect();
        assert_eq!(labels, ["draft.r1", "draft.r2", "draft"]);
        assert!(
            versions
                .iter()
                .filter(|v| v["label"] != "original")
                .all(|v| v["active"] == false)
        );
        let r1 = versions.iter().find(|v| v["label"] == "draft.r1").unwrap();
        assert_eq!(r1["source"], "refine run 1 (draft, round 1)");
        let diff = ws.ok(&["docs", "diff", api, "original", "draft.r1"]);
        assert!(diff.contains("[draft.r1]") && diff.contains("{+"), "{diff}");
        let diff = ws.ok(&["docs", "diff", api, "draft.r1", "draft.r2"]);
        assert!(
            diff.contains("[draft.r1] -> v") && diff.contains("[draft.r2]"),
            "{diff}"
        );
        assert_eq!(
            text.matches("round 1:").count(),
            1,
            "each round is shown once, under its own version: {text}"
        );

        // A finished run resumed redoes nothing and stores no version twice.
        let again = ws.ok(&["refine", "--resume"]);
        assert!(
            again.contains("0 APIs refined") && again.contains("1 done before"),
            "{again}"
        );
        let after: Value =
            serde_json::from_str(&ws.ok(&["docs", "history", api, "--json"])).unwrap();
        assert_eq!(after["versions"].as_array().unwrap().len(), versions.len());

        let activated = ws.ok(&["docs", "activate", "--all", "draft"]);
        assert!(
            activated.contains("2 docs now show their `draft` version"),
            "{activated}"
        );
        let shown = ws.ok(&["show", api]);
        assert!(shown.contains(REFINED), "{shown}");
        ws
    })
    .await
    .unwrap();
    drop(ws);
}

/// Counts the loopback model's requests by kind: the simulator's (standing in for an API with
/// no response schema) and EasyTool's own.
#[derive(Clone, Default)]
struct Kinds {
    simulator: Arc<AtomicUsize>,
    refiner: Arc<AtomicUsize>,
}

async fn easytool_chat(
    kinds: axum::extract::State<Kinds>,
    Json(request): Json<Value>,
) -> Json<Value> {
    let text = request["messages"].to_string();
    let reply = if text.contains("You stand in for a web API") {
        kinds.simulator.fetch_add(1, Ordering::SeqCst);
        json!({"city": "Oslo", "temp_c": 4})
    } else {
        kinds.refiner.fetch_add(1, Ordering::SeqCst);
        if text.contains("Rewrite the documentation of one function") {
            json!({"description": "The current temperature in a city; needs `city`.",
                   "examples": [{"request": "How warm is it in Oslo now?", "arguments": {"city": "Oslo"}}]})
        } else {
            json!({"description": "Weather: the current temperature of a city."})
        }
    };
    text_completion(&request, reply.to_string(), (200, 40))
}

/// A refinement run pays for the responses the simulator asks the model to invent: they count
/// in the run's LLM calls and tokens, and so in its budget (`--max-tokens`, `--max-llm-calls`).
#[tokio::test(flavor = "multi_thread")]
async fn refine_counts_the_simulators_llm_calls_in_its_budget() {
    let kinds = Kinds::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(easytool_chat))
        .with_state(kinds.clone());
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    ws.import_weather();
    ws.use_llm(addr);
    let out = tokio::task::spawn_blocking(move || {
        // At most: the instruction and one regeneration, the tool's description, and the
        // simulator's answer to each of the two executions; each request with two repairs.
        let dry = ws.ok(&["refine", "--method", "easytool", "--dry-run"]);
        assert!(
            dry.contains("easytool on 1 APIs of 1 tools: at most 15 LLM calls (5 requests"),
            "{dry}"
        );
        ws.ok(&["refine", "--method", "easytool", "--mode", "simulate"])
    })
    .await
    .unwrap();
    let (simulator, refiner) = (
        kinds.simulator.load(Ordering::SeqCst),
        kinds.refiner.load(Ordering::SeqCst),
    );
    assert_eq!(
        simulator, 1,
        "the usage example was executed against an invented response"
    );
    assert_eq!(
        refiner, 2,
        "the API's instruction and the tool's description"
    );
    assert!(
        out.contains("1 APIs refined (1 new `easytool` doc versions)")
            && out.contains("3 LLM calls, 720 tokens"),
        "{out}"
    );
}

/// `refine --dry-run` estimates from the settings alone: no LLM endpoint, no embedding model.
#[test]
fn refine_dry_run_estimates_with_no_llm_configured() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    let api = "tmdb/get_search_movie";
    let easytool = ws.ok(&["refine", "--method", "easytool", "--apis", api, "--dry-run"]);
    // The instruction and one regeneration, and the tool's description: 3 requests, each
    // with up to two repairs.
    assert!(
        easytool.contains("easytool on 1 APIs of 1 tools: at most 9 LLM calls (3 requests"),
        "{easytool}"
    );
    let draft: Value = serde_json::from_str(&ws.ok(&[
        "refine",
        "--method",
        "draft",
        "--apis",
        api,
        "--dry-run",
        "--json",
    ]))
    .unwrap();
    // 5 rounds of 3 explorer tries, the analyzer and the rewriter, and the tool's description.
    assert_eq!(draft["estimate"]["requests"], 5 * (3 + 2) + 1, "{draft}");
    assert_eq!(
        draft["estimate"]["llm_calls"],
        3 * (5 * (3 + 2) + 1),
        "{draft}"
    );
    // Nothing was spent: no run was created.
    let out = ws.run(&["refine", "--resume"]);
    assert!(!out.status.success());
}

/// Counts the loopback model's replies; every one but the simulator's is unusable.
async fn unusable_chat(
    calls: axum::extract::State<Arc<AtomicUsize>>,
    Json(request): Json<Value>,
) -> Json<Value> {
    calls.fetch_add(1, Ordering::SeqCst);
    let text = request["messages"].to_string();
    let reply = if text.contains("You stand in for a web API") {
        json!({"city": "Oslo", "temp_c": 4})
    } else {
        Value::String("I would rather not write documentation today.".into())
    };
    let content = match &reply {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    text_completion(&request, content, (200, 40))
}

/// A model whose replies stay malformed after every repair: the API counts as failed, not
/// refined, and the calls made (repairs included) stay within the dry run's bound.
#[tokio::test(flavor = "multi_thread")]
async fn unusable_replies_are_failures_within_the_dry_run_bound() {
    let calls = Arc::new(AtomicUsize::new(0));
    let app = Router::new()
        .route("/v1/chat/completions", post(unusable_chat))
        .with_state(Arc::clone(&calls));
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    ws.import_weather();
    ws.use_llm(addr);
    let (dry, out) = tokio::task::spawn_blocking(move || {
        let dry: Value = serde_json::from_str(&ws.ok(&[
            "refine",
            "--method",
            "easytool",
            "--dry-run",
            "--json",
        ]))
        .unwrap();
        (dry, ws.ok(&["refine", "--method", "easytool"]))
    })
    .await
    .unwrap();
    let made = calls.load(Ordering::SeqCst) as u64;
    // The instruction and the tool's description, each asked three times (two repairs).
    assert_eq!(made, 6, "{out}");
    let bound = dry["estimate"]["llm_calls"].as_u64().unwrap();
    assert!(
        made <= bound,
        "{made} calls made, the dry run said at most {bound}"
    );
    assert!(
        out.contains("0 APIs refined")
            && out.contains("1 failed (1 of them: no model reply was usable"),
        "{out}"
    );
    assert!(
        out.contains("failed weather/current_weather: instruction: unusable reply"),
        "{out}"
    );
    assert!(out.contains("6 LLM calls"), "{out}");
}

/// `refine --gate FILE`: after the run, the new `easytool` doc of the weather API goes through
/// the activation gate on the file's queries, and becomes active because it ranks the API
/// first where the original doc did not rank it at all; a plain run leaves it a candidate.
#[tokio::test(flavor = "multi_thread")]
async fn refine_gate_activates_a_new_doc_that_ranks_better() {
    let app = Router::new()
        .route("/v1/chat/completions", post(easytool_chat))
        .with_state(Kinds::default());
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    for (tool, spec) in [
        ("weather", WEATHER_FUNCTION),
        (
            "stocks",
            r#"[{"type": "function", "function": {"name": "stock_price",
  "description": "The price of a share.",
  "parameters": {"type": "object", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]}}}]"#,
        ),
    ] {
        let file = ws.dir.path().join(format!("{tool}.json"));
        std::fs::write(&file, spec).unwrap();
        ws.ok(&["import", file.to_str().unwrap(), "--tool", tool]);
    }
    let queries: Vec<Value> = ["Oslo", "Lima", "Rome", "Oulu", "Bern"]
        .iter()
        .map(|city| json!({"query": format!("temperature of {city}"), "solution": ["current_weather"]}))
        .collect();
    std::fs::write(
        ws.dir.path().join("eval.json"),
        Value::from(queries).to_string(),
    )
    .unwrap();
    ws.use_llm(addr);
    let toml = ws.dir.path().join("toolsmith.toml");
    let config = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{config}[retrieve]\nmethod = \"bm25\"\n")).unwrap();
    let (plain, gated, history) = tokio::task::spawn_blocking(move || {
        let plain = ws.ok(&["refine", "--method", "easytool", "--apis", "weather"]);
        let gated = ws.ok(&[
            "refine",
            "--method",
            "easytool",
            "--apis",
            "weather",
            "--gate",
            "eval.json",
        ]);
        let history = ws.ok(&["docs", "history", "weather/current_weather", "--rounds"]);
        (plain, gated, history)
    })
    .await
    .unwrap();
    assert!(!plain.contains("gate round"), "{plain}");
    assert!(
        gated.contains("gate round 1: `easytool` on eval.json (5 eval queries)")
            && gated.contains("activated v2 (easytool): 5 queries, 5 better, 0 worse"),
        "{gated}"
    );
    assert!(history.contains("* v2 [easytool]"), "{history}");
}

/// Issue 31: `movie/latest` takes no parameters, so DRAFT explores it once: the loopback
/// explorer's `query` argument is not sent, and the one round stops as `no_parameters`.
#[tokio::test(flavor = "multi_thread")]
async fn refine_draft_explores_an_api_without_parameters_once() {
    let ws = tmdb_with_loopback_model().await;
    let api = "tmdb/get_movie_latest";
    let ws = tokio::task::spawn_blocking(move || {
        // One round of 3 explorer tries, the analyzer and the rewriter, and the tool's
        // description: 6 requests, each with up to two repairs.
        let dry = ws.ok(&["refine", "--method", "draft", "--apis", api, "--dry-run"]);
        assert!(dry.contains("at most 18 LLM calls (6 requests"), "{dry}");
        ws.ok(&["refine", "--method", "draft", "--apis", api]);
        let history: Value =
            serde_json::from_str(&ws.ok(&["docs", "history", api, "--rounds", "--json"])).unwrap();
        let rounds = history["rounds"].as_array().unwrap();
        assert_eq!(rounds.len(), 1, "{rounds:?}");
        let round = &rounds[0]["round"];
        assert_eq!(round["stop"], "no_parameters");
        assert_eq!(round["exploration"]["arguments"], json!({}));
        assert!(
            round["exploration"]["undocumented"]["query"].is_string(),
            "{round}"
        );
        let text = ws.ok(&["docs", "history", api, "--rounds"]);
        assert!(text.contains("stop: no_parameters"), "{text}");
        ws
    })
    .await
    .unwrap();
    drop(ws);
}
