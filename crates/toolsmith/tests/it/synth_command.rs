//! `toolsmith synth` end to end on the example library API: a loopback OpenAI-compatible
//! server plays the query writer, the answer check, EasyTool and the embedding endpoint; the
//! planned calls run in the simulator. The set is made, stopped by its LLM budget and resumed
//! without asking again, measured with `bench retrieval --dataset synth:NAME`, exported, and
//! its eval split never reaches a refiner's prompt or the index.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::support::{Workspace, serve_loopback, text_completion};

const DIMS: usize = 256;

#[derive(Clone, Default)]
struct Loopback {
    /// Requests written so far (each request's text carries its number).
    written: Arc<AtomicUsize>,
    /// The writer's asks.
    writer_asks: Arc<AtomicUsize>,
    /// Every chat prompt and embedding input seen while `recording`.
    seen: Arc<Mutex<Vec<String>>>,
    recording: Arc<Mutex<bool>>,
}

impl Loopback {
    fn record(&self, text: &str) {
        if *self.recording.lock().unwrap() {
            self.seen.lock().unwrap().push(text.to_owned());
        }
    }
}

/// The endpoints (`GET /authors/{author_id}`) of the calls a writer prompt lists, in order.
fn endpoints(prompt: &str) -> Vec<String> {
    prompt
        .split("\nCall ")
        .skip(1)
        .filter_map(|block| {
            let start = block.find('`')? + 1;
            let end = start + block[start..].find('`')?;
            Some(block[start..end].to_owned())
        })
        .collect()
}

/// The arguments of a call to `endpoint` as step `step` (0-based), after `previous`.
fn arguments(endpoint: &str, step: usize, previous: Option<&str>) -> Value {
    let search_before = matches!(previous, Some("GET /authors" | "GET /books"));
    let id = |literal: u64| {
        if search_before {
            // 1-based in the prompt: the writer turns it 0-based.
            json!({"$from": step, "path": ".results[0].id"})
        } else {
            json!(literal)
        }
    };
    match endpoint {
        "GET /authors" => json!({"name": "Lem"}),
        "GET /books" => json!({"title": "Solaris"}),
        e if e.contains("{author_id}") => json!({"author_id": id(2)}),
        e if e.contains("{book_id}") => json!({"book_id": id(4)}),
        e if e.contains("{member_id}") => json!({"member_id": 1}),
        e if e.contains("{loan_id}") => json!({"loan_id": 1}),
        _ => json!({"book_id": 4, "member_id": 1}),
    }
}

fn writer_reply(state: &Loopback, prompt: &str) -> Value {
    state.writer_asks.fetch_add(1, Ordering::SeqCst);
    let wanted: usize = prompt
        .split("Write ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let calls = endpoints(prompt);
    let requests: Vec<Value> = (0..wanted)
        .map(|_| {
            let n = state.written.fetch_add(1, Ordering::SeqCst);
            let planned: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let previous = i.checked_sub(1).map(|p| calls[p].as_str());
                    json!({"arguments": arguments(e, i, previous)})
                })
                .collect();
            json!({"text": format!("library request #{n} via {}", calls.join(" and ")),
                   "phrasing": "terse", "calls": planned})
        })
        .collect();
    json!({ "requests": requests })
}

async fn chat(state: axum::extract::State<Loopback>, Json(request): Json<Value>) -> Json<Value> {
    let text = request["messages"].to_string();
    let prompt = request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_owned();
    state.record(&text);
    let reply = if prompt.contains("Imagine people talking to an assistant") {
        writer_reply(&state, &prompt)
    } else if prompt.contains("Decide whether the responses contain") {
        // The availability check says no: those requests are dropped as not answered.
        let answered = !prompt.contains("availability");
        json!({"answered": answered, "answer": if answered { "It is there." } else { "" }})
    } else if text.contains("Rewrite the documentation of one function") {
        json!({"description": "A library call.", "examples": []})
    } else {
        json!({"description": "The example library: authors, books, loans."})
    };
    text_completion(&request, reply.to_string(), (200, 40))
}

/// One-hot vectors: a request by its number (so no two requests are near-duplicates), any
/// other text by a hash.
async fn embeddings(
    state: axum::extract::State<Loopback>,
    Json(request): Json<Value>,
) -> Json<Value> {
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
            state.record(text);
            let slot = text
                .split('#')
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or_else(|| text.bytes().map(usize::from).sum::<usize>());
            let mut v = vec![0.0f32; DIMS];
            v[slot % DIMS] = 1.0;
            json!({"index": i, "embedding": v})
        })
        .collect();
    Json(json!({ "data": data }))
}

fn library(ws: &Workspace, addr: std::net::SocketAddr) {
    let spec = toolsmith_testbed::library_spec("http://127.0.0.1:9");
    let path = ws.dir.path().join("library.json");
    std::fs::write(&path, spec.to_string()).unwrap();
    ws.ok(&["import", path.to_str().unwrap()]);
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        format!(
            "[llm]\nbase_url = \"http://{addr}/v1\"\nmodel = \"loopback-model\"\n\
             [retrieve]\nembedder = \"http\"\nembedding_dimensions = {DIMS}\n"
        ),
    )
    .unwrap();
}

const MAKE: &[&str] = &[
    "synth",
    "run",
    "lib",
    "--single",
    "6",
    "--chains",
    "3",
    "--combos",
    "2",
    "--per-path",
    "2",
    "--cache",
    "off",
    // The scripted requests spell out their endpoints; the echo filter is eval's to test.
    "--doc-echo-max",
    "1",
    "--json",
];

#[tokio::test(flavor = "multi_thread")]
async fn synth_makes_resumes_measures_and_exports_a_set_that_never_leaks_its_eval_split() {
    let state = Loopback::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/embeddings", post(embeddings))
        .with_state(state.clone());
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    library(&ws, addr);
    tokio::task::spawn_blocking(move || check(&ws, &state))
        .await
        .unwrap();
}

fn check(ws: &Workspace, state: &Loopback) {
    let dry = ws.ok(&[MAKE, &["--dry-run"]].concat());
    let estimate: Value = serde_json::from_str(&dry).unwrap();
    let paths = estimate["paths"].as_u64().unwrap() as usize;
    assert!(paths >= 8, "{estimate}");
    assert_eq!(
        estimate["llm_calls"],
        json!(paths + 2 * paths),
        "{estimate}"
    );
    assert_eq!(
        state.writer_asks.load(Ordering::SeqCst),
        0,
        "a dry run asks nothing"
    );

    // Stopped by its budget after a few calls: the paths not done stay for a later run.
    let stopped: Value = serde_json::from_str(
        &ws.ok(&[MAKE, &["--max-llm-calls", "4", "--concurrency", "1"]].concat()),
    )
    .unwrap();
    let done_first = stopped["paths_done"].as_u64().unwrap() as usize;
    assert!(done_first < paths, "{stopped}");
    let asked_first = state.writer_asks.load(Ordering::SeqCst);
    let resumed: Value = serde_json::from_str(&ws.ok(MAKE)).unwrap();
    assert_eq!(resumed["paths_done"], json!(paths), "{resumed}");
    // The resume asked the writer only for the paths not done (a path stopped between its
    // writer and its answer check is asked again; with the LLM cache on that is a hit).
    assert_eq!(
        asked_first + (paths - done_first),
        state.writer_asks.load(Ordering::SeqCst)
    );
    let kept = &resumed["kept"];
    let eval = kept["eval"].as_u64().unwrap_or(0) as usize;
    assert!(eval > 0, "{resumed}");
    assert!(
        resumed["kinds"]["chain"].as_u64().unwrap_or(0) > 0,
        "{resumed}"
    );

    let shown: Value = serde_json::from_str(&ws.ok(&["synth", "show", "lib", "--json"])).unwrap();
    let eval_texts: Vec<String> = shown["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(eval_texts.len(), eval);
    let dropped: Value =
        serde_json::from_str(&ws.ok(&["synth", "show", "lib", "--split", "dropped", "--json"]))
            .unwrap();
    for q in dropped["queries"].as_array().unwrap() {
        assert_eq!(q["fate"]["verdict"], "dropped");
    }
    let list = ws.ok(&["synth", "list"]);
    assert!(list.contains("lib"), "{list}");

    let retrieval: Value = serde_json::from_str(&ws.ok(&[
        "bench",
        "retrieval",
        "--dataset",
        "synth:lib",
        "--method",
        "bm25",
        "--json",
    ]))
    .unwrap();
    assert_eq!(retrieval["queries"], json!(eval), "{retrieval}");

    let run: Value = serde_json::from_str(&ws.ok(&[
        "bench",
        "run",
        "--dataset",
        "synth:lib",
        "--solver",
        "react",
        "--limit",
        "2",
        "--cache",
        "off",
        "--json",
    ]))
    .unwrap();
    assert_eq!(run["spec"]["dataset"], "synth:lib", "{run}");
    assert_eq!(run["summary"]["queries"], json!(eval.min(2)), "{run}");
    assert_eq!(
        run["skipped"], 0,
        "every gold API resolves in the catalog: {run}"
    );

    let out = ws.dir.path().join("lib_restbench.json");
    ws.ok(&[
        "synth",
        "export",
        "lib",
        "--format",
        "restbench",
        "--out",
        out.to_str().unwrap(),
    ]);
    let file: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let exported: Vec<&str> = file
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["query"].as_str().unwrap())
        .collect();
    assert_eq!(exported, eval_texts);
    let again: Value = serde_json::from_str(&ws.ok(&[
        "bench",
        "retrieval",
        "--dataset",
        out.to_str().unwrap(),
        "--method",
        "bm25",
        "--json",
    ]))
    .unwrap();
    assert_eq!(again["queries"], json!(eval), "{again}");

    // From here on, nothing a refiner is asked or the index embeds may carry an eval request.
    // (The gate, on by default once an eval split exists, searches with the eval requests:
    // that measures on them and is not a leak, so it is off here.)
    *state.recording.lock().unwrap() = true;
    ws.ok(&[
        "refine",
        "--method",
        "easytool",
        "--cache",
        "off",
        "--no-gate",
    ]);
    ws.ok(&["index"]);
    let seen = state.seen.lock().unwrap().clone();
    assert!(!seen.is_empty(), "refine and index reached the loopback");
    for text in &eval_texts {
        assert!(
            seen.iter().all(|s| !s.contains(text.as_str())),
            "the eval request {text:?} reached a prompt or the index"
        );
    }
    // With no dataset named, the gate reads the newest synthesized set's eval split.
    let gate = ws.ok(&["docs", "gate", "easytool", "--json"]);
    assert!(gate.contains("synth:lib"), "{gate}");
    // One model wrote the set and the candidate docs: the gate says so.
    let report: Value = serde_json::from_str(&gate).unwrap();
    assert_eq!(report["shared_writer"], "loopback-model", "{report}");
    // Docs from a run on another model share no writer with the set.
    ws.ok(&[
        "refine",
        "--method",
        "easytool",
        "--model",
        "another-model",
        "--cache",
        "off",
        "--no-gate",
    ]);
    ws.ok(&["docs", "rollback"]);
    let text = ws.ok(&["docs", "gate", "easytool", "--dataset", "synth:lib"]);
    assert!(!text.contains("written by the same model"), "{text}");
    // And back on the set's own model, the text report cautions.
    ws.ok(&["docs", "rollback"]);
    ws.ok(&[
        "refine",
        "--method",
        "easytool",
        "--cache",
        "off",
        "--no-gate",
    ]);
    let text = ws.ok(&["docs", "gate", "easytool", "--dataset", "synth:lib"]);
    assert!(
        text.contains("written by the same model (loopback-model)"),
        "{text}"
    );
}

/// The writer reads the imported docs: an active doc written later (a refined or candidate
/// version) never reaches its prompt, so its wording cannot leak into the yardstick.
#[tokio::test(flavor = "multi_thread")]
async fn the_writer_sees_the_imported_doc_never_an_active_refined_one() {
    let state = Loopback::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/embeddings", post(embeddings))
        .with_state(state.clone());
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    library(&ws, addr);
    tokio::task::spawn_blocking(move || {
        let marker = "Zanzibar candidate wording";
        ws.ok(&[
            "docs",
            "add",
            "library/search_books",
            "--description",
            marker,
            "--label",
            "easytool",
            "--activate",
        ]);
        let shown = ws.ok(&["show", "library/search_books"]);
        assert!(shown.contains(marker), "the candidate is active: {shown}");
        *state.recording.lock().unwrap() = true;
        ws.ok(&[
            "synth",
            "run",
            "blind",
            "--single",
            "10",
            "--chains",
            "0",
            "--combos",
            "0",
            "--per-path",
            "1",
            "--cache",
            "off",
        ]);
        let seen = state.seen.lock().unwrap().clone();
        let prompts: Vec<&String> = seen
            .iter()
            .filter(|s| s.contains("Imagine people talking to an assistant"))
            .collect();
        assert!(
            prompts.iter().any(|p| p.contains("GET /books`")),
            "search_books was written for: {prompts:?}"
        );
        assert!(
            prompts.iter().all(|p| !p.contains(marker)),
            "the active refined doc reached the writer"
        );
        // The yardstick's requests are asked in a user's voice.
        assert!(
            prompts
                .iter()
                .all(|p| p.contains("never seen the documentation")),
            "{prompts:?}"
        );
    })
    .await
    .unwrap();
}
