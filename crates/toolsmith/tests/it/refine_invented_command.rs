//! `toolsmith refine --method draft` over an API the simulator has the model invent responses
//! for (issue 31): by default a rewritten sentence quoting an invented value is removed and
//! shown in `docs history --rounds`; `--invented-values trust` keeps it.

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::support::{Workspace, serve_loopback, text_completion};

const KEPT: &str = "Gives the current temperature of a city.";
const QUOTING: &str = "Readings come from Blindern Observatory (reading 48213).";

/// The loopback model: the simulator's invented response, and DRAFT's three roles.
async fn chat(Json(request): Json<Value>) -> Json<Value> {
    let text = request["messages"].to_string();
    let reply = if text.contains("You stand in for a web API") {
        json!({"city": "Oslo", "temp_c": 4, "station": "Blindern Observatory", "reading_id": 48213})
    } else if text.contains("You are testing an API") {
        json!({"query": "How warm is it in Oslo?", "arguments": {"city": "Oslo"}})
    } else if text.contains("You review API documentation") {
        json!({"suggestions": "Say where readings come from."})
    } else if text.contains("You maintain the documentation") {
        json!({"description": format!("{KEPT} {QUOTING}"), "next_exploration": "another city"})
    } else {
        json!({"description": "Weather: the current temperature of a city."})
    };
    text_completion(&request, reply.to_string(), (200, 40))
}

/// Every text embeds to the same vector (one round: no diversity check is needed).
async fn embeddings(Json(request): Json<Value>) -> Json<Value> {
    let n = request["input"].as_array().map_or(1, Vec::len);
    let data: Vec<Value> = (0..n)
        .map(|i| json!({"index": i, "embedding": [1.0, 0.0, 0.0, 0.0]}))
        .collect();
    Json(json!({"data": data}))
}

/// The `draft` doc of the API after a run.
fn draft_doc(ws: &Workspace, api: &str) -> String {
    let history: Value = serde_json::from_str(&ws.ok(&["docs", "history", api, "--json"])).unwrap();
    history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|v| v["label"] == "draft")
        .map(|v| v["doc"]["description"].as_str().unwrap().to_owned())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn refine_removes_a_sentence_quoting_an_invented_value_unless_told_to_trust() {
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/embeddings", post(embeddings));
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    ws.import_weather();
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        format!(
            "[llm]\nbase_url = \"http://{addr}/v1\"\nmodel = \"loopback-model\"\n\
             [retrieve]\nembedder = \"http\"\nembedding_dimensions = 4\n"
        ),
    )
    .unwrap();
    let api = "weather/current_weather";
    tokio::task::spawn_blocking(move || {
        let out = ws.ok(&["refine", "--method", "draft", "--max-rounds", "1"]);
        assert!(
            out.contains("rewrites quoted 2 values only an invented response held; 2 removed"),
            "{out}"
        );
        assert_eq!(draft_doc(&ws, api), KEPT);
        let rounds = ws.ok(&["docs", "history", api, "--rounds"]);
        assert!(rounds.contains("observed (ok, simulated+llm)"), "{rounds}");
        assert!(
            rounds.contains(&format!(
                "quoted an invented value \"Blindern Observatory\" (sentence removed): {QUOTING}"
            )),
            "{rounds}"
        );

        let out = ws.ok(&[
            "refine",
            "--method",
            "draft",
            "--max-rounds",
            "1",
            "--invented-values",
            "trust",
        ]);
        assert!(out.contains("; 0 removed"), "flagged, kept: {out}");
        assert_eq!(draft_doc(&ws, api), format!("{KEPT} {QUOTING}"));
        let failed = ws.run(&["refine", "--resume", "--invented-values", "trust"]);
        assert!(!failed.status.success(), "a resumed run keeps its own rule");
    })
    .await
    .unwrap();
}
