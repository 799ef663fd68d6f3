//! The per-intent reranking window from the command line (`[retrieve.rerank] window =
//! "per_intent"`): `search --intents --rerank --explain` and `bench retrieval --intents
//! --rerank` over a small city API, the model a loopback OpenAI-compatible server that splits
//! the request and picks, for each need, the API it wants.

use serde_json::{Value, json};

use crate::support::model::{Prompts, TextModel};
use crate::support::{Workspace, json_of, spec};

/// Air, mail and film APIs; several share the words of each need.
fn city_spec() -> Value {
    spec::city("Whether a mail provider's API is operational", &[], &[])
}

const REQUEST: &str = "The latest air quality report of the city of Beijing, and is the \
                       Mailcheap mail provider's API operational";

const QUERIES: &str = r#"[
  {"query": "The latest air quality report of the city of Beijing, and is the Mailcheap mail provider's API operational", "solution": ["GET /air/quality", "GET /service/uptime"]},
  {"query": "Air quality forecast of the city of Paris for the next days, and is the Fastmail mail provider's API operational", "solution": ["GET /air/forecast", "GET /service/uptime"]}
]"#;

const MAIL_NEED: &str = "mail provider API operational";

/// The number of the first candidate line after `from` in `prompt` holding `path`.
fn number_after(prompt: &str, from: &str, path: &str) -> Option<usize> {
    let section = prompt.split_once(from)?.1;
    let line = section.lines().find(|l| l.contains(path))?;
    line.strip_prefix('[')?.split(']').next()?.parse().ok()
}

/// The reply to one prompt: intents for an extraction, per-need picks for a needs window
/// (need 1: the air API the request is about; need 2: the status API), none for a fused one.
fn reply_to(prompt: &str) -> Value {
    let paris = prompt.contains("Paris");
    if prompt.contains("You prepare searches") {
        let air = if paris {
            "air quality forecast of a city"
        } else {
            "latest air quality report of a city"
        };
        return json!({"intents": [air, MAIL_NEED]});
    }
    let air = if paris {
        "/air/forecast"
    } else {
        "/air/quality"
    };
    if prompt.contains("Need 1: ") {
        let need1 = number_after(prompt, "Need 1: ", air);
        let need2 = number_after(prompt, "Need 2: ", "/service/uptime");
        return json!({"needs": [need1.into_iter().collect::<Vec<_>>(), need2.into_iter().collect::<Vec<_>>()]});
    }
    json!({"ranking": []})
}

/// A workspace with the city API imported, BM25 and a per-intent window of 3 configured, and
/// the model at `addr`.
fn city_workspace(addr: std::net::SocketAddr) -> (Workspace, String) {
    let window = "\n[retrieve.rerank]\nwindow = \"per_intent\"\nper_intent = 3\n";
    Workspace::bm25_imported(addr, window, ("city.json", &city_spec()), QUERIES)
}

/// The model of [`reply_to`].
async fn loopback() -> (std::net::SocketAddr, Prompts) {
    TextModel::new(|prompt| reply_to(prompt).to_string(), (200, 10))
        .serve()
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn search_shows_the_model_each_need_and_explains_which_need_a_pick_served() {
    let (addr, seen) = loopback().await;
    tokio::task::spawn_blocking(move || {
        let (ws, _) = city_workspace(addr);
        let args = [
            "search",
            REQUEST,
            "-k",
            "3",
            "--intents",
            "--rerank",
            "--explain",
        ];
        let hits = json_of(&ws.ok(&[&args[..], &["--json"]].concat()));
        let apis: Vec<&str> = hits
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["api"].as_str().unwrap())
            .collect();
        assert_eq!(
            apis[..2],
            ["city/air_quality", "city/service_uptime"],
            "{hits:#}"
        );
        let second = &hits[1]["explanation"];
        assert_eq!(second["method"], "reranked", "{second:#}");
        assert_eq!(second["picked"], true);
        assert_eq!(second["need"]["index"], 2, "{second:#}");
        assert_eq!(second["need"]["intent"], MAIL_NEED);
        assert_eq!(hits[0]["explanation"]["need"]["index"], 1, "{hits:#}");
        let prompts = seen.lock().unwrap().clone();
        assert_eq!(
            prompts.len(),
            2,
            "one extraction, one reranking: {prompts:#?}"
        );
        assert!(
            prompts[1].contains(&format!("Need 2: {MAIL_NEED}")),
            "{}",
            prompts[1]
        );
        // The text form names the need; both answers come from the cache.
        let text = ws.ok(&args);
        assert!(
            text.contains(&format!(
                "named by the reranker for need 2 of 2 {MAIL_NEED:?}"
            )),
            "{text}"
        );
        assert_eq!(seen.lock().unwrap().len(), 2);
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn bench_retrieval_reports_the_per_intent_window_its_cost_and_its_ceiling() {
    let (addr, seen) = loopback().await;
    tokio::task::spawn_blocking(move || {
        let (ws, queries) = city_workspace(addr);
        let args = [
            "bench",
            "retrieval",
            "--dataset",
            &queries,
            "--intents",
            "--rerank",
            "--coverage-k",
            "1,3",
            "--json",
        ];
        let report = json_of(&ws.ok(&args));
        assert_eq!(report["ndcg@5"], 100.0, "{report:#}");
        assert_eq!(report["coverage@5"], 100.0, "{report:#}");
        let cost = &report["rerank"];
        assert_eq!(cost["window"], "per_intent", "{cost:#}");
        assert_eq!(cost["per_intent"], 3);
        assert_eq!(
            cost["llm_calls"], 1.0,
            "one question per query, whatever K: {cost:#}"
        );
        assert_eq!(cost["unusable"], 0);
        assert!(cost["candidates"].as_f64().unwrap() <= 6.0, "{cost:#}");
        // The window's ceiling: each need's top 1 makes a window of 2, its top 3 holds the path.
        let curve = report["coverage_curve"].as_array().unwrap();
        assert_eq!(curve[0]["k"], 1);
        assert_eq!(curve[0]["intent_window"]["candidates"], 2.0, "{report:#}");
        assert_eq!(curve[1]["intent_window"]["coverage"], 100.0, "{report:#}");
        assert_eq!(
            seen.lock().unwrap().len(),
            4,
            "two extractions, two rerankings"
        );
    })
    .await
    .unwrap();
}
